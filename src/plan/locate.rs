//! Which plan `workflow-start` and `check` read when none is named, or a directory is:
//! the file each tool leaves where it leaves it, looked for in this order —
//!
//! 1. `tasks.md` (claude-workflow, a spec-kit or Kiro list copied up);
//! 2. the newest `specs/*/tasks.md` (spec-kit: one directory per feature);
//! 3. `.taskmaster/tasks/tasks.json` (Taskmaster);
//! 4. the newest `.kiro/specs/*/tasks.md` (Kiro);
//! 5. the newest `openspec/changes/*/tasks.md` (OpenSpec).
//!
//! "Newest" is the last modified; a tie goes to the name that sorts last (spec-kit
//! numbers its features, `003-…` after `002-…`).

use std::path::{Path, PathBuf};

use crate::error::{Result, WfError};

/// Where each format's plan sits, as the error lists them.
const PLACES: &str = "tasks.md, specs/*/tasks.md, .taskmaster/tasks/tasks.json, .kiro/specs/*/tasks.md, openspec/changes/*/tasks.md";

/// The plan to read: `given` when it is a file; found in `given` when it is a
/// directory (`.` when nothing is named), `here` the directory it is relative to.
/// With the plan, why it was picked, when nothing was named.
pub fn plan_path(given: &Path, here: &Path) -> Result<(PathBuf, Option<&'static str>)> {
    let dir = here.join(given);
    if !dir.is_dir() {
        return Ok((given.to_path_buf(), None));
    }
    let dir = dir.canonicalize().unwrap_or(dir);
    match find(&dir) {
        // A directory named was the user's pick; only wf's own is said.
        Some((path, why)) => Ok((
            relative_to(here, &path),
            (given == Path::new(".")).then_some(why),
        )),
        None => Err(WfError::usage(format!(
            "{}no plan found in {}: looked for {PLACES}; name the plan file, as `wf workflow-start PLAN.md`",
            if given == Path::new(".") { "no plan named and " } else { "" },
            dir.display()
        ))),
    }
}

fn find(dir: &Path) -> Option<(PathBuf, &'static str)> {
    let file = |rel: &str| Some(dir.join(rel)).filter(|p| p.is_file());
    if let Some(p) = file("tasks.md") {
        return Some((p, "tasks.md"));
    }
    if let Some(p) = newest(&dir.join("specs")) {
        return Some((p, "the newest specs/*/tasks.md"));
    }
    if let Some(p) = file(".taskmaster/tasks/tasks.json") {
        return Some((p, "Taskmaster's tasks.json"));
    }
    if let Some(p) = newest(&dir.join(".kiro/specs")) {
        return Some((p, "the newest .kiro/specs/*/tasks.md"));
    }
    newest(&dir.join("openspec/changes")).map(|p| (p, "the newest openspec/changes/*/tasks.md"))
}

/// The most recently modified `*/tasks.md` under `parent`.
fn newest(parent: &Path) -> Option<PathBuf> {
    std::fs::read_dir(parent)
        .ok()?
        .flatten()
        .map(|e| e.path().join("tasks.md"))
        .filter_map(|p| {
            let modified = p.metadata().ok()?.modified().ok()?;
            p.is_file().then_some((modified, p))
        })
        .max()
        .map(|(_, p)| p)
}

/// `path` as the user would type it from `here`, when it is under `here`.
fn relative_to(here: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(here)
        .map_or_else(|_| path.to_path_buf(), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, rel: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "- [ ] T001 x\n").unwrap();
    }

    #[test]
    fn tasks_md_first_then_the_newest_spec_then_the_other_tools() {
        let d = tempfile::tempdir().unwrap();
        let here = d.path().canonicalize().unwrap();
        let found = |given: &str| plan_path(Path::new(given), &here).map(|(p, _)| p);
        assert!(found(".").is_err());
        touch(d.path(), "openspec/changes/add-x/tasks.md");
        assert_eq!(
            found(".").unwrap(),
            Path::new("openspec/changes/add-x/tasks.md")
        );
        touch(d.path(), ".taskmaster/tasks/tasks.json");
        assert_eq!(
            found(".").unwrap(),
            Path::new(".taskmaster/tasks/tasks.json")
        );
        touch(d.path(), "specs/001-a/tasks.md");
        std::thread::sleep(std::time::Duration::from_millis(20));
        touch(d.path(), "specs/002-b/tasks.md");
        assert_eq!(found(".").unwrap(), Path::new("specs/002-b/tasks.md"));
        touch(d.path(), "tasks.md");
        assert_eq!(found(".").unwrap(), Path::new("tasks.md"));
        // A spec directory is read as its tasks.md; a file as itself.
        assert_eq!(
            found("specs/001-a").unwrap(),
            Path::new("specs/001-a/tasks.md")
        );
        assert_eq!(found("other.md").unwrap(), Path::new("other.md"));
    }
}
