//! `wf status`: where the workflow stands. Read-only: it takes no lock and writes
//! nothing, whatever it finds (a corrupt state is reported, exit 5, and left as is).

use crate::cli::StatusArgs;
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::report::status::{self, Paths};
use crate::run::lease::Leases;
use crate::state::summary::View;
use crate::state::WorkflowStatus;

pub fn run(project: &Project, args: &StatusArgs, out: &Output) -> Result<i32> {
    // The summary table and the short task list are what the summary holds; the
    // JSON document, the filtered or full lists and the details need every task.
    let whole = out.json || args.failed || args.all || args.phase.is_some() || args.detail;
    let (store, view) = if whole {
        let (store, state) = super::load_state(project)?;
        (store, View::whole(state))
    } else {
        super::load_view(project)?
    };
    let (state, digest) = (&view.state, &view.digest);
    let window = project.config.wf.context_window();
    // A state left `running` with nobody holding the lock is a crashed run, unless
    // it rests with a task handed off to an agent.
    let writer_alive = store.writer_alive();
    let interrupted =
        state.status == WorkflowStatus::Running && digest.handed_off.is_none() && !writer_alive;
    if out.json {
        let paths = Paths {
            workflow_dir: store.dir().to_path_buf(),
            state_file: store.state_path(),
            events_file: store.events_path(),
            plan_copy: crate::state::archive::plan_copies(store.dir(), state)
                .into_iter()
                .next(),
        };
        let mut doc = status::json(state, &paths, window, interrupted);
        doc.leases = Leases::load(store.dir())?.leases;
        out.json_value(&doc);
        return Ok(0);
    }
    let mut text = status::table(state, digest, window, out.look())?;
    let next = crate::report::next::next_in(
        state,
        digest,
        crate::run::now::Facts {
            writer_alive,
            ..Default::default()
        },
    )?;
    if interrupted && next.reason != crate::report::next::Reason::Interrupted {
        text.push_str("\nInterrupted: the run that was executing this workflow is gone; `wf resume` continues where it stopped.");
    }
    let filter = crate::report::tasks::Filter {
        failed: args.failed,
        phase: args.phase.as_deref(),
        all: args.all,
    };
    if let Some(phase) = filter.phase {
        known_phase(state, phase)?;
    }
    if digest.total > 0 {
        text.push_str("\n\n");
        text.push_str(&if whole {
            crate::report::tasks::list(state, &filter, out.look())?
        } else {
            crate::report::tasks::list_in(state, digest, out.look())?
        });
    }
    if let Some(agents) = status::leases(&Leases::load(store.dir())?) {
        text.push_str("\n\n");
        text.push_str(&agents);
    }
    if args.detail {
        text.push_str("\n\n");
        text.push_str(&status::detail(state, out.look())?);
    }
    // As `git status` does: what to run next, last, whatever the state.
    text.push_str("\n\nNext: ");
    text.push_str(&next.message);
    out.say(text.trim_end());
    Ok(0)
}

/// `--phase P` names a phase of the plan, or the user hears which ones there are.
fn known_phase(state: &crate::state::WorkflowState, phase: &str) -> Result<()> {
    let tasks = state.whole_tasks()?;
    if tasks.iter().any(|t| t.phase == phase) {
        return Ok(());
    }
    let mut phases: Vec<&str> = Vec::new();
    for t in tasks {
        if !phases.contains(&t.phase.as_str()) {
            phases.push(&t.phase);
        }
    }
    Err(crate::error::WfError::usage(format!(
        "--phase {phase}: no task of the plan is in that phase; its phases: {}",
        phases.join(", ")
    )))
}
