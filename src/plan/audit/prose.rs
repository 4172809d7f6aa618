//! What in a task's text is prose: code spans, URLs, file paths and names and the
//! task's own `(depends on …)` marker are set aside before any pattern is searched.

#[allow(clippy::wildcard_imports)] // the audit's shared imports and its sibling modules
use super::*;

/// A task's own dependency marker: `(depends on T003, T004)`, `depends on: T1 and T2`.
pub(super) static DEPENDS_MARKER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let id = r"[A-Za-z]+[0-9][A-Za-z0-9_.-]*";
    Regex::new(&format!(
        r"(?i)\(?\s*depends\s+on\s*[:：]?\s*{id}(?:\s*(?:,|，|、|&|\band\b)\s*{id})*\s*\)?"
    ))
    .ok()
});

/// The text as a reader takes it in: code spans, URLs, paths, file names and the
/// task's own `(depends on T1)` marker replaced by a space each.
pub(crate) fn prose(text: &str) -> String {
    let no_code = without_code_spans(text);
    let no_deps = match DEPENDS_MARKER.as_ref() {
        Some(re) => re.replace_all(&no_code, " "),
        None => Cow::Borrowed(no_code.as_str()),
    };
    without_paths(&no_deps)
}

/// Code spans (a backtick run up to the next run of the same length) replaced by a
/// space; an unclosed backtick stays as written.
pub(super) fn without_code_spans(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        out.push_str(rest.get(..start).unwrap_or(""));
        let from = rest.get(start..).unwrap_or("");
        let run = from.bytes().take_while(|b| *b == b'`').count();
        let body = from.get(run..).unwrap_or("");
        if let Some(end) = doc::find_closing_run(body, run) {
            out.push(' ');
            rest = body.get(end + run..).unwrap_or("");
        } else {
            out.push_str(from.get(..run).unwrap_or(""));
            rest = body;
        }
    }
    out.push_str(rest);
    out
}

/// Runs of ASCII non-space characters that are URLs, paths or file names, replaced
/// by a space. Other characters (CJK, `…`) end a run, so a path written against
/// Chinese text takes none of it along.
pub(crate) fn without_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut token_start: Option<usize> = None;
    let flush = |out: &mut String, token: &str| {
        if is_path_token(token) {
            out.push(' ');
        } else {
            out.push_str(token);
        }
    };
    for (i, c) in text.char_indices() {
        let in_token = c.is_ascii() && !c.is_ascii_whitespace();
        match (in_token, token_start) {
            (true, None) => token_start = Some(i),
            (false, Some(s)) => {
                flush(&mut out, text.get(s..i).unwrap_or(""));
                token_start = None;
                out.push(c);
            }
            (false, None) => out.push(c),
            (true, Some(_)) => {}
        }
    }
    if let Some(s) = token_start {
        flush(&mut out, text.get(s..).unwrap_or(""));
    }
    out
}

/// A URL, a path (`src/a.ts`, `docs/`, `./x`, `/etc/hosts`, `app/[slug]/page.tsx`) or
/// a file name with an extension (`TODO.md`, `todo.ts`).
pub(super) fn is_path_token(token: &str) -> bool {
    let t = token
        .trim_start_matches(['(', '"', '\'', '<', '*', '_'])
        .trim_end_matches([',', ';', ':', '.', '!', '?', ')', '"', '\'', '>', '*', '_']);
    if t.contains("://") || t.starts_with("www.") {
        return true;
    }
    let has_ext = |seg: &str| {
        seg.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && !stem.ends_with('.')
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                && ext.bytes().any(|b| b.is_ascii_alphabetic())
                && stem.bytes().any(|b| b.is_ascii_alphanumeric())
        })
    };
    let slashes = t.matches('/').count();
    if slashes == 0 {
        // `e.g.`, `i.e.` and `etc.` have nothing after their last dot.
        let name_chars = t
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        return name_chars && has_ext(t);
    }
    let last = t.rsplit('/').next().unwrap_or("");
    t.starts_with(['/', '.', '~', '@'])
        || t.ends_with('/')
        || has_ext(last)
        || slashes >= 2
        || t.contains("/[")
        || t.contains("]/")
}
