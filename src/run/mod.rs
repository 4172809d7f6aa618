//! Doing the work: the scheduler, what running one task means, process control,
//! verifiers, context metrics, and interruption.

pub mod agent;
pub mod checkpoint;
pub mod context;
mod dispatch;
pub mod engine;
pub mod executor;
pub mod lazylog;
pub mod orphans;
mod outcome;
pub mod pidfd;
pub mod policy;
pub mod process;
pub mod recovery;
pub mod signals;
pub mod verifier;
pub mod work;
pub mod workers;
