//! The GitHub Actions workflow: a `build` job installs wf once and uploads it (none
//! when wf is already on the runners, `--install path`), one job per entry of the job plan runs its tasks with `wf run-task` and uploads the
//! results, and `collect` (`if: always()`) imports them, writes the job summary and
//! uploads the state and the JUnit report.

use super::yaml::{document, map, s, Node};
use super::{
    header, import_line, run_task_line, tasks_name, Install, Pipeline, IMPORT_PLAN, RESULTS,
    WF_ON_PATH_CHECK,
};
use crate::run::import::ARTIFACT_PREFIX;

const CHECKOUT: &str = "actions/checkout@v4";
const UPLOAD: &str = "actions/upload-artifact@v4";
const DOWNLOAD: &str = "actions/download-artifact@v4";

fn run(line: &str) -> Node {
    map(vec![("run", s(line))])
}

fn named_run(name: &str, line: &str) -> Node {
    map(vec![("name", s(name)), ("run", s(line))])
}

/// Checkout, then wf on PATH (the build job's, or the runner's own under
/// `--install path`), then the plan imported.
fn setup(p: &Pipeline<'_>) -> Vec<Node> {
    let mut steps = vec![map(vec![("uses", s(CHECKOUT))])];
    if *p.install == Install::Path {
        steps.push(named_run("wf on PATH", WF_ON_PATH_CHECK));
    } else {
        steps.push(map(vec![
            ("uses", s(DOWNLOAD)),
            (
                "with",
                map(vec![("name", s("wf-bin")), ("path", s(".wf-bin"))]),
            ),
        ]));
        steps.push(named_run(
            "wf on PATH",
            "chmod +x .wf-bin/wf && echo \"$PWD/.wf-bin\" >> \"$GITHUB_PATH\"",
        ));
    }
    steps.push(named_run("Import the plan", IMPORT_PLAN));
    steps
}

/// A step that runs `line` with the signing key (`WF_RESULT_KEY`) from the
/// repository's secret of that name: run-task signs its results with it, the import
/// refuses results not signed with it. A secret that is not defined reads empty, and
/// wf then signs and checks nothing.
fn keyed_run(name: &str, line: &str) -> Node {
    map(vec![
        ("name", s(name)),
        (
            "env",
            map(vec![("WF_RESULT_KEY", s("${{ secrets.WF_RESULT_KEY }}"))]),
        ),
        ("run", s(line)),
    ])
}

/// The job that installs wf once and keeps it as the `wf-bin` artifact; none under
/// `--install path`.
fn build(p: &Pipeline<'_>) -> Option<Node> {
    let (line, vars) = p.install.cargo_line("\"$RUNNER_TEMP/wf\"")?;
    let mut install = vec![("name", s("Install wf"))];
    if !vars.is_empty() {
        install.push((
            "env",
            Node::Map(
                vars.into_iter()
                    .map(|(k, v)| (k.to_string(), s(v)))
                    .collect(),
            ),
        ));
    }
    install.push(("run", s(line)));
    Some(map(vec![
        ("runs-on", s("ubuntu-latest")),
        (
            "steps",
            Node::List(vec![
                map(vec![("uses", s(CHECKOUT))]),
                map(install),
                map(vec![
                    ("uses", s(UPLOAD)),
                    (
                        "with",
                        map(vec![
                            ("name", s("wf-bin")),
                            ("path", s("${{ runner.temp }}/wf/bin/wf")),
                            ("retention-days", s("1")),
                        ]),
                    ),
                ]),
            ]),
        ),
    ]))
}

pub fn github_actions(p: &Pipeline<'_>) -> String {
    let mut jobs: Vec<(String, Node)> = Vec::new();
    let build = build(p);
    let built = build.is_some();
    if let Some(job) = build {
        jobs.push(("build".into(), job));
    }
    let first_needs = || -> Vec<Node> {
        if built {
            vec![s("build")]
        } else {
            Vec::new()
        }
    };
    for job in &p.jobs.jobs {
        let mut needs = first_needs();
        needs.extend(job.needs.iter().map(|&n| s(p.jobs.jobs[n].id.clone())));
        let mut steps = if job.tasks.is_empty() {
            Vec::new()
        } else {
            setup(p)
        };
        if job.tasks.is_empty() {
            steps.push(run("true"));
        } else {
            steps.push(keyed_run(
                &tasks_name(&job.tasks),
                &run_task_line(&job.tasks, RESULTS),
            ));
            // The artifact's name is the job's: the collect job downloads each into a
            // directory of that name, which gives only this job's tasks' results.
            // Hidden files too: the result of a task `.h1` is `.h1.json`.
            steps.push(map(vec![
                ("if", s("always()")),
                ("uses", s(UPLOAD)),
                (
                    "with",
                    map(vec![
                        ("name", s(format!("{ARTIFACT_PREFIX}{}", job.id))),
                        ("path", s(format!("{RESULTS}/"))),
                        ("include-hidden-files", s("true")),
                        ("if-no-files-found", s("ignore")),
                    ]),
                ),
            ]));
        }
        let mut body = Vec::new();
        if !needs.is_empty() {
            body.push(("needs", Node::List(needs)));
        }
        body.push(("runs-on", s("ubuntu-latest")));
        body.push(("steps", Node::List(steps)));
        jobs.push((job.id.clone(), map(body)));
    }
    let mut collect_needs = first_needs();
    collect_needs.extend(p.jobs.jobs.iter().map(|j| s(j.id.clone())));
    let mut steps = setup(p);
    steps.extend([
        // One directory per artifact, `results/wf-result-<job>/`: not merged, so
        // the import knows which job each result came from.
        map(vec![
            ("uses", s(DOWNLOAD)),
            (
                "with",
                map(vec![
                    ("pattern", s(format!("{ARTIFACT_PREFIX}*"))),
                    ("path", s(RESULTS)),
                ]),
            ),
        ]),
        keyed_run("Import the results", &import_line(p.jobs)),
        map(vec![
            ("name", s("Report")),
            ("if", s("always()")),
            (
                "run",
                s("wf report junit -o wf-junit.xml; wf report github-summary >> \"$GITHUB_STEP_SUMMARY\""),
            ),
        ]),
        map(vec![
            ("if", s("always()")),
            ("uses", s(UPLOAD)),
            (
                "with",
                map(vec![
                    ("name", s("wf-state")),
                    ("path", s("wf-junit.xml\n.wf-home/")),
                    ("include-hidden-files", s("true")),
                    ("if-no-files-found", s("ignore")),
                ]),
            ),
        ]),
    ]);
    jobs.push((
        "collect".into(),
        map(vec![
            ("if", s("always()")),
            ("needs", Node::List(collect_needs)),
            ("runs-on", s("ubuntu-latest")),
            ("steps", Node::List(steps)),
        ]),
    ));
    let root = map(vec![
        ("name", s("wf")),
        ("on", map(vec![("workflow_dispatch", map(vec![]))])),
        ("permissions", map(vec![("contents", s("read"))])),
        (
            "concurrency",
            map(vec![
                ("group", s("wf-${{ github.workflow }}-${{ github.ref }}")),
                ("cancel-in-progress", Node::Bool(false)),
            ]),
        ),
        (
            "env",
            map(vec![
                ("WF_HOME", s("${{ github.workspace }}/.wf-home")),
                ("WF_PLAN", s(p.plan_path)),
            ]),
        ),
        ("jobs", Node::Map(jobs)),
    ]);
    document(&header(p, "github-actions"), &root)
}
