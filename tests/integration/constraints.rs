//! `wf constraints …` end to end: add/list/remove/promote, merging model outputs,
//! verifying hard constraints, and refusing bad input without touching the state.
//!
//! `workflow-start` is not merged on this branch yet, so each test writes a minimal
//! state file directly.

use serde_json::{json, Value};

use crate::test::{snapshot_dir, Test};

fn with_state(constraints: Value) -> Test {
    let t = Test::new();
    std::fs::create_dir_all(t.workflow_dir()).unwrap();
    let state =
        json!({"status": "planned", "project_name": "p", "tasks": [], "constraints": constraints});
    std::fs::write(
        t.workflow_dir().join("workflow-state.json"),
        serde_json::to_vec_pretty(&state).unwrap(),
    )
    .unwrap();
    t
}

fn empty() -> Test {
    with_state(json!({}))
}

fn constraints(t: &Test) -> Value {
    t.wf(&["constraints", "list", "--json"]).ok().json()["constraints"].clone()
}

#[test]
fn add_list_remove_promote() {
    let t = empty();
    let run = t
        .wf(&["constraints", "add", "API 响应必须包含 requestId"])
        .ok();
    assert_eq!(run.stdout.trim(), "C001");
    let run = t
        .wf(&[
            "constraints",
            "add",
            "建议使用 zod 进行输入验证",
            "--soft",
            "--source",
            "claude",
        ])
        .ok();
    assert_eq!(run.stdout.trim(), "C002");
    let added = t
        .wf(&[
            "constraints",
            "add",
            "--category",
            "security",
            "--phase",
            "review",
            "--verify-cmd",
            "test -f x",
            "--json",
            "no secrets in logs",
        ])
        .ok()
        .json();
    assert_eq!(added["id"], "C003");

    let c = constraints(&t);
    assert_eq!(c["hard"][0]["category"], "interface");
    assert_eq!(c["hard"][0]["sourceModel"], "user");
    assert_eq!(c["hard"][0]["type"], "hard");
    assert_eq!(c["soft"][0]["category"], "data");
    assert_eq!(c["soft"][0]["sourceModel"], "claude");
    assert_eq!(c["hard"][1]["verifyCmd"], "test -f x");
    assert_eq!(c["hard"][1]["phase"], "review");

    let table = t.wf(&["constraints", "list"]).ok().stdout;
    for word in ["C001", "C002", "C003", "interface", "claude", "test -f x"] {
        assert!(table.contains(word), "{word} missing from:\n{table}");
    }

    t.wf(&["constraints", "promote", "C002"]).ok();
    let c = constraints(&t);
    assert_eq!(c["soft"], json!([]));
    assert_eq!(c["hard"][2]["id"], "C002");
    assert_eq!(c["hard"][2]["type"], "hard");
    let err = t.wf(&["constraints", "promote", "C002"]).code(2).stderr;
    assert!(err.contains("C002 is already a hard"), "{err}");

    t.wf(&["constraints", "remove", "C001"]).ok();
    let err = t.wf(&["constraints", "remove", "C001"]).code(2).stderr;
    assert!(err.contains("no constraint C001"), "{err}");
    assert_eq!(constraints(&t)["hard"].as_array().unwrap().len(), 2);

    // Ids are not reused after a removal.
    let run = t.wf(&["constraints", "add", "-q", "again"]).ok();
    assert_eq!(run.stdout, "");
    assert_eq!(constraints(&t)["hard"][2]["id"], "C004");

    let kinds: Vec<String> = t
        .events()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            "constraint.added",
            "constraint.added",
            "constraint.added",
            "constraint.promoted",
            "constraint.removed",
            "constraint.added"
        ]
    );
}

#[test]
fn invalid_enum_values_are_usage_errors() {
    let t = empty();
    let run = t
        .wf(&["constraints", "add", "x", "--category", "speed"])
        .code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: invalid value 'speed' for '--category <CATEGORY>' [possible values: requirement, interface, data, error, security, performance]; see `wf constraints add --help`
    ");
    t.wf(&["constraints", "add", "x", "--source", "gpt"])
        .code(2);
}

fn c(id: &str, desc: &str, source: &str) -> Value {
    json!({"id": id, "description": desc, "sourceModel": source, "phase": "analysis"})
}

#[test]
fn merge_ranks_intersects_and_reports_drops() {
    let t = with_state(json!({
        "hard": [{"id": "C001", "description": "existing rule", "type": "hard",
                  "category": "requirement", "sourceModel": "user", "phase": "analysis"}]
    }));
    let codex = json!({
        "hard": [c("C010", "API 响应必须包含 requestId", "codex"), c("C011", "no plaintext passwords", "codex"),
                 c("C012", "h3", "codex"), c("C013", "h4", "codex")],
        "soft": [c("S1", "use zod", "codex"), c("S2", "small functions", "codex")],
        "openQuestions": ["which db?", "pagination style?"],
        "successCriteria": ["types pass", "tests pass", "coverage > 80%"],
    });
    let gemini = json!({
        "hard": [c("C010", "API 响应必须包含 requestId", "gemini"), c("C020", "h5", "gemini"),
                 c("C021", "h6", "gemini"), c("C022", "h7", "gemini"), c("C023", "h8", "gemini")],
        "soft": [c("S9", "prefer css modules", "gemini"), c("S3", "use zod", "gemini")],
        "openQuestions": ["which db?"],
        "successCriteria": ["tests pass", "types pass", "looks right"],
    });
    let claude = json!({
        "soft": [c("S5", "small functions", "claude"), c("S6", "use zod", "claude")],
        "openQuestions": ["q3", "q4", "q5", "q6"],
        "successCriteria": [],
    });
    for (name, set) in [
        ("codex.json", &codex),
        ("gemini.json", &gemini),
        ("claude.json", &claude),
    ] {
        t.write(name, serde_json::to_vec_pretty(set).unwrap());
    }
    let run = t
        .wf(&[
            "constraints",
            "merge",
            "codex.json",
            "gemini.json",
            "claude.json",
        ])
        .ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    Merged 3 files: 7 hard, 3 soft, 5 open questions, 2 success criteria.
    Dropped by the cap of 7 hard constraints: C022 h7; C023 h8
    Dropped by the cap of 5 open questions: q6
    Not shared by every set, so not success criteria: coverage > 80%; looks right
    --- stderr
    ");

    let cs = constraints(&t);
    let ids: Vec<&str> = cs["hard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    // The state's own constraint leads; C010 from two models is one constraint.
    assert_eq!(
        ids,
        ["C001", "C010", "C011", "C012", "C013", "C020", "C021"]
    );
    assert_eq!(cs["hard"][2]["category"], "security");
    let soft: Vec<&str> = cs["soft"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["description"].as_str().unwrap())
        .collect();
    // "use zod": 3 sets, "small functions": 2, "prefer css modules": 1.
    assert_eq!(soft, ["use zod", "small functions", "prefer css modules"]);
    // Claude's empty list does not veto; codex ∩ gemini in codex's order.
    assert_eq!(cs["successCriteria"], json!(["types pass", "tests pass"]));
    assert_eq!(
        cs["openQuestions"],
        json!(["which db?", "pagination style?", "q3", "q4", "q5"])
    );

    // The same merge as JSON, again: nothing new, and the report says what was left out.
    let report = t
        .wf(&[
            "constraints",
            "merge",
            "--json",
            "codex.json",
            "gemini.json",
            "claude.json",
        ])
        .ok()
        .json();
    assert_eq!(report["dropped"]["hard"][0]["id"], "C022");
    assert_eq!(report["dropped"]["open_questions"], json!(["q6"]));
    assert_eq!(
        report["unshared_criteria"],
        json!(["coverage > 80%", "looks right"])
    );
    assert_eq!(constraints(&t)["hard"].as_array().unwrap().len(), 7);
    let merged: Vec<Value> = t
        .events()
        .into_iter()
        .filter(|e| e["type"] == "constraint.merged")
        .collect();
    assert_eq!(merged.len(), 2);
}

#[test]
fn invalid_constraint_json_names_the_position_and_changes_nothing() {
    let t = with_state(
        json!({"hard": [{"id": "C001", "description": "keep", "type": "hard",
        "category": "requirement", "sourceModel": "user", "phase": "analysis"}]}),
    );
    t.write("good.json", r#"{"openQuestions": ["q"]}"#);
    t.write("bad.json", "{\n  \"hard\": [\n    {\"id\": \"C9\",, }\n");
    t.write(
        "shape.json",
        "{\n  \"soft\": [{\"id\": \"S1\", \"description\": \"d\",\n    \"sourceModel\": \"gpt\"}]\n}\n",
    );
    let before = snapshot_dir(&t.workflow_dir());
    let run = t
        .wf(&["constraints", "merge", "good.json", "bad.json"])
        .code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: bad.json:3:17: not a constraint set: key must be a string
    ");
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    let run = t.wf(&["constraints", "merge", "shape.json"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: shape.json:3:24: not a constraint set: unknown variant `gpt`, expected one of `codex`, `gemini`, `claude`, `user`
    ");
    let run = t.wf(&["constraints", "merge", "missing.json"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: missing.json: failed to open file `missing.json`: No such file or directory (os error 2)
    ");
    assert_eq!(snapshot_dir(&t.workflow_dir()), before);
}

fn hard_with(cmds: &[(&str, &str)]) -> Test {
    let hard: Vec<Value> = cmds
        .iter()
        .map(|(id, cmd)| {
            json!({"id": id, "description": format!("checked by {cmd}"), "type": "hard",
                   "category": "requirement", "sourceModel": "user", "phase": "analysis",
                   "verifyCmd": cmd})
        })
        .collect();
    with_state(json!({"hard": hard}))
}

#[test]
fn verify_passing_and_unchecked() {
    let t = with_state(json!({"hard": [
        {"id": "C001", "description": "x exists", "type": "hard", "category": "requirement",
         "sourceModel": "user", "phase": "analysis", "verifyCmd": "test -f x"},
        {"id": "C002", "description": "tests pass", "type": "hard", "category": "requirement",
         "sourceModel": "user", "phase": "analysis", "verifyCmd": "test"},
        {"id": "C003", "description": "prose only", "type": "hard", "category": "requirement",
         "sourceModel": "user", "phase": "analysis"}
    ]}));
    t.write("x", "");
    t.config(r#"{"scripts": {"test": "true"}}"#);
    let run = t.wf(&["constraints", "verify"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ┌──────┬───────────────────┬───────────┬─────────┐
    │ id   ┆ result            ┆ verifyCmd ┆ details │
    ╞══════╪═══════════════════╪═══════════╪═════════╡
    │ C001 ┆ passed            ┆ test -f x ┆         │
    │ C002 ┆ passed            ┆ test      ┆         │
    │ C003 ┆ no verify command ┆ -         ┆         │
    └──────┴───────────────────┴───────────┴─────────┘
    2 hard constraint(s) passed; 1 have no verify command.
    --- stderr
    ");
    let c = constraints(&t);
    assert_eq!(c["hard"][0]["verified"], true);
    assert_eq!(c["hard"][1]["verified"], true);
    assert_eq!(c["hard"][2].get("verified"), None);
    let records = c["verifications"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["details"], "passed");
    assert_eq!(records[0]["checkedAt"], crate::test::NOW);

    // Again, one id: still one record per constraint.
    t.wf(&["constraints", "verify", "C001"]).ok();
    assert_eq!(
        constraints(&t)["verifications"].as_array().unwrap().len(),
        2
    );
    let verified = t
        .events()
        .iter()
        .filter(|e| e["type"] == "constraint.verified")
        .count();
    assert_eq!(verified, 3);
}

#[test]
fn verify_failing_exits_one_with_the_output() {
    let t = hard_with(&[("C001", "test -d ."), ("C002", "grep -q needle hay.txt")]);
    t.write("hay.txt", "straw\n");
    let run = t.wf(&["constraints", "verify"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ┌──────┬────────┬────────────────────────┬────────────────────────────────────────┐
    │ id   ┆ result ┆ verifyCmd              ┆ details                                │
    ╞══════╪════════╪════════════════════════╪════════════════════════════════════════╡
    │ C001 ┆ passed ┆ test -d .              ┆                                        │
    │ C002 ┆ FAILED ┆ grep -q needle hay.txt ┆ `grep -q needle hay.txt` exited with 1 │
    └──────┴────────┴────────────────────────┴────────────────────────────────────────┘
    --- stderr
    wf: 1 hard constraint(s) failed: C002
    ");
    let report = t.wf(&["constraints", "verify", "--json"]).code(1).json();
    assert_eq!(report["passed"], false);
    assert_eq!(report["failed"], json!(["C002"]));
    let c = constraints(&t);
    assert_eq!(c["hard"][0]["verified"], true);
    assert_eq!(c["hard"][1]["verified"], false);
    let details = c["verifications"][1]["details"].as_str().unwrap();
    assert!(details.contains("exited with 1"), "{details}");
}

#[test]
fn verify_refuses_commands_outside_the_allowlist_without_running_them() {
    let t = hard_with(&[("C001", "touch pwned"), ("C002", "sh -c 'touch pwned2'")]);
    let run = t.wf(&["constraints", "verify", "--json"]).code(1);
    let report = run.json();
    for r in report["results"].as_array().unwrap() {
        let details = r["details"].as_str().unwrap();
        assert!(details.starts_with("refused:"), "{details}");
        assert!(details.contains("wf.allowed_command_prefixes"), "{details}");
        assert!(
            details.contains(".claude/config/project-config.json"),
            "{details}"
        );
    }
    assert!(!t.project.join("pwned").exists());
    assert!(!t.project.join("pwned2").exists());

    // Allowed once the project says so.
    t.config(r#"{"wf": {"allowed_command_prefixes": ["touch"]}}"#);
    t.wf(&["constraints", "verify", "C001"]).ok();
    assert!(t.project.join("pwned").exists());
}

#[test]
fn add_refuses_a_verify_cmd_that_verify_would_refuse_with_its_message() {
    let t = empty();
    let before = snapshot_dir(&t.workflow_dir());
    let run = t.wf(&["constraints", "add", "made", "--verify-cmd", "touch made"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: refused: `touch made` does not start with an allowed command prefix, so the constraint was not added; to allow it, add its prefix to wf.allowed_command_prefixes in .claude/config/project-config.json (setting it replaces the defaults, so list every prefix you need)
    ");
    let run = t.wf(&["constraints", "add", "quoted", "--verify-cmd", "grep 'x"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: cannot read `grep 'x`: unbalanced single quote, so the constraint was not added; write it as words, quoted as in a shell (nothing is expanded)
    ");
    // Refused before the lock: not even a lock file or an event was written.
    assert_eq!(snapshot_dir(&t.workflow_dir()), before);

    // verify says the same of the same command, but for what it stopped.
    let held = hard_with(&[("C001", "touch made")]);
    let report = held.wf(&["constraints", "verify", "--json"]).code(1).json();
    let verify_says = report["results"][0]["details"]
        .as_str()
        .unwrap()
        .to_string();
    let add_says =
        run_stderr_line(&t.wf(&["constraints", "add", "made", "--verify-cmd", "touch made"]));
    assert_eq!(
        add_says.replace("so the constraint was not added", "so it was not run"),
        verify_says
    );

    // Builtin names pass (whether the project has one is for later), and so does a
    // command once its prefix is allowed.
    t.wf(&["constraints", "add", "lint passes", "--verify-cmd", "lint"])
        .ok();
    t.config(r#"{"wf": {"allowed_command_prefixes": ["touch"]}}"#);
    t.wf(&["constraints", "add", "made", "--verify-cmd", "touch made"])
        .ok();
}

fn run_stderr_line(run: &crate::test::Run) -> String {
    run.stderr
        .trim_end()
        .strip_prefix("wf: error: ")
        .unwrap_or_else(|| panic!("not one error line: {}", run.stderr))
        .to_string()
}

#[test]
fn verify_names_a_missing_tool() {
    let t = hard_with(&[("C001", "wf-no-such-linter --strict")]);
    t.config(r#"{"wf": {"allowed_command_prefixes": ["wf-no-such-linter"]}}"#);
    let report = t.wf(&["constraints", "verify", "--json"]).code(1).json();
    assert_eq!(
        report["results"][0]["details"],
        "`wf-no-such-linter` is not on PATH"
    );
}

#[test]
fn verify_of_a_soft_or_unknown_id_is_a_usage_error() {
    let t = empty();
    t.wf(&["constraints", "add", "--soft", "nice to have"]).ok();
    let err = t.wf(&["constraints", "verify", "C001"]).code(2).stderr;
    assert!(err.contains("soft"), "{err}");
    t.wf(&["constraints", "verify", "C404"]).code(2);
}

#[test]
fn without_a_workflow_it_says_how_to_start() {
    let t = Test::new();
    let err = t.wf(&["constraints", "list"]).code(2).stderr;
    assert!(err.contains("wf workflow-start"), "{err}");
    let err = t.wf(&["constraints", "add", "x"]).code(2).stderr;
    assert!(err.contains("wf workflow-start"), "{err}");
}

// ---- committed constraints (docs/constraints.md "Committed constraints") ----

mod committed {
    use crate::plans::{add_changelog_constraint, plan, start_gated, task};
    use crate::test::Test;

    const CONFIG: &str = ".claude/config/project-config.json";

    #[test]
    fn every_workflow_starts_with_the_committed_constraints_once() {
        let t = Test::new();
        t.config(
            r#"{"scripts": {"test": "true"}, "wf": {"constraints": [
                {"description": "a changelog is kept", "verify_cmd": "test -f CHANGELOG.md"},
                {"description": "prefer small modules", "hard": false}
            ]}}"#,
        );
        start_gated(&t);
        let list = t.wf(&["constraints", "list", "--json"]).ok().json();
        let c = &list["constraints"];
        assert_eq!(c["hard"][0]["id"], "C001", "{c}");
        assert_eq!(c["hard"][0]["verifyCmd"], "test -f CHANGELOG.md", "{c}");
        assert_eq!(c["soft"][0]["description"], "prefer small modules", "{c}");
        // Importing the plan again (forced) adds none of them twice.
        t.wf(&["workflow-start", "tasks.md", "--force"]).ok();
        let c = t.wf(&["constraints", "list", "--json"]).ok().json()["constraints"].clone();
        assert_eq!(c["hard"].as_array().unwrap().len(), 1, "{c}");
        assert_eq!(c["soft"].as_array().unwrap().len(), 1, "{c}");
        let added = t
            .events()
            .into_iter()
            .filter(|e| e["type"] == "constraint.added")
            .count();
        assert_eq!(added, 2);
    }

    #[test]
    fn a_ci_job_s_gate_runs_a_committed_constraint() {
        // A CI job imports the plan afresh (`workflow-start`) and runs the gate with
        // `run-task`: the committed constraint is there and fails the gate while the
        // file it asks for is missing.
        let t = Test::new();
        t.config(
            r#"{"scripts": {"test": "true"}, "wf": {"constraints": [
                {"description": "a changelog is kept", "verify_cmd": "test -f CHANGELOG.md"}
            ]}}"#,
        );
        start_gated(&t);
        let run = t.wf(&["run-task", "T2", "--ci", "--result", "r.json"]);
        assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
        let result: serde_json::Value = serde_json::from_str(&t.read("r.json")).unwrap();
        assert_eq!(result["success"], false, "{result}");
        assert!(
            result.to_string().contains("C001"),
            "the failed constraint is named: {result}"
        );
        t.write("CHANGELOG.md", "# Changes\n");
        let run = t.wf(&["run-task", "T2", "--ci", "--result", "r.json"]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    }

    #[test]
    fn add_project_commits_it_and_export_no_longer_warns() {
        let t = Test::new();
        t.config(r#"{"scripts": {"test": "true"}, "wf": {"timeout_secs": 30}}"#);
        start_gated(&t);
        add_changelog_constraint(&t, &[]);
        let warned = t
            .wf(&["export", "github-actions", "--install", "path"])
            .ok();
        assert!(
            warned
                .stderr
                .contains("commit them with `wf constraints add --project-config`"),
            "{}",
            warned.stderr
        );
        // The same words, committed: the workflow keeps one, the config gains it,
        // the rest of the config is kept.
        t.wf(&["constraints", "remove", "C001"]).ok();
        let id = add_changelog_constraint(&t, &["--project-config"]);
        assert_eq!(id, "C002");
        let config: serde_json::Value = serde_json::from_str(&t.read(CONFIG)).unwrap();
        assert_eq!(config["wf"]["timeout_secs"], 30, "{config}");
        assert_eq!(
            config["wf"]["constraints"],
            serde_json::json!([{"description": "a changelog is kept", "verify_cmd": "test -f CHANGELOG.md"}])
        );
        let quiet = t
            .wf(&["export", "github-actions", "--install", "path"])
            .ok();
        assert!(
            !quiet.stderr.contains("hard constraints"),
            "{}",
            quiet.stderr
        );
        // Twice is refused, and leaves both files as they were.
        let state =
            || std::fs::read_to_string(t.workflow_dir().join("workflow-state.json")).unwrap();
        let before = (t.read(CONFIG), state());
        let again = t.wf(&[
            "constraints",
            "add",
            "a changelog is kept",
            "--project-config",
        ]);
        assert_eq!(again.code, 2, "{}", again.stderr);
        assert_eq!((t.read(CONFIG), state()), before);
    }

    #[test]
    fn add_project_without_a_workflow_writes_only_the_config() {
        let t = Test::new();
        let run = t
            .wf(&[
                "constraints",
                "add",
                "no secrets in the repo",
                "--project-config",
            ])
            .ok();
        assert!(
            run.stdout.contains("every workflow started here"),
            "{}",
            run.stdout
        );
        let config: serde_json::Value = serde_json::from_str(&t.read(CONFIG)).unwrap();
        assert_eq!(
            config,
            serde_json::json!({"wf": {"constraints": [{"description": "no secrets in the repo"}]}})
        );
    }

    #[test]
    fn a_bad_committed_constraint_stops_the_import_naming_the_config() {
        let t = Test::new();
        t.config(
            r#"{"wf": {"constraints": [{"description": "x", "verify_cmd": "curl evil.sh"}]}}"#,
        );
        t.write("tasks.md", plan(&[task("T1", "a").verify("true")]));
        let run = t.wf(&["workflow-start", "tasks.md"]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains("wf.constraints[0]"), "{}", run.stderr);
        assert!(!t.workflow_dir().join("workflow-state.json").exists());
    }
}
