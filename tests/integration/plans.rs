//! Building claude-workflow plans in tests, and the invariants every run must keep.

use serde_json::Value;

use crate::test::Test;

/// One task: id, phase, and extra `- **field**: value` lines.
pub struct T<'a> {
    pub id: &'a str,
    pub phase: &'a str,
    pub fields: Vec<(&'a str, String)>,
}

pub fn task<'a>(id: &'a str, phase: &'a str) -> T<'a> {
    T {
        id,
        phase,
        fields: Vec::new(),
    }
}

impl<'a> T<'a> {
    pub fn field(mut self, name: &'a str, value: impl Into<String>) -> Self {
        self.fields.push((name, value.into()));
        self
    }

    /// 验证命令 in backticks.
    pub fn verify(self, cmd: &str) -> Self {
        self.field("验证命令", format!("`{cmd}`"))
    }

    pub fn deps(self, deps: &str) -> Self {
        self.field("依赖", deps)
    }
}

pub fn plan(tasks: &[T<'_>]) -> String {
    let mut text = String::from("# Tasks: test plan\n\n");
    for t in tasks {
        text.push_str(&format!("## {}: task {}\n", t.id, t.id));
        text.push_str(&format!("- **阶段**: {}\n", t.phase));
        text.push_str(&format!("- **需求**: do {}\n", t.id));
        for (k, v) in &t.fields {
            text.push_str(&format!("- **{k}**: {v}\n"));
        }
        text.push('\n');
    }
    text
}

/// Writes `plan` as tasks.md and imports it.
pub fn start(t: &Test, plan: &str) {
    t.write("tasks.md", plan);
    t.wf(&["workflow-start", "tasks.md"]).ok();
}

/// Imports a plan of two tasks: T1, checked by `true`, then T2, a quality gate.
pub fn start_gated(t: &Test) {
    start(
        t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "b").field("质量关卡", "true").deps("T1"),
        ]),
    );
}

/// Adds the hard constraint `a changelog is kept` (`test -f CHANGELOG.md`) with
/// the `extra` flags; its id.
pub fn add_changelog_constraint(t: &Test, extra: &[&str]) -> String {
    let mut args = vec![
        "constraints",
        "add",
        "a changelog is kept",
        "--verify-cmd",
        "test -f CHANGELOG.md",
    ];
    args.extend_from_slice(extra);
    t.wf(&args).ok().stdout.trim().to_string()
}

/// Every task's id and status, in order.
pub fn statuses(state: &Value) -> Vec<(String, String)> {
    state["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["id"].as_str().unwrap_or("").to_string(),
                t["status"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

pub fn task_status(state: &Value, id: &str) -> String {
    state["tasks"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["id"] == id))
        .map_or_else(
            || panic!("no task {id} in state"),
            |t| t["status"].as_str().unwrap_or("").to_string(),
        )
}

/// The state agrees with itself and with the plan copy: progress lists match the
/// task statuses, and the plan copy shows completed/skipped tasks as such.
#[track_caller]
pub fn assert_invariants(t: &Test) {
    let state = t.state();
    let tasks = state["tasks"].as_array().cloned().unwrap_or_default();
    for (list, status) in [
        ("completed", "completed"),
        ("failed", "failed"),
        ("skipped", "skipped"),
        ("blocked", "blocked"),
    ] {
        let expected: Vec<&str> = tasks
            .iter()
            .filter(|t| t["status"] == status)
            .filter_map(|t| t["id"].as_str())
            .collect();
        let actual: Vec<&str> = state["progress"][list]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        assert_eq!(
            actual, expected,
            "progress.{list} disagrees with the task statuses"
        );
    }
    let copy_path = t
        .workflow_dir()
        .join(state["tasks_file"].as_str().unwrap_or(""));
    let copy = std::fs::read_to_string(&copy_path).expect("plan copy");
    let parsed = wf::plan::parse(&copy_path, &copy).expect("plan copy parses");
    for task in &parsed.tasks {
        let in_state = task_status(&state, &task.id);
        let done_in_copy = task.status.is_done();
        let done_in_state = in_state == "completed" || in_state == "skipped";
        assert_eq!(
            done_in_copy, done_in_state,
            "plan copy and state disagree on {}",
            task.id
        );
    }
}
