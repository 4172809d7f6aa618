//! Reading a constraint-set file: one model's analysis output, as `wf constraints merge` takes it.
//!
//! Errors name the file, line and column of the offending value, including a wrong
//! enum value (`"category": "speed"`), because the file is checked against a strict
//! mirror of the layout before it is taken. Fields a model may leave out get what
//! they can only be: `type` from the list it is in, `category` detected from the
//! description, `phase` = `analysis`. Unknown fields are kept, as everywhere in state.

use serde::Deserialize;
use serde_json::Value;

use super::category;
use super::merge::ConstraintSet;
use super::vocabulary::{Category, Phase, Source};

/// The layout a set file must have; only parsed for its errors' positions.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // fields exist to be type-checked by serde, not read
struct Shape {
    #[serde(default)]
    hard: Vec<ShapeConstraint>,
    #[serde(default)]
    soft: Vec<ShapeConstraint>,
    #[serde(default)]
    open_questions: Vec<String>,
    #[serde(default)]
    success_criteria: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ShapeConstraint {
    id: String,
    description: String,
    #[serde(rename = "type")]
    kind: Option<Kind>,
    category: Option<Category>,
    source_model: Source,
    phase: Option<Phase>,
    verified: Option<bool>,
    verify_cmd: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Hard,
    Soft,
}

/// Parses a set file's bytes; `Err` is one line: `NAME:line:col: what`.
pub fn parse(name: &str, bytes: &[u8]) -> Result<ConstraintSet, String> {
    let at = |e: serde_json::Error| {
        let text = e.to_string();
        // serde_json appends " at line L column C"; the position goes in front instead.
        let what = text
            .rsplit_once(" at line ")
            .map_or(text.as_str(), |(w, _)| w);
        format!(
            "{name}:{}:{}: not a constraint set: {what}",
            e.line(),
            e.column()
        )
    };
    serde_json::from_slice::<Shape>(bytes).map_err(at)?;
    let mut value: Value = serde_json::from_slice(bytes).map_err(at)?;
    for (list, kind) in [("hard", "hard"), ("soft", "soft")] {
        let Some(items) = value.get_mut(list).and_then(Value::as_array_mut) else {
            continue;
        };
        for (i, item) in items.iter_mut().enumerate() {
            let Some(obj) = item.as_object_mut() else {
                continue;
            };
            let description = obj
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_string();
            let id = obj.get("id").and_then(Value::as_str).unwrap_or_default();
            if id.trim().is_empty() || description.is_empty() {
                return Err(format!(
                    "{name}: {list}[{i}] needs a non-empty id and description"
                ));
            }
            obj.insert("type".into(), kind.into());
            if !obj.contains_key("category") {
                obj.insert("category".into(), category::detect(&description).into());
            }
            if !obj.contains_key("phase") {
                obj.insert("phase".into(), "analysis".into());
            }
        }
    }
    serde_json::from_value(value).map_err(|e| format!("{name}: not a constraint set: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_what_a_model_may_leave_out() {
        let set = parse(
            "codex.json",
            r#"{"hard": [{"id": "C1", "description": "API 响应必须包含 requestId", "sourceModel": "codex", "x": 1}],
                "openQuestions": ["q"]}"#
                .as_bytes(),
        )
        .unwrap();
        let c = &set.hard[0];
        assert_eq!(
            (c.kind.as_str(), c.category.as_str(), c.phase.as_str()),
            ("hard", "interface", "analysis")
        );
        assert_eq!(c.extra["x"], 1);
        assert_eq!(set.open_questions, ["q"]);
        assert!(set.soft.is_empty() && set.success_criteria.is_empty());
    }

    #[test]
    fn errors_carry_file_line_and_column() {
        let err = parse("a.json", b"{\n  \"hard\": [\n").unwrap_err();
        assert!(err.starts_with("a.json:3:"), "{err}");
        let err = parse(
            "b.json",
            b"{\"soft\": [\n {\"id\": \"C1\", \"description\": \"d\", \"sourceModel\": \"codex\",\n  \"category\": \"speed\"}]}",
        )
        .unwrap_err();
        assert!(err.starts_with("b.json:3:"), "{err}");
        assert!(err.contains("speed"), "{err}");
        assert!(!err.contains(" at line "), "{err}");
        let err = parse("c.json", br#"{"hard": "C1"}"#).unwrap_err();
        assert!(err.starts_with("c.json:1:"), "{err}");
        let err = parse("d.json", br"[1]").unwrap_err();
        assert!(err.starts_with("d.json:1:"), "{err}");
    }

    #[test]
    fn empty_ids_are_refused() {
        let err = parse(
            "e.json",
            br#"{"hard": [{"id": " ", "description": "d", "sourceModel": "user"}]}"#,
        )
        .unwrap_err();
        assert!(err.contains("hard[0]"), "{err}");
    }
}
