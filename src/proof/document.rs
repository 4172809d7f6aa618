//! The portable proof (docs/proof.md "Portable proof"): the evidence of every
//! completed task as one JSON document, which `wf proof export` writes and
//! `wf proof check` checks again against a working tree without the workflow's state
//! — in a fresh clone, on a reviewer's machine, in CI.
//!
//! The check believes nothing the document says about the files: every declared
//! file is hashed again, and every task's fingerprint sealed again over the files as
//! they are now and the fingerprints just recomputed for the tasks it depends on (in
//! dependency order, so a change upstream shows downstream). What it takes from the
//! document is each task's definition digest, its declared paths and its
//! dependencies. A task whose recorded fingerprint is not the seal of its own
//! recorded parts was edited after the export: tampered.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Result, WfError};
use crate::proof::fingerprint;
use crate::state::evidence::{Evidence, Inputs};
use crate::state::model::{Task, Usage, WorkflowState};
use crate::state::TaskStatus;

/// The `kind` every proof document carries, so a stray JSON file is told from one.
pub const KIND: &str = "wf.proof";

/// A proof document, as written (with `schemaVersion` first, docs/json.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// [`KIND`].
    pub kind: String,
    /// The `wf` that exported it.
    pub wf_version: String,
    /// The plan the workflow was imported from: relative to the project when it is
    /// inside it, so the document reads the same in any clone.
    pub plan_file: Option<String>,
    /// The plan's `plan_digest` (MD5 of the imported text).
    pub plan_digest: Option<String>,
    /// When it was exported (RFC 3339).
    pub exported_at: String,
    /// Every completed task, in plan order.
    pub tasks: Vec<ProvenTask>,
    /// What the agents and executors reported the workflow's tasks used, all of them
    /// added up (completed or not); none when nothing was reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Every other task and its status, so the document does not pass for the whole
    /// plan when it is not.
    #[serde(default)]
    pub not_completed: Vec<OpenTask>,
    /// `sha256:` of the document as written without this key, its keys sorted
    /// ([`digest_of`]): an edit anywhere — a check's argv, a claim — that did not
    /// recompute it shows. A hash, not a signature: it catches an inconsistent edit,
    /// not a forger.
    pub digest: String,
    /// Set by [`Document::parse`] when the file's `digest` is not the hash of what
    /// the file holds.
    #[serde(skip)]
    pub edited: bool,
}

/// A completed task and its proof.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProvenTask {
    pub id: String,
    pub name: String,
    /// None for a task completed before wf kept evidence (`wf verify` records it).
    pub evidence: Option<Evidence>,
    /// What its attempts used, as reported (docs/guide.md "What it cost").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// A task the document proves nothing about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenTask {
    pub id: String,
    pub status: TaskStatus,
}

/// The document of `state`'s completed tasks, the plan's path made relative to
/// `project` when it is inside it.
pub fn export(
    state: &WorkflowState,
    project: &Path,
    exported_at: String,
) -> crate::error::Result<Document> {
    let plan_file = state.plan_file.as_ref().map(|p| {
        Path::new(p)
            .strip_prefix(project)
            .map_or_else(|_| p.clone(), |rel| rel.display().to_string())
    });
    let tasks = state.whole_tasks()?;
    let (done, open): (Vec<&Task>, Vec<&Task>) = tasks
        .iter()
        .partition(|t| t.status == TaskStatus::Completed);
    let mut doc = Document {
        kind: KIND.to_string(),
        wf_version: env!("CARGO_PKG_VERSION").to_string(),
        plan_file,
        plan_digest: state.plan_digest.clone(),
        exported_at,
        tasks: done
            .into_iter()
            .map(|t| ProvenTask {
                id: t.id.clone(),
                name: t.name.clone(),
                evidence: t.proof(),
                usage: t.usage,
            })
            .collect(),
        usage: tasks.iter().filter_map(|t| t.usage).reduce(Usage::plus),
        not_completed: open
            .into_iter()
            .map(|t| OpenTask {
                id: t.id.clone(),
                status: t.status,
            })
            .collect(),
        digest: String::new(),
        edited: false,
    };
    doc.digest = digest_of(&doc.file_value());
    Ok(doc)
}

/// `sha256:` of `value` without its top-level `digest`, in a canonical form (keys
/// sorted at every level, no spaces), so a document's digest covers every key of it
/// — those a later wf adds too — and not how the file is laid out.
fn digest_of(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let mut canonical = sorted(value);
    if let Value::Object(map) = &mut canonical {
        map.shift_remove("digest");
    }
    fingerprint::sha256(&serde_json::to_vec(&canonical).unwrap_or_default())
}

impl Document {
    /// The document as a file holds it: `schemaVersion` first, then its keys.
    fn file_value(&self) -> Value {
        // Strings, numbers and maps keyed by strings: nothing here fails to serialize.
        crate::output::versioned(self).unwrap_or_default()
    }

    /// The document as written to a file: pretty, with a final newline — the same
    /// document `wf proof export --json` prints.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.file_value()).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The document in `bytes`, read from `name`; a one-line error naming the file
    /// (and the line and column, when it is one place) and what to do, for anything
    /// that is not a proof document this wf reads.
    pub fn parse(bytes: &[u8], name: &str) -> Result<Document> {
        let again = "export it again with `wf proof export FILE`";
        let value: Value = serde_json::from_slice(bytes).map_err(|e| {
            WfError::usage(format!(
                "{name}:{}:{}: not JSON ({}); a proof document is what `wf proof export FILE` writes",
                e.line(),
                e.column(),
                what(&e)
            ))
        })?;
        if value.get("kind").and_then(Value::as_str) != Some(KIND) {
            return Err(WfError::usage(format!(
                "{name}: not a wf proof document (no \"kind\": \"{KIND}\"); check a file `wf proof export FILE` wrote"
            )));
        }
        let version = value.get("schemaVersion").and_then(Value::as_u64);
        if version.is_some_and(|v| v > u64::from(crate::output::JSON_SCHEMA_VERSION)) {
            return Err(WfError::usage(format!(
                "{name}: written by a newer wf (schemaVersion {}; this wf reads {}); check it with that wf, or upgrade",
                version.unwrap_or_default(),
                crate::output::JSON_SCHEMA_VERSION
            )));
        }
        let mut doc: Document = serde_json::from_slice(bytes).map_err(|e| {
            WfError::usage(format!(
                "{name}:{}:{}: not a valid wf proof document ({}); {again}",
                e.line(),
                e.column(),
                what(&e)
            ))
        })?;
        let mut seen = HashSet::new();
        for t in &doc.tasks {
            if !seen.insert(t.id.as_str()) {
                return Err(WfError::usage(format!(
                    "{name}: task {} appears twice; {again}",
                    t.id
                )));
            }
        }
        doc.edited = value.get("digest").and_then(Value::as_str) != Some(&digest_of(&value));
        Ok(doc)
    }
}

/// What serde says is wrong, without the position the message already starts with.
fn what(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let text = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(head, _)| head);
    crate::error::one_line(text)
}

/// What the check found for one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// Its fingerprint, recomputed from the tree, is the one recorded.
    Matches,
    /// Its fingerprint differs: a declared file, or a task upstream, changed.
    Changed,
    /// Its recorded fingerprint is not the hash of its recorded inputs: the document
    /// was edited after the export.
    Tampered,
    /// Completed without evidence: nothing to check.
    NoEvidence,
}

/// One task's line of the check.
#[derive(Debug, Clone, Serialize)]
pub struct TaskCheck {
    pub id: String,
    pub name: String,
    pub result: Standing,
    /// Whether it declares files; one that declares none has a fingerprint that
    /// covers only its definition and the tasks upstream.
    pub declares_files: bool,
    /// Each input that differs, as `wf verify` says it (`a.py changed`, `its
    /// dependency T1 changed`); for a tampered task, the recorded parts that differ
    /// from the tree.
    pub changed: Vec<String>,
    /// The declared files whose content differs from the recorded digest.
    pub files: Vec<String>,
    /// The dependencies whose fingerprint differs from the recorded one.
    pub deps: Vec<String>,
}

/// The whole check.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The document's `digest` is the hash of its content: nothing in it was edited
    /// after the export without recomputing it.
    pub intact: bool,
    pub tasks: Vec<TaskCheck>,
    /// The tasks that changed or were tampered with, in the document's order.
    pub mismatches: Vec<String>,
}

impl Check {
    pub fn count(&self, result: Standing) -> usize {
        self.tasks.iter().filter(|t| t.result == result).count()
    }

    /// The document is intact and every task with evidence still matches.
    pub fn ok(&self) -> bool {
        self.intact && self.mismatches.is_empty()
    }
}

/// Checks `doc` against the files in `project` as they are now.
pub fn check(doc: &Document, project: &Path) -> Check {
    let mut now: HashMap<&str, Option<String>> = HashMap::new();
    let mut lines: Vec<Option<TaskCheck>> = vec![None; doc.tasks.len()];
    let order = dependency_order(&doc.tasks);
    let shared = super::shared::Shared::of(order.iter().filter_map(|&i| {
        let files = &doc.tasks[i].evidence.as_ref()?.inputs.files;
        Some((i, files.iter().map(|f| f.path.as_str())))
    }));
    for i in order {
        let t = &doc.tasks[i];
        let Some(evidence) = &t.evidence else {
            now.insert(&t.id, None);
            lines[i] = Some(TaskCheck {
                id: t.id.clone(),
                name: t.name.clone(),
                result: Standing::NoEvidence,
                declares_files: false,
                changed: Vec::new(),
                files: Vec::new(),
                deps: Vec::new(),
            });
            continue;
        };
        let recorded = &evidence.inputs;
        let resealed = fingerprint::seal(
            recorded.definition.clone(),
            recorded.files.clone(),
            recorded.deps.clone(),
        );
        let inputs_now = fingerprint::inputs(
            project,
            &as_task(t, recorded),
            |d| {
                // A dependency the document does not prove (it was not completed)
                // cannot be recomputed: its recorded fingerprint stands.
                now.get(d).cloned().unwrap_or_else(|| {
                    recorded
                        .deps
                        .iter()
                        .find(|r| r.id == d)
                        .and_then(|r| r.fingerprint.clone())
                })
            },
            // A file a later task declares too is that task's to answer for.
            |path| {
                shared
                    .handed_on(i, path)
                    .then(|| super::recorded_digest(evidence, path))
                    .flatten()
            },
        );
        let tampered = resealed.fingerprint != recorded.fingerprint;
        // A file wf does not hash (a directory too large) tells nothing: it never
        // matches.
        let mut changed = fingerprint::changes(&resealed, &inputs_now);
        if changed.is_empty() {
            changed = fingerprint::unhashed(&inputs_now);
        }
        let result = if tampered {
            Standing::Tampered
        } else if changed.is_empty() {
            Standing::Matches
        } else {
            Standing::Changed
        };
        let line = TaskCheck {
            id: t.id.clone(),
            name: t.name.clone(),
            result,
            declares_files: recorded.declared(),
            changed,
            files: differing(
                &recorded.files,
                &inputs_now.files,
                |f| &f.path,
                |f| &f.digest,
            ),
            deps: differing(
                &recorded.deps,
                &inputs_now.deps,
                |d| &d.id,
                |d| &d.fingerprint,
            ),
        };
        now.insert(&t.id, Some(inputs_now.fingerprint));
        lines[i] = Some(line);
    }
    let tasks: Vec<TaskCheck> = lines.into_iter().flatten().collect();
    let mismatches = tasks
        .iter()
        .filter(|t| matches!(t.result, Standing::Changed | Standing::Tampered))
        .map(|t| t.id.clone())
        .collect();
    Check {
        intact: !doc.edited,
        tasks,
        mismatches,
    }
}

/// The task as far as its fingerprint goes: its definition digest, its declared
/// paths in the recorded order (as `modifies`, which [`fingerprint::declared_files`]
/// keeps in order), its dependencies.
fn as_task(t: &ProvenTask, recorded: &Inputs) -> Task {
    Task {
        id: t.id.clone(),
        digest: recorded.definition.clone(),
        modifies: recorded.files.iter().map(|f| f.path.clone()).collect(),
        deps: recorded.deps.iter().map(|d| d.id.clone()).collect(),
        ..Task::default()
    }
}

/// The keys of the `recorded` entries whose value `now` differs or which `now` lacks.
fn differing<T, K: PartialEq + ToString + ?Sized, V: PartialEq + ?Sized>(
    recorded: &[T],
    now: &[T],
    key: impl Fn(&T) -> &K,
    value: impl Fn(&T) -> &V,
) -> Vec<String> {
    recorded
        .iter()
        .filter(|r| {
            now.iter()
                .find(|n| key(n) == key(r))
                .is_none_or(|n| value(n) != value(r))
        })
        .map(|r| key(r).to_string())
        .collect()
}

/// The document's tasks, each after those of its recorded dependencies the document
/// holds (document order among equals); tasks on a cycle, which only an edited
/// document has, come last in document order.
fn dependency_order(tasks: &[ProvenTask]) -> Vec<usize> {
    super::order_by_id(
        tasks,
        |t| t.id.as_str(),
        |t| {
            t.evidence
                .iter()
                .flat_map(|e| e.inputs.deps.iter().map(|d| d.id.as_str()))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::evidence::CheckEvidence;
    use crate::state::task_ref::TaskRef;

    /// A completed task declaring `files`, depending on `deps`, its evidence as the
    /// engine records it in `project`, upstream fingerprints from `state`.
    fn complete(
        state: &mut WorkflowState,
        project: &Path,
        id: &str,
        files: &[&str],
        deps: &[&str],
    ) {
        let mut task = Task {
            id: id.into(),
            name: format!("task {id}"),
            digest: format!("def-{id}"),
            status: TaskStatus::Completed,
            modifies: files.iter().map(|f| (*f).to_string()).collect(),
            deps: deps.iter().map(|d| (*d).to_string()).collect(),
            ..Task::default()
        };
        task.evidence = Some(crate::state::evidence::Proof::of(Evidence {
            at: "2026-01-08T10:00:00Z".into(),
            inputs: crate::proof::inputs_now(project, state, &task).unwrap(),
            checks: vec![CheckEvidence {
                what: "check".into(),
                argv: vec!["true".into()],
                exit_code: Some(0),
                duration_ms: 3,
                log_digest: None,
            }],
            executor: Some("wf".into()),
            ..Evidence::default()
        }));
        state.tasks.push(TaskRef::new(task));
    }

    /// T1 ← T2 ← T3, each declaring its own file, plus T4 completed without
    /// evidence and T5 pending.
    fn three(project: &Path) -> WorkflowState {
        for f in ["a.txt", "b.txt", "c.txt"] {
            std::fs::write(project.join(f), f).unwrap();
        }
        let mut state = WorkflowState::new();
        state.plan_file = Some(project.join("tasks.md").display().to_string());
        state.plan_digest = Some("abc".into());
        complete(&mut state, project, "T1", &["a.txt"], &[]);
        complete(&mut state, project, "T2", &["b.txt"], &["T1"]);
        complete(&mut state, project, "T3", &["c.txt"], &["T2"]);
        state.tasks.push(TaskRef::new(Task {
            id: "T4".into(),
            status: TaskStatus::Completed,
            ..Task::default()
        }));
        state.tasks.push(TaskRef::new(Task {
            id: "T5".into(),
            status: TaskStatus::Pending,
            ..Task::default()
        }));
        state
    }

    fn results(check: &Check) -> Vec<(&str, Standing)> {
        check
            .tasks
            .iter()
            .map(|t| (t.id.as_str(), t.result))
            .collect()
    }

    #[test]
    fn a_document_reads_back_as_written_and_matches_an_unchanged_tree() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let doc = export(&three(p), p, "2026-01-08T11:00:00Z".into()).unwrap();
        assert_eq!(doc.plan_file.as_deref(), Some("tasks.md"));
        assert_eq!(
            doc.tasks.len(),
            4,
            "every completed task, with or without evidence"
        );
        assert!(doc.tasks[3].evidence.is_none());
        assert_eq!(doc.not_completed[0].id, "T5");
        let text = doc.to_json();
        assert!(
            text.starts_with("{\n  \"schemaVersion\": 2,\n  \"kind\": \"wf.proof\""),
            "{text}"
        );
        let back = Document::parse(text.as_bytes(), "p.json").unwrap();
        assert_eq!(back, doc);
        let check = check(&back, p);
        assert!(check.ok(), "{check:?}");
        assert_eq!(
            results(&check),
            [
                ("T1", Standing::Matches),
                ("T2", Standing::Matches),
                ("T3", Standing::Matches),
                ("T4", Standing::NoEvidence),
            ]
        );
    }

    #[test]
    fn a_changed_file_names_its_task_and_every_task_downstream() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let doc = export(&three(p), p, String::new()).unwrap();
        std::fs::write(p.join("b.txt"), "edited").unwrap();
        let check = check(&doc, p);
        assert_eq!(check.mismatches, ["T2", "T3"]);
        assert_eq!(check.tasks[0].result, Standing::Matches);
        let t2 = &check.tasks[1];
        assert_eq!(
            (t2.result, t2.changed.clone(), t2.files.clone()),
            (
                Standing::Changed,
                vec!["b.txt changed".to_string()],
                vec!["b.txt".to_string()]
            )
        );
        let t3 = &check.tasks[2];
        assert_eq!(t3.changed, ["its dependency T2 changed"]);
        assert_eq!(
            (t3.files.len(), t3.deps.clone()),
            (0, vec!["T2".to_string()])
        );

        std::fs::remove_file(p.join("a.txt")).unwrap();
        let check = super::check(&doc, p);
        assert_eq!(check.mismatches, ["T1", "T2", "T3"]);
        assert_eq!(check.tasks[0].changed, ["a.txt is gone"]);
    }

    #[test]
    fn dependencies_are_checked_first_whatever_the_document_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let mut doc = export(&three(p), p, String::new()).unwrap();
        doc.tasks.reverse();
        std::fs::write(p.join("a.txt"), "edited").unwrap();
        let check = check(&doc, p);
        // In the document's order, each downstream task found T1's change.
        assert_eq!(check.mismatches, ["T3", "T2", "T1"]);
    }

    #[test]
    fn an_edited_digest_or_fingerprint_is_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let doc = export(&three(p), p, String::new()).unwrap();

        // The digest of b.txt edited to what the file now holds, the fingerprint
        // left: the parts no longer hash to it.
        std::fs::write(p.join("b.txt"), "edited").unwrap();
        let mut edited = doc.clone();
        let inputs = &mut edited.tasks[1].evidence.as_mut().unwrap().inputs;
        inputs.files[0].digest = Some(fingerprint::sha256(b"edited"));
        let check = check(&edited, p);
        assert_eq!(check.tasks[1].result, Standing::Tampered);
        assert_eq!(check.mismatches, ["T2", "T3"]);

        // A digest edited while the file is unchanged: tampered, and only there.
        std::fs::write(p.join("b.txt"), "b.txt").unwrap();
        let check = super::check(&edited, p);
        assert_eq!(check.mismatches, ["T2"]);
        assert_eq!(check.tasks[1].changed, ["b.txt changed"]);

        let mut edited = doc.clone();
        edited.tasks[0]
            .evidence
            .as_mut()
            .unwrap()
            .inputs
            .fingerprint = fingerprint::sha256(b"anything");
        let check = super::check(&edited, p);
        assert_eq!(check.tasks[0].result, Standing::Tampered);

        // Outside the fingerprint (a check's argv): the document's digest shows it,
        // and only that: a file laid out anew, its keys reordered, is the same.
        let text = doc.to_json();
        let read = |text: &str| Document::parse(text.as_bytes(), "p.json").unwrap();
        assert!(super::check(&read(&text), p).intact);
        let mut value: Value = serde_json::from_str(&text).unwrap();
        let tasks = value
            .as_object_mut()
            .unwrap()
            .shift_remove("tasks")
            .unwrap();
        value["tasks"] = tasks;
        assert!(super::check(&read(&value.to_string()), p).intact);
        value["tasks"][2]["evidence"]["checks"][0]["argv"] = serde_json::json!(["pytest"]);
        let check = super::check(&read(&value.to_string()), p);
        assert!(
            !check.intact && !check.ok() && check.mismatches.is_empty(),
            "{check:?}"
        );
    }

    #[test]
    fn what_is_not_a_proof_document_is_refused_in_one_line_naming_the_file() {
        let err = |text: &str| {
            Document::parse(text.as_bytes(), "p.json")
                .unwrap_err()
                .message
        };
        assert!(err("{ torn") == "p.json:1:3: not JSON (key must be a string); a proof document is what `wf proof export FILE` writes", "{}", err("{ torn"));
        assert!(err("{\"kind\": \"other\"}").starts_with("p.json: not a wf proof document"));
        let e = err("{\"kind\": \"wf.proof\", \"tasks\": 3}");
        assert!(
            e.starts_with("p.json:1:") && e.contains("not a valid wf proof document"),
            "{e}"
        );
        let e = err("{\"kind\": \"wf.proof\", \"schemaVersion\": 99}");
        assert!(e.contains("newer wf"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let mut doc = export(&three(dir.path()), dir.path(), String::new()).unwrap();
        doc.tasks.push(doc.tasks[0].clone());
        let e = err(&doc.to_json());
        assert_eq!(
            e,
            "p.json: task T1 appears twice; export it again with `wf proof export FILE`"
        );
        for e in [err("{ torn"), e] {
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
