//! Ctrl-C, SIGTERM, SIGHUP and SIGQUIT during a run: all four mean "stop now".
//!
//! The first signal stops dispatching and ends the running children (their tasks go
//! back to pending and a paused checkpoint is saved). A second one skips the grace
//! period: children are killed at once, the state is still saved, then `wf` exits.
//! Whichever signal it was, `wf` exits with 130, the code of an interrupted run: a
//! closed terminal (SIGHUP) or Ctrl-\ (SIGQUIT, whose default would dump core and
//! leave the state `running` and the tasks' processes alive) is no different from
//! Ctrl-C to the run.
//!
//! The handler only counts: an atomic add is all that is safe in a signal handler.
//! The scheduler and [`InterruptWatch`] poll the count.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

static SIGNALS: AtomicU32 = AtomicU32::new(0);
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// The signals that interrupt a run.
pub const HANDLED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

extern "C" fn on_signal(_: libc::c_int) {
    SIGNALS.fetch_add(1, Ordering::SeqCst);
}

/// Installs the handler once per process; later calls are no-ops. A signal `wf`
/// was started with ignored stays ignored, as a shell leaves it to a background job
/// (SIGINT, SIGQUIT) or `nohup` leaves SIGHUP: whoever started `wf` asked for that
/// signal not to stop it, and its commands inherit it ignored.
pub fn install() {
    INSTALLED.get_or_init(|| {
        HANDLED.iter().all(|&sig| {
            // SAFETY: a zeroed sigaction is a valid empty one; the handler only does
            // an atomic add, which is async-signal-safe; sigaction reads `action`
            // and writes `now` during the call only.
            unsafe {
                let mut now: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &raw mut now) == 0
                    && now.sa_sigaction == libc::SIG_IGN
                {
                    return true;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&raw mut action.sa_mask);
                libc::sigaction(sig, &raw const action, std::ptr::null_mut()) == 0
            }
        })
    });
}

/// How many interrupt signals arrived so far.
pub fn count() -> u32 {
    SIGNALS.load(Ordering::SeqCst)
}

/// While alive, turns Ctrl-C into ending the running children (for work done on
/// the main thread, which does not poll the signal count itself).
pub struct InterruptWatch {
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl InterruptWatch {
    pub fn start(children: crate::exec::process::Children) -> InterruptWatch {
        use std::sync::atomic::Ordering;
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = done.clone();
        std::thread::spawn(move || {
            while !flag.load(Ordering::SeqCst) {
                if count() > 0 {
                    children.interrupt(Duration::from_secs(2), || count() > 1);
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        InterruptWatch { done }
    }
}

impl Drop for InterruptWatch {
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}
