//! `wf.constraints` in the project config: the constraints a team commits, which
//! every workflow of the project starts with (docs/constraints.md "Committed
//! constraints"). Only their shape is read here; `src/constraints/project.rs`
//! checks their words and commands and seeds a workflow with them.

use serde::Deserialize;

/// One entry of `wf.constraints`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectConstraint {
    pub description: String,
    /// The command that proves it; a hard constraint's runs at every quality gate.
    pub verify_cmd: Option<String>,
    /// Whether it must hold (default) or only should.
    #[serde(default = "yes")]
    pub hard: bool,
    /// One of the constraint categories (`src/constraints/vocabulary.rs`, checked
    /// at import); detected from the description when absent.
    pub category: Option<String>,
}

fn yes() -> bool {
    true
}
