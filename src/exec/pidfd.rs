//! Waiting for a child's exit without polling: a Linux pidfd becomes readable when
//! the process exits, so `poll(2)` on it wakes at once instead of after a nap.
//!
//! Polling with a growing sleep (the fallback) overshoots a short command's exit by up
//! to its last nap: for a no-op task that was most of its cost. Kernels before 5.3 (no
//! `pidfd_open`) get the fallback (`process::wait_with_deadline`). The pidfd wakes
//! `wf` once the command can be reaped, where its output pipe's end came a moment
//! before that (see `process::ExitWatch`).

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::process::{Pid, PidfdFlags};

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

    /// The descriptor to wait on: readable once the process has exited.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::reactor::{block_on, readable};
    use std::time::{Duration, Instant};

    fn exited_within(fd: &ExitFd, time: Duration) -> bool {
        let [exited, _] = block_on(readable([Some(fd.fd()), None], Instant::now() + time));
        !exited.is_empty()
    }

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
        assert!(exited_within(&fd, Duration::from_secs(5)));
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
            assert!(!exited_within(&fd, Duration::from_millis(20)));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}
