//! Ctrl-C and SIGTERM during a run.
//!
//! The first signal stops dispatching and ends the running children (their tasks go
//! back to pending and a paused checkpoint is saved). A second one skips the grace
//! period: children are killed at once, the state is still saved, then `wf` exits.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

static SIGNALS: AtomicU32 = AtomicU32::new(0);
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// Installs the handler once per process; later calls are no-ops.
pub fn install() {
    INSTALLED.get_or_init(|| {
        ctrlc::set_handler(|| {
            SIGNALS.fetch_add(1, Ordering::SeqCst);
        })
        .is_ok()
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
    pub fn start(children: crate::run::process::Children) -> InterruptWatch {
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
