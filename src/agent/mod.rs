//! What `wf` does for an agent working inside an editor, below the Claude Code hook
//! protocol of `src/commands/hook.rs` (docs/hooks.md):
//!
//! - [`checks`]: a handed-off task's checks run within the hook's time budget, each
//!   with its result and the tail of its output;
//! - [`tree`]: a fingerprint of the working tree, to tell "nothing changed since the
//!   checks last failed";
//! - [`memo`]: the little the hook remembers between calls — the last failing result
//!   of the checks (with the tree it was found on) and, per editor session, which
//!   task's brief it last gave and how far it read the session's transcript — in
//!   small files under `<workflow dir>/hooks/`;
//! - [`transcript`]: what the agent used, read from its own session log.
//!
//! - [`step`]: a run of the engine for an agent that is its own executor (the MCP
//!   tools, and the `Stop` hook taking a passing task back).
//!
//! Apart from [`step`], whose caller holds the lock, nothing here takes the workflow
//! lock or writes the state: the hook runs while `wf workflow-execute` may hold the
//! lock, and what it keeps is disposable (the usage it reads waits in `run::usage`'s
//! pending files until the task comes back).

pub mod checks;
pub mod memo;
pub mod parallel;
pub mod step;
pub mod transcript;
pub mod tree;
pub mod worktree;
