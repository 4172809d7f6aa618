//! A leased task's own git worktree (`wf.agents.worktrees`, `wf next --worktree`), so
//! agents working at once never see each other's half-done changes: made on a branch
//! from the head of the project's checkout when the task is leased, committed and
//! merged back when the task passes its checks there.
//!
//! The worktree lives under the workflow's directory (`<workflow dir>/worktrees/`),
//! outside the project, so the project's own `git status` never lists it. Its name
//! comes from the task id, which the plan limits to letters, digits, `_`, `.` and `-`
//! (`plan::ids`); one that could still name something else (`..`, a leading `.`) is
//! replaced by its hash, so the path stays inside that directory.
//!
//! Merging is done so that no checkout is ever left half-merged: `git merge-tree`
//! first merges in memory and names the conflicting files (nothing is touched when
//! there are any); only a clean merge is made in the project's checkout, and a merge
//! git refuses there (local changes in the way) changes nothing either.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use md5::{Digest, Md5};

use crate::error::{Result, WfError};
use crate::run::lease::Worktree;

/// The directory under the workflow's that holds the worktrees.
pub const DIR: &str = "worktrees";

/// The worktree of `task`: the one an earlier lease of it left (its work kept), else
/// a new one on branch `wf/<name>` from the project's `HEAD` (the branch reused when
/// it is there).
pub fn open(project: &Path, workflow_dir: &Path, task: &str) -> Result<Worktree> {
    let top = top_level(project)?;
    let name = dir_name(task);
    let path = workflow_dir.join(DIR).join(&name);
    let branch = format!("wf/{name}");
    let inside = project.strip_prefix(&top).unwrap_or(Path::new(""));
    let tree = Worktree {
        dir: if inside.as_os_str().is_empty() {
            path.clone()
        } else {
            path.join(inside)
        },
        path,
        branch,
    };
    if tree.path.join(".git").exists() {
        return Ok(tree);
    }
    crate::fs::ensure_dir(&workflow_dir.join(DIR))?;
    let path = tree.path.to_string_lossy();
    let exists = git(
        &top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{}", tree.branch),
        ],
    )?
    .status
    .success();
    let add: Vec<&str> = if exists {
        vec!["worktree", "add", &path, &tree.branch]
    } else {
        vec!["worktree", "add", "-b", &tree.branch, &path, "HEAD"]
    };
    ok(&top, &add, "make the task's worktree")?;
    Ok(tree)
}

/// Commits what the agent changed in the worktree, if anything; `message` is the
/// commit's message (given to git as one argument, never through a shell).
pub fn commit(tree: &Worktree, message: &str) -> Result<()> {
    ok(&tree.path, &["add", "-A"], "stage the task's work")?;
    let staged = git(&tree.path, &["diff", "--cached", "--quiet"])?;
    if staged.status.code() == Some(1) {
        ok(
            &tree.path,
            &["commit", "-q", "-m", message],
            "commit the task's work",
        )?;
    }
    Ok(())
}

/// Where a task's branch conflicts with the project's head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The commit the project's checkout is at: the one to merge into the branch.
    pub head: String,
    pub files: Vec<String>,
}

/// Whether the task's branch conflicts with the project's `HEAD`, merged in memory
/// (`git merge-tree --write-tree`): none when it merges cleanly.
pub fn conflicts(project: &Path, tree: &Worktree) -> Result<Option<Conflict>> {
    let out = git(
        project,
        &[
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            "HEAD",
            &tree.branch,
        ],
    )?;
    match out.status.code() {
        Some(0) => Ok(None),
        // The merged tree's id, then a conflicting file a line.
        Some(1) => {
            let head = git(project, &["rev-parse", "HEAD"])?;
            Ok(Some(Conflict {
                head: String::from_utf8_lossy(&head.stdout).trim().to_string(),
                files: String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .skip(1)
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect(),
            }))
        }
        _ => Err(failed("merge the task's branch in memory", &out)),
    }
}

/// Merges the task's branch into the project's checkout. Called after
/// [`conflicts`] found none; a merge git still refuses (local changes in the way)
/// leaves the checkout as it was, and a merge that stopped half-way is aborted.
pub fn merge(project: &Path, tree: &Worktree, message: &str) -> Result<()> {
    let out = git(
        project,
        &["merge", "-q", "--no-edit", "-m", message, &tree.branch],
    )?;
    if out.status.success() {
        return Ok(());
    }
    if git(project, &["rev-parse", "--verify", "--quiet", "MERGE_HEAD"])?
        .status
        .success()
    {
        let _ = git(project, &["merge", "--abort"]);
    }
    Err(failed("merge the task's branch", &out))
}

/// Removes a merged task's worktree and its branch; what git cannot remove is left
/// (a worktree with files the merge did not take), never forced away.
pub fn remove(project: &Path, tree: &Worktree) {
    let path = tree.path.to_string_lossy();
    let _ = git(project, &["worktree", "remove", &path]);
    let _ = git(project, &["branch", "-q", "-d", &tree.branch]);
}

/// The worktree's directory name for a task id: the id itself when it is a plain
/// name, else the MD5 of it.
pub fn dir_name(task: &str) -> String {
    let plain = !task.is_empty()
        && !task.starts_with('.')
        && !task.contains("..")
        && !task.to_ascii_lowercase().ends_with(".lock")
        && task
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if plain {
        task.to_string()
    } else {
        format!("{:x}", Md5::digest(task.as_bytes()))
    }
}

fn top_level(project: &Path) -> Result<PathBuf> {
    let out = git(project, &["rev-parse", "--show-toplevel"])?;
    if !out.status.success() {
        return Err(WfError::usage(format!(
            "{} is not in a git repository, and a task's own worktree needs one; set wf.agents.worktrees to false or run `git init`",
            project.display()
        )));
    }
    Ok(PathBuf::from(
        String::from_utf8_lossy(&out.stdout).trim_end_matches('\n'),
    ))
}

fn git(dir: &Path, args: &[&str]) -> Result<Output> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| WfError::io(&e, format!("cannot run git in {}: {e}", dir.display())))
}

fn ok(dir: &Path, args: &[&str], what: &str) -> Result<()> {
    let out = git(dir, args)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(failed(what, &out))
    }
}

/// git's own words on why it failed, on one line.
fn failed(what: &str, out: &Output) -> WfError {
    let said = String::from_utf8_lossy(&out.stderr);
    let said: Vec<&str> = said
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    WfError::usage(format!("git could not {what}: {}", said.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_name_never_leaves_its_directory() {
        assert_eq!(dir_name("T1.2"), "T1.2");
        assert_eq!(dir_name("setup-db_2"), "setup-db_2");
        for odd in ["..", ".hidden", "a..b", "x.lock", "a/b", ""] {
            let name = dir_name(odd);
            assert_eq!(name.len(), 32, "{odd}");
            assert!(name.bytes().all(|b| b.is_ascii_hexdigit()), "{odd}");
        }
    }
}
