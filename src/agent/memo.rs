//! What the hook remembers between calls, in `<workflow dir>/hooks/` (docs/hooks.md
//! "Files"): the last failing evaluation of a task's checks, how many `Stop`s in a
//! row kept the agent at it, and per editor session the brief last given and how far
//! its transcript was read.
//!
//! All of it is disposable — a file missing or not what it should be is as good as
//! none — so the hook holds no lock: two hooks writing at once leave one valid answer.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use super::checks::Evaluation;
use super::transcript::Mark;
use crate::error::Result;
use crate::fs::durable;
use crate::state::model::Task;

/// The hook's directory inside the workflow dir.
pub const DIR: &str = "hooks";

const STOP_FILE: &str = "stop-checks.json";

const SESSIONS_DIR: &str = "sessions";

const BLOCKS_FILE: &str = "stop-blocks.json";

const TRANSCRIPTS_DIR: &str = "transcripts";

/// Most session markers kept.
pub const MAX_SESSIONS: usize = 64;

/// A memo file larger than this is not one the hook wrote.
const MAX_MEMO: u64 = 1 << 20;

/// A temp file a killed hook left is removed once it is this old.
const STALE_TMP: Duration = Duration::from_secs(600);

/// Bumped when what a key covers changes.
const KEY_VERSION: &[u8] = b"wf-stop-key-v1\n";

#[derive(Serialize, Deserialize)]
struct StopMemo {
    key: String,
    evaluation: Evaluation,
}

#[derive(Serialize, Deserialize)]
struct SessionMemo {
    brief: String,
}

/// The key a remembered evaluation of `task` holds for on the tree `tree`: the task,
/// every check it runs, the files it must create, how long a check may take, and the
/// tree. A changed plan or config makes a new key, as a changed tree does.
pub fn stop_key(task: &Task, timeout: Duration, tree: &str) -> String {
    let mut h = Md5::new();
    h.update(KEY_VERSION);
    let parts = serde_json::json!({
        "task": task.id,
        "checks": task.check_commands().collect::<Vec<_>>(),
        "creates": task.creates,
        "timeout_ms": timeout.as_millis().to_string(),
        "tree": tree,
    });
    h.update(parts.to_string().as_bytes());
    format!("{:x}", h.finalize())
}

/// The failing evaluation remembered for `key`, if any.
pub fn recall_failure(workflow_dir: &Path, key: &str) -> Option<Evaluation> {
    let memo: StopMemo = read(&workflow_dir.join(DIR).join(STOP_FILE))?;
    (memo.key == key).then_some(memo.evaluation)
}

/// Remembers a failing `evaluation` for `key`, in place of any other.
pub fn remember_failure(workflow_dir: &Path, key: &str, evaluation: &Evaluation) -> Result<()> {
    let dir = hooks_dir(workflow_dir)?;
    let memo = StopMemo {
        key: key.to_string(),
        evaluation: evaluation.clone(),
    };
    write(&dir.join(STOP_FILE), &memo)
}

/// Forgets the remembered failure: the checks passed, or could not be run in full.
pub fn forget_failure(workflow_dir: &Path) {
    let _ = std::fs::remove_file(workflow_dir.join(DIR).join(STOP_FILE));
}

#[derive(Serialize, Deserialize)]
struct BlocksMemo {
    task: String,
    blocks: u32,
}

/// How many times in a row a `Stop` kept the agent working on the task marked
/// `mark` (`brief_mark`); 0 for another task.
pub fn stop_blocks(workflow_dir: &Path, mark: &str) -> u32 {
    read::<BlocksMemo>(&workflow_dir.join(DIR).join(BLOCKS_FILE))
        .filter(|m| m.task == mark)
        .map_or(0, |m| m.blocks)
}

/// Records that a `Stop` kept the agent working on `mark` `blocks` times in a row.
pub fn remember_stop_blocks(workflow_dir: &Path, mark: &str, blocks: u32) -> Result<()> {
    let dir = hooks_dir(workflow_dir)?;
    let memo = BlocksMemo {
        task: mark.to_string(),
        blocks,
    };
    write(&dir.join(BLOCKS_FILE), &memo)
}

/// What identifies the brief of `task` as given: its id and content hash, so an
/// edited task (re-imported) counts as a new one.
pub fn brief_mark(task: &Task) -> String {
    format!("{}\n{}", task.id, task.digest)
}

/// The mark of the brief last given in session `session_id`, if any.
pub fn last_brief(workflow_dir: &Path, session_id: &str) -> Option<String> {
    let memo: SessionMemo = read(&session_file(workflow_dir, SESSIONS_DIR, session_id))?;
    Some(memo.brief)
}

/// Records that session `session_id` was given the brief marked `mark`, then
/// removes the least recently written markers beyond [`MAX_SESSIONS`].
pub fn remember_brief(workflow_dir: &Path, session_id: &str, mark: &str) -> Result<()> {
    let memo = SessionMemo {
        brief: mark.to_string(),
    };
    write_session(workflow_dir, SESSIONS_DIR, session_id, &memo)
}

/// Forgets what session `session_id` was given: its context was cleared or
/// compacted, so the brief is no longer in it.
pub fn forget_brief(workflow_dir: &Path, session_id: &str) {
    let _ = std::fs::remove_file(session_file(workflow_dir, SESSIONS_DIR, session_id));
}

/// How far session `session_id`'s transcript was read, if it was.
pub fn transcript_mark(workflow_dir: &Path, session_id: &str) -> Option<Mark> {
    read(&session_file(workflow_dir, TRANSCRIPTS_DIR, session_id))
}

/// Records how far session `session_id`'s transcript was read.
pub fn remember_transcript(workflow_dir: &Path, session_id: &str, mark: &Mark) -> Result<()> {
    write_session(workflow_dir, TRANSCRIPTS_DIR, session_id, mark)
}

/// A session's file in `kind`: named by a hash, as the id is the editor's text.
fn session_file(workflow_dir: &Path, kind: &str, session_id: &str) -> PathBuf {
    let name = format!("{:x}.json", Md5::digest(session_id.as_bytes()));
    workflow_dir.join(DIR).join(kind).join(name)
}

/// Writes a session's file in `kind`, then removes the least recently written ones
/// beyond [`MAX_SESSIONS`].
fn write_session<T: Serialize>(
    workflow_dir: &Path,
    kind: &str,
    session_id: &str,
    memo: &T,
) -> Result<()> {
    let dir = hooks_dir(workflow_dir)?.join(kind);
    crate::fs::ensure_dir(&dir)?;
    let file = session_file(workflow_dir, kind, session_id);
    write(&file, memo)?;
    prune(&dir, MAX_SESSIONS, &file);
    Ok(())
}

fn hooks_dir(workflow_dir: &Path) -> Result<PathBuf> {
    let dir = workflow_dir.join(DIR);
    crate::fs::ensure_dir(&dir)?;
    Ok(dir)
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    use std::io::Read;
    let file = crate::fs::open_regular(path, false).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_MEMO).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn write<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    durable::write_atomic(path, &bytes)
}

/// Keeps the `keep` most recently written `.json` files of `dir`, `current` always
/// among them (mtimes are coarse: files written in one tick tie), and removes the
/// temp files killed writers left there long ago (a recent one may be another
/// hook's, still being written).
fn prune(dir: &Path, keep: usize, current: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    let mut memos: Vec<(SystemTime, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let written = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        if name.starts_with(durable::TMP_PREFIX) {
            let age = now.duration_since(written).unwrap_or_default();
            if age > STALE_TMP && !meta.is_dir() {
                let _ = std::fs::remove_file(entry.path());
            }
        } else if meta.is_file() && name.ends_with(".json") && entry.path() != current {
            memos.push((written, entry.path()));
        }
    }
    let keep = keep.saturating_sub(1);
    if memos.len() <= keep {
        return;
    }
    memos.sort();
    for (_, path) in &memos[..memos.len() - keep] {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::checks::{Check, Outcome};

    fn evaluation() -> Evaluation {
        Evaluation {
            task_id: "T1".into(),
            budget_secs: 120,
            checks: vec![Check {
                command: "false".into(),
                outcome: Outcome::Failed {
                    how: "exited with 1".into(),
                    code: Some(1),
                },
                tail: String::new(),
            }],
        }
    }

    #[test]
    fn a_failure_is_recalled_for_its_key_only() {
        let dir = tempfile::tempdir().unwrap();
        let task = Task {
            id: "T1".into(),
            verify: vec!["false".into()],
            ..Task::default()
        };
        let t = Duration::from_secs(120);
        let key = stop_key(&task, t, "tree-a");
        assert_eq!(recall_failure(dir.path(), &key), None);
        remember_failure(dir.path(), &key, &evaluation()).unwrap();
        assert_eq!(recall_failure(dir.path(), &key), Some(evaluation()));
        assert_eq!(
            recall_failure(dir.path(), &stop_key(&task, t, "tree-b")),
            None
        );
        let mut edited = task.clone();
        edited.verify = vec!["false 2".into()];
        assert_eq!(
            recall_failure(dir.path(), &stop_key(&edited, t, "tree-a")),
            None
        );
        let longer = Duration::from_secs(300);
        assert_eq!(
            recall_failure(dir.path(), &stop_key(&task, longer, "tree-a")),
            None
        );
        forget_failure(dir.path());
        assert_eq!(recall_failure(dir.path(), &key), None);
    }

    #[test]
    fn a_planted_link_or_garbage_is_no_memo() {
        let dir = tempfile::tempdir().unwrap();
        let hooks = dir.path().join(DIR);
        std::fs::create_dir(&hooks).unwrap();
        std::fs::write(dir.path().join("elsewhere"), "{}").unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), hooks.join(STOP_FILE)).unwrap();
        assert_eq!(recall_failure(dir.path(), "k"), None);
        // Refused, as every link in the workflow dir is, and not written through.
        let err = remember_failure(dir.path(), "k", &evaluation()).unwrap_err();
        assert!(
            err.message.contains("is a symbolic link"),
            "{}",
            err.message
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("elsewhere")).unwrap(),
            "{}"
        );
        std::fs::remove_file(hooks.join(STOP_FILE)).unwrap();
        remember_failure(dir.path(), "k", &evaluation()).unwrap();
        assert_eq!(recall_failure(dir.path(), "k"), Some(evaluation()));
        std::fs::write(hooks.join(STOP_FILE), "not json").unwrap();
        assert_eq!(recall_failure(dir.path(), "k"), None);
    }

    #[test]
    fn session_markers_are_kept_per_session_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        assert_eq!(last_brief(w, "s1"), None);
        remember_brief(w, "s1", "T1\nd1").unwrap();
        remember_brief(w, "../s2", "T2\nd2").unwrap();
        assert_eq!(last_brief(w, "s1").as_deref(), Some("T1\nd1"));
        assert_eq!(last_brief(w, "../s2").as_deref(), Some("T2\nd2"));
        forget_brief(w, "s1");
        assert_eq!(last_brief(w, "s1"), None);
        for n in 0..MAX_SESSIONS + 5 {
            remember_brief(w, &format!("s{n}"), "T1\nd1").unwrap();
        }
        let kept = std::fs::read_dir(w.join(DIR).join(SESSIONS_DIR))
            .unwrap()
            .count();
        assert_eq!(kept, MAX_SESSIONS);
        // The one written last is among them.
        let last = format!("s{}", MAX_SESSIONS + 4);
        assert_eq!(last_brief(w, &last).as_deref(), Some("T1\nd1"));
    }
}
