//! Ending what a command left running: in this run, and after a crashed one.
//!
//! In a run, `wf` is a child subreaper: a descendant of a command whose parent dies
//! (a `setsid` daemon, a double fork) becomes a child of `wf` instead of `init`, and
//! carries the command's `WF_SPAWN` in its environment. `process::Children` decides
//! from these which stray processes to end; this module reads and signals them.
//!
//! After a crash, task commands run in their own process groups, so when `wf` is killed they live
//! on. Before a resumed run starts a task again, the processes of the crashed run must
//! go, or the task would run twice at once. They are found by the environment every
//! task and executor gets: `WF_WORKFLOW_DIR` names this workflow. Only the holder of
//! the workflow's lock calls this, so no live run can own such a process.

use std::path::Path;
use std::sync::OnceLock;

use rustix::process::{Pid, Signal, WaitOptions};

/// The environment variable that tells which command of which `wf` a process
/// descends from: `<wf pid>.<command number>`.
pub const SPAWN_VAR: &str = "WF_SPAWN";

/// The `WF_SPAWN` value of this process's command number `n`.
pub fn token(n: u64) -> String {
    format!("{}.{n}", own_pid())
}

/// This process's id, asked of the kernel once: `std::process::id` is a system call
/// each time (glibc keeps no copy), and `wf` never forks without an exec, so its id
/// never changes under it.
fn own_pid() -> u32 {
    static PID: OnceLock<u32> = OnceLock::new();
    *PID.get_or_init(std::process::id)
}

/// Whether this process has no child process at all, live or exited, of any of its
/// threads. Then no command left anything behind: while `wf` lives, every process a
/// command started is a descendant of one of `wf`'s children (an orphan's new
/// parent is `wf` itself, the subreaper, or a subreaper below it), so with no child
/// there is no such process, in the command's group or out of it. One `waitid` that
/// neither waits (`WNOHANG`) nor reaps (`WNOWAIT`); `__WALL` counts children whatever
/// signal their exit sends. Only its "no child" (`ECHILD`) is a yes: any other answer,
/// such as a kernel before 4.7 refusing `__WALL` here, leaves it to the sweep.
pub fn no_children() -> bool {
    use rustix::process::{WaitId, WaitIdOptions};
    #[allow(clippy::cast_sign_loss)] // a flag bit, 0x40000000
    let all = WaitIdOptions::from_bits_retain(libc::__WALL as u32);
    matches!(
        rustix::process::waitid(
            WaitId::All,
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT | all,
        ),
        Err(rustix::io::Errno::CHILD)
    )
}

/// Makes orphaned descendants children of `wf` (once per process). Where the kernel
/// refuses (before Linux 3.4), they go to `init` as before and escape the sweep.
pub fn become_subreaper() {
    static DONE: OnceLock<bool> = OnceLock::new();
    DONE.get_or_init(|| {
        // rustix passes the pid given as prctl's argument: any non-zero one sets
        // the flag.
        rustix::process::set_child_subreaper(Some(Pid::INIT)).is_ok()
    });
}

/// The pids of the main thread's children: every orphan a subreaper adopts goes to
/// its first live thread (the main one, alive all run), as do the commands the main
/// thread starts; workers' own commands are their threads' children and need no
/// sweep of their own (`process::Children` knows them). One small file, read only
/// when `wf` has children at all ([`no_children`] answers the commonest case, nothing
/// left, without it). Where the kernel has no `children` file (CONFIG_PROC_CHILDREN),
/// every `/proc/<pid>/stat` is scanned for this parent.
pub fn children() -> Vec<i32> {
    let me = own_pid() as i32;
    if let Some(text) = read_children_file(me) {
        return text
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
            .collect();
    }
    all_pids()
        .filter(|pid| stat_fields(*pid).is_some_and(|f| f.ppid == me))
        .collect()
}

/// The main thread's `children` file, opened once and read from its start each
/// time (the kernel writes it anew for a read at offset 0): under `--jobs N` every
/// command's end reads it, on the way to the next command's start.
fn read_children_file(me: i32) -> Option<String> {
    use std::os::unix::fs::FileExt;
    static FILE: OnceLock<Option<std::fs::File>> = OnceLock::new();
    let file = FILE
        .get_or_init(|| std::fs::File::open(format!("/proc/self/task/{me}/children")).ok())
        .as_ref()?;
    let mut text = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match file.read_at(&mut chunk, text.len() as u64) {
            Ok(0) => break,
            Ok(n) => text.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    String::from_utf8(text).ok()
}

/// Every process id in `/proc` (none when it cannot be read).
fn all_pids() -> impl Iterator<Item = i32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flat_map(std::iter::Iterator::flatten)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
}

/// What the sweep needs to know of one child of `wf`.
pub struct Stray {
    pub pid: i32,
    /// Gone already (reaped by its own waiter): nothing to do.
    pub gone: bool,
    /// Exited, waiting to be reaped.
    pub zombie: bool,
    /// Whose its environment says it is.
    pub spawn: Spawn,
    /// In `wf`'s own process group: started by `wf` without a group of its own.
    pub in_wf_group: bool,
    /// Its process group, while it has not been reaped.
    pub pgrp: Option<i32>,
}

/// What a stray's environment says of whose it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spawn {
    /// Its `WF_SPAWN` names this `wf`'s command of that number.
    Named(u64),
    /// Read, with no `WF_SPAWN` of this `wf` in it.
    Unnamed,
    /// Not readable, or empty: as a process shows it in the middle of an exec (its
    /// new environment not in place yet) or dying (none left), or another user's.
    Unread,
}

impl Stray {
    pub fn read(pid: i32) -> Stray {
        let stat = stat_fields(pid);
        let wf_group = rustix::process::getpgrp().as_raw_nonzero().get();
        Stray {
            pid,
            gone: stat.is_none(),
            zombie: stat.as_ref().is_some_and(|s| s.state == 'Z'),
            spawn: spawn_of(pid),
            in_wf_group: stat.as_ref().is_some_and(|s| s.pgrp == wf_group),
            pgrp: stat.map(|s| s.pgrp),
        }
    }
}

/// Whose `pid`'s environment says it is.
fn spawn_of(pid: i32) -> Spawn {
    match std::fs::read(format!("/proc/{pid}/environ")) {
        Ok(environ) if !environ.is_empty() => {
            spawn_in(&environ, own_pid()).map_or(Spawn::Unnamed, Spawn::Named)
        }
        _ => Spawn::Unread,
    }
}

/// The command number in a NUL-separated environment's `WF_SPAWN`, when it names
/// `wf_pid`.
fn spawn_in(environ: &[u8], wf_pid: u32) -> Option<u64> {
    let prefix = format!("{SPAWN_VAR}={wf_pid}.");
    environ.split(|&b| b == 0).find_map(|var| {
        std::str::from_utf8(var.strip_prefix(prefix.as_bytes())?)
            .ok()?
            .parse()
            .ok()
    })
}

struct StatFields {
    state: char,
    ppid: i32,
    pgrp: i32,
}

/// State, parent and process group from `/proc/<pid>/stat` (after the command name,
/// which may itself hold spaces and parentheses).
fn stat_fields(pid: i32) -> Option<StatFields> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut rest = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    let pgrp = rest.next()?.parse().ok()?;
    Some(StatFields { state, ppid, pgrp })
}

/// Sends `sig` to `pid`, a child of this process, and to its process group when it
/// leads one (a `setsid` daemon's own children are there).
/// `pid` is an unreaped child of this process, so neither it nor its group id can
/// have been reused.
pub fn signal(pid: i32, sig: Signal) {
    let Some(pid) = Pid::from_raw(pid) else {
        return;
    };
    if rustix::process::getpgid(Some(pid)) == Ok(pid) {
        let _ = rustix::process::kill_process_group(pid, sig);
    }
    let _ = rustix::process::kill_process(pid, sig);
}

/// Reaps `pid`, a zombie child of this process that no one else waits for.
pub fn reap(pid: i32) {
    if let Some(pid) = Pid::from_raw(pid) {
        let _ = rustix::process::waitpid(Some(pid), WaitOptions::NOHANG);
    }
}

/// Kills (SIGKILL) the process group of every process whose environment says it
/// belongs to `workflow_dir`; returns the groups it ended.
pub fn kill_orphans(workflow_dir: &Path) -> Vec<i32> {
    let needle = format!("WF_WORKFLOW_DIR={}", workflow_dir.display());
    let me = own_pid() as i32;
    let mut groups = Vec::new();
    for pid in all_pids() {
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if !environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes())
        {
            continue;
        }
        let Some(group) = Pid::from_raw(pid).and_then(|p| rustix::process::getpgid(Some(p)).ok())
        else {
            continue;
        };
        let pgid = group.as_raw_nonzero().get();
        if pgid > 1 && pgid != me && !groups.contains(&pgid) {
            let _ = rustix::process::kill_process_group(group, Signal::KILL);
            groups.push(pgid);
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawn_is_read_only_from_this_wf() {
        let env = b"A=1\0WF_SPAWN=41.7\0B=2\0";
        assert_eq!(spawn_in(env, 41), Some(7));
        assert_eq!(spawn_in(env, 4), None);
        assert_eq!(spawn_in(b"WF_SPAWN=41.x\0", 41), None);
        assert_eq!(spawn_in(b"", 41), None);
    }

    #[test]
    fn an_orphan_is_adopted_and_listed_with_its_state_and_group() {
        // A name with spaces and parentheses must not shift the stat fields. The
        // orphan carries no WF_SPAWN of this process and stays in its group, so no
        // sweep of a test running alongside takes it for a stray.
        become_subreaper();
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("a b) (c");
        std::os::unix::fs::symlink("/bin/sleep", &odd).unwrap();
        let out = std::process::Command::new("/bin/sh")
            .args(["-c", "\"$0\" 5 > /dev/null 2>&1 & echo $!"])
            .arg(&odd)
            .output()
            .unwrap();
        let pid: i32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        assert!(children().contains(&pid), "orphan {pid} not adopted");
        let stray = Stray::read(pid);
        assert!(!stray.gone && !stray.zombie);
        // Unread while the shell's child is still in its exec.
        assert!(matches!(stray.spawn, Spawn::Unnamed | Spawn::Unread));
        assert!(stray.in_wf_group);
        signal(pid, Signal::KILL);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !Stray::read(pid).gone && std::time::Instant::now() < deadline {
            reap(pid);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(Stray::read(pid).gone);
    }
}

#[cfg(test)]
mod no_children_tests {
    use super::*;

    /// Set in the copy of the test binary that runs [`no_children_sees_every_child`]
    /// alone: the test runner's other tests have children of their own.
    const ALONE: &str = "WF_TEST_NO_CHILDREN_ALONE";

    #[test]
    fn no_children_sees_every_child() {
        if std::env::var_os(ALONE).is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "exec::orphans::no_children_tests::no_children_sees_every_child",
                    "--exact",
                    "--test-threads=1",
                ])
                .env(ALONE, "1")
                .output()
                .unwrap();
            assert!(
                out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
                "{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        become_subreaper();
        assert!(no_children(), "the copy starts with no child");
        // The main thread's children file, kept open from this first look, is read
        // anew each time: the orphan below appears in it, then goes.
        assert_eq!(children(), Vec::<i32>::new(), "no child listed");
        // A live child, then the same child exited but not yet reaped.
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "read _"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        assert!(!no_children(), "a live child");
        drop(child.stdin.take());
        let zombie = Pid::from_raw(child.id() as i32).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while stat_fields(zombie.as_raw_nonzero().get()).is_some_and(|s| s.state != 'Z')
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(!no_children(), "an exited child not yet reaped");
        child.wait().unwrap();
        assert!(no_children(), "reaped");
        // An orphan the subreaper adopted from a child that has exited, and one a
        // thread's child left: any thread's children count.
        let orphan = std::thread::spawn(|| {
            let out = std::process::Command::new("/bin/sh")
                .args(["-c", "setsid sleep 30 > /dev/null 2>&1 & echo $!"])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse::<i32>()
                .unwrap()
        })
        .join()
        .unwrap();
        assert!(children().contains(&orphan), "adopted");
        assert!(!no_children(), "an adopted orphan");
        signal(orphan, Signal::KILL);
        let _ = rustix::process::waitpid(Pid::from_raw(orphan), WaitOptions::empty());
        assert!(no_children(), "the orphan reaped");
        assert_eq!(children(), Vec::<i32>::new(), "none listed once reaped");
    }
}
