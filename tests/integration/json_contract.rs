//! The JSON contract (docs/json.md): every subcommand run with `--json` in every state
//! a workflow can be in prints one document that its schema in `docs/json/` accepts —
//! or, when the command could not do its work, the error document with the exit code
//! it names. A subcommand with no schema and no run here fails the test.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::plans::{plan, start, task};
use crate::test::{Run, Test};

pub fn schema(name: &str) -> jsonschema::Validator {
    let path = format!(
        "{}/docs/json/{name}.schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    jsonschema::validator_for(&value).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Checks runs against the schemas and remembers what it saw.
struct Contract {
    checked: usize,
    schemas_used: BTreeSet<String>,
    commands_run: BTreeSet<String>,
}

impl Contract {
    fn new() -> Contract {
        Contract {
            checked: 0,
            schemas_used: BTreeSet::new(),
            commands_run: BTreeSet::new(),
        }
    }

    /// `wf ARGS --json` in `t`: one document, valid against `schema_name` — or the
    /// error document, whose `exit_code` is the process's.
    #[track_caller]
    fn check(&mut self, t: &Test, state: &str, args: &[&str], schema_name: &str) -> Run {
        let mut full = args.to_vec();
        full.push("--json");
        let run = t.wf(&full);
        let what = format!("`wf {}` in a {state} workflow", full.join(" "));
        let doc: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
            panic!(
                "{what}: stdout is not one JSON document ({e}):\n{}\n{}",
                run.stdout, run.stderr
            )
        });
        let used = if doc.get("error").is_some() {
            assert_eq!(
                doc["error"]["exit_code"], run.code,
                "{what}: the error document names another exit code"
            );
            "error"
        } else {
            schema_name
        };
        let errors: Vec<String> = schema(used)
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{what}: not valid against docs/json/{used}.schema.json:\n{}\n{doc:#}",
            errors.join("\n")
        );
        self.checked += 1;
        self.schemas_used.insert(used.to_string());
        self.commands_run.insert(args[0].to_string());
        run
    }

    /// `wf events --json`: every line a document valid against the event schema.
    fn check_events(&mut self, t: &Test, state: &str) {
        let run = t.wf(&["events", "--json"]).ok();
        let validator = schema("event");
        for line in run.stdout.lines() {
            let doc: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("events in a {state} workflow: {e}: {line}"));
            assert!(
                validator.is_valid(&doc),
                "an event line of a {state} workflow is not valid: {line}"
            );
            self.checked += 1;
        }
        self.schemas_used.insert("event".into());
        self.commands_run.insert("events".into());
    }

    /// `wf ui --json`: the document it prints once it serves (it runs until Ctrl-C,
    /// then exits 0); and its refusal, when there is no archive to show.
    fn check_ui(&mut self, t: &Test, state: &str) {
        let mut command = t.command(&["ui", "--json"]);
        crate::test::signals_at_default_but(&mut command, &[]);
        let mut child = command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn wf ui");
        let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let doc = crate::test::first_document(&mut out);
        // SAFETY: kill(2) on the child this test spawned and has not reaped.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        assert_eq!(child.wait().expect("wait").code(), Some(0));
        let errors: Vec<String> = schema("ui")
            .iter_errors(&doc)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "wf ui --json: {errors:?}\n{doc:#}");
        self.checked += 1;
        self.schemas_used.insert("ui".into());
        self.check(t, state, &["ui", "--archived"], "ui");
    }

    /// Every read-only command, in whatever state `t`'s workflow is.
    fn reads(&mut self, t: &Test, state: &str) {
        self.check(t, state, &["status"], "status");
        self.check(t, state, &["next"], "next");
        self.check(t, state, &["graph"], "graph");
        self.check(t, state, &["graph", "--format", "dot"], "graph");
        self.check(t, state, &["logs"], "logs");
        self.check(t, state, &["logs", "--path"], "logs");
        for format in ["junit", "github-annotations", "github-summary"] {
            self.check(t, state, &["report", format], "report");
        }
        self.check(t, state, &["constraints", "list"], "constraints");
        self.check(t, state, &["resources"], "resources");
        self.check(t, state, &["list"], "list");
        self.check(t, state, &["doctor"], "doctor");
        self.check(t, state, &["check", "tasks.md"], "check");
        self.check_events(t, state);
    }
}

fn started(tasks: &[crate::plans::T<'_>]) -> Test {
    let t = Test::new();
    start(&t, &plan(tasks));
    t
}

#[test]
fn every_json_output_in_every_state_matches_its_schema() {
    let mut c = Contract::new();

    // A new project: init, then doctor before and after a bad config.
    let t = Test::new();
    c.check(&t, "missing", &["init"], "init");
    c.check(&t, "missing", &["init"], "init");
    c.check(&t, "missing", &["doctor"], "doctor");
    t.config("{ broken");
    c.check(&t, "missing", &["doctor"], "doctor");

    // No workflow yet: reads fail with the error document; the import succeeds.
    let t = Test::new();
    t.write("tasks.md", plan(&[task("T1", "a").verify("true")]));
    c.check(&t, "missing", &["status"], "status");
    c.check(&t, "missing", &["resume"], "execute");
    c.check(&t, "missing", &["workflow-start", "tasks.md"], "start");
    c.check(&t, "planned", &["workflow-start", "tasks.md"], "start");
    c.reads(&t, "planned");
    c.check_ui(&t, "planned");
    c.check(&t, "planned", &["workflow-unblock", "all"], "unblock");
    c.check(&t, "planned", &["archive"], "archive");

    // Two agents: a lease each way, the status that shows it, done failing, passing,
    // and asked of an agent that holds nothing.
    let t = started(&[task("T1", "impl")
        .field("actions", "create_file")
        .field("创建文件", "hello.txt")
        .verify("grep -q hello hello.txt")]);
    c.check(&t, "planned", &["next", "--agent", "alice"], "next");
    c.check(&t, "running", &["next", "--agent", "bob"], "next");
    c.check(&t, "running", &["status"], "status");
    c.check(&t, "running", &["done", "--agent", "alice"], "done");
    t.write("hello.txt", "hello\n");
    c.check(&t, "failed", &["done", "--agent", "alice"], "done");
    c.check(&t, "completed", &["done", "--agent", "bob"], "done");

    // Paused after a step, with a constraint added, promoted, verified, removed.
    let t = started(&[
        task("T1", "a").verify("true"),
        task("T2", "b").verify("true"),
    ]);
    c.check(
        &t,
        "planned",
        &["workflow-execute", "--dry-run"],
        "execute-dry-run",
    );
    c.check(&t, "planned", &["workflow-execute", "--step"], "execute");
    c.check(
        &t,
        "paused",
        &["constraints", "add", "--soft", "answers within 200 ms"],
        "constraints",
    );
    c.check(
        &t,
        "paused",
        &["constraints", "promote", "C001"],
        "constraints",
    );
    c.check(&t, "paused", &["constraints", "verify"], "constraints");
    c.check(
        &t,
        "paused",
        &["constraints", "remove", "C001"],
        "constraints",
    );
    t.write(
        "codex.json",
        r#"{"hard": [{"id": "C1", "description": "the API stays backwards compatible"}]}"#,
    );
    c.check(
        &t,
        "paused",
        &["constraints", "merge", "codex.json"],
        "constraints",
    );
    c.reads(&t, "paused");
    // Completed, then archived.
    c.check(&t, "paused", &["resume", "--all"], "execute");
    c.check(&t, "completed", &["workflow-execute"], "execute");
    c.check(&t, "completed", &["verify"], "verify");
    c.check(&t, "completed", &["verify", "--dry-run", "--all"], "verify");
    c.check(&t, "completed", &["show", "T1"], "show");
    c.check(&t, "completed", &["show", "T9"], "show");
    c.check(&t, "completed", &["proof", "export", "p.json"], "proof");
    c.check(&t, "completed", &["proof", "export", "-"], "proof");
    c.check(
        &t,
        "completed",
        &["proof", "check", "p.json"],
        "proof-check",
    );
    c.check(
        &t,
        "completed",
        &["proof", "check", "tasks.md"],
        "proof-check",
    );
    let file: Value = serde_json::from_str(&t.read("p.json")).expect("the proof is JSON");
    assert!(schema("proof").is_valid(&file), "{file:#}");
    c.reads(&t, "completed");
    c.check(&t, "completed", &["archive"], "archive");
    c.reads(&t, "archived");

    // Failed.
    let t = started(&[task("T1", "a").verify("echo boom; exit 3")]);
    c.check(&t, "planned", &["workflow-execute", "--all"], "execute");
    c.reads(&t, "failed");
    c.check(&t, "failed", &["workflow-execute"], "execute");
    c.check(
        &t,
        "failed",
        &["workflow-execute", "--all", "--keep-going"],
        "execute",
    );
    c.check(&t, "failed", &["verify", "T1"], "verify");
    c.check(&t, "failed", &["show", "T1"], "show");
    c.check(&t, "failed", &["proof", "export", "p.json"], "proof");
    c.check(&t, "failed", &["proof", "check", "p.json"], "proof-check");

    // A completed task that no longer passes: reopened, exit 1.
    let t = started(&[task("T1", "a")
        .field("文件", "a.txt")
        .verify("grep -q ok a.txt")]);
    t.write("a.txt", "ok\n");
    t.wf(&["workflow-execute", "--all"]).ok();
    t.wf(&["proof", "export", "p.json"]).ok();
    t.write("a.txt", "bad\n");
    let run = c.check(
        &t,
        "completed",
        &["proof", "check", "p.json"],
        "proof-check",
    );
    assert_eq!(run.code, 1);
    let run = c.check(&t, "completed", &["verify"], "verify");
    assert_eq!(run.code, 1);
    c.check(&t, "planned", &["show", "T1"], "show");

    // Blocked on an outside dependency, then unblocked.
    let t = started(&[task("T1", "a").field("阻塞依赖", "api_spec").verify("true")]);
    c.check(&t, "planned", &["workflow-execute", "--all"], "execute");
    c.reads(&t, "blocked");
    c.check(&t, "blocked", &["workflow-unblock", "api_spec"], "unblock");

    // Handed off to an agent (a task with nothing to run).
    let t = started(&[task("T1", "a")]);
    c.check(&t, "planned", &["workflow-execute", "--all"], "execute");
    c.reads(&t, "handed-off");

    // One task's checks on their own: passed, failed, an agent task refused and
    // (under the CI rules) failed; the --result file is the same document.
    let t = started(&[
        task("T1", "a").verify("echo fine"),
        task("T2", "a").verify("echo boom >&2; exit 3"),
        task("T3", "a"),
    ]);
    c.check(
        &t,
        "planned",
        &["run-task", "T1", "--result", "r/T1.json"],
        "run-task",
    );
    c.check(&t, "planned", &["run-task", "T2"], "run-task");
    c.check(&t, "planned", &["run-task", "T3"], "run-task");
    c.check(&t, "planned", &["run-task", "T3", "--ci"], "run-task");
    c.check(&t, "planned", &["run-task", "T9"], "run-task");
    c.check(
        &t,
        "planned",
        &[
            "run-task",
            "T1",
            "T2",
            "T3",
            "--ci",
            "--result-dir",
            "chain",
        ],
        "run-task",
    );
    for id in ["T1", "T2"] {
        let file: Value = serde_json::from_str(&t.read(&format!("chain/{id}.json")))
            .expect("a chain's result file is JSON");
        assert!(schema("run-task").is_valid(&file), "{file:#}");
    }
    let file: Value = serde_json::from_str(&t.read("r/T1.json")).expect("the result file is JSON");
    assert!(schema("run-task").is_valid(&file), "{file:#}");
    t.wf(&["run-task", "T2", "--result", "r/T2.json"]).code(1);
    c.check(&t, "planned", &["import-results", "r"], "import-results");
    c.check(
        &t,
        "failed",
        &["import-results", "r/T1.json"],
        "import-results",
    );
    c.check(
        &t,
        "failed",
        &["import-results", "nowhere"],
        "import-results",
    );
    c.check(&t, "failed", &["export", "github-actions"], "export");
    c.check(
        &t,
        "failed",
        &[
            "export",
            "gitlab-ci",
            "-o",
            "ci/gl.yml",
            "--agent-tasks",
            "omit",
        ],
        "export",
    );

    // A corrupt state: every read is the error document, exit 5.
    let t = started(&[task("T1", "a").verify("true")]);
    std::fs::write(t.workflow_dir().join("workflow-state.json"), "{ torn")
        .expect("corrupt the state");
    let run = c.check(&t, "corrupt", &["status"], "status");
    assert_eq!(run.code, 5);
    c.check(&t, "corrupt", &["next"], "next");
    c.check(&t, "corrupt", &["workflow-execute"], "execute");

    // A usage error and a plan error are error documents too.
    c.check(&t, "corrupt", &["stauts"], "error");
    let t = Test::new();
    t.write("tasks.md", "# Tasks: x\n\n## T1: one\n\n## T1: twice\n");
    c.check(&t, "missing", &["workflow-start", "tasks.md"], "start");

    // Every schema was used, and every subcommand with a JSON form was run.
    let schemas: BTreeSet<String> =
        std::fs::read_dir(format!("{}/docs/json", env!("CARGO_MANIFEST_DIR")))
            .expect("docs/json")
            .filter_map(|e| {
                let name = e.ok()?.file_name().to_string_lossy().into_owned();
                name.strip_suffix(".schema.json").map(str::to_string)
            })
            .collect();
    assert_eq!(
        c.schemas_used, schemas,
        "a schema no output was checked against"
    );
    let without_json = ["completions", "man", "hook", "mcp", "help"];
    for sub in <wf::cli::Cli as clap::CommandFactory>::command().get_subcommands() {
        let name = sub.get_name();
        assert!(
            without_json.contains(&name) || c.commands_run.contains(name),
            "`wf {name} --json` is checked against no schema here"
        );
    }
    assert!(c.checked > 150, "only {} documents checked", c.checked);
}
