//! Waiting for a child's exit without polling: a Linux pidfd becomes readable when
//! the process exits, so `poll(2)` on it wakes at once instead of after a nap.
//!
//! Polling with a growing sleep (the fallback) overshoots a short command's exit by up
//! to its last nap: for a no-op task that was most of its cost. Kernels before 5.3 (no
//! `pidfd_open`) get the fallback. A command's first moments are watched through its
//! output pipe alone ([`wait_pipe_end`]): the pipe ends as a quick command exits, and
//! the pidfd's open and close are two system calls of a no-op task's thirty.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::process::{Pid, PidfdFlags};
use std::time::Duration;

/// A handle that becomes readable when the process exits.
pub struct ExitFd(OwnedFd);

/// What a wait saw ready when it returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ready {
    /// The process has exited: it can be reaped. Until then a `wait4` finds nothing.
    pub exited: bool,
    /// The output pipe's poll flags: `IN` when it holds data, `HUP` when no writer is
    /// left; empty when neither (or when the wait timed out).
    pub output: PollFlags,
}

impl ExitFd {
    /// Opens a pidfd for `pid`; `None` where the kernel has none. Call it before the
    /// child is reaped (a reaped pid may be reused).
    pub fn open(pid: u32) -> Option<ExitFd> {
        let pid = Pid::from_raw(i32::try_from(pid).ok()?)?;
        rustix::process::pidfd_open(pid, PidfdFlags::empty())
            .ok()
            .map(ExitFd)
    }

    /// Waits until the process exits, `output` is readable, or `timeout` passes.
    pub fn wait(&self, output: Option<BorrowedFd<'_>>, timeout: Duration) -> Ready {
        let [exited, output] = poll([Some(self.0.as_fd()), output], timeout);
        Ready {
            exited: !exited.is_empty(),
            output,
        }
    }
}

/// Waits until the output pipe holds data, reaches its end, or `timeout` passes. Its
/// end (`HUP`: no writer left) says the process may have exited: the pipe's write
/// ends are closed as it exits, a moment before a `wait4` can find it.
pub fn wait_pipe_end(output: BorrowedFd<'_>, timeout: Duration) -> Ready {
    let [output, _] = poll([Some(output), None], timeout);
    Ready {
        exited: output.contains(PollFlags::HUP),
        output,
    }
}

/// Waits until `output` is readable or `timeout` passes (a nap without it), where
/// there is no pidfd: the process may have exited any time.
pub fn wait_output(output: Option<BorrowedFd<'_>>, timeout: Duration) -> Ready {
    let [output, _] = poll([output, None], timeout);
    Ready {
        exited: true,
        output,
    }
}

/// Waits until one of `fds` is readable or `timeout` passes; the flags each one
/// returned (none for a missing one, or all when interrupted by a signal).
fn poll(fds: [Option<BorrowedFd<'_>>; 2], timeout: Duration) -> [PollFlags; 2] {
    let mut pfds: Vec<PollFd<'_>> = fds
        .iter()
        .flatten()
        .map(|fd| PollFd::from_borrowed_fd(*fd, PollFlags::IN))
        .collect();
    if pfds.is_empty() {
        std::thread::sleep(timeout);
        return [PollFlags::empty(); 2];
    }
    let timeout = timeout.max(Duration::from_millis(1));
    let timeout = Timespec {
        tv_sec: i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(timeout.subsec_nanos()),
    };
    if rustix::event::poll(&mut pfds, Some(&timeout)).is_err() {
        // Interrupted by a signal (EINTR): say everything may be ready, so the
        // caller looks at each for itself.
        let all = PollFlags::IN | PollFlags::HUP;
        return fds.map(|fd| fd.map_or(PollFlags::empty(), |_| all));
    }
    let mut got = pfds.iter().map(PollFd::revents);
    fds.map(|fd| fd.and_then(|_| got.next()).unwrap_or_else(PollFlags::empty))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn wakes_when_the_child_exits() {
        let mut child = std::process::Command::new("sleep")
            .arg("0.05")
            .spawn()
            .unwrap();
        let Some(fd) = ExitFd::open(child.id()) else {
            let _ = child.wait();
            return; // no pidfd on this kernel: the fallback is tested by process.rs
        };
        let start = Instant::now();
        assert!(fd.wait(None, Duration::from_secs(5)).exited);
        assert!(start.elapsed() < Duration::from_secs(4));
        assert!(child.wait().unwrap().success());
    }

    #[test]
    fn times_out_while_the_child_runs() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        if let Some(fd) = ExitFd::open(child.id()) {
            let ready = fd.wait(None, Duration::from_millis(20));
            assert!(!ready.exited && ready.output.is_empty(), "{ready:?}");
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}
