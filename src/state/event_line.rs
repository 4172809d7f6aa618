//! An event's line in `events.jsonl`, written by hand: the bytes
//! `serde_json::to_writer` writes for [`Event`], without its cost.
//!
//! A run writes four events per task. Through serde, each string of a line (about a
//! dozen per event: keys, the time, the kind, the actor) went through
//! `serde_json::ser::format_escaped_str`, a tenth of the scheduler's instructions
//! per task (callgrind, 1,000-task wide plan). Here a string that needs no escape
//! (nearly all of them) is copied as it is, and the rest — a string that does, a
//! number, a proof — are written by serde_json itself, so the line stays what the
//! readers and [`Event`]'s own `Serialize` agree on. A property test holds the two
//! to the same bytes.

use serde_json::Value;

use super::event_log::Event;
use super::evidence::Proof;

/// Appends `event`'s line, without its newline, to `out`.
pub fn write(out: &mut Vec<u8>, event: &Event) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"seq\":");
    serde_json::to_writer(&mut *out, &event.seq)?;
    field(out, "ts", &event.ts)?;
    field(out, "type", &event.kind)?;
    if let Some(id) = &event.task_id {
        field(out, "task_id", id)?;
    }
    if let Some(name) = &event.executor {
        field(out, "executor", name)?;
    }
    field(out, "actor", &event.actor)?;
    field(out, "role", &event.role)?;
    out.extend_from_slice(b",\"data\":");
    match &event.evidence {
        None => value(out, &event.data)?,
        Some(proof) => data_with_proof(out, &event.data, proof)?,
    }
    if event.txn {
        out.extend_from_slice(b",\"txn\":true");
    }
    out.push(b'}');
    Ok(())
}

/// `,"key":"text"`.
fn field(out: &mut Vec<u8>, key: &str, text: &str) -> serde_json::Result<()> {
    out.push(b',');
    string(out, key)?;
    out.push(b':');
    string(out, text)
}

/// `data` with the proof as its last field, as `event_log`'s `wire::DataOut` writes
/// it: the data's own fields when it is an object, none otherwise.
fn data_with_proof(out: &mut Vec<u8>, data: &Value, proof: &Proof) -> serde_json::Result<()> {
    out.push(b'{');
    if let Some(fields) = data.as_object().filter(|f| !f.is_empty()) {
        entries(out, fields)?;
        out.push(b',');
    }
    out.extend_from_slice(b"\"evidence\":");
    serde_json::to_writer(&mut *out, proof)?;
    out.push(b'}');
    Ok(())
}

fn value(out: &mut Vec<u8>, v: &Value) -> serde_json::Result<()> {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => serde_json::to_writer(&mut *out, n)?,
        Value::String(s) => string(out, s)?,
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                value(out, item)?;
            }
            out.push(b']');
        }
        Value::Object(fields) => {
            out.push(b'{');
            entries(out, fields)?;
            out.push(b'}');
        }
    }
    Ok(())
}

/// An object's `"key":value` pairs, comma-separated, without its braces.
fn entries(out: &mut Vec<u8>, fields: &serde_json::Map<String, Value>) -> serde_json::Result<()> {
    for (i, (key, field)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, key)?;
        out.push(b':');
        value(out, field)?;
    }
    Ok(())
}

/// A JSON string: copied between quotes when no byte of it needs an escape (JSON's
/// rule and serde_json's: a control character, `"` or `\`), else serde_json's.
fn string(out: &mut Vec<u8>, s: &str) -> serde_json::Result<()> {
    if needs_escape(s.as_bytes()) {
        return serde_json::to_writer(&mut *out, s);
    }
    out.reserve(s.len() + 2);
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
    Ok(())
}

/// Whether a byte of `bytes` is a control character, `"` or `\`: eight at a time,
/// where a test of each byte was most of this writer's work.
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Whether a byte of `x` is below `n` (n ≤ 0x80): the subtraction borrows into a
    // byte's high bit only from a byte below `n`, and `!x` drops the bytes whose
    // high bit was already set (Bit Twiddling Hacks, "hasless").
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS != 0;
    let word = |x: u64| {
        below(x, 0x20)
            || below(x ^ (ONES * u64::from(b'"')), 1)
            || below(x ^ (ONES * u64::from(b'\\')), 1)
    };
    let mut chunks = bytes.chunks_exact(8);
    if chunks.any(|c| word(u64::from_ne_bytes(c.try_into().expect("eight bytes")))) {
        return true;
    }
    // The last few bytes, padded with a byte that needs none.
    let mut last = [b' '; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    word(u64::from_ne_bytes(last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::evidence::{Evidence, Inputs};
    use proptest::prelude::*;

    fn encoded(event: &Event) -> String {
        let mut out = Vec::new();
        write(&mut out, event).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn event(data: Value, evidence: Option<Proof>) -> Event {
        Event {
            seq: 7,
            ts: "2026-11-28T17:44:27Z".into(),
            kind: "task.status_changed".into(),
            task_id: Some("T1".into()),
            executor: None,
            actor: "wf.orchestrator".into(),
            role: "orchestrator".into(),
            data,
            evidence,
            txn: false,
        }
    }

    fn proof() -> Proof {
        Proof::of(Evidence {
            at: "2026-11-28T17:44:27Z".into(),
            inputs: Inputs {
                fingerprint: "sha256:ab\"c".into(),
                ..Inputs::default()
            },
            ..Evidence::default()
        })
    }

    #[test]
    fn a_completion_is_written_as_serde_writes_it() {
        let data = serde_json::json!({"verified": true, "duration_ms": 0, "from": "in_progress", "to": "completed"});
        let e = event(data, Some(proof()));
        assert_eq!(encoded(&e), serde_json::to_string(&e).unwrap());
        assert!(encoded(&e).ends_with(r#""to":"completed","evidence":{"at":"2026-11-28T17:44:27Z","inputs":{"fingerprint":"sha256:ab\"c","definition":""}}}}"#), "{}", encoded(&e));
    }

    #[test]
    fn a_proof_beside_data_that_is_not_an_object_is_the_data_alone() {
        let e = event(Value::Null, Some(proof()));
        assert_eq!(encoded(&e), serde_json::to_string(&e).unwrap());
        assert!(encoded(&e).contains(r#""data":{"evidence":{"#));
    }

    #[test]
    fn a_byte_needs_an_escape_at_any_place_exactly_when_json_says() {
        for byte in 0..=u8::MAX {
            let expected = byte < 0x20 || byte == b'"' || byte == b'\\';
            for len in 1..=17 {
                for at in 0..len {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = byte;
                    assert_eq!(needs_escape(&bytes), expected, "{byte:#x} at {at} of {len}");
                }
            }
        }
        assert!(!needs_escape(b""));
        assert!(!needs_escape("é 日本 \u{7f} ~!#$%".as_bytes()));
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z_.T0-9]{0,12}",
            any::<String>(),
            Just("tab\there \"q\" back\\slash \u{7f} é 日本 \u{0}".to_string()),
        ]
    }

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..4)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn every_event_is_written_as_serde_writes_it(
            seq in any::<u64>(),
            ts in text(),
            kind in text(),
            task_id in proptest::option::of(text()),
            executor in proptest::option::of(text()),
            actor in text(),
            role in text(),
            data in json(),
            with_proof in any::<bool>(),
            txn in any::<bool>(),
        ) {
            let e = Event {
                seq, ts, kind: kind.into(), task_id, executor, actor: actor.into(), role: role.into(),
                data: if with_proof && !data.is_object() { Value::Null } else { data },
                evidence: with_proof.then(proof),
                txn,
            };
            // A proof is never beside data holding its own `evidence` (`DataOut`).
            prop_assume!(!(with_proof && e.data.get("evidence").is_some()));
            prop_assert_eq!(encoded(&e), serde_json::to_string(&e).unwrap());
        }
    }
}
