//! What each task cost (issue 16 item 5): the usage an executor prints — in the
//! shapes of `claude -p --output-format json` and `codex exec --json`, from fake
//! agents in `fixtures/agents/` — is recorded per attempt in the task, the
//! `task.execution_result` event and `contextMetrics.history`; `wf status` shows the
//! totals and the most expensive tasks; a budget stops agent work.

use serde_json::{json, Value};

use crate::plans::{plan, start, task, task_status};
use crate::test::{fixture, Test};

fn agent(name: &str) -> String {
    fixture(&format!("agents/{name}")).display().to_string()
}

/// Agent tasks (each creates hello.txt), done by `script`, with `extra` config.
fn project(script: &str, tasks: &[&str], extra: Value) -> Test {
    let t = Test::new();
    let mut wf = json!({"executors": [{"name": "coder", "command": [agent(script)], "capabilities": ["implement"]}]});
    for (k, v) in extra.as_object().into_iter().flatten() {
        wf[k] = v.clone();
    }
    t.config(json!({ "wf": wf }).to_string());
    let tasks: Vec<_> = tasks
        .iter()
        .map(|id| {
            task(id, "impl")
                .field("actions", "create_file")
                .field("创建文件", "hello.txt")
                .verify("grep -q hello hello.txt")
        })
        .collect();
    start(&t, &plan(&tasks));
    t
}

fn results(t: &Test) -> Vec<Value> {
    t.events()
        .into_iter()
        .filter(|e| e["type"] == "task.execution_result" && e["actor"] == "coder.executor")
        .collect()
}

fn task_of<'a>(state: &'a Value, id: &str) -> &'a Value {
    state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap()
}

#[test]
fn claude_usage_is_recorded_in_the_task_the_event_and_the_history() {
    let t = project("claude-json.sh", &["T1"], json!({}));
    t.wf(&["workflow-execute", "--all"]).ok();
    let state = t.state();
    assert_eq!(
        task_status(&state, "T1"),
        "completed",
        "the claim inside `result` was read"
    );
    // The cached input is kept apart too (issue 52), still counted in input_tokens.
    let want = json!({"input_tokens": 23012, "output_tokens": 845, "cache_write_tokens": 3000, "cache_read_tokens": 20000, "cost_usd": 0.0421});
    assert_eq!(task_of(&state, "T1")["usage"], want);
    assert_eq!(results(&t)[0]["data"]["usage"], want);
    let history = state["contextMetrics"]["history"].as_array().unwrap();
    let last = history.last().unwrap();
    assert_eq!(
        (
            &last["taskId"],
            &last["tokens"],
            &last["estimated"],
            &last["costUsd"]
        ),
        (&json!("T1"), &json!(23857), &json!(false), &json!(0.0421))
    );
}

#[test]
fn codex_turns_are_added_up_and_carry_no_cost() {
    let t = project("codex-json.sh", &["T1"], json!({}));
    t.wf(&["workflow-execute", "--all"]).ok();
    assert_eq!(
        task_of(&t.state(), "T1")["usage"],
        json!({"input_tokens": 32794, "output_tokens": 1997, "cache_read_tokens": 27648})
    );
}

#[test]
fn without_reported_usage_the_history_keeps_the_estimate_marked_as_one() {
    let t = project("edits-and-claims.sh", &["T1"], json!({}));
    t.wf(&["workflow-execute", "--all"]).ok();
    let state = t.state();
    assert_eq!(task_of(&state, "T1").get("usage"), None);
    let last = state["contextMetrics"]["history"]
        .as_array()
        .unwrap()
        .last()
        .cloned()
        .unwrap();
    assert_eq!(last["estimated"], true);
    assert!(t
        .wf(&["status", "--json"])
        .ok()
        .json()
        .get("usage")
        .is_none());
}

#[test]
fn status_shows_the_totals_and_the_most_expensive_tasks() {
    let mut t = project("claude-json.sh", &["T1", "T2"], json!({}));
    t.wf(&["workflow-execute", "--step"]).ok();
    t.env("FAKE_TOKENS", "2");
    t.wf(&["workflow-execute", "--all"]).ok();
    let v = t.wf(&["status", "--json"]).ok().json();
    assert_eq!(v["usage"]["input_tokens"], 69036);
    assert_eq!(v["usage"]["output_tokens"], 2535);
    assert_eq!(v["usage"]["tasks"], 2);
    let order: Vec<&str> = v["usage"]["most_expensive"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["T2", "T1"], "same cost: more tokens first");
    let text = t.wf(&["status"]).ok().stdout;
    let row = text
        .lines()
        .find(|l| l.contains("Usage"))
        .expect("a Usage row");
    assert!(
        row.contains(
            "71,571 tokens (69,036 in, 2,535 out), $0.08 over 2 tasks; most: T2 $0.04, T1 $0.04"
        ),
        "{row}"
    );
}

#[test]
fn a_token_budget_stops_agent_work_with_the_reason() {
    let t = project(
        "claude-json.sh",
        &["T1", "T2"],
        json!({"budget_tokens": 20000}),
    );
    let run = t.wf(&["workflow-execute", "--all"]).ok();
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "completed");
    assert_eq!(task_status(&state, "T2"), "pending");
    assert_eq!(state["status"], "paused");
    assert!(
        run.stdout.contains("Paused (budget reached: 23857 tokens used, wf.budget_tokens is 20000; raise it in the project config to go on)"),
        "{}",
        run.stdout
    );
    // In CI too: a budget is not a pause CI may skip, and the job fails with exit 3
    // (a person must raise the budget), not green with half the plan not run.
    let v = t
        .wf(&["workflow-execute", "--all", "--ci", "--json"])
        .code(3)
        .json();
    assert_eq!(
        (
            v["stop"].as_str(),
            v["ran"].as_u64(),
            v["exit_code"].as_i64()
        ),
        (Some("paused"), Some(0), Some(3))
    );
}

#[test]
fn a_cost_budget_stops_agent_work_too() {
    let t = project("claude-json.sh", &["T1", "T2"], json!({"budget_usd": 0.04}));
    let v = t.wf(&["workflow-execute", "--all", "--json"]).ok().json();
    assert_eq!(v["ran"], 1);
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .starts_with("budget reached: $0.04 spent, wf.budget_usd is $0.04"),
        "{v}"
    );
}

#[test]
fn a_bad_budget_is_refused_with_its_place() {
    let t = Test::new();
    t.config(r#"{"wf": {"budget_usd": -1}}"#);
    t.write("tasks.md", plan(&[task("T1", "a").verify("true")]));
    insta::assert_snapshot!(t.wf(&["workflow-start", "tasks.md"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: [ROOT]/project/.claude/config/project-config.json: wf.budget_usd is -1; set it to a positive number of US dollars or remove it
    ");
}

/// A budget per task (`wf.task_budget_tokens`): a task whose attempts used it up gets
/// no new attempt, whatever the workflow's budget; the reason names the task.
#[test]
fn a_task_budget_stops_that_tasks_next_attempt() {
    let t = Test::new();
    t.config(
        json!({"wf": {
            "executors": [{"name": "coder", "command": [agent("claude-json.sh")], "capabilities": ["implement"]}],
            "max_retries": 3,
            "task_budget_tokens": 20000,
        }})
        .to_string(),
    );
    start(
        &t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("grep -q never hello.txt")]),
    );
    let v = t.wf(&["workflow-execute", "--all", "--json"]).ok().json();
    let state = t.state();
    assert_eq!(task_of(&state, "T1")["attempts"], 1, "{v}");
    assert_eq!(results(&t).len(), 1, "one attempt, no retry");
    assert!(
        v["reason"].as_str().unwrap_or_default().starts_with(
            "budget reached: task T1 used 23857 tokens, wf.task_budget_tokens is 20000"
        ),
        "{v}"
    );
}

/// The usage shows wherever a task's result does: `wf show`, the GitHub job summary,
/// and the proof document (per task and in all), whose digest still holds.
#[test]
fn usage_shows_in_show_the_job_summary_and_the_proof() {
    let t = project("claude-json.sh", &["T1"], json!({}));
    t.wf(&["workflow-execute", "--all"]).ok();
    let show = t.wf(&["show", "T1"]).ok().stdout;
    assert!(
        show.contains("usage      23,857 tokens (23,012 in, 845 out"),
        "{show}"
    );
    let summary = t.wf(&["report", "github-summary"]).ok().stdout;
    assert!(summary.contains("**Usage:** 23,857 tokens"), "{summary}");
    let proof = t.wf(&["proof", "export", "-"]).ok();
    let doc = proof.json();
    assert_eq!(doc["tasks"][0]["usage"]["input_tokens"], 23_012, "{doc}");
    assert_eq!(doc["usage"]["output_tokens"], 845, "{doc}");
    t.write("proof.json", &proof.stdout);
    t.wf(&["proof", "check", "proof.json"]).ok();
}
