//! Ending what a crashed run left running.
//!
//! Task commands run in their own process groups, so when `wf` is killed they live
//! on. Before a resumed run starts a task again, the processes of the crashed run must
//! go, or the task would run twice at once. They are found by the environment every
//! task and executor gets: `WF_WORKFLOW_DIR` names this workflow. Only the holder of
//! the workflow's lock calls this, so no live run can own such a process.

use std::path::Path;

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
