//! The GitLab CI pipeline: `wf-build` installs wf once as an artifact — from the
//! cache when the same wf was built before — (none under `--install path`), one
//! job per entry of the job plan runs its tasks with `wf run-task` and keeps its
//! results and its tasks' outputs, and `wf-collect`, in the last stage with
//! `when: always`, takes every earlier job's artifacts, imports the results and
//! reports JUnit to the merge request.
//!
//! A job waits for the jobs it `needs` (at most 50 on GitLab.com): when one would
//! need more, the task jobs are put in stages by their depth in the job graph and
//! that job names no `needs`, so it waits for every earlier stage — which holds
//! every job it depends on.

use super::yaml::{document, map, pairs, s, strs, Entry, Node};
use super::{
    import_line, quoted, run_task_line, verify_cache_key, Install, Pipeline, GITLAB_MAX_NEEDS,
    IMPORT_PLAN, OUTPUTS, RESULTS, WF_ON_PATH_CHECK,
};

/// GitLab's own variables in a rule: what started the pipeline, and its branch.
fn branch_rules(source: &str, branch_var: &str, branches: &[String]) -> Vec<Node> {
    if branches.is_empty() {
        return vec![map(vec![(
            "if",
            s(format!("$CI_PIPELINE_SOURCE == \"{source}\"")),
        )])];
    }
    branches
        .iter()
        .map(|b| {
            // A glob (`release/*`) as GitLab's regular expression; the branch is
            // plain characters (checked with the config).
            let test = if b.contains('*') {
                let re = b.replace('.', "\\.").replace('/', "\\/").replace('*', ".*");
                format!("{branch_var} =~ /^{re}$/")
            } else {
                format!("{branch_var} == \"{b}\"")
            };
            map(vec![(
                "if",
                s(format!("$CI_PIPELINE_SOURCE == \"{source}\" && {test}")),
            )])
        })
        .collect()
}

/// `workflow:`: which pipelines run (the settings' triggers as `rules`, else a run
/// by hand only), and whether a new one cancels a running one.
fn workflow(p: &Pipeline<'_>) -> Node {
    let mut rules = Vec::new();
    let t = p.settings.triggers.clone().unwrap_or_default();
    if let Some(b) = &t.push {
        rules.extend(branch_rules("push", "$CI_COMMIT_BRANCH", b));
    }
    if let Some(b) = &t.pull_request {
        rules.extend(branch_rules(
            "merge_request_event",
            "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
            b,
        ));
    }
    if t.workflow_dispatch.unwrap_or(true) {
        rules.push(map(vec![("if", s("$CI_PIPELINE_SOURCE == \"web\""))]));
    }
    let mut workflow = vec![("rules", Node::List(rules))];
    if p.cancels_in_progress() {
        workflow.push((
            "auto_cancel",
            map(vec![("on_new_commit", s("interruptible"))]),
        ));
    }
    map(workflow)
}

pub fn gitlab_ci(p: &Pipeline<'_>) -> String {
    let built = p.install.cargo_line("\"$CI_PROJECT_DIR/.wf-bin\"");
    // The first line of every job: the build job's wf on PATH, or (`--install path`)
    // a check that the runner has its own.
    let path = if built.is_some() {
        s("export PATH=\"$CI_PROJECT_DIR/.wf-bin/bin:$PATH\"")
    } else {
        s(WF_ON_PATH_CHECK)
    };
    let by_stage = p
        .jobs
        .jobs
        .iter()
        .any(|j| j.needs.len() + usize::from(built.is_some()) > GITLAB_MAX_NEEDS);
    let stage_of = |depth: usize| {
        if by_stage {
            format!("tasks-{}", depth + 1)
        } else {
            "tasks".to_string()
        }
    };
    let mut stages = Vec::new();
    if built.is_some() {
        stages.push("build".to_string());
    }
    let deepest = p.jobs.jobs.iter().map(|j| j.depth).max().unwrap_or(0);
    stages.extend((0..=if by_stage { deepest } else { 0 }).map(stage_of));
    stages.push("collect".into());
    let mut root: Vec<Entry> = vec![
        Entry::new("workflow", workflow(p)),
        Entry::new("stages", strs(stages)),
        Entry::new("variables", p.variables("$CI_PROJECT_DIR/.wf-home")),
    ];
    let mut default = Vec::new();
    if let Some(image) = &p.settings.image {
        default.push(("image", s(image.clone())));
    }
    if !p.settings.tags.is_empty() {
        default.push(("tags", strs(p.settings.tags.iter().cloned())));
    }
    if p.cancels_in_progress() {
        default.push(("interruptible", Node::Bool(true)));
    }
    if !default.is_empty() {
        root.push(Entry::new("default", map(default)));
    }
    if let Some((line, vars)) = built {
        // Kept in the cache by the commit or version it was built from (for
        // `source`, by the pipeline's commit), so a pipeline of the same wf skips
        // the build.
        let key = p
            .install
            .cache_key()
            .unwrap_or_else(|| "wf-source-$CI_COMMIT_SHA".into());
        let mut job = vec![("stage", s("build")), ("image", s("rust:1"))];
        if !vars.is_empty() {
            job.push(("variables", pairs(vars)));
        }
        job.extend([
            (
                "cache",
                map(vec![("key", s(key)), ("paths", strs([".wf-bin/"]))]),
            ),
            (
                "script",
                strs([format!("test -x .wf-bin/bin/wf || {line}")]),
            ),
            (
                "artifacts",
                map(vec![
                    ("paths", strs([".wf-bin/bin/wf"])),
                    ("expire_in", s("1 day")),
                ]),
            ),
        ]);
        root.push(Entry::new("wf-build", map(job)).commented(vec![
            "wf, built once for every job (or restored from the cache)".into(),
        ]));
    }
    // Every job's script: wf on PATH, the plan imported, the setup steps' lines.
    let script = |steps: Vec<&crate::config::export::SetupStep>| {
        let mut script = vec![path.clone(), s(IMPORT_PLAN)];
        script.extend(steps.into_iter().filter_map(|step| step.run.clone().map(s)));
        script
    };
    let carries = p.carries();
    for (j, job) in p.jobs.jobs.iter().enumerate() {
        let mut needs = Vec::new();
        if *p.install != Install::Path {
            needs.push(map(vec![
                ("job", s("wf-build")),
                ("artifacts", Node::Bool(true)),
            ]));
        }
        // Results are collected by the last stage; a task job takes the artifacts
        // of the jobs it needs only for the outputs they hand on.
        needs.extend(job.needs.iter().map(|&n| {
            map(vec![
                ("job", s(p.jobs.jobs[n].id.clone())),
                ("artifacts", Node::Bool(carries[n].hands_on)),
            ])
        }));
        // Each job writes and keeps only `results/<job>/`: the collect job, which
        // takes every job's artifacts into one tree, then knows each result's job.
        let dir = format!("{RESULTS}/{}", job.id);
        let mut script = script(p.setup_for(job));
        script.push(s(run_task_line(
            &job.tasks,
            &quoted(&dir),
            carries[j].gathers,
            p.verify_cache(),
            p.runs_agents(&job.tasks),
        )));
        let mut paths = vec![format!("{dir}/")];
        if carries[j].hands_on {
            paths.push(format!("{OUTPUTS}/"));
        }
        let mut body = vec![("stage", s(stage_of(job.depth)))];
        if !(by_stage && needs.len() > GITLAB_MAX_NEEDS) {
            body.push(("needs", Node::List(needs)));
        }
        body.push(("timeout", s(format!("{} minutes", p.job_minutes(job)))));
        if let Some(path) = p.verify_cache() {
            // Saved also after a failure: the passes before it are worth keeping.
            body.push((
                "cache",
                map(vec![
                    ("key", s(verify_cache_key(job))),
                    ("paths", strs([format!("{path}/")])),
                    ("when", s("always")),
                ]),
            ));
        }
        body.extend([
            ("script", Node::List(script)),
            (
                "artifacts",
                map(vec![
                    ("when", s("always")),
                    ("paths", strs(paths)),
                    ("expire_in", s("1 week")),
                ]),
            ),
        ]);
        root.push(Entry::new(job.id.clone(), map(body)).commented(p.job_comments(job)));
    }
    // No `needs`: a last-stage job waits for every earlier one and takes all their
    // artifacts, which no `needs` list of at most 50 could name.
    let mut script = script(p.setup_for_all());
    script.push(s(import_line(p.jobs)));
    root.push(
        Entry::new(
            "wf-collect",
            map(vec![
                ("stage", s("collect")),
                ("when", s("always")),
                ("script", Node::List(script)),
                (
                    "after_script",
                    Node::List(vec![path, s("wf report junit -o wf-junit.xml || true")]),
                ),
                (
                    "artifacts",
                    map(vec![
                        ("when", s("always")),
                        ("paths", strs(["wf-junit.xml", ".wf-home/"])),
                        ("reports", map(vec![("junit", s("wf-junit.xml"))])),
                    ]),
                ),
            ]),
        )
        .commented(vec![
            "Every job's results imported into one workflow, whatever failed".into(),
        ]),
    );
    document(&p.header, &Node::Map(root))
}
