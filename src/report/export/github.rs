//! The GitHub Actions workflow: a `build` job installs wf once — from the cache
//! when the same wf was built before — and uploads it (none when wf is already on
//! the runners, `--install path`), one job per entry of the job plan runs its tasks
//! with `wf run-task`, hands its tasks' outputs on and uploads its results, and
//! `collect` (`if: always()`) imports them, writes the job summary and uploads the
//! state and the JUnit report.

use super::actions::{CACHE_RESTORE, CACHE_SAVE, CHECKOUT, DOWNLOAD, UPLOAD};
use super::yaml::{document, map, pairs, s, strs, Entry, Node};
use super::{
    import_line, run_task_line, verify_cache_key, Install, Pipeline, IMPORT_PLAN, OUTPUTS, RESULTS,
    WF_ON_PATH_CHECK,
};
use crate::config::export::SetupStep;
use crate::run::import_results::ARTIFACT_PREFIX;

/// The artifact a job hands its tasks' outputs on in.
const OUTPUT_PREFIX: &str = "wf-out-";

fn named_run(name: &str, line: &str) -> Node {
    map(vec![("name", s(name)), ("run", s(line))])
}

fn uses(name: &str, action: &str, with: Vec<(&str, Node)>) -> Vec<(&'static str, Node)> {
    vec![("name", s(name)), ("uses", s(action)), ("with", map(with))]
}

/// A `uses` step that runs only `if` `cond` holds.
fn uses_if(name: &str, cond: &str, action: &str, with: Vec<(&str, Node)>) -> Node {
    let mut step = uses(name, action, with);
    step.insert(1, ("if", s(cond)));
    map(step)
}

/// Checkout, then wf on PATH (the build job's, or the runner's own under
/// `--install path`), then the plan imported.
fn setup(p: &Pipeline<'_>) -> Vec<Node> {
    let mut steps = vec![map(vec![("uses", s(CHECKOUT))])];
    if *p.install == Install::Path {
        steps.push(named_run("Check wf is on PATH", WF_ON_PATH_CHECK));
    } else {
        steps.push(map(uses(
            "Get wf",
            DOWNLOAD,
            vec![("name", s("wf-bin")), ("path", s(".wf-bin"))],
        )));
        steps.push(named_run(
            "Put wf on PATH",
            "chmod +x .wf-bin/wf && echo \"$PWD/.wf-bin\" >> \"$GITHUB_PATH\"",
        ));
    }
    steps.push(named_run("Import the plan", IMPORT_PLAN));
    steps
}

/// A setup step of the settings, as GitHub writes it.
fn setup_step(step: &SetupStep) -> Node {
    let mut entries: Vec<Entry> = Vec::new();
    if let Some(name) = &step.name {
        entries.push(Entry::new("name", s(name.clone())));
    }
    if let Some(action) = &step.uses {
        entries.push(Entry::new("uses", s(action.clone())));
        if !step.with.is_empty() {
            entries.push(Entry::new(
                "with",
                Node::Map(
                    step.with
                        .iter()
                        .map(|(k, v)| Entry::new(k.clone(), value(v)))
                        .collect(),
                ),
            ));
        }
    }
    if !step.env.is_empty() {
        entries.push(Entry::new("env", pairs(&step.env)));
    }
    if let Some(run) = &step.run {
        entries.push(Entry::new("run", s(run.clone())));
    }
    Node::Map(entries)
}

/// A `with` value of a setup step: a string or number as text, a boolean as one.
fn value(v: &serde_json::Value) -> Node {
    match v {
        serde_json::Value::Bool(b) => Node::Bool(*b),
        serde_json::Value::String(text) => s(text.clone()),
        other => s(other.to_string()),
    }
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

/// `runs-on`: the settings' labels, else `ubuntu-latest`.
fn runs_on(p: &Pipeline<'_>) -> Node {
    match p
        .settings
        .runs_on
        .as_ref()
        .map(crate::config::export::Labels::as_vec)
    {
        Some(labels) if labels.len() == 1 => s(labels[0].clone()),
        Some(labels) => strs(labels),
        None => s("ubuntu-latest"),
    }
}

/// The job that installs wf once and keeps it as the `wf-bin` artifact — restored
/// from the cache when this wf was built before (keyed by its commit, version or,
/// for `source`, the hash of its sources); none under `--install path`.
fn build(p: &Pipeline<'_>) -> Option<Node> {
    let (line, vars) = p.install.cargo_line("\"$RUNNER_TEMP/wf\"")?;
    let key = match p.install.cache_key() {
        Some(key) => format!("{key}-${{{{ runner.os }}}}"),
        None => "wf-source-${{ runner.os }}-${{ hashFiles('Cargo.lock', 'Cargo.toml', 'build.rs', 'src/**') }}".into(),
    };
    let mut steps = Vec::new();
    if *p.install == Install::Source {
        steps.push(map(vec![("uses", s(CHECKOUT))]));
    }
    let cached = || {
        vec![
            ("path", s("${{ runner.temp }}/wf")),
            ("key", s(key.clone())),
        ]
    };
    let missed = "steps.cache.outputs.cache-hit != 'true'";
    let mut restore = uses("Restore wf from the cache", CACHE_RESTORE, cached());
    restore.insert(1, ("id", s("cache")));
    steps.push(map(restore));
    let mut install = vec![("name", s("Install wf")), ("if", s(missed))];
    if !vars.is_empty() {
        install.push(("env", pairs(vars)));
    }
    install.push(("run", s(line)));
    steps.push(map(install));
    steps.push(uses_if(
        "Keep wf in the cache",
        missed,
        CACHE_SAVE,
        cached(),
    ));
    steps.push(map(uses(
        "Hand wf on",
        UPLOAD,
        vec![
            ("name", s("wf-bin")),
            ("path", s("${{ runner.temp }}/wf/bin/wf")),
            ("retention-days", Node::Int(1)),
        ],
    )));
    Some(map(vec![
        ("name", s("Build wf")),
        ("runs-on", runs_on(p)),
        ("steps", Node::List(steps)),
    ]))
}

pub fn github_actions(p: &Pipeline<'_>) -> String {
    let mut jobs: Vec<Entry> = Vec::new();
    let build = build(p);
    let built = build.is_some();
    if let Some(job) = build {
        jobs.push(Entry::new("build", job).commented(vec![
            "wf, built once for every job (or restored from the cache)".into(),
        ]));
    }
    let first_needs = || -> Vec<String> {
        if built {
            vec!["build".into()]
        } else {
            Vec::new()
        }
    };
    let carries = p.carries();
    for (j, job) in p.jobs.jobs.iter().enumerate() {
        let mut needs = first_needs();
        needs.extend(job.needs.iter().map(|&n| p.jobs.jobs[n].id.clone()));
        let mut steps = setup(p);
        steps.extend(p.setup_for(job).into_iter().map(setup_step));
        for &n in job.needs.iter().filter(|&&n| carries[n].hands_on) {
            steps.push(map(uses(
                &format!("Get the outputs of {}", p.jobs.jobs[n].id),
                DOWNLOAD,
                vec![
                    ("name", s(format!("{OUTPUT_PREFIX}{}", p.jobs.jobs[n].id))),
                    ("path", s(OUTPUTS)),
                ],
            )));
        }
        // GitHub never replaces a cache entry: each run saves a new one under its
        // run's key, and the next run restores the newest of the job's.
        let cache = p.verify_cache().map(|path| {
            let prefix = format!("{}-", verify_cache_key(job));
            let key = format!("{prefix}${{{{ github.run_id }}}}-${{{{ github.run_attempt }}}}");
            (path, prefix, key)
        });
        if let Some((path, prefix, key)) = &cache {
            steps.push(map(uses(
                "Restore the verification cache",
                CACHE_RESTORE,
                vec![
                    ("path", s(*path)),
                    ("key", s(key.clone())),
                    ("restore-keys", s(prefix.clone())),
                ],
            )));
        }
        steps.push(keyed_run(
            &format!("Run {}", tasks_span(&job.tasks)),
            &run_task_line(
                &job.tasks,
                RESULTS,
                carries[j].gathers,
                p.verify_cache(),
                p.runs_agents(&job.tasks),
            ),
        ));
        if let Some((path, _, key)) = &cache {
            // Also after a failure: the passes before it are worth keeping.
            steps.push(uses_if(
                "Keep the verification cache",
                "always()",
                CACHE_SAVE,
                vec![("path", s(*path)), ("key", s(key.clone()))],
            ));
        }
        if carries[j].hands_on {
            steps.push(map(uses(
                "Hand the outputs on",
                UPLOAD,
                vec![
                    ("name", s(format!("{OUTPUT_PREFIX}{}", job.id))),
                    ("path", s(format!("{OUTPUTS}/"))),
                    ("include-hidden-files", Node::Bool(true)),
                    ("if-no-files-found", s("ignore")),
                    ("retention-days", Node::Int(1)),
                ],
            )));
        }
        // The artifact's name is the job's: the collect job downloads each into a
        // directory of that name, which gives only this job's tasks' results.
        // Hidden files too: the result of a task `.h1` is `.h1.json`.
        steps.push(uses_if(
            "Upload the results",
            "always()",
            UPLOAD,
            vec![
                ("name", s(format!("{ARTIFACT_PREFIX}{}", job.id))),
                ("path", s(format!("{RESULTS}/"))),
                ("include-hidden-files", Node::Bool(true)),
                ("if-no-files-found", s("ignore")),
            ],
        ));
        let mut body = vec![("name", s(p.job_name(job)))];
        if !needs.is_empty() {
            body.push(("needs", strs(needs)));
        }
        body.extend([
            ("runs-on", runs_on(p)),
            ("timeout-minutes", Node::Int(p.job_minutes(job))),
            ("steps", Node::List(steps)),
        ]);
        jobs.push(Entry::new(job.id.clone(), map(body)).commented(p.job_comments(job)));
    }
    let mut collect_needs = first_needs();
    collect_needs.extend(p.jobs.jobs.iter().map(|j| j.id.clone()));
    let mut steps = setup(p);
    steps.extend(p.setup_for_all().into_iter().map(setup_step));
    steps.extend([
        // One directory per artifact, `results/wf-result-<job>/`: not merged, so
        // the import knows which job each result came from.
        map(uses(
            "Get the results",
            DOWNLOAD,
            vec![
                ("pattern", s(format!("{ARTIFACT_PREFIX}*"))),
                ("path", s(RESULTS)),
            ],
        )),
        keyed_run("Import the results", &import_line(p.jobs)),
        map(vec![
            ("name", s("Report")),
            ("if", s("always()")),
            (
                "run",
                s("wf report junit -o wf-junit.xml\nwf report github-summary >> \"$GITHUB_STEP_SUMMARY\"\n"),
            ),
        ]),
        uses_if(
            "Upload the state",
            "always()",
            UPLOAD,
            vec![
                ("name", s("wf-state")),
                ("path", s("wf-junit.xml\n.wf-home/\n")),
                ("include-hidden-files", Node::Bool(true)),
                ("if-no-files-found", s("ignore")),
            ],
        ),
    ]);
    jobs.push(
        Entry::new(
            "collect",
            map(vec![
                ("name", s("Import the results")),
                ("if", s("always()")),
                ("needs", strs(collect_needs)),
                ("runs-on", runs_on(p)),
                ("steps", Node::List(steps)),
            ]),
        )
        .commented(vec![
            "Every job's results imported into one workflow, whatever failed".into(),
        ]),
    );
    let concurrency = p.settings.concurrency.clone().unwrap_or_default();
    let root = Node::Map(vec![
        Entry::new("name", s("wf")),
        Entry::new("on", triggers(p)),
        Entry::new("permissions", map(vec![("contents", s("read"))])),
        Entry::new(
            "concurrency",
            map(vec![
                (
                    "group",
                    s(concurrency
                        .group
                        .unwrap_or_else(|| "wf-${{ github.workflow }}-${{ github.ref }}".into())),
                ),
                ("cancel-in-progress", Node::Bool(p.cancels_in_progress())),
            ]),
        ),
        Entry::new("env", p.variables("${{ github.workspace }}/.wf-home")),
        Entry::new("jobs", Node::Map(jobs)),
    ]);
    document(&p.header, &root)
}

/// `on:`: the settings' triggers, else a run by hand only.
fn triggers(p: &Pipeline<'_>) -> Node {
    let Some(t) = &p.settings.triggers else {
        return map(vec![("workflow_dispatch", map(vec![]))]);
    };
    let mut on = Vec::new();
    for (name, branches) in [("push", &t.push), ("pull_request", &t.pull_request)] {
        match branches {
            Some(b) if b.is_empty() => on.push(Entry::new(name, map(vec![]))),
            Some(b) => on.push(Entry::new(
                name,
                map(vec![("branches", strs(b.iter().cloned()))]),
            )),
            None => {}
        }
    }
    if t.workflow_dispatch.unwrap_or(true) {
        on.push(Entry::new("workflow_dispatch", map(vec![])));
    }
    Node::Map(on)
}

/// `T1`, or `T1..T9 (9 tasks)`.
fn tasks_span(ids: &[String]) -> String {
    match ids {
        [one] => one.clone(),
        [first, .., last] => format!("{first}..{last} ({} tasks)", ids.len()),
        [] => "nothing".into(),
    }
}
