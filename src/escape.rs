//! Text from a plan, a result or a command's output on its way to a reader's
//! terminal: every control character shown as its escape (`\u{1b}`, `\u{9b}`, `\r`),
//! so a task's name, a requirement or a check's output cannot drive the terminal — no
//! CSI that clears the screen or moves the cursor, no OSC that sets the window title
//! or writes the clipboard (OSC 52), no C1 control — and the reader still sees that
//! something was there. Every place such text reaches a terminal goes through
//! [`controls`]; `--json` documents carry the text as it is (JSON has its own escapes).

use std::borrow::Cow;

/// What [`controls`] does with newlines and tabs, the two control characters text
/// is laid out with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// Kept: text of several lines (a requirement, a log).
    Keep,
    /// Each a space: one line of a table, a list, a progress line.
    Space,
    /// Escaped too (`\n`, `\t`): a message that must stay one line and say exactly
    /// what its input held.
    Escape,
}

/// `text` on one line for a table cell or a message: every control character
/// escaped, newlines and tabs made spaces.
pub fn one_line(text: &str) -> String {
    controls(text, Lines::Space).into_owned()
}

/// `text` with every control character (C0, DEL, C1) but, as `lines` says, newline
/// and tab written as its escape; borrowed when there is none.
pub fn controls(text: &str, lines: Lines) -> Cow<'_, str> {
    let kept = |c: char| lines == Lines::Keep && (c == '\n' || c == '\t');
    let changed = |c: char| c.is_control() && !kept(c);
    if !text.chars().any(changed) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' | '\t' if lines == Lines::Space => out.push(' '),
            c if changed(c) => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A command's output on its way to a reader: colour and style sequences (SGR,
/// `ESC [ … m`, which test runners print when forced to) dropped, since shown as
/// escapes they bury the words they colour, then every other control as [`controls`]
/// shows it, newlines and tabs kept.
pub fn output(text: &str) -> Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return controls(text, Lines::Keep);
    }
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\u{1b}') {
        kept.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let params = after.strip_prefix('[').map(|p| {
            p.len()
                - p.trim_start_matches(|c: char| c.is_ascii_digit() || c == ';')
                    .len()
        });
        match params {
            Some(n) if after[1 + n..].starts_with('m') => rest = &after[n + 2..],
            _ => {
                kept.push('\u{1b}');
                rest = after;
            }
        }
    }
    kept.push_str(rest);
    Cow::Owned(controls(&kept, Lines::Keep).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_drops_colour_and_escapes_every_other_sequence() {
        assert_eq!(output("\u{1b}[31mFAILED\u{1b}[0m t1\n"), "FAILED t1\n");
        assert_eq!(output("\u{1b}[1;32mok\u{1b}[m"), "ok");
        assert_eq!(
            output("\u{1b}[2J\u{1b}]52;c;eA==\u{7}"),
            "\\u{1b}[2J\\u{1b}]52;c;eA==\\u{7}"
        );
        assert_eq!(output("\u{1b}[31"), "\\u{1b}[31");
        assert_eq!(output("plain"), "plain");
    }

    #[test]
    fn every_control_is_shown_escaped_and_text_is_left_alone() {
        let osc52 = "a\u{1b}]52;c;cHduZWQ=\u{7}b";
        assert_eq!(
            controls(osc52, Lines::Keep),
            "a\\u{1b}]52;c;cHduZWQ=\\u{7}b"
        );
        assert_eq!(
            controls("\u{9b}2J\r\0\u{7f}", Lines::Keep),
            "\\u{9b}2J\\r\\u{0}\\u{7f}"
        );
        assert_eq!(controls("a\n\tb", Lines::Keep), "a\n\tb");
        assert_eq!(controls("a\n\tb\u{1b}", Lines::Space), "a  b\\u{1b}");
        assert_eq!(controls("a\n\tb", Lines::Escape), "a\\n\\tb");
        assert!(matches!(
            controls("日本語 ✓", Lines::Escape),
            Cow::Borrowed(_)
        ));
    }

    proptest::proptest! {
        #[test]
        fn no_control_character_is_left_but_the_kept_ones(text in "\\PC*|[\\x00-\\x{9f}]*") {
            for lines in [Lines::Keep, Lines::Space, Lines::Escape] {
                let out = controls(&text, lines);
                proptest::prop_assert!(out
                    .chars()
                    .all(|c| !c.is_control() || (lines == Lines::Keep && (c == '\n' || c == '\t'))));
            }
        }
    }
}
