//! The file helpers every durable write of `wf` goes through.
//!
//! - A file `wf` creates is opened with `O_NOFOLLOW|O_CREAT|O_EXCL` and mode 0644
//!   ([`create_new`]): a link or file planted where it goes is never written through.
//!   A file rewritten in place of an old one is either written to a new temp file and
//!   renamed over it ([`write_atomic`]: a crash leaves the old or the new content,
//!   never a torn one, and the rename replaces a planted link instead of following
//!   it), or the old entry is unlinked first and the file created anew
//!   ([`replace_new`]).
//! - Files opened for appending (the event log, the lock file) are opened with
//!   `O_NOFOLLOW` ([`open_append`]).
//! - Temp files are `.tmp-*` in the target's directory; those a killed writer leaves
//!   are removed by the next writer, under the lock ([`sweep_tmp`]) — or, in a
//!   directory `wf` does not own (a result or a proof written into the project), by
//!   the next write beside them, once the process that made them is gone
//!   ([`write_atomic_swept`]).
//! - Each create, write, fsync and rename here is a fault point for the
//!   `WF_TEST_FAULT` hook (see `testing`), so the test suite can fail any of them.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Result, WfError};
use crate::testing::{fault, Op};

/// Prefix of the temp files of [`write_atomic`].
pub const TMP_PREFIX: &str = ".tmp-";

fn io_error(what: &str, path: &Path, e: std::io::Error) -> WfError {
    WfError::io(&e, format!("cannot {what} {}: {e}", path.display()))
}

/// Creates a new file for writing, mode 0644: `O_NOFOLLOW|O_CREAT|O_EXCL`, so it
/// fails on anything already there, a symbolic link included.
pub fn create_new(path: &Path) -> Result<std::fs::File> {
    fault(Op::Create)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(path)
        })
        .map_err(|e| io_error("create", path, e))
}

/// [`create_new`] in place of whatever is at `path`: an old file — or a link planted
/// there — is unlinked first (unlinking a link removes the link, not its target).
pub fn replace_new(path: &Path) -> Result<std::fs::File> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error("replace", path, e)),
    }
    create_new(path)
}

/// Opens a file of the workflow dir for appending, creating it (mode 0644) if
/// missing: a regular file only, never through a link ([`crate::fs::open_regular`]).
pub fn open_append(path: &Path) -> Result<fs_err::File> {
    fault(Op::Create).map_err(|e| io_error("open", path, e))?;
    crate::fs::open_regular(path, true)
}

/// Writes all of `bytes`. A failed write may have written part of them.
pub fn write_all(file: &mut std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    if let Err(e) = fault(Op::Write) {
        // What a full disk does to an append: part of the line is on disk.
        let _ = file.write_all(&bytes[..bytes.len() / 2]);
        return Err(e);
    }
    file.write_all(bytes)
}

/// `fsync` of a file's data (and of its size when it grew).
pub fn sync_data(file: &std::fs::File) -> std::io::Result<()> {
    fault(Op::Fsync)?;
    file.sync_data()
}

/// `rename(2)`, atomic within one file system.
pub fn rename(from: &Path, to: &Path) -> Result<()> {
    fault(Op::Rename)
        .and_then(|()| std::fs::rename(from, to))
        .map_err(|e| {
            WfError::io(
                &e,
                format!("cannot rename {} to {}: {e}", from.display(), to.display()),
            )
        })
}

/// Makes the entries of `dir` (creations, renames) durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    fault(Op::Fsync)
        .and_then(|()| std::fs::File::open(dir))
        .and_then(|d| d.sync_all())
        .map_err(|e| io_error("sync", dir, e))
}

/// Creates one directory, mode 0755; `Ok(false)` when it already exists.
pub fn create_dir(path: &Path) -> Result<bool> {
    let made = fault(Op::Create).and_then(|()| {
        std::fs::DirBuilder::new()
            .mode(0o755)
            .recursive(false)
            .create(path)
    });
    match made {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_error("create", path, e)),
    }
}

/// Writes `bytes` to `path` so that a crash leaves the old or the new content: a new
/// `.tmp-*` file beside `path`, filled, synced, renamed over `path`; then the
/// directory is synced. A failure removes the temp file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut temp = Temp::create(path)?;
    temp.fill(|file| file.write_all(bytes))?;
    temp.sync()?.commit()
}

/// [`write_atomic`] for a file in a directory `wf` does not own and holds no lock
/// on (a result, a proof, a pipeline written into the project): first the temp files
/// a killed `wf` left beside it are removed — only names this module makes
/// (`.tmp-<pid>-<hex>-<n>`), and only when process `<pid>` is gone — since no
/// writer's recovery ever looks there.
pub fn write_atomic_swept(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        sweep_dead_tmp(dir);
    }
    write_atomic(path, bytes)
}

/// Writes a file the user named on the command line (`-o`, `--result`, `--junit`, a
/// proof's FILE), relative to the current directory. A character device or a pipe at
/// that path, or at the end of a link there (`/dev/null`, `/dev/stdout`, a FIFO), is
/// written into, as a shell's `>` does: renaming over it would put a file in place of
/// the device or the link. Otherwise the file is replaced as [`write_atomic_swept`]
/// does, its missing directories made first (a workflow exported to
/// `.github/workflows/` of a fresh clone), and a link is refused, as everywhere: it
/// could lead to a file anywhere. Each error reads `{what} {path}: {why}`.
pub fn write_output(path: &Path, bytes: &[u8], what: &str) -> Result<()> {
    let named = |why: &dyn std::fmt::Display| format!("{what} {}: {why}", path.display());
    if std::fs::metadata(path).is_ok_and(|m| is_stream(m.file_type())) {
        return write_stream(path, bytes).map_err(|e| WfError::io(&e, named(&e)));
    }
    // Made absolute: the write syncs the file's directory, which a bare name does
    // not name.
    let path = &std::path::absolute(path).map_err(|e| WfError::io(&e, named(&e)))?;
    // Only a missing one: an existing directory reached through a link is the user's.
    if let Some(dir) = path.parent().filter(|dir| !dir.exists()) {
        super::ensure_dir(dir).map_err(|e| WfError::new(e.kind, named(&e.message)))?;
    }
    write_atomic_swept(path, bytes).map_err(|e| WfError::new(e.kind, named(&e.message)))
}

fn is_stream(kind: std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_char_device() || kind.is_fifo()
}

/// Writes into the device or pipe at `path`, checked again on the open descriptor:
/// a link changed meanwhile to lead to a regular file is not written through.
fn write_stream(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    if !is_stream(file.metadata()?.file_type()) {
        return Err(std::io::Error::other(
            "it is no longer a device or a pipe; run the command again",
        ));
    }
    write_all(&mut file, bytes)
}

/// Removes from `dir` the temp files of `wf` processes that no longer run.
fn sweep_dead_tmp(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(tmp_pid) else {
            continue;
        };
        let gone = rustix::process::Pid::from_raw(pid).is_some_and(|pid| {
            rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
        });
        if gone && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The pid in a temp file's name as [`new_tmp`] makes it, `.tmp-<pid>-<hex>-<n>`;
/// none for any other name.
fn tmp_pid(name: &str) -> Option<i32> {
    let mut parts = name.strip_prefix(TMP_PREFIX)?.split('-');
    let pid = parts.next()?.parse().ok()?;
    let hex = parts.next()?;
    let n = parts.next()?;
    let plain = !hex.is_empty()
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit());
    (plain && parts.next().is_none()).then_some(pid)
}

/// A new `.tmp-*` file beside `path`, written as [`write_atomic`] writes one
/// but a step at a time — filled, then synced ([`Synced`]), then renamed over
/// `path` — so that work which needs the file written but not yet in place runs
/// before it is ([`Temp::sync_with`]). Dropped before its rename, it is removed.
pub struct Temp {
    dir: PathBuf,
    path: PathBuf,
    tmp: PathBuf,
    file: std::fs::File,
    /// Whether its temp name is gone: renamed into place, or removed after a link.
    gone: bool,
}

impl Temp {
    /// A temp file to be renamed over `path`, which must not be a link.
    pub fn create(path: &Path) -> Result<Temp> {
        crate::fs::refuse_symlink(path)?;
        Temp::beside(path)
    }

    /// A temp file in `path`'s directory, whatever is at `path`.
    fn beside(path: &Path) -> Result<Temp> {
        let dir = path
            .parent()
            .ok_or_else(|| WfError::usage(format!("{} has no parent directory", path.display())))?;
        let (tmp, file) = new_tmp(dir)?;
        Ok(Temp {
            dir: dir.to_path_buf(),
            path: path.to_path_buf(),
            tmp,
            file,
            gone: false,
        })
    }

    /// Writes the content with `fill`.
    pub fn fill<T>(
        &mut self,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<T>,
    ) -> Result<T> {
        fault(Op::Write)
            .and_then(|()| fill(&mut self.file))
            .map_err(|e| io_error("write", &self.path, e))
    }

    /// Syncs the file's data.
    pub fn sync(self) -> Result<Synced> {
        sync_data(&self.file).map_err(|e| io_error("write", &self.path, e))?;
        Ok(Synced(self))
    }

    /// [`Temp::sync`], after `then` is given the file's metadata as written (none if
    /// it cannot be had): what names the file (a summary, an index) is staged from
    /// it, and a sync and a rename leave it as it is.
    pub fn sync_with<T>(
        self,
        then: impl FnOnce(Option<&std::fs::Metadata>) -> T,
    ) -> Result<(Synced, T)> {
        let out = then(self.file.metadata().ok().as_ref());
        Ok((self.sync()?, out))
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.gone {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// A [`Temp`] filled and synced, to be renamed into place.
pub struct Synced(Temp);

impl Synced {
    /// Renames the file over its path and syncs the directory.
    pub fn commit(self) -> Result<()> {
        crate::testing::crash_point("before-rename");
        let mut temp = self.0;
        rename(&temp.tmp, &temp.path)?;
        temp.gone = true;
        sync_dir(&temp.dir)
    }

    /// Links the file at its path, which must be free ([`create_atomic`]), and syncs
    /// the directory; the temp name goes either way.
    fn link(self) -> Result<()> {
        let mut temp = self.0;
        let linked = fault(Op::Rename).and_then(|()| std::fs::hard_link(&temp.tmp, &temp.path));
        // Removed before the directory's sync, which makes the removal durable too.
        let _ = std::fs::remove_file(&temp.tmp);
        temp.gone = true;
        linked.map_err(|e| io_error("create", &temp.path, e))?;
        sync_dir(&temp.dir)
    }
}

/// Writes a new file at `path` whole or not at all, and never over anything already
/// there: the bytes go to a synced temp file beside it, which is then hard-linked to
/// `path` — `link(2)` fails on an existing entry, a link included, and never follows
/// one — and the temp name removed. For files written in someone else's directory (a
/// project's, by `wf init`), where a crash must not leave half a file and a file that
/// appeared meanwhile must not be replaced.
pub fn create_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut temp = Temp::beside(path)?;
    temp.fill(|file| file.write_all(bytes))?;
    temp.sync()?.link()
}

/// A second name `backup` for the file at `path` (a hard link: no copy, and the
/// bytes stay whatever later replaces `path` by rename). Fails when `backup` exists.
pub fn link_backup(path: &Path, backup: &Path) -> Result<()> {
    fault(Op::Create)
        .and_then(|()| std::fs::hard_link(path, backup))
        .map_err(|e| {
            WfError::io(
                &e,
                format!(
                    "cannot keep {} as {}: {e}",
                    path.display(),
                    backup.display()
                ),
            )
        })
}

/// A new temp file in `dir`, named so that no two writers (or attempts) collide.
fn new_tmp(dir: &Path) -> Result<(PathBuf, std::fs::File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{TMP_PREFIX}{}-{nanos:x}-{n}", std::process::id()));
        match create_new(&path) {
            Ok(file) => return Ok((path, file)),
            // A stale temp file of an earlier process with this pid: next name.
            Err(_) if n < 64 && path.symlink_metadata().is_ok() => {}
            Err(e) => return Err(e),
        }
    }
}

/// Removes the `.tmp-*` files killed writers left in `dir`. Only the holder of the
/// writer's lock may call it: every temp file is written under that lock.
pub fn sweep_tmp(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_tmp = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(TMP_PREFIX));
        if is_tmp
            && entry
                .file_type()
                .is_ok_and(|t| t.is_file() || t.is_symlink())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_dead_writers_temp_files_are_swept_from_a_foreign_directory() {
        assert_eq!(tmp_pid(".tmp-123-1f-0"), Some(123));
        assert_eq!(tmp_pid(".tmp-123-1f"), None);
        assert_eq!(tmp_pid(".tmp-notes"), None);
        assert_eq!(tmp_pid(".tmp-1-2-3-4"), None);
        let dir = tempfile::tempdir().unwrap();
        // No process has pid 0x3fffffff (beyond pid_max); this one is alive.
        let dead = dir.path().join(".tmp-1073741823-ab-0");
        let alive = dir.path().join(format!(".tmp-{}-ab-0", std::process::id()));
        let theirs = dir.path().join(".tmp-mine");
        for f in [&dead, &alive, &theirs] {
            std::fs::write(f, "x").unwrap();
        }
        write_atomic_swept(&dir.path().join("out.json"), b"{}").unwrap();
        assert!(!dead.exists());
        assert!(alive.exists() && theirs.exists());
        assert_eq!(std::fs::read(dir.path().join("out.json")).unwrap(), b"{}");
    }

    #[test]
    fn a_temp_runs_work_before_its_sync_and_is_gone_unless_committed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        std::fs::write(&path, "old").unwrap();
        let temps = || {
            std::fs::read_dir(dir.path())
                .unwrap()
                .filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_string_lossy()
                        .starts_with(TMP_PREFIX)
                })
                .count()
        };
        let mut temp = Temp::create(&path).unwrap();
        temp.fill(|file| file.write_all(b"new")).unwrap();
        // Beside the sync, the file is written whole and not yet in place.
        let (synced, seen) = temp
            .sync_with(|meta| (meta.unwrap().len(), std::fs::read(&path).unwrap()))
            .unwrap();
        assert_eq!(seen, (3, b"old".to_vec()));
        synced.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(temps(), 0);
        // Dropped before its commit, filled or synced, it leaves nothing.
        let mut temp = Temp::create(&path).unwrap();
        temp.fill(|file| file.write_all(b"newer")).unwrap();
        assert_eq!(temps(), 1);
        drop(temp.sync_with(|_| ()).unwrap());
        assert_eq!(temps(), 0);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        // A rename that fails (a directory in the way) leaves nothing either.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir_all(blocked.join("inside")).unwrap();
        let mut temp = Temp::create(&blocked).unwrap();
        temp.fill(|file| file.write_all(b"x")).unwrap();
        assert!(temp.sync().unwrap().commit().is_err());
        assert_eq!(temps(), 0);
    }

    #[test]
    fn create_new_refuses_a_planted_link_and_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(create_new(&link).is_err());
        assert!(create_new(&target).is_err());
        // replace_new removes the link and creates a file in its place.
        let mut f = replace_new(&link).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
        assert!(!std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn create_atomic_writes_whole_files_and_never_over_an_entry() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.md");
        create_atomic(&path, b"plan").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "plan");
        // An existing file, and a link to one, are left as they are.
        assert!(create_atomic(&path, b"other").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "plan");
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(create_atomic(&link, b"through").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "plan");
        // No temp file is left beside them, whatever happened.
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["link.md", "new.md"]);
        // A backup is a second name; a taken name is refused.
        let backup = dir.path().join("new.md.bak");
        link_backup(&path, &backup).unwrap();
        write_atomic(&path, b"replaced").unwrap();
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "plan");
        assert!(link_backup(&path, &backup).is_err());
    }

    #[test]
    fn write_atomic_leaves_no_temp_file_and_sweep_removes_stale_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        std::fs::write(dir.path().join(".tmp-1-2-3"), "stale").unwrap();
        sweep_tmp(dir.path());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.json")]);
    }
}
