//! The resource panel: each executor as the pool sees it (`Pool::catalog`, as `wf
//! resources` shows it: capabilities, level, role, usable or not), with what the
//! event log says it was given: each `resource.allocated` and the
//! `resource.released` that ended it, what it holds now, its dispatch failures. And
//! the log's `resource.missing` events, for a capability no executor offers.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde_json::{json, Value};

use crate::error::Result;
use crate::run::executor::{Pool, ResourceStatus};

/// The allocations kept per executor, newest last.
const HISTORY_CAP: usize = 200;

/// The events about resources, in log order, at most this many of each list.
const EVENTS_CAP: usize = 200;

#[derive(Default)]
struct Seen {
    history: Vec<Value>,
    nacks: usize,
    last_nack: Option<String>,
    /// Whether its last dispatch was refused (its process did not start).
    failing: bool,
}

pub(super) fn json(ctx: &super::Ctx) -> Result<Value> {
    let workflow = &ctx.workflow;
    let writer_alive = !workflow.archived && workflow.store.writer_alive();
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    let mut missing = Vec::new();
    let mut nacks = Vec::new();
    each_event(&workflow.store.events_path(), |event| {
        let kind = event["type"].as_str().unwrap_or_default();
        let executor = event["executor"].as_str().map(str::to_string);
        let brief = || {
            json!({
                "seq": event["seq"], "ts": event["ts"], "task": event["task_id"],
                "executor": event["executor"], "actor": event["actor"], "data": event["data"],
            })
        };
        match (kind, executor) {
            ("resource.missing", _) => push_capped(&mut missing, brief()),
            ("task.dispatch_nack", executor) => {
                push_capped(&mut nacks, brief());
                if let Some(name) = executor {
                    let s = seen.entry(name).or_default();
                    s.nacks += 1;
                    s.failing = true;
                    s.last_nack = event["data"]["reason"].as_str().map(str::to_string);
                }
            }
            ("task.dispatch_ack", Some(name)) => seen.entry(name).or_default().failing = false,
            ("resource.allocated", Some(name)) => {
                let s = seen.entry(name).or_default();
                s.history.push(json!({
                    "task": event["task_id"],
                    "allocated": {"seq": event["seq"], "ts": event["ts"]},
                    "level": event["data"]["level"],
                    "escalated": event["data"]["escalated"],
                    "released": null,
                }));
                if s.history.len() > HISTORY_CAP {
                    s.history.remove(0);
                }
            }
            ("resource.released", Some(name)) => {
                let s = seen.entry(name).or_default();
                let open = s
                    .history
                    .iter_mut()
                    .find(|h| h["task"] == event["task_id"] && h["released"].is_null());
                if let Some(h) = open {
                    h["released"] = json!({
                        "seq": event["seq"], "ts": event["ts"], "reason": event["data"]["reason"],
                    });
                }
            }
            _ => {}
        }
    })?;
    let pool = Pool::from_config(&workflow.config, None);
    let mut executors: Vec<Value> = Vec::new();
    let mut listed: Vec<String> = Vec::new();
    for entry in pool.catalog() {
        for r in entry.resources {
            if let Some(e) = executors.iter_mut().find(|e| e["name"] == r.id.as_str()) {
                if let Some(caps) = e["capabilities"].as_array_mut() {
                    caps.push(json!(entry.capability));
                }
                continue;
            }
            let max_parallel = workflow
                .config
                .wf
                .executors
                .iter()
                .find(|c| c.name == r.id)
                .map(|c| c.max_parallel);
            listed.push(r.id.clone());
            executors.push(json!({
                "name": r.id, "command": r.name, "level": r.level, "role": r.role,
                "capabilities": [entry.capability], "max_parallel": max_parallel,
                "configured": true,
                "status": if r.status == ResourceStatus::Error { "error" } else { "available" },
                "error": r.error,
            }));
        }
    }
    // Executors the log names that the config does not (a --mock rehearsal's
    // stand-ins, an executor since removed from the config).
    for name in seen.keys().filter(|n| !listed.contains(n)) {
        executors.push(json!({
            "name": name, "configured": false, "status": "available", "capabilities": [],
        }));
    }
    for e in &mut executors {
        let name = e["name"].as_str().unwrap_or_default().to_string();
        let s = seen.remove(&name).unwrap_or_default();
        let open: Vec<Value> = s
            .history
            .iter()
            .filter(|h| h["released"].is_null())
            .map(|h| h["task"].clone())
            .collect();
        // Only a live run holds anything: one that is gone released nothing.
        let (holding, left_held) = if writer_alive {
            (open, Vec::new())
        } else {
            (Vec::new(), open)
        };
        if e["status"] != "error" {
            e["status"] = json!(if s.failing {
                "error"
            } else if holding.is_empty() {
                "available"
            } else {
                "busy"
            });
        }
        e["holding"] = json!(holding);
        e["left_held"] = json!(left_held);
        e["history"] = json!(s.history);
        e["dispatch_failures"] = json!(s.nacks);
        e["last_failure"] = json!(s.last_nack);
    }
    Ok(json!({
        "writer_alive": writer_alive,
        "executors": executors,
        "missing": missing,
        "dispatch_failures": nacks,
    }))
}

fn push_capped(list: &mut Vec<Value>, value: Value) {
    list.push(value);
    if list.len() > EVENTS_CAP {
        list.remove(0);
    }
}

/// Calls `apply` with each complete event of the log that is about a resource or a
/// dispatch (the rest are not parsed).
fn each_event(path: &std::path::Path, mut apply: impl FnMut(&Value)) -> Result<()> {
    let file = match crate::fs::open_regular(path, false) {
        Ok(f) => f,
        Err(_) if !path.exists() => return Ok(()),
        Err(e) => return Err(e),
    };
    let reader = std::io::BufReader::with_capacity(64 * 1024, file);
    for line in reader.split(b'\n') {
        let line = line?;
        let about = memchr::memmem::find(&line, b"\"resource.").is_some()
            || memchr::memmem::find(&line, b"\"task.dispatch_").is_some();
        if !about {
            continue;
        }
        if let Ok(event) = serde_json::from_slice::<Value>(&line) {
            apply(&event);
        }
    }
    Ok(())
}
