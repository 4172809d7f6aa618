//! The JSON the page reads, each answer read afresh from the state and the log:
//!
//! - `/api/summary`: the workflow, its counts, `wf next`'s answer and the buttons the
//!   CLI offers at this point, from `Store::view` (the summary, as `wf status`);
//! - `/api/graph`: the phases and, unless the plan is large, every task with its place
//!   (`layout.rs`); `/api/phase?i=N`: one phase's tasks;
//! - `/api/task?id=T`: `wf next`'s brief of it and `wf show`'s evidence check;
//! - `/api/log?id=T&attempt=N&offset=B`: an attempt's log from a byte on (its end
//!   when no offset), as `wf logs --follow` reads it;
//! - `/api/events?type=&task=&status=&last=N`: the last events of the log that pass
//!   the filters, with the phase, name, status and failure of each task they name;
//! - `/api/resources`: `resources.rs`.
//!
//! Every `seq` given is the log's last before the state was read, so the page's
//! stream from there misses nothing (an event shown twice changes nothing).

use crate::state::model::Glance;
use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, Read, Seek, SeekFrom};

use serde_json::{json, Value};

use super::layout::{self, Layout};
use super::server::param;
use super::Ctx;
use crate::error::WfError;
use crate::report::next::{self, Reason};
use crate::run::now::Facts;
use crate::state::event_log;
use crate::state::model::{Task, WorkflowState};
use crate::state::TaskStatus;

/// Over this many tasks the canvas opens with every phase collapsed to its counts,
/// and a phase's tasks are fetched when it is opened.
pub(super) const COLLAPSE_OVER: usize = 2000;

/// The events `/api/events` gives at most.
const EVENTS_MAX: usize = 20_000;

/// The most of a log one read gives.
const LOG_CHUNK: u64 = 256 * 1024;

/// The end of a log shown when no offset is asked for, and in the timeline.
const LOG_TAIL: u64 = 16 * 1024;
const TIMELINE_TAIL: u64 = 2 * 1024;

type Answer = Result<Value, (u16, String)>;

pub(super) fn route(ctx: &Ctx, path: &str, query: &[(String, String)]) -> Answer {
    let failed = |e: WfError| (500, e.message);
    match path {
        "/api/summary" => summary(ctx).map_err(failed),
        "/api/graph" => graph(ctx, None),
        "/api/phase" => {
            let i = param(query, "i")
                .and_then(|i| i.parse().ok())
                .ok_or((400, "/api/phase needs i=N, the phase's index".to_string()))?;
            graph(ctx, Some(i))
        }
        "/api/task" => task(ctx, &param(query, "id").unwrap_or_default()),
        "/api/log" => log(ctx, query),
        "/api/events" => events(ctx, query),
        "/api/resources" => super::resources::json(ctx).map_err(failed),
        _ => Err((
            404,
            format!("no such page: {}", crate::report::one_line(path)),
        )),
    }
}

fn last_seq(ctx: &Ctx) -> u64 {
    event_log::last_seq(&ctx.workflow.store.events_path()).map_or(0, |(seq, _)| seq)
}

fn writer_alive(ctx: &Ctx) -> bool {
    !ctx.workflow.archived && ctx.workflow.store.writer_alive()
}

/// The whole state, as `wf status --json` reads it; no workflow is a 404 that says
/// how to start one. One request at a time holds one (`Ctx::whole_reads`), so a page
/// that asks for the graph, the timeline and a task at once costs one state's memory,
/// not three; the memory is given back when it is dropped.
fn load(ctx: &Ctx) -> Result<Loaded<'_>, (u16, String)> {
    let turn = ctx
        .whole_reads
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match ctx.workflow.store.load() {
        Ok(Some(state)) => Ok(Loaded {
            state: Some(state),
            _turn: turn,
        }),
        Ok(None) => Err((404, no_workflow(ctx))),
        Err(e) => Err((500, e.message)),
    }
}

/// A state read whole, and the turn to hold one.
struct Loaded<'a> {
    state: Option<WorkflowState>,
    _turn: std::sync::MutexGuard<'a, ()>,
}

impl std::ops::Deref for Loaded<'_> {
    type Target = WorkflowState;
    fn deref(&self) -> &WorkflowState {
        self.state.as_ref().expect("held until dropped")
    }
}

impl Drop for Loaded<'_> {
    fn drop(&mut self) {
        drop(self.state.take());
        super::give_back_memory();
    }
}

fn no_workflow(ctx: &Ctx) -> String {
    format!(
        "no workflow here any more (archived, or not started): `wf workflow-start PLAN.md` in {} starts one",
        ctx.workflow.project.display()
    )
}

fn summary(ctx: &Ctx) -> crate::error::Result<Value> {
    let seq = last_seq(ctx);
    let Some(view) = ctx.workflow.store.view()? else {
        return Ok(
            json!({"seq": seq, "workflow": null, "message": no_workflow(ctx), "read_only": ctx.read_only}),
        );
    };
    let (state, digest) = (&view.state, &view.digest);
    let alive = writer_alive(ctx);
    let answer = next::next_in(
        state,
        digest,
        Facts {
            writer_alive: alive,
            ..Facts::default()
        },
    )?;
    let offered = if ctx.read_only {
        Vec::new()
    } else {
        offered(answer.reason, digest, state.status)
    };
    Ok(json!({
        "seq": seq,
        "read_only": ctx.read_only,
        "archived": ctx.workflow.archived,
        "writer_alive": alive,
        "workflow": {
            "name": crate::report::workflow_name(state),
            "status": state.status,
            "reason": state.failure_reason.as_ref().or(state.status_reason.as_ref()),
            "mode": state.execution_mode,
            "project": ctx.workflow.project,
            "dir": ctx.workflow.store.dir(),
        },
        "counts": crate::report::Counts::of_digest(digest),
        "next": next::json_in(
            state,
            digest,
            &answer,
            &crate::run::derived::config_checks(&ctx.workflow.config)
        ),
        "offered": offered,
    }))
}

/// The buttons for what the CLI offers now, as `wf next` decides it: retry or skip a
/// failed task, lift a blocker kind, answer whether to resume a run that is gone,
/// continue (also to finish a workflow whose tasks are all done), and verify once
/// something is completed.
fn offered(
    reason: Reason,
    digest: &crate::state::summary::Digest,
    status: crate::state::WorkflowStatus,
) -> Vec<Value> {
    use crate::state::WorkflowStatus::{Archived, Completed};
    let mut buttons = Vec::new();
    match reason {
        Reason::Failed => {
            for id in digest.failed.iter().take(20) {
                buttons.push(json!({"action": "retry", "task": id}));
                buttons.push(json!({"action": "skip", "task": id}));
            }
        }
        Reason::Interrupted => buttons.push(json!({"action": "resume", "probe": true})),
        Reason::Ready | Reason::InProgress | Reason::Waiting => {
            buttons.push(json!({"action": "continue"}));
        }
        Reason::Done if !matches!(status, Completed | Archived) => {
            buttons.push(json!({"action": "continue"}));
        }
        Reason::Undecided | Reason::Blocked | Reason::Done => {}
    }
    if !digest.blocker_kinds.is_empty() {
        for kind in &digest.blocker_kinds {
            buttons.push(json!({"action": "unblock", "kind": kind}));
        }
        buttons.push(json!({"action": "unblock", "kind": "all"}));
    }
    if digest.counts.completed > 0 {
        buttons.push(json!({"action": "verify"}));
    }
    buttons
}

/// The phases, and the tasks of every phase (`only`: of that one) unless the plan
/// has more than [`COLLAPSE_OVER`] tasks.
fn graph(ctx: &Ctx, only: Option<usize>) -> Answer {
    let seq = last_seq(ctx);
    let state = load(ctx)?;
    let layout = layout::of(&state).map_err(|e| (500, e.message))?;
    let whole = state.whole_tasks().map_err(|e| (500, e.message))?;
    if only.is_some_and(|i| i >= layout.phases.len()) {
        return Err((
            404,
            format!("the plan has {} phase(s)", layout.phases.len()),
        ));
    }
    let collapsed = only.is_none() && state.tasks.len() > COLLAPSE_OVER;
    let phases: Vec<Value> = layout
        .phases
        .iter()
        .map(|p| {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for &i in &p.tasks {
                *counts.entry(whole[i].status.as_str()).or_default() += 1;
            }
            json!({"name": p.name, "total": p.tasks.len(), "counts": counts, "depths": p.depths, "rows": p.rows})
        })
        .collect();
    let tasks: Vec<Value> = match (only, collapsed) {
        (Some(i), _) => layout.phases[i]
            .tasks
            .iter()
            .map(|&t| node(whole[t], &layout, t))
            .collect(),
        (None, true) => Vec::new(),
        (None, false) => whole
            .iter()
            .enumerate()
            .map(|(t, task)| node(task, &layout, t))
            .collect(),
    };
    Ok(json!({
        "seq": seq,
        "total": state.tasks.len(),
        "collapsed": collapsed,
        "phases": phases,
        "tasks": tasks,
    }))
}

/// A task as the canvas draws it.
fn node(task: &Task, layout: &Layout, i: usize) -> Value {
    let place = layout.places[i];
    json!({
        "id": task.id,
        "name": task.name,
        "phase": place.phase,
        "depth": place.depth,
        "row": place.row,
        "status": task.status,
        "deps": task.deps,
        "executor": if task.status == TaskStatus::InProgress { task.executor.as_deref() } else { None },
        "handed_off": task.handed_off == Some(true),
        "attempts": task.attempts,
        "blocked_by": task.blocked_by,
    })
}

fn find<'a>(state: &'a WorkflowState, id: &str) -> Result<&'a Task, (u16, String)> {
    state
        .task(id)
        .map_err(|e| (500, e.message))?
        .ok_or_else(|| {
            (
                404,
                format!(
                    "there is no task {} in this workflow",
                    crate::report::one_line(id)
                ),
            )
        })
}

/// What clicking a node shows: the brief (`wf next`'s), the evidence and whether it
/// holds now (`wf show`'s).
fn task(ctx: &Ctx, id: &str) -> Answer {
    let state = load(ctx)?;
    let task = find(&state, id)?;
    let now = crate::proof::now::now(&ctx.workflow.project, &state, task)
        .map_err(|e| (500, e.message))?;
    let checks = crate::run::derived::config_checks(&ctx.workflow.config);
    let derived = crate::report::checks::derived_lines(task, &checks);
    Ok(json!({
        "brief": crate::report::brief::brief_json(&state, task, &checks),
        "show": crate::report::show::json(task, &now, &derived),
    }))
}

/// An attempt's log from `offset` on (at most [`LOG_CHUNK`]), or its last
/// [`LOG_TAIL`] bytes; whether the attempt still runs, so the page asks again.
fn log(ctx: &Ctx, query: &[(String, String)]) -> Answer {
    let state = load(ctx)?;
    let task = find(&state, &param(query, "id").unwrap_or_default())?;
    let asked = param(query, "attempt").and_then(|a| a.parse().ok());
    let attempt = crate::report::logs::attempt(task, asked).map_err(|why| (404, why))?;
    let path = crate::exec::process::log_path(&ctx.workflow.store.logs_dir(), &task.id, attempt);
    let running =
        task.status == TaskStatus::InProgress && task.attempts == attempt && writer_alive(ctx);
    let offset = param(query, "offset").and_then(|o| o.parse::<u64>().ok());
    let (text, next, exists) = read_log(&path, offset, LOG_TAIL).map_err(|e| (500, e.message))?;
    Ok(json!({
        "task": task.id, "attempt": attempt, "attempts": task.attempts,
        "offset": next, "running": running, "exists": exists,
        "text": crate::escape::output(&String::from_utf8_lossy(&text)).into_owned(),
    }))
}

/// The bytes of a log from `offset` (at most [`LOG_CHUNK`]), or its last `tail`
/// bytes; the offset after them, and whether the log exists.
fn read_log(
    path: &std::path::Path,
    offset: Option<u64>,
    tail: u64,
) -> crate::error::Result<(Vec<u8>, u64, bool)> {
    let mut file = match crate::fs::open_regular(path, false) {
        Ok(file) => file,
        Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => {
            return Ok((Vec::new(), offset.unwrap_or(0), false))
        }
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let start = offset.map_or(len.saturating_sub(tail), |o| o.min(len));
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(LOG_CHUNK).read_to_end(&mut bytes)?;
    let next = start + bytes.len() as u64;
    Ok((bytes, next, true))
}

/// The last events that pass the filters, each as stored, and the tasks they name.
fn events(ctx: &Ctx, query: &[(String, String)]) -> Answer {
    let seq = last_seq(ctx);
    let state = load(ctx)?;
    let kind = param(query, "type").filter(|k| !k.is_empty());
    let task = param(query, "task").filter(|t| !t.is_empty());
    let status = param(query, "status").filter(|s| !s.is_empty());
    let last = param(query, "last")
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000usize)
        .min(EVENTS_MAX);
    let layout = layout::of(&state).map_err(|e| (500, e.message))?;
    let index: std::collections::HashMap<&str, usize> = state
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id(), i))
        .collect();
    let status_of = |id: &str| index.get(id).map(|&i| state.tasks[i].status().as_str());
    let mut kept: VecDeque<Value> = VecDeque::new();
    let mut matched = 0usize;
    let path = ctx.workflow.store.events_path();
    let file = match crate::fs::open_regular(&path, false) {
        Ok(f) => Some(f),
        Err(_) if !path.exists() => None,
        Err(e) => return Err((500, e.message)),
    };
    for line in file
        .into_iter()
        .flat_map(|f| std::io::BufReader::with_capacity(64 * 1024, f).split(b'\n'))
    {
        let Ok(line) = line else { break };
        let Ok(event) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        let id = event["task_id"].as_str();
        let pass = kind.as_deref().is_none_or(|k| event["type"] == k)
            && task.as_deref().is_none_or(|t| id == Some(t))
            && status
                .as_deref()
                .is_none_or(|s| id.and_then(status_of) == Some(s));
        if pass {
            matched += 1;
            kept.push_back(event);
            if kept.len() > last {
                kept.pop_front();
            }
        }
    }
    let mut tasks: BTreeMap<String, Value> = BTreeMap::new();
    for event in &kept {
        let Some(id) = event["task_id"].as_str() else {
            continue;
        };
        if tasks.contains_key(id) {
            continue;
        }
        let Some(&i) = index.get(id) else {
            continue;
        };
        let t = state.tasks[i].task().map_err(|e| (500, e.message))?;
        let log_tail = (t.status == TaskStatus::Failed && t.attempts > 0)
            .then(|| {
                let path = crate::exec::process::log_path(
                    &ctx.workflow.store.logs_dir(),
                    &t.id,
                    t.attempts,
                );
                read_log(&path, None, TIMELINE_TAIL)
                    .ok()
                    .map(|(text, _, _)| {
                        crate::escape::output(&String::from_utf8_lossy(&text)).into_owned()
                    })
            })
            .flatten();
        tasks.insert(
            id.to_string(),
            json!({
                "name": t.name, "phase": layout.places[i].phase, "status": t.status,
                "failure_reason": t.failure_reason, "log_tail": log_tail,
            }),
        );
    }
    Ok(json!({
        "seq": seq,
        "events": kept,
        "matched": matched,
        "tasks": tasks,
        "phases": layout.phases.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "types": crate::state::event::EventKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
    }))
}
