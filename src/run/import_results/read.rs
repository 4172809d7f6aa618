//! Reading the result files `wf import-results` is given, before it takes the lock:
//! a file named on the command line must be a result; a directory is searched (links
//! not followed) for `*.json` files, and JSON there that is not a result is ignored
//! and counted. A file over [`MAX_RESULT_BYTES`] is refused from its size, never read
//! whole; one that is not JSON (truncated on the way, say) or claims to be a result
//! and is not stops the import, naming the file and the place.
//!
//! A result found in a directory belongs to the job whose directory it is in: the
//! first directory under the one named, as an exported pipeline lays them out
//! (`<job>/` in GitLab, `wf-result-<job>/` in GitHub: the artifact's name,
//! docs/distributed.md "One directory per job").

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Result, WfError};
use crate::run::standalone::{TaskResultFile, RESULT_KIND};

/// How deep `import-results DIR` looks: `gh run download` puts each artifact in a
/// folder of its own, `glab` and hand-made layouts rarely go deeper.
const MAX_DEPTH: usize = 4;

/// The largest result file read. A result holds each command's tail (at most 4 KB),
/// its command line and the task's declared files: a few KB, a few hundred with
/// very long commands.
pub const MAX_RESULT_BYTES: u64 = 8 << 20;

/// How a GitHub artifact of a job's results is named: `wf-result-<job id>`.
pub const ARTIFACT_PREFIX: &str = "wf-result-";

/// A result file, read.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub file: PathBuf,
    /// The job whose directory it was found in (see the module's doc); none for a
    /// file named on the command line or lying in the named directory itself.
    pub job: Option<String>,
    pub result: TaskResultFile,
}

/// Reads every result named: a file must be a result file; a directory is searched
/// for `*.json` files, and those that are not results are listed in `ignored`.
pub fn read_all(paths: &[PathBuf]) -> Result<(Vec<Loaded>, Vec<PathBuf>)> {
    let mut loaded = Vec::new();
    let mut ignored = Vec::new();
    for path in paths {
        let meta = std::fs::symlink_metadata(path).map_err(|e| {
            WfError::io(
                &e,
                format!(
                    "{}: {e}; name a result file or a directory of them",
                    path.display()
                ),
            )
        })?;
        if meta.is_dir() {
            let mut files = Vec::new();
            json_files(path, 0, &mut files);
            files.sort();
            for file in files {
                let job = job_of(path, &file);
                match read_one(&file)? {
                    Some(result) => loaded.push(Loaded { file, job, result }),
                    None => ignored.push(file),
                }
            }
        } else {
            match read_one(path)? {
                Some(result) => loaded.push(Loaded {
                    file: path.clone(),
                    job: None,
                    result,
                }),
                None => {
                    return Err(WfError::usage(format!(
                        "{}: not a wf result file (no \"kind\": \"{RESULT_KIND}\"); name the files `wf run-task --result` wrote",
                        path.display()
                    )))
                }
            }
        }
    }
    Ok((loaded, ignored))
}

fn json_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth < MAX_DEPTH {
            json_files(&path, depth + 1, out);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// The job whose directory `file` (found under `root`) is in: the first directory
/// under `root`, less the GitHub artifact's prefix.
fn job_of(root: &Path, file: &Path) -> Option<String> {
    let rest = file.strip_prefix(root).ok()?;
    let mut parts = rest.components();
    let first = parts.next()?.as_os_str().to_str()?;
    // A file right in `root` is in no job's directory.
    parts.next()?;
    Some(
        first
            .strip_prefix(ARTIFACT_PREFIX)
            .unwrap_or(first)
            .to_string(),
    )
}

/// The result in `path`; `None` for JSON that is not a result file (no `kind`), an
/// error naming the file (and the position) for one that is too big, is not JSON,
/// or claims to be a result and is not.
fn read_one(path: &Path) -> Result<Option<TaskResultFile>> {
    let bytes = read_bounded(path)?;
    let value = serde_json::from_slice::<Value>(&bytes).map_err(|e| {
        WfError::usage(format!(
            "{}:{}:{}: truncated or not JSON ({}); if it is a result, write it again with `wf run-task TASK --result FILE`, else move it out of the directory",
            path.display(),
            e.line(),
            e.column(),
            crate::error::one_line(&e.to_string())
        ))
    })?;
    if value.get("kind").and_then(Value::as_str) != Some(RESULT_KIND) {
        return Ok(None);
    }
    serde_json::from_value::<TaskResultFile>(value)
        .map(Some)
        .map_err(|e| {
            // The position is the text's: parse it again from the bytes for it.
            let (line, col) = serde_json::from_slice::<TaskResultFile>(&bytes)
                .err()
                .map_or((0, 0), |e| (e.line(), e.column()));
            WfError::usage(format!(
                "{}:{line}:{col}: not a valid wf result file ({}); write it again with `wf run-task TASK --result FILE`",
                path.display(),
                crate::error::one_line(&e.to_string())
            ))
        })
}

/// The file's bytes, refused from its size when it is over [`MAX_RESULT_BYTES`]
/// (and never more than that read, should it grow meanwhile).
fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    let fail = |e: WfError| WfError::usage(format!("{}: {}", path.display(), e.message));
    let (file, meta) = crate::fs::open_regular_kept(path).map_err(fail)?;
    let too_big = |len: u64| {
        WfError::usage(format!(
            "{}: {len} bytes, over the limit of {MAX_RESULT_BYTES} for a result file (a result of `wf run-task` is a few KB); it is not one: move it out of the directory",
            path.display()
        ))
    };
    if meta.len() > MAX_RESULT_BYTES {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_RESULT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(WfError::io(&e, e.to_string())))?;
    if bytes.len() as u64 > MAX_RESULT_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_belongs_to_the_job_directory_it_is_in() {
        let root = Path::new("results");
        let job = |f: &str| job_of(root, &root.join(f));
        assert_eq!(job("wf-result-task-T1/T1.json").as_deref(), Some("task-T1"));
        assert_eq!(job("task-T1/deep/T2.json").as_deref(), Some("task-T1"));
        assert_eq!(job("T1.json"), None);
    }

    #[test]
    fn an_oversized_file_is_refused_from_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(MAX_RESULT_BYTES + 1).unwrap();
        let err = read_one(&path).unwrap_err();
        assert!(err.message.contains("over the limit"), "{}", err.message);
        std::fs::write(&path, "{\"kind\": \"wf.task_result\", \"task_id\": ").unwrap();
        let err = read_one(&path).unwrap_err();
        assert!(err.message.contains(":1:"), "{}", err.message);
        assert!(
            err.message.contains("truncated or not JSON"),
            "{}",
            err.message
        );
        std::fs::write(&path, "{\"status\": \"planned\"}").unwrap();
        assert!(read_one(&path).unwrap().is_none());
    }
}
