//! `wf next`: the brief of the task to do now (the one in progress, else the first
//! ready one), or why there is none. Read-only. The answer is `run::now`'s, the one
//! `workflow-execute` acts on, and so is the exit code: 0 when `workflow-execute`
//! would go on, else the code it would refuse with (1 failed, 2 a decision is
//! needed, 3 blocked).

use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::report::next;
use crate::run::now::Facts;

pub fn run(project: &Project, out: &Output) -> Result<i32> {
    let (store, view) = super::load_view(project)?;
    let (state, digest) = (&view.state, &view.digest);
    if digest.total == 0 {
        state.require_tasks()?;
    }
    let facts = Facts {
        writer_alive: store.writer_alive(),
        ..Facts::default()
    };
    let answer = next::next_in(state, digest, facts);
    let checks = crate::run::derived::config_checks(&project.config);
    out.json_value(&next::json_in(state, digest, &answer, &checks));
    out.say(next::text(state, &answer, &checks).trim_end());
    Ok(answer.reason.exit_code())
}
