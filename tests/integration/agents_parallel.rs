//! Several agents on one workflow at once through the CLI (`wf next|done --agent`,
//! src/agent/parallel.rs): a lease each, so two agents never get the same task; a
//! git worktree each, merged back as each task passes; a conflicting branch returned
//! to its agent with the file named and nothing merged; a lease that expires when its
//! agent goes quiet. The same through two MCP clients: tests/integration/mcp.rs.

use crate::test::{Run, Test};

/// A spec-kit plan whose two `[P]` tasks both add a line to `shared.txt`: run at once
/// in two worktrees, their branches conflict there.
const PLAN: &str = "# Tasks: demo

## Phase 1: Setup

- [ ] T001 Create base.txt (verify: `test -f base.txt`)
- [ ] T002 [P] Create a.txt and add a to shared.txt (verify: `grep -q a a.txt`)
- [ ] T003 [P] Create b.txt and add b to shared.txt (verify: `grep -q b b.txt`)
- [ ] T004 Join them in all.txt (verify: `grep -q a all.txt`)
";

/// The project of [`PLAN`], a git repository with git's identity for wf's commits,
/// with this project config when given; its workflow started.
pub fn project_with(config: Option<&str>) -> Test {
    let mut t = Test::new();
    t.git_identity();
    t.write("tasks.md", PLAN).write("shared.txt", "list:\n");
    if let Some(config) = config {
        t.config(config);
    }
    t.git_commit_all();
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t
}

fn project() -> Test {
    project_with(None)
}

/// `wf next --agent NAME [--worktree] --json`: the task it leased and where to work.
fn next(t: &Test, agent: &str, worktree: bool) -> (Option<String>, Option<std::path::PathBuf>) {
    let mut args = vec!["--json", "next", "--agent", agent];
    if worktree {
        args.push("--worktree");
    }
    let doc = t.wf(&args).ok().json();
    assert_eq!(doc["agent"], agent, "{doc}");
    let task = doc["brief"]["task"]["id"].as_str().map(str::to_string);
    let dir = doc["worktree"]["dir"]
        .as_str()
        .map(std::path::PathBuf::from);
    (task, dir)
}

fn done(t: &Test, agent: &str) -> Run {
    t.wf(&["--json", "done", "--agent", agent])
}

pub fn status_of(t: &Test, id: &str) -> String {
    let state = t.state();
    let task = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|task| task["id"] == id)
        .unwrap()
        .clone();
    task["status"].as_str().unwrap().to_string()
}

fn git(t: &Test, dir: &std::path::Path, args: &[&str]) -> String {
    let out = t
        .program("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The project's files (but `.git`) and their content: what a run leaves behind.
pub fn files(t: &Test) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(&t.project)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn two_agents_work_at_once_each_in_a_worktree_and_a_conflict_goes_back_to_its_agent() {
    let t = project();
    let (task, alice_dir) = next(&t, "alice", true);
    assert_eq!(task.as_deref(), Some("T001"));
    let alice_dir = alice_dir.expect("a worktree");
    assert!(
        alice_dir.starts_with(t.workflow_dir().join("worktrees")),
        "{alice_dir:?}"
    );
    // Nothing else is ready: bob is told so, and gets nobody's task.
    let (task, _) = next(&t, "bob", true);
    assert_eq!(task, None);
    std::fs::write(alice_dir.join("base.txt"), "base\n").unwrap();
    // Not in the project until it passes.
    assert!(!t.project.join("base.txt").exists());
    let run = done(&t, "alice").ok();
    assert_eq!(run.json()["result"], "passed", "{}", run.stdout);
    assert_eq!(t.read("base.txt"), "base\n");
    assert!(!alice_dir.exists(), "a merged worktree is removed");

    let (a, alice_dir) = next(&t, "alice", true);
    let (b, bob_dir) = next(&t, "bob", true);
    assert_eq!((a.as_deref(), b.as_deref()), (Some("T002"), Some("T003")));
    let (alice_dir, bob_dir) = (alice_dir.unwrap(), bob_dir.unwrap());
    assert_ne!(alice_dir, bob_dir);
    // Asked again, each agent gets its own task back, not another.
    assert_eq!(next(&t, "alice", true).0.as_deref(), Some("T002"));
    let status = t.wf(&["--json", "status"]).ok().json();
    let held: Vec<(&str, &str)> = status["leases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["agent"].as_str().unwrap(), l["task"].as_str().unwrap()))
        .collect();
    assert_eq!(held, [("alice", "T002"), ("bob", "T003")]);
    let text = t.wf(&["status"]).ok().stdout;
    assert!(
        text.contains("Agents:\n  alice  T002") && text.contains("bob  T003"),
        "{text}"
    );

    std::fs::write(alice_dir.join("a.txt"), "a\n").unwrap();
    std::fs::write(alice_dir.join("shared.txt"), "list:\na\n").unwrap();
    std::fs::write(bob_dir.join("b.txt"), "b\n").unwrap();
    std::fs::write(bob_dir.join("shared.txt"), "list:\nb\n").unwrap();
    assert_eq!(done(&t, "bob").ok().json()["result"], "passed");
    let before = files(&t);
    let head = git(&t, &t.project, &["rev-parse", "HEAD"]);
    // alice's branch conflicts with bob's merged work: named, nothing merged.
    let run = done(&t, "alice").code(1);
    let doc = run.json();
    assert_eq!(doc["result"], "conflict", "{}", run.stdout);
    assert_eq!(doc["conflicting_files"], serde_json::json!(["shared.txt"]));
    assert_eq!(files(&t), before, "the project's files are as they were");
    assert_eq!(git(&t, &t.project, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&t, &t.project, &["status", "--porcelain"]), "");
    assert_eq!(status_of(&t, "T002"), "in_progress");
    assert_eq!(next(&t, "alice", true).0.as_deref(), Some("T002"));
    // alice settles it in her worktree, as the answer says.
    let merged = t
        .program("git")
        .args(["merge", "-q", doc["head"].as_str().unwrap()])
        .current_dir(&alice_dir)
        .output()
        .unwrap();
    assert!(
        !merged.status.success(),
        "the merge conflicts in the worktree too"
    );
    std::fs::write(alice_dir.join("shared.txt"), "list:\na\nb\n").unwrap();
    git(&t, &alice_dir, &["commit", "-qam", "settle shared.txt"]);
    assert_eq!(done(&t, "alice").ok().json()["result"], "passed");

    let (task, dir) = next(&t, "bob", true);
    assert_eq!(task.as_deref(), Some("T004"));
    std::fs::write(dir.unwrap().join("all.txt"), "a\nb\n").unwrap();
    assert_eq!(done(&t, "bob").ok().json()["result"], "passed");
    for id in ["T001", "T002", "T003", "T004"] {
        assert_eq!(status_of(&t, id), "completed", "{id}");
    }
    // No task was done twice: each was handed off once.
    let handoffs = t
        .events()
        .iter()
        .filter(|e| e["type"] == "task.status_changed" && e["data"]["to"] == "in_progress")
        .count();
    assert_eq!(handoffs, 4);
    assert_eq!(files(&t), serial_run());
}

/// The same plan done by one agent in the project's own checkout, task after task.
pub fn serial_run() -> Vec<(String, String)> {
    let t = project();
    let edits: [&[(&str, &str)]; 4] = [
        &[("base.txt", "base\n")],
        &[("a.txt", "a\n"), ("shared.txt", "list:\na\n")],
        &[("b.txt", "b\n"), ("shared.txt", "list:\na\nb\n")],
        &[("all.txt", "a\nb\n")],
    ];
    for edit in edits {
        assert!(next(&t, "solo", false).0.is_some());
        for (file, content) in edit {
            t.write(file, content);
        }
        assert_eq!(done(&t, "solo").ok().json()["result"], "passed");
    }
    files(&t)
}

/// `wf next --agent bob` at the time `now`.
fn bob_at(t: &Test, now: &str) -> serde_json::Value {
    let out = t
        .command(&["--json", "next", "--agent", "bob"])
        .env("WF_NOW", now)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_quiet_agents_lease_expires_and_its_task_goes_to_another() {
    let t = project();
    assert_eq!(next(&t, "alice", false).0.as_deref(), Some("T001"));
    // Within the lease time (an hour by default) bob waits.
    assert_eq!(
        bob_at(&t, "2026-01-08T10:59:00Z")["brief"],
        serde_json::Value::Null
    );
    let doc = bob_at(&t, "2026-01-08T11:00:00Z");
    assert_eq!(doc["brief"]["task"]["id"], "T001", "{doc}");
    let back = t
        .events()
        .into_iter()
        .find(|e| e["data"]["to"] == "pending" && e["task_id"] == "T001")
        .expect("T001 went back to pending");
    assert!(
        back["data"]["reason"]
            .as_str()
            .unwrap()
            .contains("lease of agent alice expired"),
        "{back}"
    );
    // alice's word comes too late: the task is bob's now.
    let run = done(&t, "alice").code(2);
    assert!(
        run.stderr.contains("agent alice holds no task"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_agent_name_must_be_printable_and_done_needs_a_lease() {
    let t = project();
    let run = t.wf(&["next", "--agent", "a\u{1b}[2J"]).code(2);
    assert!(run.stderr.contains("agent name"), "{}", run.stderr);
    let run = t.wf(&["done", "--agent", "nobody"]).code(2);
    assert!(
        run.stderr
            .contains("agent nobody holds no task; `wf next --agent nobody` leases one"),
        "{}",
        run.stderr
    );
    let run = t.wf(&["next", "--worktree"]).code(2);
    assert!(run.stderr.contains("--agent"), "{}", run.stderr);
}

/// `wf hook EVENT` with Claude Code's payload for session `session`.
fn hook(t: &mut Test, event: &str, session: &str) -> serde_json::Value {
    let payload = serde_json::json!({
        "session_id": session,
        "cwd": t.project.display().to_string(),
        "hook_event_name": event,
    });
    t.stdin(payload.to_string());
    let run = t.wf(&["hook", event]).ok();
    assert_eq!(run.stderr, "", "{event}");
    serde_json::from_str(run.stdout.trim()).unwrap_or(serde_json::Value::Null)
}

/// Two Claude Code sessions in one checkout, each holding a lease under its
/// `session_id`: each is briefed on, checked for and handed its own task, never the
/// other's.
#[test]
fn hooks_keep_each_session_to_its_own_leased_task() {
    let mut t = project();
    assert_eq!(next(&t, "s-a", false).0.as_deref(), Some("T001"));
    t.write("base.txt", "base\n");
    // s-a's passing Stop records T001 and hands it the next task, leased to it.
    let stop = hook(&mut t, "Stop", "s-a");
    assert_eq!(stop["decision"], "block", "{stop}");
    assert_eq!(status_of(&t, "T001"), "completed");
    assert_eq!(next(&t, "s-a", false).0.as_deref(), Some("T002"));
    assert_eq!(next(&t, "s-b", false).0.as_deref(), Some("T003"));
    let context = hook(&mut t, "UserPromptSubmit", "s-b");
    let text = context["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("# T003") && !text.contains("# T002"),
        "{text}"
    );
    // s-b's work passes; s-a's task (a.txt missing) is not s-b's to fail.
    t.write("b.txt", "b\n");
    let stop = hook(&mut t, "Stop", "s-b");
    assert_eq!(status_of(&t, "T003"), "completed", "{stop}");
    assert_eq!(status_of(&t, "T002"), "in_progress");
    assert_eq!(next(&t, "s-a", false).0.as_deref(), Some("T002"));
}

/// A task that fails in one agent's hands stays that agent's to fix; the other goes
/// on with its own.
#[test]
fn a_failure_is_its_agents_and_the_other_goes_on() {
    let t = project();
    next(&t, "alice", false);
    t.write("base.txt", "base\n");
    done(&t, "alice").ok();
    assert_eq!(next(&t, "alice", false).0.as_deref(), Some("T002"));
    assert_eq!(next(&t, "bob", false).0.as_deref(), Some("T003"));
    // alice says done with nothing done: T002 fails, and is still hers.
    let run = done(&t, "alice").code(1);
    assert_eq!(run.json()["result"], "failed", "{}", run.stdout);
    assert_eq!(status_of(&t, "T002"), "failed");
    // bob is neither handed alice's failure nor stopped by it.
    let doc = t.wf(&["--json", "next", "--agent", "bob"]).ok().json();
    assert_eq!(doc["brief"]["task"]["id"], "T003", "{doc}");
    t.write("b.txt", "b\n");
    assert_eq!(done(&t, "bob").ok().json()["result"], "passed");
    // alice fixes it and says done again: checked again, and passes.
    t.write("a.txt", "a\n");
    let run = done(&t, "alice").ok();
    assert_eq!(run.json()["result"], "passed", "{}", run.stdout);
    assert_eq!(status_of(&t, "T002"), "completed");
}
