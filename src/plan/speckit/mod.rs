//! The spec-kit `tasks.md` format: `- [ ] T001 [P] [US1] …` task lines under phase
//! headings, their `(depends on …)`, a Dependencies section, task tables, and the
//! order the phases imply; docs/plans.md "spec-kit" says what each part means.
//!
//! A dependency that names no task refuses the plan: running without one the plan
//! asks for is worse than stopping. A Dependencies-section edge that would close a
//! cycle is dropped with a warning instead: the section restates the order, it must
//! not refuse an otherwise valid plan. The implied order is written as few edges
//! ([`add_phase_edges`]), so their count stays linear in the tasks.

mod context;
mod deps;
mod line;
mod reader;
mod table;

use std::sync::LazyLock;

use regex::Regex;

use super::doc::{self, is_none_word, shown, Line};
use super::graph::{IdIndex, SectionDeps};
use super::ids::{bad_id, id_problem, id_suggestion, is_valid_id};
use super::marks::{self, Legend};
use super::outline::{Drafts, Node};
use super::{Draft, PlanError, PlanWarning};
use crate::state::ids::narrow;
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

use super::paths::{add_paths, paths_in};
pub(crate) use deps::resolve;
use deps::{
    depends_on, depends_on_in_text, section_edges_of, DepRef, Explicit, SectionEdge, DEPS_RE,
};
pub(crate) use line::*;
pub(crate) use reader::SpecKit;

/// Above this many sink × leading-task edges at a phase boundary, use a barrier.
const BARRIER_AT: usize = 256;

/// What a spec-kit plan says of dependencies besides its tasks: the `(depends on …)`
/// refs (ranges need every id to resolve) and the Dependencies section's lines,
/// resolved onto the tasks once all are read ([`resolve`]).
pub(crate) struct Links {
    explicit: Vec<Explicit>,
    section: Vec<SectionEdge>,
}

/// Reads the plan's tasks into `drafts`, and what it says of their dependencies
/// when `keep_links` (a second pass over a checked plan has its deps settled: the
/// links would only add to its peak memory).
pub(crate) fn parse(
    whole: &str,
    drafts: &mut Drafts<'_>,
    warnings: &mut Vec<PlanWarning>,
    keep_links: bool,
) -> Result<Links, PlanError> {
    let mut explicit: Vec<Explicit> = Vec::new();
    let mut section_edges: Vec<SectionEdge> = Vec::new();
    let mut phase = String::new();
    let mut group = 0;
    // The level of the Dependencies heading we are under, if any.
    let mut dep_section: Option<usize> = None;
    // Whether indented lines still continue the last task.
    let mut open = false;
    let mut legend = Legend::default();
    // Counted on the first id of another family than `T` (most plans have none).
    let mut families: Option<Families> = None;
    let mut tables = Tables::default();
    // Whether the plan writes its tasks as bullets without boxes (it has no boxed
    // task line): decided at the first such bullet, when no boxed line came first.
    let mut bullets: Option<bool> = None;
    for line in doc::iter(whole) {
        if line.hidden || line.comment.is_some() {
            open = false;
            continue;
        }
        let text: &str = &line.text;
        if let Some((level, h)) = doc::heading(text) {
            if level == 2 {
                phase = h.to_string();
                group += 1;
            }
            if is_dep_heading(h) {
                dep_section = Some(level);
            } else if dep_section.is_some_and(|l| level <= l) {
                dep_section = None;
            }
            open = false;
            continue;
        }
        match tables.line(text) {
            TableLine::Row(columns) => {
                if let Some(r) = table::row(text, &columns) {
                    let i = drafts.len();
                    let (draft, deps) = table_task(&r, line.no, &phase, group);
                    drafts.push(draft)?;
                    if keep_links {
                        explicit.extend(Explicit::all(i, deps, line.no));
                    }
                }
                open = false;
                continue;
            }
            TableLine::Part => {
                open = false;
                continue;
            }
            TableLine::Other => {}
        }
        let boxed = task_line(text);
        if boxed.is_some() {
            bullets.get_or_insert(false);
        }
        let found = boxed.or_else(|| {
            bullet_line(text).filter(|_| {
                *bullets.get_or_insert_with(|| {
                    !doc::iter(whole).any(|l| !l.hidden && task_line(&l.text).is_some())
                })
            })
        });
        if let Some(tl) = found {
            if tl.other
                && !families
                    .get_or_insert_with(|| Families::of(whole))
                    .reads(&tl)
            {
                warnings.push(PlanWarning::unread_task(
                    line.no,
                    format!(
                        "this line looks like a task, but {} is the only id of its kind in the plan, so it is not read as one; write it as `- [ ] T001 description` if it is a task",
                        shown(tl.id)
                    ),
                ));
                open = false;
                continue;
            }
            let i = drafts.len();
            let (draft, deps) = task(&tl, line.no, &phase, group, &legend)?;
            drafts.push(draft)?;
            if keep_links {
                explicit.extend(Explicit::all(i, deps, line.no));
            }
            open = true;
            continue;
        }
        if open && doc::starts_indented(text) && !text.trim().is_empty() {
            let i = drafts.len().saturating_sub(1);
            if let Some(d) = drafts.last_mut() {
                let (deps, spans) = depends_on_in_text(text, &d.task.id, line.no)?;
                if keep_links {
                    explicit.extend(Explicit::all(i, deps, line.no));
                }
                let kept = cut_spans(text, spans);
                let kept = kept.trim();
                if !matches!(kept, "" | "-" | "*" | "+") {
                    let req = d.task.requirement.get_or_insert_with(String::new);
                    if !req.is_empty() {
                        req.push('\n');
                    }
                    req.push_str(kept);
                }
                add_paths(&mut d.task, paths_in(text));
            }
            continue;
        }
        open = false;
        legend.learn(text);
        if let Some(range) = range_line(text) {
            warnings.push(PlanWarning::new(
                line.no,
                format!(
                    "this line restates the tasks {range} (a summary), so it is not read as a task of its own; give it an id of its own if it is one"
                ),
            ));
        } else if let Some(id) = near_task(text) {
            warnings.push(PlanWarning::unread_task(
                line.no,
                format!(
                    "this line looks like a task, but {}, so it is not read as one; write it as `- [ ] {} description`",
                    near_task_problem(id),
                    id_suggestion(id)
                        .filter(|s| t_shape(s))
                        .unwrap_or_else(|| "T001".into())
                ),
            ));
        } else if dep_section.is_some() && keep_links {
            section_edges.extend(section_edges_of(text, line.no));
        }
    }
    Ok(Links {
        explicit,
        section: section_edges,
    })
}

/// Where a line sits among task tables (`table.rs`).
pub(crate) enum TableLine {
    /// A body row of a task table with these columns.
    Row(table::Columns),
    /// A task table's header or separator.
    Part,
    Other,
}

/// Follows the task tables of a text a line at a time: a header that names an id
/// and a status column, then its separator, opens one; any other line closes it.
#[derive(Default)]
pub(crate) struct Tables {
    header: Option<table::Columns>,
    open: Option<table::Columns>,
}

impl Tables {
    pub(crate) fn line(&mut self, text: &str) -> TableLine {
        if !text.trim_start().starts_with('|') {
            self.header = None;
            self.open = None;
            return TableLine::Other;
        }
        if let Some(columns) = &self.open {
            return TableLine::Row(columns.clone());
        }
        if let Some(columns) = self.header.take() {
            if table::is_separator(text) {
                self.open = Some(columns);
                return TableLine::Part;
            }
        }
        self.header = table::header(text);
        if self.header.is_some() {
            TableLine::Part
        } else {
            TableLine::Other
        }
    }
}

/// A task table's row as a task, and the deps its depends cell names.
fn table_task(r: &table::Row<'_>, line: usize, phase: &str, group: usize) -> (Draft, Vec<DepRef>) {
    let mut task = Task {
        id: r.id.to_string(),
        name: if r.name.is_empty() { r.id } else { r.name }.to_string(),
        phase: phase.to_string(),
        status: r.status,
        line,
        ..Task::default()
    };
    let paths = paths_in(&task.name);
    add_paths(&mut task, paths);
    let deps = r
        .depends
        .iter()
        .map(|d| deps::dep_word(d).unwrap_or_else(|| DepRef::One((*d).to_string())))
        .collect();
    (
        Draft {
            task,
            deps_line: line,
            group,
        },
        deps,
    )
}

fn near_task_problem(id: &str) -> String {
    if is_valid_id(id) {
        format!(
            "{} is not a spec-kit task id (those are T and a digit, e.g. T001)",
            shown(id)
        )
    } else {
        id_problem(id)
    }
}

/// `## Dependencies`, `### Task Dependencies`, `## Dependencies & Execution Order`.
fn is_dep_heading(h: &str) -> bool {
    let h = h.to_lowercase();
    h.contains("dependenc") || h.contains("execution order")
}

fn task(
    tl: &TaskLine<'_>,
    line: usize,
    phase: &str,
    group: usize,
    legend: &Legend,
) -> Result<(Draft, Vec<DepRef>), PlanError> {
    if !is_valid_id(tl.id) {
        return Err(bad_id(line, tl.id));
    }
    let mut task = Task {
        id: tl.id.to_string(),
        phase: phase.to_string(),
        line,
        ..Task::default()
    };
    // Leading tags: `[P]` and a story label anywhere in the run; other tags
    // (`[EXECUTOR: MAIN]`, `[SEC]`) stay in the name.
    let mut rest = tl.desc;
    let mut kept: Vec<&str> = Vec::new();
    while let Some(inner_and_more) = rest.strip_prefix('[') {
        let Some(close) = inner_and_more.find(']') else {
            break;
        };
        let inner = inner_and_more.get(..close).unwrap_or("").trim();
        if !tag(&mut task, inner) {
            kept.push(rest.get(..close + 2).unwrap_or(""));
        }
        rest = inner_and_more.get(close + 1..).unwrap_or("").trim_start();
    }
    let (deps, mut cut) = depends_on(rest, &task.id, line)?;
    // A leading tag that defers (`[DEFERRED - PROD]`) is not part of the name.
    let tagged = kept
        .iter()
        .position(|t| marks::deferral(t, false).is_some());
    if let Some(d) = marks::deferral(rest, tl.struck) {
        task.status = TaskStatus::Skipped;
        cut.extend(deferred_span(rest).or(d.span));
    } else if let Some(i) = tagged {
        task.status = TaskStatus::Skipped;
        kept.remove(i);
    } else {
        task.status = legend.status(tl.mark);
    }
    let name = cut_spans(rest, cut);
    let mut words: Vec<&str> = name.split_whitespace().collect();
    // Trailing tags: `… in src/a.py [P]`, `… [US1] [SEC]`.
    let mut k = words.len();
    while let Some(inner) = k
        .checked_sub(1)
        .and_then(|i| words.get(i))
        .and_then(|w| w.strip_prefix('[')?.strip_suffix(']'))
    {
        k -= 1;
        if tag(&mut task, inner.trim()) {
            words.remove(k);
        }
    }
    task.name = kept
        .into_iter()
        .flat_map(str::split_whitespace)
        .chain(words)
        .collect::<Vec<_>>()
        .join(" ");
    if task.name.is_empty() {
        return Err(PlanError::new(
            line,
            format!(
                "task {} has no description; write what to do after the id, e.g. `- [ ] {} Create src/models/user.py`",
                task.id, task.id
            ),
        ));
    }
    // Before the paths: a command's arguments are not files the task names.
    super::inline::take_verify(&mut task);
    let paths = paths_in(&task.name);
    add_paths(&mut task, paths);
    Ok((
        Draft {
            task,
            deps_line: line,
            group,
        },
        deps,
    ))
}

/// `s` without the byte spans `cut` (each replaced by a space).
fn cut_spans(s: &str, mut cut: Vec<(usize, usize)>) -> String {
    cut.sort_unstable();
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (from, to) in cut {
        if from >= at {
            out.push_str(s.get(at..from).unwrap_or(""));
            out.push(' ');
        }
        at = at.max(to);
    }
    out.push_str(s.get(at..).unwrap_or(""));
    out
}

/// Applies a bracket tag (`P`, a story label); false when it is neither.
fn tag(task: &mut Task, inner: &str) -> bool {
    if inner.eq_ignore_ascii_case("p") {
        task.parallel = true;
        true
    } else if task.story.is_none() && is_story(inner) {
        task.story = Some(inner.to_string());
        true
    } else {
        false
    }
}

/// A story label: `US1`, `US5a`, `US1+US5`, `US2/US3`, `Story 2`, `US1, US2`, and
/// labels written the same way (`FR-001`).
fn is_story(s: &str) -> bool {
    let letters = s.chars().take_while(char::is_ascii_alphabetic).count();
    letters > 0
        && s.len() <= 24
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | ',' | ' ' | '&' | '/')
        })
        && !t_shape(s)
}

/// Adds the phase-order edges to each node's deps (docs/plans.md "Implicit order"):
/// where a phase ending in many `[P]` tasks meets one starting with many, the first
/// leading `[P]` task is a barrier the others wait on, which delays them but keeps
/// the edges linear.
pub(crate) fn add_phase_edges(nodes: &mut [Node]) {
    let mut prev_sinks: Vec<usize> = Vec::new();
    let mut start = 0;
    while start < nodes.len() {
        let group = nodes.get(start).map_or(0, |d| d.group);
        let len = nodes
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .take_while(|d| d.group == group)
            .count();
        let end = start + len.max(1);
        let leading = nodes
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .take_while(|d| d.parallel)
            .count();
        let use_barrier = prev_sinks.len() > 1 && prev_sinks.len() * leading > BARRIER_AT;
        let mut last_unmarked: Option<usize> = None;
        let mut p_since: Vec<usize> = Vec::new();
        let mut barrier: Option<usize> = None;
        for k in start..end {
            // A task's implicit deps are tasks before it.
            let (before, rest) = nodes.split_at_mut(k);
            let Some(d) = rest.first_mut() else { break };
            let implicit: Vec<usize> = if d.parallel {
                let v = match (last_unmarked, barrier) {
                    (Some(u), _) => vec![u],
                    (None, Some(b)) => vec![b],
                    (None, None) => {
                        if use_barrier {
                            barrier = Some(k);
                        }
                        prev_sinks.clone()
                    }
                };
                p_since.push(k);
                v
            } else {
                let v = match last_unmarked {
                    Some(u) => std::iter::once(u).chain(p_since.drain(..)).collect(),
                    None if !p_since.is_empty() => std::mem::take(&mut p_since),
                    None => prev_sinks.clone(),
                };
                last_unmarked = Some(k);
                v
            };
            d.add_deps(implicit.iter().filter_map(|&i| before.get(i).map(Node::id)));
        }
        if end > start {
            prev_sinks = last_unmarked.into_iter().chain(p_since).collect();
        }
        start = end;
    }
}

#[cfg(test)]
mod tests;
