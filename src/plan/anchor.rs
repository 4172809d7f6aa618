//! The files a task declares, anchored in the project (docs/plans.md "Files a task
//! names"). Every reader leaves them as the plan writes them; wf hashes, compares
//! and checks them relative to the project, so one that leaves the project would be
//! a file no check and no fingerprint can see. An absolute path is refused; a path
//! with `..` is read from the plan's folder, as a markdown link in the plan is
//! (`(../../src/app.ts)` in `specs/001-x/tasks.md` is `src/app.ts`), and refused
//! only when it leaves the project from there too.

use std::path::{Component, Path, PathBuf};

use crate::state::model::Task;

/// Rewrites each `..` path `task` declares to the project-relative path it names
/// from `plan_dir` (the plan's folder, relative to the project; none when the plan
/// is outside it). `Err` names the first path that leaves the project, for the
/// refusal at the task's line.
pub fn anchor(task: &mut Task, plan_dir: Option<&Path>) -> Result<(), String> {
    let place = |p: &mut String| -> Result<(), String> {
        if Path::new(p.as_str()).is_absolute() || p.starts_with('~') {
            return Err(p.clone());
        }
        if !Path::new(p.as_str())
            .components()
            .any(|c| c == Component::ParentDir)
        {
            return Ok(());
        }
        let anchored = plan_dir
            .and_then(|dir| inside(&dir.join(p.as_str())))
            .ok_or_else(|| p.clone())?;
        let mut text = anchored.to_string_lossy().into_owned();
        if p.ends_with('/') {
            text.push('/');
        }
        *p = text;
        Ok(())
    };
    let outside = |p: String| {
        format!(
            "task {} declares {p}, which is outside the project: wf checks and fingerprints only files inside it; name the file relative to the project root (or, with `..`, to the plan's folder)",
            task.id
        )
    };
    let mut fields: Vec<&mut Vec<String>> = Vec::new();
    let (mut file, mut creates, mut modifies, mut tests) = (
        task.file.take().into_iter().collect::<Vec<_>>(),
        std::mem::take(&mut task.creates),
        std::mem::take(&mut task.modifies),
        std::mem::take(&mut task.tests),
    );
    fields.extend([&mut file, &mut creates, &mut modifies, &mut tests]);
    let mut refused = None;
    for list in fields {
        for p in list.iter_mut() {
            if let Err(p) = place(p) {
                refused.get_or_insert(p);
            }
        }
        // Two spellings of one file are one file.
        let mut seen = Vec::new();
        list.retain(|p| {
            let fresh = !seen.contains(p);
            seen.push(p.clone());
            fresh
        });
    }
    task.file = file.pop();
    (task.creates, task.modifies, task.tests) = (creates, modifies, tests);
    match refused {
        Some(p) => Err(outside(p)),
        None => Ok(()),
    }
}

/// `path` with `.` and `..` taken out by its text, when it does not climb above its
/// start.
fn inside(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
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
        anchor(&mut t, Some(Path::new("specs/002-bot"))).unwrap();
        assert_eq!(t.file.as_deref(), Some("apps/bot/src/bot.ts"));
        assert_eq!(t.modifies, ["src/a.ts", "docs/"]);
    }

    #[test]
    fn a_path_that_leaves_the_project_is_refused_naming_it() {
        for (file, dir) in [
            ("../outside.txt", None),
            ("../../../x.txt", Some("specs/001")),
            ("/etc/hosts", Some("specs/001")),
            ("~/.bashrc", None),
        ] {
            let err = anchor(&mut task(file, &[]), dir.map(Path::new)).unwrap_err();
            assert!(
                err.starts_with(&format!(
                    "task T1 declares {file}, which is outside the project"
                )),
                "{err}"
            );
        }
        let mut plain = task("src/a.py", &["./b.py"]);
        anchor(&mut plain, None).unwrap();
        assert_eq!(plain.file.as_deref(), Some("src/a.py"));
    }

    #[test]
    fn two_spellings_of_one_file_are_one() {
        let mut t = task("../../src/a.ts", &["../../src/b.ts", "src/b.ts"]);
        anchor(&mut t, Some(Path::new("specs/x"))).unwrap();
        assert_eq!(t.file.as_deref(), Some("src/a.ts"));
        assert_eq!(t.modifies, ["src/b.ts"]);
    }
}
