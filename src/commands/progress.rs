//! What `workflow-execute` prints while it runs: a line per finished task (with the
//! tail of its log when it failed) for logs and pipes, a progress bar on a terminal,
//! and under GitLab CI (`GITLAB_CI=true`) each task's lines inside a collapsible
//! section (`src/report/gitlab.rs`) whose body is the tail of the task's log.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::output::{Color, Output};
use crate::report::gitlab;
use crate::run::engine::Reporter;
use crate::run::work::{TaskOutcome, Verdict};
use crate::state::model::Task;

/// How many of a log's last lines are shown under a task.
const TAIL_LINES: usize = 20;

/// Line-oriented progress for logs and pipes; a progress bar on a terminal.
pub(super) struct TextReporter<'a> {
    out: &'a Output,
    workflow_dir: PathBuf,
    bar: Option<indicatif::ProgressBar>,
    /// `GITLAB_CI=true`: sections, and when each running task started (unix seconds).
    gitlab: Option<HashMap<String, i64>>,
}

impl<'a> TextReporter<'a> {
    pub(super) fn new(out: &'a Output, workflow_dir: PathBuf) -> Self {
        let bar = (out.stdout_tty && !out.quiet && !out.json).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        let gitlab = std::env::var("GITLAB_CI").is_ok_and(|v| v == "true");
        TextReporter {
            out,
            workflow_dir,
            bar,
            gitlab: (gitlab && !out.quiet).then(HashMap::new),
        }
    }

    fn line(&self, text: String) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => self.out.say(text),
        }
    }

    pub(super) fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// The last lines of the outcome's log, stripped of control sequences, indented
    /// under a header naming the log by its absolute path (the workflow dir is not
    /// where the user stands); empty without a log.
    fn log_tail(&self, outcome: &TaskOutcome) -> String {
        if outcome.log.is_empty() {
            return String::new();
        }
        let log = self.workflow_dir.join(&outcome.log);
        let tail = crate::exec::process::tail(&log, TAIL_LINES);
        if tail.is_empty() {
            return String::new();
        }
        let mut text = format!("  --- last lines of {} ---\n", log.display());
        for l in crate::output::strip_controls(&tail).lines() {
            text.push_str(&format!("  | {l}\n"));
        }
        text
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
}

impl Reporter for TextReporter<'_> {
    fn started(&mut self, task: &Task) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{} {}", task.id, task.name));
        }
        if let Some(starts) = &mut self.gitlab {
            starts.insert(task.id.clone(), crate::clock::now().as_second());
        }
    }

    fn finished(&mut self, task: &Task, outcome: &TaskOutcome) {
        let secs = outcome.duration.as_secs_f64();
        let (header, passed) = match &outcome.verdict {
            Verdict::Passed { verified } => {
                let note = if task.accepted_unchecked {
                    " (accepted unchecked: nothing checked it)"
                } else if *verified {
                    ""
                } else {
                    " (nothing checked it)"
                };
                let mark = self.out.paint("✓", Color::Green);
                let header = format!("{mark} {} {} ({secs:.1}s){note}", task.id, task.name);
                (header, true)
            }
            Verdict::Failed { reason } => {
                let mark = self.out.paint("✗", Color::Red);
                (format!("{mark} {} {}: {reason}", task.id, task.name), false)
            }
            Verdict::Interrupted => (
                format!("- {} {}: interrupted, back to pending", task.id, task.name),
                false,
            ),
            Verdict::DispatchFailed { reason, .. } => (
                format!("! {} {}: dispatch failed: {reason}", task.id, task.name),
                false,
            ),
        };
        let failed = matches!(outcome.verdict, Verdict::Failed { .. });
        if self.gitlab.is_some() {
            let body = self.log_tail(outcome);
            self.section(task, &header, &body, passed);
            return;
        }
        if !failed {
            self.line(header);
            return;
        }
        let text = format!("{header}\n{}", self.log_tail(outcome));
        if self.out.quiet {
            crate::output::stderr_line(format_args!("{}", text.trim_end()));
        } else {
            self.line(text.trim_end().to_string());
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
