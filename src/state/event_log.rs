//! The append-only event log `events.jsonl`: one JSON object per line.
//!
//! It is two things at once: the event stream UIs and CI read (`wf events`), and the
//! journal that makes progress durable between snapshots of `workflow-state.json`.
//! Each event is written with one `write` on an `O_APPEND` file — or, while a run's
//! scheduler holds them ([`EventLog::hold`]), the events of one of its turns together
//! in one `write` — so a killed process leaves at most a torn final line, which
//! readers skip. `fsync` is batched (at most
//! [`SYNC_INTERVAL`] apart, and at every snapshot), which bounds what a power loss —
//! not a crash — can take back.
//!
//! Events of a transaction (`"txn": true`: an import, a constraint change, an
//! archive) are appended before the snapshot that commits them; readers never fold
//! them, and [`cut_uncommitted`] removes them if that snapshot never came.

use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Role;
use crate::error::{ErrorKind, Result, WfError};
use crate::state::event::EventKind;
use crate::state::evidence::{Evidence, Proof};

pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);

/// An event as the log holds it.
///
/// A completion's proof is written as `data.evidence` but held typed, beside `data`:
/// the writer serializes it straight from the [`Evidence`] it built and the fold
/// takes it as it is, where going through a `Value` each way was a tenth of a run's
/// work per task. On reading, `data.evidence` moves to [`Event::evidence`] when it is
/// one; anything else of that name stays in `data`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "wire::EventIn")]
pub struct Event {
    pub seq: u64,
    pub ts: String,
    /// The kind's name ([`EventKind::name`]); a line's own spelling when read.
    /// Borrowed, as `role` and the usual `actor`, where this writer makes the event:
    /// three copies fewer an event, four events a task.
    pub kind: Cow<'static, str>,
    pub task_id: Option<String>,
    pub executor: Option<String>,
    /// Who acted, shown as `{loop}.{role}` (docs/events.md "Envelope"), e.g. `wf.orchestrator`.
    pub actor: Cow<'static, str>,
    pub role: Cow<'static, str>,
    pub data: Value,
    /// `data.evidence`, when it is evidence.
    pub evidence: Option<Proof>,
    /// Part of a transaction that the next snapshot commits: never folded by
    /// readers (see `fold`), cut off the log if that snapshot never comes.
    pub txn: bool,
}

impl Event {
    /// `data` with the proof as its last field, as this writer would write it (a proof
    /// read from another writer's line keeps only the fields [`Evidence`] knows).
    pub fn data_as_written(&self) -> Value {
        let Some(evidence) = &self.evidence else {
            return self.data.clone();
        };
        let mut data = match &self.data {
            Value::Object(fields) => fields.clone(),
            _ => serde_json::Map::new(),
        };
        data.insert("evidence".into(), serde_json::json!(evidence));
        Value::Object(data)
    }
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        wire::EventOut {
            seq: self.seq,
            ts: &self.ts,
            kind: &self.kind,
            task_id: self.task_id.as_deref(),
            executor: self.executor.as_deref(),
            actor: &self.actor,
            role: &self.role,
            data: wire::DataOut {
                data: &self.data,
                evidence: self.evidence.as_ref(),
            },
            txn: self.txn,
        }
        .serialize(s)
    }
}

/// [`Event`] as a line spells it: `evidence` inside `data`.
mod wire {
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Serialize};
    use serde_json::Value;

    use super::{Event, Proof};

    #[derive(Serialize)]
    pub(super) struct EventOut<'a> {
        pub seq: u64,
        pub ts: &'a str,
        #[serde(rename = "type")]
        pub kind: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub task_id: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub executor: Option<&'a str>,
        pub actor: &'a str,
        pub role: &'a str,
        pub data: DataOut<'a>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        pub txn: bool,
    }

    /// `data` with the evidence as its last field.
    pub(super) struct DataOut<'a> {
        pub data: &'a Value,
        pub evidence: Option<&'a Proof>,
    }

    impl Serialize for DataOut<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let Some(evidence) = self.evidence else {
                return self.data.serialize(s);
            };
            // Only an object's evidence is ever taken out of it (`EventIn`), and
            // events are built with object data.
            debug_assert!(
                self.data.is_null()
                    || self
                        .data
                        .as_object()
                        .is_some_and(|d| !d.contains_key("evidence")),
                "a proof beside data that is not an object, or that has one of its own"
            );
            let fields = self.data.as_object();
            let mut map = s.serialize_map(Some(fields.map_or(0, serde_json::Map::len) + 1))?;
            for (key, value) in fields.into_iter().flatten() {
                map.serialize_entry(key, value)?;
            }
            map.serialize_entry("evidence", evidence)?;
            map.end()
        }
    }

    #[derive(Deserialize)]
    pub(super) struct EventIn {
        seq: u64,
        ts: String,
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        task_id: Option<String>,
        #[serde(default)]
        executor: Option<String>,
        actor: String,
        role: String,
        #[serde(default)]
        data: Value,
        #[serde(default)]
        txn: bool,
    }

    impl From<EventIn> for Event {
        fn from(e: EventIn) -> Event {
            let mut data = e.data;
            let evidence = take_evidence(&mut data);
            Event {
                seq: e.seq,
                ts: e.ts,
                kind: e.kind.into(),
                task_id: e.task_id,
                executor: e.executor,
                actor: e.actor.into(),
                role: e.role.into(),
                data,
                evidence,
                txn: e.txn,
            }
        }
    }

    /// `data.evidence`, taken out of `data`, when it reads as evidence.
    fn take_evidence(data: &mut Value) -> Option<Proof> {
        let fields = data.as_object_mut()?;
        // Read in place: a copy of the value first was a third of the fold's work on
        // a completion.
        let proof = super::proof_in(fields.get("evidence")?)?;
        fields.shift_remove("evidence");
        Some(proof)
    }
}

/// An event line read in place: its place (`seq`), kind, task and `txn`, for scans
/// that build only what they keep (the uncommitted-transaction cut; the read paths'
/// tail, `state::task_index`; the whole load's fold, [`read_for_fold`]). Every field
/// of an [`Event`] is read, of its type and at most once — strings borrowed where
/// they can be — so a line parses as this exactly when it parses as an event. `data`
/// is built (without its evidence, or with it as a proof for the fold) only when the
/// scan asks for the event's kind, and skipped over otherwise.
#[derive(Debug)]
pub struct EventHead<'a> {
    pub seq: u64,
    ts: Cow<'a, str>,
    pub kind: Cow<'a, str>,
    pub task_id: Option<Cow<'a, str>>,
    executor: Option<Cow<'a, str>>,
    actor: Cow<'a, str>,
    role: Cow<'a, str>,
    data: HeadData,
    pub txn: bool,
}

/// What a scan made of an event's `data`.
#[derive(Debug)]
enum HeadData {
    Absent,
    Skipped,
    /// Without its evidence; with its proof when the scan keeps proofs and the
    /// evidence reads as one (else the evidence stays in the data, as for [`Event`]).
    Built(serde_json::Map<String, Value>, Option<Proof>),
    /// Not an object: a fold would have to see it whole.
    NotObject,
}

impl<'a> EventHead<'a> {
    /// Reads `line`, building `data` when `wants_data` says so of the event's kind.
    /// Our writer puts `type` before `data`; a line with `data` first has it built
    /// whatever its kind.
    pub fn parse(line: &'a [u8], wants_data: fn(&str) -> bool) -> serde_json::Result<Self> {
        match Self::parse_as_written(line, wants_data) {
            Some(head) => Ok(head),
            None => Self::parse_in_full(line, wants_data),
        }
    }

    fn parse_in_full(line: &'a [u8], wants_data: fn(&str) -> bool) -> serde_json::Result<Self> {
        let mut de = serde_json::Deserializer::from_slice(line);
        let head = serde::Deserializer::deserialize_map(&mut de, HeadVisitor { wants_data })?;
        de.end()?;
        Ok(head)
    }

    /// Reads a line exactly as our writer makes it — the fields of [`Event`] in their
    /// order, no space, strings of printable ASCII without escapes, `data` an object —
    /// without serde's per-field work (half a crash read's instructions went to the
    /// envelope). `None` for any other line, which the full parse then reads: this is
    /// a shortcut for one form, never a second grammar.
    fn parse_as_written(line: &'a [u8], wants_data: fn(&str) -> bool) -> Option<Self> {
        Self::read_as_written::<false>(line, wants_data)
    }

    /// [`EventHead::parse_as_written`] that keeps a built event's proof, for the
    /// writer's fold (`Store::load`), where a completion's evidence was a Value built,
    /// read as evidence and serialized again: most of a crash read's fold. `None` for
    /// any line not as written, or with anything unusual in its evidence (a second
    /// one): the whole parse then reads it.
    pub fn parse_with_proof(line: &'a [u8], wants_data: fn(&str) -> bool) -> Option<Self> {
        Self::read_as_written::<true>(line, wants_data)
    }

    fn read_as_written<const PROOF: bool>(
        line: &'a [u8],
        wants_data: fn(&str) -> bool,
    ) -> Option<Self> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let mut rest = line.strip_prefix(b"{\"seq\":")?;
        let seq = take_u64(&mut rest)?;
        let ts = field(&mut rest, b",\"ts\":")?;
        let kind = field(&mut rest, b",\"type\":")?;
        let task_id = field(&mut rest, b",\"task_id\":");
        let executor = field(&mut rest, b",\"executor\":");
        let actor = field(&mut rest, b",\"actor\":")?;
        let role = field(&mut rest, b",\"role\":")?;
        rest = rest.strip_prefix(b",\"data\":")?;
        // `data` is read by a deserializer of its own, one level shallower than in the
        // whole line: so that serde_json's nesting limit (128) bites where it does for
        // the full parse, anything that could nest that deep is left to it.
        // (`[` and `{` differ only in 0x20: one compare a byte, which vectorizes.)
        let openers: usize = rest.iter().map(|&b| usize::from(b | 0x20 == b'{')).sum();
        if rest.first() != Some(&b'{') || openers > 64 {
            return None;
        }
        let (data, used) = if wants_data(kind) {
            let mut values =
                serde_json::Deserializer::from_slice(rest).into_iter::<DataOrNot<PROOF>>();
            (values.next()?.ok()?.0, values.byte_offset())
        } else {
            let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<Checked>();
            values.next()?.ok()?;
            (HeadData::Skipped, values.byte_offset())
        };
        rest = &rest[used..];
        let txn = match rest {
            b"}" => false,
            b",\"txn\":true}" => true,
            _ => return None,
        };
        Some(EventHead {
            seq,
            ts: Cow::Borrowed(ts),
            kind: Cow::Borrowed(kind),
            task_id: task_id.map(Cow::Borrowed),
            executor: executor.map(Cow::Borrowed),
            actor: Cow::Borrowed(actor),
            role: Cow::Borrowed(role),
            data,
            txn,
        })
    }

    /// The event as folds take it, its data without `evidence` (its proof beside it
    /// when the scan kept it); `None` when its data was skipped or is not an object (a
    /// fold of it must load it whole).
    pub fn into_event(self) -> Option<Event> {
        let (data, evidence) = match self.data {
            HeadData::Absent => (Value::Null, None),
            HeadData::Built(data, proof) => (Value::Object(data), proof),
            HeadData::Skipped | HeadData::NotObject => return None,
        };
        Some(Event {
            seq: self.seq,
            ts: self.ts.into_owned(),
            kind: self.kind.into_owned().into(),
            task_id: self.task_id.map(Cow::into_owned),
            executor: self.executor.map(Cow::into_owned),
            actor: self.actor.into_owned().into(),
            role: self.role.into_owned().into(),
            data,
            evidence,
            txn: self.txn,
        })
    }
}

/// `"key":"value"` at the start of `rest`, taken off it, when the value is printable
/// ASCII with no quote or backslash: a string JSON reads as itself.
fn field<'a>(rest: &mut &'a [u8], key: &[u8]) -> Option<&'a str> {
    let after = rest.strip_prefix(key)?.strip_prefix(b"\"")?;
    // One pass: up to the closing quote, every byte printable and no backslash.
    let len = after
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || !(b' '..=b'~').contains(&b))?;
    if after[len] != b'"' {
        return None;
    }
    let value = &after[..len];
    *rest = &after[len + 1..];
    text_of(value)
}

/// A JSON integer of digits alone at the start of `rest`, taken off it, when it is one
/// serde_json reads as this `u64`: no leading zero, no overflow. The hand readers of our
/// own files (event lines, the task index) leave anything else to serde.
pub(crate) fn take_u64(rest: &mut &[u8]) -> Option<u64> {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let (number, after) = rest.split_at(digits);
    let value = number.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })?;
    *rest = after;
    Some(value)
}

/// `bytes` as text if they are UTF-8, ASCII found so without `from_utf8`, whose
/// set-up dominates on the short strings of an event or an index entry (a tenth of a
/// crash read's instructions went to it).
pub(crate) fn text_of(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII is UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}

struct HeadVisitor {
    wants_data: fn(&str) -> bool,
}

impl<'de> serde::de::Visitor<'de> for HeadVisitor {
    type Value = EventHead<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an event")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<EventHead<'de>, A::Error> {
        use serde::de::Error;
        fn once<T>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), &'static str> {
            match slot.replace(value) {
                Some(_) => Err(name),
                None => Ok(()),
            }
        }
        let (mut seq, mut ts, mut kind, mut task_id, mut executor) = (None, None, None, None, None);
        let (mut actor, mut role, mut data, mut txn) = (None, None, None, None);
        while let Some(Borrowed(key)) = map.next_key::<Borrowed>()? {
            let field = match key.as_ref() {
                "seq" => once(&mut seq, map.next_value::<u64>()?, "seq"),
                "ts" => once(&mut ts, map.next_value::<Borrowed>()?.0, "ts"),
                "type" => once(&mut kind, map.next_value::<Borrowed>()?.0, "type"),
                "task_id" => once(
                    &mut task_id,
                    map.next_value::<Option<Borrowed>>()?.map(|b| b.0),
                    "task_id",
                ),
                "executor" => once(
                    &mut executor,
                    map.next_value::<Option<Borrowed>>()?.map(|b| b.0),
                    "executor",
                ),
                "actor" => once(&mut actor, map.next_value::<Borrowed>()?.0, "actor"),
                "role" => once(&mut role, map.next_value::<Borrowed>()?.0, "role"),
                "txn" => once(&mut txn, map.next_value::<bool>()?, "txn"),
                "data" => {
                    let wanted = kind.as_deref().is_none_or(self.wants_data);
                    let value = if wanted {
                        map.next_value::<DataOrNot<false>>()?.0
                    } else {
                        map.next_value::<Checked>()?;
                        HeadData::Skipped
                    };
                    once(&mut data, value, "data")
                }
                // Skipped as the derive skips a field it does not know.
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    Ok(())
                }
            };
            if let Err(name) = field {
                return Err(A::Error::duplicate_field(name));
            }
        }
        Ok(EventHead {
            seq: seq.ok_or_else(|| A::Error::missing_field("seq"))?,
            ts: ts.ok_or_else(|| A::Error::missing_field("ts"))?,
            kind: kind.ok_or_else(|| A::Error::missing_field("type"))?,
            task_id: task_id.flatten(),
            executor: executor.flatten(),
            actor: actor.ok_or_else(|| A::Error::missing_field("actor"))?,
            role: role.ok_or_else(|| A::Error::missing_field("role"))?,
            data: data.unwrap_or(HeadData::Absent),
            txn: txn.unwrap_or(false),
        })
    }
}

/// A string borrowed from the line when it holds no escape, else copied.
struct Borrowed<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Borrowed<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Str;
        impl<'de> serde::de::Visitor<'de> for Str {
            type Value = Borrowed<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> std::result::Result<Self::Value, E> {
                Ok(Borrowed(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> std::result::Result<Self::Value, E> {
                Ok(Borrowed(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(Str)
    }
}

/// `data` built without its evidence when it is an object (its proof kept when
/// `PROOF`), noted when it is not.
struct DataOrNot<const PROOF: bool>(HeadData);

impl<'de, const PROOF: bool> Deserialize<'de> for DataOrNot<PROOF> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Data<const PROOF: bool>;
        impl<'de, const PROOF: bool> serde::de::Visitor<'de> for Data<PROOF> {
            type Value = DataOrNot<PROOF>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an event's data")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<DataOrNot<PROOF>, A::Error> {
                Ok(DataOrNot(without_evidence::<PROOF, A>(map)?))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<DataOrNot<PROOF>, A::Error> {
                while seq.next_element::<Checked>()?.is_some() {}
                Ok(DataOrNot(HeadData::NotObject))
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<DataOrNot<PROOF>, E> {
                Ok(DataOrNot(HeadData::NotObject))
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<DataOrNot<PROOF>, E> {
                Ok(DataOrNot(HeadData::NotObject))
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<DataOrNot<PROOF>, E> {
                Ok(DataOrNot(HeadData::NotObject))
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<DataOrNot<PROOF>, E> {
                Ok(DataOrNot(HeadData::NotObject))
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<DataOrNot<PROOF>, E> {
                Ok(DataOrNot(HeadData::NotObject))
            }
            fn visit_unit<E>(self) -> std::result::Result<DataOrNot<PROOF>, E> {
                Ok(DataOrNot(HeadData::NotObject))
            }
        }
        d.deserialize_any(Data::<PROOF>)
    }
}

/// A JSON value checked as `Value` checks it — strings as UTF-8 without lone
/// surrogates, numbers in range, nesting within serde_json's limit — and not built.
/// `IgnoredAny` skips without those checks, and a line the whole load refuses (it reads
/// `data`, proof included, as a `Value`) must not be folded by a scan.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Any;
        impl<'de> serde::de::Visitor<'de> for Any {
            type Value = Checked;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_unit<E>(self) -> std::result::Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Checked, A::Error> {
                while seq.next_element::<Checked>()?.is_some() {}
                Ok(Checked)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Checked, A::Error> {
                while map.next_key::<Checked>()?.is_some() {
                    map.next_value::<Checked>()?;
                }
                Ok(Checked)
            }
        }
        d.deserialize_any(Any)
    }
}

/// An event's data object without its `evidence`: a completion's proof is most of a
/// run's log, and the read paths that fold a tail onto the task index
/// (`state::task_index`) show none. With `PROOF`, the evidence read as [`Event`]'s
/// is — checked as a `Value` would be, then taken as a proof when it reads as one,
/// else left in the data — without building it as a `Value` first. That reads its
/// text apart from the line, so only where nesting cannot reach serde_json's limit
/// (`EventHead::read_as_written`); a second `evidence` is an error, for the whole
/// parse to read.
fn without_evidence<'de, const PROOF: bool, A: serde::de::MapAccess<'de>>(
    mut map: A,
) -> std::result::Result<HeadData, A::Error> {
    use serde::de::Error;
    let mut data = serde_json::Map::new();
    let mut proof = None;
    while let Some(key) = map.next_key::<String>()? {
        if key != "evidence" {
            data.insert(key, map.next_value()?);
        } else if !PROOF {
            map.next_value::<Checked>()?;
        } else if proof.is_some() || data.contains_key("evidence") {
            return Err(A::Error::custom("a second evidence"));
        } else {
            let text = map.next_value::<&serde_json::value::RawValue>()?.get();
            serde_json::from_str::<Checked>(text).map_err(A::Error::custom)?;
            if let Ok(evidence) = serde_json::from_str::<Evidence>(text) {
                proof = Some(Proof::of(evidence));
                continue;
            }
            // As `take_evidence` reads it (a `Value` first: a repeated field there is
            // the last one, where reading the text refuses it).
            let value: Value = serde_json::from_str(text).map_err(A::Error::custom)?;
            proof = proof_in(&value);
            if proof.is_none() {
                data.insert(key, value);
            }
        }
    }
    Ok(HeadData::Built(data, proof))
}

/// The proof an event's `data.evidence` holds, when it reads as evidence.
fn proof_in(evidence: &Value) -> Option<Proof> {
    Evidence::deserialize(evidence).ok().map(Proof::of)
}

/// An event before the log gives it a sequence number and a time.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub kind: EventKind,
    pub task_id: Option<String>,
    pub executor: Option<String>,
    pub role: &'static str,
    pub data: Value,
    /// A completion's proof, written as `data.evidence` ([`Event::evidence`]).
    pub evidence: Option<Proof>,
    pub txn: bool,
}

impl NewEvent {
    pub fn new(kind: EventKind, data: Value) -> Self {
        NewEvent {
            kind,
            task_id: None,
            executor: None,
            role: "orchestrator",
            data,
            evidence: None,
            txn: false,
        }
    }

    #[must_use]
    pub fn evidence(mut self, evidence: Evidence) -> Self {
        self.evidence = Some(Proof::of(evidence));
        self
    }

    #[must_use]
    pub fn task(mut self, id: &str) -> Self {
        self.task_id = Some(id.to_string());
        self
    }

    #[must_use]
    pub fn executor(mut self, name: &str, role: Role) -> Self {
        self.executor = Some(name.to_string());
        self.role = role.as_str();
        self
    }
}

/// The writer's end of the log. Only the holder of the state lock has one.
pub struct EventLog {
    path: PathBuf,
    file: fs_err::File,
    next_seq: u64,
    offset: u64,
    last_sync: Instant,
    dirty: bool,
    /// Lines appended while writes are held ([`EventLog::hold`]), not written yet;
    /// `None` when every append is written at once.
    held: Option<Vec<u8>>,
}

impl EventLog {
    /// Opens the log for appending; `seq`/`offset` come from reading its tail.
    /// `after_seq` is the snapshot's mark: numbering never goes back below it, even
    /// when the log file was moved away and started afresh, so readers (which fold
    /// only events past the mark) never skip a new event.
    pub fn open(path: &Path, after_seq: u64) -> Result<EventLog> {
        let mut file = crate::fs::durable::open_append(path)?;
        let len = file.metadata()?.len();
        let (last_seq, end) = last_complete_event(&mut file, len)?;
        if end < len {
            // A torn final line from a crash: cut it so the next event starts clean.
            file.set_len(end)?;
        }
        Ok(EventLog {
            path: path.to_path_buf(),
            file,
            next_seq: last_seq.max(after_seq) + 1,
            offset: end,
            last_sync: Instant::now(),
            dirty: false,
            held: None,
        })
    }

    /// From now on, appended events stay in memory until [`EventLog::write_held`] (or
    /// a `sync`) writes them all in one `write`: a run's scheduler appends a task's
    /// outcome and the next task's start, four events, with one system call. The
    /// holder writes them before anything outside this process can act on them —
    /// before a command starts, before it waits — so the log still has every
    /// transition before its consequence.
    pub fn hold(&mut self) {
        self.held.get_or_insert_with(Vec::new);
    }

    /// Writes the held events, if any. When the write fails they are gone from the
    /// log (the part written is cut) though their sequence numbers are used: the
    /// caller gives up, and its session settles from the files.
    pub fn write_held(&mut self) -> Result<()> {
        let Some(mut lines) = self.held.take_if(|held| !held.is_empty()) else {
            return Ok(());
        };
        let written = self.write(&lines);
        // The buffer is kept for the next turn's events: grown afresh from empty, it
        // was reallocated several times a turn.
        lines.clear();
        self.held = Some(lines);
        written
    }

    /// Writes the held events and appends each one at once again.
    pub fn release(&mut self) -> Result<()> {
        let written = self.write_held();
        self.held = None;
        written
    }

    pub fn append(&mut self, new: NewEvent) -> Result<Event> {
        let event = Event {
            seq: self.next_seq,
            ts: crate::clock::now_rfc3339(),
            kind: new.kind.name().into(),
            task_id: new.task_id,
            actor: match (new.executor.as_deref(), new.role) {
                (None, "orchestrator") => "wf.orchestrator".into(),
                (name, role) => format!("{}.{role}", name.unwrap_or("wf")).into(),
            },
            executor: new.executor,
            role: new.role.into(),
            data: new.data,
            evidence: new.evidence,
            txn: new.txn,
        };
        let encode = |line: &mut Vec<u8>| {
            crate::state::event_line::write(line, &event)
                .map_err(|e| WfError::usage(format!("cannot encode an event: {e}")))?;
            line.push(b'\n');
            Ok::<(), WfError>(())
        };
        if let Some(held) = self.held.as_mut() {
            // Encoded where it is held: a line that cannot be encoded leaves nothing.
            let start = held.len();
            if let Err(e) = encode(held) {
                held.truncate(start);
                return Err(e);
            }
        } else {
            // Most events' lines are shorter: one allocation, not a growth at each
            // doubling.
            let mut line = Vec::with_capacity(512);
            encode(&mut line)?;
            self.write(&line)?;
        }
        self.next_seq += 1;
        Ok(event)
    }

    /// Appends whole lines with one `write`.
    fn write(&mut self, lines: &[u8]) -> Result<()> {
        if let Err(e) = crate::fs::durable::write_all(self.file.file_mut(), lines) {
            // Part of the lines may be on disk: cut it, so the next event does not
            // follow a torn one (which would make the log unreadable from there).
            let _ = self.file.set_len(self.offset);
            return Err(WfError::io(
                &e,
                format!("cannot append to {}: {e}", self.path.display()),
            ));
        }
        self.offset += lines.len() as u64;
        self.dirty = true;
        if self.last_sync.elapsed() >= SYNC_INTERVAL {
            self.sync()?;
        }
        Ok(())
    }

    /// Writes the held events and syncs the file's data.
    pub fn sync(&mut self) -> Result<()> {
        self.write_held()?;
        if self.dirty {
            crate::fs::durable::sync_data(self.file.file()).map_err(|e| {
                WfError::io(&e, format!("cannot sync {}: {e}", self.path.display()))
            })?;
            self.dirty = false;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    /// Sequence number of the last event appended, and the offset just past the last
    /// one written. Asked only when none is held (a `sync` or `write_held` comes
    /// first), so the two describe the same event — except after a failed write,
    /// whose events' numbers are used though the lines are not in the file: a seq
    /// past the snapshot's then sends the session to settle from the files.
    pub fn mark(&self) -> (u64, u64) {
        debug_assert!(
            self.held.as_ref().is_none_or(Vec::is_empty),
            "a log mark asked while events are held"
        );
        (self.next_seq - 1, self.offset)
    }
}

/// Cuts off the log the events of a transaction that never committed: the run of
/// `txn` events at its end past the snapshot's mark (`mark_seq`, `mark_offset`). Only
/// the holder of the writer's lock calls it, before opening the log for appending.
/// Returns how many events were cut.
pub fn cut_uncommitted(path: &Path, mark_seq: u64, mark_offset: u64) -> Result<usize> {
    let mut file = crate::fs::durable::open_append(path)?;
    let len = file.metadata()?.len();
    let start = if mark_offset > len { 0 } else { mark_offset };
    let read_from = |at: u64| -> Result<Vec<u8>> {
        file.seek(SeekFrom::Start(at))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    let Some((from, n)) = uncommitted_run_from_end(read_from, start, len, mark_seq, 64 * 1024)?
    else {
        return Ok(0);
    };
    file.set_len(from)?;
    crate::fs::durable::sync_data(file.file())
        .map_err(|e| WfError::io(&e, format!("cannot sync {}: {e}", path.display())))?;
    Ok(n)
}

/// [`uncommitted_run`] of the log's bytes `start..len`, read a window at a time from
/// the end (`read_from(at)` gives the bytes `at..len`), each window `window` bytes or
/// four times the last: only the run at the end can be cut, and the lines before it
/// (a crash's whole tail, megabytes) need not be read.
fn uncommitted_run_from_end(
    mut read_from: impl FnMut(u64) -> Result<Vec<u8>>,
    start: u64,
    len: u64,
    mark_seq: u64,
    mut window: u64,
) -> Result<Option<(u64, usize)>> {
    loop {
        let at = len.saturating_sub(window).max(start);
        let bytes = read_from(at)?;
        // A window that starts inside a line leaves that line to a wider one.
        let skip = if at > start {
            bytes
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |nl| nl + 1)
        } else {
            0
        };
        let (run, ended) = uncommitted_run(&bytes[skip..], at + skip as u64, mark_seq);
        if ended || at == start {
            return Ok(run);
        }
        window = window.saturating_mul(4);
    }
}

/// Where the run of `txn` events past `mark_seq` that ends `tail` (the log from byte
/// `start`) begins, and how many events it holds; blank lines in it and a torn last
/// line go with it. Read from the end: only that run can be cut, and the lines before
/// it need not be parsed. Also whether a line before the run ended it (else the run
/// may go on before `tail`).
fn uncommitted_run(tail: &[u8], start: u64, mark_seq: u64) -> (Option<(u64, usize)>, bool) {
    let mut cut: Option<(u64, usize)> = None;
    let mut at = start + tail.len() as u64;
    for line in tail.split_inclusive(|&b| b == b'\n').rev() {
        let line_start = at - line.len() as u64;
        at = line_start;
        if !line.ends_with(b"\n") {
            continue; // a torn final line goes with whatever precedes it
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match EventHead::parse(line, |_| false) {
            Ok(ev) if ev.txn && ev.seq > mark_seq => {
                let n = cut.map_or(0, |(_, n)| n);
                cut = Some((line_start, n + 1));
            }
            _ => return (cut, true),
        }
    }
    (cut, false)
}

/// The `seq` of the log's last complete line, and the offset just past it; `(0, 0)`
/// for a missing or empty log. For a reader that shows the state and then follows the
/// log from there.
pub fn last_seq(path: &Path) -> Result<(u64, u64)> {
    let mut file = match crate::fs::open_regular(path, false) {
        Ok(f) => f,
        Err(e) if e.kind == ErrorKind::Usage && !path.exists() => return Ok((0, 0)),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    last_complete_event(&mut file, len)
}

/// Finds the last complete line's `seq` and the offset just past it.
fn last_complete_event(file: &mut fs_err::File, len: u64) -> Result<(u64, u64)> {
    if len == 0 {
        return Ok((0, 0));
    }
    let mut window: u64 = 4096;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::with_capacity((len - start) as usize);
        file.read_to_end(&mut buf)?;
        let Some(last_nl) = buf.iter().rposition(|&b| b == b'\n') else {
            if start == 0 {
                return Ok((0, 0));
            }
            window *= 4;
            continue;
        };
        let end = start + last_nl as u64 + 1;
        let line_start = buf[..last_nl]
            .iter()
            .rposition(|&b| b == b'\n')
            .map(|p| p + 1);
        match line_start {
            Some(ls) => return Ok((seq_of(&buf[ls..last_nl]), end)),
            None if start == 0 => return Ok((seq_of(&buf[..last_nl]), end)),
            None => window *= 4,
        }
    }
}

/// The `seq` of one line of the log; 0 for a line that is not an event.
pub fn seq_of(line: &[u8]) -> u64 {
    #[derive(Deserialize)]
    struct Seq {
        seq: u64,
    }
    serde_json::from_slice::<Seq>(line).map_or(0, |s| s.seq)
}

/// Calls `apply` with each event from byte `offset` on, in order, one line in memory
/// at a time (after a crash the tail can hold a second or more of progress:
/// thousands of events). A torn or unreadable final line is skipped; an unreadable
/// line before the end is an error naming its line.
pub fn for_each_from(
    path: &Path,
    offset: u64,
    apply: impl FnMut(Event) -> Result<()>,
) -> Result<()> {
    for_each_parsed_from(path, offset, |_, line| serde_json::from_slice(line), apply)
}

/// [`for_each_from`] with the parse of a line up to the caller: `parse` says what the
/// line at a byte offset is (an error if it is not an event), `apply` takes what it
/// made of it. For a reader that looks at most lines only in place and builds a few
/// of them.
pub fn for_each_parsed_from<T>(
    path: &Path,
    offset: u64,
    parse: impl FnMut(u64, &[u8]) -> serde_json::Result<T>,
    apply: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    for_each_parsed_in(path, offset, None, parse, apply)
}

/// [`for_each_parsed_from`] up to byte `end` (the start of a line), when given: a
/// part of the log, whose last line is not the log's, so it is never taken for torn.
pub fn for_each_parsed_in<T>(
    path: &Path,
    offset: u64,
    end: Option<u64>,
    parse: impl FnMut(u64, &[u8]) -> serde_json::Result<T>,
    apply: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    let mut file = match crate::fs::open_regular(path, false) {
        Ok(f) => f,
        Err(e) if e.kind == ErrorKind::Usage && !path.exists() => return Ok(()),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    // Shorter than the snapshot's mark: the log was moved away and started afresh.
    // Read it whole; the caller's seq filter skips what the snapshot already has.
    let offset = if offset > len { 0 } else { offset };
    if offset == len {
        return Ok(());
    }
    file.seek(SeekFrom::Start(offset))?;
    let reader = std::io::BufReader::with_capacity(64 * 1024, file);
    match end {
        None => for_each_line(path, offset, reader, true, parse, apply),
        Some(end) => {
            let part = std::io::Read::take(reader, end.saturating_sub(offset));
            for_each_line(path, offset, part, false, parse, apply)
        }
    }
}

/// Where the first line that starts at or after byte `at` of the log starts, if one
/// does before its end.
pub fn line_start_from(path: &Path, at: u64) -> Option<u64> {
    let file = crate::fs::open_regular(path, false).ok()?.into_parts().0;
    let len = file.metadata().ok()?.len();
    let window = crate::fs::read_span(&file, at.saturating_sub(1), len.min(at + 64 * 1024))?;
    let nl = window.iter().position(|&b| b == b'\n')?;
    let start = at.saturating_sub(1) + nl as u64 + 1;
    (start < len).then_some(start)
}

/// The complete lines of the log after byte `offset`, for a reader that follows it
/// (`wf events --follow`, `wf ui`'s stream): the lines, the offset just past them, and
/// whether the log was read from its start again because it shrank (it was replaced,
/// e.g. by `wf archive`). A torn final line (a writer killed mid-append, or one still
/// writing) is left for the next read. A missing log is empty.
pub fn complete_lines(path: &Path, offset: u64) -> Result<(Vec<u8>, u64, bool)> {
    let mut file = match crate::fs::open_regular(path, false) {
        Ok(f) => f,
        Err(e) if e.kind == ErrorKind::Usage && !path.exists() => {
            return Ok((Vec::new(), 0, offset > 0))
        }
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let restarted = len < offset;
    let start = if restarted { 0 } else { offset };
    file.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::new();
    file.take(len - start).read_to_end(&mut buf)?;
    let end = buf.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    buf.truncate(end);
    Ok((buf, start + end as u64, restarted))
}

/// A line as the whole load's fold (`Store::load`) reads it: its `seq`, and the
/// event, unless it is one that changes nothing (`EventKind::named_changes_state`:
/// half a run's events), which is only checked in place. A line as our writer makes
/// it is built without serde's generic `Value` for its envelope and proof; any other
/// is parsed whole. Either way a line is accepted exactly when it reads as an
/// [`Event`], and built as one.
pub fn read_for_fold(line: &[u8]) -> serde_json::Result<(u64, Option<Event>)> {
    match EventHead::parse_with_proof(line, EventKind::named_changes_state) {
        Some(head) => Ok((head.seq, head.into_event())),
        None => serde_json::from_slice::<Event>(line).map(|event| (event.seq, Some(event))),
    }
}

/// `reader` starts at byte `start` of the log, and reads to its end when `ends_log`.
fn for_each_line<T>(
    path: &Path,
    start: u64,
    mut reader: impl std::io::BufRead,
    ends_log: bool,
    mut parse: impl FnMut(u64, &[u8]) -> serde_json::Result<T>,
    mut apply: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    let read_error =
        |e: std::io::Error| WfError::io(&e, format!("cannot read {}: {e}", path.display()));
    let mut line = Vec::new();
    let mut n = 0;
    let mut at = start;
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(read_error)?;
        if read == 0 {
            return Ok(());
        }
        let line_start = at;
        at += read as u64;
        n += 1;
        let complete = line.ends_with(b"\n");
        let is_last = ends_log && (!complete || reader.fill_buf().map_err(read_error)?.is_empty());
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse(line_start, body) {
            Ok(ev) if complete => apply(ev)?,
            Ok(_) => {}
            Err(_) if is_last => {}
            Err(e) => {
                return Err(WfError::new(
                    ErrorKind::CorruptState,
                    format!(
                        "{}: event {n} after the snapshot is not valid JSON ({}); move the file away to continue",
                        path.display(),
                        crate::error::one_line(&e.to_string())
                    ),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_lines(buf: &[u8]) -> Result<Vec<Event>> {
        let mut events = Vec::new();
        for_each_line(
            Path::new("e"),
            0,
            buf,
            true,
            |_, line| serde_json::from_slice(line),
            |e| {
                events.push(e);
                Ok(())
            },
        )?;
        Ok(events)
    }

    const EVENT: &str = r#"{"seq":1,"ts":"t","type":"a","actor":"wf.o","role":"o","data":{}}"#;
    const PROOF: &str = r#"{"at":"t","inputs":{"fingerprint":"f","definition":"d"},"checks":[{"what":"check","argv":["true"],"exit_code":0,"duration_ms":0}]}"#;

    /// A field of an event line, in any of the forms the log could hold (ours, a
    /// hand edit, another tool's).
    fn field() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let value = prop_oneof![
            Just("1".to_string()),
            Just("-1".to_string()),
            Just("1.5".to_string()),
            Just("null".to_string()),
            Just("true".to_string()),
            Just(r#""x""#.to_string()),
            Just(r#""a\"b""#.to_string()),
            Just(r#""task.status_changed""#.to_string()),
            Just(r#""note.added""#.to_string()),
            Just("[1,{}]".to_string()),
            Just(r#"{"to":"completed","evidence":{"at":"t"}}"#.to_string()),
            Just(r#"{"evidence":[1],"x":{"y":null}}"#.to_string()),
            Just("{}".to_string()),
            // Evidence that reads as a proof, and what a proof read from text must
            // treat as the whole load does: a field twice (the `Value` keeps the
            // last), an unknown field it must still check, evidence twice.
            Just(format!(r#"{{"to":"completed","evidence":{PROOF}}}"#)),
            Just(format!(
                r#"{{"to":"completed","evidence":{}}}"#,
                PROOF.replacen('{', r#"{"at":"u","#, 1)
            )),
            Just(format!(
                r#"{{"to":"completed","evidence":{}}}"#,
                PROOF.replacen('{', r#"{"x":"\ud800","#, 1)
            )),
            Just(format!(
                r#"{{"evidence":1,"to":"completed","evidence":{PROOF}}}"#
            )),
            Just(format!(
                r#"{{"evidence":{PROOF},"to":"completed","evidence":2}}"#
            )),
            // What a skip must refuse as the whole load does: a lone surrogate, a
            // number out of range, nesting past serde_json's limit (and just within it).
            Just(r#""\ud800""#.to_string()),
            Just("1e400".to_string()),
            Just(r#"{"evidence":"\ud800","to":"completed"}"#.to_string()),
            Just(r#"{"x":1e400,"to":"completed"}"#.to_string()),
            (120usize..130).prop_map(|n| format!(
                r#"{{"evidence":{}1{}}}"#,
                "[".repeat(n),
                "]".repeat(n)
            )),
            (120usize..130).prop_map(|n| format!("{}1{}", "[".repeat(n), "]".repeat(n))),
        ];
        let key = prop_oneof![
            Just("seq"),
            Just("ts"),
            Just("type"),
            Just("task_id"),
            Just("executor"),
            Just("actor"),
            Just("role"),
            Just("data"),
            Just("txn"),
            Just("kind"),
            Just("other"),
        ];
        (key, value).prop_map(|(k, v)| format!("\"{k}\":{v}"))
    }

    /// The data of an event line: a few of the fields a completion carries, in any
    /// order, and what the whole parse must refuse or read its own way.
    fn data_object() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let twice = PROOF.replacen('{', r#"{"at":"u","#, 1);
        let unchecked = PROOF.replacen('{', r#"{"x":"\ud800","#, 1);
        let part = prop_oneof![
            Just(r#""to":"completed""#.to_string()),
            Just(r#""from":"in_progress""#.to_string()),
            Just(format!(r#""evidence":{PROOF}"#)),
            Just(format!(r#""evidence":{twice}"#)),
            Just(format!(r#""evidence":{unchecked}"#)),
            Just(r#""evidence":{"at":1}"#.to_string()),
            Just(r#""evidence":[1]"#.to_string()),
            Just(r#""x":"\ud800""#.to_string()),
            Just(r#""x":1e400"#.to_string()),
            Just(r#""x":{"y":[null,true,"a\"b"]}"#.to_string()),
            (50usize..70).prop_map(|n| format!(r#""x":{}1{}"#, "[".repeat(n), "]".repeat(n))),
        ];
        proptest::collection::vec(part, 0..5).prop_map(|parts| format!("{{{}}}", parts.join(",")))
    }

    proptest::proptest! {
        /// Lines as our writer makes them, of any kind and data: the whole load's fold
        /// accepts exactly the lines the whole parse does, and builds the same events.
        #[test]
        fn a_line_as_written_folds_as_the_whole_parse_reads_it(
            kind in proptest::sample::select(vec![
                "task.status_changed", "workflow.status_changed", "task.execution_started", "note.added",
            ]),
            data in data_object(),
            txn in proptest::bool::ANY,
        ) {
            let txn = if txn { r#","txn":true"# } else { "" };
            let line = format!(
                r#"{{"seq":4,"ts":"t","type":"{kind}","task_id":"T1","actor":"wf.o","role":"o","data":{data}{txn}}}"#
            );
            let whole = serde_json::from_slice::<Event>(line.as_bytes());
            let folded = read_for_fold(line.as_bytes());
            proptest::prop_assert_eq!(folded.is_ok(), whole.is_ok(), "{}", line);
            if let (Ok((seq, built)), Ok(whole)) = (folded, whole) {
                proptest::prop_assert_eq!(seq, 4);
                match built {
                    Some(built) => proptest::prop_assert_eq!(built, whole, "{}", line),
                    None => proptest::prop_assert!(!EventKind::named_changes_state(kind), "{}", line),
                }
            }
        }

        /// The scans that read lines in place take a line for an event exactly when
        /// the whole load does, and build it as the whole load does, but for the proof.
        #[test]
        fn a_line_is_an_event_head_exactly_when_it_is_an_event(
            edits in proptest::collection::vec((0..9usize, field()), 0..6),
            reversed in proptest::bool::ANY,
        ) {
            // A whole event with some fields replaced and some added; reversed, its
            // data comes before its type.
            let mut fields: Vec<String> = [r#""seq":3"#, r#""ts":"t""#, r#""type":"task.status_changed""#,
                r#""actor":"wf.o""#, r#""role":"o""#]
                .map(String::from)
                .to_vec();
            fields.push(format!(r#""data":{{"to":"completed","evidence":{PROOF}}}"#));
            for (i, field) in edits {
                match fields.get_mut(i) {
                    Some(f) => *f = field,
                    None => fields.push(field),
                }
            }
            if reversed {
                fields.reverse();
            }
            let line = format!("{{{}}}", fields.join(","));
            let event = serde_json::from_slice::<Event>(line.as_bytes());
            // The whole load's fold: the same lines, the same events, proof and all;
            // only one that changes nothing may be left unbuilt.
            let folded = read_for_fold(line.as_bytes());
            proptest::prop_assert_eq!(folded.is_ok(), event.is_ok(), "{}", line);
            if let (Ok((seq, built)), Ok(event)) = (&folded, &event) {
                proptest::prop_assert_eq!(*seq, event.seq);
                match built {
                    Some(built) => proptest::prop_assert_eq!(built, event, "{}", line),
                    None => proptest::prop_assert!(!EventKind::named_changes_state(&event.kind), "{}", line),
                }
            }
            for wants in [(|_: &str| true) as fn(&str) -> bool, |_| false] {
                let head = EventHead::parse(line.as_bytes(), wants);
                proptest::prop_assert_eq!(head.is_ok(), event.is_ok(), "{}", line);
                if let (Ok(head), Ok(event)) = (head, &event) {
                    proptest::prop_assert_eq!(head.seq, event.seq);
                    proptest::prop_assert_eq!(head.txn, event.txn);
                    let built = head.into_event();
                    if let Some(built) = built {
                        // A scan builds data without any `evidence`, proof or not.
                        let mut want = event.clone();
                        want.evidence = None;
                        if let Value::Object(data) = &mut want.data {
                            data.remove("evidence");
                        }
                        proptest::prop_assert_eq!(built, want, "{}", line);
                    } else {
                        // Only data skipped (not wanted) or not an object is left unbuilt.
                        proptest::prop_assert!(
                            !wants("") || !event.data.is_object(),
                            "{}", line
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_proof_is_written_inside_data_and_read_back_typed() {
        let mut event: Event = serde_json::from_str(EVENT).unwrap();
        event.data = serde_json::json!({"from": "in_progress", "to": "completed"});
        event.evidence = Some(Proof::of(Evidence {
            at: "t".into(),
            cached: true,
            ..Evidence::default()
        }));
        let line = serde_json::to_string(&event).unwrap();
        assert!(
            line.contains(r#""data":{"from":"in_progress","to":"completed","evidence":{"at":"t","#),
            "{line}"
        );
        let back: Event = serde_json::from_str(&line).unwrap();
        assert_eq!(back, event);
        // An `evidence` that is no proof (another tool's, a review's flag) stays data.
        for other in ["true", r#"{"at":1}"#, "[1]"] {
            let line = line.replacen(
                r#""evidence":{"at":"t","#,
                &format!(r#""evidence":{other},"x":{{"#),
                1,
            );
            let back: Event = serde_json::from_str(&line).unwrap();
            assert_eq!(back.evidence, None, "{line}");
            assert_eq!(
                back.data["evidence"],
                serde_json::from_str::<Value>(other).unwrap()
            );
        }
    }

    #[test]
    fn the_fold_reads_a_proof_from_a_line_as_the_whole_load_does() {
        let line = |data: String| {
            format!(
                r#"{{"seq":4,"ts":"t","type":"task.status_changed","task_id":"T1","actor":"wf.o","role":"o","data":{data}}}"#
            )
        };
        let twice = PROOF.replacen('{', r#"{"at":"u","#, 1);
        let unchecked = PROOF.replacen('{', r#"{"x":"\ud800","#, 1);
        let cases = [
            (
                line(format!(r#"{{"to":"completed","evidence":{PROOF}}}"#)),
                Some(true),
            ),
            // A field twice: the `Value` the whole load builds keeps the last.
            (
                line(format!(r#"{{"to":"completed","evidence":{twice}}}"#)),
                Some(true),
            ),
            // Not a proof: left in the data.
            (
                line(r#"{"to":"completed","evidence":{"at":1}}"#.into()),
                Some(false),
            ),
            // Refused as a `Value` refuses it, though a proof's fields skip it.
            (
                line(format!(r#"{{"to":"completed","evidence":{unchecked}}}"#)),
                None,
            ),
            (
                line(format!(
                    r#"{{"evidence":[],"to":"completed","evidence":{PROOF}}}"#
                )),
                Some(true),
            ),
            (
                line(format!(
                    r#"{{"evidence":{PROOF},"to":"completed","evidence":[]}}"#
                )),
                Some(false),
            ),
        ];
        for (line, proof) in cases {
            let whole = serde_json::from_str::<Event>(&line);
            let folded = read_for_fold(line.as_bytes());
            let Some(proof) = proof else {
                assert!(whole.is_err() && folded.is_err(), "{line}");
                continue;
            };
            let whole = whole.unwrap();
            assert_eq!(whole.evidence.is_some(), proof, "{line}");
            assert_eq!(folded.unwrap(), (4, Some(whole)), "{line}");
        }
        // Lines as our writer makes them take the shortcut, proof or not; one with a
        // second `evidence` is left to the whole parse.
        let shortcut = |data: String| {
            EventHead::parse_with_proof(line(data).as_bytes(), EventKind::named_changes_state)
                .is_some()
        };
        assert!(shortcut(format!(
            r#"{{"to":"completed","evidence":{PROOF}}}"#
        )));
        assert!(shortcut(format!(
            r#"{{"to":"completed","evidence":{twice}}}"#
        )));
        assert!(shortcut(r#"{"to":"completed","evidence":{"at":1}}"#.into()));
        assert!(!shortcut(format!(r#"{{"evidence":1,"evidence":{PROOF}}}"#)));
        // One that changes nothing is checked, not built.
        let started = line("{}".into()).replace("task.status_changed", "task.execution_started");
        assert_eq!(read_for_fold(started.as_bytes()).unwrap(), (4, None));
        let bad = started.replace("{}", r#"{"x":"\ud800"}"#);
        assert!(read_for_fold(bad.as_bytes()).is_err());
    }

    #[test]
    fn lines_as_our_writer_makes_them_take_the_shortcut_and_read_the_same() {
        let mut event: Event = serde_json::from_str(EVENT).unwrap();
        let mut lines = Vec::new();
        for (task, executor, txn) in [(None, None, false), (Some("T1"), Some("claude"), true)] {
            event.task_id = task.map(String::from);
            event.executor = executor.map(String::from);
            event.txn = txn;
            event.data = serde_json::json!({"to": "completed", "evidence": {"at": "t"}, "n": [1]});
            lines.push(serde_json::to_vec(&event).unwrap());
        }
        for line in &lines {
            for wants in [(|_: &str| true) as fn(&str) -> bool, |_| false] {
                let quick = EventHead::parse_as_written(line, wants).expect("the shortcut");
                let full = EventHead::parse_in_full(line, wants).unwrap();
                assert_eq!(format!("{quick:?}"), format!("{full:?}"));
            }
        }
        // Anything else is left to the full parse.
        for other in [
            r#"{"seq":1, "ts":"t","type":"a","actor":"wf.o","role":"o","data":{}}"#,
            r#"{"seq":01,"ts":"t","type":"a","actor":"wf.o","role":"o","data":{}}"#,
            r#"{"seq":1,"ts":"t\u0041","type":"a","actor":"wf.o","role":"o","data":{}}"#,
            r#"{"seq":1,"ts":"t","type":"a","actor":"wf.o","role":"o","data":[]}"#,
            r#"{"seq":1,"ts":"t","type":"a","actor":"wf.o","role":"o","data":{},"txn":false}"#,
            r#"{"seq":1,"ts":"t","type":"a","task_id":null,"actor":"wf.o","role":"o","data":{}}"#,
            r#"{"seq":1,"ts":"t","type":"a","actor":"wf.o","role":"o","data":{}} "#,
            r#"{"seq":1,"ts":"t","type":"é","actor":"wf.o","role":"o","data":{}}"#,
        ] {
            assert!(
                EventHead::parse_as_written(other.as_bytes(), |_| true).is_none(),
                "{other}"
            );
        }
    }

    #[test]
    fn a_proof_that_is_not_valid_text_is_refused_as_the_whole_load_refuses_it() {
        for data in [&b"{\"evidence\":\"\xff\"}"[..], b"{\"x\":\"\xc3\"}"] {
            let mut line = br#"{"seq":1,"ts":"t","type":"task.status_changed","actor":"wf.o","role":"o","data":"#.to_vec();
            line.extend_from_slice(data);
            line.push(b'}');
            assert!(serde_json::from_slice::<Event>(&line).is_err());
            for wants in [(|_: &str| true) as fn(&str) -> bool, |_| false] {
                assert!(
                    EventHead::parse(&line, wants).is_err(),
                    "{}",
                    String::from_utf8_lossy(&line)
                );
            }
        }
    }

    #[test]
    fn torn_final_line_is_skipped() {
        let buf = format!("{EVENT}\n{{\"seq\":2,\"ts");
        let events = parse_lines(buf.as_bytes()).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].seq, 1);
    }

    #[test]
    fn a_complete_final_line_that_does_not_parse_is_skipped() {
        let buf = format!("{EVENT}\n{{\"seq\":2,\"ts\n");
        assert_eq!(parse_lines(buf.as_bytes()).unwrap().len(), 1);
    }

    #[test]
    fn an_unterminated_final_event_is_not_applied() {
        // Its write may be half done: only a line ending in a newline was written whole.
        let buf = format!("{EVENT}\n{EVENT}");
        assert_eq!(parse_lines(buf.as_bytes()).unwrap().len(), 1);
    }

    #[test]
    fn garbage_in_the_middle_is_an_error() {
        let buf = format!("nope\n{EVENT}\n");
        let err = parse_lines(buf.as_bytes()).unwrap_err();
        assert!(
            err.to_string().contains("event 1 after the snapshot"),
            "{err}"
        );
    }

    #[test]
    fn cut_uncommitted_removes_only_a_trailing_run_of_txn_events_past_the_mark() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let ev = |seq: u64, txn: bool| {
            let t = if txn { r#","txn":true"# } else { "" };
            format!(
                r#"{{"seq":{seq},"ts":"t","type":"a","actor":"wf.o","role":"o","data":{{}}{t}}}"#
            ) + "\n"
        };
        let committed = ev(1, true) + &ev(2, false);
        std::fs::write(
            &path,
            committed.clone() + &ev(3, true) + &ev(4, true) + "{\"seq\":5",
        )
        .unwrap();
        let mark = committed.len() as u64;
        assert_eq!(cut_uncommitted(&path, 2, mark).unwrap(), 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), committed);
        // A txn event followed by a plain one is not a trailing run: left alone.
        let mixed = committed.clone() + &ev(3, true) + &ev(4, false);
        std::fs::write(&path, &mixed).unwrap();
        assert_eq!(cut_uncommitted(&path, 2, mark).unwrap(), 0);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), mixed);
    }

    /// The run as the log was read before, from its start: every line parsed, a line
    /// that is not a txn event past the mark ending any run so far.
    fn uncommitted_run_read_forward(
        tail: &[u8],
        start: u64,
        mark_seq: u64,
    ) -> Option<(u64, usize)> {
        let mut cut: Option<(u64, usize)> = None;
        let mut at = start;
        for line in tail.split_inclusive(|&b| b == b'\n') {
            let line_start = at;
            at += line.len() as u64;
            if !line.ends_with(b"\n") {
                break;
            }
            match EventHead::parse(line, |_| false) {
                Ok(ev) if ev.txn && ev.seq > mark_seq => {
                    let (from, n) = cut.unwrap_or((line_start, 0));
                    cut = Some((from, n + 1));
                }
                _ if line.iter().all(u8::is_ascii_whitespace) => {}
                _ => cut = None,
            }
        }
        cut
    }

    proptest::proptest! {
        /// Read from the end, the run is the one a read from the start finds, whatever
        /// the lines: txn events or not, before or past the mark, blank, broken, and a
        /// torn last line.
        #[test]
        fn the_uncommitted_run_read_from_the_end_is_the_one_read_from_the_start(
            lines in proptest::collection::vec((0..5u8, 0..6u64), 0..12),
            torn in proptest::bool::ANY,
            mark_seq in 0..6u64,
            window in 1..200u64,
        ) {
            let mut tail = String::new();
            for (kind, seq) in lines {
                tail += &match kind {
                    0 | 1 => {
                        let t = if kind == 0 { r#","txn":true"# } else { "" };
                        format!(r#"{{"seq":{seq},"ts":"t","type":"a","actor":"wf.o","role":"o","data":{{}}{t}}}"#)
                    }
                    2 => String::new(),
                    3 => "  ".into(),
                    _ => r#"{"seq":"#.into(),
                };
                tail.push('\n');
            }
            if torn {
                tail += r#"{"seq":9,"txn":tr"#;
            }
            let forward = uncommitted_run_read_forward(tail.as_bytes(), 100, mark_seq);
            proptest::prop_assert_eq!(
                uncommitted_run(tail.as_bytes(), 100, mark_seq).0,
                forward,
                "{}", tail
            );
            // Read a window at a time, the log's bytes 100.. being `tail`.
            let len = 100 + tail.len() as u64;
            let read_from = |at: u64| Ok(tail.as_bytes()[usize::try_from(at - 100).unwrap()..].to_vec());
            proptest::prop_assert_eq!(
                uncommitted_run_from_end(read_from, 100, len, mark_seq, window).unwrap(),
                forward,
                "{} (window {})", tail, window
            );
        }
    }

    #[test]
    fn blank_lines_are_skipped_and_order_is_kept() {
        let second = EVENT.replace("\"seq\":1", "\"seq\":2");
        let buf = format!("{EVENT}\n\n{second}\n");
        let seqs: Vec<u64> = parse_lines(buf.as_bytes())
            .unwrap()
            .iter()
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, vec![1, 2]);
    }

    #[test]
    fn held_events_reach_the_file_together_when_written_and_at_a_sync() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let lines = || std::fs::read_to_string(&path).unwrap().lines().count();
        let event = || NewEvent::new(EventKind::TaskExecutionStarted, serde_json::json!({}));
        let mut log = EventLog::open(&path, 0).unwrap();
        log.append(event()).unwrap();
        assert_eq!(lines(), 1, "not held: written at once");
        log.hold();
        assert_eq!(log.append(event()).unwrap().seq, 2);
        assert_eq!(log.append(event()).unwrap().seq, 3);
        assert_eq!(lines(), 1, "held: not in the file yet");
        log.write_held().unwrap();
        assert_eq!(lines(), 3);
        log.append(event()).unwrap();
        log.sync().unwrap();
        assert_eq!(lines(), 4, "a sync writes what is held");
        assert_eq!(log.mark(), (4, std::fs::metadata(&path).unwrap().len()));
        log.append(event()).unwrap();
        log.release().unwrap();
        assert_eq!(lines(), 5, "the release writes what is held");
        log.append(event()).unwrap();
        assert_eq!(lines(), 6, "released: written at once again");
        // What a reader makes of it: every event, numbered in order.
        let seqs: Vec<u64> = parse_lines(&std::fs::read(&path).unwrap())
            .unwrap()
            .iter()
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, [1, 2, 3, 4, 5, 6]);
    }
}
