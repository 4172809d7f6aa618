//! A small YAML writer for the exported pipelines: every key and every scalar is a
//! double-quoted string with everything outside printable ASCII escaped, so no value
//! can end its line, start a comment, open a flow collection or be read as a number,
//! a boolean or `null` — whatever text it holds. Maps keep their order.

/// A YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Str(String),
    /// `true` or `false`, unquoted: from a Rust `bool`, never from text.
    Bool(bool),
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
}

/// A string scalar.
pub fn s(text: impl Into<String>) -> Node {
    Node::Str(text.into())
}

/// A map from `(key, value)` pairs, in order.
pub fn map(pairs: Vec<(&str, Node)>) -> Node {
    Node::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
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

/// The document: `comments` first (each line a `# ` comment), then `root`.
pub fn document(comments: &[String], root: &Node) -> String {
    let mut out = String::new();
    for c in comments {
        for line in c.lines() {
            // A comment ends at the line's end; a control character could end it early.
            let clean: String = line.chars().filter(|c| !c.is_control()).collect();
            out.push_str(&format!("# {clean}\n").replace("# \n", "#\n"));
        }
    }
    write(&mut out, root, 0);
    out
}

fn write(out: &mut String, node: &Node, indent: usize) {
    let pad = " ".repeat(indent);
    match node {
        Node::Str(text) => {
            out.push_str(&format!("{pad}{}\n", quote(text)));
        }
        Node::Bool(b) => out.push_str(&format!("{pad}{b}\n")),
        Node::Map(pairs) if pairs.is_empty() => out.push_str(&format!("{pad}{{}}\n")),
        Node::List(items) if items.is_empty() => out.push_str(&format!("{pad}[]\n")),
        Node::Map(pairs) => {
            for (k, v) in pairs {
                out.push_str(&format!("{pad}{}:", quote(k)));
                inline_or_nested(out, v, indent + 2);
            }
        }
        Node::List(items) => {
            for item in items {
                out.push_str(&format!("{pad}-"));
                match item {
                    Node::Map(pairs) if !pairs.is_empty() => {
                        // The first pair on the dash's line, the rest under it.
                        let mut first = true;
                        for (k, v) in pairs {
                            if first {
                                out.push_str(&format!(" {}:", quote(k)));
                                first = false;
                            } else {
                                out.push_str(&format!("{pad}  {}:", quote(k)));
                            }
                            inline_or_nested(out, v, indent + 4);
                        }
                    }
                    other => inline_or_nested(out, other, indent + 2),
                }
            }
        }
    }
}

/// After `key:` or `-`: a scalar or an empty collection on the same line, else the
/// collection on the lines below.
fn inline_or_nested(out: &mut String, node: &Node, indent: usize) {
    match node {
        Node::Str(text) => out.push_str(&format!(" {}\n", quote(text))),
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
    fn every_scalar_is_quoted_and_escaped() {
        assert_eq!(quote("on"), "\"on\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(
            quote("x\ny\r\u{7f}é\u{2028}"),
            "\"x\\ny\\x0d\\x7f\\xe9\\u2028\""
        );
        assert_eq!(
            quote("${{ secrets.X }} # not a comment"),
            "\"${{ secrets.X }} # not a comment\""
        );
    }

    #[test]
    fn nesting_reads_as_yaml() {
        let doc = map(vec![
            ("on", map(vec![("workflow_dispatch", map(vec![]))])),
            (
                "steps",
                Node::List(vec![
                    map(vec![
                        ("uses", s("a@v1")),
                        ("with", map(vec![("k", s("v"))])),
                    ]),
                    map(vec![("run", s("true"))]),
                ]),
            ),
            ("needs", Node::List(vec![s("a"), s("b")])),
            ("empty", Node::List(vec![])),
            ("flag", Node::Bool(false)),
        ]);
        assert_eq!(
            document(&["top\nsecond\u{1b}".into()], &doc),
            "# top\n# second\n\"on\":\n  \"workflow_dispatch\": {}\n\"steps\":\n  - \"uses\": \"a@v1\"\n    \"with\":\n      \"k\": \"v\"\n  - \"run\": \"true\"\n\"needs\":\n  - \"a\"\n  - \"b\"\n\"empty\": []\n\"flag\": false\n"
        );
    }
}
