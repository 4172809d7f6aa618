//! Completions that know the workflow (issue 17 item 5): the real binary answering a
//! shell's call the way each registration script in `completions/` makes it
//! (`COMPLETE=SHELL wf -- wf <words>`, plus the variables that script sets), and,
//! where the shell is installed, the shell itself.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::plans::start;
use crate::test::{Run, Test};

/// Three tasks: T1 waits on the API spec, T2 on the design, T3 on nothing.
const PLAN: &str = "# Tasks: demo

## T1: Write the API client
- **阶段**: build
- **需求**: call the service
- **阻塞依赖**: api_spec
- **验证命令**: `true`

## T2: Draw the screens
- **阶段**: ui
- **需求**: the screens
- **阻塞依赖**: design_spec
- **验证命令**: `true`

## T3: Count the words
- **阶段**: build
- **需求**: a count
- **验证命令**: `true`
";

/// `wf` as `shell`'s script runs it on TAB, in `dir`, with `words` after `wf` on
/// the line; the last word is the one being completed.
fn complete_in(t: &Test, dir: &Path, shell: &str, words: &[&str]) -> Run {
    let mut cmd = t.command(&["--", "wf"]);
    cmd.args(words)
        .current_dir(dir)
        .env("COMPLETE", shell)
        .stdout(Stdio::piped());
    // The index of the word being completed (`wf` is 0) and the separator: bash,
    // zsh and elvish pass them; fish and PowerShell complete the last word.
    let index = words.len().to_string();
    match shell {
        "bash" => {
            cmd.env("_CLAP_COMPLETE_INDEX", &index)
                .env("_CLAP_IFS", "\n")
                .env("_CLAP_COMPLETE_COMP_TYPE", "9")
                .env("_CLAP_COMPLETE_SPACE", "false");
        }
        "zsh" | "elvish" => {
            cmd.env("_CLAP_COMPLETE_INDEX", &index)
                .env("_CLAP_IFS", "\n");
        }
        _ => {}
    }
    let mut run = t.within(cmd, 20);
    // bash and elvish separate the candidates without ending the last one.
    if !run.stdout.is_empty() && !run.stdout.ends_with('\n') {
        run.stdout.push('\n');
    }
    run
}

fn complete(t: &Test, shell: &str, words: &[&str]) -> Run {
    complete_in(t, &t.project, shell, words)
}

/// The candidates `wf` adds, without the flags clap's engine offers at every
/// value position too (`--json`, `--help`, …).
fn ours(run: Run) -> Run {
    let mut stdout = String::new();
    for line in run.stdout.lines().filter(|l| !l.starts_with("--")) {
        stdout.push_str(line);
        stdout.push('\n');
    }
    Run { stdout, ..run }
}

fn started() -> Test {
    let t = Test::new();
    start(&t, PLAN);
    t
}

#[test]
fn bash_completes_a_tasks_id_then_the_flags() {
    let t = started();
    insta::assert_snapshot!(complete(&t, "bash", &["logs", ""]).whole(), @"
    exit: 0
    --- stdout
    T1
    T2
    T3
    --attempt
    --path
    --follow
    --help
    --project
    --json
    --color
    --quiet
    --wait
    --- stderr
    ");
    // A word begun narrows them; a flag's value is completed as well as a positional.
    insta::assert_snapshot!(ours(complete(&t, "bash", &["workflow-execute", "--skip", "T"])).whole(), @"
    exit: 0
    --- stdout
    T1
    T2
    T3
    --- stderr
    ");
}

#[test]
fn zsh_and_fish_show_each_tasks_name() {
    let t = started();
    insta::assert_snapshot!(ours(complete(&t, "zsh", &["workflow-execute", "--retry", ""])).whole(), @"
    exit: 0
    --- stdout
    T1:Write the API client
    T2:Draw the screens
    T3:Count the words
    --- stderr
    ");
    insta::assert_snapshot!(ours(complete(&t, "fish", &["events", "--task", ""])).whole(), @"
    exit: 0
    --- stdout
    T1	Write the API client
    T2	Draw the screens
    T3	Count the words
    --- stderr
    ");
    insta::assert_snapshot!(ours(complete(&t, "powershell", &["resume", "--skip", "T3"])).whole(), @"
    exit: 0
    --- stdout
    T3	Count the words
    --- stderr
    ");
}

#[test]
fn the_project_is_the_one_the_line_names() {
    let t = started();
    // From outside the project, with -C in any of its spellings, before or after
    // the subcommand.
    for words in [
        &["-C", "project", "logs", ""][..],
        &["--project=project", "logs", ""],
        &["logs", "-Cproject", ""],
    ] {
        let run = ours(complete_in(&t, &t.root, "fish", words));
        assert_eq!(
            run.stdout, "T1\tWrite the API client\nT2\tDraw the screens\nT3\tCount the words\n",
            "{words:?}"
        );
    }
    // Without it, the root has no workflow.
    assert_eq!(
        ours(complete_in(&t, &t.root, "fish", &["logs", ""])).stdout,
        ""
    );
}

#[test]
fn unblock_offers_the_kinds_that_block_a_task_and_all() {
    let t = started();
    insta::assert_snapshot!(ours(complete(&t, "zsh", &["workflow-unblock", ""])).whole(), @"
    exit: 0
    --- stdout
    api_spec:blocks T1
    design_spec:blocks T2
    all:every blocker kind
    --- stderr
    ");
    // A lifted kind blocks nothing any more; the alias completes the same.
    t.wf(&["workflow-unblock", "design_spec"]).ok();
    insta::assert_snapshot!(ours(complete(&t, "fish", &["unblock", ""])).whole(), @"
    exit: 0
    --- stdout
    api_spec	blocks T1
    all	every blocker kind
    --- stderr
    ");
    insta::assert_snapshot!(complete(&t, "elvish", &["unblock", "a"]).whole(), @"
    exit: 0
    --- stdout
    api_spec
    all
    --- stderr
    ");
}

#[test]
fn status_phase_offers_the_plans_phases_and_events_type_the_event_names() {
    let t = started();
    insta::assert_snapshot!(ours(complete(&t, "zsh", &["status", "--phase", ""])).whole(), @"
    exit: 0
    --- stdout
    build:2 tasks
    ui:1 task
    --- stderr
    ");
    // The event names need no workflow.
    let empty = Test::new();
    insta::assert_snapshot!(ours(complete(&empty, "bash", &["events", "--type", "plan"])).whole(), @"
    exit: 0
    --- stdout
    plan.imported
    --- stderr
    ");
}

#[test]
fn constraint_ids_are_the_ones_each_command_takes() {
    let t = started();
    t.wf(&["constraints", "add", "API responses carry a requestId"])
        .ok();
    t.wf(&["constraints", "add", "--soft", "Prefer small functions"])
        .ok();
    // remove: any; verify: the hard ones; promote: the soft ones.
    insta::assert_snapshot!(ours(complete(&t, "fish", &["constraints", "remove", ""])).whole(), @"
    exit: 0
    --- stdout
    C001	API responses carry a requestId
    C002	Prefer small functions
    --- stderr
    ");
    insta::assert_snapshot!(ours(complete(&t, "zsh", &["constraints", "verify", ""])).whole(), @"
    exit: 0
    --- stdout
    C001:API responses carry a requestId
    --- stderr
    ");
    insta::assert_snapshot!(ours(complete(&t, "bash", &["constraints", "promote", ""])).whole(), @"
    exit: 0
    --- stdout
    C002
    --- stderr
    ");
}

#[test]
fn plan_files_are_markdown_files_then_directories() {
    let t = started();
    t.write("notes.md", "# notes\n")
        .write("README.txt", "not a plan\n")
        .write("specs/feature/tasks.md", "# Tasks\n")
        .write(".hidden/plan.md", "# hidden\n");
    insta::assert_snapshot!(ours(complete(&t, "bash", &["workflow-start", ""])).whole(), @"
    exit: 0
    --- stdout
    notes.md
    tasks.md
    specs/
    --- stderr
    ");
    insta::assert_snapshot!(ours(complete(&t, "fish", &["check", "specs/"])).whole(), @"
    exit: 0
    --- stdout
    specs/feature/
    --- stderr
    ");
    insta::assert_snapshot!(ours(complete(&t, "zsh", &["start", "specs/feature/t"])).whole(), @"
    exit: 0
    --- stdout
    specs/feature/tasks.md
    --- stderr
    ");
}

/// What every shell gets where completion cannot read a workflow: the flags, and
/// nothing else — no error in the middle of the line, exit 0.
fn assert_only_flags(t: &Test, why: &str) {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        for words in [
            &["logs", ""][..],
            &["workflow-unblock", ""],
            &["constraints", "remove", ""],
            &["workflow-execute", "--retry", ""],
        ] {
            let run = complete(t, shell, words);
            assert_eq!(
                (run.code, run.stderr.as_str()),
                (0, ""),
                "{why}, {shell} {words:?}"
            );
            assert_eq!(ours(run).stdout, "", "{why}, {shell} {words:?}");
        }
    }
}

#[test]
fn no_workflow_a_corrupt_state_or_a_bad_config_is_no_candidates_and_no_error() {
    let t = Test::new();
    assert_only_flags(&t, "no workflow");
    start(&t, PLAN);
    let state = t.workflow_dir().join("workflow-state.json");
    let good = std::fs::read(&state).unwrap();
    std::fs::write(&state, "{\"tasks\": [").unwrap();
    t.wf(&["status"]).code(5);
    assert_only_flags(&t, "a corrupt state");
    std::fs::write(&state, &good).unwrap();
    t.config("{\"wf\": {\"no_such_setting\": 1}}");
    t.wf(&["status"]).code(2);
    assert_only_flags(&t, "a bad config");
}

#[test]
fn completion_takes_no_lock_and_writes_nothing() {
    let t = started();
    let lock = t.workflow_dir().join(".lock");
    std::fs::remove_file(&lock).unwrap();
    let before = t.workflow_files();
    for words in [
        &["logs", ""][..],
        &["unblock", ""],
        &["constraints", "verify", ""],
    ] {
        complete(&t, "bash", words).ok();
    }
    assert!(!lock.exists(), "completion created the lock file");
    assert_eq!(
        t.workflow_files(),
        before,
        "completion changed the workflow dir"
    );
}

#[test]
fn the_registration_calls_back_into_wf() {
    let t = Test::new();
    // `wf completions SHELL` calls `wf` from PATH (the committed copies);
    // `COMPLETE=SHELL wf` the binary it was run as.
    let script = t.wf(&["completions", "fish"]).ok().stdout;
    assert!(script.contains("COMPLETE=fish wf -- "), "{script}");
    let mut cmd = t.command(&[]);
    cmd.env("COMPLETE", "fish").stdout(Stdio::piped());
    let run = t.within(cmd, 20).ok();
    assert!(
        run.stdout
            .contains(&format!("COMPLETE=fish {} -- ", env!("CARGO_BIN_EXE_wf"))),
        "{}",
        run.stdout
    );
    // An unknown shell is the one request that says what is wrong.
    let mut cmd = t.command(&[]);
    cmd.env("COMPLETE", "tcsh").stdout(Stdio::piped());
    insta::assert_snapshot!(t.within(cmd, 20).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: COMPLETE=tcsh: unknown shell tcsh, expected one of bash, elvish, fish, powershell, zsh
    ");
    // COMPLETE empty or 0 is a normal run.
    let mut cmd = t.command(&["--version"]);
    cmd.env("COMPLETE", "0").stdout(Stdio::piped());
    assert!(t.within(cmd, 20).ok().stdout.starts_with("wf "));
}

// ---- the real shells, where installed ----

/// A shell at `name` on PATH, or `None` (the test then says it skipped).
fn shell(name: &str) -> Option<std::path::PathBuf> {
    let found = which::which(name).ok();
    if found.is_none() {
        eprintln!("skipped: {name} is not installed");
    }
    found
}

/// `script` run by `shell -c`, in the project, with `wf` on PATH.
fn in_shell(t: &Test, shell: &Path, script: &str) -> Run {
    let bin = Path::new(env!("CARGO_BIN_EXE_wf")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The test's environment (its WF_HOME, clock, …) on the shell instead of wf.
    let wf = t.command(&[]);
    let mut sh = Command::new(shell);
    sh.arg("-c")
        .arg(script)
        .current_dir(&t.project)
        .env("PATH", path);
    for (key, value) in wf.get_envs() {
        match value {
            Some(v) => sh.env(key, v),
            None => sh.env_remove(key),
        };
    }
    sh.stdout(Stdio::piped());
    t.within(sh, 30)
}

#[test]
fn bash_completes_through_the_script_wf_prints() {
    let Some(bash) = shell("bash") else { return };
    let t = started();
    // What bash sets before it calls the function `complete -F` registered.
    let run = in_shell(
        &t,
        &bash,
        r#"source <(wf completions bash) || exit 9
           COMP_WORDS=(wf unblock ""); COMP_CWORD=2; COMP_TYPE=9
           _clap_complete_wf wf "" unblock
           printf '%s\n' "${COMPREPLY[@]}""#,
    );
    insta::assert_snapshot!(ours(run).whole(), @"
    exit: 0
    --- stdout
    api_spec
    design_spec
    all
    --- stderr
    ");
}

#[test]
fn fish_completes_through_the_script_wf_prints() {
    let Some(fish) = shell("fish") else { return };
    let t = started();
    let run = in_shell(
        &t,
        &fish,
        "wf completions fish | source; complete -C'wf logs '; complete -C'wf unblock a'",
    );
    insta::assert_snapshot!(ours(run).whole(), @"
    exit: 0
    --- stdout
    T1	Write the API client
    T2	Draw the screens
    T3	Count the words
    api_spec	blocks T1
    all	every blocker kind
    --- stderr
    ");
}

#[test]
fn zsh_completes_through_the_script_wf_prints_sourced_or_from_fpath() {
    let Some(zsh) = shell("zsh") else { return };
    let t = started();
    t.write("zfunc/_wf", t.wf(&["completions", "zsh"]).ok().stdout);
    // Outside a completion widget `_describe` cannot show anything: this one
    // prints the candidates it is handed (`_describe -V values NAME …`).
    let prelude = r#"_describe() { print -rl -- "${(@P)3}" }
                     words=(wf unblock ""); CURRENT=3
                     "#;
    // On $fpath, compinit autoloads the file as `_wf` and calls it: the first
    // call answers.
    let run = in_shell(
        &t,
        &zsh,
        &format!("{prelude} fpath=(zfunc $fpath); autoload -Uz _wf; _wf"),
    );
    insta::assert_snapshot!(ours(run).whole(), @"
    exit: 0
    --- stdout
    api_spec:blocks T1
    design_spec:blocks T2
    all:every blocker kind
    --- stderr
    ");
    // Sourced, it registers its function for wf, which then answers.
    let run = in_shell(
        &t,
        &zsh,
        &format!(
            "{prelude} compdef() {{ print -r -- compdef $* }}
             source zfunc/_wf; _clap_dynamic_completer_wf"
        ),
    );
    insta::assert_snapshot!(ours(run).whole(), @"
    exit: 0
    --- stdout
    compdef _clap_dynamic_completer_wf wf
    api_spec:blocks T1
    design_spec:blocks T2
    all:every blocker kind
    --- stderr
    ");
}
