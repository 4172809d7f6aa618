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

pub(crate) fn of(task: &Task) -> String {
    let mut t = task.clone();
    t.status = TaskStatus::Pending;
    t.line = 0;
    t.digest.clear();
    // Serializing a task of strings, numbers and bools cannot fail; an empty body
    // would still give a stable (if coarse) hash.
    let body = serde_json::to_vec(&t).unwrap_or_default();
    let mut h = Md5::new();
    h.update(VERSION);
    h.update(&body);
    format!("{:x}", h.finalize())
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
