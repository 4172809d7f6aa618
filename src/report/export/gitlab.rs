//! The GitLab CI pipeline: `wf-build` installs wf once as an artifact (none under
//! `--install path`), one job per
//! entry of the job plan runs its tasks with `wf run-task` (`needs` from the plan, at
//! most 50 per job through relay jobs), and `wf-collect`, in the last stage with
//! `when: always`, takes every earlier job's artifacts, imports the results and
//! reports JUnit to the merge request.

use super::yaml::{document, map, s, Node};
use super::{
    header, import_line, quoted, run_task_line, Pipeline, IMPORT_PLAN, RESULTS, WF_ON_PATH_CHECK,
};

pub fn gitlab_ci(p: &Pipeline<'_>) -> String {
    let built = p.install.cargo_line("\"$CI_PROJECT_DIR/.wf-bin\"");
    // The first line of every job: the build job's wf on PATH, or (`--install path`)
    // a check that the runner has its own.
    let path = if built.is_some() {
        s("export PATH=\"$CI_PROJECT_DIR/.wf-bin/bin:$PATH\"")
    } else {
        s(WF_ON_PATH_CHECK)
    };
    let mut stages = Vec::new();
    if built.is_some() {
        stages.push(s("build"));
    }
    stages.extend([s("tasks"), s("collect")]);
    let mut root: Vec<(String, Node)> = vec![
        ("stages".into(), Node::List(stages)),
        (
            "variables".into(),
            map(vec![
                ("WF_HOME", s("$CI_PROJECT_DIR/.wf-home")),
                ("WF_PLAN", s(p.plan_path)),
            ]),
        ),
    ];
    if let Some((line, vars)) = built {
        let mut job = vec![("stage", s("build"))];
        if !vars.is_empty() {
            job.push((
                "variables",
                Node::Map(
                    vars.into_iter()
                        .map(|(k, v)| (k.to_string(), s(v)))
                        .collect(),
                ),
            ));
        }
        job.extend([
            ("script", Node::List(vec![s(line)])),
            (
                "artifacts",
                map(vec![
                    ("paths", Node::List(vec![s(".wf-bin/bin/wf")])),
                    ("expire_in", s("1 day")),
                ]),
            ),
        ]);
        // cargo is in the Rust image; under `--install path` the runner's own image
        // (or shell) is used, since that is where wf is.
        root.push(("default".into(), map(vec![("image", s("rust:1"))])));
        root.push(("wf-build".into(), map(job)));
    }
    for job in &p.jobs.jobs {
        let mut needs = Vec::new();
        if p.install.cargo_line("").is_some() {
            needs.push(map(vec![
                ("job", s("wf-build")),
                ("artifacts", Node::Bool(true)),
            ]));
        }
        // Results are collected by the last stage; a task job needs its dependencies
        // only to wait for them.
        needs.extend(job.needs.iter().map(|&n| {
            map(vec![
                ("job", s(p.jobs.jobs[n].id.clone())),
                ("artifacts", Node::Bool(false)),
            ])
        }));
        // Each job writes and keeps only `results/<job>/`: the collect job, which
        // takes every job's artifacts into one tree, then knows each result's job.
        let dir = format!("{RESULTS}/{}", job.id);
        let mut script = Vec::new();
        if job.tasks.is_empty() {
            script.push(s("true"));
        } else {
            script.push(path.clone());
            script.push(s(IMPORT_PLAN));
            script.push(s(run_task_line(&job.tasks, &quoted(&dir))));
        }
        let mut body = vec![
            ("stage", s("tasks")),
            ("needs", Node::List(needs)),
            ("script", Node::List(script)),
        ];
        if !job.tasks.is_empty() {
            body.push((
                "artifacts",
                map(vec![
                    ("when", s("always")),
                    ("paths", Node::List(vec![s(format!("{dir}/"))])),
                    ("expire_in", s("1 week")),
                ]),
            ));
        }
        root.push((job.id.clone(), map(body)));
    }
    // No `needs`: a last-stage job waits for every earlier one and takes all their
    // artifacts, which no `needs` list of at most 50 could name.
    root.push((
        "wf-collect".into(),
        map(vec![
            ("stage", s("collect")),
            ("when", s("always")),
            (
                "script",
                Node::List(vec![path.clone(), s(IMPORT_PLAN), s(import_line(p.jobs))]),
            ),
            (
                "after_script",
                Node::List(vec![path, s("wf report junit -o wf-junit.xml || true")]),
            ),
            (
                "artifacts",
                map(vec![
                    ("when", s("always")),
                    ("paths", Node::List(vec![s("wf-junit.xml"), s(".wf-home/")])),
                    ("reports", map(vec![("junit", s("wf-junit.xml"))])),
                ]),
            ),
        ]),
    ));
    document(&header(p, "gitlab-ci"), &Node::Map(root))
}
