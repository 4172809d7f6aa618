//! Setting a project up for `wf` and checking that setup: `wf init` writes the
//! starter files ([`init`]), `wf doctor` looks for what would break later
//! ([`doctor`]), and both read the Claude Code hook settings through [`hooks`].
//!
//! Below `report` and `commands`: the commands locate the project and render; what
//! is decided here — which files to write, what each check found — is data.

pub mod doctor;
pub mod hooks;
pub mod init;
pub mod json_text;
