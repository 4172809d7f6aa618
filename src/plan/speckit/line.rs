//! One spec-kit task line: the checkbox, the id (and what is almost one), the status
//! marks, the `DEFERRED` marker — and whether a plan looks like spec-kit at all.

#[allow(clippy::wildcard_imports)] // the parser's shared imports and its sibling modules
use super::*;

pub(super) static DEFERRED_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|\s)(?:—|–|--|-|→|->|=>)\s*(?:\*\*)?deferred\b").ok());

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
