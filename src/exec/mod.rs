//! Running one command the way every check of `wf` runs it: no shell, its own process
//! group, a deadline, a capped log created only when there is something to keep, and
//! the sweep of whatever it left running; and the builtin verifiers those commands
//! come from.
//!
//! Below both users — the run's task checks (`src/run/work.rs`) and `wf constraints
//! verify` (`src/constraints/verify.rs`) — so neither depends on the other for it.

use std::time::Duration;

pub mod children;
pub mod git;
pub mod lazylog;
pub mod orphans;
pub mod process;
pub mod reactor;
pub mod spawn;
pub mod verifier;

/// How long a command may run when neither the task nor the project says.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
