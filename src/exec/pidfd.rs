//! Waiting for a child's exit without polling: a Linux pidfd becomes readable when
//! the process exits, so `poll(2)` on it wakes at once instead of after a nap.
//!
//! Polling with a growing sleep (the fallback) overshoots a short command's exit by up
//! to its last nap: for a no-op task that was most of its cost. Kernels before 5.3 (no
//! `pidfd_open`) get the fallback.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// A handle that becomes readable when the process exits.
pub struct ExitFd(OwnedFd);

impl ExitFd {
    /// Opens a pidfd for `pid`; `None` where the kernel has none. Call it before the
    /// child is reaped (a reaped pid may be reused).
    pub fn open(pid: u32) -> Option<ExitFd> {
        let pid = libc::pid_t::try_from(pid).ok()?;
        // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1; no
        // memory is passed.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = i32::try_from(fd).ok().filter(|&fd| fd >= 0)?;
        // SAFETY: fd was just returned by the kernel and is owned by nobody else.
        Some(ExitFd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Waits until the process exits, `also` is readable, or `timeout` passes; true
    /// when woken early (the caller checks with `try_wait` and reads `also` anyway).
    pub fn wait(&self, also: Option<RawFd>, timeout: Duration) -> bool {
        poll_readable(&[Some(self.0.as_raw_fd()), also], timeout)
    }
}

/// Waits until one of `fds` is readable or `timeout` passes; true when woken early
/// (or interrupted by a signal).
pub fn poll_readable(fds: &[Option<RawFd>], timeout: Duration) -> bool {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .flatten()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ms = i32::try_from(timeout.as_millis().max(1)).unwrap_or(i32::MAX);
    if pfds.is_empty() {
        std::thread::sleep(timeout);
        return false;
    }
    // SAFETY: `pfds` is a valid array of `pfds.len()` pollfds for the whole call.
    let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, ms) };
    n != 0
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
