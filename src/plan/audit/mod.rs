//! The zero-decision audit: does the plan leave decisions open? The patterns, their
//! severities and where findings go are in docs/plans.md "Zero-decision audit".
//!
//! A task is read as a person reads markdown: what is not prose (code spans, URLs,
//! file paths and names, the task's own `(depends on T003)`) is set aside before
//! any pattern is searched (`audit::prose`), so `TODO.md` or
//! `src/app/api/venues/[id]/route.ts` is no finding. Completed and skipped tasks
//! are decided work and are not audited.

mod placeholder;
mod prose;

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Value};

use super::claude;
use super::doc::{self, Line};
use super::fields::{self, Key};
use super::{speckit, Format};
use crate::state::model::{AuditFinding, Task, ZeroDecisionAudit};

use placeholder::placeholder;
pub(crate) use prose::{prose, without_paths};

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

/// Every pattern as one alternation: it matches a text exactly when one of
/// [`PATTERNS`] does (each keeps its own flags in its group). Most fields match
/// none, and one search then stands for nine on a large plan.
static ANY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let alternation: Vec<String> = SOURCES
        .iter()
        .map(|(_, _, src)| format!("(?:{src})"))
        .collect();
    Regex::new(&alternation.join("|")).ok()
});

/// A text hit: `(pattern, severity, matched text)`.
fn hits(text: &str) -> Vec<(&'static str, &'static str, String)> {
    let prose = prose(text);
    let mut out: Vec<(&'static str, &'static str, String)> = Vec::new();
    let any = ANY.as_ref().is_none_or(|re| re.is_match(&prose));
    for p in PATTERNS.iter() {
        let found = any
            .then(|| p.re.find(&prose))
            .flatten()
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

pub fn audit(tasks: &[Task], text: &str, audited_at: &str) -> ZeroDecisionAudit {
    audit_as(tasks, text, super::detect_format(text), audited_at)
}

/// [`audit`] of a plan whose format is known (a parsed plan's): the text is not
/// read a second time to detect it.
pub fn audit_as(
    tasks: &[Task],
    text: &str,
    format: Option<Format>,
    audited_at: &str,
) -> ZeroDecisionAudit {
    let mut auditor = Auditor::new(text, format);
    for t in tasks {
        auditor.task(t);
    }
    auditor.finish(audited_at)
}

/// The audit a task at a time, in plan order, for an import that does not hold
/// every task at once (`plan::Outline`): [`audit_as`] is its loop.
pub struct Auditor<'a> {
    text: &'a str,
    format: Option<Format>,
    // Read only when a finding needs its line, a task's block at a time: a large
    // plan's lines held at once would grow with it.
    blocks: Blocks<'a>,
    findings: Vec<AuditFinding>,
    ambiguities: Vec<Value>,
}

impl<'a> Auditor<'a> {
    pub fn new(text: &'a str, format: Option<Format>) -> Auditor<'a> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Auditor {
            text,
            format,
            blocks: Blocks::new(text, format),
            findings: Vec::new(),
            ambiguities: Vec::new(),
        }
    }

    /// Audits the plan's next task.
    pub fn task(&mut self, t: &Task) {
        let (format, blocks) = (self.format, &mut self.blocks);
        let (findings, ambiguities) = (&mut self.findings, &mut self.ambiguities);
        // Done or skipped: the work is decided.
        if t.status.is_done() {
            return;
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
                    line: Some(locate(blocks.of(t.line), t, format, field, pattern)),
                });
            }
        }
        let claude = format.is_none_or(Format::writes_fields);
        // A task whose commands say what "done" means has decided what to do; one
        // whose steps or requirement say what to do is work for an agent.
        let has_commands = t.check_commands().next().is_some() || t.quality_gate;
        if claude && t.actions.is_empty() && !has_commands {
            let (why, severity) = if t.steps.is_empty() && t.requirement.is_none() {
                ("no actions, commands, steps or requirement: what to do is left to the executor", "error")
            } else {
                ("no actions field: its steps or requirement say what to do, so an agent does it", "warning")
            };
            findings.push(finding(t, "missing actions", why, severity));
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

    /// The audit of the tasks given, and of the plan's text.
    pub fn finish(mut self, audited_at: &str) -> ZeroDecisionAudit {
        scan_text(self.text, &mut self.ambiguities);
        ZeroDecisionAudit {
            passed: !self.findings.iter().any(|f| f.severity == "error"),
            anti_patterns: self.findings,
            remaining_ambiguities: self.ambiguities,
            audited_at: Some(audited_at.to_string()),
            ..ZeroDecisionAudit::default()
        }
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

/// The plan's lines a task's block at a time. Tasks are audited in plan order, so
/// one pass over the text serves every finding; a block asked for before the last
/// one read starts the pass again.
struct Blocks<'a> {
    text: &'a str,
    format: Option<Format>,
    lines: std::iter::Peekable<doc::Lines<'a>>,
    /// The last block read, from its task's line.
    block: Vec<Line<'a>>,
}

impl<'a> Blocks<'a> {
    fn new(text: &'a str, format: Option<Format>) -> Blocks<'a> {
        Blocks {
            text,
            format,
            lines: doc::iter(text).peekable(),
            block: Vec::new(),
        }
    }

    /// The lines of the task whose heading or task line is line `head`, up to the
    /// line that ends its text (not included); none when there is no such line.
    fn of(&mut self, head: usize) -> &[Line<'a>] {
        if self.block.first().is_some_and(|l| l.no == head) {
            return &self.block;
        }
        if self.lines.peek().is_none_or(|l| l.no > head) {
            self.lines = doc::iter(self.text).peekable();
        }
        while self.lines.next_if(|l| l.no < head).is_some() {}
        self.block.clear();
        if let Some(first) = self.lines.next_if(|l| l.no == head) {
            self.block.push(first);
            let format = self.format;
            while let Some(line) = self.lines.next_if(|l| !ends_block(l, format)) {
                self.block.push(line);
            }
        }
        &self.block
    }
}

/// Whether `line` ends the text of the task before it: a heading; in a spec-kit plan
/// the next task line, in a claude-workflow one a rule.
fn ends_block(line: &Line<'_>, format: Option<Format>) -> bool {
    let text: &str = &line.text;
    if line.hidden || line.comment.is_some() {
        return false;
    }
    doc::heading(text).is_some()
        || match format {
            Some(f) if !f.writes_fields() => f.reader().starts_task(text),
            _ => doc::is_rule(text),
        }
}

/// The line where `field` of `t` shows `pattern`: the first line of the field's
/// text that has it, else the field's first line, else the task's line. `block` is
/// the task's ([`Blocks::of`]).
fn locate(
    block: &[Line<'_>],
    t: &Task,
    format: Option<Format>,
    field: &str,
    pattern: &str,
) -> usize {
    let own = field_lines(block, format, field);
    own.iter()
        .find(|(_, text)| hits(text).iter().any(|h| h.0 == pattern))
        .or(own.first())
        .map_or(t.line, |(no, _)| *no)
}

/// `(line, text)` of the lines holding `field` of the task whose `block` it is.
fn field_lines<'a>(
    block: &'a [Line<'a>],
    format: Option<Format>,
    field: &str,
) -> Vec<(usize, &'a str)> {
    let Some((head, rest)) = block.split_first() else {
        return Vec::new();
    };
    if field == "name" {
        return vec![(head.no, &head.text)];
    }
    let rest = rest.iter().filter(|l| !l.hidden && l.comment.is_none());
    let mut out = Vec::new();
    if format.is_some_and(|f| !f.writes_fields()) {
        return rest.map(|l| (l.no, l.text.as_ref())).collect();
    }
    let want = if field == "requirement" {
        Key::Requirement
    } else {
        Key::Acceptance
    };
    let mut inside = false;
    for l in rest {
        let text: &str = &l.text;
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
        "depends on" => {
            "a condition the executor would have to decide; list task deps in a Depends field"
        }
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
mod tests;
