//! What `wf` does for an agent working inside an editor, below the Claude Code hook
//! protocol of `src/commands/hook.rs` (docs/hooks.md):
//!
//! - [`checks`]: a handed-off task's checks run within the hook's time budget, each
//!   with its result and the tail of its output;
//! - [`tree`]: a fingerprint of the working tree, to tell "nothing changed since the
//!   checks last failed";
//! - [`memo`]: the little the hook remembers between calls — the last failing result
//!   of the checks (with the tree it was found on) and, per editor session, which
//!   task's brief it last gave — in small files under `<workflow dir>/hooks/`.
//!
//! Nothing here takes the workflow lock or writes the state: the hook runs while
//! `wf workflow-execute` may hold the lock, and what it keeps is disposable.

pub mod checks;
pub mod memo;
pub mod tree;
