//! Helpers shared by the plan module's fixture and property tests.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::state::model::Task;

/// A file under the crate's `fixtures/`.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

pub(crate) fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Whether `from` depends on `to`, directly or through other tasks.
pub(crate) struct Reach<'a> {
    deps: HashMap<&'a str, &'a [String]>,
}

impl<'a> Reach<'a> {
    pub(crate) fn new(tasks: &'a [Task]) -> Self {
        Reach {
            deps: tasks
                .iter()
                .map(|t| (t.id.as_str(), t.deps.as_slice()))
                .collect(),
        }
    }

    pub(crate) fn ancestors(&self, from: &str) -> HashSet<&'a str> {
        let mut seen: HashSet<&'a str> = HashSet::new();
        let mut todo: Vec<&'a str> = self
            .deps
            .get(from)
            .map(|d| d.iter().map(String::as_str).collect())
            .unwrap_or_default();
        while let Some(x) = todo.pop() {
            if seen.insert(x) {
                if let Some(d) = self.deps.get(x) {
                    todo.extend(d.iter().map(String::as_str));
                }
            }
        }
        seen
    }
}

/// Checks the spec-kit order rules on a parsed plan: a task depends, transitively,
/// on every task of earlier `## ` sections; an unmarked task on every earlier task of
/// its section; a `[P]` task on the last unmarked task before it and all before that.
/// `sections` gives each task's section index.
pub(crate) fn assert_speckit_order(tasks: &[Task], sections: &[usize]) {
    let reach = Reach::new(tasks);
    let mut last_unmarked: Option<usize> = None;
    for (i, t) in tasks.iter().enumerate() {
        if i > 0 && sections[i] != sections[i - 1] {
            last_unmarked = None;
        }
        let anc = reach.ancestors(&t.id);
        for (j, earlier) in tasks.iter().enumerate().take(i) {
            let same = sections[j] == sections[i];
            let must = sections[j] < sections[i]
                || (same && (!t.parallel || last_unmarked.is_some_and(|u| j <= u)));
            if must {
                assert!(
                    anc.contains(earlier.id.as_str()),
                    "{} should depend on {}",
                    t.id,
                    earlier.id
                );
            }
        }
        if !t.parallel {
            last_unmarked = Some(i);
        }
    }
}

/// Asserts that an import's two passes over `text` (`plan::read_outline`, then
/// `Outline::each_task`) give what one `plan::parse` gives: the same tasks, format,
/// title and warnings, or the same error.
pub(crate) fn assert_outline_agrees(text: &str) {
    let path = Path::new("tasks.md");
    let parsed = super::parse(path, text);
    let outlined = super::outline::read(path, text, None, false).and_then(|(outline, _)| {
        let (format, detected, title, warnings) = (
            outline.format,
            outline.detected.clone(),
            outline.title.clone(),
            outline.warnings.clone(),
        );
        let tasks = outline.into_tasks(text)?;
        Ok(super::Plan {
            format,
            detected,
            title,
            tasks,
            warnings,
        })
    });
    match (parsed, outlined) {
        (Ok(one), Ok(two)) => {
            assert_eq!(one.tasks, two.tasks, "{text}");
            assert_eq!(
                (one.format, one.title, one.warnings),
                (two.format, two.title, two.warnings),
                "{text}"
            );
        }
        (Err(one), Err(two)) => assert_eq!(one.message, two.message, "{text}"),
        (one, two) => panic!(
            "parse gave {:?}, the outline {:?}: {text}",
            one.map(|p| p.tasks.len()),
            two.map(|p| p.tasks.len())
        ),
    }
}
