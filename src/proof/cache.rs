//! The verification cache (docs/proof.md "The cache"): passing checks by the
//! fingerprint of the inputs they passed on. A command task whose inputs now have the
//! fingerprint of a record here is up to date: the same definition passed the same
//! checks on the same files and the same inputs upstream, so it is not run again.
//!
//! A cache is a directory of segment files (`<time>-<pid>.jsonl`, one record per
//! line). A run keeps what passed in memory and writes it as one new segment at each
//! checkpoint and at its end — one file every few seconds, never one per task, so a
//! 10,000-task run pays nothing per task for it — and a reader reads which tasks
//! the segments hold records for at its first question, and loads the records only
//! when one may be for the task it asks about. Segments are written beside their place and renamed
//! there, never edited, so runs, clones and machines can share a directory (CI
//! restores and saves it); past [`MAX_SEGMENTS`] a writer merges the ones it read
//! into one. A line that cannot be read is skipped with a warning: a miss, never an
//! answer. Nothing is synced: a record lost to a crash costs one re-run.
//!
//! A record is a claim anyone who can write the directory can make (its fingerprint
//! is computable from the plan and the files), so it answers for a task only when
//! its checks are the task's own, every one passed ([`Record::answers`]). wf reads
//! and merges only files named as it names segments, and deletes only those whose
//! every line was a record; a segment over [`MAX_SEGMENT_BYTES`] or a line over
//! [`MAX_RECORD_BYTES`] is refused without being read whole. Segments are readable by
//! whoever may read the directory (a cache a team or a CI cache shares).

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Result, WfError};
use crate::state::evidence::CheckEvidence;

/// The `kind` of every record, so a stray JSON line is told from one.
pub const RECORD_KIND: &str = "wf.verification";

/// The cache's directory inside a workflow dir, when no `--cache DIR` is given.
pub const DEFAULT_DIR: &str = "cache";

/// More segments than this are merged into one by the next writer.
pub const MAX_SEGMENTS: usize = 32;

/// The largest segment read: a merge of 32 segments of a 100,000-task run's records
/// stays far below it.
pub const MAX_SEGMENT_BYTES: u64 = 64 << 20;

/// The largest record read (a line of a segment).
pub const MAX_RECORD_BYTES: usize = 1 << 20;

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

impl Record {
    /// Whether this record answers for a task whose checks are `commands` (each as
    /// the argv it spawns): the same commands in the same order, each of which
    /// passed. A record with other checks, none, or a failing one is not a pass of
    /// this task, whatever its fingerprint says.
    pub fn answers(&self, commands: &[Vec<String>]) -> bool {
        self.checks.len() == commands.len()
            && self
                .checks
                .iter()
                .zip(commands)
                .all(|(c, argv)| c.exit_code == Some(0) && &c.argv == argv)
    }
}

/// What a reader loaded: every record by fingerprint, and the segments it read.
#[derive(Default)]
struct Loaded {
    records: HashMap<String, Record>,
    segments: Vec<Segment>,
}

/// A segment read: its path, and whether every line of it was a record (only such
/// a file is wf's to merge away).
struct Segment {
    path: PathBuf,
    clean: bool,
}

/// A cache directory, with this run's records not yet written.
pub struct Cache {
    dir: PathBuf,
    loaded: OnceCell<RefCell<Loaded>>,
    pending: RefCell<Vec<Record>>,
    /// The tasks some record on disk or put is for, as [`task_key`]s, and how many
    /// segments hold them. Read in a pass of its own that builds no record: most
    /// lookups are for a task no record is for (a first run, a resume), and then
    /// the records need not be loaded at all (loading them was a noticeable part of
    /// a first `resume --step` on a large workflow).
    tasks: OnceCell<RefCell<Tasks>>,
    /// What was found wrong in the directory, each said once ([`Cache::warnings`]).
    warnings: RefCell<std::collections::BTreeSet<String>>,
    /// The warnings already handed out.
    said: RefCell<HashSet<String>>,
}

struct Tasks {
    keys: HashSet<u64, foldhash::fast::RandomState>,
    segments: usize,
}

/// A task id, hashed: two ids that collide only cost a lookup that finds nothing.
/// foldhash, not std's SipHash: a resume hashes every id the segments hold (a
/// record per task that passed), and SipHash was most of that scan.
fn task_key(task_id: &str) -> u64 {
    foldhash::fast::FixedState::default().hash_one(task_id)
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cache({})", self.dir.display())
    }
}

impl Cache {
    pub fn new(dir: PathBuf) -> Cache {
        Cache {
            dir,
            loaded: OnceCell::new(),
            pending: RefCell::new(Vec::new()),
            tasks: OnceCell::new(),
            warnings: RefCell::default(),
            said: RefCell::default(),
        }
    }

    /// What reading the directory found wrong since the last call (a line that is
    /// not a record, a file over the size limit), each said once.
    pub fn warnings(&self) -> Vec<String> {
        let mut said = self.said.borrow_mut();
        std::mem::take(&mut *self.warnings.borrow_mut())
            .into_iter()
            .filter(|w| said.insert(w.clone()))
            .collect()
    }

    fn loaded(&self) -> &RefCell<Loaded> {
        self.loaded.get_or_init(|| {
            let mut loaded = load(&self.dir, &mut self.warnings.borrow_mut());
            for r in self.pending.borrow().iter() {
                loaded.records.insert(r.fingerprint.clone(), r.clone());
            }
            RefCell::new(loaded)
        })
    }

    fn tasks(&self) -> &RefCell<Tasks> {
        self.tasks.get_or_init(|| {
            let mut tasks = scan_tasks(&self.dir, &mut self.warnings.borrow_mut());
            let pending = self.pending.borrow();
            tasks
                .keys
                .extend(pending.iter().map(|r| task_key(&r.task_id)));
            RefCell::new(tasks)
        })
    }

    /// Whether the cache may hold a record for `task_id` (reading which tasks it
    /// holds records for, if need be).
    /// When it holds none, no fingerprint of that task's inputs is in it — a
    /// fingerprint covers the task's definition, its id included, so a record is
    /// only ever for the task it was put for — and its inputs need no hashing to ask:
    /// a run's first pass over a task reads its declared files once (for its
    /// evidence), not twice.
    pub fn may_hold(&self, task_id: &str) -> bool {
        self.tasks().borrow().keys.contains(&task_key(task_id))
    }

    /// The passing record of `fingerprint`, if the cache has one.
    pub fn get(&self, fingerprint: &str) -> Option<Record> {
        self.loaded().borrow().records.get(fingerprint).cloned()
    }

    /// Records that `task_id`'s checks passed on inputs with `fingerprint`; written
    /// with the next [`Cache::flush`].
    pub fn put(&self, fingerprint: &str, task_id: &str, checks: &[CheckEvidence]) {
        let record = Record {
            kind: RECORD_KIND.into(),
            fingerprint: fingerprint.into(),
            task_id: task_id.into(),
            checks: checks.to_vec(),
            at: crate::clock::now_rfc3339(),
            wf_version: env!("CARGO_PKG_VERSION").into(),
        };
        if let Some(loaded) = self.loaded.get() {
            loaded
                .borrow_mut()
                .records
                .insert(record.fingerprint.clone(), record.clone());
        }
        if let Some(tasks) = self.tasks.get() {
            tasks.borrow_mut().keys.insert(task_key(task_id));
        }
        self.pending.borrow_mut().push(record);
    }

    /// Writes the records put since the last flush as one new segment (and merges
    /// the segments read when there are too many). Nothing to write, nothing done.
    pub fn flush(&self) -> Result<()> {
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        if pending.is_empty() {
            return Ok(());
        }
        crate::fs::ensure_dir(&self.dir)?;
        let read = |segments: usize| segments >= MAX_SEGMENTS;
        let merge = self
            .loaded
            .get()
            .is_some_and(|l| read(l.borrow().segments.len()))
            || self.tasks.get().is_some_and(|t| read(t.borrow().segments));
        if !merge {
            return self.write_segment(pending.iter());
        }
        let mut loaded = self.loaded().borrow_mut();
        for r in pending {
            loaded.records.insert(r.fingerprint.clone(), r);
        }
        self.write_segment(loaded.records.values())?;
        // Only segments this reader read go, and only those that held nothing but
        // records: one another writer renamed in meanwhile, or a file someone else
        // named like a segment, stays.
        for old in loaded.segments.drain(..).filter(|s| s.clean) {
            let _ = std::fs::remove_file(old.path);
        }
        Ok(())
    }

    fn write_segment<'a>(&self, records: impl Iterator<Item = &'a Record>) -> Result<()> {
        let failed = |e: std::io::Error| {
            WfError::io(
                &e,
                format!(
                    "cannot write to the verification cache {}: {e}",
                    self.dir.display()
                ),
            )
        };
        let mut bytes = Vec::new();
        for r in records {
            serde_json::to_writer(&mut bytes, r).map_err(|e| failed(e.into()))?;
            bytes.push(b'\n');
        }
        let name = format!(
            "{}-{}.jsonl",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
            std::process::id()
        );
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&self.dir)
            .map_err(failed)?;
        tmp.as_file()
            .set_permissions(shared_mode(&self.dir))
            .map_err(failed)?;
        tmp.write_all(&bytes).map_err(failed)?;
        tmp.persist_noclobber(self.dir.join(name))
            .map_err(|e| failed(e.error))?;
        Ok(())
    }
}

impl Drop for Cache {
    /// What a run passed is kept even when it ends early; a cache that cannot be
    /// written was said by the flush before.
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// A segment's mode: the owner's, and read for the group and others as far as
/// they may read the directory (set on the file itself, whatever the umask).
fn shared_mode(dir: &Path) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt as _;
    let dir_mode = std::fs::metadata(dir).map_or(0, |m| m.permissions().mode());
    std::fs::Permissions::from_mode(0o600 | (dir_mode & 0o044))
}

/// The tasks the records of `dir`'s segments are for, read without building the
/// records.
fn scan_tasks(dir: &Path, warnings: &mut std::collections::BTreeSet<String>) -> Tasks {
    let mut keys = HashSet::default();
    let read = read_lines(dir, warnings, |line| {
        let id = task_of(line).ok_or_else(|| NOT_A_RECORD.to_string())?;
        keys.insert(task_key(&id));
        Ok(())
    });
    Tasks {
        keys,
        segments: read.len(),
    }
}

/// The task a record's line is for. A line as [`Cache::flush`] writes it — `kind`,
/// `fingerprint` (hex) and `task_id` (no escape) first, in that order — is read by
/// hand, up to the id; any other through serde, the rest of the line skipped. A
/// line whose rest is broken is a task that may be held and, when asked, a miss.
fn task_of(line: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    #[derive(Deserialize)]
    struct TaskOf<'a> {
        #[serde(borrow)]
        kind: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        task_id: std::borrow::Cow<'a, str>,
    }
    let as_written = || {
        let rest = line.strip_prefix(b"{\"kind\":\"")?;
        let rest = rest.strip_prefix(RECORD_KIND.as_bytes())?;
        let rest = rest.strip_prefix(b"\",\"fingerprint\":\"")?;
        let end = rest
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b':'))?;
        let rest = rest[end..].strip_prefix(b"\",\"task_id\":\"")?;
        let id = &rest[..rest.iter().position(|&b| b == b'"')?];
        let plain = id.iter().all(|&b| b != b'\\' && b >= 0x20);
        plain.then(|| std::str::from_utf8(id).ok()).flatten()
    };
    if let Some(id) = as_written() {
        return Some(std::borrow::Cow::Borrowed(id));
    }
    let r = serde_json::from_slice::<TaskOf<'_>>(line).ok()?;
    (r.kind == RECORD_KIND).then_some(r.task_id)
}

/// Every record of the segments of `dir` (none when it is missing or unreadable); a
/// line that is not one is a warning.
fn load(dir: &Path, warnings: &mut std::collections::BTreeSet<String>) -> Loaded {
    let mut records = HashMap::new();
    let segments = read_lines(dir, warnings, |line| {
        match serde_json::from_slice::<Record>(line) {
            Ok(r) if r.kind == RECORD_KIND => {
                records.insert(r.fingerprint.clone(), r);
                Ok(())
            }
            Ok(_) => Err(NOT_A_RECORD.to_string()),
            Err(e) => Err(format!("{NOT_A_RECORD} ({e})")),
        }
    });
    Loaded { records, segments }
}

/// What a line of a segment that is not a record is called.
const NOT_A_RECORD: &str = "not a verification record";

/// Gives every line of every segment of `dir` to `line` (`Err`: why it is not a
/// record), and the segments read. A file over [`MAX_SEGMENT_BYTES`] is refused
/// before it is read, a line over [`MAX_RECORD_BYTES`] skipped, and a line that is
/// not a record named: each a warning.
fn read_lines(
    dir: &Path,
    warnings: &mut std::collections::BTreeSet<String>,
    mut line: impl FnMut(&[u8]) -> Result<(), String>,
) -> Vec<Segment> {
    use std::io::Read;
    let mut read = Vec::new();
    // One buffer for every segment: a fresh one each touched every page of every
    // segment again.
    let mut bytes = Vec::new();
    for path in segments(dir) {
        bytes.clear();
        let Ok((file, _)) = crate::fs::open_regular(&path, false).map(fs_err::File::into_parts)
        else {
            continue;
        };
        let size = file.metadata().map_or(0, |m| m.len());
        if size > MAX_SEGMENT_BYTES {
            warnings.insert(format!(
                "verification cache: {} is {} MiB, over the {} MiB a segment may have; it is not read (delete it)",
                path.display(),
                size >> 20,
                MAX_SEGMENT_BYTES >> 20
            ));
            continue;
        }
        if (&file)
            .take(MAX_SEGMENT_BYTES)
            .read_to_end(&mut bytes)
            .is_err()
        {
            continue;
        }
        let mut clean = true;
        let mut start = 0;
        for (no, end) in memchr::memchr_iter(b'\n', &bytes)
            .chain([bytes.len()])
            .enumerate()
        {
            let text = &bytes[start..end];
            start = end + 1;
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let read = if text.len() > MAX_RECORD_BYTES {
                Err(format!(
                    "over the {} KiB a record may have",
                    MAX_RECORD_BYTES >> 10
                ))
            } else {
                line(text)
            };
            if let Err(why) = read {
                clean = false;
                warnings.insert(format!(
                    "verification cache: {} line {}: {why}; ignored",
                    path.display(),
                    no + 1
                ));
            }
        }
        read.push(Segment { path, clean });
    }
    read
}

/// The segment files of `dir`: not a temp file being written, not anything else.
fn segments(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(segment_name)
        })
        .collect()
}

/// A name as [`Cache::flush`] gives a segment: `<digits>-<digits>.jsonl`.
fn segment_name(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    name.strip_suffix(".jsonl")
        .and_then(|stem| stem.split_once('-'))
        .is_some_and(|(time, pid)| digits(time) && digits(pid))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FP: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn check() -> Vec<CheckEvidence> {
        vec![CheckEvidence {
            what: "check".into(),
            argv: vec!["true".into()],
            exit_code: Some(0),
            duration_ms: 1,
            log_digest: None,
        }]
    }

    #[test]
    fn a_record_reads_back_by_its_fingerprint_in_this_run_and_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("c"));
        assert_eq!(cache.get(FP), None);
        cache.put(FP, "T1", &check());
        assert_eq!(
            cache.get(FP).unwrap().task_id,
            "T1",
            "this run sees it at once"
        );
        drop(cache);
        let next = Cache::new(dir.path().join("c"));
        assert_eq!(next.get(FP).unwrap().checks, check());
        assert_eq!(next.get(&FP.replace("sha256:0", "sha256:1")), None);
    }

    #[test]
    fn a_cache_may_hold_only_the_tasks_it_has_records_for() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("c"));
        assert!(!cache.may_hold("T1"));
        cache.put(FP, "T1", &check());
        assert!(cache.may_hold("T1"), "put in this run");
        assert!(!cache.may_hold("T2") && !cache.may_hold("T10"));
        drop(cache);
        let next = Cache::new(dir.path().join("c"));
        assert!(next.may_hold("T1"), "loaded from its segment");
        assert!(!next.may_hold("T2"));
        // Loaded first, then put to.
        next.put(&FP.replace("sha256:0", "sha256:1"), "T2", &check());
        assert!(next.may_hold("T2"));
    }

    #[test]
    fn one_segment_per_flush_and_too_many_are_merged() {
        let dir = tempfile::tempdir().unwrap();
        let segments = || std::fs::read_dir(dir.path()).unwrap().count();
        for i in 0..MAX_SEGMENTS {
            let cache = Cache::new(dir.path().to_path_buf());
            for j in 0..3 {
                cache.put(&format!("sha256:{i}-{j}"), "T", &[]);
            }
            cache.flush().unwrap();
        }
        assert_eq!(segments(), MAX_SEGMENTS);
        let cache = Cache::new(dir.path().to_path_buf());
        assert!(cache.get("sha256:0-0").is_some());
        cache.put("sha256:new", "T", &[]);
        cache.flush().unwrap();
        assert_eq!(segments(), 1, "merged");
        let again = Cache::new(dir.path().to_path_buf());
        assert!(again.get("sha256:0-0").is_some() && again.get("sha256:new").is_some());
    }

    #[test]
    fn asking_which_tasks_it_may_hold_builds_no_record_and_still_merges() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..MAX_SEGMENTS {
            let cache = Cache::new(dir.path().to_path_buf());
            cache.put(&format!("sha256:{i}"), &format!("T{i}"), &check());
            cache.flush().unwrap();
        }
        let cache = Cache::new(dir.path().to_path_buf());
        assert!(cache.may_hold("T3") && !cache.may_hold("T99"));
        assert!(cache.loaded.get().is_none(), "no record built to answer");
        cache.put("sha256:new", "T99", &check());
        assert!(cache.may_hold("T99"));
        cache.flush().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "merged");
        let again = Cache::new(dir.path().to_path_buf());
        assert!(again.get("sha256:0").is_some() && again.get("sha256:new").is_some());
    }

    #[test]
    fn a_record_put_before_the_records_are_loaded_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_path_buf());
        assert!(!cache.may_hold("T1"));
        cache.put(FP, "T1", &check());
        assert!(cache.may_hold("T1"));
        assert_eq!(cache.get(FP).unwrap().task_id, "T1");
    }

    #[test]
    fn a_line_read_by_hand_gives_the_task_serde_gives() {
        let record = |task: &str| Record {
            kind: RECORD_KIND.into(),
            fingerprint: FP.into(),
            task_id: task.into(),
            checks: check(),
            at: "now".into(),
            wf_version: "0".into(),
        };
        for task in ["T1", "", "ü T\"2\\", "\u{1}x", "a\nb"] {
            let line = serde_json::to_vec(&record(task)).unwrap();
            assert_eq!(task_of(&line).as_deref(), Some(task), "{task:?}");
        }
        // Another order, spacing or kind: through serde, or none.
        let spaced = br#"{ "task_id": "T3", "kind": "wf.verification" }"#;
        assert_eq!(task_of(spaced).as_deref(), Some("T3"));
        assert_eq!(task_of(br#"{"kind":"other","task_id":"T3"}"#), None);
        assert_eq!(
            task_of(b"{\"kind\":\"wf.verification\",\"fingerprint\":\"x\""),
            None
        );
    }

    #[test]
    fn a_record_answers_only_for_the_same_passing_commands() {
        let argv = |words: &[&str]| words.iter().map(|w| (*w).to_string()).collect::<Vec<_>>();
        let record = |checks: Vec<CheckEvidence>| Record {
            kind: RECORD_KIND.into(),
            fingerprint: FP.into(),
            task_id: "T1".into(),
            checks,
            at: String::new(),
            wf_version: String::new(),
        };
        let passed = record(check());
        assert!(passed.answers(&[argv(&["true"])]));
        assert!(!passed.answers(&[argv(&["false"])]), "another command");
        assert!(
            !passed.answers(&[argv(&["true"]), argv(&["true"])]),
            "fewer"
        );
        assert!(!record(Vec::new()).answers(&[argv(&["true"])]), "none");
        let mut failed = check();
        failed[0].exit_code = Some(1);
        assert!(!record(failed).answers(&[argv(&["true"])]), "a failure");
    }

    #[test]
    fn only_files_named_as_segments_are_read() {
        for name in ["1-2.jsonl", "1772000000000000000-4242.jsonl"] {
            assert!(segment_name(name), "{name}");
        }
        for name in [
            "notes.jsonl",
            ".tmp-1-2.jsonl",
            "1-2.json",
            "-2.jsonl",
            "1-.jsonl",
            "a-1.jsonl",
        ] {
            assert!(!segment_name(name), "{name}");
        }
    }

    #[test]
    fn a_broken_line_or_a_foreign_file_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.jsonl"), format!("{{\n{{\"kind\":\"other\",\"fingerprint\":\"{FP}\",\"task_id\":\"T\",\"checks\":[],\"at\":\"\",\"wf_version\":\"\"}}\n")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
        assert_eq!(Cache::new(dir.path().to_path_buf()).get(FP), None);
    }
}
