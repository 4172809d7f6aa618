//! `wf run-task TASK --result FILE`: one task's checks, run on their own, written
//! down for `wf import-results` (docs/distributed.md) — or a chain of tasks
//! (`TASK… --result-dir DIR`), run in turn until the first failure, as an exported
//! CI job runs its tasks. It reads the imported state
//! without the lock and writes nothing in the workflow dir (the logs live in a
//! temporary directory, `src/run/standalone.rs`), so it can run beside anything.

use std::path::Path;

use serde_json::{json, Value};

use crate::cli::RunTaskArgs;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::run::ci_cache::CiCache;
use crate::run::{carry, standalone};

pub fn run(project: &Project, args: &RunTaskArgs, out: &Output) -> Result<i32> {
    // The signing key, out of the environment before anything runs: the checks are
    // the plan's commands and must not be handed the key that vouches for them. (A
    // process of the same user can still read this one's first environment, so the
    // key guards the results from whoever cannot run code in the job; see
    // docs/distributed.md.) Here, before any thread starts, the change is safe.
    let key = standalone::result_key();
    std::env::remove_var(standalone::KEY_VAR);
    let (_, state) = super::load_state(project)?;
    let ci = standalone::ci_rules(args.ci);
    if args.tasks.len() > 1 && args.result.is_some() {
        return Err(WfError::usage(
            "--result FILE takes one task; for several, --result-dir DIR writes DIR/<task id>.json for each",
        ));
    }
    standalone::check_chain(&state, &args.tasks, ci || args.agents)?;
    let mut cache = args
        .cache
        .as_deref()
        .map(|dir| CiCache::open(dir, &project.dir, &state, &project.config));
    let run = standalone::Run {
        project: &project.dir,
        config: &project.config,
        state: &state,
        ci,
        key: key.as_deref(),
        // The brief is rendered up here: `run` sits below `report`.
        agents: args
            .agents
            .then_some(crate::report::brief::brief as crate::run::engine::BriefFn),
        // `--quiet` turns `-v` off, as in `workflow-execute`.
        echo: (args.verbose && !out.quiet).then(|| crate::report::progress::line_echo(out.json)),
    };
    let code = match args.tasks.as_slice() {
        [task] if args.result_dir.is_none() && args.outputs.is_none() => {
            let result = standalone::run_task(&run, task, None, cache.as_mut())?;
            if let Some(path) = &args.result {
                write_result(path, &result)?;
            }
            out.json_value(&result);
            say(out, &run, &result, args.result.as_deref());
            i32::from(!result.success)
        }
        _ => chain(&run, args, cache.as_mut(), out)?,
    };
    if let Some(cache) = &cache {
        keep(cache, out);
    }
    Ok(code)
}

/// Writes the passes a run made to its cache, and says what of the cache could not
/// be read or written: a cache costs re-runs when it fails, never a result.
fn keep(cache: &CiCache<'_>, out: &Output) {
    let written = cache.flush().err().map(|e| e.message);
    for problem in cache.warnings().into_iter().chain(written) {
        out.warn(&problem);
    }
}

/// One task's verdict: on stdout when it passed, on stderr when it failed. When
/// `run` echoed its checks' output as it came (`-v`), no tail of it again.
fn say(
    out: &Output,
    run: &standalone::Run<'_>,
    result: &standalone::TaskResultFile,
    written: Option<&Path>,
) {
    out.conclude(
        &crate::report::distributed::run_task_text(result, written, run.echo.is_some()),
        result.success,
    );
}

/// `wf run-task T1 T2 … [--result-dir DIR] [--outputs DIR]`: each task in turn, each
/// result written as soon as it is known; after the first failure the rest do not
/// run (they are named as not run, and stay pending where the results are imported,
/// like the dependants of a failed task in a local run). With `--outputs`, the
/// upstream outputs come in first and each passing task's go out
/// (`src/run/carry.rs`).
fn chain(
    run: &standalone::Run<'_>,
    args: &RunTaskArgs,
    mut cache: Option<&mut CiCache<'_>>,
    out: &Output,
) -> Result<i32> {
    let (project, state) = (run.project, run.state);
    let mut results: Vec<Value> = Vec::new();
    let mut not_run: Vec<Value> = Vec::new();
    let mut failed: Option<&str> = None;
    if let Some(dir) = &args.outputs {
        carry::restore(project, dir, state)?;
    }
    for id in &args.tasks {
        if let Some(first) = failed {
            let reason = format!("{first} failed before it in this chain");
            if !out.json {
                crate::output::stderr_line(format_args!("Task {id} not run: {reason}."));
            }
            not_run.push(json!({"task_id": id, "reason": reason}));
            continue;
        }
        let task = state
            .task(id)?
            .ok_or_else(|| WfError::usage(format!("no task {id}")))?;
        let cannot = match args.outputs {
            Some(_) => carry::missing_upstream(project, state, task)?,
            None => None,
        };
        let result = standalone::run_task(run, id, cannot, cache.as_deref_mut())?;
        if let (Some(dir), true) = (&args.outputs, result.success) {
            carry::stage(project, dir, task)?;
        }
        let path = args
            .result_dir
            .as_ref()
            .map(|dir| dir.join(format!("{id}.json")));
        if let Some(path) = &path {
            write_result(path, &result)?;
        }
        say(out, run, &result, path.as_deref());
        if !result.success {
            failed = Some(id);
        }
        results.push(crate::output::versioned(&result).map_err(|e| WfError::usage(e.to_string()))?);
    }
    out.json_value(&json!({
        "kind": "wf.task_chain",
        "success": failed.is_none(),
        "results": results,
        "not_run": not_run,
        "result_dir": args.result_dir,
    }));
    Ok(i32::from(failed.is_some()))
}

/// The result file: the `--json` document (`schemaVersion` first), so one schema
/// reads both; replaced whole, never half-written.
fn write_result(path: &Path, result: &standalone::TaskResultFile) -> Result<()> {
    let fail = |e: String| WfError::usage(format!("--result {}: {e}", path.display()));
    let file = crate::output::versioned(result).map_err(|e| fail(e.to_string()))?;
    let mut text = serde_json::to_string_pretty(&file).map_err(|e| fail(e.to_string()))?;
    text.push('\n');
    crate::fs::durable::write_output(path, text.as_bytes(), "--result")
}
