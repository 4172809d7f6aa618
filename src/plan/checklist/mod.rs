//! Checklist plans: Kiro's and OpenSpec's `tasks.md` and a BMAD story's `## Tasks /
//! Subtasks`, read by one parser; each format is a [`Checklist`] with its own
//! [`Dialect`], detection and brief context (`kiro.rs`, `openspec.rs`, `bmad.rs`).
//! Which boxes are tasks, and their ids, status, details, order and phase, are in
//! docs/plans.md "Kiro, OpenSpec, BMAD: checklists".
//!
//! Read, the formats differ only in their [`Dialect`], so one parser takes them all;
//! the order is cc-sdd's, where an item marked `(P)` does not wait for the items
//! just before it.

mod item;
mod reader;

use std::collections::{HashMap, HashSet};

use super::doc::{self, Line};
use super::marks::Legend;
use super::outline::{Drafts, Node};
use super::paths::{add_paths, paths_in};
use super::{Draft, PlanError, PlanWarning};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;
pub(crate) use item::{indent_of, item, item_shape, Item};
pub(crate) use reader::{Checklist, Counter};

/// What sets one checklist format apart from the others when reading.
pub(crate) struct Dialect {
    /// Only the checkboxes under a heading this accepts are tasks (BMAD's `Tasks /
    /// Subtasks`), up to the next heading of its level or above; none: every one.
    pub section: Option<fn(&str) -> bool>,
    /// What `[-]` means when the plan's legend does not say.
    pub dash: TaskStatus,
    /// The acceptance criteria the text lists, `(number, text)`, for the tasks that
    /// name them (`(AC: #1)`); none: the format has none.
    pub criteria: Option<Criteria>,
}

/// Reads a text's acceptance criteria as `(number, text)`.
pub(crate) type Criteria = fn(&str) -> Vec<(String, String)>;

/// An item on its way to a task.
struct Entry {
    line: usize,
    indent: usize,
    parent: Option<usize>,
    number: Option<String>,
    name: String,
    status: TaskStatus,
    parallel: bool,
    optional: bool,
    criteria: Vec<String>,
    /// The nearest heading above it inside the task list.
    heading: String,
    /// Under a heading of boxes that are not tasks (`not_tasks`).
    aside: bool,
    phase: String,
    details: Vec<(usize, String)>,
    id: String,
}

/// Reads the task list of `text` into `drafts` as `dialect` says.
pub(crate) fn parse(
    text: &str,
    dialect: &Dialect,
    drafts: &mut Drafts<'_>,
    warnings: &mut Vec<PlanWarning>,
) -> Result<(), PlanError> {
    let mut entries = collect(text, dialect, warnings);
    assign_ids(&mut entries, warnings);
    let index: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let criteria = dialect.criteria.map(|read| read(text)).unwrap_or_default();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    for (i, e) in entries.iter().enumerate() {
        if let Some(p) = e.parent.and_then(|p| children.get_mut(p)) {
            p.push(i);
        }
    }
    let mut tasks = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let mut task = Task {
            id: e.id.clone(),
            name: e.name.clone(),
            phase: e.phase.clone(),
            status: e.status,
            line: e.line,
            parallel: e.parallel,
            ..Task::default()
        };
        task.deps = children
            .get(i)
            .into_iter()
            .flatten()
            .filter_map(|&c| entries.get(c).map(|c| c.id.clone()))
            .collect();
        let mut deps_line = e.line;
        let mut requirement: Vec<&str> = Vec::new();
        for (no, d) in &e.details {
            if let Some((key, value)) = meta(d) {
                if key == "depends" || key == "depends on" {
                    for dep in dep_words(value) {
                        if !index.contains_key(dep) {
                            return Err(PlanError::new(
                                *no,
                                format!(
                                    "task {} depends on {dep}, which is not a task in this plan; fix the number or remove it from its _Depends:_ line",
                                    e.id
                                ),
                            ));
                        }
                        if dep != e.id && !task.deps.iter().any(|x| x == dep) {
                            task.deps.push(dep.to_string());
                        }
                    }
                    deps_line = *no;
                } else {
                    task.extra.insert(
                        key.replace(' ', "_"),
                        serde_json::Value::String(value.to_string()),
                    );
                }
            } else {
                requirement.push(d);
            }
        }
        if !requirement.is_empty() {
            task.requirement = Some(requirement.join("\n"));
        }
        if e.optional {
            task.extra
                .insert("optional".into(), serde_json::Value::Bool(true));
        }
        // Before the paths: a command's arguments are not files the task names.
        super::inline::take_verify(&mut task);
        let paths = paths_in(&task.name);
        add_paths(&mut task, paths);
        for (_, d) in &e.details {
            add_paths(&mut task, paths_in(d));
        }
        task.acceptance = acceptance(&entries, i, &criteria);
        tasks.push(Draft {
            task,
            deps_line,
            // The parent's position, one-based (0: none): `add_order_edges` reads it.
            group: e.parent.map_or(0, |p| p + 1),
        });
    }
    for draft in tasks {
        drafts.push(draft)?;
    }
    Ok(())
}

/// The items of the task list, with their details, phases and parents.
fn collect(text: &str, dialect: &Dialect, warnings: &mut Vec<PlanWarning>) -> Vec<Entry> {
    let mut legend = Legend::with(dialect.dash);
    let mut entries: Vec<Entry> = Vec::new();
    // The level of the section heading we are under (always "in" without a section).
    let mut region: Option<usize> = dialect.section.map(|_| 0);
    let in_region = |r: Option<usize>| dialect.section.is_none() || r.is_some_and(|l| l > 0);
    let mut heading_phase = String::new();
    // The level of a heading over boxes that are not tasks (`## Definition of Done`).
    let mut aside: Option<usize> = None;
    // Items whose details are still open, as positions into `entries`.
    let mut open: Vec<usize> = Vec::new();
    for line in doc::iter(text) {
        if line.hidden || line.comment.is_some() {
            continue;
        }
        let t: &str = &line.text;
        if let Some((level, h)) = doc::heading(t) {
            open.clear();
            if aside.is_some_and(|l| level <= l) {
                aside = None;
            }
            if aside.is_none() && not_tasks(h) {
                aside = Some(level);
            }
            if let Some(accepts) = dialect.section {
                if accepts(h) {
                    region = Some(level);
                    heading_phase.clear();
                    continue;
                }
                if region.is_some_and(|l| l > 0 && level <= l) {
                    region = Some(0);
                }
            }
            if in_region(region) && level >= 2 {
                heading_phase = h.to_string();
            }
            continue;
        }
        if !in_region(region) {
            legend.learn(t);
            continue;
        }
        if let Some(it) = item(t).filter(|_| !placeholder(t)) {
            if it.name.is_empty() && it.number.is_none() {
                warnings.push(PlanWarning::new(
                    line.no,
                    "this checkbox has no text, so it is not read as a task; write what to do after the box",
                ));
                continue;
            }
            push_entry(&mut entries, &mut open, &it, &line, &legend, &heading_phase);
            if let Some(e) = entries.last_mut() {
                e.aside = aside.is_some();
            }
            continue;
        }
        if t.trim().is_empty() {
            continue;
        }
        close_open(&entries, &mut open, indent_of(t));
        match open.last().and_then(|&i| entries.get_mut(i)) {
            Some(e) => {
                let d = doc::list_item(t).unwrap_or(t).trim();
                if !d.is_empty() {
                    e.details.push((line.no, d.to_string()));
                }
            }
            None => legend.learn(t),
        }
    }
    // Boxes under a heading like `## Definition of Done` are not tasks, unless the
    // plan has no others (its task list is titled so).
    if entries.iter().any(|e| !e.aside) && entries.iter().any(|e| e.aside) {
        drop_aside(&mut entries);
    }
    set_phases(&mut entries);
    defer_under_deferred(&mut entries);
    entries
}

/// `entries` without the boxes under headings of other lists, parents moved.
fn drop_aside(entries: &mut Vec<Entry>) {
    let to = super::repeats::kept_places(entries.iter().map(|e| e.aside));
    entries.retain(|e| !e.aside);
    for e in entries.iter_mut() {
        e.parent = e.parent.and_then(|p| to.get(p).copied().flatten());
    }
}

/// A heading over boxes that are not the plan's tasks: success criteria, a
/// definition of done, quality gates, notes, a checklist of rules, a summary.
///
/// Compared without case as ASCII, with no copy: every heading of every plan is
/// asked during detection.
pub(crate) fn not_tasks(heading: &str) -> bool {
    let h = heading.trim_start_matches(|c: char| !c.is_alphanumeric());
    let starts = [
        "success criteria",
        "acceptance criteria",
        "definition of done",
        "done when",
        "quality gate",
        "notes",
        "note",
        "summary",
        "task summary",
        "executive summary",
        "legend",
        "status legend",
        "references",
        "open questions",
        "dependencies",
        "external dependencies",
        "prerequisites",
    ];
    let starts_with = |p: &str| h.get(..p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p));
    let contains = |p: &str| {
        h.as_bytes()
            .windows(p.len())
            .any(|w| w.eq_ignore_ascii_case(p.as_bytes()))
    };
    starts.into_iter().any(starts_with) || contains("checklist") || contains("definition of done")
}

/// The open items under a deferred one are deferred with it.
fn defer_under_deferred(entries: &mut [Entry]) {
    for i in 0..entries.len() {
        let parent_deferred = entries
            .get(i)
            .and_then(|e| e.parent)
            .and_then(|p| entries.get(p))
            .is_some_and(|p| p.status == TaskStatus::Skipped);
        if let Some(e) = entries.get_mut(i) {
            if parent_deferred && e.status == TaskStatus::Pending {
                e.status = TaskStatus::Skipped;
            }
        }
    }
}

/// Each entry's phase (docs/plans.md "Kiro, OpenSpec, BMAD: checklists").
fn set_phases(entries: &mut [Entry]) {
    let mut has_children = vec![false; entries.len()];
    for e in entries.iter() {
        if let Some(slot) = e.parent.and_then(|p| has_children.get_mut(p)) {
            *slot = true;
        }
    }
    for i in 0..entries.len() {
        let tree = entries.get(i).is_some_and(|e| e.parent.is_some())
            || has_children.get(i).copied().unwrap_or(false);
        let phase = match entries.get(i) {
            Some(e) if !tree && !e.heading.is_empty() => e.heading.clone(),
            Some(e) if !tree => e.name.clone(),
            Some(_) => top_of(entries, i).unwrap_or_default(),
            None => continue,
        };
        if let Some(e) = entries.get_mut(i) {
            e.phase = phase;
        }
    }
}

/// A template's box, not a task: `- [ ] {{this.id}}: …`, `- [ ] TXXX …`.
pub(crate) fn placeholder(text: &str) -> bool {
    (text.contains("{{") && text.contains("}}")) || super::speckit::placeholder_task(text)
}

/// [`placeholder`] of a box line whose text after the box is `rest`.
pub(crate) fn placeholder_after(text: &str, rest: &str) -> bool {
    let braces = text.as_bytes().windows(2).any(|w| w == b"{{") && text.contains("}}");
    braces || super::speckit::placeholder_word(rest)
}

/// Closes the open items indented `indent` or more: a line there is not under them.
fn close_open(entries: &[Entry], open: &mut Vec<usize>, indent: usize) {
    while open
        .last()
        .and_then(|&i| entries.get(i))
        .is_some_and(|e| indent <= e.indent)
    {
        open.pop();
    }
}

/// Adds the item `it` on `line`: its parent is the nearest open item indented less.
fn push_entry(
    entries: &mut Vec<Entry>,
    open: &mut Vec<usize>,
    it: &Item<'_>,
    line: &Line<'_>,
    legend: &Legend,
    heading_phase: &str,
) {
    close_open(entries, open, it.indent);
    // `1.1` under `1`: the last item numbered as its number without the last part.
    let by_number = it.number.and_then(|n| {
        let (up, _) = n.rsplit_once('.')?;
        entries
            .iter()
            .rposition(|e| e.number.as_deref() == Some(up))
    });
    let parent = by_number.or_else(|| open.last().copied());
    let name = if it.name.is_empty() {
        // `- [ ] Task 1 (AC: #1)`: nothing but its number and marks.
        it.number.map_or_else(String::new, |n| format!("Task {n}"))
    } else {
        it.name.clone()
    };
    let status = if it.deferral.is_some() {
        TaskStatus::Skipped
    } else {
        legend.status(it.mark)
    };
    open.push(entries.len());
    entries.push(Entry {
        line: line.no,
        indent: it.indent,
        parent,
        number: it.number.map(str::to_string),
        name,
        status,
        parallel: it.parallel,
        optional: it.optional,
        criteria: it.criteria.clone(),
        heading: heading_phase.to_string(),
        aside: false,
        phase: String::new(),
        details: Vec::new(),
        id: String::new(),
    });
}

/// The text of the top-level item above the item at `i` (itself when top-level),
/// numbered as written.
fn top_of(entries: &[Entry], mut i: usize) -> Option<String> {
    while let Some(p) = entries.get(i)?.parent {
        i = p;
    }
    let e = entries.get(i)?;
    Some(match &e.number {
        // As Kiro writes a major task (`1.`) and OpenSpec a task (`2.1`).
        Some(n) if n.contains('.') => format!("{n} {}", e.name),
        Some(n) => format!("{n}. {}", e.name),
        None => e.name.clone(),
    })
}

/// Each entry's id: its number, else its place under its parent; a number seen
/// before gets `-2`, `-3`… and a warning.
fn assign_ids(entries: &mut [Entry], warnings: &mut Vec<PlanWarning>) {
    let written: HashSet<String> = entries.iter().filter_map(|e| e.number.clone()).collect();
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut places: HashMap<Option<usize>, usize> = HashMap::new();
    for i in 0..entries.len() {
        let (parent, number, line) = match entries.get(i) {
            Some(e) => (e.parent, e.number.clone(), e.line),
            None => continue,
        };
        let place = places.entry(parent).or_insert(0);
        *place += 1;
        let base = if let Some(n) = number {
            n
        } else {
            let under = parent
                .and_then(|p| entries.get(p))
                .map(|p| format!("{}.", p.id))
                .unwrap_or_default();
            let mut id = format!("{under}{place}");
            // A place that is also a written number: the next free one.
            while written.contains(&id) {
                *place += 1;
                id = format!("{under}{place}");
            }
            id
        };
        let mut id = base.clone();
        if let Some(&first) = taken.get(&base) {
            let mut k = 2;
            while taken.contains_key(&format!("{base}-{k}"))
                || written.contains(&format!("{base}-{k}"))
            {
                k += 1;
            }
            id = format!("{base}-{k}");
            warnings.push(PlanWarning::new(
                line,
                format!(
                    "task number {base} is used again (first at line {first}), so this task is read as {id}; give each task its own number"
                ),
            ));
        }
        taken.insert(id.clone(), line);
        if let Some(e) = entries.get_mut(i) {
            e.id = id;
        }
    }
}

/// `_Requirements: 1.1, 2.3_`, `**Depends on**: 1.2`, `Boundary: X`: a detail line
/// that is a field, as `(key in lower case, value)`.
fn meta(detail: &str) -> Option<(String, &str)> {
    let d = detail.trim();
    let inner = d
        .strip_prefix('_')
        .and_then(|r| r.strip_suffix('_'))
        .or_else(|| d.strip_prefix('*').and_then(|r| r.strip_suffix('*')))
        .unwrap_or(d);
    let (key, value) = inner.split_once(':')?;
    let key = key.trim().trim_matches('*').trim();
    let known = [
        "requirements",
        "requirement",
        "depends",
        "depends on",
        "boundary",
        "leverage",
        "contracts",
        "files",
    ];
    let lower = key.to_lowercase();
    known
        .contains(&lower.as_str())
        .then(|| (lower, value.trim().trim_matches('*').trim()))
}

/// The task numbers a `_Depends:_` value names: `1.2, 2.3`, `Task 1.2 and 3`.
fn dep_words(value: &str) -> impl Iterator<Item = &str> {
    value
        .split([',', ' ', ';', '/'])
        .map(|w| w.trim().trim_start_matches('#').trim_end_matches('.'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_digit()))
}

/// The acceptance criteria the item at `i` serves: the ones it names, else the ones
/// its nearest parent names, else (when the plan has criteria) all of them.
fn acceptance(entries: &[Entry], i: usize, criteria: &[(String, String)]) -> Option<String> {
    if criteria.is_empty() {
        return None;
    }
    let mut at = Some(i);
    let mut named: &[String] = &[];
    while let Some(e) = at.and_then(|k| entries.get(k)) {
        if !e.criteria.is_empty() {
            named = &e.criteria;
            break;
        }
        at = e.parent;
    }
    let picked: Vec<String> = criteria
        .iter()
        .filter(|(n, _)| named.is_empty() || named.iter().any(|x| x == n))
        .map(|(n, t)| format!("{n}. {t}"))
        .collect();
    (!picked.is_empty()).then(|| picked.join("\n"))
}

/// Adds the order edges (docs/plans.md "Kiro, OpenSpec, BMAD: checklists"); the
/// next unmarked item after a run of `(P)` items waits for all of them. The nodes
/// are in document order, each node's `group` its parent's position plus one (0: a
/// top-level task).
pub(crate) fn add_order_edges(nodes: &mut [Node]) {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        match (n.group as usize).checked_sub(1) {
            Some(p) if p < i => children.get_mut(p).into_iter().for_each(|c| c.push(i)),
            _ => roots.push(i),
        }
    }
    // Post-order: a parent after its sub-tasks, siblings in document order.
    let mut order: Vec<usize> = Vec::with_capacity(nodes.len());
    for root in roots {
        let mut stack = vec![(root, 0)];
        while let Some((at, next)) = stack.pop() {
            match children.get(at).and_then(|c| c.get(next)) {
                Some(&child) => {
                    stack.push((at, next + 1));
                    stack.push((child, 0));
                }
                None => order.push(at),
            }
        }
    }
    // Batches of items that run side by side: an unmarked item and the `(P)` items
    // after it; each waits for every item of the batch before.
    let mut before: Vec<String> = Vec::new();
    let mut batch: Vec<String> = Vec::new();
    for &k in &order {
        let Some(n) = nodes.get(k) else { continue };
        if !n.parallel && !batch.is_empty() {
            before = std::mem::take(&mut batch);
        }
        batch.push(n.id().to_string());
        if let Some(n) = nodes.get_mut(k) {
            n.add_deps(before.iter().map(String::as_str));
        }
    }
}

#[cfg(test)]
mod tests;
