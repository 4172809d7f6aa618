//! Adding to a JSON document by editing its text, not by rewriting it: where each
//! value lies ([`parse`]), and insertions after an object's last member or an
//! array's last element laid out as the text around them ([`Insert`]). A user's file
//! (`.claude/settings.json`) keeps every byte it had — its numbers however long, its
//! key order, its duplicate keys, its layout — and gains only what is added.
//!
//! [`parse`] reads a text `serde_json` has already found to be JSON: it records
//! places, it does not check the grammar again.

use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};
use serde_json::Value;

/// A value's place in the text: `start..end`, and what it holds.
#[derive(Debug)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug)]
pub enum Kind {
    /// The members in the order written, each with where its key starts.
    Object(Vec<(String, usize, Node)>),
    Array(Vec<Node>),
    Scalar,
}

impl Node {
    /// The value of the last member named `key`: the one a JSON reader keeps.
    pub fn member(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members
                .iter()
                .rev()
                .find(|(k, _, _)| k == key)
                .map(|(_, _, v)| v),
            _ => None,
        }
    }

    /// Where each child starts and ends: a member from its key.
    fn children(&self) -> Vec<(usize, usize)> {
        match &self.kind {
            Kind::Object(members) => members.iter().map(|(_, at, v)| (*at, v.end)).collect(),
            Kind::Array(items) => items.iter().map(|v| (v.start, v.end)).collect(),
            Kind::Scalar => Vec::new(),
        }
    }
}

/// The places of the values of `text`, a JSON document; `None` when it is not one.
pub fn parse(text: &str) -> Option<Node> {
    let mut at = skip_space(text, 0);
    let node = value(text, &mut at)?;
    (skip_space(text, at) == text.len()).then_some(node)
}

fn skip_space(text: &str, mut at: usize) -> usize {
    let bytes = text.as_bytes();
    while bytes.get(at).is_some_and(|b| b" \t\r\n".contains(b)) {
        at += 1;
    }
    at
}

fn value(text: &str, at: &mut usize) -> Option<Node> {
    let bytes = text.as_bytes();
    let start = *at;
    let kind = match bytes.get(start)? {
        b'{' => {
            let mut members = Vec::new();
            *at = start + 1;
            items(text, at, b'}', |at| {
                let key_at = *at;
                let key_end = string_end(bytes, key_at)?;
                let key: String = serde_json::from_str(&text[key_at..key_end]).ok()?;
                *at = skip_space(text, key_end);
                (bytes.get(*at) == Some(&b':')).then_some(())?;
                *at = skip_space(text, *at + 1);
                members.push((key, key_at, value(text, at)?));
                Some(())
            })?;
            Kind::Object(members)
        }
        b'[' => {
            let mut elements = Vec::new();
            *at = start + 1;
            items(text, at, b']', |at| {
                elements.push(value(text, at)?);
                Some(())
            })?;
            Kind::Array(elements)
        }
        b'"' => {
            *at = string_end(bytes, start)?;
            Kind::Scalar
        }
        _ => {
            while bytes.get(*at).is_some_and(|b| !b" \t\r\n,]}".contains(b)) {
                *at += 1;
            }
            Kind::Scalar
        }
    };
    Some(Node {
        start,
        end: *at,
        kind,
    })
}

/// The items of an object or array from just past its opening bracket (`at`), each
/// read by `item`, up to its `close` bracket; `at` is left past that bracket.
fn items(
    text: &str,
    at: &mut usize,
    close: u8,
    mut item: impl FnMut(&mut usize) -> Option<()>,
) -> Option<()> {
    let bytes = text.as_bytes();
    *at = skip_space(text, *at);
    if bytes.get(*at) != Some(&close) {
        loop {
            item(at)?;
            *at = skip_space(text, *at);
            match *bytes.get(*at)? {
                b',' => *at = skip_space(text, *at + 1),
                c if c == close => break,
                _ => return None,
            }
        }
    }
    *at += 1;
    Some(())
}

/// The end (past the closing quote) of the string starting at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    (bytes.get(at) == Some(&b'"')).then_some(())?;
    let mut i = at + 1;
    loop {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// Text to put in at a place.
#[derive(Debug)]
pub struct Insert {
    at: usize,
    text: String,
}

/// `text` with the insertions made (at distinct places).
pub fn apply(text: &str, mut inserts: Vec<Insert>) -> String {
    inserts.sort_by_key(|i| std::cmp::Reverse(i.at));
    let mut out = text.to_string();
    for insert in inserts {
        out.insert_str(insert.at, &insert.text);
    }
    out
}

/// The members `(key, value)` added after the last one of `object`.
pub fn add_members(text: &str, object: &Node, members: &[(&str, Value)]) -> Insert {
    let items = members
        .iter()
        .map(|(key, value)| (Some(*key), value))
        .collect::<Vec<_>>();
    add(text, object, &items)
}

/// The `values` added after the last element of `array`.
pub fn add_elements(text: &str, array: &Node, values: &[Value]) -> Insert {
    let items = values.iter().map(|v| (None, v)).collect::<Vec<_>>();
    add(text, array, &items)
}

/// Items after the last child of `node`, separated and indented as its children
/// are: each on a line of its own at their indent when they are, else on the same
/// line after `, `. Into an empty container, on lines of their own one indent
/// deeper than the container's line — unless the document is all on one line.
fn add(text: &str, node: &Node, items: &[(Option<&str>, &Value)]) -> Insert {
    let (at, separator) = match node.children().last() {
        Some(&(last_start, last_end)) => {
            // The space between the last child and the `,` or bracket before it.
            let gap = &text[text[..last_start].trim_end().len()..last_start];
            let gap = if gap.is_empty() { " " } else { gap };
            (last_end, gap.to_string())
        }
        None if !text.trim_end().contains('\n') && !is_root(text, node) => {
            (node.start + 1, String::new())
        }
        None => {
            let line = line_indent(text, node.start);
            (node.start + 1, format!("\n{line}{}", indent_unit(text)))
        }
    };
    let indent = separator.rsplit('\n').next().unwrap_or("").to_string();
    let multiline = separator.contains('\n');
    let mut out = String::new();
    for (i, (key, value)) in items.iter().enumerate() {
        if i > 0 || !node.children().is_empty() {
            out.push(',');
        }
        out.push_str(&separator);
        if let Some(key) = key {
            out.push_str(&serde_json::to_string(key).unwrap_or_default());
            out.push_str(": ");
        }
        out.push_str(&render(
            value,
            multiline.then(|| (indent.as_str(), indent_unit(text))),
        ));
    }
    if node.children().is_empty() && multiline {
        out.push('\n');
        out.push_str(&line_indent(text, node.start));
    }
    Insert { at, text: out }
}

fn is_root(text: &str, node: &Node) -> bool {
    text.trim_start().len() == text.len() - node.start
}

/// The leading space of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let line = &text[text[..at].rfind('\n').map_or(0, |n| n + 1)..];
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The text's indent step: the leading space of its first indented line, else two
/// spaces.
fn indent_unit(text: &str) -> &str {
    text.split('\n')
        .skip(1)
        .map(|line| &line[..line.len() - line.trim_start_matches([' ', '\t']).len()])
        .find(|space| !space.is_empty())
        .unwrap_or("  ")
}

/// `value` as JSON: pretty, each line after the first at `indent` and nested by
/// `unit`; or on one line, `, ` and `: ` between its parts.
fn render(value: &Value, lines: Option<(&str, &str)>) -> String {
    let mut bytes = Vec::new();
    let written = match lines {
        Some((_, unit)) => value.serialize(&mut Serializer::with_formatter(
            &mut bytes,
            PrettyFormatter::with_indent(unit.as_bytes()),
        )),
        None => value.serialize(&mut Serializer::with_formatter(&mut bytes, OneLine)),
    };
    let text = if written.is_ok() {
        String::from_utf8(bytes).unwrap_or_default()
    } else {
        String::new()
    };
    match lines {
        Some((indent, _)) => text.replace('\n', &format!("\n{indent}")),
        None => text,
    }
}

/// JSON on one line, spaced as people write it: `{"a": [1, 2]}`.
struct OneLine;

impl Formatter for OneLine {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        comma_unless(first, w)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        comma_unless(first, w)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// `, ` before every item but the first.
fn comma_unless<W: ?Sized + io::Write>(first: bool, w: &mut W) -> io::Result<()> {
    if first {
        Ok(())
    } else {
        w.write_all(b", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn added(text: &str, at: &[&str], values: &[(&str, Value)]) -> String {
        let root = parse(text).unwrap();
        let mut node = &root;
        for key in at {
            node = node.member(key).unwrap();
        }
        let insert = match node.kind {
            Kind::Array(_) => add_elements(
                text,
                node,
                &values.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
            ),
            _ => add_members(text, node, values),
        };
        apply(text, vec![insert])
    }

    #[test]
    fn places_are_found_and_the_last_of_two_keys_wins() {
        let text = r#" {"a": [1, "x\"]", {"b": null}], "a": 1e400, "c": {}} "#;
        let root = parse(text).unwrap();
        let a = root.member("a").unwrap();
        assert_eq!(&text[a.start..a.end], "1e400");
        assert!(matches!(root.member("c").unwrap().kind, Kind::Object(ref m) if m.is_empty()));
        assert!(parse("{} x").is_none());
    }

    #[test]
    fn additions_follow_the_layout_around_them() {
        // One line: on the line.
        assert_eq!(
            added(r#"{"n": 1.50}"#, &[], &[("k", json!({"a": [1, 2]}))]),
            r#"{"n": 1.50, "k": {"a": [1, 2]}}"#
        );
        assert_eq!(
            added(r#"{"l": [3]}"#, &["l"], &[("", json!(4))]),
            r#"{"l": [3, 4]}"#
        );
        assert_eq!(
            added(r#"{"l": []}"#, &["l"], &[("", json!(4))]),
            r#"{"l": [4]}"#
        );
        // Lines: at the siblings' indent, nested by the file's step (a tab here).
        assert_eq!(
            added(
                "{\n\t\"n\": 1,\n\t\"l\": []\n}\n",
                &[],
                &[("k", json!({"a": 1}))]
            ),
            "{\n\t\"n\": 1,\n\t\"l\": [],\n\t\"k\": {\n\t\t\"a\": 1\n\t}\n}\n"
        );
        assert_eq!(
            added(
                "{\n\t\"n\": 1,\n\t\"l\": []\n}\n",
                &["l"],
                &[("", json!(2))]
            ),
            "{\n\t\"n\": 1,\n\t\"l\": [\n\t\t2\n\t]\n}\n"
        );
        // An empty document gets lines.
        assert_eq!(
            added("{}\n", &[], &[("k", json!(1)), ("j", json!(2))]),
            "{\n  \"k\": 1,\n  \"j\": 2\n}\n"
        );
    }
}
