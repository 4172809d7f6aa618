//! Reading the index files `wf` writes for itself beside a state (`task-index.json`,
//! `mirror-index.json`) by hand: a head of a few fields through serde, then one long
//! array of rows, each a JSON array of fields in a fixed order. Through serde's
//! derived visitors the rows were most of such a file's read — a visitor per field,
//! an allocation per string (the task index was a fifth of a crash read's
//! instructions; the mirror index at 100,000 tasks, 290 M instructions) — while here
//! a string without escapes is copied once. The files are only ever ours and only
//! caches: anything else — another layout, a torn write — reads as `None`, and the
//! caller does without.

use std::borrow::Cow;

/// The rest of an index file, read from the front.
pub struct IndexReader<'a> {
    rest: &'a [u8],
}

impl<'a> IndexReader<'a> {
    /// The head of `bytes` — the object's fields before `,"<rows>":` — read as `H`,
    /// and a reader at the rows' value.
    pub fn after_head<H: serde::de::DeserializeOwned>(
        bytes: &'a [u8],
        rows: &str,
    ) -> Option<(H, Self)> {
        let key = format!(",\"{rows}\":");
        let head_len = bytes.windows(key.len()).position(|w| w == key.as_bytes())?;
        let mut head = bytes[..head_len].to_vec();
        head.push(b'}');
        let head = serde_json::from_slice(&head).ok()?;
        let reader = IndexReader {
            rest: &bytes[head_len + key.len()..],
        };
        Some((head, reader))
    }

    /// The object's `}`, and nothing after it.
    pub fn end(mut self) -> Option<()> {
        self.byte(b'}')?;
        self.rest.is_empty().then_some(())
    }

    pub fn byte(&mut self, b: u8) -> Option<()> {
        self.rest = self.rest.strip_prefix(&[b])?;
        Some(())
    }

    /// Whether `word` is next, taken if it is.
    pub fn word(&mut self, word: &[u8]) -> bool {
        match self.rest.strip_prefix(word) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// `[item, …]`.
    pub fn array<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.byte(b'[')?;
        let mut items = Vec::new();
        if self.word(b"]") {
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            if self.word(b"]") {
                return Some(items);
            }
            self.byte(b',')?;
        }
    }

    pub fn number(&mut self) -> Option<u64> {
        crate::state::event_log::take_u64(&mut self.rest)
    }

    pub fn bool(&mut self) -> Option<bool> {
        if self.word(b"true") {
            Some(true)
        } else if self.word(b"false") {
            Some(false)
        } else {
            None
        }
    }

    pub fn string(&mut self) -> Option<String> {
        self.str().map(Cow::into_owned)
    }

    /// A JSON string, borrowed from the file; one with an escape is left to serde.
    pub fn str(&mut self) -> Option<Cow<'a, str>> {
        let body = self.rest.strip_prefix(b"\"")?;
        let len = body
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < b' ')?;
        if body[len] == b'"' {
            let s = crate::state::event_log::text_of(&body[..len])?;
            self.rest = &body[len + 1..];
            return Some(Cow::Borrowed(s));
        }
        self.value::<String>().map(Cow::Owned)
    }

    /// One JSON value of a self-delimiting kind (string, array, object) through serde.
    pub fn value<T: serde::de::DeserializeOwned>(&mut self) -> Option<T> {
        let mut values = serde_json::Deserializer::from_slice(self.rest).into_iter::<T>();
        let value = values.next()?.ok()?;
        self.rest = &self.rest[values.byte_offset()..];
        Some(value)
    }
}
