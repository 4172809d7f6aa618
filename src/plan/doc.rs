//! The plan text as numbered lines, with what a markdown reader would not see hidden.
//!
//! Both formats are read line by line, but text inside fenced code blocks (```` ``` ````
//! or `~~~`), multi-line HTML comments and a front-matter block at the very top is
//! documentation, not plan: the spec-kit template keeps its instructions in a comment
//! and its examples in a fence. Such lines are marked `hidden`. A line that is exactly
//! one `<!-- … -->` comment is kept aside as `comment` because the claude-workflow V1
//! format puts task metadata there (`<!-- id: T1, design_ref: 4.1 -->`). Inline comment
//! spans inside an otherwise visible line are cut out of `text`.
//!
//! The small markdown helpers both parsers share (headings, rules, lists, code spans)
//! live here too, so the two formats agree on what a heading or a list item is.

use std::borrow::Cow;

/// One line of the plan.
#[derive(Debug)]
pub(crate) struct Line<'a> {
    /// 1-based line number.
    pub no: usize,
    /// The line as written, without its line ending.
    pub raw: &'a str,
    /// What a reader sees: empty when hidden, comment spans removed.
    pub text: Cow<'a, str>,
    pub hidden: bool,
    /// The inside of a line that is exactly one `<!-- … -->` comment.
    pub comment: Option<&'a str>,
}

impl Line<'_> {
    /// Whether `text` is the raw line itself, so byte offsets in it are offsets in `raw`.
    pub fn text_is_raw(&self) -> bool {
        matches!(self.text, Cow::Borrowed(_)) && !self.hidden && self.comment.is_none()
    }
}

/// Splits `text` (without a BOM) into lines and hides what markdown hides.
pub(crate) fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::with_capacity(text.bytes().filter(|b| *b == b'\n').count() + 1);
    out.extend(iter(text));
    out
}

/// [`lines`] one at a time, for a single pass that need not hold them all (a plan
/// has several lines a task, and held whole they grow with it).
pub(crate) fn iter(text: &str) -> Lines<'_> {
    Lines {
        rest: Some(text),
        index: 0,
        front_matter_end: front_matter_end(text),
        fence: None,
        in_comment: false,
    }
}

pub(crate) struct Lines<'a> {
    /// The text after the lines given so far; none after the last.
    rest: Option<&'a str>,
    /// 0-based index of the next line.
    index: usize,
    front_matter_end: Option<usize>,
    fence: Option<(char, usize)>,
    in_comment: bool,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        // Split at `\n` with `memchr`, faster than `str::split`: every import reads
        // every line several times.
        let rest = self.rest?;
        let raw = if let Some(end) = memchr::memchr(b'\n', rest.as_bytes()) {
            self.rest = rest.get(end + 1..);
            rest.get(..end)?
        } else {
            self.rest = None;
            rest
        };
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let i = self.index;
        self.index += 1;
        let no = i + 1;
        let hidden_line = Line {
            no,
            raw,
            text: Cow::Borrowed(""),
            hidden: true,
            comment: None,
        };
        if self.front_matter_end.is_some_and(|end| i <= end) {
            return Some(hidden_line);
        }
        if let Some((ch, len)) = self.fence {
            if closes_fence(raw, ch, len) {
                self.fence = None;
            }
            return Some(hidden_line);
        }
        // `<` is rare in a plan: most lines are known to hold no comment at one look.
        let opens_comment = memchr::memchr(b'<', raw.as_bytes()).is_some() && raw.contains("<!--");
        if !self.in_comment {
            if let Some(f) = opens_fence(raw) {
                self.fence = Some(f);
                return Some(hidden_line);
            }
            if let Some(inner) = opens_comment.then(|| whole_line_comment(raw)).flatten() {
                return Some(Line {
                    no,
                    raw,
                    text: Cow::Borrowed(""),
                    hidden: false,
                    comment: Some(inner),
                });
            }
        }
        let touched = self.in_comment || opens_comment;
        let (text, still_in_comment) = if touched {
            strip_comments(raw, self.in_comment)
        } else {
            (Cow::Borrowed(raw), false)
        };
        // A line that was all comment is as absent as a line inside a fence.
        let hidden = touched && text.trim().is_empty();
        self.in_comment = still_in_comment;
        Some(Line {
            no,
            raw,
            text,
            hidden,
            comment: None,
        })
    }
}

/// The index of the line closing a front-matter block that opens on the first line.
fn front_matter_end(text: &str) -> Option<usize> {
    let mut raws = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if raws.next().map(str::trim_end) != Some("---") {
        return None;
    }
    raws.position(|l| matches!(l.trim_end(), "---" | "..."))
        .map(|i| i + 1)
}

fn opens_fence(raw: &str) -> Option<(char, usize)> {
    let t = raw.trim_start();
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = t.chars().take_while(|c| *c == ch).count();
    // A backtick "fence" whose info string holds a backtick is inline code.
    let rest = t.get(len..).unwrap_or("");
    (len >= 3 && !(ch == '`' && rest.contains('`'))).then_some((ch, len))
}

fn closes_fence(raw: &str, ch: char, len: usize) -> bool {
    let t = raw.trim();
    let run = t.chars().take_while(|c| *c == ch).count();
    run >= len && t.chars().all(|c| c == ch)
}

fn whole_line_comment(raw: &str) -> Option<&str> {
    let t = raw.trim();
    let inner = t.strip_prefix("<!--")?.strip_suffix("-->")?;
    (!inner.contains("-->") && !inner.contains("<!--")).then_some(inner.trim())
}

/// Removes `<!-- … -->` spans; returns the visible text and whether a comment is
/// still open at the end of the line.
fn strip_comments(raw: &str, mut in_comment: bool) -> (Cow<'_, str>, bool) {
    let mut out = String::new();
    let mut rest = raw;
    loop {
        if in_comment {
            match rest.find("-->") {
                Some(i) => {
                    rest = rest.get(i + 3..).unwrap_or("");
                    in_comment = false;
                }
                None => break,
            }
        }
        if let Some(i) = rest.find("<!--") {
            out.push_str(rest.get(..i).unwrap_or(""));
            rest = rest.get(i + 4..).unwrap_or("");
            in_comment = true;
        } else {
            out.push_str(rest);
            break;
        }
    }
    (Cow::Owned(out), in_comment)
}

/// Whether a line that shows holds a `{{…}}` placeholder: an unfilled template.
pub(crate) fn has_template(lines: &[Line<'_>]) -> bool {
    lines
        .iter()
        .any(|l| !l.hidden && l.text.contains("{{") && l.text.contains("}}"))
}

/// The byte offset of `part`, a slice of `text` (a [`Line`]'s `raw`), in `text`.
pub(crate) fn offset_in(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// The line of `text` starting at byte `at`, without its line ending.
pub(crate) fn line_at(text: &str, at: usize) -> Option<&str> {
    let line = text.get(at..)?.split('\n').next()?;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// `(level, text)` of an ATX heading (`## Title`), the closing `#`s removed.
pub(crate) fn heading(text: &str) -> Option<(usize, &str)> {
    let t = text.trim_start_matches(' ');
    if text.len() - t.len() > 3 {
        return None;
    }
    let level = t.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = t.get(level..)?;
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    let mut content = rest.trim();
    // A closing sequence is a run of `#` preceded by a space, like `## Title ##`.
    let without = content.trim_end_matches('#');
    if without.len() < content.len() && (without.is_empty() || without.ends_with([' ', '\t'])) {
        content = without.trim_end();
    }
    Some((level, content))
}

/// Where the two ASCII marks `pair` (`**`, `__`) first start in `s`. `str::find`
/// sets up a two-way searcher on every call, which costs more than the short keys
/// and ids searched here at every line of a plan (a field line's key, a task id).
pub(crate) fn find_pair(s: &str, [first, second]: [u8; 2]) -> Option<usize> {
    let bytes = s.as_bytes();
    memchr::memchr_iter(first, bytes).find(|&at| bytes.get(at + 1) == Some(&second))
}

/// A thematic break: `---`, `***` or `___`, spaces allowed between.
pub(crate) fn is_rule(text: &str) -> bool {
    // Asked of every line of a plan: no allocation.
    let mut marks = text.chars().filter(|c| !c.is_whitespace());
    let Some(mark) = marks.next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    let mut count = 1;
    for c in marks {
        if c != mark {
            return false;
        }
        count += 1;
    }
    count >= 3
}

/// The text of a list item without its marker (`- `, `* `, `+ `, `1. `).
pub(crate) fn list_item(text: &str) -> Option<&str> {
    let t = text.trim_start();
    for m in ["- ", "* ", "+ ", "-\t", "*\t", "+\t"] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some(rest.trim_start());
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 10 {
        let rest = t.get(digits..)?;
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(r.trim_start());
        }
    }
    None
}

pub(crate) fn starts_indented(text: &str) -> bool {
    text.starts_with([' ', '\t'])
}

/// The contents of the code spans in `s`, in order (`` `a` and ``b`c`` `` → `a`, `` b`c ``).
pub(crate) fn code_spans(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find('`') {
        let after_open = rest.get(start..).unwrap_or("");
        let run = after_open.bytes().take_while(|b| *b == b'`').count();
        let body = after_open.get(run..).unwrap_or("");
        match find_closing_run(body, run) {
            Some(end) => {
                out.push(trim_span(body.get(..end).unwrap_or("")));
                rest = body.get(end + run..).unwrap_or("");
            }
            None => rest = body,
        }
    }
    out
}

/// Where the run of exactly `run` backticks that closes a code span starts in `body`.
pub(crate) fn find_closing_run(body: &str, run: usize) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) == Some(&b'`') {
            let n = bytes
                .get(i..)
                .unwrap_or(&[])
                .iter()
                .take_while(|b| **b == b'`')
                .count();
            if n == run {
                return Some(i);
            }
            i += n;
        } else {
            i += 1;
        }
    }
    None
}

/// CommonMark drops one space on each side of a span padded on both sides.
fn trim_span(s: &str) -> &str {
    match s.strip_prefix(' ').and_then(|x| x.strip_suffix(' ')) {
        Some(inner) if !inner.trim().is_empty() => inner,
        _ => s,
    }
}

/// `s` trimmed, without one pair of surrounding backticks when it is one code span.
pub(crate) fn strip_ticks(s: &str) -> &str {
    let t = s.trim();
    whole_span(t).map_or(t, str::trim)
}

/// The content of `t` when all of `t` is a single code span.
pub(crate) fn whole_span(t: &str) -> Option<&str> {
    let run = t.bytes().take_while(|b| *b == b'`').count();
    if run == 0 {
        return None;
    }
    let body = t.get(run..)?;
    let end = find_closing_run(body, run)?;
    (run + end + run == t.len()).then(|| trim_span(body.get(..end).unwrap_or("")))
}

/// A list value split on `,` `，` `、` `;` `；`, each item trimmed and un-backticked.
pub(crate) fn split_list(s: &str) -> Vec<String> {
    s.split([',', '，', '、', ';', '；'])
        .map(strip_ticks)
        .filter(|x| !x.is_empty())
        .map(str::to_string)
        .collect()
}

/// Words a plan uses for "nothing here".
pub(crate) fn is_none_word(s: &str) -> bool {
    let t = s.trim().trim_matches('`').trim();
    t.is_empty()
        || matches!(t, "无" | "-" | "—" | "–" | "空" | "没有")
        || ["none", "n/a", "na", "null", "nil", "no"]
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w))
}

/// `s` as a short, quoted, one-line string for an error message.
pub(crate) fn shown(s: &str) -> String {
    const MAX: usize = 64;
    let cut: String = s.chars().take(MAX).collect();
    let mut out = format!("{cut:?}");
    if s.chars().count() > MAX {
        out.push('…');
    }
    out
}

/// The plan's title: the first level-1 heading, without a leading `Tasks:`.
pub(crate) fn title(text: &str) -> Option<String> {
    iter(text).filter(|l| !l.hidden).find_map(|l| {
        let (_, t) = heading(&l.text).filter(|(lvl, _)| *lvl == 1)?;
        let t = ["Tasks:", "Tasks：", "tasks:"]
            .iter()
            .find_map(|p| t.strip_prefix(p))
            .unwrap_or(t)
            .trim();
        Some((!t.is_empty()).then(|| t.to_string()))
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_comments_and_front_matter_are_hidden() {
        let text = "---\na: 1\n---\n# T\n```bash\n# not a title\n```\n<!--\n- [ ] T001 x\n-->\nkeep <!-- cut --> this\n<!-- id: T1 -->";
        let ls = lines(text);
        let visible: Vec<&str> = ls
            .iter()
            .filter(|l| !l.hidden)
            .map(|l| l.text.as_ref())
            .collect();
        assert_eq!(visible, vec!["# T", "keep  this", ""]);
        assert_eq!(ls.last().unwrap().comment, Some("id: T1"));
        assert_eq!(title(text).as_deref(), Some("T"));
    }

    #[test]
    fn comment_close_line_keeps_its_tail() {
        let ls = lines("<!-- a\nb --> tail");
        assert!(ls[0].hidden);
        assert_eq!(ls[1].text, " tail");
        assert!(!ls[1].hidden);
    }

    #[test]
    fn unclosed_front_matter_is_text() {
        assert_eq!(title("---\n# Title").as_deref(), Some("Title"));
    }

    #[test]
    fn headings_and_rules() {
        assert_eq!(heading("## T1: x ##"), Some((2, "T1: x")));
        assert_eq!(heading("## C#"), Some((2, "C#")));
        assert_eq!(heading("##"), Some((2, "")));
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("    # code"), None);
        assert!(is_rule("---"));
        assert!(is_rule(" * * *"));
        assert!(!is_rule("--"));
        assert!(!is_rule("-- x"));
    }

    #[test]
    fn code_spans_and_ticks() {
        assert_eq!(code_spans("`a` and ``b`c``"), vec!["a", "b`c"]);
        assert_eq!(code_spans("`` `x` ``"), vec!["`x`"]);
        assert_eq!(code_spans("`open"), Vec::<&str>::new());
        assert_eq!(strip_ticks(" `npm test` "), "npm test");
        assert_eq!(strip_ticks("`a` b `c`"), "`a` b `c`");
        assert_eq!(strip_ticks("plain"), "plain");
        assert_eq!(split_list("`a`, b、c；d"), vec!["a", "b", "c", "d"]);
    }

    #[test]
    fn list_items() {
        assert_eq!(list_item("  - A1: x"), Some("A1: x"));
        assert_eq!(list_item("12. x"), Some("x"));
        assert_eq!(list_item("-x"), None);
    }
}
