//! The workflow as a JUnit XML report, for CI systems that show test results.
//!
//! One `<testsuite>` per workflow, one `<testcase>` per task (classname = phase,
//! time = its attempts' seconds, `timing.rs`). A failed task carries its failure
//! reason and the tail of its log. Everything is XML-escaped and stripped of
//! characters XML 1.0 forbids (ANSI colour codes in logs included), so any plan or
//! log text yields a well-formed file.
//!
//! The layout is the one Jenkins' JUnit schema describes, which GitLab, GitHub test
//! reporters and most CI tools read; `fixtures/junit/junit.xsd` states it and a test
//! validates this output against it (`tests/integration/ci.rs`). That schema has no
//! `skipped` count on `<testsuites>`, so only `<testsuite>` carries one.
//!
//! A task completed "accepted unchecked" (nothing checked it) is not a pass: it is
//! `<skipped>`, its message saying so, and counted with the skipped.

use crate::state::model::Glance;
use std::collections::HashSet;
use std::path::{Component, Path};

use super::timing::TaskTimes;
use super::{workflow_name, Counts};
use crate::run::policy::fallout;
use crate::state::machine::TaskStatus;
use crate::state::model::{Task, WorkflowState};

/// How many log lines a failure carries.
const LOG_TAIL_LINES: usize = 40;

pub fn junit(
    state: &WorkflowState,
    workflow_dir: &Path,
    times: &TaskTimes,
) -> crate::error::Result<String> {
    let c = Counts::of(&state.tasks);
    let unchecked = state
        .tasks
        .iter()
        .filter(|t| t.status() == TaskStatus::Completed && t.accepted_unchecked())
        .count();
    let not_run = c.total - c.completed - c.failed + unchecked;
    let name = xml_escape(workflow_name(state));
    let total: f64 = state.tasks.iter().map(|t| times.seconds(t.id())).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"wf\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{total:.3}\">\n",
        c.total, c.failed
    ));
    out.push_str(&format!(
        "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{not_run}\" time=\"{total:.3}\"{}>\n",
        c.total,
        c.failed,
        timestamp_attr(state)
    ));
    let behind_failure: HashSet<String> = fallout(&state.tasks).not_run.into_iter().collect();
    for task in &state.tasks {
        let case = Case {
            secs: times.seconds(task.id()),
            behind_failure: behind_failure.contains(task.id()),
        };
        testcase(&mut out, task.task()?, state, workflow_dir, &case);
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    Ok(out)
}

fn timestamp_attr(state: &WorkflowState) -> String {
    let ts = state.started_at.as_deref().unwrap_or(&state.created_at);
    if ts.is_empty() {
        String::new()
    } else {
        // JUnit wants a local ISO time without zone; the plugin's times are UTC `…Z`.
        format!(" timestamp=\"{}\"", xml_escape(ts.trim_end_matches('Z')))
    }
}

/// What a test case shows beside the task itself.
struct Case {
    secs: f64,
    /// It depends on a failed task (`run::policy::fallout`): that is why it did not run.
    behind_failure: bool,
}

fn testcase(out: &mut String, task: &Task, state: &WorkflowState, dir: &Path, case: &Case) {
    let secs = case.secs;
    let phase = if task.phase.is_empty() {
        "wf"
    } else {
        &task.phase
    };
    out.push_str(&format!(
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{secs:.3}\"",
        xml_escape(phase),
        xml_escape(&format!("{}: {}", task.id, task.name))
    ));
    let skipped = |why: &str| format!("      <skipped message=\"{}\"/>\n", xml_escape(why));
    let body = match task.status {
        TaskStatus::Completed if task.accepted_unchecked => Some(skipped(
            "accepted unchecked: completed with nothing that checked it (no command, nothing its line names that wf can check)",
        )),
        TaskStatus::Completed => None,
        TaskStatus::Failed => Some(failure(task, dir)),
        TaskStatus::Skipped => Some(match super::skip_reason(state, &task.id) {
            "" => skipped("skipped"),
            r => skipped(&format!("skipped: {r}")),
        }),
        TaskStatus::Pending | TaskStatus::Blocked if case.behind_failure => {
            Some(skipped("not run: it depends on a failed task"))
        }
        TaskStatus::Blocked => Some(skipped(&if task.blocked_by.is_empty() {
            "not run: blocked".to_string()
        } else {
            format!("not run: blocked by {}", task.blocked_by.join(", "))
        })),
        TaskStatus::InProgress => Some(skipped("not run: in progress")),
        TaskStatus::Pending => Some(skipped("not run: pending")),
    };
    match body {
        None => out.push_str("/>\n"),
        Some(b) => {
            out.push_str(">\n");
            out.push_str(&b);
            out.push_str("    </testcase>\n");
        }
    }
}

fn failure(task: &Task, dir: &Path) -> String {
    let reason = task.failure_reason.as_deref().unwrap_or("failed");
    let log = task
        .log
        .as_deref()
        .and_then(|rel| log_tail(dir, rel))
        .unwrap_or_default();
    format!(
        "      <failure message=\"{}\" type=\"failed\">{}</failure>\n",
        xml_escape(reason),
        xml_text(&log)
    )
}

/// The last [`LOG_TAIL_LINES`] lines of `dir/rel`, or `None` when the path is not a
/// plain relative path inside the workflow dir. The path comes
/// from the state file, so it is not trusted to point anywhere else.
fn log_tail(dir: &Path, rel: &str) -> Option<String> {
    let rel = Path::new(rel);
    if rel.as_os_str().is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    Some(crate::exec::process::tail(&dir.join(rel), LOG_TAIL_LINES))
}

/// XML-escaped text for an attribute value. Characters XML 1.0 forbids are dropped,
/// and ANSI escape sequences removed whole rather than leaving `[31m`.
fn xml_escape(s: &str) -> String {
    escape(s, true)
}

/// XML-escaped text for an element body: as [`xml_escape`], but line breaks and tabs
/// stay literal so a log reads as a log.
fn xml_text(s: &str) -> String {
    escape(s, false)
}

fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_ansi(&mut chars),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' if !attribute => out.push(c),
            // Kept literally, these would be normalised to spaces in an attribute.
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if is_xml_char(c) => out.push(c),
            _ => {}
        }
    }
    out
}

fn skip_ansi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    if chars.peek() == Some(&'[') {
        chars.next();
        // CSI: parameters and intermediates, then one final byte in @..~.
        for c in chars.by_ref() {
            if ('@'..='~').contains(&c) {
                break;
            }
        }
    }
}

/// XML 1.0 `Char`, minus the three whitespace controls handled by the caller and
/// the ones XML 1.0 discourages (DEL and the C1 controls, of which U+009B is a CSI
/// to a terminal that shows the report).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escape_handles_hostile_text() {
        let e = xml_escape("a<b>&\"'\u{0}\u{b}\u{FFFE}\u{9b}\u{7f}\u{1b}[31mred\u{1b}[0m\nz");
        assert_eq!(e, "a&lt;b&gt;&amp;&quot;&apos;red&#10;z");
        assert_eq!(xml_text("a\n<\u{7}\tb\r"), "a\n&lt;\tb&#13;");
    }

    #[test]
    fn log_paths_may_not_leave_the_workflow_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ok.log"), "one\ntwo\n").unwrap();
        assert_eq!(log_tail(dir.path(), "ok.log").as_deref(), Some("one\ntwo"));
        assert_eq!(log_tail(dir.path(), "../ok.log"), None);
        assert_eq!(log_tail(dir.path(), "/etc/passwd"), None);
        assert_eq!(log_tail(dir.path(), ""), None);
    }

    #[test]
    fn log_tail_keeps_the_last_lines() {
        let dir = tempfile::tempdir().unwrap();
        let text = (1..=100).fold(String::new(), |t, i| t + &format!("line {i}\n"));
        std::fs::write(dir.path().join("l.log"), text).unwrap();
        let tail = log_tail(dir.path(), "l.log").unwrap();
        assert_eq!(tail.lines().count(), LOG_TAIL_LINES);
        assert!(tail.starts_with("line 61\n") && tail.ends_with("line 100"));
    }
}
