//! Task outputs handed from CI job to CI job (`wf run-task --outputs DIR`,
//! docs/distributed.md "What a job hands on").
//!
//! A task's outputs are the files it declares it writes — its `file`, `creates`
//! and `modifies` — and nothing else: a file its commands write without declaring
//! it stays in its job. After a task passes, its outputs that exist are copied into
//! `DIR/<task>/` at their paths in the project; the job uploads `DIR`, and the jobs
//! after it download it into their own `DIR`, so it gathers every upstream task's
//! outputs. Before its first task runs, a job copies them back into the project, in
//! dependency order (a later writer of a file wins), and a task whose upstream task
//! declared a file it creates that is still not there fails, saying so.
//!
//! Paths come from the plan: each is taken only when it stays inside the project
//! (no `..`, not absolute) and is read and written without following a link, so a
//! planted link can neither leak a file into an artifact nor send a downloaded one
//! outside the project.

use crate::state::model::Glance;
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use crate::error::{Result, WfError};
use crate::plan::jobs::{dependency_order, id_part};
use crate::state::model::{Task, WorkflowState};

/// The most files one task's outputs may hold: a directory named as an output is
/// copied whole, and a `node_modules/` named by mistake should stop, not fill a disk.
const MAX_FILES: usize = 20_000;

/// The files `task` declares it writes, each once, in the plan's order.
pub fn outputs(task: &Task) -> Vec<&str> {
    let mut seen = HashSet::new();
    task.file
        .iter()
        .chain(&task.creates)
        .chain(&task.modifies)
        .map(|p| p.trim_end_matches('/'))
        .filter(|p| !p.is_empty() && seen.insert(*p))
        .collect()
}

/// `path` (from a plan) as a path inside the project: relative, with no `..`.
fn inside(path: &str) -> Option<PathBuf> {
    let p = Path::new(path);
    p.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        .then(|| p.components().collect::<PathBuf>())
        .filter(|p| !p.as_os_str().is_empty())
}

/// Makes the directories of `rel` under `root`, refusing one that is a link (or
/// not a directory): nothing is written through a link.
fn make_dirs(root: &Path, rel: &Path) -> Result<()> {
    let mut at = root.to_path_buf();
    for part in rel.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(WfError::usage(format!(
                    "{} is a link or not a directory; outputs are not written through it",
                    at.display()
                )))
            }
            Err(_) => std::fs::create_dir(&at)
                .map_err(|e| WfError::io(&e, format!("cannot make {}: {e}", at.display())))?,
        }
    }
    Ok(())
}

/// Copies the regular file `from` to `to` (its directories under `root` made, none
/// through a link), replacing what is there without following a link, mode kept.
fn copy_file(from: &Path, root: &Path, rel: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let bytes = crate::fs::read_regular(from)?;
    if let Some(dir) = rel.parent() {
        make_dirs(root, dir)?;
    }
    let to = root.join(rel);
    let mut file = crate::fs::durable::replace_new(&to)?;
    crate::fs::durable::write_all(&mut file, &bytes)
        .map_err(|e| WfError::io(&e, format!("cannot write {}: {e}", to.display())))?;
    let mode = std::fs::symlink_metadata(from).map_or(0o644, |m| m.permissions().mode() & 0o777);
    file.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(|e| WfError::io(&e, format!("cannot set the mode of {}: {e}", to.display())))
}

/// Every regular file at or under `root/rel` (links and other kinds skipped), as
/// paths relative to `root`.
fn files_under(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(root.join(rel)) else {
        return Ok(());
    };
    if meta.is_file() {
        out.push(rel.to_path_buf());
    } else if meta.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(rel))
            .map_err(|e| WfError::io(&e, format!("cannot read {}: {e}", rel.display())))?
            .flatten()
            .map(|e| e.file_name())
            .collect();
        entries.sort();
        for name in entries {
            files_under(root, &rel.join(name), out)?;
            if out.len() > MAX_FILES {
                return Err(WfError::usage(format!(
                    "{} holds more than {MAX_FILES} files; declare the files a task writes, not a directory this large",
                    rel.display()
                )));
            }
        }
    }
    Ok(())
}

/// Copies `task`'s outputs that exist from the project into `dir/<task>/`: what the
/// job hands on. Returns how many files.
pub fn stage(project: &Path, dir: &Path, task: &Task) -> Result<usize> {
    let mut files = Vec::new();
    for path in outputs(task) {
        // A path with `..` or a root names nothing inside the project: not carried.
        if let Some(rel) = inside(path) {
            files_under(project, &rel, &mut files)?;
        }
    }
    // A directory and a file in it may both be named.
    files.sort();
    files.dedup();
    let part = id_part(&task.id);
    if !files.is_empty() {
        std::fs::create_dir_all(dir)
            .map_err(|e| WfError::io(&e, format!("cannot make {}: {e}", dir.display())))?;
        make_dirs(dir, Path::new(&part))?;
    }
    let into = dir.join(part);
    for rel in &files {
        copy_file(&project.join(rel), &into, rel)?;
    }
    Ok(files.len())
}

/// Copies every task's outputs found in `dir` back into the project, in dependency
/// order, so the file a later task wrote wins. Returns how many files.
pub fn restore(project: &Path, dir: &Path, state: &WorkflowState) -> Result<usize> {
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Ok(0);
    }
    let order = dependency_order(&state.whole_tasks()?).map_err(WfError::usage)?;
    let mut count = 0;
    for i in order {
        let from = dir.join(id_part(state.tasks[i].id()));
        let mut files = Vec::new();
        files_under(&from, Path::new(""), &mut files)?;
        for rel in files
            .iter()
            .filter(|r| inside(&r.to_string_lossy()).is_some())
        {
            copy_file(&from.join(rel), project, rel)?;
            count += 1;
        }
    }
    Ok(count)
}

/// Why `task` cannot run here: a file an upstream task (one it depends on, directly
/// or not, and not skipped) declares it creates is not in the project — its job did
/// not hand it on. None when every one is there.
pub fn missing_upstream(
    project: &Path,
    state: &WorkflowState,
    task: &Task,
) -> Result<Option<String>> {
    let mut stack: Vec<&str> = task.deps.iter().map(String::as_str).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut missing = Vec::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(up) = state.task(id)? else { continue };
        stack.extend(up.deps.iter().map(String::as_str));
        if up.status == crate::state::TaskStatus::Skipped {
            continue;
        }
        for path in &up.creates {
            // A path outside the project is never carried, so never missed either.
            let Some(rel) = inside(path) else { continue };
            if std::fs::symlink_metadata(project.join(rel)).is_err() {
                missing.push(format!("{path} (from {id})"));
            }
        }
    }
    missing.sort();
    Ok((!missing.is_empty()).then(|| {
        format!(
            "an upstream output is missing: {}; the job of the task that creates it did not hand it on (docs/distributed.md \"What a job hands on\")",
            missing.join(", ")
        )
    }))
}

/// Paths a task's text names: words with a `/` or a short extension, not URLs or
/// options — what `wf check --for-ci` can see of the files a task reads.
fn named_paths(task: &Task) -> Vec<String> {
    let mut text: Vec<&str> = vec![task.name.as_str()];
    text.extend(task.requirement.as_deref());
    text.extend(task.acceptance.as_deref());
    text.extend(task.verify.iter().map(String::as_str));
    for s in &task.steps {
        text.push(s.action.as_str());
        text.extend(s.output.as_deref());
        text.extend(s.check.as_deref());
    }
    let mut out: Vec<String> = Vec::new();
    for word in text
        .iter()
        .flat_map(|t| t.split(|c: char| c.is_whitespace() || "`'\"()[]<>,;|&=".contains(c)))
    {
        let w = word.trim_end_matches(['.', ':', '!', '?']);
        let ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        });
        let plain = w.chars().all(|c| c.is_alphanumeric() || "/._-".contains(c));
        if plain
            && (w.contains('/') || ext)
            && !w.starts_with(['-', '/'])
            && !w.contains("..")
            && !out.iter().any(|o| o == w)
        {
            out.push(w.to_string());
        }
    }
    out
}

/// Whether `path` is one of `task`'s outputs, or inside one (a directory).
fn writes(task: &Task, path: &str) -> bool {
    outputs(task).iter().any(|o| {
        *o == path
            || path
                .strip_prefix(o)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// `wf check --for-ci`: each task that names a path an upstream task (one it
/// depends on, directly or not) names too, when no upstream task declares it
/// writes it — so a CI job of the task would not be handed it. `(task, line,
/// message)`, in plan order.
pub fn undeclared_handoffs(tasks: &[Task]) -> Vec<(String, usize, String)> {
    let by_id: std::collections::HashMap<&str, &Task> =
        tasks.iter().map(|t| (t.id.as_str(), t)).collect();
    let named: std::collections::HashMap<&str, Vec<String>> = tasks
        .iter()
        .map(|t| (t.id.as_str(), named_paths(t)))
        .collect();
    let mut out = Vec::new();
    for task in tasks {
        let mut upstream: Vec<&Task> = Vec::new();
        let mut stack: Vec<&str> = task.deps.iter().map(String::as_str).collect();
        let mut seen: HashSet<&str> = HashSet::new();
        while let Some(id) = stack.pop() {
            if let Some(up) = by_id.get(id).filter(|_| seen.insert(id)) {
                upstream.push(up);
                stack.extend(up.deps.iter().map(String::as_str));
            }
        }
        for path in &named[task.id.as_str()] {
            // The task writes it itself, or an upstream task declares it: carried.
            if task.creates.iter().any(|c| c == path) || upstream.iter().any(|u| writes(u, path)) {
                continue;
            }
            let Some(up) = upstream
                .iter()
                .filter(|u| named[u.id.as_str()].contains(path))
                .min_by_key(|u| u.line)
            else {
                continue;
            };
            out.push((
                task.id.clone(),
                task.line,
                format!(
                    "task {} names {path}, which {} (upstream) names too but does not declare it writes: a CI job hands on only declared outputs, so {}'s job would not have it; declare it in {} (创建文件/修改文件, creates/modifies), or ignore this if the file is committed",
                    task.id, up.id, task.id, up.id
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::task_ref::TaskRef;

    fn task(id: &str, deps: &[&str], creates: &[&str]) -> Task {
        Task {
            id: id.into(),
            deps: deps.iter().map(|d| (*d).to_string()).collect(),
            creates: creates.iter().map(|c| (*c).to_string()).collect(),
            ..Task::default()
        }
    }

    #[test]
    fn outputs_go_out_and_come_back_in_dependency_order() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(a.join("gen")).unwrap();
        std::fs::write(a.join("gen/x.txt"), "from T1").unwrap();
        let mut t1 = task("T1", &[], &["gen/x.txt", "../escape", "/etc/passwd"]);
        t1.file = Some("gen/".into());
        let mut t2 = task("T2", &["T1"], &[]);
        t2.modifies = vec!["gen/x.txt".into()];
        let carried = dir.path().join("carried");
        assert_eq!(stage(&a, &carried, &t1).unwrap(), 1);
        std::fs::write(a.join("gen/x.txt"), "from T2").unwrap();
        assert_eq!(stage(&a, &carried, &t2).unwrap(), 1);
        std::fs::create_dir_all(&b).unwrap();
        let mut state = WorkflowState::default();
        state.tasks = vec![TaskRef::new(t2.clone()), TaskRef::new(t1.clone())];
        // T2 is listed first, but depends on T1: its copy is restored last.
        assert_eq!(restore(&b, &carried, &state).unwrap(), 2);
        assert_eq!(
            std::fs::read_to_string(b.join("gen/x.txt")).unwrap(),
            "from T2"
        );
        assert_eq!(missing_upstream(&b, &state, &t2).unwrap(), None);
        std::fs::remove_file(b.join("gen/x.txt")).unwrap();
        let why = missing_upstream(&b, &state, &t2).unwrap().unwrap();
        assert!(why.contains("gen/x.txt (from T1)"), "{why}");
    }

    #[test]
    fn nothing_is_written_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let (project, outside) = (dir.path().join("p"), dir.path().join("outside"));
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, project.join("gen")).unwrap();
        let carried = dir.path().join("carried/T1/gen");
        std::fs::create_dir_all(&carried).unwrap();
        std::fs::write(carried.join("x.txt"), "x").unwrap();
        let mut state = WorkflowState::default();
        state.tasks = vec![TaskRef::new(task("T1", &[], &["gen/x.txt"]))];
        let err = restore(&project, &dir.path().join("carried"), &state).unwrap_err();
        assert!(err.message.contains("is a link"), "{}", err.message);
        assert!(!outside.join("x.txt").exists());
        // A link named as an output is not followed into the artifact either.
        std::os::unix::fs::symlink("/etc/hostname", project.join("leak")).unwrap();
        let t = task("T2", &[], &["leak"]);
        assert_eq!(stage(&project, &dir.path().join("c2"), &t).unwrap(), 0);
    }

    #[test]
    fn a_path_two_lines_name_but_neither_declares_is_a_handoff_ci_cannot_make() {
        let mut t1 = task("T1", &[], &[]);
        t1.requirement = Some("Generate `dist/app.js` and gen/schema.json.".into());
        t1.creates = vec!["gen/schema.json".into()];
        let mut t2 = task("T2", &["T1"], &[]);
        t2.requirement =
            Some("Bundle dist/app.js with gen/schema.json; see https://x.example/a.html".into());
        t2.line = 9;
        let found = undeclared_handoffs(&[t1, t2]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0.as_str(), found[0].1), ("T2", 9));
        assert!(
            found[0]
                .2
                .contains("names dist/app.js, which T1 (upstream) names too"),
            "{}",
            found[0].2
        );
    }
}
