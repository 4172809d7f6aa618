//! The files a task declares, anchored in the project (docs/plans.md "Files a task
//! names"). Every reader leaves them as the plan writes them; wf hashes, compares
//! and checks them relative to the project. A path with `..` is read from the plan's
//! folder, as a markdown link in the plan is (`(../../src/app.ts)` in
//! `specs/001-x/tasks.md` is `src/app.ts`). One that leaves the project from there
//! too, an absolute one or one under `~` is no input of the task: wf could neither
//! check nor fingerprint it, so it is left out of the task's files and said, never
//! kept as an input that silently never changes. (Refusing the plan instead would
//! refuse real spec-kit plans whose lines name `~/.config/app.json` or a route like
//! `/api/users/route.ts`.)

use std::path::{Component, Path};

use crate::state::model::Task;

/// Rewrites each `..` path `task` declares to the project-relative path it names
/// from `plan_dir` (the plan's folder, relative to the project; none when the plan
/// is outside it), and leaves out each path outside the project: those are
/// returned, for a warning at the task's line.
pub fn anchor(task: &mut Task, plan_dir: Option<&Path>) -> Vec<String> {
    // Most paths are plain: asked of every task at import, nothing is rebuilt then.
    let plain = |p: &String| !(p.starts_with(['/', '~']) || p.contains(".."));
    if task
        .file
        .iter()
        .chain(&task.creates)
        .chain(&task.modifies)
        .chain(&task.tests)
        .all(plain)
    {
        return Vec::new();
    }
    // The path as the project names it; none when it is outside.
    let place = |p: &str| -> Option<String> {
        if Path::new(p).is_absolute() || p.starts_with('~') {
            return None;
        }
        if !Path::new(p).components().any(|c| c == Component::ParentDir) {
            return Some(p.to_string());
        }
        let anchored = plan_dir
            .and_then(|dir| crate::fs::lexically_inside(&dir.join(p)))
            .filter(|a| !a.as_os_str().is_empty())?;
        let mut text = anchored.to_string_lossy().into_owned();
        if p.ends_with('/') {
            text.push('/');
        }
        Some(text)
    };
    let mut outside = Vec::new();
    let mut anchor_all = |list: Vec<String>| -> Vec<String> {
        let mut kept: Vec<String> = Vec::new();
        for p in list {
            match place(&p) {
                // Two spellings of one file are one file.
                Some(a) if !kept.contains(&a) => kept.push(a),
                Some(_) => {}
                None => outside.push(p),
            }
        }
        kept
    };
    task.file = anchor_all(task.file.take().into_iter().collect()).pop();
    task.creates = anchor_all(std::mem::take(&mut task.creates));
    task.modifies = anchor_all(std::mem::take(&mut task.modifies));
    task.tests = anchor_all(std::mem::take(&mut task.tests));
    outside
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(file: &str, modifies: &[&str]) -> Task {
        Task {
            id: "T1".into(),
            file: Some(file.into()),
            modifies: modifies.iter().map(|m| (*m).to_string()).collect(),
            ..Task::default()
        }
    }

    #[test]
    fn a_path_climbing_from_the_plans_folder_is_read_from_there() {
        let mut t = task("../../apps/bot/src/bot.ts", &["src/a.ts", "../../docs/"]);
        assert!(anchor(&mut t, Some(Path::new("specs/002-bot"))).is_empty());
        assert_eq!(t.file.as_deref(), Some("apps/bot/src/bot.ts"));
        assert_eq!(t.modifies, ["src/a.ts", "docs/"]);
    }

    #[test]
    fn a_path_that_leaves_the_project_is_left_out_and_named() {
        for (file, dir) in [
            ("../outside.txt", None),
            ("../../../x.txt", Some("specs/001")),
            ("/etc/hosts", Some("specs/001")),
            ("~/.bashrc", None),
        ] {
            let mut t = task(file, &["src/kept.rs"]);
            assert_eq!(anchor(&mut t, dir.map(Path::new)), [file]);
            assert_eq!(t.file, None, "{file}");
            assert_eq!(t.modifies, ["src/kept.rs"]);
        }
        let mut plain = task("src/a.py", &["./b.py"]);
        assert!(anchor(&mut plain, None).is_empty());
        assert_eq!(plain.file.as_deref(), Some("src/a.py"));
    }

    #[test]
    fn two_spellings_of_one_file_are_one() {
        let mut t = task("../../src/a.ts", &["../../src/b.ts", "src/b.ts"]);
        assert!(anchor(&mut t, Some(Path::new("specs/x"))).is_empty());
        assert_eq!(t.file.as_deref(), Some("src/a.ts"));
        assert_eq!(t.modifies, ["src/b.ts"]);
    }
}
