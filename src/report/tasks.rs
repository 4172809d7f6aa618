//! The task list under `wf status`: a line per task — id, status, phase, how long its
//! last attempt ran, attempts, name — in plan order, cut to the reader's width.
//!
//! A long plan is not printed whole by default: the list keeps every task that needs
//! attention (in progress, failed, blocked), fills up to [`SHORT_LIST`] lines with
//! the pending tasks next in plan order, and says what it left out and how to see it.

use crate::state::model::Glance;
use std::collections::HashSet;
use std::fmt::Write as _;

use crate::error::Result;
use crate::output::{paint, Color, Look};
use crate::state::model::Task;
use crate::state::summary::{Digest, SHORT_LIST};
use crate::state::task_ref::TaskRef;
use crate::state::{TaskStatus, WorkflowState};

/// Which tasks the list shows.
#[derive(Debug, Default, Clone, Copy)]
pub struct Filter<'a> {
    /// Only failed tasks.
    pub failed: bool,
    /// Only the tasks of this phase.
    pub phase: Option<&'a str>,
    /// Every task that matches, however many.
    pub all: bool,
}

impl Filter<'_> {
    fn keeps(&self, task: &Task) -> bool {
        (!self.failed || task.status == TaskStatus::Failed)
            && self.phase.is_none_or(|p| task.phase == p)
    }
}

/// The list, or a line saying no task matched.
pub fn list(state: &WorkflowState, filter: &Filter<'_>, look: Look) -> Result<String> {
    let mut matching: Vec<&Task> = Vec::new();
    for t in &state.tasks {
        // `--failed` looks at the failed tasks only: the others are not read.
        if filter.failed && t.status() != TaskStatus::Failed {
            continue;
        }
        let t = t.task()?;
        if filter.keeps(t) {
            matching.push(t);
        }
    }
    if matching.is_empty() {
        return Ok(if filter.failed {
            "No failed task.".to_string()
        } else {
            "No task matches.".to_string()
        });
    }
    let shown = if filter.all {
        matching.clone()
    } else {
        shortlist(&matching)
    };
    let mut text = render(&shown, look);
    let left_out = matching.len() - shown.len();
    if left_out > 0 {
        let done = matching
            .iter()
            .filter(|t| t.status.is_done() && !shown.iter().any(|s| s.id == t.id))
            .count();
        more(&mut text, left_out, done);
    }
    Ok(text)
}

/// The line under a cut list: how many tasks it left out, how many of those are done.
fn more(text: &mut String, left_out: usize, done: usize) {
    let _ = write!(
        text,
        "\n… and {left_out} more ({done} done, {} to do): `wf status --all` lists every task.",
        left_out - done
    );
}

/// The list without a filter, from a state and its digest (a view read from the
/// summary holds only the tasks its digest names): the same lines as `list` with
/// the default filter.
pub fn list_in(state: &WorkflowState, digest: &Digest, look: Look) -> Result<String> {
    if digest.total == 0 {
        return Ok("No task matches.".to_string());
    }
    if digest.total <= SHORT_LIST {
        return Ok(render(&state.whole_tasks()?, look));
    }
    let room = SHORT_LIST.saturating_sub(digest.urgent.len());
    let chosen: HashSet<&str> = digest
        .urgent
        .iter()
        .chain(digest.pending.iter().take(room))
        .map(String::as_str)
        .collect();
    // The view keeps plan order, so the two lists merge by walking it.
    let shown: Vec<&Task> = state
        .tasks
        .iter()
        .filter(|t| chosen.contains(t.id()))
        .map(TaskRef::task)
        .collect::<Result<_>>()?;
    let mut text = render(&shown, look);
    let left_out = digest.total - shown.len();
    if left_out > 0 {
        // Done tasks are never on a cut list: all of them are left out.
        more(&mut text, left_out, digest.done());
    }
    Ok(text)
}

/// At most [`SHORT_LIST`] tasks: all that need attention, then the next pending ones,
/// in plan order.
fn shortlist<'a>(tasks: &[&'a Task]) -> Vec<&'a Task> {
    if tasks.len() <= SHORT_LIST {
        return tasks.to_vec();
    }
    let urgent = |t: &Task| {
        matches!(
            t.status,
            TaskStatus::InProgress | TaskStatus::Failed | TaskStatus::Blocked
        )
    };
    let room = SHORT_LIST.saturating_sub(tasks.iter().filter(|t| urgent(t)).count());
    let mut pending_left = room;
    tasks
        .iter()
        .filter(|t| {
            if urgent(t) {
                return true;
            }
            if t.status == TaskStatus::Pending && pending_left > 0 {
                pending_left -= 1;
                return true;
            }
            false
        })
        .copied()
        .collect()
}

fn render(tasks: &[&Task], look: Look) -> String {
    let rows: Vec<[String; 5]> = tasks
        .iter()
        .map(|t| {
            [
                crate::report::one_line(&t.id),
                if t.accepted_unchecked && t.status == TaskStatus::Completed {
                    "completed, unchecked".to_string()
                } else {
                    t.status.as_str().to_string()
                },
                crate::report::truncate(&crate::report::one_line(&t.phase), 16),
                t.duration_ms.map_or_else(|| "-".to_string(), duration),
                if t.attempts == 0 {
                    "-".to_string()
                } else {
                    t.attempts.to_string()
                },
            ]
        })
        .collect();
    let header = ["id", "status", "phase", "time", "tries"];
    let widths: Vec<usize> = (0..header.len())
        .map(|col| {
            rows.iter()
                .map(|r| r[col].chars().count())
                .chain([header[col].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Everything before the name, with two spaces between columns.
    let lead: usize = widths.iter().map(|w| w + 2).sum();
    let name_room = look
        .width
        .map(|w| usize::from(w).saturating_sub(lead).max(8));
    let line = |cells: &[String; 5], name: &str, status_color: Option<Color>| {
        let mut out = String::new();
        for (col, cell) in cells.iter().enumerate() {
            let padded = if col >= 3 {
                format!("{cell:>width$}  ", width = widths[col])
            } else {
                format!("{cell:<width$}  ", width = widths[col])
            };
            match (col, status_color) {
                (1, Some(color)) => out.push_str(&paint(&padded, color, look.color)),
                _ => out.push_str(&padded),
            }
        }
        let name = crate::report::one_line(name);
        out.push_str(&match name_room {
            Some(room) => crate::report::truncate(&name, room),
            None => name,
        });
        out.trim_end().to_string()
    };
    let mut text = paint(
        &line(&header.map(str::to_string), "task", None),
        Color::Dim,
        look.color,
    );
    for (task, cells) in tasks.iter().zip(&rows) {
        text.push('\n');
        text.push_str(&line(cells, &task.name, status_color(task.status)));
    }
    text
}

fn status_color(status: TaskStatus) -> Option<Color> {
    match status {
        TaskStatus::Completed => Some(Color::Green),
        TaskStatus::Failed => Some(Color::Red),
        TaskStatus::Blocked => Some(Color::Yellow),
        TaskStatus::InProgress => Some(Color::Blue),
        TaskStatus::Pending | TaskStatus::Skipped => None,
    }
}

/// `0.4s`, `12.0s`, `3m05s`, `2h01m`.
fn duration(ms: u64) -> String {
    let secs = ms / 1000;
    match secs {
        0..60 => format!("{:.1}s", ms as f64 / 1000.0),
        60..3600 => format!("{}m{:02}s", secs / 60, secs % 60),
        _ => format!("{}h{:02}m", secs / 3600, secs % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::task_ref::TaskRef;

    fn task(id: &str, status: TaskStatus, phase: &str) -> Task {
        Task {
            id: id.into(),
            name: format!("the task called {id}"),
            phase: phase.into(),
            status,
            ..Task::default()
        }
    }

    fn state(tasks: Vec<Task>) -> WorkflowState {
        let mut state = WorkflowState::new();
        state.tasks = tasks.into_iter().map(TaskRef::new).collect();
        state
    }

    const PLAIN: Look = Look {
        color: false,
        width: None,
    };

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(0), "0.0s");
        assert_eq!(duration(420), "0.4s");
        assert_eq!(duration(12_000), "12.0s");
        assert_eq!(duration(185_000), "3m05s");
        assert_eq!(duration(7_260_000), "2h01m");
    }

    #[test]
    fn the_list_is_aligned_and_says_what_ran() {
        let mut t1 = task("T1", TaskStatus::Completed, "setup");
        t1.duration_ms = Some(1_250);
        t1.attempts = 1;
        let mut t2 = task("T10", TaskStatus::Failed, "core");
        t2.duration_ms = Some(61_000);
        t2.attempts = 3;
        let text = list(
            &state(vec![t1, t2, task("T3", TaskStatus::Pending, "core")]),
            &Filter::default(),
            PLAIN,
        )
        .unwrap();
        insta::assert_snapshot!(text, @r"
        id   status     phase   time  tries  task
        T1   completed  setup   1.2s      1  the task called T1
        T10  failed     core   1m01s      3  the task called T10
        T3   pending    core       -      -  the task called T3
        ");
    }

    #[test]
    fn failed_and_phase_filters() {
        let s = state(vec![
            task("T1", TaskStatus::Failed, "a"),
            task("T2", TaskStatus::Failed, "b"),
            task("T3", TaskStatus::Pending, "b"),
        ]);
        let ids = |f: Filter<'_>| -> Vec<String> {
            list(&s, &f, PLAIN)
                .unwrap()
                .lines()
                .skip(1)
                .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
                .collect()
        };
        let failed = Filter {
            failed: true,
            ..Filter::default()
        };
        let phase_b = Filter {
            phase: Some("b"),
            ..Filter::default()
        };
        assert_eq!(ids(failed), ["T1", "T2"]);
        assert_eq!(ids(phase_b), ["T2", "T3"]);
        assert_eq!(
            ids(Filter {
                failed: true,
                phase: Some("b"),
                all: false
            }),
            ["T2"]
        );
        let none = state(vec![task("T1", TaskStatus::Completed, "a")]);
        assert_eq!(list(&none, &failed, PLAIN).unwrap(), "No failed task.");
        assert_eq!(list(&none, &phase_b, PLAIN).unwrap(), "No task matches.");
    }

    #[test]
    fn a_long_plan_keeps_what_needs_attention_and_says_what_it_left_out() {
        let mut tasks: Vec<Task> = (1..=100)
            .map(|n| task(&format!("T{n}"), TaskStatus::Completed, "a"))
            .collect();
        tasks[89].status = TaskStatus::Failed;
        for t in &mut tasks[95..] {
            t.status = TaskStatus::Pending;
        }
        for t in &mut tasks[..10] {
            t.status = TaskStatus::Blocked;
        }
        let text = list(&state(tasks.clone()), &Filter::default(), PLAIN).unwrap();
        let ids: Vec<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .filter(|id| id.starts_with('T'))
            .collect();
        // 10 blocked, the failed one, the 5 pending; none of the 84 completed.
        assert_eq!(ids.len(), 16, "{text}");
        assert!(ids.contains(&"T90") && ids.contains(&"T96") && ids.contains(&"T1"));
        assert!(
            text.ends_with("… and 84 more (84 done, 0 to do): `wf status --all` lists every task."),
            "{text}"
        );
        let all = list(
            &state(tasks),
            &Filter {
                all: true,
                ..Filter::default()
            },
            PLAIN,
        )
        .unwrap();
        assert_eq!(all.lines().count(), 101);
    }

    #[test]
    fn names_are_cut_to_the_width_and_never_wrap() {
        let mut t = task("T1", TaskStatus::Pending, "a");
        t.name = "a very long task name that goes on and on well past any terminal".into();
        let text = list(
            &state(vec![t]),
            &Filter::default(),
            Look {
                color: false,
                width: Some(50),
            },
        )
        .unwrap();
        for line in text.lines() {
            assert!(line.chars().count() <= 50, "{line:?}");
        }
        assert!(text.contains('…'), "{text}");
    }
}
