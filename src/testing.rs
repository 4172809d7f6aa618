//! Hooks that let the test suites reach states a real run reaches only by bad luck.
//!
//! - `WF_TEST_CRASH_AT=<point>` makes `wf` abort (as SIGKILL would) when it reaches
//!   the named point, e.g. `before-rename` in the middle of an atomic write.
//! - `WF_TEST_FAULT=<op>:<n>[:<errno>]` makes the n-th `op` (write, fsync, rename or
//!   create) of this process fail with `errno` (EIO, the default, or ENOSPC) inside
//!   the file helpers of `fs::durable`, through which every durable write goes. It
//!   says so on stderr (`wf: test fault: …`), so a test knows a fault point was hit.
//! - `WF_TEST_NO_SUMMARY=1` makes readers ignore `summary.json` and load the whole
//!   state, so a test can compare the two ways of reading.
//! - `WF_TEST_NO_FULL_LOAD=1` makes parsing the whole snapshot an error, so a test
//!   can tell a read path that must not do it when the summary is current.
//! - `WF_TEST_MAX_RECORD_READS=<n>` makes reading more than `n` task records (a task
//!   held unread, looked at whole: `state::task_ref`) end the command with an error,
//!   so a test can tell a command that must not read every task it holds.
//!
//! - `WF_TEST_HEARTBEAT_SECS=<n>` makes a run's heartbeat beat every `n` seconds
//!   instead of every minute (`report::heartbeat`).
//!
//! For tests only; users never set them. The fault setting is read from the
//! environment once, on the first file operation, and cached.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

pub fn crash_point(name: &str) {
    if std::env::var_os("WF_TEST_CRASH_AT").is_some_and(|v| v == name) {
        std::process::abort();
    }
}

/// Readers ignore `summary.json` (`WF_TEST_NO_SUMMARY`).
pub fn summary_off() -> bool {
    std::env::var_os("WF_TEST_NO_SUMMARY").is_some_and(|v| v == "1")
}

/// The heartbeat's interval in seconds (`WF_TEST_HEARTBEAT_SECS`), when set.
pub fn heartbeat_secs() -> Option<u64> {
    std::env::var("WF_TEST_HEARTBEAT_SECS")
        .ok()?
        .parse()
        .ok()
        .filter(|&n| n > 0)
}

/// Parsing the whole snapshot is refused (`WF_TEST_NO_FULL_LOAD`).
pub fn full_load_forbidden() -> bool {
    std::env::var_os("WF_TEST_NO_FULL_LOAD").is_some_and(|v| v == "1")
}

static RECORD_READS: AtomicU64 = AtomicU64::new(0);

/// Counts a task record read; past `WF_TEST_MAX_RECORD_READS`, ends the command.
pub fn record_read() {
    static MAX: OnceLock<Option<u64>> = OnceLock::new();
    let max = MAX.get_or_init(|| {
        std::env::var("WF_TEST_MAX_RECORD_READS")
            .ok()
            .and_then(|s| s.trim().parse().ok())
    });
    let Some(max) = *max else { return };
    let read = RECORD_READS.fetch_add(1, Ordering::Relaxed) + 1;
    if read > max {
        crate::output::stderr_line(format_args!(
            "wf: test: {read} task records read, more than WF_TEST_MAX_RECORD_READS={max}"
        ));
        std::process::exit(crate::error::ErrorKind::Failed.exit_code());
    }
}

/// The kinds of file operation a fault can be injected into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Write,
    Fsync,
    Rename,
    Create,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Write => "write",
            Op::Fsync => "fsync",
            Op::Rename => "rename",
            Op::Create => "create",
        }
    }
}

struct Fault {
    op: Op,
    n: u64,
    errno: i32,
}

fn parse(spec: &str) -> Option<Fault> {
    let mut parts = spec.split(':');
    let op = match parts.next()? {
        "write" => Op::Write,
        "fsync" => Op::Fsync,
        "rename" => Op::Rename,
        "create" => Op::Create,
        _ => return None,
    };
    let n = parts.next()?.parse().ok()?;
    let errno = match parts.next() {
        None | Some("EIO") => libc::EIO,
        Some("ENOSPC") => libc::ENOSPC,
        Some(_) => return None,
    };
    Some(Fault { op, n, errno })
}

static FAULT: OnceLock<Option<Fault>> = OnceLock::new();
static SEEN: AtomicU64 = AtomicU64::new(0);

/// Counts one `op`; fails it if it is the one `WF_TEST_FAULT` names.
pub fn fault(op: Op) -> std::io::Result<()> {
    let fault = FAULT.get_or_init(|| {
        std::env::var("WF_TEST_FAULT")
            .ok()
            .and_then(|s| parse(s.trim()))
    });
    let Some(f) = fault.as_ref().filter(|f| f.op == op) else {
        return Ok(());
    };
    if SEEN.fetch_add(1, Ordering::Relaxed) + 1 != f.n {
        return Ok(());
    }
    let err = std::io::Error::from_raw_os_error(f.errno);
    crate::output::stderr_line(format_args!(
        "wf: test fault: {} #{} fails: {err}",
        op.name(),
        f.n
    ));
    Err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_specs_parse() {
        let f = parse("rename:3").unwrap();
        assert_eq!((f.op, f.n, f.errno), (Op::Rename, 3, libc::EIO));
        assert_eq!(parse("write:1:ENOSPC").unwrap().errno, libc::ENOSPC);
        assert!(parse("chmod:1").is_none());
        assert!(parse("write:x").is_none());
        assert!(parse("write:1:EPERM").is_none());
    }
}
