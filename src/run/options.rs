//! What a run is asked to do (`Options`): its mode, jobs, retries, cache and stop
//! rules, each from the command line over the project's config; and the size of the
//! plan and the tech design in characters, which the context estimate starts from.

use std::collections::HashSet;

use crate::run::policy::{self, Mode};

#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    /// Run to the end: no hand-offs, and (unless `explicit_mode`) no pauses and no
    /// agent limits.
    pub ci: bool,
    /// `--step` or `--phase` was given on the command line: its stop holds in CI too.
    pub explicit_mode: bool,
    /// `--keep-going`: a failed task does not stop the run; what does not depend on
    /// it still runs (`policy::stop_after_failure`).
    pub keep_going: bool,
    pub jobs: usize,
    pub context_window: u64,
    pub plan_chars: usize,
    pub design_chars: usize,
    /// Bounded retries of a failed agent task, each on the strongest executor.
    pub max_retries: u32,
    /// The verification cache's directory (docs/proof.md): a command task whose
    /// inputs passed its checks before is up to date and not run; none with
    /// `--no-cache`.
    pub cache: Option<std::path::PathBuf>,
    /// A task that nothing checks fails instead of completing "accepted unchecked"
    /// (`--require-checks`, on under `--ci` unless `--allow-unchecked`).
    pub require_checks: bool,
    /// Where to pause besides the mode's stops (`--pause-at`, else `wf.pause_at`).
    pub pause_at: policy::PauseAt,
    /// `wf.max_consecutive_agent_tasks`.
    pub agent_limit: Option<u32>,
    /// Handed-off tasks leased to an agent other than the caller (`run::lease`):
    /// still theirs, so an agent's run does not take them back (a user's
    /// `workflow-execute` takes back every hand-off: none here).
    pub held_elsewhere: HashSet<String>,
}

impl Options {
    /// A run of the workflow in `workflow_dir` for the project in `project_dir`, in
    /// `mode`: one job, not CI, stopping at the first failure, the context sized from
    /// the plan copy and the tech design, the retries from the config. Callers change
    /// what their command line says.
    pub fn for_workflow(
        config: &crate::config::Config,
        project_dir: &std::path::Path,
        workflow_dir: &std::path::Path,
        state: &crate::state::WorkflowState,
        mode: Mode,
    ) -> Options {
        Options {
            mode,
            ci: false,
            explicit_mode: false,
            keep_going: false,
            jobs: 1,
            context_window: config.wf.context_window(),
            plan_chars: chars_of(&workflow_dir.join(&state.tasks_file)),
            design_chars: state
                .tech_design
                .as_ref()
                .map_or(0, |p| chars_of(&project_dir.join(p))),
            max_retries: config
                .wf
                .max_retries
                .unwrap_or(crate::run::executor::DEFAULT_MAX_RETRIES),
            cache: Some(workflow_dir.join(crate::proof::cache::DEFAULT_DIR)),
            require_checks: config.wf.require_checks == Some(true),
            // The config was checked when it was read (`config::check_ranges`).
            pause_at: config
                .wf
                .pause_at
                .as_deref()
                .and_then(|list| policy::PauseAt::parse(list).ok())
                .unwrap_or_default(),
            agent_limit: config.wf.max_consecutive_agent_tasks,
            held_elsewhere: HashSet::new(),
        }
    }
}

/// The characters of the file at `path` ([`chars_in`]), read a window at a time; 0
/// when it cannot be read or is not a regular file (opened without blocking, so a
/// FIFO named as the design document cannot stop the run).
fn chars_of(path: &std::path::Path) -> usize {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path);
    let Ok(mut file) = opened else {
        return 0;
    };
    if !file.metadata().is_ok_and(|meta| meta.is_file()) {
        return 0;
    }
    let mut window = vec![0; 64 * 1024];
    let mut chars = 0;
    loop {
        match file.read(&mut window) {
            Ok(0) => return chars,
            Ok(n) => chars += chars_in(&window[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return 0,
        }
    }
}

/// The characters of `text`: the bytes that do not continue a UTF-8 sequence,
/// counted without checking the text first (the count is an estimate's input, not a
/// check of the file).
fn chars_in(text: &[u8]) -> usize {
    text.iter().filter(|&&b| !is_utf8_continuation(b)).count()
}

/// A byte of the form `10xxxxxx`: the second or later byte of a UTF-8 character.
fn is_utf8_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn bytes_that_start_a_character_count_the_characters(text in "\\PC{0,1200}") {
            proptest::prop_assert_eq!(chars_in(text.as_bytes()), text.chars().count());
        }
    }

    #[test]
    fn a_file_read_a_window_at_a_time_counts_as_its_text() {
        let dir = tempfile::tempdir().unwrap();
        // Characters of 1 to 4 bytes, so some straddle each 64 KB window's end.
        let text = "a é 中 😀\n".repeat(20_000);
        std::fs::write(dir.path().join("plan.md"), &text).unwrap();
        assert!(text.len() > 3 * 64 * 1024);
        assert_eq!(chars_of(&dir.path().join("plan.md")), text.chars().count());
        assert_eq!(chars_of(&dir.path().join("missing.md")), 0);
        // A FIFO with no writer: 0 at once, not a read that never returns.
        let fifo = dir.path().join("design.md");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        assert_eq!(chars_of(&fifo), 0);
        assert_eq!(chars_of(dir.path()), 0);
    }
}
