//! The index files `wf` writes for itself beside a state and its plan copy
//! (`summary.json`, `task-index.json`, `mirror-index.json`): caches that name the
//! file they describe, written to temp files and renamed into place once that file
//! is ([`Staged`]), and the row files among them read by hand ([`IndexReader`]): a
//! head of a few fields through serde, then one long array of rows, each a JSON
//! array of fields in a fixed order. Through serde's derived visitors the rows were
//! most of such a file's read — a visitor per field, an allocation per string —
//! while here a string without escapes is copied once. The files are only ever ours
//! and only caches: anything else — another layout, a torn write — reads as `None`,
//! and the caller does without.

use std::borrow::Cow;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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
    pub fn array<T>(&mut self, item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.array_of_at_most(0, item)
    }

    /// [`IndexReader::array`] of what is likely at most `capacity` items: held in one
    /// allocation from the start, not grown (and copied) a doubling at a time. Room
    /// never written to costs no memory.
    pub fn array_of_at_most<T>(
        &mut self,
        capacity: usize,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Vec<T>> {
        self.byte(b'[')?;
        let mut items = Vec::with_capacity(capacity);
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
        take_u64(&mut self.rest)
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
            let s = std::str::from_utf8(&body[..len]).ok()?;
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

/// Index files of one directory written to temp files beside their places — swept
/// like every `.tmp-*` a killed writer leaves — and renamed there by
/// [`Staged::place`] once what they name is in place; dropped before that, they are
/// removed, and the old ones still name the old file.
#[must_use]
pub struct Staged {
    dir: PathBuf,
    /// Each temp file and the name it takes, in the order they were written.
    temps: Vec<(PathBuf, &'static str)>,
}

impl Staged {
    pub fn new(dir: &Path) -> Staged {
        Staged {
            dir: dir.to_path_buf(),
            temps: Vec::new(),
        }
    }

    /// Writes the index file `name` with `write`, to a temp file opened without
    /// following a planted link. Streamed: an index of 100,000 tasks is never held
    /// whole in memory. Best effort: a failed write leaves nothing to place.
    pub fn add(
        &mut self,
        name: &'static str,
        write: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> serde_json::Result<()>,
    ) {
        // One name per temp file: staged files wait for another file's sync and
        // rename, so two stagings of one index in a process must not share one.
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let tmp = self.dir.join(format!(
            "{}{name}-{}-{}",
            crate::fs::durable::TMP_PREFIX,
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let Ok(file) = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
        else {
            return;
        };
        // The snapshot's buffer size: std's default writes a large index in many
        // times more calls.
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, &file);
        let written = write(&mut out)
            .map_err(std::io::Error::from)
            .and_then(|()| out.flush());
        drop(out);
        drop(file);
        match written {
            Ok(()) => self.temps.push((tmp, name)),
            Err(_) => {
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }

    /// Renames them into place, each on its own: one that cannot be renamed is
    /// removed and the rest still placed. Best effort, as their writes.
    pub fn place(mut self) {
        for (tmp, name) in std::mem::take(&mut self.temps) {
            if std::fs::rename(&tmp, self.dir.join(name)).is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for (tmp, _) in &self.temps {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// A JSON integer of digits alone at the start of `rest`, taken off it, when it is one
/// serde_json reads as this `u64`: no leading zero, no overflow. Anything else is
/// left to serde.
fn take_u64(rest: &mut &[u8]) -> Option<u64> {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let (number, after) = rest.split_at(digits);
    let value = number.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })?;
    *rest = after;
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_files_are_placed_once_what_they_name_is_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.json"), "old a").unwrap();
        // A directory where one goes: its rename fails.
        std::fs::create_dir_all(dir.path().join("d.json").join("in the way")).unwrap();
        let stage = || {
            let mut staged = Staged::new(dir.path());
            staged.add("d.json", |w| serde_json::to_writer(w, "new d"));
            staged.add("a.json", |w| serde_json::to_writer(w, "new a"));
            staged.add("b.json", |w| serde_json::to_writer(w, "new b"));
            // A write that fails leaves nothing to place.
            staged.add("c.json", |_| Err(serde::ser::Error::custom("full")));
            staged
        };
        let names = || {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        // Dropped (what they name was never put in place): as they were.
        drop(stage());
        assert_eq!(names(), ["a.json", "d.json"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.json")).unwrap(),
            "old a"
        );
        // One that cannot be placed is removed, and the rest are still placed.
        stage().place();
        assert_eq!(names(), ["a.json", "b.json", "d.json"]);
        assert!(dir.path().join("d.json").join("in the way").is_dir());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.json")).unwrap(),
            "\"new a\""
        );
    }
}
