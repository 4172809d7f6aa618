//! `wf run-task TASK --result FILE`: one task's checks, run on their own, written
//! down for `wf import-results` (docs/distributed.md). It reads the imported state
//! without the lock and writes nothing in the workflow dir (the logs live in a
//! temporary directory, `src/run/standalone.rs`), so it can run beside anything.

use crate::cli::RunTaskArgs;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::run::standalone;

pub fn run(project: &Project, args: &RunTaskArgs, out: &Output) -> Result<i32> {
    let (_, state) = super::load_state(project)?;
    let ci = standalone::ci_rules(args.ci);
    let result = standalone::run_task(&project.dir, &project.config, &state, &args.task, ci)?;
    if let Some(path) = &args.result {
        write_result(path, &result)?;
    }
    out.json_value(&result);
    let text = crate::report::distributed::run_task_text(&result, args.result.as_deref());
    if result.success {
        out.say(text);
    } else if !out.json {
        crate::output::stderr_line(format_args!("{text}"));
    }
    Ok(i32::from(!result.success))
}

/// The result file: the `--json` document (`schemaVersion` first), so one schema
/// reads both; replaced whole, never half-written.
fn write_result(path: &std::path::Path, result: &standalone::TaskResultFile) -> Result<()> {
    let fail = |e: String| WfError::usage(format!("--result {}: {e}", path.display()));
    // Relative to the current directory; the durable write syncs the file's directory,
    // which a bare file name does not name.
    let path = &std::path::absolute(path).map_err(|e| fail(e.to_string()))?;
    let mut file = serde_json::Map::new();
    file.insert(
        "schemaVersion".into(),
        crate::output::JSON_SCHEMA_VERSION.into(),
    );
    if let serde_json::Value::Object(fields) =
        serde_json::to_value(result).map_err(|e| fail(e.to_string()))?
    {
        file.extend(fields);
    }
    let mut text = serde_json::to_string_pretty(&file).map_err(|e| fail(e.to_string()))?;
    text.push('\n');
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| WfError::io(&e, format!("--result {}: {e}", dir.display())))?;
    }
    crate::fs::durable::write_atomic(path, text.as_bytes()).map_err(|e| {
        WfError::new(
            e.kind,
            format!("--result {}: {}", path.display(), e.message),
        )
    })
}
