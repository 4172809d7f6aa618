//! What a completed task carries as proof that it is done (docs/proof.md): the
//! checks that passed, what they ran on (a fingerprint of the task's inputs), and,
//! for agent work, the claim and the change the working tree really saw.
//!
//! Only data lives here, so the state can hold it and the fold can set it; it is
//! computed and checked in `src/proof/`. The state holds it as a [`Proof`]: its JSON
//! text, read on the first look.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A completed task's evidence, recorded when it completed (or was verified again).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// When the checks passed (RFC 3339).
    pub at: String,
    pub inputs: Inputs,
    /// Each command that checked the task, in the order it ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckEvidence>,
    /// The executor that did the work (`wf` for a command task).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<String>,
    /// What the agent said it did, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<ClaimEvidence>,
    /// The files the working tree saw change while an agent had the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
    /// Answered from the verification cache: the same inputs passed these checks
    /// before (docs/proof.md "The cache"); nothing ran.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// Where the checks ran when that was a CI job (`wf import-results`,
    /// docs/distributed.md): the CI, its run, its job and the commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<Runner>,
    /// The checks derived from the task's line, for a task with no command of its
    /// own, and what each found (docs/proof.md "Derived checks").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived: Vec<DerivedCheck>,
}

/// The CI job a result of `wf run-task` came from, from the job's environment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runner {
    /// `github-actions` or `gitlab-ci`.
    pub ci: String,
    #[serde(default)]
    pub run_id: Option<String>,
    /// The job's id in the pipeline (`GITHUB_JOB`, `CI_JOB_NAME`).
    #[serde(default)]
    pub job: Option<String>,
    #[serde(default)]
    pub commit: Option<String>,
}

/// A check derived from a task's line, and what it found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DerivedCheck {
    pub kind: DerivedKind,
    /// What it is about: a path, a command, a phase.
    pub subject: String,
    pub result: DerivedResult,
    /// What it saw, in words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// The command it ran, when it ran one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<CheckEvidence>,
}

/// What a derived check asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DerivedKind {
    /// The file exists and is not empty: the line creates it, or it was not there.
    Created,
    /// The file differs from the tree the agent started from.
    Changed,
    /// Some file differs from that tree.
    SomethingChanged,
    /// The test file the task writes, run with the project's runner.
    Test,
    /// A `wf.checks` command for the files it matched.
    Command,
    /// The phase's end: the project's tests, none that passed at its start failing,
    /// and the tests its tasks wrote green.
    Checkpoint,
}

/// What a derived check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DerivedResult {
    Passed,
    Failed,
    /// A test that fails before its story's implementation, as test-first asks.
    Red,
    /// It passed, with something to say (a test that passed before its
    /// implementation).
    Warning,
    /// It could not run here (no git, no test runner): it proves nothing either way.
    CannotRun,
}

impl DerivedCheck {
    /// Whether it proves something about the work: it ran and did not fail.
    pub fn checked(&self) -> bool {
        matches!(
            self.result,
            DerivedResult::Passed | DerivedResult::Red | DerivedResult::Warning
        )
    }
}

/// What the checks ran on. Two equal `fingerprint`s mean the same task definition,
/// the same content of every declared file, and the same inputs upstream.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// `sha256:` over everything below (`src/proof/fingerprint.rs`).
    pub fingerprint: String,
    /// The task's definition as imported (`Task::digest`): every field, every check.
    pub definition: String,
    /// Every file the task declares, with its content's digest then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileDigest>,
    /// The fingerprint of each task it depends on, so a change upstream shows here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<DepDigest>,
}

impl Inputs {
    /// Whether the fingerprint can tell the task's inputs changed: only when it
    /// declares files. A task that declares none may read anything, so it is never
    /// up to date and never answered from the cache.
    pub fn declared(&self) -> bool {
        !self.files.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    /// As the plan names it, relative to the project.
    pub path: String,
    /// `sha256:` of its content (of a directory: of its files' paths and digests);
    /// none when it is not there, or not a file or directory wf reads.
    pub digest: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepDigest {
    pub id: String,
    /// None when the dependency has no evidence (skipped, or completed before wf
    /// recorded evidence).
    pub fingerprint: Option<String>,
}

/// One command that checked the task.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckEvidence {
    /// What it was for: `check`, `run_tests`, a builtin verifier's name, `git_commit`.
    pub what: String,
    /// What was spawned: the words of a plain line, else `/bin/sh -c LINE`.
    pub argv: Vec<String>,
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    /// `sha256:` of what it printed; none when it printed nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_digest: Option<String>,
}

/// An agent's claim, as it made it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimEvidence {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_files: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
}

/// What changed in the working tree between the hand-off (or dispatch) and the
/// completion, from git (`src/proof/tree.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// Every file that differs, sorted.
    pub files: Vec<String>,
    /// Those of them the task does not declare.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undeclared: Vec<String>,
}

/// A completed task's evidence as the state holds it: its JSON text, read into an
/// [`Evidence`] only when something looks at it ([`Proof::read`]).
///
/// Most of a completed task's record is its proof, and most readers never look at
/// it: a `--step` after a crash spent two fifths of its snapshot parse building
/// proofs, and a checkpoint a third of its serializing writing them again. Held as
/// text, a proof read from a file is built only where it is read, and one built
/// here is written as the text it was serialized to once. The one part a run reads
/// of every proof, its fingerprint (a dependant's inputs carry it), is kept beside.
#[derive(Debug, Clone)]
pub struct Proof {
    text: Box<RawValue>,
    /// `inputs.fingerprint`, once read; `None` inside when the text is not evidence.
    fingerprint: OnceLock<Option<Box<str>>>,
    /// The text is this build's serialization of the evidence ([`Proof::of`]), so it
    /// can be written as it is. Text read from a file may hold what this build does
    /// not know (fields, nesting, another spelling): it is written as read.
    built: bool,
}

impl Proof {
    pub fn of(evidence: Evidence) -> Proof {
        let text = serde_json::value::to_raw_value(&evidence)
            .expect("evidence is strings, numbers and lists: it always serializes");
        Proof {
            text,
            fingerprint: OnceLock::from(Some(evidence.inputs.fingerprint.into_boxed_str())),
            built: true,
        }
    }

    /// The evidence, read from the text each time (only reports and `wf verify` look
    /// at a whole proof); `None` when the text is not evidence.
    pub fn read(&self) -> Option<Evidence> {
        serde_json::from_str(self.text.get()).ok()
    }

    /// The fingerprint of the inputs it passed on; `None` when the text is not
    /// evidence.
    pub fn fingerprint(&self) -> Option<&str> {
        self.fingerprint
            .get_or_init(|| self.read().map(|e| e.inputs.fingerprint.into_boxed_str()))
            .as_deref()
    }
}

impl PartialEq for Proof {
    fn eq(&self, other: &Proof) -> bool {
        self.text.get() == other.text.get() || self.read().is_some_and(|e| Some(e) == other.read())
    }
}

/// The text as it is when this build wrote it; else the evidence as read, `null`
/// when it is none: what a snapshot or a `--json` output holds is always evidence
/// this build reads, never text it does not.
impl Serialize for Proof {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.built {
            self.text.serialize(s)
        } else {
            self.read().serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for Proof {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Proof, D::Error> {
        Ok(Proof {
            text: Box::<RawValue>::deserialize(d)?,
            fingerprint: OnceLock::new(),
            built: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence() -> Evidence {
        Evidence {
            at: "2026-11-27T10:00:00Z".into(),
            inputs: Inputs {
                fingerprint: "sha256:00".into(),
                definition: "d e".into(),
                files: vec![FileDigest {
                    path: "src/a b.rs".into(),
                    digest: None,
                }],
                deps: Vec::new(),
            },
            checks: vec![CheckEvidence {
                what: "check".into(),
                argv: vec!["sh".into(), "-c".into(), "echo \"a  b\"".into()],
                exit_code: Some(0),
                duration_ms: 3,
                log_digest: None,
            }],
            ..Evidence::default()
        }
    }

    #[derive(Serialize, Deserialize)]
    struct Record {
        evidence: Proof,
    }

    #[test]
    fn a_proof_read_from_a_pretty_file_is_the_proof_written() {
        let pretty =
            serde_json::to_string_pretty(&serde_json::json!({ "evidence": evidence() })).unwrap();
        let read: Record = serde_json::from_str(&pretty).unwrap();
        assert_eq!(read.evidence, Proof::of(evidence()));
        assert_eq!(read.evidence.read(), Some(evidence()));
        assert_eq!(read.evidence.fingerprint(), Some("sha256:00"));
        // Built here, a proof is written as the text it was serialized to.
        let written = serde_json::to_string(&Record {
            evidence: Proof::of(evidence()),
        })
        .unwrap();
        let compact = serde_json::to_string(&evidence()).unwrap();
        assert_eq!(written, format!(r#"{{"evidence":{compact}}}"#));
        // Read, it is written as this build reads it: what it does not know is left out.
        let extra = compact.replacen('{', r#"{"later":[[1]],"#, 1);
        let read: Record = serde_json::from_str(&format!(r#"{{"evidence":{extra}}}"#)).unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), written);
    }

    #[test]
    fn a_proof_that_is_not_evidence_reads_and_is_written_as_none() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for text in ["{\"at\": 1}", "[1, 2]", "\"x\"", &deep] {
            let read: Record = serde_json::from_str(&format!(r#"{{"evidence":{text}}}"#)).unwrap();
            assert_eq!(read.evidence.read(), None, "{text}");
            assert_eq!(read.evidence.fingerprint(), None, "{text}");
            assert_eq!(
                serde_json::to_string(&read).unwrap(),
                r#"{"evidence":null}"#
            );
            assert_eq!(
                serde_json::to_value(&read).unwrap()["evidence"],
                serde_json::Value::Null
            );
            assert_ne!(read.evidence, Proof::of(evidence()));
        }
    }
}
