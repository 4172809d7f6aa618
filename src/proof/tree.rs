//! What an agent really changed (docs/proof.md "Agent work"): the working tree is
//! written down as a git tree when the agent takes a task and again when the task
//! comes back, and the two trees are compared.
//!
//! A tree is what `git add -A` would stage — tracked and untracked files,
//! `.gitignore` respected — built in a temporary index seeded from the real one (so
//! unchanged files are not hashed again) and written with `git write-tree`. The
//! user's index, HEAD and branches are never touched; the only trace is the blobs
//! and trees in the object store, which `git gc` prunes. Outside git, or when git
//! fails or takes longer than the deadline, there is no tree, and so no claim is
//! checked against one (the checks still decide).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::exec::git;
use crate::state::evidence::Changes;

/// How long one snapshot or comparison may take.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// Most bytes of git output read (a list of changed paths).
const MAX_OUT: usize = 16 << 20;

/// The working tree of the repository `project` is in, as a git tree id.
pub fn snapshot(project: &Path) -> Option<String> {
    let deadline = Instant::now() + TIMEOUT;
    let index = git::output(
        project,
        &["rev-parse", "--git-path", "index"],
        &[],
        deadline,
        4096,
    )?;
    let index = std::str::from_utf8(&index).ok()?.trim_end_matches('\n');
    let scratch = tempfile::Builder::new().prefix("wf-tree-").tempdir().ok()?;
    let tmp_index = scratch.path().join("index");
    // A copy of the real index makes `add -A` hash only what changed since; without
    // one (a fresh repository) it hashes everything.
    let _ = std::fs::copy(project.join(index), &tmp_index);
    let env = [("GIT_INDEX_FILE", tmp_index.as_path())];
    git::output(project, &["add", "-A", "--", ":/"], &env, deadline, MAX_OUT)?;
    let tree = git::output(project, &["write-tree"], &env, deadline, 4096)?;
    let tree = String::from_utf8(tree).ok()?;
    let tree = tree.trim();
    (tree.len() >= 40 && tree.bytes().all(|b| b.is_ascii_hexdigit())).then(|| tree.to_string())
}

/// The files that differ between two trees, relative to `project` (changes outside
/// it are not the task's), sorted; `declared` tells which the task names.
pub fn changes(project: &Path, from: &str, to: &str, declared: &[&str]) -> Option<Changes> {
    let deadline = Instant::now() + TIMEOUT;
    let out = git::output(
        project,
        &[
            "diff-tree",
            "-r",
            "--name-only",
            "-z",
            "--relative",
            "--no-renames",
            from,
            to,
        ],
        &[],
        deadline,
        MAX_OUT,
    )?;
    let mut files: Vec<String> = out
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    files.sort();
    files.dedup();
    let undeclared = files
        .iter()
        .filter(|f| !declared.iter().any(|d| covers(d, f)))
        .cloned()
        .collect();
    Some(Changes { files, undeclared })
}

/// Whether the tree `tree` has `path` (relative to `project`; a file, or a
/// directory with something in it); none when git cannot tell.
pub fn has(project: &Path, tree: &str, path: &str) -> Option<bool> {
    let path = path.trim_start_matches("./").trim_end_matches('/');
    let out = git::output(
        project,
        &["ls-tree", "-z", "--name-only", tree, "--", path],
        &[],
        Instant::now() + TIMEOUT,
        4096,
    )?;
    Some(!out.is_empty())
}

/// Whether the declared path `declared` (a file, or a directory with or without its
/// trailing `/`) covers the changed file `file`.
pub fn covers(declared: &str, file: &str) -> bool {
    let d = declared.trim_start_matches("./").trim_end_matches('/');
    file == d
        || file
            .strip_prefix(d)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn sh(dir: &Path, line: &str) {
        let ok = Command::new("sh")
            .args(["-c", line])
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap()
            .success();
        assert!(ok, "{line}");
    }

    #[test]
    fn the_trees_see_every_change_and_leave_the_index_alone() {
        if which::which("git").is_err() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        assert_eq!(snapshot(p), None, "not a repository");
        sh(p, "git init -q . && mkdir src && echo a > src/a.py && echo b > b.txt && echo x > ignored.log && echo '*.log' > .gitignore && git add -A && git commit -qm init");
        sh(p, "echo staged > src/s.py && git add src/s.py");
        let index_before = std::fs::read(p.join(".git/index")).unwrap();
        let before = snapshot(p).unwrap();
        assert_eq!(
            snapshot(p).as_deref(),
            Some(before.as_str()),
            "same tree, same id"
        );
        sh(
            p,
            "echo edit >> src/a.py && echo new > src/new.py && echo y >> ignored.log && rm b.txt",
        );
        let after = snapshot(p).unwrap();
        assert_eq!(std::fs::read(p.join(".git/index")).unwrap(), index_before);
        let c = changes(p, &before, &after, &["src/a.py"]).unwrap();
        assert_eq!(c.files, ["b.txt", "src/a.py", "src/new.py"]);
        assert_eq!(c.undeclared, ["b.txt", "src/new.py"]);
        let c = changes(p, &before, &after, &["src/", "b.txt"]).unwrap();
        assert!(c.undeclared.is_empty(), "{c:?}");
        assert_eq!(has(p, &before, "b.txt"), Some(true));
        assert_eq!(has(p, &after, "b.txt"), Some(false));
        assert_eq!(has(p, &after, "src/new.py"), Some(true));
        assert_eq!(has(p, &after, "./src/"), Some(true));
        assert_eq!(has(p, &before, "src/new.py"), Some(false));
    }

    #[test]
    fn a_declared_directory_covers_what_is_under_it_only() {
        assert!(covers("src/", "src/a.py"));
        assert!(covers("./src", "src/m/a.py"));
        assert!(covers("a.py", "a.py"));
        assert!(!covers("src", "srcx/a.py"));
        assert!(!covers("src/a.py", "src/a.pyc"));
    }
}
