//! Doing the work: the scheduler, what running one task means, process control,
//! verifiers, context metrics, and interruption.

pub mod agent;
pub mod carry;
pub mod checkpoint;
pub mod ci_agent;
pub mod ci_cache;
pub mod commit;
pub mod context;
pub mod derived;
mod dispatch;
pub mod engine;
pub mod executor;
pub mod failure;
pub mod gate;
pub mod import_results;
pub mod lease;
pub mod now;
pub mod options;
mod outcome;
mod phase_check;
pub mod policy;
pub mod prices;
pub mod proven;
pub mod ready_queue;
pub mod recovery;
pub mod signals;
pub mod standalone;
pub mod usage;
pub mod verify;
pub mod work;
pub mod workers;
