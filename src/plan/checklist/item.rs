//! One checkbox item of a checklist plan: its box, the Kiro optional mark, its number
//! (`1.`, `1.1`, `Task 1`, `**Subtask 1.2:**`), the marks in its text (`(P)`,
//! `(AC: #1, #3)`) and a deferral.

use crate::plan::marks::{self, Deferral};
use crate::plan::speckit;

/// A checkbox line read as an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item<'a> {
    /// Byte offset of the character inside the box.
    pub check_at: usize,
    pub mark: char,
    /// Columns of indentation before the list marker (a tab is four).
    pub indent: usize,
    /// `- [ ]* 2.3`: Kiro's optional task (read as an ordinary one).
    pub optional: bool,
    /// The number as written (`1`, `2.3`, from `2.3.`, `Task 2.3`), if any.
    pub number: Option<&'a str>,
    /// The text after the number, its marks removed, trimmed.
    pub name: String,
    /// `(P)`: may run beside the items before it.
    pub parallel: bool,
    /// `(AC: #1, #3)`: the acceptance criteria it serves, as written (`1`, `3`).
    pub criteria: Vec<String>,
    pub deferral: Option<Deferral>,
}

/// The item a line is, when it is a checkbox list item.
pub(crate) fn item(text: &str) -> Option<Item<'_>> {
    let (check_at, mark, rest) = speckit::checkbox(text)?;
    let (optional, rest) = match rest.strip_prefix('*') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let (body, struck) = marks::unstruck(rest.trim());
    let (number, after) = number(body);
    let mut name = after.trim().to_string();
    let mut parallel = false;
    for p in ["(P)", "(p)"] {
        if let Some(at) = name.find(p) {
            name.replace_range(at..at + p.len(), " ");
            parallel = true;
        }
    }
    let criteria = take_criteria(&mut name);
    let deferral = marks::deferral(&name, struck);
    if let Some(Deferral { span: Some((a, b)) }) = deferral {
        name.replace_range(a..b, " ");
    }
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let name = name
        .trim_start_matches([':', '-', '–', '—'])
        .trim()
        .to_string();
    Some(Item {
        check_at,
        mark,
        indent: indent_of(text),
        optional,
        number,
        name,
        parallel,
        criteria,
        deferral,
    })
}

/// Columns before the first non-blank character, a tab counted as four.
pub(crate) fn indent_of(text: &str) -> usize {
    text.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The number an item's text starts with, and the text after it: `1.`, `1.1`,
/// `2.3.1`, `Task 1`, `Subtask 1.2`, `**Task 1:**`; else `None` and the text.
fn number(body: &str) -> (Option<&str>, String) {
    let Some((num, after, bold)) = split_number(body) else {
        return (None, body.to_string());
    };
    let mut after = after.trim_start_matches([':', ')']).to_string();
    if bold {
        // `**Task 1:** Do`, `**Task 1**: Do`, `**Task 1: Do**`: one bold pair less.
        if let Some(at) = after.find("**") {
            after.replace_range(at..at + 2, "");
        }
    }
    (Some(num), after.trim_start_matches(':').to_string())
}

/// [`number`]'s parts without building the name: the number, the text after it, and
/// whether the item starts in bold.
fn split_number(body: &str) -> Option<(&str, &str, bool)> {
    let (bold, b) = match body.strip_prefix("**") {
        Some(r) => (true, r),
        None => (false, body),
    };
    let b = ["Subtask ", "Sub-task ", "Task ", "subtask ", "task "]
        .iter()
        .find_map(|w| b.strip_prefix(w))
        .map_or(b, str::trim_start);
    let len = b
        .bytes()
        .take_while(|c| c.is_ascii_digit() || *c == b'.')
        .count();
    let num = b.get(..len)?.trim_end_matches('.');
    let valid = num.starts_with(|c: char| c.is_ascii_digit())
        && num.split('.').all(|p| !p.is_empty() && p.len() <= 6);
    let after = b.get(len..)?;
    // The number ends at a space, a colon, a bracket or the bold's end: `1.1 Do`,
    // `1: Do`, `1) Do`, `**Task 1**: Do`.
    let ends = after.is_empty() || after.starts_with([' ', '\t', ':', ')', '*']);
    (valid && ends).then_some((num, after, bold))
}

/// What detection needs of a checkbox item, without reading it whole (every line
/// of every plan is asked): whether it is one with text, and whether it is numbered.
pub(crate) fn item_shape(text: &str) -> Option<bool> {
    let (_, _, rest) = speckit::checkbox(text)?;
    if super::placeholder_after(text, rest) {
        return None;
    }
    let rest = rest.strip_prefix('*').unwrap_or(rest);
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let body = rest.trim();
    let body = body.strip_prefix("~~").unwrap_or(body);
    let numbered = split_number(body).is_some();
    (numbered || !body.is_empty()).then_some(numbered)
}

/// Cuts `(AC: #1, #3)`, `(AC 1, 2)`, `[AC: 1]`, `(ACs: 2-3)` out of `name` and gives
/// the criteria it names.
fn take_criteria(name: &mut String) -> Vec<String> {
    let Some(start) = ["(AC", "[AC", "(ac", "(Acceptance Criteria"]
        .iter()
        .filter_map(|p| name.find(p))
        .min()
    else {
        return Vec::new();
    };
    let close = match name.as_bytes().get(start) {
        Some(b'[') => ']',
        _ => ')',
    };
    let Some(len) = name.get(start..).and_then(|r| r.find(close)) else {
        return Vec::new();
    };
    let inner = name.get(start + 1..start + len).unwrap_or("").to_string();
    let inner = inner
        .trim_start_matches(|c: char| c.is_alphabetic() || c == ' ')
        .trim_start_matches([':', 's'])
        .to_string();
    let mut out = Vec::new();
    for part in inner.split([',', ' ', '&', '/', ';']) {
        let p = part.trim().trim_start_matches('#').trim_end_matches('.');
        if let Some((a, b)) = p.split_once(['-', '–']) {
            if let (Ok(a), Ok(b)) = (
                a.trim_start_matches('#').parse::<u32>(),
                b.trim_start_matches('#').parse::<u32>(),
            ) {
                if a <= b && b - a < 100 {
                    out.extend((a..=b).map(|n| n.to_string()));
                    continue;
                }
            }
        }
        if !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') {
            out.push(p.to_string());
        }
    }
    name.replace_range(start..=start + len, " ");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_marks() {
        let i = item("- [ ] 1. Set up the project").unwrap();
        assert_eq!(
            (i.number, i.name.as_str(), i.indent),
            (Some("1"), "Set up the project", 0)
        );
        let i = item("  - [x]* 2.3 (P) Write property tests").unwrap();
        assert_eq!(
            (i.number, i.optional, i.parallel, i.mark),
            (Some("2.3"), true, true, 'x')
        );
        assert_eq!((i.name.as_str(), i.indent), ("Write property tests", 2));
        let i = item("- [ ] 1.1 Build it (P)").unwrap();
        assert!(i.parallel);
        assert_eq!(i.name, "Build it");
        let i = item("- [ ] Task 1 (AC: #1, #3)").unwrap();
        assert_eq!((i.number, i.name.as_str()), (Some("1"), ""));
        assert_eq!(i.criteria, ["1", "3"]);
        let i = item("- [ ] **Task 2: Add the API** (AC: 2-4)").unwrap();
        assert_eq!((i.number, i.name.as_str()), (Some("2"), "Add the API"));
        assert_eq!(i.criteria, ["2", "3", "4"]);
        let i = item("\t- [ ] Subtask 1.2: Create the model").unwrap();
        assert_eq!(
            (i.number, i.name.as_str(), i.indent),
            (Some("1.2"), "Create the model", 4)
        );
        let i = item("- [ ] Implement login [AC: 1]").unwrap();
        assert_eq!((i.number, i.name.as_str()), (None, "Implement login"));
        assert_eq!(i.criteria, ["1"]);
        let i = item("- [ ] 2024 roadmap review").unwrap();
        assert_eq!(
            (i.number, i.name.as_str()),
            (Some("2024"), "roadmap review")
        );
        let i = item("- [ ] 1.5x faster startup").unwrap();
        assert_eq!((i.number, i.name.as_str()), (None, "1.5x faster startup"));
        let i = item("- [ ] ~~3.2 Old approach~~").unwrap();
        assert!(i.deferral.is_some());
        let i = item("- [ ] 3.3 Docs (deferred)").unwrap();
        assert!(i.deferral.is_some());
        assert_eq!(i.name, "Docs");
        assert!(item("- [ ]").is_some_and(|i| i.name.is_empty()));
        assert!(item("- [x]done").is_none());
        assert!(item("- not a box").is_none());
    }

    #[test]
    fn shape_agrees_with_the_item() {
        // Detection asks `item_shape`; reading asks `item`: they must tell the same
        // lines apart, or a plan detected as one format reads as another.
        for line in [
            "- [ ] 1. Set up",
            "  - [x]* 2.3 (P) Write tests",
            "- [ ] Task 1 (AC: #1)",
            "- [ ] **Task 2: Add the API**",
            "- [ ] Implement login",
            "- [ ] 1.5x faster",
            "- [ ] ~~3.2 Old~~",
            "- [ ] TXXX placeholder",
            "- [ ] {{task}}",
            "- [ ]",
            "- [x]done",
            "- [ ] ",
            "* [X] 4 Ship",
        ] {
            let full = item(line)
                .filter(|_| !super::super::placeholder(line))
                .filter(|i| !i.name.is_empty() || i.number.is_some())
                .map(|i| i.number.is_some());
            assert_eq!(item_shape(line), full, "{line}");
        }
    }
}
