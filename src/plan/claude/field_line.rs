//! A claude-workflow field line, `- **字段**: 值`: its key and its value.

use crate::plan::{doc, fields};

/// A `- **key**: value` line: the key, the value, and where the value starts.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FieldLine<'a> {
    pub key: &'a str,
    pub value: &'a str,
    /// Byte offset of `value` in the line.
    pub value_at: usize,
    /// `- [x] **Description**: …`: the box before the key and where its mark is.
    pub boxed: Option<(usize, char)>,
}

pub(crate) fn field_line(text: &str) -> Option<FieldLine<'_>> {
    let t = text.trim_start();
    // `**Description**: …` alone on a line, as some boards write their fields: read
    // only for a known field name, so a bold word that starts a paragraph stays prose.
    if t.starts_with("**") {
        return bold_key(t, text).filter(|f| fields::canon(f.key).is_some());
    }
    let after = t.strip_prefix(['-', '*', '+'])?;
    if !after.starts_with([' ', '\t']) {
        return None;
    }
    // `- [x] **Description**: …`: a checkbox before the key, which shows the task's
    // status when nothing else does (`fields::build`).
    let (s, boxed) = match crate::plan::speckit::checkbox(text) {
        Some((at, c, rest)) => (rest.trim_start(), Some((at, c))),
        None => (after.trim_start(), None),
    };
    bold_key(s, text).map(|f| FieldLine { boxed, ..f })
}

/// `**key**: value` (or `**key:** value`) at the start of `s`, a suffix of `text`.
fn bold_key<'a>(s: &'a str, text: &'a str) -> Option<FieldLine<'a>> {
    let s = s.strip_prefix("**")?;
    let close = doc::find_pair(s, *b"**")?;
    let raw_key = s.get(..close)?.trim();
    let mut rest = s.get(close + 2..)?;
    let key = if let Some(k) = raw_key.strip_suffix([':', '：']) {
        k.trim_end()
    } else {
        rest = rest.trim_start().strip_prefix([':', '：'])?;
        raw_key
    };
    if key.is_empty() || doc::find_pair(key, *b"**").is_some() {
        return None;
    }
    let v = rest.trim_start();
    Some(FieldLine {
        key,
        value: v.trim_end(),
        value_at: text.len() - v.len(),
        boxed: None,
    })
}
