//! Files that several completed tasks declare (docs/proof.md "Files two tasks
//! declare"). T1 writes `shared.txt` and passes; T2, after it, appends to it and
//! passes. T1's evidence holds the file as T1 left it, which is no longer the file:
//! hashed again, T1 would be out of date right after a clean run, and so would
//! every task downstream of it.
//!
//! The rule: a file answers to the last completed task, in dependency order, that
//! declares it. An earlier task keeps the digest its evidence recorded for that
//! file (it passed on it), and a change to the file after the run shows on the task
//! that answers for it — and, through its fingerprint, on every task downstream.

use std::collections::HashMap;

/// For each file some completed task declares, the position of the task that
/// answers for it.
#[derive(Debug, Default)]
pub struct Shared {
    last: HashMap<String, usize>,
}

impl Shared {
    /// `in_order`: the completed tasks in dependency order, each as its position
    /// (any numbering the caller asks about later) and the files it declares.
    pub fn of<'a, F>(in_order: impl IntoIterator<Item = (usize, F)>) -> Shared
    where
        F: IntoIterator<Item = &'a str>,
    {
        let mut last = HashMap::new();
        for (pos, files) in in_order {
            for f in files {
                last.insert(normal(f).to_string(), pos);
            }
        }
        Shared { last }
    }

    /// Whether the task at `pos` hands `path` on to a later task that declares it
    /// too: it then keeps the digest its evidence recorded.
    pub fn handed_on(&self, pos: usize, path: &str) -> bool {
        self.last.get(normal(path)).is_some_and(|&last| last != pos)
    }
}

/// A path as two tasks may spell it: without a leading `./` or a trailing `/`.
fn normal(path: &str) -> &str {
    path.trim_start_matches("./").trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_answers_to_the_last_task_that_declares_it() {
        let shared = Shared::of([
            (0, vec!["a.txt", "b.txt"]),
            (2, vec!["./a.txt"]),
            (1, vec!["c/"]),
        ]);
        assert!(shared.handed_on(0, "a.txt"));
        assert!(!shared.handed_on(2, "a.txt"));
        assert!(!shared.handed_on(0, "b.txt"), "only T0 declares it");
        assert!(!shared.handed_on(1, "c"));
        assert!(!shared.handed_on(5, "elsewhere.txt"));
    }
}
