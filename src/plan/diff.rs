//! What changed between two imports of a plan, task by task.
//!
//! Tasks are matched by id and compared by [`Task::digest`] (the plan content without
//! status or position), so ticking a box or moving a task is not a change. Lists keep
//! document order: `added`, `modified`, `unchanged` in the new plan's order, `removed`
//! in the old plan's. The caller decides what is minor and what needs `--force`.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::state::model::Task;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PlanDiff {
    pub added: Vec<String>,
    pub modified: Vec<String>,
    pub removed: Vec<String>,
    pub unchanged: Vec<String>,
}

impl PlanDiff {
    /// Whether the two plans have the same tasks with the same content.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }
}

/// `old` is a state's tasks or a plan's (`TaskRef` or `Task`), `new` a plan's.
pub fn diff(old: &[impl Borrow<Task>], new: &[Task]) -> PlanDiff {
    let old_digest: HashMap<&str, &str> = old
        .iter()
        .map(Borrow::borrow)
        .map(|t: &Task| (t.id.as_str(), t.digest.as_str()))
        .collect();
    let mut out = PlanDiff::default();
    for t in new {
        match old_digest.get(t.id.as_str()) {
            None => out.added.push(t.id.clone()),
            Some(d) if *d == t.digest => out.unchanged.push(t.id.clone()),
            Some(_) => out.modified.push(t.id.clone()),
        }
    }
    let new_ids: HashSet<&str> = new.iter().map(|t| t.id.as_str()).collect();
    out.removed = old
        .iter()
        .map(Borrow::borrow)
        .filter(|t: &&Task| !new_ids.contains(t.id.as_str()))
        .map(|t| t.id.clone())
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn by_id_and_digest() {
        let old = crate::plan::parse(
            Path::new("a.md"),
            "## T1: a\n- **actions**: x\n## T2: b\n- **actions**: x\n## T3: c\n- **actions**: x\n",
        )
        .unwrap();
        let new = crate::plan::parse(
            Path::new("b.md"),
            "# moved\n\n## T1: a ✅\n- **actions**: x\n## T3: c changed\n- **actions**: x\n## T4: d\n- **actions**: x\n",
        )
        .unwrap();
        let d = diff(&old.tasks, &new.tasks);
        assert_eq!(d.unchanged, vec!["T1"]);
        assert_eq!(d.modified, vec!["T3"]);
        assert_eq!(d.added, vec!["T4"]);
        assert_eq!(d.removed, vec!["T2"]);
        assert!(!d.is_empty());
        assert!(diff(&old.tasks, &old.tasks).is_empty());
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["removed"][0], "T2");
    }
}
