//! `wf report FORMAT`: CI output from the current state — JUnit XML, GitHub
//! annotations, or a GitHub job summary — on stdout or into `--output FILE`.
//! Read-only as far as the workflow is concerned.
//!
//! In GitHub Actions, after `wf workflow-execute --ci` (with `if: always()`):
//! `wf report github-annotations; wf report github-summary >> "$GITHUB_STEP_SUMMARY";
//! wf report junit -o wf-junit.xml`.

use serde_json::json;

use crate::cli::{ReportArgs, ReportFormat};
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::report::timing::TaskTimes;
use crate::report::{github, junit};
use crate::state::WorkflowState;

/// The plan's path for an annotation's `file`: relative to the runner's checkout,
/// `$GITHUB_WORKSPACE`, where GitHub resolves it; else to the project.
pub(crate) fn github_plan_path(state: &WorkflowState, project: &Project) -> Option<String> {
    let workspace = std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty());
    github::plan_path(
        state,
        &project.dir,
        workspace.as_deref().map(std::path::Path::new),
    )
}

pub fn run(project: &Project, args: &ReportArgs, out: &Output) -> Result<i32> {
    let (store, state) = super::load_state(project)?;
    let (name, text) = match args.format {
        ReportFormat::Junit => {
            let times = TaskTimes::read(&store.events_path());
            ("junit", junit::junit(&state, store.dir(), &times)?)
        }
        ReportFormat::GithubAnnotations => {
            let plan = github_plan_path(&state, project);
            let mut lines = github::annotations(&state, plan.as_deref())?.join("\n");
            if !lines.is_empty() {
                lines.push('\n');
            }
            ("github-annotations", lines)
        }
        ReportFormat::GithubSummary => ("github-summary", github::step_summary(&state)?),
    };
    if let Some(path) = &args.output {
        crate::fs::durable::write_output(path, text.as_bytes(), "cannot write")?;
        out.json_value(&json!({"format": name, "output": path}));
        out.say(format!("wrote {}", path.display()));
        return Ok(0);
    }
    out.json_value(&json!({"format": name, "text": text}));
    if out.says() {
        // As is, not through `say`: the text carries its own final newline, and an
        // empty annotation list must print nothing at all.
        out.print(text)?;
    }
    Ok(0)
}
