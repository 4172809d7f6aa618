//! The zero-decision audit: does the plan leave decisions open?
//!
//! The audit reads a task as a person reads markdown. Before any pattern is
//! searched, what is not prose is set aside ([`prose`]): code spans, URLs, file paths
//! and file names (`src/app/api/venues/[id]/route.ts`, `TODO.md`), and a task's own
//! `(depends on T003)` marker, which is a dependency, not an open condition. What
//! remains is searched for these patterns (English words match whole words only;
//! the upper-case markers are case sensitive):
//!
//! | pattern | severity | matches |
//! |---|---|---|
//! | `TBD` | error | the word `TBD` |
//! | `TODO` | error | the word `TODO` |
//! | `待定` | error | 待定, 待确认, 待讨论 |
//! | `depends on` | error | "depends on" (any case) not followed by task ids, 取决于 |
//! | `placeholder` | error | an unfilled template placeholder, see [`bracket_is_placeholder`], or `{{…}}` |
//! | `missing actions` | error | a claude-workflow task without `actions`, commands, steps or requirement (spec-kit tasks have none by design); a warning when its steps or requirement say what to do (agent work) |
//! | `if needed` | warning | if needed, if necessary, as needed, when needed, 如果需要, 如有必要, 必要时, 视情况 |
//! | `etc.` | warning | etc, 等等, …, and `...` ending a list (not `[...slug]` or `...rest`) |
//! | `maybe` | warning | maybe, perhaps, possibly, 可能, 或许, 也许 |
//! | `appropriate` | warning | appropriate(ly), 适当 |
//! | `FIXME` | warning | the words FIXME, XXX, HACK |
//! | `no file and no requirement` | warning | a claude-workflow task naming no file (file, creates, modifies, tests), no requirement and no steps |
//!
//! A `[…]` is a placeholder when it reads like one (`[FEATURE NAME]`,
//! `[###-feature-name]`, `[e.g., Python 3.11]`, `[NEEDS CLARIFICATION: …]`,
//! `[Entity1]`, `[user journey]`), not when it is syntax: a link, a checkbox, a
//! story or tag label (`[P]`, `[US5a]`, `[US1+US5]`, `[FR-001]`, `[SEQUENTIAL]`),
//! a route segment (`[slug]`, `[...nextauth]`), type or package syntax
//! (`list[User]`, `passlib[bcrypt]`), CSS (`min-h-[44px]`, `[data-theme="dark"]`), a
//! regex class (`[a-z0-9_.-]`) or a JSON array (`["a", "b"]`).
//!
//! Completed and skipped tasks are decided work and are not audited. One finding per
//! task and pattern, each with the line of the task or field where it was found.
//! Lines under a constraints section of the plan (a heading containing 约束 or
//! starting with "Constraints") and task fields whose name contains 约束 or
//! "constraint" are searched for the same text patterns; hits go to
//! `remainingAmbiguities` as `{line, text, pattern, severity}` (or `{taskId, field,
//! …}`), as do spec-kit placeholder task lines such as `- [ ] TXXX …`, which are not
//! imported. `passed` is false when any finding is an error.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Value};

use super::claude;
use super::doc::{self, Line};
use super::fields::{self, Key};
use super::{speckit, Format};
use crate::state::model::{AuditFinding, Task, ZeroDecisionAudit};

struct Pattern {
    name: &'static str,
    severity: &'static str,
    re: Regex,
}

const SOURCES: &[(&str, &str, &str)] = &[
    ("TBD", "error", r"\bTBD\b"),
    ("TODO", "error", r"\bTODO\b"),
    ("待定", "error", r"待定|待确认|待讨论"),
    ("depends on", "error", r"(?i)\bdepends\s+on\b|取决于"),
    (
        "if needed",
        "warning",
        r"(?i)\b(?:if needed|if necessary|as needed|when needed)\b|如果需要|如有必要|必要时|视情况",
    ),
    ("etc.", "warning", r"(?i)\betc\b|等等|…"),
    (
        "maybe",
        "warning",
        r"(?i)\b(?:maybe|perhaps|possibly)\b|可能|或许|也许",
    ),
    ("appropriate", "warning", r"(?i)\bappropriate(?:ly)?\b|适当"),
    ("FIXME", "warning", r"\b(?:FIXME|XXX|HACK)\b"),
];

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .filter_map(|(name, severity, src)| {
            Regex::new(src)
                .ok()
                .map(|re| Pattern { name, severity, re })
        })
        .collect()
});

/// A task's own dependency marker: `(depends on T003, T004)`, `depends on: T1 and T2`.
static DEPENDS_MARKER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let id = r"[A-Za-z]+[0-9][A-Za-z0-9_.-]*";
    Regex::new(&format!(
        r"(?i)\(?\s*depends\s+on\s*[:：]?\s*{id}(?:\s*(?:,|，|、|&|\band\b)\s*{id})*\s*\)?"
    ))
    .ok()
});

/// spec-kit's open-question marker with the bracketed question it may carry.
static NEEDS_CLARIFICATION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\[NEEDS CLARIFICATION[^\]\n]*\]|NEEDS CLARIFICATION").ok());

/// A regex character class range such as `a-z`, `A-Z` or `0-9`.
static CLASS_RANGE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"a-z|A-Z|0-9|a-f|A-F").ok());

/// A label inside brackets: `P`, `US5a`, `FR-001`, `SEQUENTIAL`, `PARALLEL-GROUP-1`, `P?`.
static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)*[a-z]?\??|[0-9]+[a-z]?)$").ok()
});

/// A text hit: `(pattern, severity, matched text)`.
fn hits(text: &str) -> Vec<(&'static str, &'static str, String)> {
    let prose = prose(text);
    let mut out: Vec<(&'static str, &'static str, String)> = Vec::new();
    for p in PATTERNS.iter() {
        let found =
            p.re.find(&prose)
                .map(|m| m.as_str().to_string())
                .or_else(|| (p.name == "etc.").then(|| ellipsis(&prose)).flatten());
        if let Some(m) = found {
            out.push((p.name, p.severity, m));
        }
    }
    if let Some(ph) = placeholder(&prose) {
        out.push(("placeholder", "error", ph));
    }
    out
}

/// `...` closing an open-ended list: followed by nothing, a space or punctuation
/// (not `...rest` or `[...slug]`).
fn ellipsis(prose: &str) -> Option<String> {
    let mut from = 0;
    while let Some(i) = prose.get(from..).and_then(|r| r.find("...")) {
        let at = from + i;
        let before = prose.get(..at).and_then(|b| b.chars().next_back());
        let after = prose.get(at + 3..).and_then(|a| a.chars().next());
        let opens = matches!(before, Some('[' | '(' | '{'));
        // `...rest`, `.../x` and `"files..."` (a quoted string) are not lists.
        let spread =
            after.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '"' | '\''));
        if !opens && !spread {
            return Some("...".into());
        }
        from = at + 3;
    }
    None
}

/// The text as a reader takes it in: code spans, URLs, paths, file names and the
/// task's own `(depends on T1)` marker replaced by a space each.
pub(crate) fn prose(text: &str) -> String {
    let no_code = without_code_spans(text);
    let no_deps = match DEPENDS_MARKER.as_ref() {
        Some(re) => re.replace_all(&no_code, " "),
        None => Cow::Borrowed(no_code.as_str()),
    };
    without_paths(&no_deps)
}

/// Code spans (a backtick run up to the next run of the same length) replaced by a
/// space; an unclosed backtick stays as written.
fn without_code_spans(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        out.push_str(rest.get(..start).unwrap_or(""));
        let from = rest.get(start..).unwrap_or("");
        let run = from.bytes().take_while(|b| *b == b'`').count();
        let body = from.get(run..).unwrap_or("");
        match doc::find_closing_run(body, run) {
            Some(end) => {
                out.push(' ');
                rest = body.get(end + run..).unwrap_or("");
            }
            None => {
                out.push_str(from.get(..run).unwrap_or(""));
                rest = body;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Runs of ASCII non-space characters that are URLs, paths or file names, replaced
/// by a space. Other characters (CJK, `…`) end a run, so a path written against
/// Chinese text takes none of it along.
pub(crate) fn without_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut token_start: Option<usize> = None;
    let flush = |out: &mut String, token: &str| {
        if is_path_token(token) {
            out.push(' ');
        } else {
            out.push_str(token);
        }
    };
    for (i, c) in text.char_indices() {
        let in_token = c.is_ascii() && !c.is_ascii_whitespace();
        match (in_token, token_start) {
            (true, None) => token_start = Some(i),
            (false, Some(s)) => {
                flush(&mut out, text.get(s..i).unwrap_or(""));
                token_start = None;
                out.push(c);
            }
            (false, None) => out.push(c),
            (true, Some(_)) => {}
        }
    }
    if let Some(s) = token_start {
        flush(&mut out, text.get(s..).unwrap_or(""));
    }
    out
}

/// A URL, a path (`src/a.ts`, `docs/`, `./x`, `/etc/hosts`, `app/[slug]/page.tsx`) or
/// a file name with an extension (`TODO.md`, `todo.ts`).
fn is_path_token(token: &str) -> bool {
    let t = token
        .trim_start_matches(['(', '"', '\'', '<', '*', '_'])
        .trim_end_matches([',', ';', ':', '.', '!', '?', ')', '"', '\'', '>', '*', '_']);
    if t.contains("://") || t.starts_with("www.") {
        return true;
    }
    let has_ext = |seg: &str| {
        seg.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && !stem.ends_with('.')
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                && ext.bytes().any(|b| b.is_ascii_alphabetic())
                && stem.bytes().any(|b| b.is_ascii_alphanumeric())
        })
    };
    let slashes = t.matches('/').count();
    if slashes == 0 {
        // `e.g.`, `i.e.` and `etc.` have nothing after their last dot.
        let name_chars = t
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        return name_chars && has_ext(t);
    }
    let last = t.rsplit('/').next().unwrap_or("");
    t.starts_with(['/', '.', '~', '@'])
        || t.ends_with('/')
        || has_ext(last)
        || slashes >= 2
        || t.contains("/[")
        || t.contains("]/")
}

/// The first unfilled placeholder: `{{…}}` or a `[…]` that is not syntax.
fn placeholder(prose: &str) -> Option<String> {
    // spec-kit's marker for an open question, in brackets or not.
    if prose.contains("NEEDS CLARIFICATION") {
        if let Some(m) = NEEDS_CLARIFICATION.as_ref().and_then(|re| re.find(prose)) {
            return Some(m.as_str().to_string());
        }
    }
    // `${{ … }}` is a GitHub Actions expression, not a template slot.
    let mut from = 0;
    while let Some(i) = prose.get(from..).and_then(|r| r.find("{{")) {
        let start = from + i;
        let dollar = prose.get(..start).is_some_and(|b| b.ends_with('$'));
        if let Some(len) = prose.get(start..).and_then(|r| r.find("}}")) {
            if !dollar {
                return prose.get(start..start + len + 2).map(str::to_string);
            }
        }
        from = start + 2;
    }
    let mut from = 0;
    while let Some(i) = prose.get(from..).and_then(|r| r.find('[')) {
        let open = from + i;
        let after_open = prose.get(open + 1..)?;
        let close = after_open.find([']', '['])?;
        if after_open.get(close..).is_some_and(|r| r.starts_with(']')) {
            let inner = after_open.get(..close).unwrap_or("");
            let before = prose.get(..open).and_then(|b| b.chars().next_back());
            let rest = after_open.get(close + 1..).unwrap_or("");
            if bracket_is_placeholder(inner, before, rest) {
                return Some(format!("[{inner}]"));
            }
        }
        from = open + 1 + close;
    }
    None
}

/// Whether `[inner]`, with `before` the character before `[` and `rest` the text
/// after `]`, is an unfilled template placeholder (see the module doc).
pub(crate) fn bracket_is_placeholder(inner: &str, before: Option<char>, rest: &str) -> bool {
    let t = inner.trim();
    let lower = t.to_lowercase();
    // What only a template says.
    if t.contains("NEEDS CLARIFICATION")
        || t.contains("###")
        || ["e.g.", "e.g,", "eg.", "eg:", "例如", "如：", "比如"]
            .iter()
            .any(|p| lower.starts_with(p))
    {
        return true;
    }
    let chars = t.chars().count();
    if !(2..=80).contains(&chars) || !t.chars().any(char::is_alphabetic) {
        return false; // `[x]`, `[ ]`, `[P]`, `[1]`, `[1, 2]`
    }
    // Links, references and syntax written against the brackets.
    let after = rest.chars().next();
    let reference = after == Some(':') && rest.get(1..).is_some_and(|r| r.trim().is_empty());
    if matches!(after, Some('(' | '[')) || reference {
        return false; // [text](url), [text][ref], [ref]: url (the URL already set aside)
    }
    let glued = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.' | '$' | '@');
    if before.is_some_and(glued)
        || after.is_some_and(|c| c.is_alphanumeric() || c == '/' || c == '_')
    {
        return false; // list[User], passlib[bcrypt], min-h-[44px], [id]/route.ts
    }
    if after == Some('.') && rest.chars().nth(1).is_some_and(char::is_alphanumeric) {
        return false; // [slug].tsx
    }
    if t.starts_with(['.', '^', '!', '#', '-', '&', ':']) {
        return false; // [...nextauth], [^1], [!NOTE], [:alpha:]
    }
    if t.contains([
        '"', '\'', '`', '=', '<', '>', '{', '}', '(', ')', '\\', '|', '*', '$', '@', ';',
    ]) {
        return false; // [data-theme="dark"], ["a", "b"], Record<…>
    }
    if CLASS_RANGE.as_ref().is_some_and(|re| re.is_match(t)) && !t.contains(' ') {
        return false; // [a-z0-9_.-]
    }
    let Some(tag) = TAG.as_ref() else {
        return true;
    };
    // Labels and lists of labels: [US1+US5], [FR-001, FR-003], [EXECUTOR: MAIN].
    let items: Vec<&str> = t
        .split([',', '+', '/', '，', '、'])
        .map(str::trim)
        .collect();
    let is_tag = |s: &str| {
        tag.is_match(s)
            && !s
                .split(['-', '_', '.'])
                .any(|seg| seg.bytes().all(|b| b == b'X'))
    };
    if items.iter().all(|s| is_tag(s)) {
        return false;
    }
    if let Some((key, _)) = t.split_once([':', '：']) {
        if is_tag(key.trim()) && !key.trim().contains(' ') {
            return false;
        }
    }
    // Code: identifiers and lists of them (coding_task, tool.pytest.ini_options,
    // agents, setAgents); a route parameter (slug, id).
    let identifier = |s: &str| {
        let mut cs = s.chars();
        cs.next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    };
    if t.split([',', '，']).map(str::trim).all(identifier) {
        return false;
    }
    true
}

pub fn audit(tasks: &[Task], text: &str, audited_at: &str) -> ZeroDecisionAudit {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let format = super::detect_format(text);
    // Read only when a finding needs its line: a 10,000-task plan is ~70,000 lines.
    let lines: OnceCell<Vec<Line<'_>>> = OnceCell::new();
    let mut findings: Vec<AuditFinding> = Vec::new();
    let mut ambiguities: Vec<Value> = Vec::new();
    for t in tasks {
        // Done or skipped: the work is decided.
        if t.status.is_done() {
            continue;
        }
        let fields = [
            ("name", Some(t.name.as_str())),
            ("requirement", t.requirement.as_deref()),
            ("acceptance", t.acceptance.as_deref()),
        ];
        let mut seen: Vec<&str> = Vec::new();
        for (field, value) in fields {
            let Some(value) = value else { continue };
            for (pattern, severity, matched) in hits(value) {
                if seen.contains(&pattern) {
                    continue;
                }
                seen.push(pattern);
                findings.push(AuditFinding {
                    task_id: t.id.clone(),
                    pattern: pattern.to_string(),
                    description: format!(
                        "{field} contains {}: {}",
                        doc::shown(&matched),
                        explain(pattern)
                    ),
                    severity: severity.to_string(),
                    line: Some(locate(
                        lines.get_or_init(|| doc::lines(text)),
                        t,
                        format,
                        field,
                        pattern,
                    )),
                });
            }
        }
        let claude = format != Some(Format::SpecKit);
        // A task whose commands say what "done" means has decided what to do; one
        // whose steps or requirement say what to do is work for an agent.
        let has_commands = t.check_commands().next().is_some() || t.quality_gate;
        if claude && t.actions.is_empty() && !has_commands {
            if t.steps.is_empty() && t.requirement.is_none() {
                findings.push(finding(
                    t,
                    "missing actions",
                    "no actions, commands, steps or requirement: what to do is left to the executor",
                    "error",
                ));
            } else {
                findings.push(finding(
                    t,
                    "missing actions",
                    "no actions field: its steps or requirement say what to do, so an agent does it",
                    "warning",
                ));
            }
        }
        let names_file = t.file.is_some()
            || !t.creates.is_empty()
            || !t.modifies.is_empty()
            || !t.tests.is_empty();
        // A spec-kit line is its own requirement: the description says what to do;
        // so are a task's steps.
        if claude && !names_file && t.requirement.is_none() && t.steps.is_empty() {
            findings.push(finding(
                t,
                "no file and no requirement",
                "the task names no file and states no requirement",
                "warning",
            ));
        }
        for (key, value) in &t.extra {
            let lower = key.to_lowercase();
            if !(key.contains("约束") || lower.contains("constraint")) {
                continue;
            }
            let Some(v) = value.as_str() else { continue };
            for (pattern, severity, _) in hits(v) {
                ambiguities.push(json!({
                    "taskId": t.id, "field": key, "text": clip(v), "pattern": pattern, "severity": severity,
                }));
            }
        }
    }
    scan_text(text, &mut ambiguities);
    ZeroDecisionAudit {
        passed: !findings.iter().any(|f| f.severity == "error"),
        anti_patterns: findings,
        remaining_ambiguities: ambiguities,
        audited_at: Some(audited_at.to_string()),
        ..ZeroDecisionAudit::default()
    }
}

fn finding(t: &Task, pattern: &str, description: &str, severity: &str) -> AuditFinding {
    AuditFinding {
        task_id: t.id.clone(),
        pattern: pattern.to_string(),
        description: description.to_string(),
        severity: severity.to_string(),
        line: (t.line > 0).then_some(t.line),
    }
}

/// The line where `field` of `t` shows `pattern`: the first line of the field's
/// text that has it, else the field's first line, else the task's line.
fn locate(
    lines: &[Line<'_>],
    t: &Task,
    format: Option<Format>,
    field: &str,
    pattern: &str,
) -> usize {
    let own = field_lines(lines, t, format, field);
    own.iter()
        .find(|(_, text)| hits(text).iter().any(|h| h.0 == pattern))
        .or(own.first())
        .map_or(t.line, |(no, _)| *no)
}

/// `(line, text)` of the lines holding `field` of `t`.
fn field_lines<'a>(
    lines: &'a [Line<'a>],
    t: &Task,
    format: Option<Format>,
    field: &str,
) -> Vec<(usize, &'a str)> {
    let Some(head) = t.line.checked_sub(1).and_then(|i| lines.get(i)) else {
        return Vec::new();
    };
    if field == "name" {
        return vec![(head.no, &head.text)];
    }
    let block = lines
        .iter()
        .skip(t.line)
        .filter(|l| !l.hidden && l.comment.is_none());
    let mut out = Vec::new();
    if format == Some(Format::SpecKit) {
        for l in block {
            if doc::heading(&l.text).is_some() || speckit::is_task_line(&l.text) {
                break;
            }
            out.push((l.no, l.text.as_ref()));
        }
        return out;
    }
    let want = if field == "requirement" {
        Key::Requirement
    } else {
        Key::Acceptance
    };
    let mut inside = false;
    for l in block {
        let text: &str = &l.text;
        if doc::heading(text).is_some() || doc::is_rule(text) {
            break;
        }
        if let Some(f) = claude::field_line(text) {
            inside = fields::canon(f.key) == Some(want);
            if inside {
                out.push((l.no, f.value));
            }
        } else if inside && !text.trim().is_empty() {
            out.push((l.no, text));
        }
    }
    out
}

fn explain(pattern: &str) -> &'static str {
    match pattern {
        "TBD" | "TODO" | "待定" => "a decision is still open",
        "depends on" => "a condition the executor would have to decide; list task deps in 依赖",
        "placeholder" => "an unfilled template placeholder",
        "if needed" => "leaves it to the executor whether to do it",
        "etc." => "an open-ended list",
        "maybe" => "an undecided option",
        "appropriate" => "leaves the judgement to the executor",
        "FIXME" => "a known problem left in the plan",
        _ => "ambiguous",
    }
}

fn clip(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    one.chars().take(200).collect()
}

/// Constraint sections and placeholder task lines of the plan text.
fn scan_text(text: &str, out: &mut Vec<Value>) {
    let mut section: Option<usize> = None;
    for line in doc::iter(text) {
        if line.hidden {
            continue;
        }
        let t: &str = &line.text;
        if let Some((level, h)) = doc::heading(t) {
            let lower = h.to_lowercase();
            if section.is_some_and(|l| level <= l) {
                section = None;
            }
            if h.contains("约束") || lower.starts_with("constraint") {
                section = Some(level);
            }
            continue;
        }
        if speckit::placeholder_task(t) {
            out.push(json!({
                "line": line.no, "text": clip(t), "pattern": "placeholder task id", "severity": "warning",
            }));
            continue;
        }
        if section.is_some() && !t.trim().is_empty() {
            for (pattern, severity, _) in hits(t) {
                out.push(json!({
                    "line": line.no, "text": clip(t), "pattern": pattern, "severity": severity,
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::parse;
    use proptest::prelude::*;
    use std::path::Path;

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(PATTERNS.len(), SOURCES.len());
        assert!(DEPENDS_MARKER.is_some() && CLASS_RANGE.is_some() && TAG.is_some());
        assert!(NEEDS_CLARIFICATION.is_some());
    }

    fn names(text: &str) -> Vec<&'static str> {
        hits(text).into_iter().map(|h| h.0).collect()
    }

    #[test]
    fn word_boundaries() {
        assert_eq!(names("TODO: fix"), vec!["TODO"]);
        assert!(names("src/todos/list.ts").is_empty());
        assert!(names("a todo list").is_empty());
        assert!(names("TXXX docs").is_empty());
        assert_eq!(names("maybe later"), vec!["maybe"]);
        assert!(names("maybelline").is_empty());
        assert_eq!(names("Create [Entity1] model"), vec!["placeholder"]);
        assert_eq!(names("{{this.name}}"), vec!["placeholder"]);
        assert!(names("see [docs](http://x) and [x] and [P] [US1] [1]").is_empty());
        assert_eq!(names("[NEEDS CLARIFICATION: db?]"), vec!["placeholder"]);
        assert_eq!(names("接口待确认"), vec!["待定"]);
        assert_eq!(names("it Depends On the db"), vec!["depends on"]);
        assert_eq!(
            names("样式适当调整，如有必要"),
            vec!["if needed", "appropriate"]
        );
        assert_eq!(names("a, b, etc."), vec!["etc."]);
        assert_eq!(names("HACK around"), vec!["FIXME"]);
    }

    /// Text that is code, a path, a type, CSS, a template inside code, a regex class,
    /// JSON or a label: never a finding.
    #[test]
    fn syntax_is_not_a_placeholder() {
        for text in [
            "Create src/app/api/venues/[id]/route.ts",
            "Add app/api/auth/[...nextauth]/route.ts",
            "Add the [...nextauth] handler",
            "Catch-all [[...slug]] page",
            "Blog page at app/blog/[slug]/page.tsx",
            "Render pages/[slug].tsx",
            "Route /posts/[slug]",
            "Dynamic [slug] segment",
            "Return list[User] from the repo",
            "Install passlib[bcrypt]",
            "Map Record<string, T> values",
            "Buttons are min-h-[44px]",
            "Style [data-theme=\"dark\"] overrides",
            "Handles are [a-z0-9_.-] only",
            "Defaults to [\"a\", \"b\"]",
            "[US5a] Filter venues",
            "[US1+US5] Shared header",
            "[US1+2+3] Polish",
            "[P] [US1] Model",
            "[FR-001, FR-003] Validation",
            "[SEQUENTIAL] [EXECUTOR: MAIN] Migrate",
            "[PARALLEL-GROUP-1] Lint",
            "[P?] Lint",
            "Set [tool.pytest.ini_options] in pyproject",
            "Use const [agents, setAgents] = useState()",
            "Show `{{.Size}}` in the listing",
            "Template `{{ user.name }}` rendered",
            "Write `TODO.md` and `todo.ts`",
            "Keep TODO.md up to date",
            "Edit src/todo.ts",
            "Fix docs/TODO/notes.md",
            "See https://example.com/TBD/page?x=[a]",
            "Tests in tests/contract/test_[name].py",
            "Regex `^[a-z]+$` only",
            "Spread ...rest into props",
            "Footnote[^1] and [^2]",
            "Array [1, 2, 3]",
            "Checkbox [ ] and [x]",
            "[docs]: https://example.com/docs",
            "Build T004 (depends on T003)",
            "Build T004 (depends on T002, T003)",
            "Build T004 (Depends on: T002 and T003)",
            "Build 用户页 (depends on T003、T004)",
            // From real plans (the corpus of issue 13).
            "[US2/US3] Create the release workflow",
            "[SEC] Add .gitignore patterns",
            "[P4] Security Center",
            "Return `SettingsResponse` (settings: dict[str, str])",
            "Return tuple[bool, str | None] from run",
            "Pin crewai[litellm]>=0.100.0",
            "Set collectionBehavior [.canJoinAllSpaces, .stationary]",
            "Widen the regex to [0-9A-Za-z.-]",
            "Write PLAN_[TASK_ID].md files",
            "writes to /Plans/PLAN_[TASK_ID].md",
            "`ok()` prints `[OK]     `, `info()` prints `[INFO]   `",
            "quickstart S6) — depends on T011, T012.",
            "Verify https://drowl.test (requires /etc/hosts entry)",
            "Configure log rotation in /etc/logrotate.d/caddy",
            "PROGRESS (corrected), `docs-app/.../guides/data.md`",
            "Push with --api-key ${{ secrets.GITHUB_TOKEN }}",
            "Push `dotnet nuget push --source\nhttps://x/index.json --api-key ${{ s.T }}\n--skip-duplicate` then",
            "print \"Watching {path} for new files...\"",
            "Use `docker inspect --format '{{.State.Health.Status}}'`",
            "Add `test-runner` (docker `depends_on: web`)",
        ] {
            assert!(hits(text).is_empty(), "{text:?} gave {:?}", hits(text));
        }
    }

    #[test]
    fn template_placeholders_are() {
        for (text, matched) in [
            ("Feature [FEATURE NAME]", "[FEATURE NAME]"),
            ("Branch [###-feature-name]", "[###-feature-name]"),
            ("Use [e.g., Python 3.11]", "[e.g., Python 3.11]"),
            ("Store [NEEDS CLARIFICATION]", "[NEEDS CLARIFICATION]"),
            (
                "Auth [NEEDS CLARIFICATION: OAuth?]",
                "[NEEDS CLARIFICATION: OAuth?]",
            ),
            ("Store sessions: NEEDS CLARIFICATION", "NEEDS CLARIFICATION"),
            ("[Entity1]: add the model", "[Entity1]"),
            ("Render {{title}} here", "{{title}}"),
            ("Create [Entity1] model", "[Entity1]"),
            ("Test for [user journey]", "[user journey]"),
            ("Implement [endpoint/feature]", "[endpoint/feature]"),
            ("Covers [FR-XXX]", "[FR-XXX]"),
            (
                "[Brief description of what this story delivers]",
                "[Brief description of what this story delivers]",
            ),
        ] {
            let h = hits(text);
            assert!(
                h.iter()
                    .any(|(p, _, m)| *p == "placeholder" && m == matched),
                "{text:?} gave {h:?}"
            );
        }
    }

    #[test]
    fn open_decisions_outside_code_still_count() {
        assert_eq!(names("TODO: pick `todo.ts` or `list.ts`"), vec!["TODO"]);
        assert_eq!(names("`x` depends on the db"), vec!["depends on"]);
        assert_eq!(names("depends on whether T3 ships"), vec!["depends on"]);
        assert_eq!(names("one, two, ..."), vec!["etc."]);
        assert_eq!(names("TBD/TODO"), vec!["TBD", "TODO"]);
        assert_eq!(names("修改src/api/user.ts，待定"), vec!["待定"]);
    }

    proptest! {
        /// Whatever is written inside backticks, the text around it decides.
        #[test]
        fn text_in_backticks_never_counts(code in "[^`\n]{1,60}") {
            prop_assert!(hits(&format!("`{code}`")).is_empty(), "{:?}", hits(&format!("`{code}`")));
            let text = format!("Write `{code}` now, then ``{code}`` too");
            prop_assert!(hits(&text).is_empty(), "{text:?} gave {:?}", hits(&text));
        }
    }

    #[test]
    fn findings_and_passed() {
        let text = "# P\n\n## 约束\n\n- 性能可能需要优化\n- 使用 PostgreSQL\n\n## T1: Add TODO list\n- **需求**: maybe\n- **文件**: a.ts\n\n## T2: Clean\n- **actions**: edit_file\n";
        let plan = parse(Path::new("p.md"), text).unwrap();
        let a = audit(&plan.tasks, text, "2026-01-01T00:00:00Z");
        assert!(!a.passed);
        let got: Vec<(&str, &str, &str, Option<usize>)> = a
            .anti_patterns
            .iter()
            .map(|f| {
                (
                    f.task_id.as_str(),
                    f.pattern.as_str(),
                    f.severity.as_str(),
                    f.line,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("T1", "TODO", "error", Some(8)),
                ("T1", "maybe", "warning", Some(9)),
                ("T1", "missing actions", "warning", Some(8)),
                ("T2", "no file and no requirement", "warning", Some(12)),
            ]
        );
        assert_eq!(a.remaining_ambiguities.len(), 1);
        assert_eq!(a.remaining_ambiguities[0]["line"], 5);
        assert_eq!(a.remaining_ambiguities[0]["pattern"], "maybe");
        assert_eq!(a.audited_at.as_deref(), Some("2026-01-01T00:00:00Z"));
    }

    #[test]
    fn a_finding_names_the_line_of_its_field() {
        let text = "## T1: Store\n- **actions**: edit_file\n- **文件**: a.ts\n- **需求**: keep it\n  simple, maybe cached\n- **验收**: TBD\n";
        let plan = parse(Path::new("p.md"), text).unwrap();
        let a = audit(&plan.tasks, text, "t");
        let got: Vec<(&str, Option<usize>)> = a
            .anti_patterns
            .iter()
            .map(|f| (f.pattern.as_str(), f.line))
            .collect();
        assert_eq!(got, vec![("maybe", Some(5)), ("TBD", Some(6))]);
    }

    #[test]
    fn done_tasks_are_not_audited() {
        let text = "## Phase 1\n- [x] T001 TODO decide db\n- [ ] T002 Skip it — DEFERRED maybe later\n- [ ] T003 Write src/a.py\n";
        let plan = parse(Path::new("p.md"), text).unwrap();
        let a = audit(&plan.tasks, text, "t");
        assert!(a.anti_patterns.is_empty(), "{:?}", a.anti_patterns);
    }

    #[test]
    fn agent_work_without_actions_is_a_warning() {
        let text = "## T1: Plan\n- **步骤**:\n  - A1: 生成工件 → 输出 spec（验证：存在）\n\n## T2: Bare\n- **文件**: a.ts\n";
        let plan = parse(Path::new("p.md"), text).unwrap();
        let a = audit(&plan.tasks, text, "t");
        let got: Vec<(&str, &str, &str)> = a
            .anti_patterns
            .iter()
            .map(|f| (f.task_id.as_str(), f.pattern.as_str(), f.severity.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("T1", "missing actions", "warning"),
                ("T2", "missing actions", "error"),
            ]
        );
    }

    #[test]
    fn speckit_has_no_actions_check() {
        let text = "## Phase 1: Setup\n- [ ] T001 Create src/app.py\n- [ ] TXXX Polish\n";
        let plan = parse(Path::new("p.md"), text).unwrap();
        let a = audit(&plan.tasks, text, "now");
        assert!(a.passed, "{:?}", a.anti_patterns);
        assert!(a.anti_patterns.is_empty());
        assert_eq!(a.remaining_ambiguities[0]["pattern"], "placeholder task id");
    }
}
