//! JSON read with the byte span of every value, so a status can be written back in
//! place (serde_json gives values, not where they are). Strict JSON (RFC 8259): a
//! syntax error is the offset where it is, for a `line:col` message.

/// A value and the bytes it spans in the text (`start..end`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub start: usize,
    pub end: usize,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    /// As written: `3`, `-1.5e3`.
    Number(String),
    String(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl Node {
    /// The member `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// A string, or a number as written: how ids are given.
    pub(crate) fn as_word(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            Value::Number(n) => Some(n),
            _ => None,
        }
    }
}

/// Nesting deeper than this is refused (the reader recurses once a level).
const MAX_DEPTH: usize = 128;

/// The whole of `text` as one value; an error is the byte offset and what is wrong.
pub(crate) fn parse(text: &str) -> Result<Node, (usize, String)> {
    let mut p = Parser {
        b: text.as_bytes(),
        text,
        at: 0,
    };
    p.space();
    let node = p.value(0)?;
    p.space();
    if p.at < p.b.len() {
        return Err((p.at, "more text after the JSON value".into()));
    }
    Ok(node)
}

/// The string literal at `at` in `text`: its end and its value.
pub(crate) fn string_at(text: &str, at: usize) -> Option<(usize, String)> {
    let mut p = Parser {
        b: text.as_bytes(),
        text,
        at,
    };
    let s = p.string().ok()?;
    Some((p.at, s))
}

struct Parser<'a> {
    b: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn space(&mut self) {
        while self
            .b
            .get(self.at)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, (usize, String)> {
        if depth > MAX_DEPTH {
            return Err((self.at, format!("nested more than {MAX_DEPTH} levels deep")));
        }
        let start = self.at;
        let value = match self.b.get(self.at) {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Value::String(self.string()?),
            Some(b't') => self.word("true", Value::Bool(true))?,
            Some(b'f') => self.word("false", Value::Bool(false))?,
            Some(b'n') => self.word("null", Value::Null)?,
            Some(c) if *c == b'-' || c.is_ascii_digit() => self.number()?,
            Some(_) => return Err((self.at, "expected a JSON value".into())),
            None => return Err((self.at, "the JSON ends early".into())),
        };
        Ok(Node {
            start,
            end: self.at,
            value,
        })
    }

    fn word(&mut self, w: &str, v: Value) -> Result<Value, (usize, String)> {
        if self.text.get(self.at..).is_some_and(|r| r.starts_with(w)) {
            self.at += w.len();
            Ok(v)
        } else {
            Err((self.at, "expected a JSON value".into()))
        }
    }

    fn number(&mut self) -> Result<Value, (usize, String)> {
        let start = self.at;
        while self
            .b
            .get(self.at)
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            self.at += 1;
        }
        let n = self.text.get(start..self.at).unwrap_or("");
        if serde_json::from_str::<serde_json::Number>(n).is_err() {
            return Err((start, format!("{n:?} is not a JSON number")));
        }
        Ok(Value::Number(n.to_string()))
    }

    /// A string literal: found by its closing quote, decoded by serde_json.
    fn string(&mut self) -> Result<String, (usize, String)> {
        let start = self.at;
        if self.b.get(self.at) != Some(&b'"') {
            return Err((self.at, "expected a string".into()));
        }
        self.at += 1;
        loop {
            match self.b.get(self.at) {
                Some(b'"') => break,
                Some(b'\\') => self.at += 2,
                Some(c) if *c < 0x20 => {
                    return Err((self.at, "a control character inside a string".into()))
                }
                Some(_) => self.at += 1,
                None => return Err((start, "a string that is not closed".into())),
            }
        }
        self.at += 1;
        let literal = self.text.get(start..self.at).unwrap_or("");
        serde_json::from_str(literal).map_err(|e| (start, format!("a bad string: {e}")))
    }

    fn array(&mut self, depth: usize) -> Result<Value, (usize, String)> {
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.b.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.space();
            items.push(self.value(depth + 1)?);
            self.space();
            match self.b.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err((self.at, "expected `,` or `]` in an array".into())),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, (usize, String)> {
        self.at += 1;
        let mut members = Vec::new();
        self.space();
        if self.b.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.space();
            let key = self.string()?;
            self.space();
            if self.b.get(self.at) != Some(&b':') {
                return Err((self.at, "expected `:` after an object key".into()));
            }
            self.at += 1;
            self.space();
            members.push((key, self.value(depth + 1)?));
            self.space();
            match self.b.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err((self.at, "expected `,` or `}` in an object".into())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_their_spans() {
        let text = r#" {"a": [1, -2.5e3, "x\"y\u00e9"], "b": {"c": null, "d": true}} "#;
        let root = parse(text).unwrap();
        assert_eq!((root.start, root.end), (1, text.len() - 1));
        let a = root.get("a").unwrap().as_array().unwrap();
        assert_eq!(a[1].value, Value::Number("-2.5e3".into()));
        assert_eq!(a[2].as_str(), Some("x\"yé"));
        assert_eq!(&text[a[2].start..a[2].end], r#""x\"y\u00e9""#);
        assert_eq!(
            string_at(text, a[2].start),
            Some((a[2].end, "x\"yé".into()))
        );
        assert_eq!(root.get("b").unwrap().get("c").unwrap().value, Value::Null);
    }

    #[test]
    fn errors_say_where() {
        for (text, at) in [
            ("{\"a\": 1,}", 8),
            ("[1 2]", 3),
            ("{\"a\" 1}", 5),
            ("\"open", 0),
            ("[01x]", 1),
            ("{} x", 3),
        ] {
            assert_eq!(parse(text).unwrap_err().0, at, "{text}");
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(parse(&deep).unwrap_err().1.contains("nested"));
    }
}
