//! The spec-kit `tasks.md` format: checkbox task lines grouped under phase headings.
//!
//! A task is a list item `- [ ] T001 [P] [US1] Description with path`: the id is the
//! first word after the checkbox (after up to two status marks such as `✅`; bold and
//! a trailing colon removed: `**T-001**:` is `T-001`) and must be `T`, an optional
//! `-`/`_`, and a digit. The template's `TXXX` placeholder lines and checkboxes
//! without an id — `## Format`, `## Notes`, checklists — are not tasks (the audit
//! reports `TXXX` lines); a checkbox whose first word is a broken id (`Т001` with a
//! Cyrillic Т, `T.001`, `TASK-001`, an invisible character) is a warning with its
//! line, and the "no tasks" error when the plan has no other task.
//!
//! **Status**: `[x]`/`[X]` means completed; any other one-character mark (`[-]`,
//! `[~]`, `[/]`) means skipped, and the mirror keeps it as written; a ` — DEFERRED`
//! marker (also `–`, `-`, `--`; any case; an optional note may follow it) means
//! skipped and wins over the checkbox.
//!
//! **Tags**: `[P]` (parallel) and a story label (`[US1]`, `[US5a]`, `[US1+US5]`,
//! `[Story 2]`) are read from the run of bracket tags right after the id and from the
//! run at the end of the line, and removed from the name.
//!
//! **Deps**: `(depends on T012, T013)` lists explicit deps and is removed from the
//! name; its words that are ids are taken (ranges `T001-T005`, `–`, `..` stand for the
//! tasks between in document order) and the others (`same file`, `for the schema`)
//! are prose and ignored. An id-shaped word that is not a task of the plan refuses
//! the plan with the line that lists it (running without a dependency the plan asks
//! for is worse than stopping). Indented lines under a task line (not themselves
//! tasks) continue it: their text is its requirement (without `(depends on …)`), their
//! `(depends on …)` adds deps and their paths add files.
//!
//! **Dependencies section**: under a heading that says `Dependencies` or `Execution
//! Order` (until a heading of the same or a higher level), each clause of a line
//! (split at `;` and at sentence ends) that relates ids — `T010 depends on T008 +
//! T009` (also `depend on`, `requires`, `needs`, `waits for`, `blocked by`, `after`),
//! `T008 blocks T009, T015` (also `unblocks`, `enables`, `before`), `T012 → T013 →
//! T014` (also `->`, `=>`, `-->`) — adds edges when every part between the relation
//! words names ids; a clause naming an id that is not a task is a warning and adds
//! nothing. These edges are added after the graph is checked, one by one, and one
//! that would close a cycle (with phase order or other deps) is dropped with a
//! warning naming its line: the section restates or refines the order, it must not
//! be able to refuse an otherwise valid plan.
//!
//! **Phase**: the text of the nearest `## ` heading above the task, as written
//! (`Phase 1: Setup (Shared Infrastructure)`); `###` subsections belong to the
//! enclosing phase; tasks above every `## ` heading have phase `""`.
//!
//! **Files**: every path the task line and its continuation lines name, backticked
//! ones first: `file` is the first, `modifies` holds the others (spec-kit does not say
//! which files a task creates; `creates` is checked for existence after a run,
//! `modifies` is not). Punctuation around a word (`(`, trailing `,.;:)`, backticks)
//! is not part of it. A path ends with a known extension, is a directory (`docs/`), or
//! has a `/` and a known top directory (`src/…`) or is backticked; never a URL, a route
//! (`/api/users/:id`, a word after `GET`/`POST`/…, `/x` without an extension), a word
//! list like `authentication/authorization/audit`, or a product name like `Node.js`.
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

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use super::doc::{self, is_none_word, shown, Line};
use super::fields::{bad_id, id_problem, id_suggestion, is_valid_id};
use super::{digest, Draft, PlanError, PlanWarning};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

/// Above this many sink × leading-task edges at a phase boundary, use a barrier.
const BARRIER_AT: usize = 256;

static DEPS_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\(\s*depends\s+on\s*:?\s*([^)]*)\)").ok());
static DEFERRED_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|\s)(?:—|–|--|-|→|->|=>)\s*(?:\*\*)?deferred\b").ok());
/// `— depends on T011, T012.` written without parentheses (continuation lines only).
static BARE_DEPS_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bdepends\s+on\s*:?\s*((?:`?T[-_]?\d[A-Za-z0-9_.\-–]*`?(?:\s*(?:,|\band\b|&|\+|/)\s*)?)+)")
        .ok()
});

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
    /// The character in the box: ` `, `x`, `X`, or another mark (`-`, `~`, …).
    pub mark: char,
    /// The id as written, bold and a trailing colon removed.
    pub id: &'a str,
    /// The text after the id, trimmed.
    pub desc: &'a str,
    /// Byte offset of `desc` in the line.
    pub desc_at: usize,
}

impl TaskLine<'_> {
    pub fn checked(&self) -> bool {
        matches!(self.mark, 'x' | 'X')
    }

    /// A box that is neither open nor ticked (`[-]`, `[~]`): skipped.
    pub fn skip_box(&self) -> bool {
        !matches!(self.mark, ' ' | 'x' | 'X')
    }
}

pub(crate) fn task_line(text: &str) -> Option<TaskLine<'_>> {
    let (check_at, mark, rest) = checkbox(text)?;
    let r = rest.trim_start();
    if r.len() == rest.len() {
        return None;
    }
    let r = skip_marks(r);
    let (id, len) = id_token(r)?;
    if !t_shape(id) {
        return None;
    }
    let after = r.get(len..)?.trim_start();
    let desc = after.trim_end();
    Some(TaskLine {
        check_at,
        mark,
        id,
        desc,
        desc_at: text.len() - after.len(),
    })
}

/// `r` without up to two leading status marks (`✅ T001 …`, `⬜ T002 …`): words of
/// symbols only, none of them ASCII.
fn skip_marks(mut r: &str) -> &str {
    for _ in 0..2 {
        let word = r.split_whitespace().next().unwrap_or("");
        if word.is_empty() || !word.chars().all(|c| !c.is_ascii() && !c.is_alphanumeric()) {
            break;
        }
        r = r.get(word.len()..).unwrap_or("").trim_start();
    }
    r
}

/// The first word of `r` as an id — `T001`, `**T001**`, `**T-001**:`, `T001:` give
/// `T001`/`T-001` — and the bytes it takes.
fn id_token(r: &str) -> Option<(&str, usize)> {
    if let Some(inner) = r.strip_prefix("**") {
        let close = inner.find("**")?;
        let id = inner.get(..close)?.trim_end_matches([':', '：']);
        let mut len = 2 + close + 2;
        if let Some(c) = r
            .get(len..)?
            .chars()
            .next()
            .filter(|c| matches!(c, ':' | '：'))
        {
            len += c.len_utf8();
        }
        let ends_word = r.get(len..)?.chars().next().is_none_or(char::is_whitespace);
        return (!id.is_empty() && !id.contains(char::is_whitespace) && ends_word)
            .then_some((id, len));
    }
    let token = r.split_whitespace().next()?;
    Some((token.trim_end_matches([':', '：']), token.len()))
}

/// A spec-kit id: `T`, an optional `-` or `_`, a digit (`T001`, `T-001`, `T1.2`).
fn t_shape(id: &str) -> bool {
    let b = id.as_bytes();
    let sep = usize::from(b.get(1).is_some_and(|c| matches!(c, b'-' | b'_')));
    b.first() == Some(&b'T') && b.get(1 + sep).is_some_and(u8::is_ascii_digit)
}

/// `(offset of the box's character, the character, text after the box)`. The box
/// holds one character: a space, `x`/`X`, or any other mark that is not a letter,
/// digit or bracket.
fn checkbox(text: &str) -> Option<(usize, char, &str)> {
    let t = text.trim_start();
    let after = t.strip_prefix(['-', '*', '+'])?;
    let s = after.trim_start();
    if s.len() == after.len() {
        return None;
    }
    let inner = s.strip_prefix('[')?;
    let c = inner.chars().next().filter(|c| {
        matches!(c, ' ' | 'x' | 'X')
            || !(c.is_alphanumeric() || c.is_whitespace() || matches!(c, '[' | ']'))
    })?;
    let rest = inner.get(c.len_utf8()..)?.strip_prefix(']')?;
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

/// A checkbox line that is not a task line but whose first word reads like a task
/// id gone wrong (`Т001` with a Cyrillic Т, `T.001`, `TASK-001`, an invisible
/// character): the word, for a warning.
fn near_task(text: &str) -> Option<&str> {
    let (_, _, rest) = checkbox(text)?;
    let r = rest.trim_start();
    if r.len() == rest.len() || placeholder_task(text) {
        return None;
    }
    let (id, _) = id_token(skip_marks(r))?;
    let first = id.chars().next()?;
    let t_like = matches!(first, 'T' | 'Т' | 'Τ' | 'Ｔ');
    (t_like && id.chars().any(char::is_numeric) && id.chars().count() <= 64).then_some(id)
}

/// The first visible checkbox with a description but no task id (`- [ ] [P] Create
/// the app`), for the "no tasks" error.
pub(crate) fn first_idless(lines: &[Line<'_>]) -> Option<usize> {
    lines
        .iter()
        .filter(|l| !l.hidden && l.comment.is_none())
        .find(|l| {
            checkbox(&l.text).is_some_and(|(_, _, rest)| {
                rest.starts_with([' ', '\t']) && !rest.trim().is_empty()
            }) && !placeholder_task(&l.text)
        })
        .map(|l| l.no)
}

/// Signs of a spec-kit plan without tasks: phase headings, placeholder task lines.
pub(crate) fn looks_like(text: &str) -> bool {
    let phase = doc::heading(text).is_some_and(|(lvl, h)| {
        lvl == 2 && h.get(..6).is_some_and(|p| p.eq_ignore_ascii_case("phase "))
    });
    phase || placeholder_task(text) || near_task(text).is_some()
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

/// A dependency as written: one id, or a range `T001-T005` resolved once every id
/// is known.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DepRef {
    One(String),
    /// The word as written, and the ids at its two ends.
    Range(String, String, String),
}

/// The deps a text names and the byte spans that name them (cut from the text).
type DepsFound = (Vec<DepRef>, Vec<(usize, usize)>);

/// An explicit dependency of the task at `task` (a draft index), with its line.
struct Explicit {
    task: usize,
    dep: DepRef,
    line: usize,
}

/// A line of a Dependencies section: `dependents` wait for every one of `deps`.
struct SectionEdge {
    dependents: Vec<DepRef>,
    deps: Vec<DepRef>,
    line: usize,
}

pub(crate) fn parse(
    lines: &[Line<'_>],
    warnings: &mut Vec<PlanWarning>,
) -> Result<Vec<Draft>, PlanError> {
    let mut drafts: Vec<Draft> = Vec::new();
    let mut explicit: Vec<Explicit> = Vec::new();
    let mut section_edges: Vec<SectionEdge> = Vec::new();
    let mut phase = String::new();
    let mut group = 0;
    // The level of the Dependencies heading we are under, if any.
    let mut dep_section: Option<usize> = None;
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
            if is_dep_heading(h) {
                dep_section = Some(level);
            } else if dep_section.is_some_and(|l| level <= l) {
                dep_section = None;
            }
            open = false;
            continue;
        }
        if let Some(tl) = task_line(text) {
            let i = drafts.len();
            let (draft, deps) = task(&tl, line.no, &phase, group)?;
            drafts.push(draft);
            explicit.extend(deps.into_iter().map(|dep| Explicit {
                task: i,
                dep,
                line: line.no,
            }));
            open = true;
            continue;
        }
        if open && doc::starts_indented(text) && !text.trim().is_empty() {
            let i = drafts.len().saturating_sub(1);
            if let Some(d) = drafts.get_mut(i) {
                let (deps, spans) = depends_on_in_text(text, &d.task.id, line.no)?;
                explicit.extend(deps.into_iter().map(|dep| Explicit {
                    task: i,
                    dep,
                    line: line.no,
                }));
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
        if let Some(id) = near_task(text) {
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
        } else if dep_section.is_some() {
            section_edges.extend(section_edges_of(text, line.no));
        }
    }
    resolve(&mut drafts, &explicit, &section_edges, warnings)?;
    for d in &mut drafts {
        d.task.digest = digest::of(&d.task);
    }
    Ok(drafts)
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

/// Resolves ranges, refuses explicit deps that are not tasks of this plan (naming
/// the line that lists them), and attaches the Dependencies-section edges whose ids
/// are all tasks (the others are warned about and dropped).
fn resolve(
    drafts: &mut [Draft],
    explicit: &[Explicit],
    section: &[SectionEdge],
    warnings: &mut Vec<PlanWarning>,
) -> Result<(), PlanError> {
    let index: HashMap<String, usize> = drafts
        .iter()
        .enumerate()
        .map(|(i, d)| (d.task.id.clone(), i))
        .collect();
    let ids: Vec<String> = drafts.iter().map(|d| d.task.id.clone()).collect();
    for e in explicit {
        let id = ids.get(e.task).cloned().unwrap_or_default();
        let deps = expand(&e.dep, &index, &ids).map_err(|missing| {
            PlanError::new(e.line, format!(
                "task {id} depends on {missing}, which is not a task in this plan; fix the id or remove it from its (depends on …)"
            ))
        })?;
        if let Some(d) = drafts.get_mut(e.task) {
            if d.deps_line == d.task.line {
                d.deps_line = e.line;
            }
            add_deps(&mut d.task, deps.iter());
        }
    }
    for edge in section {
        let resolved: Result<Vec<Vec<String>>, String> = edge
            .dependents
            .iter()
            .chain(&edge.deps)
            .map(|r| expand(r, &index, &ids))
            .collect();
        let all = match resolved {
            Ok(all) => all,
            Err(missing) => {
                warnings.push(PlanWarning::new(
                    edge.line,
                    format!(
                        "this dependency line names {missing}, which is not a task in this plan, so the whole line is ignored; fix the id"
                    ),
                ));
                continue;
            }
        };
        let (dependents, deps) = all.split_at(edge.dependents.len());
        let deps: Vec<&String> = deps.iter().flatten().collect();
        for dependent in dependents.iter().flatten() {
            if let Some(d) = index.get(dependent).and_then(|i| drafts.get_mut(*i)) {
                for dep in &deps {
                    if *dep != dependent && !d.section_deps.iter().any(|(x, _)| x == *dep) {
                        d.section_deps.push(((*dep).clone(), edge.line));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The ids a dependency stands for, or the first id that is not a task. A range
/// `A-B` is every task from A to B in document order (a task literally named `A-B`,
/// or `A..B`, wins).
fn expand(
    r: &DepRef,
    index: &HashMap<String, usize>,
    ids: &[String],
) -> Result<Vec<String>, String> {
    // A full stop ends the sentence, not the id, unless the id has one.
    let find = |id: &str| {
        let bare = id.trim_end_matches('.');
        index
            .get(id)
            .or_else(|| index.get(bare))
            .copied()
            .ok_or_else(|| bare.to_string())
    };
    match r {
        DepRef::One(id) => find(id).map(|i| ids.get(i..=i).unwrap_or(&[]).to_vec()),
        DepRef::Range(whole, a, b) => {
            if index.contains_key(whole) {
                return Ok(vec![whole.clone()]);
            }
            let from = find(a)?;
            let to = find(b)?;
            let (lo, hi) = (from.min(to), from.max(to));
            Ok(ids.get(lo..=hi).unwrap_or(&[]).to_vec())
        }
    }
}

/// Splits a word into the ids it names: `T003`, `` `T003` ``, `**T003**,`, the
/// range `T001-T005` (also `–`, `—`, `..`). `None` for any other word.
fn dep_word(w: &str) -> Option<DepRef> {
    let w = w
        .trim_matches(|c: char| "`*\"'“”‘’()[]{}<>,;:，。；：!?".contains(c))
        .trim_end_matches("'s")
        .trim_end_matches("’s");
    for sep in ["..", "–", "—", "-"] {
        if let Some((a, b)) = w.split_once(sep) {
            if t_shape(a) && t_shape(b) && !b.contains(sep) {
                return Some(DepRef::Range(w.to_string(), a.to_string(), b.to_string()));
            }
        }
    }
    t_shape(w).then(|| DepRef::One(w.to_string()))
}

/// The words of `s` split the way dependency lists are written.
fn dep_words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| {
        c.is_whitespace() || matches!(c, ',' | '，' | '、' | ';' | '；' | '&' | '+' | '/')
    })
    .filter(|w| !w.is_empty())
}

/// The `(depends on …)` groups in `s`: the ids they name, and their byte spans.
/// Words that are not ids are prose and ignored; a word shaped like an id that is not
/// a valid one (`T1$(x)`) refuses the plan.
fn depends_on(s: &str, task_id: &str, line: usize) -> Result<DepsFound, PlanError> {
    dep_groups(&DEPS_RE, s, task_id, line)
}

/// [`depends_on`] for a continuation line, which may also say `depends on T011.`
/// without parentheses.
fn depends_on_in_text(s: &str, task_id: &str, line: usize) -> Result<DepsFound, PlanError> {
    let (mut deps, mut spans) = depends_on(s, task_id, line)?;
    let (more, more_spans) = dep_groups(&BARE_DEPS_RE, s, task_id, line)?;
    for dep in more {
        if !deps.contains(&dep) {
            deps.push(dep);
        }
    }
    for sp in more_spans {
        if !spans.iter().any(|(a, b)| sp.0 < *b && *a < sp.1) {
            spans.push(sp);
        }
    }
    Ok((deps, spans))
}

/// The matches of `re` in `s`: the ids their first group names and the spans to cut
/// from the text. A group of prose only (`(depends on web: service_healthy)`) is
/// neither read nor cut.
fn dep_groups(
    re: &Option<Regex>,
    s: &str,
    task_id: &str,
    line: usize,
) -> Result<DepsFound, PlanError> {
    let mut deps: Vec<DepRef> = Vec::new();
    let mut spans = Vec::new();
    let Some(re) = re.as_ref() else {
        return Ok((deps, spans));
    };
    for caps in re.captures_iter(s) {
        let words: Vec<&str> = dep_words(caps.get(1).map_or("", |m| m.as_str())).collect();
        let mut any = false;
        for w in &words {
            let Some(dep) = dep_word(w) else { continue };
            any = true;
            if let DepRef::One(id) = &dep {
                if !is_valid_id(id) {
                    return Err(PlanError::new(line, format!(
                        "task {task_id} lists {} in its (depends on …), which is not a task id; write task ids such as `(depends on T012, T013)`",
                        shown(id)
                    )));
                }
            }
            if !deps.contains(&dep) {
                deps.push(dep);
            }
        }
        let nothing = words.iter().all(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
            is_none_word(w) || w.eq_ignore_ascii_case("and")
        });
        if let Some(m) = caps.get(0).filter(|_| any || nothing) {
            spans.push((m.start(), m.end()));
        }
    }
    Ok((deps, spans))
}

/// A Dependencies-section line read as edges: `T010 depends on T008 + T009`,
/// `T008 blocks T009, T015`, `T012 → T013 → T014`, `T005 after T004`. Every part
/// between the relation words must name a task id, or the line is prose.
fn section_edges_of(text: &str, line: usize) -> Vec<SectionEdge> {
    clauses(text).flat_map(|c| clause_edges(c, line)).collect()
}

/// The clauses of a line: split at `;` and at a full stop that ends a sentence.
fn clauses(text: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_blank = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if matches!(c, ';' | '；' | '。') || (c == '.' && next_blank) {
            out.push(text.get(start..i).unwrap_or(""));
            start = i + c.len_utf8();
        }
    }
    out.push(text.get(start..).unwrap_or(""));
    out.into_iter()
}

fn clause_edges(text: &str, line: usize) -> Vec<SectionEdge> {
    // ASCII lowercase keeps every byte offset (the relation words are ASCII or arrows).
    let lower = text.to_ascii_lowercase();
    // (byte offset, length, whether the ids on the left wait for those on the right)
    let mut ops: Vec<(usize, usize, bool)> = Vec::new();
    for (word, left_waits) in RELATIONS {
        let mut from = 0;
        while let Some(at) = lower.get(from..).and_then(|r| r.find(word)) {
            let at = from + at;
            let end = at + word.len();
            let alnum = |c: char| c.is_alphanumeric();
            let bounded = !word.starts_with(alnum)
                || (!lower
                    .get(..at)
                    .unwrap_or("")
                    .chars()
                    .next_back()
                    .is_some_and(alnum)
                    && !lower
                        .get(end..)
                        .unwrap_or("")
                        .chars()
                        .next()
                        .is_some_and(alnum));
            if bounded && !ops.iter().any(|(s, l, _)| at < s + l && *s < end) {
                ops.push((at, word.len(), *left_waits));
            }
            from = end;
        }
    }
    ops.sort_unstable();
    let mut parts: Vec<Vec<DepRef>> = Vec::new();
    let mut at = 0;
    for (s, l, _) in &ops {
        parts.push(ids_in(text.get(at..*s).unwrap_or("")));
        at = s + l;
    }
    parts.push(ids_in(text.get(at..).unwrap_or("")));
    if ops.is_empty() || parts.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    ops.iter()
        .zip(parts.windows(2))
        .filter_map(|((_, _, left_waits), pair)| {
            let (left, right) = (pair.first()?.clone(), pair.get(1)?.clone());
            let (dependents, deps) = if *left_waits {
                (left, right)
            } else {
                (right, left)
            };
            Some(SectionEdge {
                dependents,
                deps,
                line,
            })
        })
        .collect()
}

fn ids_in(s: &str) -> Vec<DepRef> {
    dep_words(s).filter_map(dep_word).collect()
}

/// Relation words of a Dependencies section and whether the ids on their left wait
/// for the ids on their right.
const RELATIONS: &[(&str, bool)] = &[
    ("depends on", true),
    ("depend on", true),
    ("requires", true),
    ("needs", true),
    ("waits for", true),
    ("blocked by", true),
    ("after", true),
    ("blocks", false),
    ("unblocks", false),
    ("enables", false),
    ("before", false),
    ("-->", false),
    ("->", false),
    ("=>", false),
    ("→", false),
    ("⟶", false),
    ("⇒", false),
    ("➜", false),
];

fn task(
    tl: &TaskLine<'_>,
    line: usize,
    phase: &str,
    group: usize,
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
    if let Some(span) = deferred_span(rest) {
        task.status = TaskStatus::Skipped;
        cut.push(span);
    } else if tl.skip_box() {
        task.status = TaskStatus::Skipped;
    } else if tl.checked() {
        task.status = TaskStatus::Completed;
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
    let paths = paths_in(&task.name);
    add_paths(&mut task, paths);
    Ok((
        Draft {
            task,
            deps_line: line,
            group,
            section_deps: Vec::new(),
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

/// `file` is the first path the task names, `modifies` the others (spec-kit does not
/// say which files a task creates; `creates` is checked for existence after the run,
/// `modifies` is not).
fn add_paths(task: &mut Task, paths: Vec<String>) {
    for p in paths {
        if task.file.as_deref() == Some(p.as_str()) || task.modifies.contains(&p) {
            continue;
        }
        if task.file.is_none() {
            task.file = Some(p);
        } else {
            task.modifies.push(p);
        }
    }
}

/// The file paths `text` names, in order: backticked ones first, then bare words
/// that look like paths (see [`is_path`]); never a URL, a route after an HTTP method,
/// or a word of punctuation.
fn paths_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |p: &str| {
        if !out.iter().any(|o| o == p) {
            out.push(p.to_string());
        }
    };
    let spans = doc::code_spans(text);
    for span in &spans {
        let w = clean_word(span);
        if is_path(w, true) {
            push(w);
        }
    }
    let mut bare = text.to_string();
    for span in &spans {
        bare = bare.replacen(span, " ", 1);
    }
    let mut after_method = false;
    for raw in bare.split_whitespace() {
        let w = clean_word(raw);
        if !after_method && is_path(w, false) {
            push(w);
        }
        after_method = HTTP_METHODS.contains(&w);
    }
    out
}

const HTTP_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// A word without the punctuation around it that is not part of a path.
fn clean_word(w: &str) -> &str {
    w.trim()
        .trim_start_matches(['(', '"', '\'', '“', '‘', '[', '<', '`', '*'])
        .trim_end_matches([
            ',', '.', ';', ':', ')', '"', '\'', '”', '’', '`', '*', '!', '?', '，', '。', '；',
            '：', '）',
        ])
}

/// Top-level directories that make an extensionless `a/b/c` a path.
const ROOTS: &[&str] = &[
    "src",
    "lib",
    "app",
    "apps",
    "test",
    "tests",
    "spec",
    "specs",
    "docs",
    "doc",
    "pkg",
    "cmd",
    "internal",
    "scripts",
    "packages",
    "crates",
    "backend",
    "frontend",
    "server",
    "client",
    "public",
    "config",
    "migrations",
    "include",
    "bin",
    "assets",
    "components",
    "web",
];

/// Files without an extension that tasks name.
const BARE_FILES: &[&str] = &[
    "Dockerfile",
    "Makefile",
    "Procfile",
    "Gemfile",
    "Rakefile",
    "Justfile",
    "LICENSE",
    "Containerfile",
];

/// Product names written like files.
const NOT_FILES: &[&str] = &[
    "node.js",
    "next.js",
    "vue.js",
    "nuxt.js",
    "react.js",
    "three.js",
    "chart.js",
    "d3.js",
    "express.js",
    "angular.js",
    "ember.js",
    "backbone.js",
    "socket.io",
    "p5.js",
    "alpine.js",
    "solid.js",
    "nest.js",
    "deno.js",
];

fn is_path(w: &str, ticked: bool) -> bool {
    let ext_ok = |seg: &str| {
        seg.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && EXTENSIONS.iter().any(|e| ext.eq_ignore_ascii_case(e))
        })
    };
    if w.is_empty()
        || w.contains("://")
        || w.contains(['<', '>', '|', '`', '*', '{', '}', '='])
        || w.contains(char::is_whitespace)
        || NOT_FILES.iter().any(|n| w.eq_ignore_ascii_case(n))
    {
        return false;
    }
    let segments: Vec<&str> = w.split('/').collect();
    // URL routes: `/api/users/:id`, `/venues`.
    if segments.iter().any(|s| s.starts_with(':')) {
        return false;
    }
    let last = segments.last().copied().unwrap_or("");
    if w.starts_with('/') {
        return ext_ok(last);
    }
    if segments.len() == 1 {
        return ext_ok(w) || BARE_FILES.contains(&w);
    }
    if w.ends_with('/') || last.contains('.') {
        return true;
    }
    let first = segments.first().copied().unwrap_or("");
    ticked || first.starts_with('.') || first == "~" || ROOTS.contains(&first)
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
            (tl.id, tl.desc, tl.checked(), tl.check_at),
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
            "src/a/b",
            "app/venues/[id]/page.tsx",
            "Dockerfile",
        ] {
            assert!(is_path(p, false), "{p}");
        }
        for p in [
            "authentication/authorization",
            "models/entities",
            "e.g",
            "http://x/y",
            "Setup",
            "authentication/authorization/audit",
            "/api/users/:id",
            "/venues/[id]",
            "Node.js",
        ] {
            assert!(!is_path(p, false), "{p}");
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

    #[test]
    fn boxes_bold_hyphenated_and_marked_ids() {
        let tl = task_line("- [-] **T-001**: Do it").unwrap();
        assert_eq!((tl.id, tl.desc, tl.mark), ("T-001", "Do it", '-'));
        assert!(tl.skip_box() && !tl.checked());
        assert_eq!(task_line("- [~] **T002** x").unwrap().id, "T002");
        assert_eq!(task_line("- [ ] **T003:** x").unwrap().id, "T003");
        assert_eq!(task_line("- [x] ✅ T004 x").unwrap().id, "T004");
        assert_eq!(task_line("- [ ] T_5 x").unwrap().id, "T_5");
        assert!(task_line("- [a] T001 x").is_none());
        assert!(task_line("- [ ] **T001 x").is_none());
        assert!(task_line("- [ ] Team sync").is_none());
        let t = parse_text("- [~] T1 a\n- [-] T2 b\n- [/] T3 c\n- [X] T4 d\n");
        let st: Vec<TaskStatus> = t.iter().map(|x| x.status).collect();
        use TaskStatus::*;
        assert_eq!(st, [Skipped, Skipped, Skipped, Completed]);
    }

    #[test]
    fn broken_ids_are_warnings() {
        let mut w = Vec::new();
        let d = parse(
            &doc::lines(
                "- [ ] T001 ok\n- [ ] \u{422}002 x\n- [ ] T.3 y\n- [ ] TXXX z\n- [ ] Team sync\n",
            ),
            &mut w,
        )
        .unwrap();
        assert_eq!(d.len(), 1);
        let lines: Vec<usize> = w.iter().map(|x| x.line).collect();
        assert_eq!(lines, [2, 3]);
        assert!(
            w[0].message
                .contains("write it as `- [ ] T002 description`"),
            "{}",
            w[0].message
        );
        assert!(w.iter().all(|x| x.unread_task));
    }

    #[test]
    fn trailing_and_story_tags() {
        let t = parse_text("- [ ] T1 [US5a] a in src/a.py [P]\n- [ ] T2 [Story 2] b [NEEDS CLARIFICATION]\n- [ ] T3 c [US1+US5]\n- [ ] T4 [EXECUTOR: db] [P] [SEC] d [WIP] [US2/US3]\n");
        assert_eq!(
            (t[3].story.as_deref(), t[3].parallel),
            (Some("US2/US3"), true)
        );
        assert_eq!(t[3].name, "[EXECUTOR: db] [SEC] d [WIP]");
        assert_eq!((t[0].story.as_deref(), t[0].parallel), (Some("US5a"), true));
        assert_eq!(t[0].name, "a in src/a.py");
        assert_eq!(t[1].story.as_deref(), Some("Story 2"));
        assert_eq!(t[1].name, "b [NEEDS CLARIFICATION]");
        assert_eq!(t[2].story.as_deref(), Some("US1+US5"));
        assert!(!is_story("P") && !is_story("id") && !is_story("T001"));
    }

    #[test]
    fn an_id_with_dots_in_depends_on_is_that_task_not_a_range() {
        // Found by the round-trip property test: `T0..T0` read as the range T0 to T0.
        let t = parse_text("- [ ] T0..T0 a\n- [ ] T1 b (depends on T0..T0)\n");
        assert_eq!(deps(&t, "T1"), ["T0..T0"]);
    }

    #[test]
    fn prose_and_ranges_in_depends_on() {
        let t = parse_text(
            "- [ ] T001 a\n- [ ] T002 b\n- [ ] T003 c\n- [ ] T004 d (depends on T001–T003, same file)\n- [ ] T005 e (depends on T004's schema.)\n- [ ] T006 f (Depends on T002..T003 for the schema)\n",
        );
        assert_eq!(deps(&t, "T004"), ["T001", "T002", "T003"]);
        assert_eq!(deps(&t, "T005"), ["T004"]);
        assert_eq!(deps(&t, "T006"), ["T002", "T003", "T005"]);
        assert_eq!(t[3].name, "d");
        let err = parse(
            &doc::lines("- [ ] T1 a\n- [ ] T2 b\n  (depends on T9)\n"),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert_eq!(err.line, 3);
        assert!(
            err.message.contains("task T2 depends on T9"),
            "{}",
            err.message
        );
    }

    #[test]
    fn continuation_lines_add_deps_and_files() {
        let t = parse_text("- [ ] T1 a\n- [ ] T2 [P] b in `src/b.py`\n  - also `src/c.py`, src/d.py\n  - (depends on T1)\n");
        assert_eq!(t[1].file.as_deref(), Some("src/b.py"));
        assert_eq!(t[1].modifies, ["src/c.py", "src/d.py"]);
        assert_eq!(t[1].deps, ["T1"]);
        assert_eq!(
            t[1].requirement.as_deref(),
            Some("- also `src/c.py`, src/d.py")
        );
    }

    #[test]
    fn files_of_a_line() {
        assert_eq!(
            paths_in("Implement GET /venues/[id] and POST /api/x.json in `src/routes.ts`, see docs/api.md."),
            ["src/routes.ts", "docs/api.md"]
        );
        assert_eq!(
            paths_in("Use authentication/authorization/audit from (src/auth/mod.rs); not Node.js"),
            ["src/auth/mod.rs"]
        );
        assert_eq!(paths_in("Run `npm test` then fix lib/x.py`"), ["lib/x.py"]);
        assert_eq!(paths_in("Add `config/settings` dir"), ["config/settings"]);
    }

    #[test]
    fn dependency_section_lines() {
        let edges = |s: &str| -> Vec<(Vec<DepRef>, Vec<DepRef>)> {
            section_edges_of(s, 1)
                .into_iter()
                .map(|e| (e.dependents, e.deps))
                .collect()
        };
        let one = |s: &str| DepRef::One(s.into());
        assert_eq!(
            edges("- T010 depends on T008 + T009"),
            [(vec![one("T010")], vec![one("T008"), one("T009")])]
        );
        assert_eq!(
            edges("**T008** blocks T009, T015."),
            [(vec![one("T009"), one("T015")], vec![one("T008")])]
        );
        assert_eq!(
            edges("T1 → T2 -> T3"),
            [
                (vec![one("T2")], vec![one("T1")]),
                (vec![one("T3")], vec![one("T2")])
            ]
        );
        assert_eq!(
            edges("T010 depends on T006; T011 after T010."),
            [
                (vec![one("T010")], vec![one("T006")]),
                (vec![one("T011")], vec![one("T010")])
            ]
        );
        assert!(edges("Phase 2 depends on Phase 1").is_empty());
        assert!(edges("T008 after both").is_empty());
        assert!(edges("T004 and T005 are independent").is_empty());
        assert!(edges("T004 afterwards T005").is_empty());
        let plan = crate::plan::parse(
            std::path::Path::new("p"),
            "## P\n- [ ] T1 [P] a\n- [ ] T2 [P] b\n- [ ] T3 [P] c\n## Dependencies\n- T3 depends on T1\n- T1 depends on T9\n- T2 → T3 → T2\n",
        )
        .unwrap();
        assert_eq!(plan.tasks[2].deps, ["T1"]);
        assert_eq!(plan.tasks[1].deps, ["T3"]);
        let w: Vec<(usize, bool)> = plan
            .warnings
            .iter()
            .map(|w| (w.line, w.message.contains("cycle")))
            .collect();
        assert_eq!(w, [(7, false), (8, true)]);
    }

    #[test]
    fn hand_written_deferred_and_prose_depends_on() {
        let t = parse_text(
            "- [ ] T1 a → DEFERRED (docs update)\n- [ ] T2 b **DEFERRED to later**\n- [ ] T3 c (depends on web: service_healthy)\n- [ ] T4 d\n  quickstart S6) — depends on T1, T2.\n- [ ] T5 e (depends on none)\n",
        );
        assert_eq!(t[0].status, TaskStatus::Skipped);
        assert_eq!(t[0].name, "a");
        assert_eq!(t[1].status, TaskStatus::Pending);
        assert_eq!(t[2].name, "c (depends on web: service_healthy)");
        assert!(t[2].deps.iter().all(|d| d == "T2"), "{:?}", t[2].deps);
        assert!(deps(&t, "T4").contains(&"T1".to_string()));
        assert!(deps(&t, "T4").contains(&"T2".to_string()));
        assert_eq!(t[3].requirement.as_deref(), Some("quickstart S6) —"));
        assert_eq!(t[4].name, "e");
    }
}
