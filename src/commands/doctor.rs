//! `wf doctor`: check the project's setup (`src/setup/doctor.rs`) and print one line
//! per check (`src/report/doctor.rs`). Read-only, like `wf status`: no lock is taken
//! and nothing is written. The config is read here as every command reads it, but
//! its error is a finding, not the end: the checks that do not need it still run.
//! Exit 1 when a check finds a problem (README "Exit codes"), else 0.

use std::path::Path;

use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::setup::doctor::{self, Found, Status};

pub fn run(explicit: Option<&Path>, out: &Output) -> Result<i32> {
    let dir = Project::locate(explicit)?;
    let project = crate::config::Config::load(&dir).and_then(|c| Project::at(dir.clone(), c));
    let store = project.as_ref().ok().map(Project::store);
    let user_home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    let path = std::env::var_os("PATH");
    let found = Found {
        dir: &dir,
        config: match &project {
            Ok(p) => Ok(&p.config),
            Err(e) => Err(e.message.as_str()),
        },
        store: store.as_ref(),
        user_home: user_home.as_deref(),
        path: path.as_deref(),
    };
    let checks = doctor::checks(&found);
    let ok = !doctor::has_problem(&checks);
    out.json_value(&crate::report::doctor::json(&checks, ok));
    if out.quiet && !out.json {
        // Only the problems, on stderr, as other commands print only errors under -q.
        for c in checks.iter().filter(|c| c.status == Status::Problem) {
            let line = crate::report::doctor::line(c, 0, false);
            crate::output::stderr_line(format_args!("{line}"));
        }
    }
    out.say(crate::report::doctor::text(&checks, out.color));
    Ok(i32::from(!ok))
}
