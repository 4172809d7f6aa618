//! Tasks written as a table: `| ID | Task | Status | Depends |`, a row a task. A
//! table is one of tasks when its header names an id column and a status column;
//! a row is a task when its id cell holds a valid id. The status cell reads as a
//! status word (`Done`, `✅ Complete`, `In Progress`, `Backlog`, `Deferred`, …), the
//! depends cell's ids are its dependencies, and the task column (else title, name,
//! description) its name.

use crate::plan::ids::is_valid_id;
use crate::state::machine::TaskStatus;

/// Which cells of a task table's rows hold what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Columns {
    id: usize,
    name: Option<usize>,
    status: usize,
    depends: Option<usize>,
}

/// A row of a task table read as a task.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Row<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub status: TaskStatus,
    pub depends: Vec<&'a str>,
}

/// The cells of a table row (`| a | b |`), trimmed; `None` for a line that is not one.
pub(crate) fn cells(line: &str) -> Option<Vec<&str>> {
    let t = line.trim();
    let inner = t.strip_prefix('|')?;
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    Some(inner.split('|').map(str::trim).collect())
}

/// `|---|:--:|`: the row under a table's header.
pub(crate) fn is_separator(line: &str) -> bool {
    cells(line).is_some_and(|c| {
        !c.is_empty()
            && c.iter()
                .all(|x| !x.is_empty() && x.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
    })
}

/// The columns of a header row that makes a task table: an id and a status column.
pub(crate) fn header(line: &str) -> Option<Columns> {
    let cells = cells(line)?;
    let find = |names: &[&str]| {
        cells.iter().position(|c| {
            let c = c.trim_matches('*').trim().to_lowercase();
            names.contains(&c.as_str())
        })
    };
    Some(Columns {
        id: find(&["id", "task id", "#", "编号", "task #"])?,
        name: find(&["task", "title", "name", "description", "任务", "summary"]),
        status: find(&["status", "state", "状态"])?,
        depends: find(&[
            "depends",
            "depends on",
            "dependencies",
            "deps",
            "依赖",
            "blocked by",
        ]),
    })
}

/// A body row of a table with `columns`, as a task when its id cell is an id.
pub(crate) fn row<'a>(line: &'a str, columns: &Columns) -> Option<Row<'a>> {
    let cells = cells(line)?;
    let id = cells.get(columns.id)?.trim_matches(['*', '`']).trim();
    if !is_valid_id(id) || !id.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let name = columns
        .name
        .and_then(|n| cells.get(n))
        .copied()
        .unwrap_or("");
    let status = status_word(cells.get(columns.status)?).unwrap_or(TaskStatus::Pending);
    let depends = columns
        .depends
        .and_then(|d| cells.get(d))
        .map(|d| {
            d.split([',', ' ', ';', '/'])
                .map(|w| w.trim_matches(['`', '*']))
                .filter(|w| is_valid_id(w) && w.bytes().any(|b| b.is_ascii_digit()))
                .collect()
        })
        .unwrap_or_default();
    Some(Row {
        id,
        name,
        status,
        depends,
    })
}

/// A status cell's word: `Done`, `✅ Complete`, `In Progress`, `Backlog`, `Todo`,
/// `Deferred`, `Blocked`; `None` for one that is none of them.
pub(crate) fn status_word(cell: &str) -> Option<TaskStatus> {
    let w: String = cell
        .chars()
        .filter(|c| c.is_alphanumeric() || c.is_whitespace() || *c == '-' || *c == '_')
        .collect::<String>()
        .trim()
        .to_lowercase()
        .replace(['-', '_'], " ");
    let emoji = if cell.contains('✅') {
        Some(TaskStatus::Completed)
    } else if cell.contains('⏳') || cell.contains('🚧') {
        Some(TaskStatus::InProgress)
    } else {
        None
    };
    let s = match w.as_str() {
        "done" | "complete" | "completed" | "finished" | "merged" | "shipped" => {
            TaskStatus::Completed
        }
        "in progress" | "wip" | "doing" | "started" | "ongoing" | "review" | "in review" => {
            TaskStatus::InProgress
        }
        "todo" | "to do" | "pending" | "backlog" | "not started" | "open" | "planned" | "ready" => {
            TaskStatus::Pending
        }
        "deferred" | "skipped" | "cancelled" | "canceled" | "dropped" | "wont do" | "n a" => {
            TaskStatus::Skipped
        }
        "blocked" => TaskStatus::Blocked,
        "" => return emoji,
        _ => return emoji.or_else(|| crate::plan::status::parse_word(cell)),
    };
    Some(s)
}

/// The row `line` with its status cell showing `s`, the words the cell uses kept
/// when they read as `s`; `None` when it already shows it or is not such a row.
pub(crate) fn with_status(line: &str, s: TaskStatus) -> Option<String> {
    let cells = cells(line)?;
    // The one cell of the row that reads as a status.
    let at: Vec<usize> = cells
        .iter()
        .enumerate()
        .filter(|(i, c)| *i > 0 && status_word(c).is_some())
        .map(|(i, _)| i)
        .collect();
    let [i] = at.as_slice() else {
        return None;
    };
    let cell = cells.get(*i)?;
    if status_word(cell) == Some(s) {
        return None;
    }
    let word = match s {
        TaskStatus::Completed => "Done",
        TaskStatus::InProgress => "In Progress",
        TaskStatus::Skipped => "Deferred",
        TaskStatus::Blocked => "Blocked",
        TaskStatus::Pending | TaskStatus::Failed => "Pending",
    };
    // The cell's bytes in the line: after the `|` that opens it.
    let mut start = line.find('|')? + 1;
    for _ in 0..*i {
        start += line.get(start..)?.find('|')? + 1;
    }
    let end = start + line.get(start..)?.find('|').unwrap_or(line.len() - start);
    let raw = line.get(start..end)?;
    let lead = raw.len() - raw.trim_start().len();
    let trail = raw.len() - raw.trim_end().len();
    Some(format!(
        "{}{}{word}{}{}",
        line.get(..start)?,
        raw.get(..lead)?,
        raw.get(raw.len() - trail..)?,
        line.get(end..)?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_of_tasks() {
        let cols = header("| ID | Task | Status | Depends |").unwrap();
        assert!(is_separator("|----|:----:|---|---|"));
        let r = row("| T1 | Set up the repo | ✅ Done | — |", &cols).unwrap();
        assert_eq!(
            (r.id, r.name, r.status),
            ("T1", "Set up the repo", TaskStatus::Completed)
        );
        let r = row("| **T2** | Build | In Progress | T1 |", &cols).unwrap();
        assert_eq!(
            (r.id, r.status, r.depends),
            ("T2", TaskStatus::InProgress, vec!["T1"])
        );
        assert_eq!(row("| Phase 1 | x | Done | |", &cols), None);
        assert!(header("| Phase | Tasks | Status |").is_none());
        assert_eq!(
            with_status("| T2 | Build |  In Progress | T1 |", TaskStatus::Completed).as_deref(),
            Some("| T2 | Build |  Done | T1 |")
        );
        assert_eq!(
            with_status("| T1 | Set up | Done | |", TaskStatus::Completed),
            None
        );
        assert_eq!(status_word("Backlog"), Some(TaskStatus::Pending));
    }
}
