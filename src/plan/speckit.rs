//! The spec-kit `tasks.md` format: checkbox task lines grouped under phase headings.
//!
//! A task is a list item `- [ ] T001 [P] [US1] Description with path`: the id is the
//! first word after the checkbox and must start with `T` and a digit (the template's
//! `TXXX` placeholder lines and checkboxes without an id — `## Format`, `## Notes`,
//! checklists — are not tasks; the audit reports `TXXX` lines). `[x]`/`[X]` means
//! completed; a ` — DEFERRED` marker (also `–`, `-`, `--`; any case; an optional
//! note may follow it) means skipped and wins over the checkbox. `(depends on T012,
//! T013)` lists explicit deps. Both are removed from the name. Indented lines under a
//! task line (not themselves tasks) become its requirement.
//!
//! **Phase**: the text of the nearest `## ` heading above the task, as written
//! (`Phase 1: Setup (Shared Infrastructure)`); `###` subsections belong to the
//! enclosing phase; tasks above every `## ` heading have phase `""`.
//!
//! **File**: the first word of the name that looks like a path: it ends with a known
//! source/doc extension, or contains `/` and either ends with `/`, has an extension in
//! its last segment, or has two or more `/` (so `authentication/authorization` is not
//! a path but `src/models/user.py` and `docs/` are).
//!
//! **Implicit order** ([`add_phase_edges`]): phases run in order and, within one, an
//! unmarked task waits for everything before it while `[P]` tasks only wait for the
//! last unmarked task. Written as few edges: an unmarked task depends on the previous
//! unmarked task and the `[P]` tasks since it; a `[P]` task depends on the previous
//! unmarked task of its phase; a phase's leading tasks depend on the previous phase's
//! sinks (its last unmarked task and the `[P]` tasks after it). Every task thus
//! depends, transitively, on all tasks of earlier phases, with O(tasks) edges — except
//! that when a phase ending in many `[P]` tasks meets one starting with many, the
//! first leading `[P]` task becomes a barrier the others wait on, so the edge count
//! stays linear (this delays the other leading `[P]` tasks until that one is done).

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::doc::{self, is_none_word, shown, strip_ticks, Line};
use super::fields::{bad_id, is_valid_id};
use super::{digest, Draft, PlanError, PlanWarning};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

/// Above this many sink × leading-task edges at a phase boundary, use a barrier.
const BARRIER_AT: usize = 256;

static DEPS_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\(\s*depends\s+on\s*:?\s*([^)]*)\)").ok());
static DEFERRED_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|\s)(?:—|–|--|-)\s*deferred\b").ok());

const EXTENSIONS: &[&str] = &[
    "py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "vue", "svelte", "css", "scss", "sass",
    "less", "html", "rs", "go", "java", "kt", "swift", "rb", "php", "c", "h", "cc", "cpp", "hpp",
    "cs", "m", "md", "json", "yaml", "yml", "toml", "sql", "sh", "proto", "graphql", "dart", "ex",
    "exs", "scala", "lua", "xml", "ini", "cfg", "txt", "lock",
];

/// Where the parts of a task line are, so the mirror can rewrite them in place.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TaskLine<'a> {
    /// Byte offset of the character inside the checkbox brackets.
    pub check_at: usize,
    pub checked: bool,
    pub id: &'a str,
    /// The text after the id, trimmed.
    pub desc: &'a str,
    /// Byte offset of `desc` in the line.
    pub desc_at: usize,
}

pub(crate) fn task_line(text: &str) -> Option<TaskLine<'_>> {
    let (check_at, c, rest) = checkbox(text)?;
    let r = rest.trim_start();
    if r.len() == rest.len() {
        return None;
    }
    let token = r.split_whitespace().next()?;
    let id = token.trim_end_matches([':', '：']);
    let b = id.as_bytes();
    if b.first() != Some(&b'T') || !b.get(1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let after = r.get(token.len()..)?.trim_start();
    let desc = after.trim_end();
    Some(TaskLine {
        check_at,
        checked: c != ' ',
        id,
        desc,
        desc_at: text.len() - after.len(),
    })
}

/// `(offset of the box's character, the character, text after the box)`.
fn checkbox(text: &str) -> Option<(usize, char, &str)> {
    let t = text.trim_start();
    let after = t.strip_prefix(['-', '*', '+'])?;
    let s = after.trim_start();
    if s.len() == after.len() {
        return None;
    }
    let inner = s.strip_prefix('[')?;
    let c = inner
        .chars()
        .next()
        .filter(|c| matches!(c, ' ' | 'x' | 'X'))?;
    let rest = inner.get(1..)?.strip_prefix(']')?;
    Some((text.len() - inner.len(), c, rest))
}

pub(crate) fn is_task_line(text: &str) -> bool {
    task_line(text).is_some()
}

/// A checkbox whose id is a placeholder such as `TXXX` or `T###`.
pub(crate) fn placeholder_task(text: &str) -> bool {
    let Some((_, _, rest)) = checkbox(text) else {
        return false;
    };
    let token = rest.split_whitespace().next().unwrap_or("");
    token.len() >= 2
        && token.starts_with('T')
        && token
            .chars()
            .skip(1)
            .all(|c| matches!(c, 'X' | 'x' | '#' | '?' | 'N' | 'n'))
}

/// Signs of a spec-kit plan without tasks: phase headings, placeholder task lines.
pub(crate) fn looks_like(text: &str) -> bool {
    let phase = doc::heading(text).is_some_and(|(lvl, h)| {
        lvl == 2 && h.get(..6).is_some_and(|p| p.eq_ignore_ascii_case("phase "))
    });
    phase || placeholder_task(text)
}

/// The span of a DEFERRED marker and the note after it (up to a `(depends on …)`).
pub(crate) fn deferred_span(desc: &str) -> Option<(usize, usize)> {
    let m = DEFERRED_RE.as_ref()?.find(desc)?;
    let end = DEPS_RE
        .as_ref()
        .and_then(|re| re.find_at(desc, m.end()))
        .map_or(desc.len(), |d| d.start());
    Some((m.start(), end))
}

pub(crate) fn parse(
    lines: &[Line<'_>],
    _warnings: &mut Vec<PlanWarning>,
) -> Result<Vec<Draft>, PlanError> {
    let mut drafts: Vec<Draft> = Vec::new();
    let mut phase = String::new();
    let mut group = 0;
    // Whether indented lines still continue the last task.
    let mut open = false;
    for line in lines {
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
            open = false;
            continue;
        }
        if let Some(tl) = task_line(text) {
            drafts.push(task(&tl, line.no, &phase, group)?);
            open = true;
            continue;
        }
        if open && doc::starts_indented(text) && !text.trim().is_empty() {
            if let Some(d) = drafts.last_mut() {
                let req = d.task.requirement.get_or_insert_with(String::new);
                if !req.is_empty() {
                    req.push('\n');
                }
                req.push_str(text.trim());
            }
            continue;
        }
        open = false;
    }
    for d in &mut drafts {
        d.task.digest = digest::of(&d.task);
    }
    Ok(drafts)
}

fn task(tl: &TaskLine<'_>, line: usize, phase: &str, group: usize) -> Result<Draft, PlanError> {
    if !is_valid_id(tl.id) {
        return Err(bad_id(line, tl.id));
    }
    let mut task = Task {
        id: tl.id.to_string(),
        phase: phase.to_string(),
        line,
        ..Task::default()
    };
    let mut rest = tl.desc;
    while let Some(inner_and_more) = rest.strip_prefix('[') {
        let Some(close) = inner_and_more.find(']') else {
            break;
        };
        let inner = inner_and_more.get(..close).unwrap_or("").trim();
        if inner.eq_ignore_ascii_case("p") {
            task.parallel = true;
        } else if task.story.is_none() && is_story(inner) {
            task.story = Some(inner.to_string());
        } else {
            break;
        }
        rest = inner_and_more.get(close + 1..).unwrap_or("").trim_start();
    }
    let mut cut: Vec<(usize, usize)> = Vec::new();
    if let Some(re) = DEPS_RE.as_ref() {
        for caps in re.captures_iter(rest) {
            if let Some(m) = caps.get(0) {
                cut.push((m.start(), m.end()));
            }
            for dep in caps.get(1).map_or("", |m| m.as_str()).split(|c: char| {
                c.is_whitespace() || matches!(c, ',' | '，' | '、' | ';' | '；' | '&')
            }) {
                let dep = strip_ticks(dep);
                if is_none_word(dep) || dep.eq_ignore_ascii_case("and") || dep == "和" {
                    continue;
                }
                if !is_valid_id(dep) {
                    return Err(PlanError::new(line, format!(
                        "task {} lists {} in its (depends on …), which is not a task id; write task ids such as `(depends on T012, T013)`",
                        task.id, shown(dep)
                    )));
                }
                if !task.deps.iter().any(|d| d == dep) {
                    task.deps.push(dep.to_string());
                }
            }
        }
    }
    if let Some(span) = deferred_span(rest) {
        task.status = TaskStatus::Skipped;
        cut.push(span);
    } else if tl.checked {
        task.status = TaskStatus::Completed;
    }
    cut.sort_unstable();
    let mut name = String::with_capacity(rest.len());
    let mut at = 0;
    for (s, e) in cut {
        if s >= at {
            name.push_str(rest.get(at..s).unwrap_or(""));
            name.push(' ');
        }
        at = at.max(e);
    }
    name.push_str(rest.get(at..).unwrap_or(""));
    task.name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if task.name.is_empty() {
        return Err(PlanError::new(
            line,
            format!(
                "task {} has no description; write what to do after the id, e.g. `- [ ] {} Create src/models/user.py`",
                task.id, task.id
            ),
        ));
    }
    task.file = task
        .name
        .split_whitespace()
        .map(|w| {
            w.trim_matches(['`', '"', '\'', '(', ')', '“', '”'])
                .trim_end_matches([',', '.', ';', ':', '，', '。', '；'])
        })
        .find(|w| is_path(w))
        .map(str::to_string);
    Ok(Draft {
        task,
        deps_line: line,
        group,
    })
}

fn is_story(s: &str) -> bool {
    let letters = s.bytes().take_while(u8::is_ascii_alphabetic).count();
    letters > 0
        && s.len() > letters
        && s.len() <= 16
        && s.bytes().skip(letters).all(|b| b.is_ascii_digit())
}

fn is_path(w: &str) -> bool {
    let ext_ok = |seg: &str| {
        seg.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && EXTENSIONS.iter().any(|e| ext.eq_ignore_ascii_case(e))
        })
    };
    if w.contains("://") {
        return false;
    }
    let slashes = w.matches('/').count();
    if slashes == 0 {
        return ext_ok(w);
    }
    let last = w.rsplit('/').next().unwrap_or("");
    w.ends_with('/') || last.contains('.') || slashes >= 2
}

/// Adds the phase-order edges described in the module doc to `Task.deps`.
pub(crate) fn add_phase_edges(drafts: &mut [Draft]) {
    let ids: Vec<String> = drafts.iter().map(|d| d.task.id.clone()).collect();
    let mut prev_sinks: Vec<usize> = Vec::new();
    let mut start = 0;
    while start < drafts.len() {
        let group = drafts.get(start).map_or(0, |d| d.group);
        let len = drafts
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .take_while(|d| d.group == group)
            .count();
        let end = start + len.max(1);
        let leading = drafts
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .take_while(|d| d.task.parallel)
            .count();
        let use_barrier = prev_sinks.len() > 1 && prev_sinks.len() * leading > BARRIER_AT;
        let mut last_unmarked: Option<usize> = None;
        let mut p_since: Vec<usize> = Vec::new();
        let mut barrier: Option<usize> = None;
        for k in start..end {
            let Some(d) = drafts.get_mut(k) else { break };
            let implicit: Vec<usize> = if d.task.parallel {
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
            add_deps(&mut d.task, implicit.iter().filter_map(|i| ids.get(*i)));
        }
        if end > start {
            prev_sinks = last_unmarked.into_iter().chain(p_since).collect();
        }
        start = end;
    }
}

fn add_deps<'a>(task: &mut Task, deps: impl Iterator<Item = &'a String>) {
    let mut seen: HashSet<String> = task.deps.iter().cloned().collect();
    for d in deps {
        if seen.insert(d.clone()) {
            task.deps.push(d.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Vec<Task> {
        let mut d = parse(&doc::lines(text), &mut Vec::new()).unwrap();
        add_phase_edges(&mut d);
        d.into_iter().map(|d| d.task).collect()
    }

    #[test]
    fn task_lines() {
        let tl = task_line("- [x] T001 [P] Do it").unwrap();
        assert_eq!(
            (tl.id, tl.desc, tl.checked, tl.check_at),
            ("T001", "[P] Do it", true, 3)
        );
        assert_eq!(task_line("  * [ ] T2: x").unwrap().id, "T2");
        assert!(task_line("- [ ] TXXX Docs").is_none());
        assert!(task_line("- [ ] **Spec coverage** — x").is_none());
        assert!(task_line("- [ ] [US1] Create").is_none());
        assert!(task_line("-[ ] T1 x").is_none());
        assert!(task_line("- [ ]T1 x").is_none());
        assert!(placeholder_task("- [ ] TXXX [P] Docs"));
        assert!(!placeholder_task("- [ ] T001 Docs"));
    }

    #[test]
    fn flags_deps_deferred_and_file() {
        let t = parse_text(
            "## Phase 1: A\n- [ ] T1 [P] [US2] Build src/models/user.py (depends on T0, `T9`) — DEFERRED: later\n- [X] T0 Init\n- [ ] T9 Docs in README.md -- deferred\n",
        );
        assert!(t[0].parallel);
        assert_eq!(t[0].story.as_deref(), Some("US2"));
        assert_eq!(t[0].name, "Build src/models/user.py");
        assert_eq!(t[0].deps, vec!["T0", "T9"]);
        assert_eq!(t[0].status, TaskStatus::Skipped);
        assert_eq!(t[0].file.as_deref(), Some("src/models/user.py"));
        assert_eq!(t[1].status, TaskStatus::Completed);
        assert_eq!(t[2].status, TaskStatus::Skipped);
        assert_eq!(t[2].file.as_deref(), Some("README.md"));
        assert_eq!(t[0].phase, "Phase 1: A");
    }

    #[test]
    fn deferred_marker_forms() {
        for s in [
            "x — DEFERRED",
            "x – deferred",
            "x - Deferred",
            "x -- DEFERRED (y)",
            "— DEFERRED",
        ] {
            assert!(deferred_span(s).is_some(), "{s}");
        }
        for s in ["pre-deferred", "DEFERRED", "x deferredness"] {
            assert!(deferred_span(s).is_none(), "{s}");
        }
        let s = "x — DEFERRED note (depends on T1)";
        let (a, b) = deferred_span(s).unwrap();
        assert_eq!(&s[a..b], " — DEFERRED note ");
    }

    #[test]
    fn paths() {
        for p in [
            "src/models/user.py",
            "docs/",
            "a/b.ts",
            "README.md",
            "tests/contract/test_[name].py",
            "a/b/c",
        ] {
            assert!(is_path(p), "{p}");
        }
        for p in [
            "authentication/authorization",
            "models/entities",
            "e.g",
            "http://x/y",
            "Setup",
        ] {
            assert!(!is_path(p), "{p}");
        }
    }

    #[test]
    fn continuation_lines_become_requirement() {
        let t = parse_text("- [ ] T1 Do\n  more detail\n  - and this\n\n  not this\n");
        assert_eq!(t[0].requirement.as_deref(), Some("more detail\n- and this"));
    }

    fn deps(t: &[Task], id: &str) -> Vec<String> {
        t.iter().find(|x| x.id == id).unwrap().deps.clone()
    }

    #[test]
    fn phase_edges() {
        let t = parse_text(
            "## P1\n- [ ] T1 a\n- [ ] T2 [P] b\n- [ ] T3 [P] c\n- [ ] T4 d\n- [ ] T5 [P] e\n## P2\n- [ ] T6 [P] f\n- [ ] T7 g\n### sub\n- [ ] T8 h\n## Empty\n## P3\n- [ ] T9 i\n",
        );
        assert!(deps(&t, "T1").is_empty());
        assert_eq!(deps(&t, "T2"), vec!["T1"]);
        assert_eq!(deps(&t, "T3"), vec!["T1"]);
        assert_eq!(deps(&t, "T4"), vec!["T1", "T2", "T3"]);
        assert_eq!(deps(&t, "T5"), vec!["T4"]);
        assert_eq!(deps(&t, "T6"), vec!["T4", "T5"]);
        assert_eq!(deps(&t, "T7"), vec!["T6"]);
        assert_eq!(deps(&t, "T8"), vec!["T7"]);
        assert_eq!(deps(&t, "T9"), vec!["T8"]);
    }

    #[test]
    fn wide_phases_use_a_barrier() {
        let mut text = String::from("## A\n");
        for i in 0..100 {
            text.push_str(&format!("- [ ] T1_{i} [P] x\n"));
        }
        text.push_str("## B\n");
        for i in 0..100 {
            text.push_str(&format!("- [ ] T2_{i} [P] y\n"));
        }
        let t = parse_text(&text);
        let edges: usize = t.iter().map(|x| x.deps.len()).sum();
        assert!(edges < 300, "{edges}");
        assert_eq!(deps(&t, "T2_0").len(), 100);
        assert_eq!(deps(&t, "T2_1"), vec!["T2_0"]);
    }
}
