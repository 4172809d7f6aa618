//! Opening the files `wf` keeps (state, event log, lock, logs, config): never through a
//! symlink at the last component, and never anything but a regular file. A FIFO in
//! place of the state would block its reader forever — every `status`, and every
//! editor hook — and a device could be anything; so the file is opened without
//! blocking and checked on the open descriptor (no window between a check and the
//! open), then refused with its path and what it is.

use std::os::unix::fs::FileTypeExt;

use fs_err::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::{Result, WfError};
use crate::fs::refuse_symlink;

/// How `wf` opens what it reads: never through a link at the last component, a FIFO
/// without blocking (it changes nothing for a regular file, the only kind kept open),
/// and not inherited by the commands it starts.
const READ_FLAGS: i32 = libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK;

/// `path` opened for reading with [`READ_FLAGS`], whatever it is: the caller tells
/// what it is from the descriptor. For a reader that hashes what a plan names, where
/// a link or a directory is an answer, not an error.
pub fn open_any(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(READ_FLAGS)
        .open(path)
}

/// Opens `path` for reading; `append` also opens it for appending, creating it (mode
/// 0644) when missing. A missing file is an error whose `io` is `NotFound`.
pub fn open_regular(path: &Path, append: bool) -> Result<fs_err::File> {
    Ok(open_checked(path, append)?.0)
}

/// [`open_regular`], with the metadata its check read (one `fstat` for both).
fn open_checked(path: &Path, append: bool) -> Result<(fs_err::File, std::fs::Metadata)> {
    let mut opts = fs_err::OpenOptions::new();
    opts.read(true);
    if append {
        opts.append(true).create(true).mode(0o644);
    }
    opts.custom_flags(READ_FLAGS);
    // O_NOFOLLOW refuses a link at the last component; only then is it looked at,
    // to say so as the store does (no lstat before every open).
    let file = opts.open(path).map_err(|e| {
        refuse_symlink(path)
            .err()
            .unwrap_or_else(|| WfError::io(&e, e.to_string()))
    })?;
    let meta = file
        .metadata()
        .map_err(|e| WfError::io(&e, e.to_string()))?;
    refuse_irregular(path, meta.file_type())?;
    Ok((file, meta))
}

/// An error with the path and what is there, unless `kind` is a regular file.
fn refuse_irregular(path: &Path, kind: std::fs::FileType) -> Result<()> {
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "something else"
    };
    Err(WfError::usage(format!(
        "{} is {what}, not a regular file; name a regular file, or move this one away",
        path.display()
    )))
}

/// The whole of a file the user named (`wf constraints merge FILE`, Claude Code's
/// settings): read through a link, which the user chose, but never blocking on a
/// FIFO, and refused with its path and what it is when it is not a regular file. A
/// missing file is an error whose `io` is `NotFound`.
pub fn read_named(path: &Path) -> Result<Vec<u8>> {
    let file = fs_err::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| WfError::io(&e, e.to_string()))?;
    let (file, _) = file.into_parts();
    let kind = file
        .metadata()
        .map_err(|e| WfError::io(&e, e.to_string()))?
        .file_type();
    refuse_irregular(path, kind)?;
    read_rest(&file)
}

/// The whole of a regular file, as [`open_regular`] opens it.
pub fn read_regular(path: &Path) -> Result<Vec<u8>> {
    read_regular_kept(path).map(|(bytes, _, _)| bytes)
}

/// [`read_regular`], the file it read, still open, and that file's metadata as it
/// was before the read (a write during the read shows in the file's metadata then).
pub fn read_regular_kept(path: &Path) -> Result<(Vec<u8>, std::fs::File, std::fs::Metadata)> {
    let (file, meta) = open_regular_kept(path)?;
    let bytes = read_rest(&file)?;
    Ok((bytes, file, meta))
}

/// A regular file opened as [`open_regular`] opens it for reading, and its metadata
/// before anything is read.
pub fn open_regular_kept(path: &Path) -> Result<(std::fs::File, std::fs::Metadata)> {
    let (file, meta) = open_checked(path, false)?;
    Ok((file.into_parts().0, meta))
}

/// The file from where its handle stands to its end.
pub fn read_rest(mut file: &std::fs::File) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    // Through std's `File`, which sizes the buffer from the file's length once; read
    // through the wrapper it doubled from 8 KB, touching twice the pages and copying
    // what it had read at each step.
    file.read_to_end(&mut bytes)
        .map_err(|e| WfError::io(&e, e.to_string()))?;
    Ok(bytes)
}

/// Bytes `start..end` of `file`; `None` when the file is shorter or cannot be read.
pub fn read_span(file: &std::fs::File, start: u64, end: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut bytes = vec![0; usize::try_from(end.checked_sub(start)?).ok()?];
    file.read_exact_at(&mut bytes, start).ok()?;
    Some(bytes)
}

/// Bytes `part` of the regular file at `path` (fewer when it ends first), opened as
/// [`open_regular`] opens it; `None` when it cannot be read.
pub fn read_range(path: &Path, part: std::ops::Range<u64>) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = open_regular(path, false).ok()?;
    file.seek(SeekFrom::Start(part.start)).ok()?;
    let mut bytes = Vec::new();
    file.take(part.end - part.start)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("workflow-state.json");
        // SAFETY: a valid NUL-terminated path.
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        for append in [false, true] {
            let err = open_regular(&fifo, append).unwrap_err();
            assert!(err.message.contains("is a FIFO"), "{}", err.message);
        }
        assert!(read_regular(&fifo).is_err());
    }

    #[test]
    fn a_regular_file_reads_and_a_missing_one_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "x").unwrap();
        assert_eq!(read_regular(&path).unwrap(), b"x");
        let err = read_regular(&dir.path().join("nope")).unwrap_err();
        assert_eq!(err.io, Some(std::io::ErrorKind::NotFound));
        let err = open_regular(dir.path(), false).unwrap_err();
        assert!(err.message.contains("is a directory"), "{}", err.message);
    }
}
