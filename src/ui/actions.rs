//! The page's buttons. Each runs this `wf` as a child with the arguments a person
//! would type — `workflow-execute --retry=T3`, `workflow-execute --skip=T3
//! --reason=…`, `workflow-unblock -- KIND`, `workflow-execute`, `resume`, `verify` —
//! with `-C PROJECT --json` (and the `--wait` `wf ui` was given). So the command takes
//! the workflow's lock in its own process, one writer as ever; what it does is what
//! the command does, its refusal is the command's message, and its progress reaches
//! the page as events in the log the page follows. A value is passed after `=` or
//! `--`, never as a word of its own a flag could be read from.
//!
//! A child runs in its own process group: Ctrl-C in `wf ui`'s terminal stops the
//! server, which then sends the child one SIGINT (a run pauses at a checkpoint, as
//! Ctrl-C pauses it) and waits for it.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::Ctx;
use crate::output::Output;

/// Children running at once, at most.
const MAX_RUNNING: usize = 4;

/// How long a request waits for its command before answering "running": long enough
/// for a refusal or a quick command, short enough for a page.
const ANSWER_WITHIN: Duration = Duration::from_millis(1500);

/// What a request to start an action got wrong.
pub(super) struct Refused {
    pub status: u16,
    pub message: String,
}

fn refused(status: u16, message: impl Into<String>) -> Refused {
    Refused {
        status,
        message: message.into(),
    }
}

/// The actions started from the page, running and ended.
#[derive(Default)]
pub(super) struct Actions {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    records: Vec<Record>,
    /// Bumped each time an action ends; the streams send what ended since they looked.
    generation: u64,
}

struct Record {
    id: u64,
    action: String,
    /// The command as a person would type it.
    command: String,
    child: Option<Child>,
    /// The generation in which it ended; `None` while it runs.
    ended: Option<u64>,
    exit_code: Option<i32>,
    /// The command's `--json` document: its result, or `{"error": …}`.
    result: Option<Value>,
    /// The end of what it wrote to stderr (warnings; a crash's message).
    stderr: String,
}

impl Record {
    fn json(&self) -> Value {
        let message = self
            .result
            .as_ref()
            .and_then(|r| r["error"]["message"].as_str())
            .map(str::to_string)
            .or_else(|| {
                (self.exit_code.is_some_and(|c| c != 0) && self.result.is_none())
                    .then(|| self.stderr.trim().to_string())
            });
        json!({
            "id": self.id,
            "action": self.action,
            "command": self.command,
            "state": if self.ended.is_some() { "ended" } else { "running" },
            "exit_code": self.exit_code,
            "message": message,
            "result": self.result,
            "stderr": self.stderr,
        })
    }
}

impl Actions {
    pub(super) fn list(&self) -> Value {
        let inner = self.lock();
        Value::Array(inner.records.iter().map(Record::json).collect())
    }

    pub(super) fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// The generation now, and each action that ended after generation `seen`, as
    /// one line of JSON.
    pub(super) fn ended_since(&self, seen: u64) -> (u64, Vec<String>) {
        let inner = self.lock();
        let ended = inner
            .records
            .iter()
            .filter(|r| r.ended.is_some_and(|g| g > seen))
            .map(|r| r.json().to_string())
            .collect();
        (inner.generation, ended)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits up to `within` for action `id` to end.
    fn wait_ended(&self, id: u64, within: Duration) {
        let deadline = Instant::now() + within;
        let ended = || {
            self.lock()
                .records
                .iter()
                .any(|r| r.id == id && r.ended.is_some())
        };
        while Instant::now() < deadline && !ended() {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn record(&self, id: u64) -> Value {
        let inner = self.lock();
        inner
            .records
            .iter()
            .find(|r| r.id == id)
            .map_or(Value::Null, Record::json)
    }
}

/// The `wf` arguments of an action the page asks for (`{"action": "retry", "task":
/// "T3"}`), after the global ones.
fn arguments(body: &Value) -> Result<(String, Vec<String>), Refused> {
    let action = body["action"].as_str().unwrap_or_default().to_string();
    let field = |name: &str| -> Result<String, Refused> {
        match body[name].as_str() {
            Some(v) if !v.is_empty() && v.len() <= 4096 && !v.contains('\0') => Ok(v.to_string()),
            _ => Err(refused(
                400,
                format!("`{action}` needs `{name}`: a text of 1 to 4096 bytes"),
            )),
        }
    };
    let args = match action.as_str() {
        "retry" => vec![
            "workflow-execute".into(),
            format!("--retry={}", field("task")?),
        ],
        "skip" => vec![
            "workflow-execute".into(),
            format!("--skip={}", field("task")?),
            format!("--reason={}", field("reason")?),
        ],
        "unblock" => vec!["workflow-unblock".into(), "--".into(), field("kind")?],
        "continue" => vec!["workflow-execute".into()],
        "resume" => vec!["resume".into()],
        "verify" => vec!["verify".into()],
        _ => {
            return Err(refused(
                400,
                "unknown action; one of retry, skip, unblock, continue, resume, verify",
            ))
        }
    };
    Ok((action, args))
}

/// Starts the action `body` asks for, and answers with its record once it has ended
/// or [`ANSWER_WITHIN`] has passed (`"state": "running"` then; the stream says when
/// it ends).
pub(super) fn start(ctx: &Ctx, body: &Value) -> Result<Value, Refused> {
    let (action, args) = arguments(body)?;
    let mut global: Vec<String> = vec![
        "-C".into(),
        ctx.workflow.project.display().to_string(),
        "--json".into(),
    ];
    if let Some(secs) = ctx.wait {
        global.push(format!("--wait={secs}"));
    }
    let command = format!(
        "wf {}",
        args.iter()
            .map(|a| crate::report::one_line(a))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let id = {
        let mut inner = ctx.actions.lock();
        let running = inner.records.iter().filter(|r| r.ended.is_none()).count();
        if running >= MAX_RUNNING {
            return Err(refused(
                429,
                format!("{running} commands started from this page are still running; wait for one to end"),
            ));
        }
        let mut child = spawn(ctx, &global, &args)
            .map_err(|e| refused(500, format!("cannot run {}: {e}", ctx.exe.display())))?;
        let id = inner.records.len() as u64 + 1;
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        inner.records.push(Record {
            id,
            action,
            command,
            child: Some(child),
            ended: None,
            exit_code: None,
            result: None,
            stderr: String::new(),
        });
        watch(Arc::clone(&ctx.actions), id, stdout, stderr);
        id
    };
    ctx.actions.wait_ended(id, ANSWER_WITHIN);
    Ok(ctx.actions.record(id))
}

fn spawn(ctx: &Ctx, global: &[String], args: &[String]) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt as _;
    Command::new(&ctx.exe)
        .args(global)
        .args(args)
        .current_dir(&ctx.workflow.project)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
}

/// Reads the child's output and records its end, on threads of their own.
fn watch(
    actions: Arc<Actions>,
    id: u64,
    stdout: Option<std::process::ChildStdout>,
    stderr: Option<std::process::ChildStderr>,
) {
    fn read_all(pipe: Option<impl Read>) -> Vec<u8> {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    }
    let err_reader = std::thread::spawn(move || read_all(stderr));
    std::thread::spawn(move || {
        let out = read_all(stdout);
        let err = err_reader.join().unwrap_or_default();
        // Both pipes are closed: the child has exited, or handed them on; wait for it.
        let code = loop {
            let mut inner = actions.lock();
            let Some(record) = inner.records.iter_mut().find(|r| r.id == id) else {
                return;
            };
            let status = record.child.as_mut().map(Child::try_wait);
            match status {
                Some(Ok(None)) => {}
                Some(Ok(Some(status))) => break status.code().unwrap_or(-1),
                Some(Err(_)) | None => break -1,
            }
            drop(inner);
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut inner = actions.lock();
        inner.generation += 1;
        let generation = inner.generation;
        if let Some(record) = inner.records.iter_mut().find(|r| r.id == id) {
            record.child = None;
            record.exit_code = Some(code);
            record.result = serde_json::from_slice(&out).ok();
            record.stderr = tail(&err, 4096);
            record.ended = Some(generation);
        }
    });
}

/// The last `max` bytes of `bytes` as text, cut at a line start when one is near.
fn tail(bytes: &[u8], max: usize) -> String {
    let start = bytes.len().saturating_sub(max);
    let from = bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .filter(|_| start > 0)
        .map_or(start, |p| start + p + 1);
    String::from_utf8_lossy(&bytes[from..]).into_owned()
}

/// At `wf ui`'s end: each command still running gets one SIGINT (a run pauses at a
/// checkpoint) and is waited for.
pub(super) fn stop_running(actions: &Arc<Actions>, out: &Output) {
    let mut pids = Vec::new();
    {
        let mut inner = actions.lock();
        for record in &mut inner.records {
            if let Some(child) = record.child.as_mut() {
                // Not reaped yet (the watcher reaps under this lock), so the pid is
                // still this child's.
                if matches!(child.try_wait(), Ok(None)) {
                    let pid = child.id() as libc::pid_t;
                    // SAFETY: kill(2) with a pid this process spawned and has not reaped.
                    unsafe {
                        libc::kill(pid, libc::SIGINT);
                    }
                    pids.push((record.id, record.command.clone()));
                }
            }
        }
    }
    for (id, command) in pids {
        out.warn(format!("waiting for `{command}` to stop"));
        actions.wait_ended(id, Duration::from_secs(30));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_action_is_the_command_a_person_types_with_values_after_equals_or_dashes() {
        let args = |body: Value| arguments(&body).map(|(_, a)| a.join(" "));
        assert_eq!(
            args(json!({"action": "retry", "task": "--all"}))
                .ok()
                .unwrap(),
            "workflow-execute --retry=--all"
        );
        assert_eq!(
            args(json!({"action": "skip", "task": "T2", "reason": "not needed"}))
                .ok()
                .unwrap(),
            "workflow-execute --skip=T2 --reason=not needed"
        );
        assert_eq!(
            args(json!({"action": "unblock", "kind": "-h"}))
                .ok()
                .unwrap(),
            "workflow-unblock -- -h"
        );
        assert_eq!(args(json!({"action": "resume"})).ok().unwrap(), "resume");
        let no_reason = args(json!({"action": "skip", "task": "T2"})).err().unwrap();
        assert_eq!(
            (no_reason.status, no_reason.message.as_str()),
            (400, "`skip` needs `reason`: a text of 1 to 4096 bytes")
        );
        let unknown = args(json!({"action": "rm"})).err().unwrap();
        assert_eq!(unknown.status, 400);
    }

    #[test]
    fn a_tail_starts_at_a_line_when_it_cuts() {
        assert_eq!(tail(b"one\ntwo\nthree\n", 100), "one\ntwo\nthree\n");
        assert_eq!(tail(b"one\ntwo\nthree\n", 9), "three\n");
    }
}
