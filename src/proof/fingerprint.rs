//! The fingerprint of a task's inputs: its definition as imported, the content of
//! every file it declares, and the fingerprints of the tasks it depends on
//! (docs/proof.md "Fingerprint"). Equal fingerprints mean the checks would run on
//! the same things; a change upstream changes every fingerprint downstream.

use std::path::{Component, Path};

use sha2::{Digest, Sha256};

use crate::state::evidence::{DepDigest, FileDigest, Inputs};
use crate::state::model::Task;

/// Bumped if what a fingerprint covers changes: every old one then differs. v3: a
/// declared path's digest says what is there when it is not a file's content (a
/// link, nothing, a directory too large to hash), and a file's carries its exec bit.
const VERSION: &[u8] = b"wf-fingerprint-v3\n";

/// Most entries of a declared directory hashed; past them the directory is not
/// hashed, and its task is never up to date ([`UNHASHED`]).
pub const MAX_DIR_FILES: usize = 10_000;

/// The digest of a declared path that is not there.
pub const MISSING: &str = "missing";

/// The start of the digest of a declared path wf does not hash (a directory over
/// [`MAX_DIR_FILES`], a file it cannot read), with why. Equal twice, it still tells
/// nothing: a task with one is never up to date and never answered from the cache
/// ([`FileDigest::hashed`]).
pub const UNHASHED: &str = "unhashed: ";

/// How many links in a row a declared link's digest follows inside the project.
const MAX_LINK_DEPTH: usize = 8;

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
/// dependency has now (none when it has no evidence), `kept` the digest a file keeps
/// from the task's evidence instead of being hashed again (a file a later task that
/// declares it too answers for: docs/proof.md "Files two tasks declare").
pub fn inputs(
    project: &Path,
    task: &Task,
    dep: impl Fn(&str) -> Option<String>,
    kept: impl Fn(&str) -> Option<String>,
) -> Inputs {
    let files = declared_files(task)
        .into_iter()
        .map(|p| FileDigest {
            path: p.to_string(),
            digest: Some(kept(p).unwrap_or_else(|| digest_of(project, p))),
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
    let missing = |d: &Option<String>| d.as_deref().is_none_or(|d| d == MISSING);
    for f in &now.files {
        match recorded.files.iter().find(|r| r.path == f.path) {
            None => why.push(format!("{} is newly declared", f.path)),
            Some(r) if r.digest != f.digest => {
                why.push(match (missing(&r.digest), missing(&f.digest)) {
                    (false, true) => format!("{} is gone", f.path),
                    (true, false) => format!("{} appeared", f.path),
                    _ => format!("{} changed", f.path),
                });
            }
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

/// Why the fingerprint of `inputs` tells nothing about one of its files, one phrase
/// each: files wf does not hash ([`UNHASHED`]). Such a task is checked again every
/// time, and said so.
pub fn unhashed(inputs: &Inputs) -> Vec<String> {
    inputs
        .files
        .iter()
        .filter_map(|f| {
            let why = f.digest.as_deref()?.strip_prefix(UNHASHED)?;
            Some(format!("{} is not hashed ({why})", f.path))
        })
        .collect()
}

/// Whether equal fingerprints of `inputs` mean equal inputs: it declares files
/// (one that declares none may read anything) and wf hashed every one of them.
pub fn tells(inputs: &Inputs) -> bool {
    inputs.declared() && unhashed(inputs).is_empty()
}

/// Whether a declared path names something inside the project: relative, with no
/// `..`. Anything else is never read.
pub fn inside(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// The digest of the declared path `rel` in `project`, never none: a file's content
/// (and exec bit), a directory's files, a link's target and what it points to,
/// [`MISSING`], or why it is not hashed.
pub fn digest_of(project: &Path, rel: &str) -> String {
    if !inside(rel) {
        return format!("{UNHASHED}outside the project");
    }
    path_digest(project, Path::new(rel), 0)
}

fn path_digest(project: &Path, rel: &Path, depth: usize) -> String {
    let path = project.join(rel);
    // Opened first, without following a link or blocking on a FIFO, and told apart
    // by the open descriptor: a declared file, the common case, costs one lookup.
    // A link (the open refuses it) or what cannot be opened is told by its own
    // metadata.
    let (meta, file) = match crate::fs::open_any(&path) {
        Ok(file) => match file.metadata() {
            Ok(meta) => (meta, Some(file)),
            Err(e) => return format!("{UNHASHED}{e}"),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return MISSING.into(),
        Err(_) => match std::fs::symlink_metadata(&path) {
            Ok(meta) => (meta, None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return MISSING.into(),
            Err(e) => return format!("{UNHASHED}{e}"),
        },
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return link_digest(project, rel, depth);
    }
    if kind.is_file() {
        return file
            .and_then(|file| hash_file(file, &meta))
            .unwrap_or_else(|| format!("{UNHASHED}it cannot be read"));
    }
    if kind.is_dir() {
        return dir_digest(&path);
    }
    "special".into()
}

/// `link:<sha256 of the target's text>><digest of what it points to>`: what it
/// points to is hashed when it is inside the project (by its text, without following
/// other links on the way), else it is `outside`.
fn link_digest(project: &Path, rel: &Path, depth: usize) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    let Ok(target) = std::fs::read_link(project.join(rel)) else {
        return format!("{UNHASHED}its link cannot be read");
    };
    let text = sha256(target.as_os_str().as_bytes());
    let pointed = rel
        .parent()
        .and_then(|dir| crate::fs::lexically_inside(&dir.join(&target)))
        .filter(|_| depth < MAX_LINK_DEPTH && target.is_relative())
        .map_or_else(
            || "outside".to_string(),
            |to| path_digest(project, &to, depth + 1),
        );
    format!("link:{text}>{pointed}")
}

/// The digest of a directory's entries (paths and digests, sorted; a link by its
/// target's text), or why it is not hashed: more than [`MAX_DIR_FILES`] of them.
fn dir_digest(path: &Path) -> String {
    let mut entries = Vec::new();
    if let Err(why) = walk(path, Path::new(""), &mut entries) {
        return format!("{UNHASHED}{why}");
    }
    entries.sort();
    let mut h = Sha256::new();
    h.update(b"dir\n");
    for (rel, digest) in entries {
        h.update(rel.as_bytes());
        h.update(b"\0");
        h.update(digest.as_bytes());
        h.update(b"\n");
    }
    format!("sha256:{:x}", h.finalize())
}

/// Every entry under `dir` but directories (skipping `.git`), with its digest; `Err`
/// says why the directory is not hashed.
fn walk(dir: &Path, rel: &Path, out: &mut Vec<(String, String)>) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt as _;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("it cannot be read: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("it cannot be read: {e}"))?;
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| format!("it cannot be read: {e}"))?;
        let rel = rel.join(&name);
        if kind.is_dir() {
            walk(&entry.path(), &rel, out)?;
            continue;
        }
        if out.len() >= MAX_DIR_FILES {
            return Err(format!(
                "more than {MAX_DIR_FILES} files; declare the files or subdirectories the task reads"
            ));
        }
        let digest = if kind.is_file() {
            file_digest(&entry.path()).ok_or_else(|| format!("{} cannot be read", rel.display()))?
        } else if kind.is_symlink() {
            let target = std::fs::read_link(entry.path()).map_err(|e| e.to_string())?;
            format!("link:{}", sha256(target.as_os_str().as_bytes()))
        } else {
            "special".into()
        };
        out.push((rel.display().to_string(), digest));
    }
    Ok(())
}

/// Streams the file through SHA-256, opened without following a link or blocking
/// on a FIFO (`src/fs/open.rs`); `+x` after the digest when it is executable (a
/// changed mode changes what running it does).
fn file_digest(path: &Path) -> Option<String> {
    let (file, meta) = crate::fs::open_regular_kept(path).ok()?;
    hash_file(file, &meta)
}

/// [`file_digest`] of a file opened, with its metadata.
fn hash_file(mut file: std::fs::File, meta: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::PermissionsExt as _;
    let exec = meta.permissions().mode() & 0o111 != 0;
    let mut h = Sha256::new();
    std::io::copy(&mut file, &mut h).ok()?;
    Some(format!(
        "sha256:{:x}{}",
        h.finalize(),
        if exec { "+x" } else { "" }
    ))
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
        let base = inputs(p, &t, up("x"), |_| None);
        assert!(base.declared());
        assert_eq!(
            inputs(p, &t, up("x"), |_| None),
            base,
            "same inputs, same fingerprint"
        );
        assert!(changes(&base, &base).is_empty());

        std::fs::write(p.join("a.py"), "two").unwrap();
        let edited = inputs(p, &t, up("x"), |_| None);
        assert_eq!(changes(&base, &edited), ["a.py changed"]);

        std::fs::write(p.join("b.py"), "new").unwrap();
        let appeared = inputs(p, &edited_task(&t), up("x"), |_| None);
        assert!(changes(&edited, &appeared).contains(&"b.py appeared".to_string()));

        let upstream = inputs(p, &t, up("y"), |_| None);
        assert_eq!(changes(&edited, &upstream)[0], "b.py appeared");
        assert!(changes(&edited, &upstream).contains(&"its dependency T1 changed".to_string()));

        let mut redefined = t.clone();
        redefined.digest = "other".into();
        let r = inputs(p, &redefined, up("y"), |_| None);
        assert_eq!(
            changes(&upstream, &r),
            ["its definition in the plan changed"]
        );
    }

    fn edited_task(t: &Task) -> Task {
        t.clone()
    }

    #[test]
    fn paths_outside_the_project_are_never_read_and_links_are_told_by_their_target() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("secret"), "s").unwrap();
        let project = p.join("proj");
        std::fs::create_dir(&project).unwrap();
        std::fs::write(project.join("a"), "a").unwrap();
        std::os::unix::fs::symlink(p.join("secret"), project.join("out")).unwrap();
        std::os::unix::fs::symlink("a", project.join("in")).unwrap();
        std::os::unix::fs::symlink("in", project.join("chain")).unwrap();
        let digest = |rel: &str| digest_of(&project, rel);
        assert_eq!(digest("../secret"), "unhashed: outside the project");
        assert_eq!(digest("/etc/hostname"), "unhashed: outside the project");
        assert!(digest("out").ends_with(">outside"), "{}", digest("out"));
        let a = digest("a");
        assert!(digest("in").ends_with(&format!(">{a}")), "{}", digest("in"));
        assert!(digest("chain").ends_with(&format!(">{}", digest("in"))));
        assert_eq!(digest("nothing"), MISSING);
        std::fs::write(project.join("a"), "b").unwrap();
        assert!(
            !digest("in").ends_with(&format!(">{a}")),
            "what it points to changed"
        );
    }

    #[test]
    fn what_is_not_a_file_is_told_without_blocking_or_following() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("plain"), "x").unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            p.join("fifo"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        std::os::unix::fs::symlink("gone", p.join("dangling")).unwrap();
        assert_eq!(
            digest_of(p, "fifo"),
            "special",
            "a FIFO is never opened to be read"
        );
        let dangling = digest_of(p, "dangling");
        assert!(
            dangling.starts_with("link:") && dangling.ends_with(&format!(">{MISSING}")),
            "{dangling}"
        );
        let under_a_file = digest_of(p, "plain/x");
        assert!(under_a_file.starts_with(UNHASHED), "{under_a_file}");
    }

    #[test]
    fn a_file_digest_carries_its_exec_bit() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("run.sh");
        std::fs::write(&f, "echo").unwrap();
        let plain = digest_of(dir.path(), "run.sh");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(digest_of(dir.path(), "run.sh"), format!("{plain}+x"));
    }

    #[test]
    fn a_directory_over_the_limit_is_unhashed_and_said_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir(p.join("big")).unwrap();
        for i in 0..=MAX_DIR_FILES {
            std::fs::write(p.join(format!("big/{i}")), "").unwrap();
        }
        let i = inputs(p, &task(&["big"], &[]), |_| None, |_| None);
        assert_eq!(
            unhashed(&i),
            ["big is not hashed (more than 10000 files; declare the files or subdirectories the task reads)"]
        );
    }

    #[test]
    fn a_directory_digest_covers_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("src/m")).unwrap();
        std::fs::write(p.join("src/m/a.py"), "1").unwrap();
        let t = task(&["src/"], &[]);
        let before = inputs(p, &t, |_| None, |_| None);
        assert!(before.files[0].digest.is_some());
        std::fs::write(p.join("src/m/b.py"), "2").unwrap();
        assert_eq!(
            changes(&before, &inputs(p, &t, |_| None, |_| None)),
            ["src/ changed"]
        );
    }

    #[test]
    fn a_task_declaring_no_files_is_not_declared() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!inputs(dir.path(), &task(&[], &["T1"]), |_| None, |_| None).declared());
    }
}
