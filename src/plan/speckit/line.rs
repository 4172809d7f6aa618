//! One spec-kit task line: the checkbox, the id (and what is almost one), the status
//! marks, the `DEFERRED` marker — and whether a plan looks like spec-kit at all.

#[allow(clippy::wildcard_imports)] // the parser's shared imports and its sibling modules
use super::*;

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
    /// The id is struck through (`~~T012~~`): the task is withdrawn.
    pub struck: bool,
    /// The id is not of the `T` family (`M001`, `PI-A1`, `Task 3`): read only when
    /// the plan has another id of its kind ([`family`]).
    pub other: bool,
}

impl TaskLine<'_> {
    pub fn checked(&self) -> bool {
        matches!(self.mark, 'x' | 'X')
    }
}

pub(crate) fn task_line(text: &str) -> Option<TaskLine<'_>> {
    let (check_at, mark, rest) = checkbox(text)?;
    let r = rest.trim_start();
    if r.len() == rest.len() {
        return None;
    }
    let r = skip_marks(r);
    // `~~T012~~ …` or `~~T012 …~~`: a struck id.
    let (r, struck) = match r.strip_prefix("~~") {
        Some(inner) => (inner, true),
        None => (r, false),
    };
    let (token, len, other) = if let Some((number, len)) = task_word(r) {
        (number, len, true)
    } else {
        let (token, len) = id_token(r)?;
        let id = token.strip_suffix("~~").unwrap_or(token);
        let other = !t_family(id);
        if (other && !other_shape(id)) || is_range(id) {
            return None;
        }
        (token, len, other)
    };
    let id = token.strip_suffix("~~").unwrap_or(token);
    let after = r.get(len..)?.trim_start();
    let mut desc = after.trim_end();
    if struck && id.len() == token.len() {
        desc = desc.strip_suffix("~~").unwrap_or(desc).trim_end();
    }
    Some(TaskLine {
        check_at,
        mark,
        id,
        desc,
        desc_at: text.len() - after.len(),
        struck,
        other,
    })
}

/// `r` without up to two leading status marks (`✅ T001 …`, `⬜ T002 …`): words of
/// symbols only, none of them ASCII.
pub(super) fn skip_marks(mut r: &str) -> &str {
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
pub(super) fn id_token(r: &str) -> Option<(&str, usize)> {
    if let Some(inner) = r.strip_prefix("**") {
        let close = doc::find_pair(inner, *b"**")?;
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

/// `Task 3`, `Task 0:`, `**Task 12**:`: the number, as the id, and the bytes the two
/// words take.
fn task_word(r: &str) -> Option<(&str, usize)> {
    let (bold, b) = match r.strip_prefix("**") {
        Some(b) => (2, b),
        None => (0, r),
    };
    let rest = b
        .strip_prefix("Task ")
        .or_else(|| b.strip_prefix("TASK "))?;
    let digits = rest
        .bytes()
        .take_while(|c| c.is_ascii_digit() || *c == b'.')
        .count();
    let number = rest.get(..digits)?.trim_end_matches('.');
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let mut len = bold + 5 + digits;
    let after = r.get(len..)?;
    let after = after.strip_prefix("**").map_or(after, |a| {
        len += 2;
        a
    });
    if let Some(c) = after.chars().next().filter(|c| matches!(c, ':' | '：')) {
        len += c.len_utf8();
    }
    let ends = r.get(len..)?.chars().next().is_none_or(char::is_whitespace);
    ends.then_some((number, len))
}

/// The `T` family: `T001`, `T-001`, `T017b`, `T158-1`, and `T-` with a word in
/// capitals (`T-DOC-OPS`, `T-FS0`).
pub(super) fn t_family(id: &str) -> bool {
    t_shape(id)
        || id.strip_prefix("T-").is_some_and(|r| {
            r.starts_with(|c: char| c.is_ascii_uppercase())
                && r.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// An id of another family: one to four capitals, an optional `-`/`_`, then
/// capitals and digits holding a digit — two digits at least without the separator
/// (`M001`, `D001`, `PI-A1`, `TASK-001`; not `S3`, `US1` or `E2E`, words of a line).
pub(super) fn other_shape(id: &str) -> bool {
    let id = id
        .strip_suffix(|c: char| c.is_ascii_lowercase())
        .unwrap_or(id);
    let letters = id.bytes().take_while(u8::is_ascii_uppercase).count();
    let rest = id.get(letters..).unwrap_or("");
    let (sep, rest) = match rest.strip_prefix(['-', '_']) {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let digits = rest.bytes().filter(u8::is_ascii_digit).count();
    (1..=4).contains(&letters)
        && !rest.is_empty()
        && rest
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.'))
        && (sep && digits >= 1 || digits >= 2)
        && rest.starts_with(|c: char| c.is_ascii_alphanumeric())
}

/// What ids of another family share: the capitals before the number and the
/// separator after them (`M`, `PI-`, `TASK-`; `Task ` for `Task 3`).
pub(crate) fn family(id: &str) -> &str {
    if id.starts_with(|c: char| c.is_ascii_digit()) {
        return "Task ";
    }
    let letters = id.bytes().take_while(u8::is_ascii_uppercase).count();
    let sep = usize::from(
        id.as_bytes()
            .get(letters)
            .is_some_and(|b| matches!(b, b'-' | b'_')),
    );
    id.get(..letters + sep).unwrap_or("")
}

/// How many task lines of each family other than `T` a text has: an id of another
/// family is read only where the plan has two of its kind at least.
#[derive(Default)]
pub(crate) struct Families(std::collections::HashMap<String, usize>);

impl Families {
    /// Counts the task line `tl` of another family.
    pub(crate) fn add(&mut self, tl: &TaskLine<'_>) {
        if tl.other {
            *self.0.entry(family(tl.id).to_string()).or_insert(0) += 1;
        }
    }

    /// Every task line of `text`'s other families, counted.
    pub(crate) fn of(text: &str) -> Families {
        let mut families = Families::default();
        for line in doc::iter(text).filter(|l| !l.hidden && l.comment.is_none()) {
            if let Some(tl) = task_line(&line.text).filter(|tl| tl.other) {
                families.add(&tl);
            }
        }
        families
    }

    /// Whether the task line `tl` is read: of the `T` family, or of one the text
    /// has two lines of at least.
    pub(crate) fn reads(&self, tl: &TaskLine<'_>) -> bool {
        !tl.other || self.0.get(family(tl.id)).is_some_and(|n| *n >= 2)
    }

    /// How many task lines of other families are read.
    pub(crate) fn read_count(&self) -> usize {
        self.0.values().filter(|n| **n >= 2).sum()
    }
}

/// A spec-kit id: `T`, an optional `-` or `_`, a digit (`T001`, `T-001`, `T1.2`).
pub(super) fn t_shape(id: &str) -> bool {
    let b = id.as_bytes();
    let sep = usize::from(b.get(1).is_some_and(|c| matches!(c, b'-' | b'_')));
    b.first() == Some(&b'T') && b.get(1 + sep).is_some_and(u8::is_ascii_digit)
}

/// `(offset of the box's character, the character, text after the box)`. The box
/// holds one character: a space, `x`/`X`, or any other mark that is not a letter,
/// digit or bracket.
pub(crate) fn checkbox(text: &str) -> Option<(usize, char, &str)> {
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

/// `- T001: description`, a task as a bullet without a box, which a plan with no
/// boxed task lines writes (its status is pending: it shows none).
pub(crate) fn bullet_line(text: &str) -> Option<TaskLine<'_>> {
    let t = text.trim_start();
    let after = t.strip_prefix(['-', '*', '+'])?;
    let r = after.trim_start();
    if r.len() == after.len() || r.starts_with('[') {
        return None;
    }
    // Its id is of the `T` family (below): any other bullet, such as every field
    // line of a claude-workflow plan, is told apart before its first word is read.
    if !r.strip_prefix("**").unwrap_or(r).starts_with('T') {
        return None;
    }
    let (token, len) = id_token(r)?;
    let word = r.get(..len)?;
    let colon = word.ends_with([':', '：']) || word.trim_end_matches('*').ends_with([':', '：']);
    if !colon || !t_family(token) || is_range(token) {
        return None;
    }
    let after = r.get(len..)?.trim_start();
    let desc = after.trim_end();
    Some(TaskLine {
        check_at: 0,
        mark: ' ',
        id: token,
        desc,
        desc_at: text.len() - after.len(),
        struck: false,
        other: false,
    })
}

/// A checkbox whose id is a placeholder such as `TXXX` or `T###`.
pub(crate) fn placeholder_task(text: &str) -> bool {
    checkbox(text).is_some_and(|(_, _, rest)| placeholder_word(rest))
}

/// `rest` (the text after a box) starts with a placeholder id: `TXXX`, `T###`.
pub(crate) fn placeholder_word(rest: &str) -> bool {
    let token = rest.split_whitespace().next().unwrap_or("");
    token.len() >= 2
        && token.starts_with('T')
        && token
            .chars()
            .skip(1)
            .all(|c| matches!(c, 'X' | 'x' | '#' | '?' | 'N' | 'n'))
}

/// A checkbox line whose first word is a range of ids (`- [x] T008-T015 …`): the range.
pub(super) fn range_line(text: &str) -> Option<&str> {
    let (_, _, rest) = checkbox(text)?;
    let (id, _) = id_token(skip_marks(rest.trim_start()))?;
    is_range(id).then_some(id)
}

/// A checkbox line that is not a task line but whose first word reads like a task
/// id gone wrong (`Т001` with a Cyrillic Т, `T.001`, `TASK-001`, an invisible
/// character): the word, for a warning.
pub(super) fn near_task(text: &str) -> Option<&str> {
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
    // Only a checkbox can be either of the others: one look for every other line.
    phase
        || checkbox(text)
            .is_some_and(|(_, _, rest)| placeholder_word(rest) || near_task(text).is_some())
}

/// `T008-T015`, `T008–T015`, `T008..T015`: a range of ids, which restates the tasks
/// between (a summary checklist's line), not a task of its own. Both ends are `T`
/// and digits, the first the lower.
pub(crate) fn is_range(word: &str) -> bool {
    // Asked of every task line: most ids hold no second `T`.
    if !word.bytes().skip(1).any(|b| b == b'T') {
        return false;
    }
    let number = |end: &str| -> Option<u64> {
        let digits = end.strip_prefix('T')?;
        digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| digits.parse().ok())?
    };
    ["..", "–", "—", "-"].iter().any(|sep| {
        word.split_once(sep)
            .and_then(|(a, b)| Some(number(a)? < number(b)?))
            .unwrap_or(false)
    })
}

/// The span of a deferral note or marker (`marks::deferral`), up to a `(depends on
/// …)` after it, which stays.
pub(crate) fn deferred_span(desc: &str) -> Option<(usize, usize)> {
    let (start, end) = crate::plan::marks::deferral(desc, false)?.span?;
    let end = DEPS_RE
        .as_ref()
        .and_then(|re| re.find_at(desc, start))
        .map_or(end, |d| d.start().min(end).max(start));
    Some((start, end))
}
