//! The fingerprint of a task's inputs: its definition as imported, the content of
//! every file it declares, and the fingerprints of the tasks it depends on
//! (docs/proof.md "Fingerprint"). Equal fingerprints mean the checks would run on
//! the same things; a change upstream changes every fingerprint downstream.

use std::io::Read;
use std::path::{Component, Path};

use sha2::{Digest, Sha256};

use crate::state::evidence::{DepDigest, FileDigest, Inputs};
use crate::state::model::Task;

/// Bumped if what a fingerprint covers changes: every old one then differs.
const VERSION: &[u8] = b"wf-fingerprint-v2\n";

/// Most files of a declared directory hashed; a larger one has no digest (and so
/// never matches: its task is checked again every time).
const MAX_DIR_FILES: usize = 10_000;

/// `sha256:<hex>` of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}

/// The files `task` declares, each once, in the plan's order: `file`, `creates`,
/// `modifies`, `tests` (spec-kit paths are parsed into `file` and `modifies`).
pub fn declared_files(task: &Task) -> Vec<&str> {
    let mut paths: Vec<&str> = Vec::new();
    for p in task
        .file
        .iter()
        .chain(&task.creates)
        .chain(&task.modifies)
        .chain(&task.tests)
    {
        if !paths.contains(&p.as_str()) {
            paths.push(p);
        }
    }
    paths
}

/// The inputs of `task` in `project` as they are now; `dep` gives the fingerprint a
/// dependency has now (none when it has no evidence).
pub fn inputs(project: &Path, task: &Task, dep: impl Fn(&str) -> Option<String>) -> Inputs {
    let files = declared_files(task)
        .into_iter()
        .map(|p| FileDigest {
            path: p.to_string(),
            digest: inside(p).then(|| path_digest(&project.join(p))).flatten(),
        })
        .collect();
    let deps = task
        .deps
        .iter()
        .map(|id| DepDigest {
            id: id.clone(),
            fingerprint: dep(id),
        })
        .collect();
    seal(task.digest.clone(), files, deps)
}

/// Inputs with their fingerprint computed over the parts.
pub fn seal(definition: String, files: Vec<FileDigest>, deps: Vec<DepDigest>) -> Inputs {
    let mut h = Sha256::new();
    h.update(VERSION);
    h.update(definition.as_bytes());
    for f in &files {
        h.update(b"\nfile\0");
        h.update(f.path.as_bytes());
        h.update(b"\0");
        h.update(f.digest.as_deref().unwrap_or("-").as_bytes());
    }
    for d in &deps {
        h.update(b"\ndep\0");
        h.update(d.id.as_bytes());
        h.update(b"\0");
        h.update(d.fingerprint.as_deref().unwrap_or("-").as_bytes());
    }
    Inputs {
        fingerprint: format!("sha256:{:x}", h.finalize()),
        definition,
        files,
        deps,
    }
}

/// Why `now` differs from `recorded`, one phrase per input that changed, in the
/// order: definition, files, dependencies. Empty when the fingerprints agree.
pub fn changes(recorded: &Inputs, now: &Inputs) -> Vec<String> {
    if recorded.fingerprint == now.fingerprint {
        return Vec::new();
    }
    let mut why = Vec::new();
    if recorded.definition != now.definition {
        why.push("its definition in the plan changed".to_string());
    }
    for f in &now.files {
        match recorded.files.iter().find(|r| r.path == f.path) {
            None => why.push(format!("{} is newly declared", f.path)),
            Some(r) if r.digest != f.digest => why.push(match (&r.digest, &f.digest) {
                (Some(_), None) => format!("{} is gone", f.path),
                (None, Some(_)) => format!("{} appeared", f.path),
                _ => format!("{} changed", f.path),
            }),
            Some(_) => {}
        }
    }
    for r in &recorded.files {
        if !now.files.iter().any(|f| f.path == r.path) {
            why.push(format!("{} is no longer declared", r.path));
        }
    }
    for d in &now.deps {
        let before = recorded.deps.iter().find(|r| r.id == d.id);
        if before.map(|r| &r.fingerprint) != Some(&d.fingerprint) {
            why.push(format!("its dependency {} changed", d.id));
        }
    }
    if why.is_empty() {
        why.push("its inputs changed".into());
    }
    why
}

/// Whether a declared path names something inside the project: relative, with no
/// `..`. Anything else is never read (its digest is none).
fn inside(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// The digest of a regular file's content, or of a directory's files (paths and
/// digests, sorted; links and special files left out); none for anything else.
fn path_digest(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.is_file() {
        return file_digest(path);
    }
    if !meta.is_dir() {
        return None;
    }
    let mut entries = Vec::new();
    walk(path, Path::new(""), &mut entries)?;
    entries.sort();
    let mut h = Sha256::new();
    h.update(b"dir\n");
    for (rel, digest) in entries {
        h.update(rel.as_bytes());
        h.update(b"\0");
        h.update(digest.as_bytes());
        h.update(b"\n");
    }
    Some(format!("sha256:{:x}", h.finalize()))
}

/// Every regular file under `dir` (skipping `.git`), with its digest; none past
/// [`MAX_DIR_FILES`].
fn walk(dir: &Path, rel: &Path, out: &mut Vec<(String, String)>) -> Option<()> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let rel = rel.join(&name);
        if kind.is_dir() {
            walk(&entry.path(), &rel, out)?;
        } else if kind.is_file() {
            if out.len() >= MAX_DIR_FILES {
                return None;
            }
            out.push((rel.display().to_string(), file_digest(&entry.path())?));
        }
    }
    Some(())
}

/// Streams the file through SHA-256, opened without following a link or blocking
/// on a FIFO (`src/fs/open.rs`).
fn file_digest(path: &Path) -> Option<String> {
    let mut file = crate::fs::open_regular(path, false).ok()?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(_) => return None,
        }
    }
    Some(format!("sha256:{:x}", h.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(files: &[&str], deps: &[&str]) -> Task {
        Task {
            id: "T2".into(),
            digest: "def".into(),
            file: files.first().map(|f| (*f).to_string()),
            modifies: files.iter().skip(1).map(|f| (*f).to_string()).collect(),
            deps: deps.iter().map(|d| (*d).to_string()).collect(),
            ..Task::default()
        }
    }

    #[test]
    fn the_fingerprint_follows_each_input_and_says_which_changed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("a.py"), "one").unwrap();
        let t = task(&["a.py", "b.py"], &["T1"]);
        let up = |fp: &'static str| move |_: &str| Some(fp.to_string());
        let base = inputs(p, &t, up("x"));
        assert!(base.declared());
        assert_eq!(
            inputs(p, &t, up("x")),
            base,
            "same inputs, same fingerprint"
        );
        assert!(changes(&base, &base).is_empty());

        std::fs::write(p.join("a.py"), "two").unwrap();
        let edited = inputs(p, &t, up("x"));
        assert_eq!(changes(&base, &edited), ["a.py changed"]);

        std::fs::write(p.join("b.py"), "new").unwrap();
        let appeared = inputs(p, &edited_task(&t), up("x"));
        assert!(changes(&edited, &appeared).contains(&"b.py appeared".to_string()));

        let upstream = inputs(p, &t, up("y"));
        assert_eq!(changes(&edited, &upstream)[0], "b.py appeared");
        assert!(changes(&edited, &upstream).contains(&"its dependency T1 changed".to_string()));

        let mut redefined = t.clone();
        redefined.digest = "other".into();
        let r = inputs(p, &redefined, up("y"));
        assert_eq!(
            changes(&upstream, &r),
            ["its definition in the plan changed"]
        );
    }

    fn edited_task(t: &Task) -> Task {
        t.clone()
    }

    #[test]
    fn paths_outside_the_project_and_links_are_never_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("secret"), "s").unwrap();
        let project = p.join("proj");
        std::fs::create_dir(&project).unwrap();
        std::os::unix::fs::symlink(p.join("secret"), project.join("link")).unwrap();
        let t = task(&["../secret", "/etc/hostname", "link"], &[]);
        let i = inputs(&project, &t, |_| None);
        assert!(i.files.iter().all(|f| f.digest.is_none()), "{i:?}");
    }

    #[test]
    fn a_directory_digest_covers_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("src/m")).unwrap();
        std::fs::write(p.join("src/m/a.py"), "1").unwrap();
        let t = task(&["src/"], &[]);
        let before = inputs(p, &t, |_| None);
        assert!(before.files[0].digest.is_some());
        std::fs::write(p.join("src/m/b.py"), "2").unwrap();
        assert_eq!(changes(&before, &inputs(p, &t, |_| None)), ["src/ changed"]);
    }

    #[test]
    fn a_task_declaring_no_files_is_not_declared() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!inputs(dir.path(), &task(&[], &["T1"]), |_| None).declared());
    }
}
