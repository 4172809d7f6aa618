//! A task's content hash, to tell a changed task from an unchanged one on re-import.
//!
//! The hash covers everything the plan says about the task except what changes
//! while the plan is worked: its status (a ticked checkbox, a ✅, a `状态` value) and
//! its line number (a task added above it moves it). spec-kit's phase-order edges are
//! added after hashing, so inserting a task does not change its neighbours' hashes;
//! the explicit `(depends on …)` deps are covered.

use md5::{Digest, Md5};

use crate::state::machine::TaskStatus;
use crate::state::model::Task;

/// Bumped if what the hash covers changes, so old and new hashes never compare equal.
const VERSION: &[u8] = b"wf-plan-digest-v1\n";

#[cfg(test)]
pub(crate) fn of(task: &Task) -> String {
    let mut t = task.clone();
    stamp(&mut t);
    t.digest
}

/// Sets `task.digest` to the hash of the task as imported: its status, line and
/// digest set aside. Done in place and streamed into the hash (no copy of the task
/// and no buffer of its JSON): every task of a plan is stamped on import.
pub(crate) fn stamp(task: &mut Task) {
    let status = std::mem::replace(&mut task.status, TaskStatus::Pending);
    let line = std::mem::take(&mut task.line);
    task.digest.clear();
    let mut h = Md5::new();
    h.update(VERSION);
    // Serializing a task of strings, numbers and bools cannot fail; a short body
    // would still give a stable (if coarse) hash.
    let _ = serde_json::to_writer(Hashing(&mut h), &*task);
    task.status = status;
    task.line = line;
    task.digest = format!("{:x}", h.finalize());
}

/// [`stamp`]s every task of a plan as parsed, split across the machine's cores, as
/// every task's JSON goes through MD5.
pub(crate) fn stamp_all(tasks: &mut [Task]) {
    // Below this a thread costs more than it saves.
    const PER_THREAD: usize = 2_000;
    if tasks.len() <= PER_THREAD {
        // Most plans: no thread, and no asking the system how many cores it has.
        tasks.iter_mut().for_each(stamp);
        return;
    }
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let chunk = tasks.len().div_ceil(threads).max(PER_THREAD);
    std::thread::scope(|scope| {
        let mut chunks = tasks.chunks_mut(chunk);
        let first = chunks.next();
        for rest in chunks {
            scope.spawn(move || rest.iter_mut().for_each(stamp));
        }
        first.into_iter().flatten().for_each(stamp);
    });
}

/// The hash as a byte sink for the serializer.
struct Hashing<'a>(&'a mut Md5);

impl std::io::Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The hash of a whole plan's text, to tell "the same plan again" on re-import.
pub fn text_digest(text: &str) -> String {
    format!("{:x}", Md5::digest(text.as_bytes()))
}

/// [`text_digest`] of a file's bytes, read a piece at a time: the import checks its
/// staged plan copy so while its own text is still held, and a second whole copy
/// would add the plan's size again to its peak memory.
pub fn file_digest(path: &std::path::Path) -> std::io::Result<String> {
    let mut hasher = Md5::new();
    std::io::copy(&mut std::fs::File::open(path)?, &mut hasher)?;
    Ok(format!("{:x}", hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read a piece at a time, a file hashes as its whole text: a plan copy larger
    /// than one read, with a character split between reads.
    #[test]
    fn a_file_hashes_as_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.md");
        let text = "## T1: 第一步\n".repeat(20_000);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(file_digest(&path).unwrap(), text_digest(&text));
        assert!(file_digest(&dir.path().join("gone.md")).is_err());
    }

    #[test]
    fn every_task_is_stamped_as_alone_whatever_thread_takes_it() {
        let mut tasks: Vec<Task> = (0..5_001)
            .map(|i| Task {
                id: format!("T{i}"),
                name: format!("step {i}"),
                ..Task::default()
            })
            .collect();
        stamp_all(&mut tasks);
        for t in &tasks {
            assert_eq!(t.digest, of(t), "{}", t.id);
        }
        assert_ne!(tasks[0].digest, tasks[5_000].digest);
    }

    #[test]
    fn ignores_status_and_line_only() {
        let a = Task {
            id: "T1".into(),
            name: "x".into(),
            ..Task::default()
        };
        let mut b = a.clone();
        b.status = TaskStatus::Completed;
        b.line = 40;
        assert_eq!(of(&a), of(&b));
        assert_eq!(of(&a).len(), 32);
        b.name = "y".into();
        assert_ne!(of(&a), of(&b));
    }
}
