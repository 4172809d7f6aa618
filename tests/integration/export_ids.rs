//! `wf export` on any id a plan allows (docs/distributed.md "Nothing from a task's
//! text reaches a command"): ids that start with `-` or `.`, ids that differ only by
//! case, a task whose job id a relay job would take — and, for ids and names from a
//! hostile alphabet, the exported YAML parses, passes both CI schemas, has one job per
//! task or pack, and every job's command runs exactly its tasks.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use crate::distributed::{assert_valid_pipeline, assert_valid_pipelines, jobs_of};
use crate::plans::{plan, start, task};
use crate::test::Test;

const TARGETS: [(&str, bool, &str); 2] = [
    ("github-actions", false, "vendor.github-workflows"),
    ("gitlab-ci", true, "vendor.gitlab-ci"),
];

fn export(t: &Test, target: &str, name: &str) -> (PathBuf, String) {
    let file = t.root.join(name);
    t.wf(&[
        "export",
        target,
        "--install",
        "path",
        "-o",
        file.to_str().unwrap(),
    ])
    .ok();
    let yaml = std::fs::read_to_string(&file).unwrap();
    (file, yaml)
}

/// A directory holding a `wf` that prints each of its arguments on a line: what a
/// job's command line hands wf, through the shell, as the runner would run it.
fn echo_wf(root: &Path) -> PathBuf {
    let dir = root.join("echo-wf");
    std::fs::create_dir_all(&dir).unwrap();
    let wf = dir.join("wf");
    std::fs::write(
        &wf,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wf, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Runs a job's command line with `sh -c` in `dir`, with `path_dir` first on PATH.
fn sh(line: &str, dir: &Path, path_dir: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let path = format!(
        "{}:{}",
        path_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .envs(env.iter().copied())
        .output()
        .expect("run sh")
}

fn wf_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_wf"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The `run-task` lines of the pipeline, by job.
fn run_task_lines(yaml: &str, gitlab: bool) -> Vec<(String, String)> {
    jobs_of(yaml, gitlab)
        .into_iter()
        .flat_map(|(job, _, runs)| {
            runs.into_iter()
                .filter(|r| r.starts_with("wf run-task"))
                .map(move |r| (job.clone(), r))
        })
        .collect()
}

#[test]
fn regression_a_dash_id_printed_help_instead_of_running_its_task() {
    // `wf run-task -h1` printed run-task's help and exited 0: no check ran.
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T0", "a").verify("true"),
            task("-h1", "a").verify("echo ran >> runs.log"),
        ]),
    );
    for (target, gitlab, _) in TARGETS {
        let (_, yaml) = export(&t, target, &format!("{target}.yml"));
        let (_, line) = run_task_lines(&yaml, gitlab)
            .into_iter()
            .find(|(_, l)| l.contains("-h1"))
            .expect("a job runs -h1");
        let _ = std::fs::remove_file(t.project.join("runs.log"));
        let out = sh(
            &line,
            &t.project,
            &wf_dir(),
            &[("WF_HOME", t.home.to_str().unwrap())],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{target}: {line}: {stdout}");
        assert!(
            !stdout.contains("Usage:"),
            "{target}: help printed: {stdout}"
        );
        assert_eq!(
            t.read("runs.log"),
            "ran\n",
            "{target}: the check did not run"
        );
    }
}

#[test]
fn regression_a_plan_named_like_an_option_printed_help_in_every_job() {
    // WF_PLAN=-h.md made `wf workflow-start "$WF_PLAN"` print help and exit 0: the
    // jobs ran on no workflow.
    let t = Test::new();
    t.write("-h.md", plan(&[task("T1", "a").verify("true")]));
    t.wf(&["workflow-start", "--", "-h.md"]).ok();
    for (target, gitlab, _) in TARGETS {
        let (_, yaml) = export(&t, target, &format!("{target}.yml"));
        assert!(yaml.contains("WF_PLAN: \"-h.md\"\n"), "{yaml}");
        let import = jobs_of(&yaml, gitlab)
            .into_iter()
            .flat_map(|(_, _, runs)| runs)
            .find(|r| r.starts_with("wf workflow-start"))
            .expect("a job imports the plan");
        let fresh = t.root.join(format!("fresh-home-{target}"));
        let out = sh(
            &import,
            &t.project,
            &wf_dir(),
            &[("WF_HOME", fresh.to_str().unwrap()), ("WF_PLAN", "-h.md")],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{target}: {import}: {stdout}");
        assert!(stdout.contains("Planned"), "{target}: {import}: {stdout}");
    }
}

#[test]
fn regression_a_dot_id_result_was_dropped_and_the_collect_job_passed() {
    // `results/.h1.json` is hidden, which actions/upload-artifact@v4 leaves out by
    // default; the collect job imported the rest and exited 0 with .h1 never done.
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T0", "a").verify("true"),
            task(".h1", "a").verify("true"),
        ]),
    );
    let (_, yaml) = export(&t, "github-actions", "gh.yml");
    let uploads = yaml.matches("name: wf-result-").count();
    assert_eq!(
        yaml.matches("include-hidden-files: true\n").count(),
        uploads + 1,
        "every result upload keeps hidden files:\n{yaml}"
    );
    // The collect job, with .h1's result lost on the way: it fails, naming it.
    let collect = jobs_of(&yaml, false)
        .into_iter()
        .find(|(job, _, _)| job == "collect")
        .unwrap();
    let import = collect
        .2
        .iter()
        .find(|r| r.contains("wf import-results"))
        .unwrap()
        .clone();
    t.wf(&[
        "run-task",
        "T0",
        "--result-dir",
        "results/wf-result-task-T0",
    ])
    .ok();
    let out = sh(
        &import,
        &t.project,
        &wf_dir(),
        &[("WF_HOME", t.home.to_str().unwrap())],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{import}: {stderr}");
    assert!(
        stderr.contains("no result for .h1 from job task-_2eh1"),
        "{stderr}"
    );
}

/// Job ids, each once, whatever the case (GitHub's job ids are case-insensitive).
fn assert_distinct_job_ids(yaml: &str, gitlab: bool) {
    let mut seen = HashSet::new();
    for (job, _, _) in jobs_of(yaml, gitlab) {
        assert!(
            seen.insert(job.to_ascii_lowercase()),
            "job id {job} twice (case aside):\n{yaml}"
        );
    }
}

#[test]
fn regression_ids_differing_by_case_made_duplicate_job_ids() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("t1", "a").verify("true"),
        ]),
    );
    for (target, gitlab, schema) in TARGETS {
        let (file, yaml) = export(&t, target, &format!("{target}.yml"));
        assert_distinct_job_ids(&yaml, gitlab);
        assert_valid_pipeline(&file, schema);
    }
}

#[test]
fn regression_a_relay_job_took_a_task_jobs_name() {
    // GitLab: Z needs 60 jobs, so relay jobs `task-Z-wait-1-N` waited for them; a
    // task named `Z-wait-1-1` had that job id too: a duplicate key, and a lost
    // `needs`. There are no relay jobs now: Z1 waits by stage, naming no `needs`.
    let t = Test::new();
    let mut tasks: Vec<crate::plans::T<'_>> = (0..60)
        .map(|i| {
            let id: &'static str = Box::leak(format!("W{i}").into_boxed_str());
            task(id, "a").verify("true")
        })
        .collect();
    let all: String = (0..60)
        .map(|i| format!("W{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    tasks.push(task("Z1", "b").verify("true").deps(&all));
    tasks.push(task("Z1-wait-1-1", "b").verify("true"));
    start(&t, &plan(&tasks));
    let (file, yaml) = export(&t, "gitlab-ci", "gl.yml");
    assert_distinct_job_ids(&yaml, true);
    assert_valid_pipeline(&file, "vendor.gitlab-ci");
    assert!(
        yaml.contains("\ntask-Z1:\n  stage: tasks-2\n  timeout: "),
        "{yaml}"
    );
}

/// The GitLab pipeline, job by job as a runner does it: each task job in a fresh copy
/// of the project with a `WF_HOME` of its own, only its `artifacts: paths` (its
/// `results/<job>/`) passed on; then the collect job over what was passed on. One
/// job plants a passing result for another job's failing task, beside its own
/// results and in the other job's directory: neither gets in.
#[test]
fn a_gitlab_pipeline_run_job_by_job_takes_each_jobs_results_only() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").verify("true").deps("T1"),
            task("T3", "a").verify("echo T3 breaks >&2; exit 3"),
            task("Z1", "a").verify(
                "mkdir -p results/task-Z1 results/task-T3 && cp forged.json results/task-Z1/T3.json && cp forged.json results/task-T3/T3.json",
            ),
        ]),
    );
    t.wf(&["run-task", "T3", "--result", "forged.json"]).code(1);
    crate::import_trust::forge(&t, "forged.json", crate::import_trust::as_a_pass);
    let (_, yaml) = export(&t, "gitlab-ci", "gl.yml");
    let jobs = jobs_of(&yaml, true);
    let collect_dir = t.root.join("collect");
    crate::faults::copy_tree(&t.project, &collect_dir);
    let _ = std::fs::remove_dir_all(collect_dir.join("results"));
    for (job, _, script) in jobs.iter().filter(|(j, _, _)| j.starts_with("task-")) {
        let dir = t.root.join(format!("job-{job}"));
        crate::faults::copy_tree(&t.project, &dir);
        let home = t.root.join(format!("home-{job}"));
        for line in script {
            let out = sh(
                line,
                &dir,
                &wf_dir(),
                &[("WF_HOME", home.to_str().unwrap()), ("WF_PLAN", "tasks.md")],
            );
            if !out.status.success() {
                break;
            }
        }
        // The job's artifact: its results directory, and nothing else.
        let kept = format!("results/{job}");
        if dir.join(&kept).exists() {
            crate::faults::copy_tree(&dir.join(&kept), &collect_dir.join(&kept));
        }
    }
    let (_, _, script) = jobs.iter().find(|(j, _, _)| j == "wf-collect").unwrap();
    let home = t.root.join("home-collect");
    let mut last = None;
    for line in script {
        last = Some(sh(
            line,
            &collect_dir,
            &wf_dir(),
            &[("WF_HOME", home.to_str().unwrap()), ("WF_PLAN", "tasks.md")],
        ));
    }
    let out = last.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("a result for T3 in the directory of job task-Z1, which runs Z1, not T3"),
        "{stderr}"
    );
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_wf"))
        .args(["status", "--json"])
        .current_dir(&collect_dir)
        .env("WF_HOME", &home)
        .output()
        .unwrap();
    let state: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let statuses = crate::plans::statuses(&state["state"]);
    assert_eq!(
        statuses,
        [
            ("T1", "completed"),
            ("T2", "completed"),
            ("T3", "failed"),
            ("Z1", "completed")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
}

// ---- the property ----

/// An id a plan allows, from an alphabet of what breaks command lines, file names
/// and job ids: a leading `-` or `.`, case, `_`, `.`, `-`; with a digit, as the
/// claude-workflow reader wants a task heading's id to have.
fn hostile_id() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "", "-", ".", "--", "-.", ".-", "_", "-h", "--help", "..",
        ]),
        "[A-Za-z0-9_.-]{0,6}",
        0u8..10,
    )
        .prop_map(|(head, tail, digit)| format!("{head}{tail}{digit}"))
}

/// A case: ids (some differing from another only by case), each task's dependencies
/// on earlier ones, a hostile name each, and the plan's file name.
#[derive(Debug, Clone)]
struct Case {
    ids: Vec<String>,
    deps: Vec<Vec<usize>>,
    names: Vec<String>,
    plan_file: String,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(hostile_id(), 1..8),
        prop::collection::vec(prop::collection::vec(0usize..8, 0..3), 8),
        prop::collection::vec(
            prop::sample::select(vec![
                "$(touch pwned)",
                "`id`",
                "${{ secrets.X }}",
                "'; exit 0; '",
                "\" && true && \"",
                "plain",
                "#comment: x",
                "- [ ] not a task",
            ]),
            8,
        ),
        prop::sample::select(vec!["tasks.md", "-h.md", ".plan.md", "--x.md", "a-b.c.md"]),
        any::<bool>(),
    )
        .prop_map(|(mut ids, deps, names, plan_file, recase)| {
            if recase && !ids.is_empty() {
                let flipped: String = ids[0]
                    .chars()
                    .map(|c| {
                        if c.is_ascii_lowercase() {
                            c.to_ascii_uppercase()
                        } else {
                            c.to_ascii_lowercase()
                        }
                    })
                    .collect();
                ids.push(flipped);
            }
            // The first task is a plain one: the reader knows the format by it.
            ids.insert(0, "T0".into());
            let mut seen = HashSet::new();
            ids.retain(|id| seen.insert(id.clone()));
            let n = ids.len();
            Case {
                deps: (0..n)
                    .map(|i| {
                        let mut d: Vec<usize> = deps[i % deps.len()]
                            .iter()
                            .filter(|&&j| j < i)
                            .copied()
                            .collect();
                        d.sort_unstable();
                        d.dedup();
                        d
                    })
                    .collect(),
                names: (0..n).map(|i| names[i % names.len()].to_string()).collect(),
                ids,
                plan_file: plan_file.to_string(),
            }
        })
}

fn plan_text(c: &Case) -> String {
    let mut text = String::from("# Tasks: hostile\n\n");
    for (i, id) in c.ids.iter().enumerate() {
        text.push_str(&format!(
            "## {id}: {}\n- **阶段**: p\n- **需求**: do it\n- **验证命令**: `true`\n",
            c.names[i]
        ));
        if !c.deps[i].is_empty() {
            let deps: Vec<&str> = c.deps[i].iter().map(|&d| c.ids[d].as_str()).collect();
            text.push_str(&format!("- **依赖**: {}\n", deps.join(", ")));
        }
        text.push('\n');
    }
    text
}

/// What `line` hands the `wf` in `echo` (see [`echo_wf`]), one argument a line.
fn words(line: &str, dir: &Path, echo: &Path) -> Result<Vec<String>, TestCaseError> {
    let out = sh(line, dir, echo, &[]);
    prop_assert!(out.status.success(), "{}", line);
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect())
}

/// How many imported ids start with `-` or `.` or hold a small letter (the case
/// clashes): the property is about them, so the cases must hold some.
static HOSTILE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One case: imported (or refused at import: then there is nothing to export),
/// exported for both CIs; every task in exactly one job's `run-task` line, which
/// hands wf exactly `run-task --ci --result-dir DIR -- <the job's ids>`. Returns the
/// files written, for the schema checks.
fn check_case(c: &Case, root: &Path) -> Result<Vec<(PathBuf, &'static str)>, TestCaseError> {
    let t = Test::new();
    t.write(&c.plan_file, plan_text(c));
    let start = t.wf(&["workflow-start", "--", &c.plan_file]);
    if start.code != 0 {
        // A plan that refuses an id at import is the other half of the promise: it
        // must refuse it with a reason, not crash.
        prop_assert_eq!(start.code, 2, "{}", start.whole());
        return Ok(Vec::new());
    }
    // The tasks the reader took (a heading it does not read as a task is prose).
    let imported: Vec<String> = crate::plans::statuses(&t.state())
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    HOSTILE.fetch_add(
        imported
            .iter()
            .filter(|id| {
                id.starts_with(['-', '.']) || id.contains(|c: char| c.is_ascii_lowercase())
            })
            .count(),
        std::sync::atomic::Ordering::Relaxed,
    );
    let echo = echo_wf(&t.root);
    let mut files = Vec::new();
    for (target, gitlab, schema) in TARGETS {
        let (file, yaml) = export(&t, target, &format!("{target}.yml"));
        let jobs = jobs_of(&yaml, gitlab);
        let mut seen = HashSet::new();
        for (job, _, _) in &jobs {
            prop_assert!(
                seen.insert(job.to_ascii_lowercase()),
                "{}: job id {} twice",
                target,
                job
            );
        }
        let mut job_of: HashMap<String, String> = HashMap::new();
        let mut runs: Vec<String> = Vec::new();
        for (job, line) in run_task_lines(&yaml, gitlab) {
            let args = words(&line, &t.project, &echo)?;
            prop_assert_eq!(&args[..3], &["run-task", "--ci", "--result-dir"]);
            // GitLab keeps each job's results in a directory of the job's name (in
            // GitHub, the artifact's name does it).
            let dir = if gitlab {
                format!("results/{job}")
            } else {
                "results".into()
            };
            prop_assert_eq!(&args[3], &dir);
            prop_assert_eq!(&args[4], "--", "{}: {}", target, line);
            for id in &args[5..] {
                prop_assert!(
                    job_of.insert(id.clone(), job.clone()).is_none(),
                    "{}: {} in two jobs",
                    target,
                    id
                );
            }
            runs.push(format!("{job}={}", args[5..].join(",")));
        }
        // The collect job is told the same jobs and tasks.
        let import = jobs
            .iter()
            .flat_map(|(_, _, lines)| lines)
            .find(|l| l.contains("wf import-results"))
            .expect("a collect job");
        let args = words(
            import.trim_start_matches("mkdir -p results && "),
            &t.project,
            &echo,
        )?;
        let told: Vec<String> = args
            .iter()
            .skip_while(|a| *a != "--job")
            .filter(|a| *a != "--job")
            .cloned()
            .collect();
        prop_assert_eq!(told, runs, "{}: --job disagrees with the jobs", target);
        let mut ran: Vec<&String> = job_of.keys().collect();
        ran.sort();
        let mut ids: Vec<&String> = imported.iter().collect();
        ids.sort();
        prop_assert_eq!(
            ran,
            ids,
            "{}: the jobs run other tasks than the workflow's",
            target
        );
        static CASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CASES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let kept = root.join(format!("case-{n}-{target}.yml"));
        std::fs::copy(&file, &kept).unwrap();
        files.push((kept, schema));
    }
    Ok(files)
}

#[test]
fn any_ids_a_plan_allows_export_to_valid_pipelines_that_run_each_task_once() {
    let root = tempfile::tempdir().unwrap();
    let files = std::cell::RefCell::new(Vec::new());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&case(), |c| {
            let written = check_case(&c, root.path())?;
            files.borrow_mut().extend(written);
            Ok(())
        })
        .unwrap();
    // The schemas and actionlint once over every case's files: each run costs a
    // second of start-up.
    let files = files.into_inner();
    // Most cases are plans the reader takes (the others are refused at import).
    assert!(files.len() >= 2 * 12, "only {} files exported", files.len());
    let hostile = HOSTILE.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "export property: {} pipelines, {hostile} hostile ids",
        files.len()
    );
    assert!(hostile >= 10, "only {hostile} hostile ids were exported");
    for (_, _, schema) in TARGETS {
        let of: Vec<&Path> = files
            .iter()
            .filter(|(_, s)| *s == schema)
            .map(|(f, _)| f.as_path())
            .collect();
        assert_valid_pipelines(&of, schema);
    }
}
