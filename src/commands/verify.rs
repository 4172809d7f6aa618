//! `wf verify [TASK…]`: completed tasks checked again where their inputs changed
//! (`src/run/verify.rs`, docs/proof.md). Exit 1 when a task no longer passes.

use std::time::Duration;

use crate::cli::{GlobalArgs, VerifyArgs};
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::proof::cache::Cache;
use crate::run::verify::{self, Request};
use crate::run::work::WorkCtx;

pub fn run(project: &Project, global: &GlobalArgs, args: &VerifyArgs, out: &Output) -> Result<i32> {
    let store = project.store();
    store.refuse_untouched_without_tasks()?;
    let mut session = store.lock(global.wait.map(Duration::from_secs), "verify")?;
    session.state()?.require_tasks()?;
    let workflow_dir = session.store().dir().to_path_buf();
    let mut ctx = WorkCtx::for_session(&project.dir, &project.config, &session)?;
    ctx.logs = workflow_dir.join("logs").join("verify");
    let request = Request {
        tasks: args.tasks.clone(),
        all: args.all,
        dry_run: args.dry_run,
        cache: super::cache_dir(&args.cache, &workflow_dir).map(Cache::new),
    };
    crate::run::signals::install();
    let report = verify::verify(&mut session, &ctx, &request)?;
    for warning in request.cache.iter().flat_map(Cache::warnings) {
        out.warn(&warning);
    }
    out.json_value(&crate::report::verify::json(&report, args.dry_run));
    let passed = report.regressions.is_empty();
    out.conclude(&crate::report::verify::text(&report, args.dry_run), passed);
    Ok(i32::from(!passed))
}
