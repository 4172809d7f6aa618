//! GitHub Actions output: workflow-command annotations for failed and blocked tasks
//! (`annotations.rs`), and a Markdown job summary for `$GITHUB_STEP_SUMMARY`
//! (`summary.rs`).

mod annotations;
mod summary;

pub use annotations::{annotations, escape_data, escape_property, plan_path};
pub use summary::{cell, step_summary};
