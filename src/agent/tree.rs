//! A fingerprint of the project's working tree: equal fingerprints mean the checks
//! would see the same files, so a check that failed on the first need not run again
//! on the second (docs/hooks.md "Unchanged tree").
//!
//! Inside git it is the MD5 of:
//! - `git status --porcelain=v2 -z --branch --untracked-files=all` run at the top
//!   level: the commit checked out, and every changed, staged, unmerged or untracked
//!   path with its modes and the object names of its HEAD and index versions;
//! - the content of every one of those paths as it is in the working tree now (a
//!   link's target, not what it points to), so a second edit to an already modified
//!   file changes the fingerprint although its status line does not;
//! - the content of the files the task declares (`file`, `creates`, `modifies`), which
//!   count even when git ignores them.
//!
//! Other files git ignores (build output, caches) do not count. Outside git — no
//! `git`, not a repository, or git failing — there is no fingerprint and the checks
//! always run. Only regular files are read (a FIFO would block the hook), and past
//! [`MAX_CONTENT`] bytes of content in all a file counts by its size and mtime.

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use md5::{Digest, Md5};

/// Bumped if what the fingerprint covers changes.
const VERSION: &[u8] = b"wf-tree-v1\n";

/// Most bytes of file content hashed per fingerprint.
pub const MAX_CONTENT: u64 = 64 << 20;

/// Most bytes of `git status` output read; a larger tree has no fingerprint.
const MAX_STATUS: usize = 16 << 20;

/// The fingerprint of the tree `project` is in, with the files of `declared`
/// (relative to `project`) included; `None` outside git or when git takes longer
/// than `timeout`.
pub fn fingerprint(project: &Path, declared: &[&str], timeout: Duration) -> Option<String> {
    let deadline = Instant::now() + timeout;
    let top = git(project, &["rev-parse", "--show-toplevel"], deadline)?;
    let top = std::str::from_utf8(&top).ok()?.trim_end_matches('\n');
    let top = Path::new(top);
    let status = git(
        top,
        &[
            "status",
            "--porcelain=v2",
            "-z",
            "--branch",
            "--untracked-files=all",
        ],
        deadline,
    )?;
    let mut h = Md5::new();
    h.update(VERSION);
    h.update(&status);
    let mut budget = MAX_CONTENT;
    for path in status_paths(&status) {
        h.update(b"\0path\0");
        h.update(path.as_bytes());
        hash_entry(&mut h, &top.join(path), &mut budget);
    }
    for path in declared {
        h.update(b"\0declared\0");
        h.update(path.as_bytes());
        hash_entry(&mut h, &project.join(path), &mut budget);
    }
    Some(format!("{:x}", h.finalize()))
}

/// The paths of a `git status --porcelain=v2 -z` output, relative to the top level:
/// the working-tree side of each record (a rename's new path, not its origin).
fn status_paths(status: &[u8]) -> Vec<&str> {
    let mut paths = Vec::new();
    let mut records = status
        .split(|b| *b == 0)
        .filter_map(|r| std::str::from_utf8(r).ok());
    while let Some(record) = records.next() {
        // `1 XY sub mH mI mW hH hI path`, `2 … X score path` then the origin as its
        // own record, `u XY sub m1 m2 m3 mW h1 h2 h3 path`, `? path`.
        let fields = match record.as_bytes().first() {
            Some(b'1') => 9,
            Some(b'2') => 10,
            Some(b'u') => 11,
            Some(b'?') => 2,
            _ => continue,
        };
        if let Some(path) = record.splitn(fields, ' ').nth(fields - 1) {
            paths.push(path);
        }
        if record.starts_with('2') {
            records.next();
        }
    }
    paths
}

/// Adds what is at `path` now: a regular file's content (or its size and mtime once
/// `budget` is spent), a link's target, or the kind of anything else.
fn hash_entry(h: &mut Md5, path: &Path, budget: &mut u64) {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        h.update(b"\0absent");
        return;
    };
    if meta.file_type().is_symlink() {
        h.update(b"\0link\0");
        if let Ok(target) = std::fs::read_link(path) {
            h.update(target.as_os_str().as_encoded_bytes());
        }
        return;
    }
    if !meta.is_file() {
        h.update(b"\0other");
        return;
    }
    h.update(format!("\0file {} {}", meta.len(), meta.mode()).as_bytes());
    if meta.len() > *budget {
        h.update(format!(" {}.{}", meta.mtime(), meta.mtime_nsec()).as_bytes());
        return;
    }
    *budget -= meta.len();
    // Opened as `wf` opens its own files: no link followed, no FIFO waited on.
    let Ok(file) = crate::fs::open_regular(path, false) else {
        h.update(b"\0unreadable");
        return;
    };
    let mut reader = file.take(meta.len());
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => {
                h.update(b"\0unreadable");
                break;
            }
        }
    }
}

/// `git ARGS` in `dir` (`src/exec/git.rs`), its output kept up to [`MAX_STATUS`].
fn git(dir: &Path, args: &[&str], deadline: Instant) -> Option<Vec<u8>> {
    crate::exec::git::output(dir, args, &[], deadline, MAX_STATUS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn sh(dir: &Path, line: &str) {
        let ok = Command::new("sh")
            .args(["-c", line])
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "{line}");
    }

    #[test]
    fn status_paths_reads_every_kind_of_record() {
        let status = b"# branch.oid abc\0\
1 .M N... 100644 100644 100644 h1 h2 src/a b.rs\0\
2 R. N... 100644 100644 100644 h1 h2 R100 new.rs\0old.rs\0\
u UU N... 100644 100644 100644 100644 h1 h2 h3 c.rs\0\
? un tracked.txt\0";
        assert_eq!(
            status_paths(status),
            ["src/a b.rs", "new.rs", "c.rs", "un tracked.txt"]
        );
    }

    #[test]
    fn the_fingerprint_follows_every_edit_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let t = Duration::from_secs(10);
        assert_eq!(fingerprint(p, &[], t), None, "not a repository");
        sh(p, "git init -q . && printf 'a\\n' > a.txt && printf 'target/\\n' > .gitignore && git add -A && git -c user.name=t -c user.email=t@t commit -qm one");
        let clean = fingerprint(p, &["target/out"], t).unwrap();
        assert_eq!(fingerprint(p, &["target/out"], t).unwrap(), clean);
        std::fs::write(p.join("a.txt"), "b\n").unwrap();
        let edited = fingerprint(p, &["target/out"], t).unwrap();
        assert_ne!(edited, clean);
        // A second edit of a file already modified: the status line is the same.
        std::fs::write(p.join("a.txt"), "c\n").unwrap();
        let again = fingerprint(p, &["target/out"], t).unwrap();
        assert_ne!(again, edited);
        // Back to the committed content: the clean tree again.
        std::fs::write(p.join("a.txt"), "a\n").unwrap();
        assert_eq!(fingerprint(p, &["target/out"], t).unwrap(), clean);
        // An untracked file counts; an ignored one only when the task declares it.
        std::fs::write(p.join("new.txt"), "x").unwrap();
        let untracked = fingerprint(p, &["target/out"], t).unwrap();
        assert_ne!(untracked, clean);
        std::fs::remove_file(p.join("new.txt")).unwrap();
        std::fs::create_dir(p.join("target")).unwrap();
        std::fs::write(p.join("target/cache"), "x").unwrap();
        assert_eq!(fingerprint(p, &["target/out"], t).unwrap(), clean);
        std::fs::write(p.join("target/out"), "x").unwrap();
        assert_ne!(fingerprint(p, &["target/out"], t).unwrap(), clean);
    }
}
