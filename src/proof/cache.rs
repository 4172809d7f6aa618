//! The verification cache (docs/proof.md "The cache"): a directory of passing
//! checks, one file per fingerprint. A command task whose inputs now have the
//! fingerprint of a record here is up to date: the same definition passed the same
//! checks on the same files and the same inputs upstream, so it is not run again.
//!
//! Records are content-addressed and never edited, so a cache can be shared by
//! runs, clones and machines (CI restores and saves the directory); a record that
//! cannot be read, or names another fingerprint, is a miss, never an answer. Writes
//! are not synced: a record lost to a crash costs one re-run, nothing else.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Result, WfError};
use crate::state::evidence::CheckEvidence;

/// The `kind` of every record, so a stray JSON file is told from one.
pub const RECORD_KIND: &str = "wf.verification";

/// The cache's directory inside a workflow dir, when no `--cache DIR` is given.
pub const DEFAULT_DIR: &str = "cache";

/// One passing verification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub kind: String,
    /// The inputs' fingerprint the checks passed on (`sha256:…`).
    pub fingerprint: String,
    /// The task it was recorded for (for people: the fingerprint is the key).
    pub task_id: String,
    pub checks: Vec<CheckEvidence>,
    /// When they passed (RFC 3339).
    pub at: String,
    pub wf_version: String,
}

/// A cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the record of `fingerprint` lives: `<dir>/<2 hex>/<rest>.json`; none
    /// for anything that is not a `sha256:` of 64 hex digits (so no path is built
    /// from anything else).
    fn path(&self, fingerprint: &str) -> Option<PathBuf> {
        let hex = fingerprint.strip_prefix("sha256:")?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(self.dir.join(&hex[..2]).join(format!("{}.json", &hex[2..])))
    }

    /// The passing record of `fingerprint`, if the cache has one.
    pub fn get(&self, fingerprint: &str) -> Option<Record> {
        let bytes = crate::fs::read_regular(&self.path(fingerprint)?).ok()?;
        let record: Record = serde_json::from_slice(&bytes).ok()?;
        (record.kind == RECORD_KIND && record.fingerprint == fingerprint).then_some(record)
    }

    /// Records that `task_id`'s checks passed on inputs with `fingerprint`. A new
    /// file is written beside its place and renamed there, so a reader sees a whole
    /// record or none.
    pub fn put(&self, fingerprint: &str, task_id: &str, checks: &[CheckEvidence]) -> Result<()> {
        let Some(path) = self.path(fingerprint) else {
            return Ok(());
        };
        let record = Record {
            kind: RECORD_KIND.into(),
            fingerprint: fingerprint.into(),
            task_id: task_id.into(),
            checks: checks.to_vec(),
            at: crate::clock::now_rfc3339(),
            wf_version: env!("CARGO_PKG_VERSION").into(),
        };
        let Some(shard) = path.parent() else {
            return Ok(());
        };
        crate::fs::ensure_dir(shard)?;
        let failed = |e: std::io::Error| {
            WfError::io(
                &e,
                format!(
                    "cannot write to the verification cache {}: {e}",
                    self.dir.display()
                ),
            )
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(shard)
            .map_err(failed)?;
        let mut bytes = serde_json::to_vec(&record).unwrap_or_default();
        bytes.push(b'\n');
        tmp.write_all(&bytes).map_err(failed)?;
        tmp.persist(&path).map_err(|e| failed(e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FP: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_record_reads_back_by_its_fingerprint_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("c"));
        assert_eq!(cache.get(FP), None);
        let checks = vec![CheckEvidence {
            what: "check".into(),
            argv: vec!["true".into()],
            exit_code: Some(0),
            duration_ms: 1,
            log_digest: None,
        }];
        cache.put(FP, "T1", &checks).unwrap();
        let got = cache.get(FP).unwrap();
        assert_eq!((got.task_id.as_str(), got.checks), ("T1", checks));
        let other = FP.replace("sha256:0", "sha256:1");
        assert_eq!(cache.get(&other), None);
    }

    #[test]
    fn a_record_under_the_wrong_name_or_broken_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_path_buf());
        cache.put(FP, "T1", &[]).unwrap();
        let path = cache.path(FP).unwrap();
        let other = FP.replace("sha256:01", "sha256:01f");
        let other = &other[..71];
        let moved = cache.path(other).unwrap();
        std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
        std::fs::copy(&path, &moved).unwrap();
        assert_eq!(cache.get(other), None, "a copied record names its own key");
        std::fs::write(&path, "{").unwrap();
        assert_eq!(cache.get(FP), None);
    }

    #[test]
    fn no_path_is_built_from_anything_but_a_digest() {
        let cache = Cache::new(PathBuf::from("/c"));
        for bad in ["sha256:../../etc/passwd", "md5:00", "", "sha256:zz"] {
            assert_eq!(cache.path(bad), None, "{bad}");
        }
    }
}
