//! What an executor's run cost, read from what it printed — the two shapes agent
//! CLIs print today — and added up per task.
//!
//! - `claude -p --output-format json` prints one result object (with
//!   `--output-format stream-json`, it is the last line): `{"type": "result",
//!   "result": "…", "total_cost_usd": 0.0123, "usage": {"input_tokens",
//!   "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}}`.
//!   Cached input is input: all three input counts are summed.
//! - `codex exec --json` prints one event per line; each `{"type": "turn.completed",
//!   "usage": {"input_tokens", "cached_input_tokens", "output_tokens"}}` is one turn,
//!   and the turns are summed (`cached_input_tokens` is part of `input_tokens`
//!   there). Codex prints no cost.
//!
//! An executor that prints neither reports no usage; the context estimate
//! (characters / 4, `run::context`) stays, marked as an estimate.

use serde_json::Value;

pub use crate::state::model::Usage;

/// Every task's usage added up, and how many tasks reported any.
pub fn total(tasks: &[crate::state::task_ref::TaskRef]) -> Total {
    let mut total = Total::default();
    for used in tasks.iter().filter_map(crate::state::model::Glance::usage) {
        total.add(used);
    }
    total
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Total {
    pub usage: Usage,
    /// Tasks whose executors reported usage.
    pub tasks: usize,
}

impl Total {
    /// One more report of usage.
    pub fn add(&mut self, used: Usage) {
        self.usage = self.usage.plus(used);
        self.tasks += 1;
    }
}

/// Why no more agent work may start, when the workflow's usage reached a budget.
pub fn over_budget(total: &Total, tokens: Option<u64>, usd: Option<f64>) -> Option<String> {
    let used = total.usage;
    if let Some(limit) = tokens.filter(|&limit| used.tokens() >= limit) {
        return Some(format!(
            "budget reached: {} tokens used, wf.budget_tokens is {limit}; raise it in the project config to go on",
            used.tokens()
        ));
    }
    match (usd, used.cost_usd) {
        (Some(limit), Some(cost)) if cost >= limit => Some(format!(
            "budget reached: ${cost:.2} spent, wf.budget_usd is ${limit:.2}; raise it in the project config to go on"
        )),
        _ => None,
    }
}

/// Why no new attempt of `task` may start, when what its attempts used reached the
/// budget per task (`wf.task_budget_tokens`, `wf.task_budget_usd`). Worded as the
/// workflow's budget is ("budget reached: …"), so every path that stops at one stops
/// at the other.
pub fn task_over_budget(
    task: &crate::state::model::Task,
    wf: &crate::config::WfSettings,
) -> Option<String> {
    let used = task.usage?;
    if let Some(limit) = wf
        .task_budget_tokens
        .filter(|&limit| used.tokens() >= limit)
    {
        return Some(format!(
            "budget reached: task {} used {} tokens, wf.task_budget_tokens is {limit}; raise it in the project config to go on",
            task.id,
            used.tokens()
        ));
    }
    match (wf.task_budget_usd, used.cost_usd) {
        (Some(limit), Some(cost)) if cost >= limit => Some(format!(
            "budget reached: task {} cost ${cost:.2}, wf.task_budget_usd is ${limit:.2}; raise it in the project config to go on",
            task.id
        )),
        _ => None,
    }
}

/// What an executor's output says it used, and the text of its answer when the
/// output was a JSON envelope around it (Claude Code's `result`), so the claim block
/// inside can still be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Reported {
    pub usage: Usage,
    pub answer: Option<String>,
}

pub fn parse(output: &str) -> Option<Reported> {
    claude(output).or_else(|| codex(output))
}

/// Claude Code's result object: the whole output, or its last JSON line.
fn claude(output: &str) -> Option<Reported> {
    let whole = std::iter::once(output.trim());
    let lines = output.lines().rev().map(str::trim);
    whole
        .chain(lines)
        .filter(|text| text.starts_with('{'))
        .find_map(|text| {
            let v: Value = serde_json::from_str(text).ok()?;
            (v.get("type")?.as_str()? == "result").then_some(())?;
            Some(Reported {
                usage: Usage {
                    cost_usd: v.get("total_cost_usd").and_then(Value::as_f64),
                    ..claude_usage(v.get("usage")?)
                },
                answer: v.get("result").and_then(Value::as_str).map(str::to_string),
            })
        })
}

/// A Claude `usage` object (the API's, in a result or a transcript's message).
/// Cached input is input: all three input counts are summed, the cached ones kept
/// apart too.
pub fn claude_usage(usage: &Value) -> Usage {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    let write = count("cache_creation_input_tokens");
    let read = count("cache_read_input_tokens");
    Usage {
        input_tokens: count("input_tokens")
            .saturating_add(write)
            .saturating_add(read),
        output_tokens: count("output_tokens"),
        cache_write_tokens: write,
        cache_read_tokens: read,
        cost_usd: None,
    }
}

/// A Codex `turn.completed` event's `usage` (`cached_input_tokens` is part of
/// `input_tokens` there).
pub fn codex_usage(usage: &Value) -> Usage {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cache_read_tokens: count("cached_input_tokens"),
        ..Usage::default()
    }
}

/// Codex's `turn.completed` events, summed.
fn codex(output: &str) -> Option<Reported> {
    let mut total: Option<Usage> = None;
    for line in output.lines().map(str::trim).filter(|l| l.starts_with('{')) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("type").and_then(Value::as_str) != Some("turn.completed") {
            continue;
        }
        let Some(usage) = v.get("usage") else {
            continue;
        };
        let turn = codex_usage(usage);
        total = Some(total.unwrap_or_default().plus(turn));
    }
    total.map(|usage| Reported {
        usage,
        answer: None,
    })
}

/// Where usage an agent reported for a handed-off task waits for the task to come
/// back: `<workflow dir>/usage/`, one file per task attempt. The hooks add what they
/// read in the agent's session (`src/agent/transcript.rs`), `done` adds what an MCP
/// client says; the engine takes it when the task comes back and records it with
/// the outcome (`Engine::take_back_handed_off`), as an executor's usage is. Keyed by
/// the attempt, so a file a crash left after its usage was recorded is never counted
/// again: the next attempt has a key of its own.
pub const PENDING_DIR: &str = "usage";

fn pending_file(workflow_dir: &std::path::Path, task: &str, attempt: u32) -> std::path::PathBuf {
    use md5::{Digest, Md5};
    let name = format!("{:x}.json", Md5::digest(format!("{task}\n{attempt}")));
    workflow_dir.join(PENDING_DIR).join(name)
}

/// The usage reported so far for attempt `attempt` of `task`, not yet recorded.
pub fn pending(workflow_dir: &std::path::Path, task: &str, attempt: u32) -> Option<Usage> {
    let bytes = crate::fs::read_regular(&pending_file(workflow_dir, task, attempt)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Adds `used` to what waits for attempt `attempt` of `task`. The read and the write
/// are one step under an `flock` of the `usage/` directory: two hooks of one session (or of
/// two) run at once, and each must add to what the other wrote, not over it. The
/// hooks hold no workflow lock (a run may hold it), so this lock is their own.
pub fn add_pending(
    workflow_dir: &std::path::Path,
    task: &str,
    attempt: u32,
    used: Usage,
) -> crate::error::Result<()> {
    let dir = workflow_dir.join(PENDING_DIR);
    crate::fs::ensure_dir(&dir)?;
    // The directory itself is what is locked (until `lock` closes): a lock file in
    // it would be one more entry where only pending usage is.
    let lock = std::fs::File::open(&dir).map_err(|e| {
        crate::error::WfError::io(&e, format!("cannot open {}: {e}", dir.display()))
    })?;
    lock.lock().map_err(|e| {
        crate::error::WfError::io(&e, format!("cannot lock {}: {e}", dir.display()))
    })?;
    let total = pending(workflow_dir, task, attempt)
        .unwrap_or_default()
        .plus(used);
    let bytes = serde_json::to_vec(&total).unwrap_or_default();
    crate::fs::durable::write_atomic(&pending_file(workflow_dir, task, attempt), &bytes)
}

/// Forgets what waited for attempt `attempt` of `task`: it is recorded.
pub fn clear_pending(workflow_dir: &std::path::Path, task: &str, attempt: u32) {
    let _ = std::fs::remove_file(pending_file(workflow_dir, task, attempt));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_usage_added_at_once_from_many_threads_loses_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let one = Usage {
            input_tokens: 1,
            output_tokens: 2,
            ..Usage::default()
        };
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let dir = dir.path().to_path_buf();
                std::thread::spawn(move || {
                    for _ in 0..25 {
                        add_pending(&dir, "T1", 1, one).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let total = pending(dir.path(), "T1", 1).unwrap();
        assert_eq!((total.input_tokens, total.output_tokens), (200, 400));
    }

    #[test]
    fn a_budget_is_reached_at_its_limit_by_tokens_or_by_cost() {
        let total = |input, output, cost| Total {
            usage: Usage {
                input_tokens: input,
                output_tokens: output,
                cost_usd: cost,
                ..Usage::default()
            },
            tasks: 1,
        };
        assert_eq!(over_budget(&total(50, 49, None), Some(100), None), None);
        assert!(over_budget(&total(50, 50, None), Some(100), None)
            .is_some_and(|why| why.contains("100 tokens used, wf.budget_tokens is 100")));
        assert_eq!(over_budget(&total(1, 1, Some(0.99)), None, Some(1.0)), None);
        assert!(over_budget(&total(1, 1, Some(1.0)), None, Some(1.0))
            .is_some_and(|why| why.contains("$1.00 spent")));
        // No cost reported: a cost budget cannot be judged, so it does not stop.
        assert_eq!(over_budget(&total(1, 1, None), None, Some(0.01)), None);
        assert_eq!(over_budget(&total(9, 9, Some(9.0)), None, None), None);
    }

    /// The shape `claude -p --output-format json` prints (field names from its docs).
    const CLAUDE: &str = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":8123,"num_turns":4,"result":"Done.\n```json\n{\"success\": true, \"changed_files\": [\"src/a.rs\"], \"summary\": \"added a\"}\n```","session_id":"abc","total_cost_usd":0.0421,"usage":{"input_tokens":12,"cache_creation_input_tokens":3000,"cache_read_input_tokens":20000,"output_tokens":845}}"#;

    #[test]
    fn claude_json_gives_tokens_cost_and_the_answer() {
        let r = parse(CLAUDE).expect("claude usage");
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 23_012,
                output_tokens: 845,
                cache_write_tokens: 3000,
                cache_read_tokens: 20_000,
                cost_usd: Some(0.0421)
            }
        );
        assert!(r.answer.unwrap().contains("```json"));
        // stream-json: the result is the last line.
        let stream = format!("{{\"type\":\"system\"}}\n{{\"type\":\"assistant\"}}\n{CLAUDE}\n");
        assert_eq!(parse(&stream).unwrap().usage.output_tokens, 845);
    }

    #[test]
    fn codex_turns_are_summed_without_a_cost() {
        let out = concat!(
            "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n",
            "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":26549,\"cached_input_tokens\":22272,\"output_tokens\":1590}}\n",
            "{\"type\":\"item.completed\"}\n",
            "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"cached_input_tokens\":0,\"output_tokens\":10}}\n",
        );
        assert_eq!(
            parse(out).unwrap().usage,
            Usage {
                input_tokens: 26_649,
                output_tokens: 1_600,
                cache_read_tokens: 22_272,
                ..Usage::default()
            }
        );
    }

    #[test]
    fn anything_else_reports_nothing() {
        for out in [
            "",
            "plain text\nTOTAL SCORE: 90",
            "{\"type\":\"result\"}",
            "{not json",
            "```json\n{\"success\": true}\n```",
        ] {
            assert_eq!(parse(out), None, "{out:?}");
        }
    }

    #[test]
    fn pending_usage_adds_up_per_attempt_until_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        let one = Usage {
            input_tokens: 10,
            output_tokens: 1,
            cache_read_tokens: 4,
            ..Usage::default()
        };
        assert_eq!(pending(w, "T1", 1), None);
        add_pending(w, "T1", 1, one).unwrap();
        add_pending(w, "T1", 1, one).unwrap();
        assert_eq!(pending(w, "T1", 1), Some(one.plus(one)));
        assert_eq!(pending(w, "T1", 2), None, "another attempt");
        assert_eq!(pending(w, "T2", 1), None, "another task");
        clear_pending(w, "T1", 1);
        assert_eq!(pending(w, "T1", 1), None);
    }

    #[test]
    fn adding_keeps_a_cost_known_on_either_side() {
        let a = Usage {
            input_tokens: 1,
            output_tokens: 2,
            ..Usage::default()
        };
        let b = Usage {
            input_tokens: 10,
            output_tokens: 20,
            cost_usd: Some(0.5),
            ..Usage::default()
        };
        assert_eq!(a.plus(b).cost_usd, Some(0.5));
        assert_eq!(a.plus(a).cost_usd, None);
        assert_eq!(a.plus(b).tokens(), 33);
    }
}
