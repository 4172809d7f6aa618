//! A task log that exists only once there is something to put in it.
//!
//! Creating a file is the dearest thing a no-op task does: on ext4 an inode
//! allocation costs ~0.5 ms of system time (more right after many deletions, when the
//! allocator steps over recently freed inodes), about what `make` spends on a whole
//! `true` recipe. So a task command's output goes through a pipe, and its log file —
//! header line first — is created at the first byte of output, or when the command
//! fails. A silent command that succeeds leaves no log; everything else is logged as
//! before, and streamed while it runs (`tail -f` still works).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;

/// The read end of a command's output pipe and the log it fills on demand.
pub struct LazyLog<'a> {
    path: &'a Path,
    header: &'a str,
    pipe: std::io::PipeReader,
    file: Option<File>,
    /// Every writer closed the pipe: nothing more to wait for on it.
    eof: bool,
    /// The log could not be created: output is read and dropped, never blocking the
    /// child on a full pipe.
    failed: bool,
}

impl<'a> LazyLog<'a> {
    /// A pipe for the child's stdout and stderr (two ends of one writer) and the log
    /// it will fill. `None` if no pipe can be made: the caller logs the old way.
    pub fn new(
        path: &'a Path,
        header: &'a str,
    ) -> Option<(LazyLog<'a>, std::io::PipeWriter, std::io::PipeWriter)> {
        let (pipe, writer) = std::io::pipe().ok()?;
        let writer_err = writer.try_clone().ok()?;
        // SAFETY: fcntl on an fd we own; F_SETFL with O_NONBLOCK touches no memory.
        let ok = unsafe {
            let fd = pipe.as_raw_fd();
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
        };
        if !ok {
            return None;
        }
        Some((
            LazyLog {
                path,
                header,
                pipe,
                file: None,
                eof: false,
                failed: false,
            },
            writer,
            writer_err,
        ))
    }

    /// The pipe to wait on, until it is at its end (a closed pipe is always
    /// readable: waiting on it would spin).
    pub fn fd(&self) -> Option<RawFd> {
        (!self.eof).then(|| self.pipe.as_raw_fd())
    }

    /// Moves whatever output is waiting into the log, without blocking.
    pub fn pump(&mut self) {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match self.pipe.read(&mut buf) {
                Ok(0) => {
                    self.eof = true;
                    return;
                }
                Ok(n) => self.write(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return, // WouldBlock: nothing more for now
            }
        }
    }

    /// Makes sure the log exists (with its header), e.g. because the command failed.
    pub fn ensure(&mut self) {
        self.write(&[]);
    }

    fn write(&mut self, data: &[u8]) {
        if self.failed {
            return;
        }
        if self.file.is_none() {
            let opened = crate::run::process::open_log(self.path).and_then(|mut f| {
                writeln!(f, "$ {}", self.header)?;
                Ok(f)
            });
            match opened {
                Ok(f) => self.file = Some(f),
                Err(_) => {
                    self.failed = true;
                    return;
                }
            }
        }
        if let Some(f) = self.file.as_mut() {
            if !data.is_empty() && f.write_all(data).is_err() {
                self.failed = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_output_no_file_until_ensured() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let (mut log, w, w2) = LazyLog::new(&path, "true").unwrap();
        drop((w, w2));
        log.pump();
        assert!(!path.exists());
        log.ensure();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "$ true\n");
    }

    #[test]
    fn output_creates_the_log_with_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let (mut log, mut w, w2) = LazyLog::new(&path, "echo hi").unwrap();
        w.write_all(b"hi\n").unwrap();
        drop((w, w2));
        log.pump();
        log.ensure();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "$ echo hi\nhi\n");
    }

    #[test]
    fn silent_success_leaves_no_log_failure_and_output_do() {
        use crate::run::process::{run_logged, Children, Program, Spec};
        let dir = tempfile::tempdir().unwrap();
        let run = |line: &str, log: &Path| {
            run_logged(
                Spec {
                    program: Program::Shell(line.into()),
                    cwd: dir.path(),
                    env: vec![],
                    timeout: std::time::Duration::from_secs(10),
                    log,
                    stdin: None,
                    on_start: None,
                },
                line,
                &Children::default(),
            )
        };
        let quiet = dir.path().join("quiet.log");
        assert!(run("true", &quiet).success());
        assert!(!quiet.exists());
        let failed = dir.path().join("failed.log");
        assert!(!run("false", &failed).success());
        assert_eq!(std::fs::read_to_string(&failed).unwrap(), "$ false\n");
        let noisy = dir.path().join("noisy.log");
        assert!(run("echo out; echo err >&2", &noisy).success());
        assert_eq!(
            std::fs::read_to_string(&noisy).unwrap(),
            "$ echo out; echo err >&2\nout\nerr\n"
        );
    }
}
