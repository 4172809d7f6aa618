//! A BMAD story file (`docs/stories/1.2.story.md`, `1-2-user-auth.md`): the
//! `## Tasks / Subtasks` checklist (`- [ ] Task 1 (AC: #1)` with indented subtasks,
//! a `### Review Follow-ups (AI)` part included) is the plan, read by the checklist
//! parser (`checklist/`); each task's acceptance is the story's criteria it names
//! (its parent's, else all of them), which its brief carries; the story's `Status`
//! is shown with the format.

use std::path::Path;

use super::checklist::{Checklist, Counter, Dialect};
use super::doc::{self, Line};
use super::format::{Context, Detector, Evidence, Facts};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

pub(crate) static BMAD: Checklist = Checklist {
    name: "bmad",
    example: "`- [ ] Task 1 (AC: #1)` lines under `## Tasks / Subtasks`",
    dialect: Dialect {
        section: Some(is_tasks_heading),
        dash: TaskStatus::Skipped,
        criteria: Some(criteria),
    },
    detector: |path| Box::new(Story::new(path)),
    context: |_plan, _task: &Task| Context::default(),
};

/// `Tasks / Subtasks`, as BMAD's templates title the story's task list.
fn is_tasks_heading(h: &str) -> bool {
    // Every heading of every plan is asked during detection: no copy is made.
    let squeezed = || {
        h.chars()
            .filter(|c| !c.is_whitespace() && *c != '*')
            .map(|c| c.to_ascii_lowercase())
    };
    [
        "tasks/subtasks",
        "tasks/sub-tasks",
        "tasks&subtasks",
        "tasksandsubtasks",
    ]
    .iter()
    .any(|name| squeezed().eq(name.chars()))
}

/// The story's acceptance criteria, `(number, text)`: the items of its `Acceptance
/// Criteria` section numbered `1.`, `1)`, `AC1:`, `**AC 1**:` (or, unnumbered, by
/// their place), each with the lines that continue it.
fn criteria(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut inside: Option<usize> = None;
    for line in doc::iter(text).filter(|l| !l.hidden) {
        let t: &str = &line.text;
        if let Some((level, h)) = doc::heading(t) {
            if h.to_lowercase().contains("acceptance criteria") {
                inside = Some(level);
            } else if inside.is_some_and(|l| level <= l) {
                inside = None;
            }
            continue;
        }
        if inside.is_none() || t.trim().is_empty() {
            continue;
        }
        match criterion(t) {
            Some((n, body)) => {
                let n = n.unwrap_or_else(|| (out.len() + 1).to_string());
                out.push((n, body.to_string()));
            }
            None if doc::starts_indented(t) => {
                if let Some((_, body)) = out.last_mut() {
                    body.push(' ');
                    body.push_str(t.trim());
                }
            }
            None => {}
        }
    }
    out
}

/// One acceptance criterion's first line: its number (when written) and its text.
fn criterion(t: &str) -> Option<(Option<String>, &str)> {
    if doc::starts_indented(t) {
        return None;
    }
    let s = t.trim();
    let s = s
        .strip_prefix("- ")
        .or_else(|| s.strip_prefix("* "))
        .unwrap_or(s);
    let bare = s.trim_start_matches("**");
    let (label, rest) = if let Some(r) = bare.strip_prefix("AC") {
        let r = r.trim_start_matches([' ', '#']);
        let digits = r.bytes().take_while(u8::is_ascii_digit).count();
        (r.get(..digits)?, r.get(digits..)?)
    } else {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        match s.get(digits..) {
            Some(r) if digits > 0 && r.starts_with(['.', ')']) => (s.get(..digits)?, r.get(1..)?),
            _ if t.trim_start().starts_with(['-', '*']) => return Some((None, s)),
            _ => return None,
        }
    };
    if label.is_empty() {
        return None;
    }
    let rest = rest
        .trim_start_matches(['*', ':', '.', ')', ' ', '-', '—'])
        .trim();
    Some((Some(label.to_string()), rest))
}

/// Detection: the checkboxes under `## Tasks / Subtasks`, and the story's sections.
struct Story {
    count: Counter,
    path: bool,
    sections: usize,
    status: Option<String>,
    /// The line after a `## Status` heading holds the status.
    status_next: bool,
}

impl Story {
    fn new(path: Option<&Path>) -> Story {
        let p = path.map(Path::to_string_lossy).unwrap_or_default();
        Story {
            count: Counter::new(Some(is_tasks_heading)),
            path: p.contains("/stories/") || p.ends_with(".story.md"),
            sections: 0,
            status: None,
            status_next: false,
        }
    }
}

impl Detector for Story {
    fn line(&mut self, line: &Line<'_>, facts: &Facts<'_>) {
        let t: &str = &line.text;
        if self.count.line(facts) {
            let h = doc::heading(t)
                .map(|(_, h)| h.to_lowercase())
                .unwrap_or_default();
            self.status_next = h == "status";
            self.sections += usize::from(matches!(
                h.as_str(),
                "story" | "acceptance criteria" | "dev notes" | "dev agent record" | "status"
            ));
            return;
        }
        let trimmed = t.trim();
        if self.status.is_none() {
            if let Some(v) = trimmed.strip_prefix("Status:") {
                self.status = Some(v.trim().to_string());
            } else if self.status_next && !trimmed.is_empty() {
                self.status = Some(trimmed.to_string());
            }
        }
        if !trimmed.is_empty() {
            self.status_next = false;
        }
    }

    fn finish(mut self: Box<Self>, _text: &str) -> Evidence {
        let (tasks, all) = self.count.counted_tasks(true);
        let mut why = vec![format!("{all} under `## Tasks / Subtasks`")];
        if let Some(s) = &self.status {
            why.push(format!("story Status: {}", doc::shown(s)));
        }
        if self.sections > 0 {
            why.push(format!("{} story sections", self.sections));
        }
        if self.path {
            why.push("a story file's path".into());
        }
        Evidence {
            tasks,
            signs: self.sections + usize::from(self.status.is_some()) + usize::from(self.path),
            why,
            ..Evidence::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criteria_in_their_forms() {
        let text = "## Acceptance Criteria\n\n1. Users can sign in\n   with a password\n2) Errors are shown\n**AC3**: Locked out after 5 tries\n\n## Tasks / Subtasks\n\n1. not a criterion\n";
        assert_eq!(
            criteria(text),
            [
                ("1".into(), "Users can sign in with a password".into()),
                ("2".into(), "Errors are shown".into()),
                ("3".into(), "Locked out after 5 tries".into()),
            ]
        );
        let bullets = "### Acceptance Criteria\n- Given a user, when X, then Y\n- And Z\n";
        assert_eq!(
            criteria(bullets),
            [
                ("1".into(), "Given a user, when X, then Y".into()),
                ("2".into(), "And Z".into())
            ]
        );
        assert!(is_tasks_heading("Tasks / Subtasks"));
        assert!(is_tasks_heading("Tasks/Subtasks"));
        assert!(!is_tasks_heading("Tasks done so far"));
    }
}
