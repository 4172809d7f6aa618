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

#[cfg(test)]
mod tests {
    use super::*;

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
