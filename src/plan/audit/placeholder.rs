//! Which `[…]` is an unfilled template placeholder (`[FEATURE NAME]`,
//! `[NEEDS CLARIFICATION: …]`) and which is syntax (a tag, a route segment, a regex
//! class, CSS, a JSON array).

#[allow(clippy::wildcard_imports)] // the audit's shared imports and its sibling modules
use super::*;

/// spec-kit's open-question marker with the bracketed question it may carry.
pub(super) static NEEDS_CLARIFICATION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\[NEEDS CLARIFICATION[^\]\n]*\]|NEEDS CLARIFICATION").ok());

/// A regex character class range such as `a-z`, `A-Z` or `0-9`.
pub(super) static CLASS_RANGE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"a-z|A-Z|0-9|a-f|A-F").ok());

/// A label inside brackets: `P`, `US5a`, `FR-001`, `SEQUENTIAL`, `PARALLEL-GROUP-1`, `P?`.
pub(super) static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)*[a-z]?\??|[0-9]+[a-z]?)$").ok()
});

/// `8-12h`, `~2 h`, `0.5d`, `3 pts`, `1-2 days`: an estimate in brackets.
pub(super) static ESTIMATE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)^[~≈]?\s*\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+(?:[.,]\d+)?)?\s*(?:h|hrs?|hours?|d|days?|w|wks?|weeks?|m|mins?|minutes?|pts?|points?|sp)$").ok()
});

/// Priority and severity labels written in brackets.
const LABEL: &[&str] = &[
    "high", "medium", "med", "low", "critical", "blocker", "major", "minor", "trivial", "urgent",
    "optional", "bug", "security", "breaking",
];

/// The first unfilled placeholder: `{{…}}` or a `[…]` that is not syntax.
pub(super) fn placeholder(prose: &str) -> Option<String> {
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
/// after `]`, is an unfilled placeholder (docs/plans.md "Zero-decision audit").
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
    if ESTIMATE.as_ref().is_some_and(|re| re.is_match(t)) {
        return false; // [8-12h], [0.5d], [3 pts]: an estimate
    }
    if before == Some(']') || LABEL.iter().any(|l| t.eq_ignore_ascii_case(l)) {
        return false; // [AI-Review][High]: a run of labels; [Critical]
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
    // An interval or an array with a number in it: `[0, initial]`, `[1, n]`.
    let number = |s: &&str| !s.is_empty() && s.parse::<f64>().is_ok();
    if items.len() > 1 && items.iter().any(number) {
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
