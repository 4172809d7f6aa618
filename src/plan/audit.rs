//! The zero-decision audit (DESIGN.md §3): does the plan leave decisions open?
//!
//! Each task's name, requirement and acceptance are searched for these patterns
//! (English words match whole words only, so `todos/` in a path or `maybe` inside
//! another word do not count; the upper-case markers are case sensitive):
//!
//! | pattern | severity | matches |
//! |---|---|---|
//! | `TBD` | error | the word `TBD` |
//! | `TODO` | error | the word `TODO` |
//! | `待定` | error | 待定, 待确认, 待讨论 |
//! | `depends on` | error | "depends on" (any case), 取决于 — a condition, not a 依赖 entry |
//! | `placeholder` | error | an unfilled `[…]` such as `[NEEDS CLARIFICATION]`, `[language]`, `[Entity1]` (not a link, `[x]`, `[P]`, `[US1]` or `[1]`), or `{{…}}` |
//! | `missing actions` | error | a claude-workflow task without `actions` (spec-kit tasks have none by design) |
//! | `if needed` | warning | if needed, if necessary, as needed, when needed, 如果需要, 如有必要, 必要时, 视情况 |
//! | `etc.` | warning | etc, 等等, …, ... |
//! | `maybe` | warning | maybe, perhaps, possibly, 可能, 或许, 也许 |
//! | `appropriate` | warning | appropriate(ly), 适当 |
//! | `FIXME` | warning | the words FIXME, XXX, HACK |
//! | `no file and no requirement` | warning | a claude-workflow task naming no file (file, creates, modifies, tests) and no requirement |
//!
//! One finding per task and pattern. Lines under a constraints section of the plan
//! (a heading containing 约束 or starting with "Constraints") and task fields whose
//! name contains 约束 or "constraint" are searched for the same text patterns; hits go
//! to `remainingAmbiguities` as `{line, text, pattern, severity}` (or `{taskId, field,
//! …}`), as do spec-kit placeholder task lines such as `- [ ] TXXX …`, which are not
//! imported. `passed` is false when any finding is an error.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Value};

use super::{doc, speckit, Format};
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
    ("etc.", "warning", r"(?i)\betc\b|等等|…|\.\.\."),
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

/// A text hit: `(pattern, severity, matched text)`.
fn hits(text: &str) -> Vec<(&'static str, &'static str, String)> {
    let mut out: Vec<(&'static str, &'static str, String)> = PATTERNS
        .iter()
        .filter_map(|p| {
            p.re.find(text)
                .map(|m| (p.name, p.severity, m.as_str().to_string()))
        })
        .collect();
    if let Some(ph) = placeholder(text) {
        out.push(("placeholder", "error", ph));
    }
    out
}

/// The first unfilled placeholder: `{{…}}` or a `[…]` that is not markdown syntax.
fn placeholder(text: &str) -> Option<String> {
    if let Some(start) = text.find("{{") {
        if let Some(len) = text.get(start..).and_then(|r| r.find("}}")) {
            return text.get(start..start + len + 2).map(str::to_string);
        }
    }
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = rest.get(open + 1..)?;
        let close = after.find([']', '['])?;
        let inner = after.get(..close)?;
        let next = after.get(close..)?;
        if next.starts_with(']') {
            let follow = next.get(1..).unwrap_or("");
            let is_link = follow.starts_with('(') || follow.starts_with('[');
            if !is_link && is_placeholder_text(inner) {
                return Some(format!("[{inner}]"));
            }
        }
        rest = after.get(close..)?;
    }
    None
}

fn is_placeholder_text(inner: &str) -> bool {
    let t = inner.trim();
    let chars = t.chars().count();
    if chars == 0 || chars > 60 || t.contains('\n') {
        return false;
    }
    let story = t.len() > 2
        && t.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("us"))
        && t.bytes().skip(2).all(|b| b.is_ascii_digit());
    let markdown = chars == 1 || t.bytes().all(|b| b.is_ascii_digit()) || t.starts_with('^');
    !story && !markdown && t.chars().any(char::is_alphabetic)
}

pub fn audit(tasks: &[Task], text: &str, audited_at: &str) -> ZeroDecisionAudit {
    let format = super::detect_format(text);
    let mut findings: Vec<AuditFinding> = Vec::new();
    let mut ambiguities: Vec<Value> = Vec::new();
    for t in tasks {
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
                });
            }
        }
        // A task whose commands say what "done" means has decided what to do.
        let has_commands = t.check_commands().next().is_some() || t.quality_gate;
        if format != Some(Format::SpecKit) && t.actions.is_empty() && !has_commands {
            findings.push(finding(
                t,
                "missing actions",
                "no actions field: what to do is left to the executor",
                "error",
            ));
        }
        let names_file = t.file.is_some()
            || !t.creates.is_empty()
            || !t.modifies.is_empty()
            || !t.tests.is_empty();
        // A spec-kit line is its own requirement: the description says what to do.
        if !names_file && t.requirement.is_none() && format != Some(Format::SpecKit) {
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
    }
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
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
    use std::path::Path;

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(PATTERNS.len(), SOURCES.len());
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

    #[test]
    fn findings_and_passed() {
        let text = "# P\n\n## 约束\n\n- 性能可能需要优化\n- 使用 PostgreSQL\n\n## T1: Add TODO list\n- **需求**: maybe\n- **文件**: a.ts\n\n## T2: Clean\n- **actions**: edit_file\n";
        let plan = parse(Path::new("p.md"), text).unwrap();
        let a = audit(&plan.tasks, text, "2026-01-01T00:00:00Z");
        assert!(!a.passed);
        let got: Vec<(&str, &str, &str)> = a
            .anti_patterns
            .iter()
            .map(|f| (f.task_id.as_str(), f.pattern.as_str(), f.severity.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("T1", "TODO", "error"),
                ("T1", "maybe", "warning"),
                ("T1", "missing actions", "error"),
                ("T2", "no file and no requirement", "warning"),
            ]
        );
        assert_eq!(a.remaining_ambiguities.len(), 1);
        assert_eq!(a.remaining_ambiguities[0]["line"], 5);
        assert_eq!(a.remaining_ambiguities[0]["pattern"], "maybe");
        assert_eq!(a.audited_at.as_deref(), Some("2026-01-01T00:00:00Z"));
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
