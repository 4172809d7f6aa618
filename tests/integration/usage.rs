//! Command-line mistakes (issue 17 item 1): one line on stderr with clap's tip kept and
//! the help of the subcommand the line was for; with `--json` also the JSON error
//! object on stdout; a plan path that is not there says so.

use crate::test::Test;

#[test]
fn a_misspelled_subcommand_gets_the_similar_ones() {
    let t = Test::new();
    let run = t.wf(&["stauts"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: unrecognized subcommand 'stauts' (some similar subcommands exist: 'st', 'start', 'status'); see `wf --help`
    ");
}

#[test]
fn a_misspelled_flag_gets_the_similar_one_and_its_subcommands_help() {
    let t = Test::new();
    let run = t.wf(&["workflow-execute", "--stpe"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: unexpected argument '--stpe' found (a similar argument exists: '--step'); see `wf workflow-execute --help`
    ");
}

#[test]
fn with_json_a_usage_error_is_the_json_error_object_too() {
    let t = Test::new();
    let run = t.wf(&["--json", "status", "extra"]);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 2
    --- stdout
    {
      "schemaVersion": 2,
      "error": {
        "kind": "usage",
        "message": "unexpected argument 'extra' found; see `wf status --help`",
        "exit_code": 2
      }
    }
    --- stderr
    wf: error: unexpected argument 'extra' found; see `wf status --help`
    "#);
}

#[test]
fn a_plan_that_is_not_there_says_no_such_file() {
    let t = Test::new();
    for args in [
        &["workflow-start", "nope.md"][..],
        &["check", "specs/nope.md"],
    ] {
        let run = t.wf(args).code(2);
        let file = args[1];
        assert_eq!(
            run.stderr,
            format!("wf: error: no such file: {file}; give the path of a tasks.md plan file\n")
        );
    }
    assert!(!t.home.join(t.project_id()).exists(), "nothing written");
}

#[test]
fn dash_c_inside_a_subdirectory_finds_the_project_as_git_does() {
    let t = Test::new();
    crate::plans::start(&t, &crate::plans::plan(&[crate::plans::task("T1", "a")]));
    std::fs::create_dir_all(t.project.join("src/deep")).expect("a subdirectory");
    let sub = t.project.join("src/deep").display().to_string();
    let run = t.wf(&["-C", &sub, "status", "--json"]).ok().json();
    assert_eq!(run["state"]["task_name"], "test plan");
    assert_eq!(
        run["state"]["project_id"].as_str(),
        Some(t.project_id().as_str())
    );
}

#[test]
fn completions_man_and_hook_say_they_have_no_json_form() {
    let t = Test::new();
    insta::assert_snapshot!(t.wf(&["completions", "bash", "--json"]).whole(), @r#"
    exit: 2
    --- stdout
    {
      "schemaVersion": 2,
      "error": {
        "kind": "usage",
        "message": "`wf completions` has no JSON form (it prints a shell script); drop --json",
        "exit_code": 2
      }
    }
    --- stderr
    wf: error: `wf completions` has no JSON form (it prints a shell script); drop --json
    "#);
    assert_eq!(t.wf(&["man", "--json"]).code, 2);
    assert_eq!(t.wf(&["hook", "Stop", "--json"]).code, 2);
}

#[test]
fn a_json_error_about_a_plan_line_names_the_file_and_line() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks: x\n\n## T1: one\n- **阶段**: a\n\n## T2: again\n- **依赖**: T9\n",
    );
    let v = t
        .wf(&["workflow-start", "tasks.md", "--json"])
        .code(2)
        .json();
    assert_eq!(v["schemaVersion"], 2);
    assert_eq!(v["error"]["kind"], "usage");
    assert_eq!(v["error"]["exit_code"], 2);
    assert_eq!(v["error"]["file"], "tasks.md", "{v}");
    assert_eq!(v["error"]["line"], 7, "{v}");
}

#[test]
fn every_subcommands_help_has_examples_and_global_options_apart() {
    let cli = <wf::cli::Cli as clap::CommandFactory>::command();
    let mut todo = vec![cli];
    let mut missing = Vec::new();
    while let Some(cmd) = todo.pop() {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let after = sub
                .get_after_help()
                .map(ToString::to_string)
                .unwrap_or_default();
            if !after.contains("Examples:\n") {
                missing.push(sub.get_name().to_string());
            }
            todo.push(sub.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "no Examples in the help of: {missing:?}"
    );
    let t = Test::new();
    let help = t.wf(&["status", "--help"]).ok().stdout;
    let (own, global) = help
        .split_once("Global options:")
        .expect("a Global options heading");
    assert!(
        own.contains("--failed") && !own.contains("--project"),
        "{help}"
    );
    assert!(
        global.contains("--project") && global.contains("--json"),
        "{help}"
    );
}
