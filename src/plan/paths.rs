//! The files a task's line names, for the formats that do not list them in fields
//! (spec-kit, the checklists, Taskmaster): which words of its text are paths (a known
//! extension, a directory, a known top directory, or backticked) and which only look
//! like one (URLs, routes, word lists, product names).

use super::doc;
use crate::state::model::Task;

pub(super) const EXTENSIONS: &[&str] = &[
    "py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "vue", "svelte", "css", "scss", "sass",
    "less", "html", "rs", "go", "java", "kt", "swift", "rb", "php", "c", "h", "cc", "cpp", "hpp",
    "cs", "m", "md", "json", "yaml", "yml", "toml", "sql", "sh", "proto", "graphql", "dart", "ex",
    "exs", "scala", "lua", "xml", "ini", "cfg", "txt", "lock",
];

/// `file` is the first path the task names, `modifies` the others (spec-kit does not
/// say which files a task creates; `creates` is checked for existence after the run,
/// `modifies` is not).
pub(crate) fn add_paths(task: &mut Task, paths: Vec<String>) {
    for p in paths {
        if task.file.as_deref() == Some(p.as_str()) || task.modifies.contains(&p) {
            continue;
        }
        if task.file.is_none() {
            task.file = Some(p);
        } else {
            task.modifies.push(p);
        }
    }
}

/// The file paths `text` names, in order: backticked ones first, then bare words
/// that look like paths (see [`is_path`]); never a URL, a route after an HTTP method,
/// or a word of punctuation.
pub(crate) fn paths_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |p: &str| {
        if !out.iter().any(|o| o == p) {
            out.push(p.to_string());
        }
    };
    let spans = doc::code_spans(text);
    for span in &spans {
        let w = clean_word(span);
        if is_path(w, true) {
            push(w);
        }
    }
    let mut bare = text.to_string();
    for span in &spans {
        bare = bare.replacen(span, " ", 1);
    }
    let mut after_method = false;
    for raw in bare.split_whitespace() {
        let w = clean_word(raw);
        if !after_method && is_path(w, false) {
            push(w);
        }
        after_method = HTTP_METHODS.contains(&w);
    }
    out
}

pub(super) const HTTP_METHODS: &[&str] =
    &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// A word without the punctuation around it that is not part of a path.
pub(super) fn clean_word(w: &str) -> &str {
    w.trim()
        .trim_start_matches(['(', '"', '\'', '“', '‘', '[', '<', '`', '*'])
        .trim_end_matches([
            ',', '.', ';', ':', ')', '"', '\'', '”', '’', '`', '*', '!', '?', '，', '。', '；',
            '：', '）',
        ])
}

/// Top-level directories that make an extensionless `a/b/c` a path.
pub(super) const ROOTS: &[&str] = &[
    "src",
    "lib",
    "app",
    "apps",
    "test",
    "tests",
    "spec",
    "specs",
    "docs",
    "doc",
    "pkg",
    "cmd",
    "internal",
    "scripts",
    "packages",
    "crates",
    "backend",
    "frontend",
    "server",
    "client",
    "public",
    "config",
    "migrations",
    "include",
    "bin",
    "assets",
    "components",
    "web",
];

/// Files without an extension that tasks name.
pub(super) const BARE_FILES: &[&str] = &[
    "Dockerfile",
    "Makefile",
    "Procfile",
    "Gemfile",
    "Rakefile",
    "Justfile",
    "LICENSE",
    "Containerfile",
];

/// Product names written like files.
pub(super) const NOT_FILES: &[&str] = &[
    "node.js",
    "next.js",
    "vue.js",
    "nuxt.js",
    "react.js",
    "three.js",
    "chart.js",
    "d3.js",
    "express.js",
    "angular.js",
    "ember.js",
    "backbone.js",
    "socket.io",
    "p5.js",
    "alpine.js",
    "solid.js",
    "nest.js",
    "deno.js",
];

pub(crate) fn is_path(w: &str, ticked: bool) -> bool {
    let ext_ok = |seg: &str| {
        seg.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && EXTENSIONS.iter().any(|e| ext.eq_ignore_ascii_case(e))
        })
    };
    if w.is_empty()
        || w.contains("://")
        || w.contains(['<', '>', '|', '`', '*', '{', '}', '='])
        || w.contains(char::is_whitespace)
        || NOT_FILES.iter().any(|n| w.eq_ignore_ascii_case(n))
    {
        return false;
    }
    // Segments read in place, not collected: every word of every task line is asked.
    // URL routes: `/api/users/:id`, `/venues`.
    if w.split('/').any(|s| s.starts_with(':')) {
        return false;
    }
    let last = w.rsplit('/').next().unwrap_or("");
    if w.starts_with('/') {
        return ext_ok(last);
    }
    if !w.contains('/') {
        return ext_ok(w) || BARE_FILES.contains(&w);
    }
    if w.ends_with('/') || last.contains('.') {
        return true;
    }
    let first = w.split('/').next().unwrap_or("");
    ticked || first.starts_with('.') || first == "~" || ROOTS.contains(&first)
}
