//! Task ids and blocker kinds: what a valid one is, and for one that is not, the
//! reason and the id it was probably meant to be (a look-alike letter, an invisible
//! character). Shared by both plan formats.

use super::doc::shown;
use super::PlanError;

pub(crate) fn is_valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

pub(crate) fn bad_id(line: usize, id: &str) -> PlanError {
    let (why, example) = match bad_char(id) {
        Some(c) if !c.is_ascii() => (
            format!(" ({})", char_problem(c)),
            id_suggestion(id).unwrap_or_else(|| "T1".into()),
        ),
        _ => (String::new(), "T1".into()),
    };
    PlanError::new(
        line,
        format!(
            "task id {}{why} is not valid; use 1-64 letters, digits, '_', '.' or '-', e.g. {example}",
            shown(id),
        ),
    )
}

/// The first character an id may not hold.
fn bad_char(id: &str) -> Option<char> {
    id.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
}

/// Zero-width and other format characters a reader does not see.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{00ad}' | '\u{180e}')
}

/// Cyrillic and Greek capitals (and a few small letters) that look like ASCII ones.
const LOOKALIKES: &[(char, char)] = &[
    ('А', 'A'),
    ('В', 'B'),
    ('Е', 'E'),
    ('К', 'K'),
    ('М', 'M'),
    ('Н', 'H'),
    ('О', 'O'),
    ('Р', 'P'),
    ('С', 'C'),
    ('Т', 'T'),
    ('Х', 'X'),
    ('а', 'a'),
    ('е', 'e'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('у', 'y'),
    ('х', 'x'),
    ('Α', 'A'),
    ('Β', 'B'),
    ('Ε', 'E'),
    ('Ζ', 'Z'),
    ('Η', 'H'),
    ('Ι', 'I'),
    ('Κ', 'K'),
    ('Μ', 'M'),
    ('Ν', 'N'),
    ('Ο', 'O'),
    ('Ρ', 'P'),
    ('Τ', 'T'),
    ('Υ', 'Y'),
    ('Χ', 'X'),
];

fn char_problem(c: char) -> String {
    let code = format!("U+{:04X}", u32::from(c));
    if is_invisible(c) {
        format!("it holds an invisible character, {code}")
    } else if LOOKALIKES.iter().any(|(l, _)| *l == c) {
        format!("it holds '{c}' ({code}), which looks like a Latin letter but is not one")
    } else if c.is_control() || c.is_whitespace() {
        format!("it holds {code}")
    } else {
        format!("it holds '{c}' ({code})")
    }
}

/// Why `id` (not a valid id) is not one, as a clause: `the id "Т2" holds …`.
pub(crate) fn id_problem(id: &str) -> String {
    let what = match bad_char(id) {
        Some(c) => char_problem(c),
        None if id.len() > 64 => "it is longer than 64 bytes".to_string(),
        None => "it is empty".to_string(),
    };
    format!("the id {} is not valid: {what}", shown(id))
}

/// `id` with look-alike letters made ASCII and other bad characters dropped, when
/// that leaves a valid id.
pub(crate) fn id_suggestion(id: &str) -> Option<String> {
    let fixed: String = id
        .chars()
        .filter_map(|c| match LOOKALIKES.iter().find(|(l, _)| *l == c) {
            Some((_, ascii)) => Some(*ascii),
            None => (c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')).then_some(c),
        })
        .collect();
    (is_valid_id(&fixed) && fixed.bytes().any(|b| b.is_ascii_digit())).then_some(fixed)
}

pub(crate) fn is_valid_kind(kind: &str) -> bool {
    let mut b = kind.bytes();
    b.next().is_some_and(|c| c.is_ascii_lowercase())
        && kind.len() <= 32
        && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_problems_and_suggestions() {
        assert!(
            id_problem("\u{422}2").contains("'\u{422}' (U+0422), which looks like a Latin letter")
        );
        assert!(id_problem("T\u{200b}2").contains("an invisible character, U+200B"));
        assert!(id_problem("T2🚀").contains("'🚀' (U+1F680)"));
        assert_eq!(id_suggestion("\u{422}2").as_deref(), Some("T2"));
        assert_eq!(id_suggestion("T\u{200b}2").as_deref(), Some("T2"));
        assert_eq!(id_suggestion("🚀"), None);
        let e = bad_id(3, "T1$(x)");
        assert!(e.message.ends_with("e.g. T1"), "{}", e.message);
    }
}
