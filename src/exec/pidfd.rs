//! Waiting for a child's exit without polling: a Linux pidfd becomes readable when
//! the process exits, so `poll(2)` on it wakes at once instead of after a nap.
//!
//! Polling with a growing sleep (the fallback) overshoots a short command's exit by up
//! to its last nap: for a no-op task that was most of its cost. Kernels before 5.3 (no
//! `pidfd_open`) get the fallback.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::process::{Pid, PidfdFlags};
use std::time::Duration;

/// A handle that becomes readable when the process exits.
pub struct ExitFd(OwnedFd);

impl ExitFd {
    /// Opens a pidfd for `pid`; `None` where the kernel has none. Call it before the
    /// child is reaped (a reaped pid may be reused).
    pub fn open(pid: u32) -> Option<ExitFd> {
        let pid = Pid::from_raw(i32::try_from(pid).ok()?)?;
        rustix::process::pidfd_open(pid, PidfdFlags::empty())
            .ok()
            .map(ExitFd)
    }

    /// Waits until the process exits, `also` is readable, or `timeout` passes; true
    /// when woken early (the caller checks with `try_wait` and reads `also` anyway).
    pub fn wait(&self, also: Option<BorrowedFd<'_>>, timeout: Duration) -> bool {
        poll_readable(&[Some(self.0.as_fd()), also], timeout)
    }
}

/// Waits until one of `fds` is readable or `timeout` passes; true when woken early
/// (or interrupted by a signal).
pub fn poll_readable(fds: &[Option<BorrowedFd<'_>>], timeout: Duration) -> bool {
    let mut pfds: Vec<PollFd<'_>> = fds
        .iter()
        .flatten()
        .map(|fd| PollFd::from_borrowed_fd(*fd, PollFlags::IN))
        .collect();
    if pfds.is_empty() {
        std::thread::sleep(timeout);
        return false;
    }
    let timeout = timeout.max(Duration::from_millis(1));
    let timeout = Timespec {
        tv_sec: i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(timeout.subsec_nanos()),
    };
    // Woken early also when a signal interrupts the wait (EINTR is an error here).
    !matches!(rustix::event::poll(&mut pfds, Some(&timeout)), Ok(0))
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
        assert!(fd.wait(None, Duration::from_secs(5)));
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
            assert!(!fd.wait(None, Duration::from_millis(20)));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}
