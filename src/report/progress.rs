//! What a run shows while it runs: a line per finished task (with the tail of its log
//! when it failed), on a terminal a progress bar under them — elapsed time, done of
//! total, and every running task. Where no bar shows what runs (a pipe, a CI log), a
//! line when a task starts (`▶ T4 name`, `(attempt 2/4)` on a retry) and a heartbeat
//! for a task that runs long (`src/report/heartbeat.rs`). Under GitLab CI
//! (`GITLAB_CI=true`) each task's lines sit inside a collapsible section
//! (`src/report/gitlab.rs`) whose body is the tail of the task's log; under GitHub
//! Actions (`GITHUB_ACTIONS=true`), a passed task's inside a `::group::`, and a failed
//! task's in the open.
//!
//! With `-v` ([`RunProgress::echo`]) each line a task's commands print is shown as it
//! comes, as `  T4 | line`: the id says whose it is when tasks run side by side.
//!
//! The bar is drawn on stderr through [`Stderr`], which tells indicatif the
//! terminal's true width: told less, the bar left its first cells at the end of
//! every line printed above it.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use crate::output::{Color, Output};
use crate::report::gitlab;
use crate::run::engine::Reporter;
use crate::run::work::{TaskOutcome, Verdict};
use crate::state::model::Task;

/// Columns left free at the right of the bar: room for the terminal's `^C` echo.
const ECHO_MARGIN: usize = 3;

/// How many of a log's last lines are shown under a task.
const TAIL_LINES: usize = 20;

/// How often the bar is redrawn when nothing else happens, so the elapsed time moves.
const TICK: Duration = Duration::from_millis(250);

/// Line-oriented progress for logs and pipes; a progress bar on a terminal.
pub struct RunProgress<'a> {
    out: &'a Output,
    workflow_dir: PathBuf,
    bar: Option<indicatif::ProgressBar>,
    /// The tasks running now, in the order they started: `id name`.
    running: Vec<(String, String)>,
    /// `GITLAB_CI=true`: sections, and when each running task started (unix seconds).
    gitlab: Option<HashMap<String, i64>>,
    /// `GITHUB_ACTIONS=true`: a passed task's lines in a `::group::`.
    github: bool,
    /// How many attempts an agent task gets in this run, when it is retried at all
    /// (executors configured): the `/4` of "attempt 2/4".
    agent_attempts: Option<u32>,
    /// With no bar: a line for each task that runs long.
    heartbeat: Option<super::heartbeat::Heartbeat>,
    /// `-v`: each task's output streams under its `▶` line.
    verbose: bool,
    /// `-v` under GitHub Actions with one task at a time: a task's output streams
    /// inside a `::group::` opened at its `▶` line. (With more at once, their lines
    /// would land in each other's groups: GitHub's groups do not nest.)
    grouped: bool,
}

impl<'a> RunProgress<'a> {
    pub fn new(
        out: &'a Output,
        workflow_dir: PathBuf,
        agent_attempts: Option<u32>,
        verbose: bool,
        jobs: usize,
    ) -> Self {
        let bar = (out.stdout_tty && out.says()).then(new_bar);
        let ci = |name: &str| std::env::var(name).is_ok_and(|v| v == "true");
        let heartbeat = (bar.is_none() && out.says()).then(|| {
            super::heartbeat::Heartbeat::start(|line| {
                let _ = crate::output::write_stdout(format!("{line}\n").as_bytes());
            })
        });
        let gitlab = (ci("GITLAB_CI") && !out.quiet).then(HashMap::new);
        let github = ci("GITHUB_ACTIONS") && out.says();
        let verbose = verbose && !out.quiet;
        RunProgress {
            out,
            workflow_dir,
            bar,
            running: Vec::new(),
            grouped: github && verbose && gitlab.is_none() && jobs <= 1,
            gitlab,
            github,
            agent_attempts,
            heartbeat,
            verbose,
        }
    }

    /// With `-v`, where the run shows each line of a task's output (`WorkCtx::echo`):
    /// above the bar on a terminal, else on stdout, on stderr under `--json`.
    pub fn echo(&self) -> Option<crate::run::work::TaskEcho> {
        if !self.verbose {
            return None;
        }
        let Some(bar) = self.bar.clone() else {
            return Some(line_echo(self.out.json));
        };
        Some(std::sync::Arc::new(move |id: &str, line: &str| {
            bar.println(format!("  {id} | {line}"));
        }))
    }

    /// ` (attempt 2/4)` on a task's second attempt and later (` (attempt 2)` where
    /// no bound applies: a failed task run again by `--retry` or `resume`).
    fn attempt_note(&self, task: &Task) -> String {
        if task.attempts < 2 {
            return String::new();
        }
        match self.agent_attempts {
            Some(max) if crate::run::engine::needs_agent(task) => {
                format!(" (attempt {}/{max})", task.attempts)
            }
            _ => format!(" (attempt {})", task.attempts),
        }
    }

    fn line(&self, text: String) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => self.out.say(text),
        }
    }

    /// Removes the bar, leaving the lines printed above it.
    pub fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn show_running(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(running_message(&self.running));
        }
    }

    /// The last lines of the outcome's log, stripped of control sequences, indented
    /// under a header naming the log by its absolute path (the workflow dir is not
    /// where the user stands); empty without a log.
    fn log_tail(&self, outcome: &TaskOutcome) -> String {
        let Some(log) = self.log_path(outcome) else {
            return String::new();
        };
        let tail = crate::exec::process::tail(&log, TAIL_LINES);
        if tail.is_empty() {
            return String::new();
        }
        let mut text = format!("  --- last lines of {} ---\n", log.display());
        for l in crate::escape::output(&tail).lines() {
            text.push_str(&format!("  | {l}\n"));
        }
        text
    }

    /// What a finished task's lines show of its output: its log's tail, or, when
    /// `-v` streamed the output already and no group holds it, the log's name.
    fn output_shown(&self, outcome: &TaskOutcome) -> String {
        if self.verbose && !self.grouped {
            self.log_named(outcome)
        } else {
            self.log_tail(outcome)
        }
    }

    /// `  log: PATH` for an outcome with a log (its absolute path); empty without.
    fn log_named(&self, outcome: &TaskOutcome) -> String {
        self.log_path(outcome)
            .map(|log| format!("  log: {}\n", log.display()))
            .unwrap_or_default()
    }

    /// The outcome's log, absolute; none when the task wrote none.
    fn log_path(&self, outcome: &TaskOutcome) -> Option<PathBuf> {
        (!outcome.log.is_empty()).then(|| self.workflow_dir.join(&outcome.log))
    }

    /// The task's header line and its body inside a GitLab section: collapsed when
    /// it passed, open when it did not.
    fn section(&mut self, task: &Task, header: &str, body: &str, passed: bool) {
        let now = crate::clock::now().as_second();
        let started = self
            .gitlab
            .as_mut()
            .and_then(|s| s.remove(&task.id))
            .unwrap_or(now);
        let name = gitlab::section_name(&task.id, task.attempts);
        let mut text = gitlab::section_start(&name, started, passed, header);
        text.push('\n');
        text.push_str(body);
        text.push_str(&gitlab::section_end(&name, now));
        self.line(text);
    }

    /// A finished task's result line (with its log's tail, section or group, as
    /// the reader wants them).
    fn result(&mut self, task: &Task, outcome: &TaskOutcome) {
        if self.bar.is_some() {
            self.running.retain(|(id, _)| *id != task.id);
            self.show_running();
        }
        if let Some(heartbeat) = &self.heartbeat {
            heartbeat.finished(&task.id);
        }
        // Quiet (`--quiet`, `--json`) shows a failure alone: a task that did not fail
        // has nothing to say, and its line is not built, once per task of a CI run.
        let failed = matches!(outcome.verdict, Verdict::Failed { .. });
        if !self.out.says() && self.gitlab.is_none() && !failed {
            return;
        }
        let secs = outcome.duration.as_secs_f64();
        // Plan text (the name, a check's command inside a reason) must not drive the
        // terminal: control characters become spaces.
        let name = crate::report::one_line(&task.name);
        let (header, passed) = match &outcome.verdict {
            Verdict::Passed { verified } => {
                let note = if task.accepted_unchecked {
                    " (accepted unchecked: nothing checked it)"
                } else if *verified {
                    ""
                } else {
                    " (nothing checked it)"
                };
                // A task nothing checked is never shown as a plain pass.
                let mark = if *verified || note.is_empty() {
                    self.out.paint("✓", Color::Green)
                } else {
                    self.out.paint("?", Color::Yellow)
                };
                let header = format!("{mark} {} {name} ({secs:.1}s){note}", task.id);
                (header, true)
            }
            Verdict::Failed { reason } => {
                let mark = self.out.paint("✗", Color::Red);
                let reason = crate::report::one_line(reason);
                (format!("{mark} {} {name}: {reason}", task.id), false)
            }
            Verdict::Interrupted => (
                format!("- {} {name}: interrupted, back to pending", task.id),
                false,
            ),
            Verdict::DispatchFailed { reason, .. } => (
                format!(
                    "! {} {name}: dispatch failed: {}",
                    task.id,
                    crate::report::one_line(reason)
                ),
                false,
            ),
        };
        if self.gitlab.is_some() {
            let body = self.output_shown(outcome);
            self.section(task, &header, &body, passed);
            return;
        }
        if self.grouped {
            // The group opened at the `▶` line holds what the task printed.
            self.line("::endgroup::".into());
        } else if self.github && !failed && !self.verbose {
            let body = self.output_shown(outcome);
            self.line(format!(
                "::group::{}\n{body}::endgroup::",
                super::github::escape_data(&header)
            ));
            return;
        }
        if !failed {
            self.line(header);
            return;
        }
        // Streamed already, the output is not shown again, save in a collapsed group.
        let body = self.output_shown(outcome);
        let text = format!("{header}\n{body}");
        if self.out.quiet {
            crate::output::stderr_line(format_args!("{}", text.trim_end()));
        } else {
            self.line(text.trim_end().to_string());
        }
    }
}

/// Each line a task's checks print, as `  T4 | line`, on stdout (stderr with
/// `--json`, whose stdout is the document): `-v` without a progress bar.
pub fn line_echo(json: bool) -> crate::run::work::TaskEcho {
    std::sync::Arc::new(move |id: &str, line: &str| {
        let text = format!("  {id} | {line}");
        if json {
            crate::output::stderr_line(format_args!("{text}"));
        } else {
            let _ = crate::output::write_stdout(format!("{text}\n").as_bytes());
        }
    })
}

impl Drop for RunProgress<'_> {
    fn drop(&mut self) {
        self.done();
    }
}

fn new_bar() -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        None,
        indicatif::ProgressDrawTarget::term_like_with_hz(Box::new(Stderr::default()), 20),
    );
    // `wide_msg` is cut to the width left on the line, [`ECHO_MARGIN`] spaces kept
    // after it: a long name never wraps.
    let template = format!(
        "{{elapsed_precise}} {{bar:20}} {{pos}}/{{len}} {{wide_msg}}{}",
        " ".repeat(ECHO_MARGIN)
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(TICK);
    bar
}

/// `T3 name` for one running task; `T3, T4, T7: 3 running` for more, so every id is
/// in view before the names would push them off the line.
fn running_message(running: &[(String, String)]) -> String {
    match running {
        [] => String::new(),
        [(id, name)] => format!("{id} {}", crate::report::one_line(name)),
        many => {
            let ids: Vec<&str> = many.iter().map(|(id, _)| id.as_str()).collect();
            format!("{}: {} running", ids.join(", "), many.len())
        }
    }
}

impl Reporter for RunProgress<'_> {
    fn started(&mut self, task: &Task) {
        if self.bar.is_some() {
            self.running.push((task.id.clone(), task.name.clone()));
            self.show_running();
        }
        // On a terminal the bar names what runs; with `-v` the line heads the output.
        if self.out.says() && (self.bar.is_none() || self.verbose) {
            let name = crate::report::one_line(&task.name);
            let line = format!("▶ {} {name}{}", task.id, self.attempt_note(task));
            if self.grouped {
                self.line(format!("::group::{}", super::github::escape_data(&line)));
            } else {
                self.line(line);
            }
        }
        if let Some(heartbeat) = &self.heartbeat {
            heartbeat.started(&task.id, &task.name);
        }
        if let Some(starts) = &mut self.gitlab {
            starts.insert(task.id.clone(), crate::clock::now().as_second());
        }
    }

    fn finished(&mut self, task: &Task, outcome: &TaskOutcome) {
        self.result(task, outcome);
        if let (Some(commit), Verdict::Passed { .. }) = (&outcome.commit, &outcome.verdict) {
            if self.out.says() {
                self.line(commit_line(&task.id, commit));
            }
        }
    }

    fn up_to_date(&mut self, task: &Task) {
        let mark = self.out.paint("✓", Color::Green);
        let name = crate::report::one_line(&task.name);
        let line = format!(
            "{mark} {} {name} (up to date: passed before on the same inputs)",
            task.id
        );
        if self.gitlab.is_some() {
            self.section(task, &line, "", true);
        } else {
            self.line(line);
        }
    }

    fn problem(&mut self, text: &str) {
        let mark = self.out.paint("!", Color::Yellow);
        if self.out.json {
            crate::output::stderr_line(format_args!("wf: {text}"));
        } else {
            self.line(format!("{mark} {text}"));
        }
    }

    fn progress(&mut self, done: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    }
}

/// What a task's `git_commit` did, in a line of its own under the task's.
fn commit_line(id: &str, commit: &crate::state::event::Commit) -> String {
    match &commit.hash {
        Some(hash) => format!(
            "Committed {id} as {hash} ({} {}).",
            commit.files,
            crate::report::plural(commit.files, "file", "files")
        ),
        None => format!("{id}: nothing to commit."),
    }
}

/// stderr as indicatif's terminal: frames are gathered and written at `flush`, in
/// one write, without the spaces that end one (the bar's padding to the edge, after
/// its [`ECHO_MARGIN`]), so the cursor rests where the bar's text ends.
#[derive(Debug, Default)]
struct Stderr {
    pending: Mutex<Vec<u8>>,
}

impl Stderr {
    fn pending(&self) -> std::io::Result<std::sync::MutexGuard<'_, Vec<u8>>> {
        self.pending
            .lock()
            .map_err(|_| std::io::Error::other("the progress bar's buffer is poisoned"))
    }

    fn put(&self, bytes: &[u8]) -> std::io::Result<()> {
        self.pending()?.extend_from_slice(bytes);
        Ok(())
    }

    /// The control sequence `ESC [ n code` (a cursor move), none for 0.
    fn csi(&self, n: usize, code: char) -> std::io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        self.put(format!("\x1b[{n}{code}").as_bytes())
    }
}

impl indicatif::TermLike for Stderr {
    fn width(&self) -> u16 {
        crate::output::terminal_width(std::io::stderr())
    }

    fn height(&self) -> u16 {
        rustix::termios::tcgetwinsize(std::io::stderr())
            .map(|s| s.ws_row)
            .ok()
            .filter(|&rows| rows > 0)
            .unwrap_or(24)
    }

    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.csi(n, 'A')
    }

    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.csi(n, 'B')
    }

    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.csi(n, 'C')
    }

    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.csi(n, 'D')
    }

    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.put(s.as_bytes())?;
        self.put(b"\n")
    }

    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.put(s.as_bytes())
    }

    fn clear_line(&self) -> std::io::Result<()> {
        self.put(b"\r\x1b[2K")
    }

    fn flush(&self) -> std::io::Result<()> {
        let mut bytes = std::mem::take(&mut *self.pending()?);
        let end = bytes
            .iter()
            .rposition(|&b| b != b' ')
            .map_or(0, |at| at + 1);
        bytes.truncate(end);
        let mut err = std::io::stderr().lock();
        err.write_all(&bytes)?;
        err.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::running_message;

    fn running(ids: &[&str]) -> Vec<(String, String)> {
        ids.iter()
            .map(|id| ((*id).to_string(), format!("name of {id}")))
            .collect()
    }

    #[test]
    fn the_bar_names_every_running_task() {
        assert_eq!(running_message(&running(&[])), "");
        assert_eq!(running_message(&running(&["T1"])), "T1 name of T1");
        assert_eq!(
            running_message(&running(&["T1", "T4", "T9"])),
            "T1, T4, T9: 3 running"
        );
        assert_eq!(
            running_message(&[("T1".into(), "two\nlines".into())]),
            "T1 two lines"
        );
    }
}
