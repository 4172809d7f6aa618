//! The workflow's state: its model, its two state machines, and the store that
//! reads and writes it safely.

pub mod archive;
pub mod event;
pub mod event_log;
pub mod evidence;
pub mod fold;
pub mod glance;
pub mod ids;
pub mod index_file;
pub mod live_digest;
pub mod machine;
#[cfg(test)]
mod machine_props;
pub mod model;
mod positions;
pub mod ready;
pub mod records;
pub mod recover;
pub mod snapshot_file;
pub mod spill;
pub mod store;
pub mod summary;
pub mod task_index;
pub mod task_ref;

pub use machine::{TaskStatus, WorkflowStatus};
pub use model::{Task, WorkflowState};
pub use store::{Session, Store};
