//! A small YAML writer for the exported pipelines, writing what a person would:
//! keys and scalars plain where YAML reads them back as the same string, a literal
//! block (`|`) for text of several lines, and double quotes with escapes for
//! anything else — so no value can end its line, start a comment, open a flow
//! collection or be read as a number, a boolean or `null`, whatever text it holds.
//! Maps keep their order; an entry may carry comment lines, written above it after
//! a blank line.

/// A YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Str(String),
    /// A number, unquoted: from a Rust integer, never from text.
    Int(u64),
    /// `true` or `false`, unquoted: from a Rust `bool`, never from text.
    Bool(bool),
    Map(Vec<Entry>),
    List(Vec<Node>),
}

/// One `key: value` of a map, with the comment lines above it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub comments: Vec<String>,
    pub key: String,
    pub value: Node,
}

/// A string scalar.
pub fn s(text: impl Into<String>) -> Node {
    Node::Str(text.into())
}

/// A map from `(key, value)` pairs, in order.
pub fn map(pairs: Vec<(&str, Node)>) -> Node {
    Node::Map(pairs.into_iter().map(|(k, v)| Entry::new(k, v)).collect())
}

/// A map of string scalars from `(key, value)` pairs, in order.
pub fn pairs<K: Into<String>, V: Into<String>>(kv: impl IntoIterator<Item = (K, V)>) -> Node {
    Node::Map(kv.into_iter().map(|(k, v)| Entry::new(k, s(v))).collect())
}

/// A list of string scalars.
pub fn strs<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Node {
    Node::List(items.into_iter().map(s).collect())
}

impl Entry {
    pub fn new(key: impl Into<String>, value: Node) -> Entry {
        Entry {
            comments: Vec::new(),
            key: key.into(),
            value,
        }
    }

    /// The entry with `comments` above it (each one line; control characters are
    /// dropped, since one could end the comment early).
    #[must_use]
    pub fn commented(mut self, comments: Vec<String>) -> Entry {
        self.comments = comments;
        self
    }
}

/// The words YAML 1.1 or 1.2 reads as something other than a string when plain.
const RESERVED: [&str; 11] = [
    "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "<<",
];

/// A character a plain or block scalar may hold as it is: printable, and none of
/// the invisible ones that make a line read otherwise than it runs (bidi controls,
/// zero-width characters, line separators, the byte-order mark).
pub(super) fn shown(c: char) -> bool {
    !c.is_control()
        && !matches!(c as u32, 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x2069 | 0xFEFF)
}

/// Whether `text`, written plain, reads back as this very string.
fn plain_ok(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let number_like = text.contains(|c: char| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_hexdigit() || "xXoO_.+-:".contains(c));
    let date_like = text.len() >= 5
        && text.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        && text.as_bytes()[4] == b'-';
    text.chars().all(shown)
        && !"-?:,[]{}#&*!|>'\"%@`= ".contains(first)
        && !text.ends_with([' ', ':'])
        && !text.contains(": ")
        && !text.contains(" #")
        && !RESERVED.contains(&text.to_ascii_lowercase().as_str())
        && !text
            .to_ascii_lowercase()
            .trim_start_matches(['+', '-'])
            .starts_with(".inf")
        && !text.eq_ignore_ascii_case(".nan")
        && !number_like
        && !date_like
}

/// Whether `text` (of several lines) can be a literal block: every character
/// [`shown`] but the line breaks, no line of spaces alone, the first line not
/// starting with a space (which would need an indentation indicator).
fn literal_ok(text: &str) -> bool {
    text.contains('\n')
        && !text.starts_with(' ')
        && !text.starts_with('\n')
        && text.chars().all(|c| c == '\n' || shown(c))
        && text
            .split('\n')
            .all(|l| l.is_empty() || !l.trim().is_empty())
}

/// `text` as a double-quoted YAML scalar.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xFF => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// A key: plain when it reads back as itself. `on` is plain too: it is GitHub's own
/// key, read as a string by GitHub and by every YAML 1.2 reader.
fn key(text: &str) -> String {
    if text == "on" || plain_ok(text) {
        text.to_string()
    } else {
        quote(text)
    }
}

/// The document: `comments` first (each line a `# ` comment), then `root`.
pub fn document(comments: &[String], root: &Node) -> String {
    let mut out = String::new();
    for c in comments {
        comment(&mut out, c, 0);
    }
    if !comments.is_empty() {
        out.push('\n');
    }
    write(&mut out, root, 0);
    out
}

fn comment(out: &mut String, text: &str, indent: usize) {
    for line in text.lines() {
        let clean: String = line.chars().filter(|c| shown(*c)).collect();
        let clean = clean.trim_end();
        out.push_str(&" ".repeat(indent));
        if clean.is_empty() {
            out.push_str("#\n");
        } else {
            out.push_str(&format!("# {clean}\n"));
        }
    }
}

fn write(out: &mut String, node: &Node, indent: usize) {
    let pad = " ".repeat(indent);
    match node {
        Node::Map(entries) if entries.is_empty() => out.push_str(&format!("{pad}{{}}\n")),
        Node::List(items) if items.is_empty() => out.push_str(&format!("{pad}[]\n")),
        Node::Map(entries) => {
            for (i, e) in entries.iter().enumerate() {
                if !e.comments.is_empty() {
                    if i > 0 {
                        out.push('\n');
                    }
                    for c in &e.comments {
                        comment(out, c, indent);
                    }
                }
                out.push_str(&format!("{pad}{}:", key(&e.key)));
                after_indicator(out, &e.value, indent + 2);
            }
        }
        Node::List(items) => {
            for item in items {
                out.push_str(&format!("{pad}-"));
                match item {
                    Node::Map(entries) if !entries.is_empty() => {
                        // The first entry on the dash's line, the rest under it.
                        for (i, e) in entries.iter().enumerate() {
                            if i == 0 {
                                out.push(' ');
                            } else {
                                for c in &e.comments {
                                    comment(out, c, indent + 2);
                                }
                                out.push_str(&format!("{pad}  "));
                            }
                            out.push_str(&format!("{}:", key(&e.key)));
                            after_indicator(out, &e.value, indent + 4);
                        }
                    }
                    other => after_indicator(out, other, indent + 2),
                }
            }
        }
        scalar => {
            out.push_str(&pad);
            after_indicator(out, scalar, indent);
        }
    }
}

/// After `key:` or `-`: a scalar on the same line (or a block under it), an empty
/// collection on the same line, else the collection on the lines below.
fn after_indicator(out: &mut String, node: &Node, indent: usize) {
    match node {
        Node::Str(text) if plain_ok(text) => out.push_str(&format!(" {text}\n")),
        Node::Str(text) if literal_ok(text) => {
            let body = text.trim_end_matches('\n');
            let chomp = match text.len() - body.len() {
                0 => "-",
                1 => "",
                _ => "+",
            };
            out.push_str(&format!(" |{chomp}\n"));
            for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
                if !line.is_empty() {
                    out.push_str(&" ".repeat(indent));
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        Node::Str(text) => out.push_str(&format!(" {}\n", quote(text))),
        Node::Int(n) => out.push_str(&format!(" {n}\n")),
        Node::Bool(b) => out.push_str(&format!(" {b}\n")),
        Node::Map(p) if p.is_empty() => out.push_str(" {}\n"),
        Node::List(i) if i.is_empty() => out.push_str(" []\n"),
        other => {
            out.push('\n');
            write(out, other, indent);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_plain_only_where_they_read_back_as_strings() {
        for plain in [
            "ubuntu-latest",
            "actions/checkout@v7",
            "${{ secrets.WF_RESULT_KEY }}",
            "wf run-task --ci -- 'T1'",
            "1 day",
            "T3 - Count the words",
            "统计单词",
        ] {
            assert!(plain_ok(plain), "{plain}");
        }
        for quoted in [
            "",
            "on",
            "No",
            "null",
            "~",
            "true",
            "1",
            "0123abcd",
            "1.5",
            "-1",
            ".inf",
            "2026-01-02",
            "a: b",
            "a #b",
            "a:",
            " lead",
            "trail ",
            "*alias",
            "&a",
            "!tag",
            "'q",
            "\"q",
            "|",
            ">",
            "- x",
            "[x]",
            "{x}",
            "%x",
            "@x",
            "`x",
            "x\u{202e}y",
            "x\u{7}y",
            "x\ty",
        ] {
            assert!(!plain_ok(quoted), "{quoted:?}");
        }
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(
            quote("x\ny\r\u{7f}é\u{2028}"),
            "\"x\\ny\\x0d\\x7f\\xe9\\u2028\""
        );
    }

    #[test]
    fn nesting_comments_and_blocks_read_as_a_person_writes_them() {
        let doc = Node::Map(vec![
            Entry::new("on", map(vec![("workflow_dispatch", map(vec![]))])),
            Entry::new(
                "steps",
                Node::List(vec![
                    map(vec![
                        ("uses", s("a@v1")),
                        (
                            "with",
                            map(vec![
                                ("k", s("v")),
                                ("n", Node::Int(1)),
                                ("count", Node::Int(2)),
                            ]),
                        ),
                    ]),
                    map(vec![("run", s("one \\\n  two\n"))]),
                ]),
            ),
            Entry::new("needs", strs(["a", "b"])).commented(vec!["T1 runs \u{1b}here".into()]),
            Entry::new("empty", Node::List(vec![])),
            Entry::new("flag", Node::Bool(false)),
            Entry::new("odd key", s("yes")),
        ]);
        assert_eq!(
            document(&["top\nsecond".into()], &doc),
            "# top\n# second\n\non:\n  workflow_dispatch: {}\nsteps:\n  - uses: a@v1\n    with:\n      k: v\n      \"n\": 1\n      count: 2\n  - run: |\n      one \\\n        two\n\n# T1 runs here\nneeds:\n  - a\n  - b\nempty: []\nflag: false\nodd key: \"yes\"\n"
        );
    }

    proptest::proptest! {
        /// Whatever the text, a YAML 1.2 reader of someone else's reads back the very
        /// string that was written, as a key and as a value, at any depth.
        #[test]
        fn any_text_reads_back_as_itself(
            text in "(?s)[ -~\n\t\r\u{85}\u{a0}\u{e9}\u{2028}\u{202e}\u{feff}\u{7f}\u{1b}]{0,40}",
            key_text in "[ -~\u{e9}]{1,12}",
        ) {
            let doc = Node::Map(vec![Entry::new(
                "jobs",
                Node::List(vec![Node::Map(vec![
                    Entry::new("first", s(text.clone())),
                    Entry::new(key_text.clone(), s(text.clone())),
                ])]),
            )]);
            let written = document(std::slice::from_ref(&text), &doc);
            let docs = yaml_rust2::YamlLoader::load_from_str(&written)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}: {written}")))?;
            let item = &docs[0]["jobs"][0];
            proptest::prop_assert_eq!(item["first"].as_str(), Some(text.as_str()), "{}", written);
            proptest::prop_assert_eq!(item[key_text.as_str()].as_str(), Some(text.as_str()), "{}", written);
        }
    }
}
