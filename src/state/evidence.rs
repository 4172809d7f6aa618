//! What a completed task carries as proof that it is done (docs/proof.md): the
//! checks that passed, what they ran on (a fingerprint of the task's inputs), and,
//! for agent work, the claim and the change the working tree really saw.
//!
//! Only data lives here, so the state can hold it and the fold can set it; it is
//! computed and checked in `src/proof/`. The state holds it as a [`Proof`]: its JSON
//! text, read on the first look.

use std::sync::{Arc, OnceLock};

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
/// text, a proof is copied where it was built, and built once where it is read.
/// The text is compact JSON: a proof read from a pretty-printed snapshot is
/// compacted as it is read, so two equal proofs have equal text.
#[derive(Debug, Clone)]
pub struct Proof {
    text: Box<RawValue>,
    /// The text read, once; `None` inside when it is not evidence (another tool's,
    /// a hand edit), which every reader takes as no proof.
    read: OnceLock<Option<Arc<Evidence>>>,
}

impl Proof {
    pub fn of(evidence: Evidence) -> Proof {
        let text = serde_json::value::to_raw_value(&evidence)
            .expect("evidence is strings, numbers and lists: it always serializes");
        Proof {
            text,
            read: OnceLock::from(Some(Arc::new(evidence))),
        }
    }

    /// The evidence; `None` when the text is not evidence.
    pub fn read(&self) -> Option<&Evidence> {
        self.read
            .get_or_init(|| serde_json::from_str(self.text.get()).ok().map(Arc::new))
            .as_deref()
    }

    /// The JSON text, compact.
    pub fn text(&self) -> &RawValue {
        &self.text
    }
}

impl PartialEq for Proof {
    fn eq(&self, other: &Proof) -> bool {
        self.text.get() == other.text.get()
    }
}

impl Serialize for Proof {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Proof {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Proof, D::Error> {
        let text = Box::<RawValue>::deserialize(d)?;
        let text = match compacted(text.get()) {
            Some(compact) => RawValue::from_string(compact).map_err(serde::de::Error::custom)?,
            None => text,
        };
        Ok(Proof {
            text,
            read: OnceLock::new(),
        })
    }
}

/// `json` without the whitespace between its tokens, or `None` when it has none.
/// serde_json writes the same tokens compact as pretty, so this is the text the
/// compact writer gives for the same value. `json` is valid JSON (a `RawValue`'s).
fn compacted(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    // `bytes[kept..i]` is still to be copied to `out`.
    let (mut kept, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = after_string(bytes, i + 1),
            b' ' | b'\n' | b'\r' | b'\t' => {
                let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
                out.extend_from_slice(&bytes[kept..i]);
                i += 1;
                kept = i;
            }
            _ => i += 1,
        }
    }
    let mut out = out?;
    out.extend_from_slice(&bytes[kept..]);
    // Only ASCII whitespace was left out, between tokens: still UTF-8.
    Some(String::from_utf8(out).expect("whole characters were kept"))
}

/// Where a string whose text starts at `from` ends: past its closing quote, its
/// escaped characters skipped (the text between is most of a proof: a jump, not a
/// look at every byte).
fn after_string(bytes: &[u8], mut from: usize) -> usize {
    while let Some(at) = bytes
        .get(from..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        let at = from + at;
        if bytes[at] == b'"' {
            return at + 1;
        }
        from = at + 2;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            // Spaces, quotes, backslashes and line ends inside strings are kept.
            "[ \"\\\\\n\t\ra-z{}\\[\\]:,é中]{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
                prop::collection::vec(("[ a-z\"\\\\]{0,6}", inner), 0..6)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn a_pretty_value_compacts_to_the_compact_writers_text(value in json()) {
            let compact = serde_json::to_string(&value).unwrap();
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            let expected = (pretty != compact).then(|| compact.clone());
            prop_assert_eq!(compacted(&pretty), expected);
            prop_assert_eq!(compacted(&compact), None);
        }
    }

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

    #[test]
    fn a_proof_read_from_a_pretty_file_is_the_proof_written() {
        let proof = Proof::of(evidence());
        #[derive(Serialize, Deserialize)]
        struct Record {
            evidence: Proof,
        }
        let pretty = serde_json::to_string_pretty(&serde_json::json!({
            "evidence": serde_json::to_value(evidence()).unwrap()
        }))
        .unwrap();
        let read: Record = serde_json::from_str(&pretty).unwrap();
        assert_eq!(read.evidence, proof);
        assert_eq!(read.evidence.read(), Some(&evidence()));
        // Written back as the compact text, which reads the same.
        let written = serde_json::to_string(&Record { evidence: proof }).unwrap();
        assert_eq!(
            written,
            format!(
                r#"{{"evidence":{}}}"#,
                serde_json::to_string(&evidence()).unwrap()
            )
        );
    }

    #[test]
    fn a_proof_that_is_not_evidence_reads_as_none() {
        for text in ["{\"at\": 1}", "[1, 2]", "\"x\""] {
            let proof: Proof = serde_json::from_str(text).unwrap();
            assert_eq!(proof.read(), None, "{text}");
            assert_eq!(proof.text().get(), text.replace(' ', ""));
        }
    }
}
