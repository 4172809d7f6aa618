//! `wf workflow-start PLAN.md`: read the plan, import it (`crate::import`), and say
//! what the import did.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::cli::{GlobalArgs, StartArgs};
use crate::error::Result;
use crate::import::{self, Done, Outcome, Report, Request};
use crate::output::Output;
use crate::plan;
use crate::project::Project;

pub fn run(project: &Project, global: &GlobalArgs, args: &StartArgs, out: &Output) -> Result<i32> {
    let (text, outline) = plan::read_outline(&args.plan, args.format)?;
    for w in &outline.warnings {
        out.warn(format!("{}:{}: {}", args.plan.display(), w.line, w.message));
    }
    let request = Request {
        plan: &args.plan,
        name: args.name.as_deref(),
        tech_design: args.tech_design.as_deref(),
        force: args.force,
        wait: global.wait.map(Duration::from_secs),
    };
    match import::import(project, &request, text, outline)? {
        Report::Unchanged { tasks_file } => {
            out.json_value(&json!({"changed": false, "tasks_file": tasks_file}));
            out.say("The plan is already imported and unchanged; nothing to do.");
        }
        Report::Imported(done) => {
            for warning in &done.left_out {
                out.warn(warning);
            }
            render_summary(&done, &args.plan, out)?;
        }
    }
    Ok(0)
}

fn render_summary(done: &Done, plan_path: &Path, out: &Output) -> Result<()> {
    let change = match &done.outcome {
        Outcome::Reimported { diff, change } => Some((change.as_str(), diff)),
        _ => None,
    };
    let summary = crate::report::start::summary(
        done.session.state()?,
        (&done.phases, &done.checks),
        change,
        plan_path,
        (&done.rules, out.look()),
    )?;
    out.json_value(&summary.json);
    for line in &summary.stderr {
        crate::output::stderr_line(format_args!("{line}"));
    }
    out.say(summary.text);
    Ok(())
}
