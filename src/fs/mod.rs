//! The file helpers under everything else: how `wf` opens its own files (never through
//! a link, never anything but a regular file: [`open`]), how it writes them so a crash
//! or a full disk cannot tear them ([`durable`]), and the small pieces both use.
//!
//! A leaf: it depends on nothing of `wf` but `error` and the `testing` fault points,
//! so the state, the config and the run all share one copy of each.

pub mod durable;
mod open;

use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use crate::error::{Result, WfError};

pub use open::{
    open_any, open_regular, open_regular_kept, read_named, read_range, read_regular,
    read_regular_kept, read_rest, read_span,
};

/// Creates `dir` (and its parents) if missing; refuses a symlink.
pub fn ensure_dir(dir: &Path) -> Result<()> {
    refuse_symlink(dir)?;
    if !dir.exists() {
        crate::testing::fault(crate::testing::Op::Create)
            .map_err(|e| WfError::io(&e, format!("cannot create {}: {e}", dir.display())))?;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(dir)
            .map_err(|e| WfError::io(&e, format!("cannot create {}: {e}", dir.display())))?;
    }
    Ok(())
}

/// A symlink where `wf` keeps its own files, or where it reads or writes a file the
/// user named for it, is refused rather than followed: it could point anywhere, and
/// `wf` would then write there.
pub fn refuse_symlink(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(WfError::usage(format!(
            "{} is a symbolic link, which wf does not follow; name the real file or directory, or put one there",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// The relative `path` with `.` and `..` taken out by its text, when it never
/// climbs above its start (`a/../b` is `b`; `../b` and `/b` are none). The file
/// system is not asked: a link on the way is not followed.
pub fn lexically_inside(path: &Path) -> Option<std::path::PathBuf> {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
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
    Some(out)
}

/// 1-based line and byte column of byte `pos` in `bytes`, for an error that points
/// into a file.
pub fn line_col(bytes: &[u8], pos: usize) -> (usize, usize) {
    let before = bytes.get(..pos).unwrap_or(bytes);
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    (line, before.len() - line_start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        assert_eq!(line_col(b"", 0), (1, 1));
        assert_eq!(line_col(b"ab\ncd", 5), (2, 3));
        assert_eq!(line_col(b"ab\ncd", 3), (2, 1));
        // A position past the end is the end.
        assert_eq!(line_col(b"ab", 9), (1, 3));
    }
}
