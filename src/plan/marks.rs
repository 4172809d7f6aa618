//! How a checkbox plan marks a task's status besides `[ ]` and `[x]`: the mark in
//! the box as the plan's legend defines it, and a deferral written in prose on the
//! task's line — shared by spec-kit and the checklist formats. The marks are in
//! docs/plans.md "spec-kit", the deferrals in "Deferrals in prose".
//!
//! A word in running prose (`add deferred loading`) does not defer: only a bracketed
//! note, a marker, a deferring phrase (`not required for MVP`) or a strike-through.

use std::sync::LazyLock;

use regex::Regex;

use crate::state::machine::TaskStatus;

/// What each mark in a box means for this plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Legend {
    /// Marks the plan's legend defined, in the order met (a later one wins).
    defined: Vec<(char, TaskStatus)>,
    /// What `-` means when no legend says: skipped (spec-kit), in progress (Kiro).
    dash: TaskStatus,
}

impl Default for Legend {
    fn default() -> Self {
        Legend::with(TaskStatus::Skipped)
    }
}

impl Legend {
    /// The default legend, `-` meaning `dash`.
    pub(crate) fn with(dash: TaskStatus) -> Legend {
        Legend {
            defined: Vec::new(),
            dash,
        }
    }

    /// The status a box with `mark` shows.
    pub(crate) fn status(&self, mark: char) -> TaskStatus {
        if let Some((_, s)) = self.defined.iter().rev().find(|(m, _)| *m == mark) {
            return *s;
        }
        match mark {
            ' ' => TaskStatus::Pending,
            'x' | 'X' => TaskStatus::Completed,
            '~' | '/' => TaskStatus::InProgress,
            '-' => self.dash,
            _ => TaskStatus::Skipped,
        }
    }

    /// Reads `text` (a line that is not a task) as a legend line, learning the marks
    /// it defines: each `[c]` followed by a status word. Cheap when the line has no
    /// box: most lines of a plan.
    pub(crate) fn learn(&mut self, text: &str) {
        if !text.contains('[') {
            return;
        }
        let Some(re) = LEGEND_RE.as_ref() else {
            return;
        };
        for c in re.captures_iter(text) {
            let (Some(mark), Some(word)) = (c.get(1), c.get(2)) else {
                continue;
            };
            let Some(mark) = mark.as_str().chars().next() else {
                continue;
            };
            if let Some(s) = legend_word(word.as_str()) {
                if matches!(mark, ' ' | 'x' | 'X') && s != self.status(mark) {
                    // `[x] = skipped` is a typo or a joke; the box means what it means.
                    continue;
                }
                self.defined.push((mark, s));
            }
        }
    }
}

/// `[~] = deferred`, `[-] in progress`, `` `[/]`: doing ``: a box, an optional
/// separator, a status word.
static LEGEND_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)`?\[([^\[\]\w\s]| )\]`?\s*(?:\*\*)?\s*(?:=|:|-|–|—|→|->|means|is)?\s*(?:\*\*)?\s*([A-Za-z][A-Za-z /_-]{1,24})",
    )
    .ok()
});

/// The status a legend's word names.
fn legend_word(word: &str) -> Option<TaskStatus> {
    let w = word.trim().to_ascii_lowercase();
    let starts = |p: &[&str]| p.iter().any(|x| w.starts_with(x));
    if starts(&[
        "in progress",
        "in-progress",
        "in_progress",
        "wip",
        "doing",
        "started",
        "partial",
        "ongoing",
        "working",
    ]) {
        Some(TaskStatus::InProgress)
    } else if starts(&[
        "skip",
        "defer",
        "cancel",
        "not applicable",
        "n/a",
        "won't",
        "wont",
        "dropped",
        "obsolete",
        "out of scope",
        "postponed",
        "not needed",
    ]) {
        Some(TaskStatus::Skipped)
    } else if starts(&["done", "complete", "finished"]) {
        Some(TaskStatus::Completed)
    } else if starts(&["blocked"]) {
        Some(TaskStatus::Blocked)
    } else if starts(&["todo", "to do", "pending", "not started", "open"]) {
        Some(TaskStatus::Pending)
    } else {
        None
    }
}

/// A deferral written on a task line: the span to cut from its name (`None` when
/// the text stays the name: a strike-through, a phrase in the sentence).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deferral {
    pub span: Option<(usize, usize)>,
}

/// A word every deferral below holds (a literal search, cheap on every task line).
static ANY_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)skip|defer|cancel|won'?t|scope|not required|not needed|applicable|n/a|postpone|supersed|obsolete|covered|report|not measured|not documented|not implemented|延后|暂缓|本次未实现|暂不实现",
    )
    .ok()
});

/// A bracketed note that defers: `(SKIPPED - …)`, `[DEFERRED: …]`, `(covered by
/// T012)`, `（本次未实现）`, to its closing bracket.
static NOTE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)[(\[（【]\s*(?:\*\*)?\s*(?:skipped|deferred|cancell?ed|won'?t do|out of scope|not required|not needed|not applicable|n/a|postponed|superseded|obsolete|covered|protected file\s*[-–—:]\s*skipped|report[ée]|延后|暂缓|本次未实现)[^)\]）】]*[)\]）】]",
    )
    .ok()
});

/// A marker in capitals after a separator, to the end of the line: ` — DEFERRED`,
/// `→ DEFERRED (…)`, `: N/A (manual)`, `**DEFERRED to US3**`, `NOT MEASURED`.
static MARKER_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:(?:^|[\s:—–>(\[*]|--|->|=>)\s*(?:\*\*)?(?:DEFERRED|SKIPPED|SUPERSEDED|CANCELL?ED|OBSOLETE|WON'T DO|OUT OF SCOPE|NOT (?:REQUIRED|NEEDED|MEASURED|DOCUMENTED|IMPLEMENTED|APPLICABLE))|(?:^|[:—–(\[]|--|->|=>)\s*(?:\*\*)?N/A)\b",
    )
    .ok()
});

/// spec-kit's own marker in any case after a dash or an arrow (` — DEFERRED`, which
/// the mirror writes; ` - Deferred`, `→ deferred`), to the end of the line.
static DASHED_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|\s)(?:—|–|--|-|→|->|=>)\s*(?:\*\*)?deferred\b").ok());

/// Phrases that defer: anywhere in the sentence, or (`reporté à`, "postponed to")
/// after a separator, not inside a note about something else.
static PHRASE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)not required for (?:the )?mvp|(?:^|[—–:]|\s-|\*\*)\s*(?:\*\*)?report[ée] à|本次未实现|暂不实现").ok()
});

/// The deferral `desc` (a task's text after its id) writes, if any: a bracketed
/// note, a marker, a phrase, or a strike-through (of the whole text, of its start,
/// of a word that says so; `id_struck`: of the task's id).
pub(crate) fn deferral(desc: &str, id_struck: bool) -> Option<Deferral> {
    if id_struck || struck_deferral(desc) {
        return Some(Deferral { span: None });
    }
    // Most task lines hold none of the words: one literal search says so.
    if !ANY_RE.as_ref().is_some_and(|re| re.is_match(desc)) {
        return None;
    }
    if let Some(m) = NOTE_RE.as_ref().and_then(|re| re.find(desc)) {
        return Some(Deferral {
            span: Some((m.start(), m.end())),
        });
    }
    let marker = [&MARKER_RE, &DASHED_RE]
        .into_iter()
        .filter_map(|re| re.as_ref()?.find(desc))
        .min_by_key(regex::Match::start);
    if let Some(m) = marker {
        // From the separator before the marker to the end: the note that follows it
        // is the marker's.
        return Some(Deferral {
            span: Some((m.start(), desc.len())),
        });
    }
    PHRASE_RE
        .as_ref()
        .and_then(|re| re.find(desc))
        .map(|_| Deferral { span: None })
}

/// Struck-through text that defers: the whole of `desc`, its start (after its
/// bracket tags), or a span that is a marker (`~~SUPERSEDED~~`).
fn struck_deferral(desc: &str) -> bool {
    if !desc.contains("~~") {
        return false;
    }
    if unstruck(desc.trim()).1 {
        return true;
    }
    let mut rest = desc.trim_start();
    while let Some(r) = rest.strip_prefix('[') {
        match r.find(']') {
            Some(close) => rest = r.get(close + 1..).unwrap_or("").trim_start(),
            None => break,
        }
    }
    if rest.starts_with("~~") {
        return true;
    }
    desc.split("~~").skip(1).step_by(2).any(|inner| {
        let w = inner.trim().trim_matches('*').to_ascii_uppercase();
        [
            "SUPERSEDED",
            "DELETED",
            "REMOVED",
            "OBSOLETE",
            "DEFERRED",
            "SKIPPED",
            "CANCELLED",
            "CANCELED",
            "DROPPED",
        ]
        .contains(&w.as_str())
    })
}

/// `s` without its span `(a, b)`, the text either side joined by one space.
pub(crate) fn without_span(s: &str, (a, b): (usize, usize)) -> Option<String> {
    let before = s.get(..a)?.trim_end();
    let after = s.get(b..)?.trim_start();
    Some(if after.is_empty() {
        before.to_string()
    } else {
        format!("{before} {after}")
    })
}

/// `s` without a strike-through around it (`~~T012~~` → `T012`).
pub(crate) fn unstruck(s: &str) -> (&str, bool) {
    match s.strip_prefix("~~").and_then(|r| r.strip_suffix("~~")) {
        Some(inner) if !inner.is_empty() && !inner.contains("~~") => (inner, true),
        _ => (s, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_and_legends() {
        let mut l = Legend::default();
        assert_eq!(l.status(' '), TaskStatus::Pending);
        assert_eq!(l.status('X'), TaskStatus::Completed);
        assert_eq!(l.status('~'), TaskStatus::InProgress);
        assert_eq!(l.status('-'), TaskStatus::Skipped);
        assert_eq!(
            Legend::with(TaskStatus::InProgress).status('-'),
            TaskStatus::InProgress
        );
        l.learn("Legend: `[ ]` todo, `[~]` = deferred, [-] in progress, [!] blocked");
        assert_eq!(l.status('~'), TaskStatus::Skipped);
        assert_eq!(l.status('-'), TaskStatus::InProgress);
        assert_eq!(l.status('!'), TaskStatus::Blocked);
        assert_eq!(l.status(' '), TaskStatus::Pending);
        l.learn("- [x] = skipped by mistake");
        assert_eq!(l.status('x'), TaskStatus::Completed);
        // Prose with a box in it but no status word teaches nothing.
        let mut p = Legend::default();
        p.learn("see [ ] the docs and [~] the other thing");
        assert_eq!(p, Legend::default());
    }

    #[test]
    fn prose_deferrals() {
        for desc in [
            "Write the e2e suite (SKIPPED - not required for MVP)",
            "Add caching (deferred)",
            "Touch the lockfile (protected file - skipped)",
            "Migrate [DEFERRED: needs the new API]",
            "Old path (Cancelled)",
            "Polish (not required for MVP)",
            "Dark mode (out of scope)",
            "Update the Dockerfile (SKIPPED: no Dockerfile)",
            "Document the config (COVERED - documented in README)",
            "性能优化（本次未实现）",
        ] {
            let d = deferral(desc, false).unwrap_or_else(|| panic!("{desc}"));
            let (a, b) = d.span.unwrap();
            assert!(desc[a..b].starts_with(['(', '[', '（']), "{desc}");
        }
        for (desc, before) in [
            ("Apply a token. **DEFERRED to US3**", "Apply a token."),
            (
                "Verify connectivity: N/A (manual verification)",
                "Verify connectivity",
            ),
            (
                "Profile the hot path → DEFERRED (needs data)",
                "Profile the hot path",
            ),
            ("Measure memory — NOT MEASURED", "Measure memory"),
            ("Ship it - deferred until v2", "Ship it"),
        ] {
            let d = deferral(desc, false).unwrap_or_else(|| panic!("{desc}"));
            let (a, _) = d.span.unwrap();
            assert_eq!(desc[..a].trim_end(), before, "{desc}");
        }
        for desc in [
            "~~Remove the old API~~",
            "[US3] ~~SUPERSEDED~~ — replaced by T078",
            "Rewrite the parser ~~DELETED~~",
            "Write unit tests - **Reporté à story technique future**",
            "Polish the UI, not required for MVP",
        ] {
            assert_eq!(
                deferral(desc, false),
                Some(Deferral { span: None }),
                "{desc}"
            );
        }
        assert_eq!(deferral("Remove it", true), Some(Deferral { span: None }));
        for desc in [
            "Add deferred loading of images",
            "Skip list implementation (src/skip.rs)",
            "Handle the cancelled state [US2]",
            "Parse ~~strike~~ in markdown",
            "Run the suite (101 passed, 8 skipped)",
            "Manual test (PASSED - 3 mappings, 1 skipped)",
            "Show a SKIPPED_STATE constant",
            "Use `defer:` for teardown",
            "Guards: clean-code clean; wp/test N/A this batch",
            "Read the pin (skip manual input)",
            "对缺失文件保持兼容（跳过而非报错）",
            "Utiliser des classes simples (Freezed reporté à une story future)",
        ] {
            assert_eq!(deferral(desc, false), None, "{desc}");
        }
        assert_eq!(unstruck("~~T012~~"), ("T012", true));
        assert_eq!(unstruck("T012"), ("T012", false));
    }
}
