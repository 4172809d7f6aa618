//! What a completed task carries as proof that it is done (docs/proof.md): the
//! checks that passed, what they ran on (a fingerprint of the task's inputs), and,
//! for agent work, the claim and the change the working tree really saw.
//!
//! Only data lives here, so the state can hold it and the fold can set it; it is
//! computed and checked in `src/proof/`.

use serde::{Deserialize, Serialize};

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
