//! A task's ids as a [`Glance`](crate::state::model::Glance) gives them ([`Ids`]),
//! and the packed form a task left unread keeps its own id and the ids it names in
//! ([`Packed`]).
//!
//! An unread task is what a fresh import holds of every task until the snapshot is
//! written, and what a load from the task index holds of every task it does not
//! look at (`state::task_ref`). Held as a `String` and a `Vec<String>` each, a task
//! of one dependency took three allocations (the id, the list, the dependency) and
//! 96 bytes of heap for some fifteen bytes of text, a good part of a large
//! import's peak. Packed, the words share one allocation, and
//! none when they fit in the handle's 24 bytes (a task id and one or two more).

/// Words in one string, each as its length in bytes, a `:`, and itself: an id
/// may be any text a state file holds, so no separator is safe. Held inline up to
/// 24 bytes (`compact_str`): `5:T00125:T0005` takes no allocation.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Packed(compact_str::CompactString);

impl Packed {
    /// `words`, packed in order: sized first, so the text is allocated once, and
    /// each length written by `itoa`, without the formatting machinery.
    pub fn new<'a, W>(words: W) -> Packed
    where
        W: IntoIterator<Item = &'a str>,
        W::IntoIter: Clone,
    {
        let words = words.into_iter();
        let size = words
            .clone()
            .map(|w| itoa::Buffer::new().format(w.len()).len() + 1 + w.len())
            .sum();
        let mut text = compact_str::CompactString::with_capacity(size);
        let mut digits = itoa::Buffer::new();
        for word in words {
            text.push_str(digits.format(word.len()));
            text.push(':');
            text.push_str(word);
        }
        Packed(text)
    }

    /// The first word: the id, where a task's own id comes first (an index entry, a
    /// plan's node). Empty when there is none.
    pub fn first(&self) -> &str {
        self.words(0, 1).next().unwrap_or_default()
    }

    /// The words from the `skip`th on, `count` of them.
    pub fn words(&self, skip: usize, count: usize) -> Ids<'_> {
        let mut ids = Ids(Words::Packed {
            rest: self.0.as_str(),
            left: skip.saturating_add(count),
        });
        for _ in 0..skip {
            ids.next();
        }
        ids
    }
}

/// A count kept beside packed words (how many are deps, how many blockers), or a
/// plan's line or position, as `u32`: saturated, not checked — a plan is at most
/// 64 MiB, and a list of four billion ids would take over 8 GB of state text.
pub fn narrow(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl std::fmt::Debug for Packed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(Ids(Words::Packed {
                rest: self.0.as_str(),
                left: usize::MAX,
            }))
            .finish()
    }
}

/// Ids of one kind (a task's deps, its blockers), in order.
#[derive(Clone)]
pub struct Ids<'a>(Words<'a>);

#[derive(Clone)]
enum Words<'a> {
    Listed(std::slice::Iter<'a, String>),
    Packed { rest: &'a str, left: usize },
}

impl<'a> Ids<'a> {
    pub fn listed(ids: &'a [String]) -> Ids<'a> {
        Ids(Words::Listed(ids.iter()))
    }

    pub fn is_empty(&self) -> bool {
        self.clone().next().is_none()
    }

    /// The ids, each its own `String`.
    pub fn to_vec(&self) -> Vec<String> {
        self.clone().map(str::to_owned).collect()
    }
}

impl<'a> Iterator for Ids<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match &mut self.0 {
            Words::Listed(ids) => ids.next().map(String::as_str),
            Words::Packed { rest, left } => {
                if *left == 0 {
                    return None;
                }
                let (word, tail) = next_word(rest)?;
                *left -= 1;
                *rest = tail;
                Some(word)
            }
        }
    }
}

/// The first packed word of `rest` and what follows it. The length's digits are read
/// a byte at a time: each id is read again every time a read path's digest looks at
/// it.
fn next_word(rest: &str) -> Option<(&str, &str)> {
    let bytes = rest.as_bytes();
    let mut len = 0usize;
    let mut at = 0;
    loop {
        match *bytes.get(at)? {
            b':' if at > 0 => break,
            digit @ b'0'..=b'9' => {
                len = len
                    .checked_mul(10)?
                    .checked_add(usize::from(digit - b'0'))?;
            }
            _ => return None,
        }
        at += 1;
    }
    rest[at + 1..].split_at_checked(len)
}

#[cfg(test)]
impl PartialEq<[&str]> for Ids<'_> {
    fn eq(&self, other: &[&str]) -> bool {
        self.clone().eq(other.iter().copied())
    }
}

#[cfg(test)]
impl<const N: usize> PartialEq<[&str; N]> for Ids<'_> {
    fn eq(&self, other: &[&str; N]) -> bool {
        *self == other[..]
    }
}

impl std::fmt::Debug for Ids<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

impl serde::Serialize for Ids<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn packed_words_read_back_in_order_by_kind() {
        let packed = Packed::new(["T1", "T0", "", "a:b", "12:x"]);
        assert_eq!(packed.words(0, 1), ["T1"]);
        assert_eq!(packed.first(), "T1");
        assert_eq!(Packed::default().first(), "");
        assert_eq!(packed.words(1, 2), ["T0", ""]);
        assert_eq!(packed.words(3, 2), ["a:b", "12:x"]);
        assert!(packed.words(5, 0).is_empty());
        assert_eq!(format!("{packed:?}"), r#"["T1", "T0", "", "a:b", "12:x"]"#);
    }

    #[test]
    fn words_of_any_length_read_back() {
        let words: Vec<String> = [0, 1, 9, 10, 99, 100, 12_345].map(|n| "é".repeat(n)).into();
        let packed = Packed::new(words.iter().map(String::as_str));
        assert!(packed.words(0, 7).eq(words.iter().map(String::as_str)));
    }

    proptest! {
        #[test]
        fn any_words_pack_and_read_back(words in proptest::collection::vec(".*", 0..6), split in 0usize..6) {
            let split = split.min(words.len());
            let packed = Packed::new(words.iter().map(String::as_str));
            let head: Vec<&str> = packed.words(0, split).collect();
            let tail: Vec<&str> = packed.words(split, words.len() - split).collect();
            prop_assert_eq!(head, words[..split].iter().map(String::as_str).collect::<Vec<_>>());
            prop_assert_eq!(tail, words[split..].iter().map(String::as_str).collect::<Vec<_>>());
        }
    }
}
