//! A command's log: created only once there is something to put in it, and capped.
//!
//! Creating a file is the dearest thing a no-op task does, so a command's output
//! goes through a pipe, and its log file — header line first, when there is one — is
//! created at the first byte of output, or when the command fails. A silent command
//! that succeeds leaves no log.
//!
//! A command that prints a gigabyte must not write a gigabyte: on a small disk the
//! log would take the state with it. The first half of the cap streams to the file as
//! it comes (`tail -f` works); past it, only the last half is kept, in memory, and
//! written at the end after a one-line marker saying how many bytes were dropped. A
//! log that cannot be written (full disk, a link where it goes) costs the output, not
//! the run: the error is kept for the task's failure text.
//!
//! A log may also echo its output a line at a time as it comes (`-v`, [`Echo`]): the
//! same bytes the log takes, read once, every one of them (the cap is the file's).

use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

/// Where each line of a command's output is shown as it comes, besides its log: a
/// line without its newline, control characters escaped (`escape::output`).
pub type Echo<'a> = &'a (dyn Fn(&str) + Sync);

/// The longest part line an echo holds back waiting for its newline: a command that
/// prints without newlines is still shown as it goes.
const ECHO_LINE_MAX: usize = 4096;

/// The read end of a command's output pipe and the log it fills on demand.
pub struct LazyLog<'a> {
    path: &'a Path,
    /// The `$ command` line the log starts with, if the caller did not write its own.
    header: Option<&'a str>,
    pipe: std::io::PipeReader,
    file: Option<File>,
    /// Where this log's bytes start in the file (its length when opened) and how
    /// many were written: where a command's output lies is known without a `stat`
    /// of the log before and after every command.
    start: u64,
    written: u64,
    /// Every writer closed the pipe: nothing more to wait for on it.
    eof: bool,
    /// Why the log could not be written; output is then read and dropped, never
    /// blocking the child on a full pipe.
    error: Option<String>,
    /// Bytes of output still written straight to the file.
    head_left: u64,
    /// The last bytes of output past the head, at most `tail_cap` of them.
    tail: VecDeque<u8>,
    tail_cap: usize,
    /// Output bytes that are in neither the head nor the tail.
    dropped: u64,
    /// The last byte written to the file, to start the marker on a line of its own.
    last: Option<u8>,
    /// Where the output's lines are echoed, and the start of a line not ended yet.
    echo: Option<Echo<'a>>,
    partial: Vec<u8>,
}

impl<'a> LazyLog<'a> {
    /// A pipe for the child's stdout and stderr (one write end given as both) and the
    /// log it will fill, keeping at most `cap` bytes of output.
    pub fn new(
        path: &'a Path,
        header: Option<&'a str>,
        cap: u64,
    ) -> std::io::Result<(LazyLog<'a>, std::io::PipeWriter)> {
        let (pipe, writer) = std::io::pipe()?;
        // Set, not added to what F_GETFL would say: a pipe just made has none of the
        // flags F_SETFL changes (append, async, direct, noatime, nonblock), so there
        // is nothing to keep and one fcntl fewer per command.
        rustix::fs::fcntl_setfl(&pipe, rustix::fs::OFlags::NONBLOCK)?;
        let head = cap / 2;
        Ok((
            LazyLog {
                path,
                header,
                pipe,
                file: None,
                start: 0,
                written: 0,
                eof: false,
                error: None,
                head_left: head,
                tail: VecDeque::new(),
                tail_cap: usize::try_from(cap - head).unwrap_or(usize::MAX),
                dropped: 0,
                last: None,
                echo: None,
                partial: Vec::new(),
            },
            writer,
        ))
    }

    /// Echoes every line of output to `echo` as it comes, as well as logging it.
    pub fn echo_to(&mut self, echo: Option<Echo<'a>>) {
        self.echo = echo;
    }

    /// The pipe to wait on, until it is at its end (a closed pipe is always
    /// readable: waiting on it would spin).
    pub fn fd(&self) -> Option<BorrowedFd<'_>> {
        (!self.eof).then(|| self.pipe.as_fd())
    }

    /// Moves whatever output is waiting into the log, without blocking.
    pub fn pump(&mut self) {
        // A pipe at its end stays there (no writer is left to open it again): reading
        // would only say so once more, a system call per wake-up and at the finish.
        if self.eof {
            return;
        }
        // One read drains a full pipe (64 KiB on Linux), on the scheduler thread's
        // stack; left uninitialised, as the kernel writes what it reads.
        #[allow(clippy::large_stack_arrays)]
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 64 * 1024];
        loop {
            match rustix::io::read(&self.pipe, &mut buf) {
                Ok(([], _)) => {
                    self.eof = true;
                    return;
                }
                Ok((read, _)) => self.take(read),
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => return, // WouldBlock: nothing more for now
            }
        }
    }

    /// Takes what a wait saw of the pipe (its poll flags): reads it when it may hold
    /// data; marks its end when it is empty with no writer left (`HUP` without `IN`:
    /// a read would only return nothing); leaves it when it was not ready.
    pub fn pump_ready(&mut self, flags: rustix::event::PollFlags) {
        use rustix::event::PollFlags;
        if flags == PollFlags::HUP {
            self.eof = true;
        } else if !flags.is_empty() {
            self.pump();
        }
    }

    /// Makes sure the log exists (with its header), e.g. because the command failed.
    pub fn ensure(&mut self) {
        self.write(&[]);
    }

    /// Writes what was held back: the marker and the tail. Returns why the log could
    /// not be written, if it could not.
    pub fn finish(&mut self) -> Option<String> {
        self.pump();
        if !self.partial.is_empty() {
            self.echo_line();
        }
        if self.dropped > 0 {
            let newline = if self.last == Some(b'\n') { "" } else { "\n" };
            let marker = format!(
                "{newline}[wf: {} bytes elided here: wf.log_cap_bytes caps a command's output]\n",
                self.dropped
            );
            self.write(marker.as_bytes());
        }
        let tail = std::mem::take(&mut self.tail);
        for part in <[&[u8]; 2]>::from(tail.as_slices()) {
            if !part.is_empty() {
                self.write(part);
            }
        }
        self.error.clone()
    }

    /// The bytes of the file this log wrote (its `$ header` line first), once
    /// finished; none when it wrote nothing. After a failed write the file is asked
    /// how long it is: how much of that write landed is not known otherwise.
    pub fn written(&self) -> Option<Range<u64>> {
        let file = self.file.as_ref()?;
        let end = if self.error.is_some() {
            file.metadata()
                .map_or(self.start + self.written, |m| m.len())
        } else {
            self.start + self.written
        };
        (end > self.start).then_some(self.start..end)
    }

    /// Output from the pipe: into the head while it lasts, then into the tail.
    fn take(&mut self, data: &[u8]) {
        if self.echo.is_some() {
            self.echo(data);
        }
        let n = data
            .len()
            .min(usize::try_from(self.head_left).unwrap_or(usize::MAX));
        if n > 0 {
            self.head_left -= n as u64;
            self.write(&data[..n]);
        }
        let rest = &data[n..];
        if rest.is_empty() {
            return;
        }
        if rest.len() >= self.tail_cap {
            self.dropped += (self.tail.len() + rest.len() - self.tail_cap) as u64;
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - self.tail_cap..]);
        } else {
            self.tail.extend(rest);
            let over = self.tail.len().saturating_sub(self.tail_cap);
            self.dropped += over as u64;
            self.tail.drain(..over);
        }
    }

    /// Output to the echo: each line ended (or grown past [`ECHO_LINE_MAX`]) goes.
    fn echo(&mut self, mut data: &[u8]) {
        while let Some(end) = data.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&data[..end]);
            self.echo_line();
            data = &data[end + 1..];
        }
        self.partial.extend_from_slice(data);
        if self.partial.len() >= ECHO_LINE_MAX {
            self.echo_line();
        }
    }

    fn echo_line(&mut self) {
        let Some(echo) = self.echo else { return };
        let line = String::from_utf8_lossy(&self.partial);
        // A progress line redrawn with `\r` shows as its last state.
        let line = line.trim_end_matches('\r');
        let line = line.rsplit('\r').next().unwrap_or(line);
        echo(&crate::escape::output(line));
        self.partial.clear();
    }

    fn write(&mut self, data: &[u8]) {
        if self.error.is_some() {
            return;
        }
        if self.file.is_none() {
            let opened =
                crate::exec::process::open_log_at_end(self.path).and_then(|(mut f, len)| {
                    self.start = len;
                    if let Some(header) = self.header {
                        // One write: `writeln!` to a file makes one per piece.
                        let line = format!("$ {header}\n");
                        f.write_all(line.as_bytes())?;
                        self.written = line.len() as u64;
                    }
                    Ok(f)
                });
            match opened {
                Ok(f) => self.file = Some(f),
                Err(e) => {
                    self.error = Some(format!("cannot write the log {}: {e}", self.path.display()));
                    return;
                }
            }
        }
        if let Some(f) = self.file.as_mut() {
            if data.is_empty() {
                return;
            }
            match f.write_all(data) {
                Ok(()) => {
                    self.written += data.len() as u64;
                    self.last = data.last().copied();
                }
                Err(e) => {
                    self.error = Some(format!("cannot write the log {}: {e}", self.path.display()));
                }
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
        let (mut log, w) = LazyLog::new(&path, Some("true"), 1 << 20).unwrap();
        drop(w);
        log.pump();
        assert!(!path.exists());
        log.ensure();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "$ true\n");
    }

    #[test]
    fn output_creates_the_log_with_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let (mut log, mut w) = LazyLog::new(&path, Some("echo hi"), 1 << 20).unwrap();
        w.write_all(b"hi\n").unwrap();
        drop(w);
        assert_eq!(log.finish(), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "$ echo hi\nhi\n");
    }

    #[test]
    fn silent_success_leaves_no_log_failure_and_output_do() {
        use crate::exec::process::{run_logged, Children, Program, Spec};
        let dir = tempfile::tempdir().unwrap();
        let run = |line: &str, log: &Path| {
            crate::exec::reactor::block_on(run_logged(
                Spec {
                    program: Program::Shell(line.into()),
                    cwd: dir.path(),
                    env: vec![],
                    timeout: std::time::Duration::from_secs(10),
                    log,
                    stdin: None,
                    on_start: None,
                    log_cap: crate::config::DEFAULT_LOG_CAP,
                    echo: None,
                },
                line,
                &Children::default(),
            ))
            .exit
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

#[cfg(test)]
mod cap_tests {
    use super::*;

    /// Feeds `chunks` through a log capped at `cap` and returns the file.
    fn logged(cap: u64, chunks: &[&[u8]]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let (mut log, mut w) = LazyLog::new(&path, None, cap).unwrap();
        for chunk in chunks {
            w.write_all(chunk).unwrap();
            log.pump();
        }
        drop(w);
        assert_eq!(log.finish(), None);
        std::fs::read_to_string(&path).unwrap()
    }

    #[test]
    fn output_within_the_cap_is_kept_whole() {
        assert_eq!(logged(10, &[b"12345", b"67890"]), "1234567890");
    }

    #[test]
    fn unbounded_output_keeps_head_and_tail_with_a_marker() {
        let text = logged(10, &[b"abc", b"defghij", b"klmnopqrstuvwxyz"]);
        assert_eq!(
            text,
            "abcde\n[wf: 16 bytes elided here: wf.log_cap_bytes caps a command's output]\nvwxyz"
        );
        // One big write and many small ones keep the same bytes.
        let small: Vec<&[u8]> = b"abcdefghijklmnopqrstuvwxyz".chunks(1).collect();
        assert_eq!(logged(10, &small), text);
        assert_eq!(logged(10, &[b"abcdefghijklmnopqrstuvwxyz"]), text);
    }

    #[test]
    fn a_full_disk_is_an_error_not_a_crash() {
        let path = Path::new("/dev/full");
        if !path.exists() {
            return;
        }
        let (mut log, mut w) = LazyLog::new(path, Some("cmd"), 1 << 20).unwrap();
        w.write_all(b"output\n").unwrap();
        drop(w);
        let error = log.finish().expect("an error");
        assert!(
            error.starts_with("cannot write the log /dev/full: "),
            "{error}"
        );
    }
}

#[cfg(test)]
mod written_tests {
    use super::*;

    #[test]
    fn written_is_the_span_of_this_logs_bytes_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        std::fs::write(&path, "earlier\n").unwrap();
        let (mut log, mut w) = LazyLog::new(&path, Some("cmd"), 10).unwrap();
        w.write_all(b"abcdefghijklmnop").unwrap();
        drop(w);
        assert_eq!(log.finish(), None);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("earlier\n$ cmd\nabcde\n[wf: 6 bytes"),
            "{text}"
        );
        assert!(text.ends_with("lmnop"), "{text}");
        assert_eq!(log.written(), Some(8..text.len() as u64));
    }

    #[test]
    fn nothing_written_no_span() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        std::fs::write(&path, "earlier\n").unwrap();
        let (mut log, w) = LazyLog::new(&path, Some("cmd"), 10).unwrap();
        drop(w);
        assert_eq!(log.finish(), None);
        assert_eq!(log.written(), None);
        let (mut log, w) = LazyLog::new(&path, None, 10).unwrap();
        drop(w);
        log.ensure();
        assert_eq!(log.finish(), None);
        assert_eq!(log.written(), None, "no header, no byte: no span");
    }
}

#[cfg(test)]
mod pump_ready_tests {
    use super::*;
    use rustix::event::PollFlags;

    #[test]
    fn data_is_read_when_seen_and_an_empty_ended_pipe_never() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let (mut log, mut w) = LazyLog::new(&path, None, 1 << 20).unwrap();
        w.write_all(b"data\n").unwrap();
        log.pump_ready(PollFlags::empty());
        assert!(!path.exists(), "not seen ready: left for later");
        log.pump_ready(PollFlags::IN);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "data\n");
        assert!(log.fd().is_some(), "writers left: not at its end");
        drop(w);
        log.pump_ready(PollFlags::HUP);
        assert!(log.fd().is_none(), "empty, no writer: at its end");
        assert_eq!(log.finish(), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "data\n");
    }

    #[test]
    fn output_a_wait_did_not_see_is_kept_by_the_finish() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let (mut log, mut w) = LazyLog::new(&path, Some("cmd"), 1 << 20).unwrap();
        w.write_all(b"late\n").unwrap();
        drop(w);
        log.pump_ready(PollFlags::empty());
        assert_eq!(log.finish(), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "$ cmd\nlate\n");
    }
}

#[cfg(test)]
mod echo_tests {
    use super::*;

    #[test]
    fn every_line_is_echoed_once_whole_the_cap_being_the_files_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let seen = std::sync::Mutex::new(Vec::<String>::new());
        let echo = |line: &str| seen.lock().unwrap().push(line.to_string());
        let (mut log, mut w) = LazyLog::new(&path, None, 8).unwrap();
        log.echo_to(Some(&echo));
        w.write_all(b"first li").unwrap();
        log.pump();
        assert!(
            seen.lock().unwrap().is_empty(),
            "a part line waits for its end"
        );
        w.write_all(b"ne\r\n50%\r100%\n\x1b[1mbold\x1b[0m \x07\nlast")
            .unwrap();
        drop(w);
        assert_eq!(log.finish(), None);
        assert_eq!(
            *seen.lock().unwrap(),
            ["first line", "100%", "bold \\u{7}", "last"],
            "CRLF ended, a redrawn line at its last state, controls escaped, the end flushed"
        );
        assert!(std::fs::read_to_string(&path).unwrap().contains("elided"));
    }
}
