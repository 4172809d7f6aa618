//! Dependencies as spec-kit plans write them: `(depends on T012, T013)` on a task
//! line or its continuation, ranges (`T001-T005`), and the clauses of a
//! Dependencies / Execution Order section (`T010 depends on T008`, `T008 blocks T009`,
//! `T012 → T013`); and their resolution against the plan's ids.

#[allow(clippy::wildcard_imports)] // the parser's shared imports and its sibling modules
use super::*;
use crate::plan::fields::push_unique;

pub(super) static DEPS_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\(\s*depends\s+on\s*:?\s*([^)]*)\)").ok());
/// `— depends on T011, T012.` written without parentheses (continuation lines only).
pub(super) static BARE_DEPS_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bdepends\s+on\s*:?\s*((?:`?T[-_]?\d[A-Za-z0-9_.\-–]*`?(?:\s*(?:,|\band\b|&|\+|/)\s*)?)+)")
        .ok()
});

/// A dependency as written: one id, or a range `T001-T005` resolved once every id
/// is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum DepRef {
    One(String),
    /// The word as written, and the ids at its two ends.
    Range(String, String, String),
}

/// The deps a text names and the byte spans that name them (cut from the text).
pub(super) type DepsFound = (Vec<DepRef>, Vec<(usize, usize)>);

/// An explicit dependency of the task at `task` (a draft index), with its line.
pub(super) struct Explicit {
    pub(super) task: usize,
    pub(super) dep: DepRef,
    pub(super) line: usize,
}

impl Explicit {
    /// The `(depends on …)` refs `deps` of the `task`th task, on `line`.
    pub(super) fn all(
        task: usize,
        deps: Vec<DepRef>,
        line: usize,
    ) -> impl Iterator<Item = Explicit> {
        deps.into_iter()
            .map(move |dep| Explicit { task, dep, line })
    }
}

/// A line of a Dependencies section: `dependents` wait for every one of `deps`.
pub(super) struct SectionEdge {
    pub(super) dependents: Vec<DepRef>,
    pub(super) deps: Vec<DepRef>,
    pub(super) line: usize,
}

impl Links {
    /// The links with each task position `p` moved to `to(p)`, those of a task no
    /// longer there (`None`) dropped (`repeats`: a repeated copy not read).
    pub(crate) fn remap(&mut self, to: impl Fn(usize) -> Option<usize>) {
        self.explicit.retain_mut(|e| match to(e.task) {
            Some(p) => {
                e.task = p;
                true
            }
            None => false,
        });
    }
}

/// Resolves ranges, refuses explicit deps that are not tasks of this plan (naming
/// the line that lists them), and gives the Dependencies-section edges whose ids are
/// all tasks (the others are warned about and dropped), to add once the graph is
/// checked.
pub(crate) fn resolve(
    nodes: &mut [Node],
    index: &IdIndex,
    links: &Links,
    warnings: &mut Vec<PlanWarning>,
) -> Result<SectionDeps, PlanError> {
    let Links { explicit, section } = links;
    for e in explicit {
        let id = nodes
            .get(e.task)
            .map(|d| d.id().to_owned())
            .unwrap_or_default();
        let deps = expand(&e.dep, index, nodes).map_err(|missing| {
            PlanError::new(e.line, format!(
                "task {id} depends on {missing}, which is not a task in this plan; fix the id or remove it from its (depends on …)"
            ))
        })?;
        if let Some(d) = nodes.get_mut(e.task) {
            if d.deps_line == d.line {
                d.deps_line = narrow(e.line);
            }
            d.add_deps(deps.iter().map(String::as_str));
        }
    }
    let mut section_deps: SectionDeps = Vec::new();
    // A task's dep named on two lines is added once, for the first.
    let mut seen: std::collections::HashSet<(usize, String)> = std::collections::HashSet::new();
    for edge in section {
        let resolved: Result<Vec<Vec<String>>, String> = edge
            .dependents
            .iter()
            .chain(&edge.deps)
            .map(|r| expand(r, index, nodes))
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
            if let Some(i) = index.get(nodes, dependent) {
                for dep in &deps {
                    if *dep != dependent && seen.insert((i, (*dep).clone())) {
                        section_deps.push((edge.line, i, (*dep).clone()));
                    }
                }
            }
        }
    }
    Ok(section_deps)
}

/// The ids a dependency stands for, or the first id that is not a task. A range
/// `A-B` is every task from A to B in document order (a task literally named `A-B`,
/// or `A..B`, wins).
pub(super) fn expand(r: &DepRef, index: &IdIndex, nodes: &[Node]) -> Result<Vec<String>, String> {
    // A full stop ends the sentence, not the id, unless the id has one.
    let find = |id: &str| {
        let bare = id.trim_end_matches('.');
        index
            .get(nodes, id)
            .or_else(|| index.get(nodes, bare))
            .ok_or_else(|| bare.to_string())
    };
    let ids = |lo: usize, hi: usize| {
        nodes
            .get(lo..=hi)
            .unwrap_or(&[])
            .iter()
            .map(|d| d.id().to_owned())
            .collect()
    };
    match r {
        DepRef::One(id) => find(id).map(|i| ids(i, i)),
        DepRef::Range(whole, a, b) => {
            if index.get(nodes, whole).is_some() {
                return Ok(vec![whole.clone()]);
            }
            let from = find(a)?;
            let to = find(b)?;
            Ok(ids(from.min(to), from.max(to)))
        }
    }
}

/// Splits a word into the ids it names: `T003`, `` `T003` ``, `**T003**,`, the
/// range `T001-T005` (also `–`, `—`, `..`). `None` for any other word.
pub(super) fn dep_word(w: &str) -> Option<DepRef> {
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
pub(super) fn dep_words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| {
        c.is_whitespace() || matches!(c, ',' | '，' | '、' | ';' | '；' | '&' | '+' | '/')
    })
    .filter(|w| !w.is_empty())
}

/// The `(depends on …)` groups in `s`: the ids they name, and their byte spans.
/// Words that are not ids are prose and ignored; a word shaped like an id that is not
/// a valid one (`T1$(x)`) refuses the plan.
pub(super) fn depends_on(s: &str, task_id: &str, line: usize) -> Result<DepsFound, PlanError> {
    dep_groups(DEPS_RE.as_ref(), s, task_id, line)
}

/// [`depends_on`] for a continuation line, which may also say `depends on T011.`
/// without parentheses.
pub(super) fn depends_on_in_text(
    s: &str,
    task_id: &str,
    line: usize,
) -> Result<DepsFound, PlanError> {
    let (mut deps, mut spans) = depends_on(s, task_id, line)?;
    let (more, more_spans) = dep_groups(BARE_DEPS_RE.as_ref(), s, task_id, line)?;
    for dep in more {
        push_unique(&mut deps, dep);
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
pub(super) fn dep_groups(
    re: Option<&Regex>,
    s: &str,
    task_id: &str,
    line: usize,
) -> Result<DepsFound, PlanError> {
    let mut deps: Vec<DepRef> = Vec::new();
    let mut spans = Vec::new();
    let Some(re) = re else {
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
            push_unique(&mut deps, dep);
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
pub(super) fn section_edges_of(text: &str, line: usize) -> Vec<SectionEdge> {
    clauses(text).flat_map(|c| clause_edges(c, line)).collect()
}

/// The clauses of a line: split at `;` and at a full stop that ends a sentence.
pub(super) fn clauses(text: &str) -> impl Iterator<Item = &str> {
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

pub(super) fn clause_edges(text: &str, line: usize) -> Vec<SectionEdge> {
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

pub(super) fn ids_in(s: &str) -> Vec<DepRef> {
    dep_words(s).filter_map(dep_word).collect()
}

/// Relation words of a Dependencies section and whether the ids on their left wait
/// for the ids on their right.
pub(super) const RELATIONS: &[(&str, bool)] = &[
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
