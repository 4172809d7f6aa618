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

/// The environment variable that tells which command of which `wf` a process
/// descends from: `<wf pid>.<command number>`.
pub const SPAWN_VAR: &str = "WF_SPAWN";

/// The `WF_SPAWN` value of this process's command number `n`.
pub fn token(n: u64) -> String {
    format!("{}.{n}", std::process::id())
}

/// Makes orphaned descendants children of `wf` (once per process). Where the kernel
/// refuses (before Linux 3.4), they go to `init` as before and escape the sweep.
pub fn become_subreaper() {
    static DONE: OnceLock<bool> = OnceLock::new();
    DONE.get_or_init(|| {
        // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) takes integers only and changes
        // nothing but this process's subreaper flag.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    });
}

/// The pids of this process's children, read from each thread's
/// `/proc/self/task/<tid>/children` (a child belongs to the thread that forked it,
/// or the one the kernel picked for an orphan); without that file, by scanning
/// every `/proc/<pid>/stat` for this parent.
pub fn children() -> Vec<i32> {
    let mut pids = Vec::new();
    let mut found_any_file = false;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                found_any_file = true;
                pids.extend(
                    text.split_whitespace()
                        .filter_map(|p| p.parse::<i32>().ok()),
                );
            }
        }
    }
    if found_any_file {
        return pids;
    }
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return pids;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if stat_fields(pid).is_some_and(|f| f.ppid == me) {
            pids.push(pid);
        }
    }
    pids
}

/// What the sweep needs to know of one child of `wf`.
pub struct Stray {
    /// Exited, waiting to be reaped.
    pub zombie: bool,
    /// The command number in its `WF_SPAWN`, if that names this `wf`.
    pub spawn: Option<u64>,
    /// In `wf`'s own process group: started by `wf` without a group of its own.
    pub in_wf_group: bool,
}

impl Stray {
    pub fn read(pid: i32) -> Stray {
        let stat = stat_fields(pid);
        // SAFETY: getpgrp takes nothing and cannot fail.
        let wf_group = unsafe { libc::getpgrp() };
        Stray {
            // Gone already (reaped by its own waiter): nothing to end.
            zombie: stat.as_ref().is_none_or(|s| s.state == 'Z'),
            spawn: spawn_of(pid),
            in_wf_group: stat.is_some_and(|s| s.pgrp == wf_group),
        }
    }
}

/// The command number in `pid`'s `WF_SPAWN`, when it names this process.
fn spawn_of(pid: i32) -> Option<u64> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{SPAWN_VAR}={}.", std::process::id());
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
pub fn signal(pid: i32, sig: i32) {
    // SAFETY: getpgid and kill take integers and touch no memory. `pid` is an
    // unreaped child of this process, so neither it nor its group id can have been
    // reused.
    unsafe {
        if libc::getpgid(pid) == pid {
            libc::kill(-pid, sig);
        }
        libc::kill(pid, sig);
    }
}

/// Reaps `pid`, a zombie child of this process that no one else waits for.
pub fn reap(pid: i32) {
    let mut status = 0;
    // SAFETY: waitpid writes the status into a local int; WNOHANG never blocks.
    unsafe {
        libc::waitpid(pid, &mut status, libc::WNOHANG);
    }
}

/// Kills (SIGKILL) the process group of every process whose environment says it
/// belongs to `workflow_dir`; returns the groups it ended.
pub fn kill_orphans(workflow_dir: &Path) -> Vec<i32> {
    let needle = format!("WF_WORKFLOW_DIR={}", workflow_dir.display());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let me = std::process::id() as i32;
    let mut groups = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes())
        {
            continue;
        }
        // SAFETY: getpgid and kill take plain integers and touch no memory.
        let pgid = unsafe { libc::getpgid(pid) };
        if pgid > 1 && pgid != me && !groups.contains(&pgid) {
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
            groups.push(pgid);
        }
    }
    groups
}
