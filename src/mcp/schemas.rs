//! The output schema of each tool: the shape of its structured content, as the MCP
//! spec's `outputSchema` asks, so a client can rely on (and validate) the fields it
//! reads. Each names the fields an agent acts on and leaves the rest open
//! (docs/json.md lists them all): a schema is part of every client's context, so
//! the whole tool list is kept under 1,500 tokens (tests/mcp/schema_tokens.py
//! measures it). Every answer, an error's too, carries `schemaVersion`; an error's
//! has `error` (the CLI's error object) instead of the tool's fields.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::{json, Value};

fn object(properties: Value) -> Arc<JsonObject> {
    let mut properties = properties;
    if let Some(p) = properties.as_object_mut() {
        p.insert("schemaVersion".into(), json!({"type": "integer"}));
        p.insert("error".into(), json!({"type": "object"}));
    }
    let schema = json!({
        "type": "object",
        "required": ["schemaVersion"],
        "properties": properties,
    });
    match schema {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("a JSON object literal"),
    }
}

/// `then`: what to call next, in words.
fn then() -> Value {
    json!({"type": "string", "description": "what to call next"})
}

pub fn next() -> Arc<JsonObject> {
    object(json!({
        "reason": {"enum": ["in_progress", "ready", "failed", "interrupted", "undecided", "blocked", "waiting", "done"]},
        "brief": {"type": ["object", "null"]},
        "handed_off": {"type": "boolean"},
        "failure": {"type": "object", "description": "a failed task's reason and failed checks"},
        "then": then(),
    }))
}

pub fn done() -> Arc<JsonObject> {
    object(json!({
        "result": {"enum": ["passed", "failed", "workflow_failed", "not_checked", "not_given", "nothing_to_check", "claim_rejected", "budget_reached", "completed", "conflict"]},
        "task": {"type": ["string", "null"]},
        "failed_checks": {"type": "array", "items": {"type": "object"}},
        "then": then(),
    }))
}

pub fn skip() -> Arc<JsonObject> {
    object(json!({"task": {"type": "string"}, "then": then()}))
}

pub fn status() -> Arc<JsonObject> {
    object(json!({
        "status": {"type": "string"},
        "progress": {"type": "object"},
        "next": {"type": "object"},
    }))
}

pub fn logs() -> Arc<JsonObject> {
    object(json!({
        "task": {"type": "string"},
        "attempt": {"type": "integer"},
        "text": {"type": "string"},
    }))
}
