//! docs/ARCHITECTURE.md stays true to `src/`: its "Module map" names every source
//! file, and every `src/…` path it writes in backquotes, anywhere on the page,
//! exists. A file added, moved or deleted without its line in the map fails here,
//! naming the file and where its line goes.
//!
//! A file is named by its full path in backquotes (`src/run/engine.rs`). A bullet
//! that begins with a directory (`` - `src/mcp/tools/` ``) stands for the files
//! directly in it, so a small directory of one purpose is one line. A path with a
//! placeholder in it (`src/plan/<format>.rs`, `src/report/*.rs`) names no one file
//! and is not checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn architecture() -> String {
    std::fs::read_to_string(repo().join("docs/ARCHITECTURE.md")).unwrap()
}

/// The text of the `## Module map` section, up to the next `## ` heading.
fn module_map(doc: &str) -> &str {
    let start = doc
        .find("\n## Module map\n")
        .expect("docs/ARCHITECTURE.md has a \"## Module map\" section");
    let body = &doc[start + 1..];
    let end = body[3..].find("\n## ").map_or(body.len(), |i| i + 4);
    &body[..end]
}

/// Every `src/…` path written in backquotes in `text`, placeholders left out.
fn src_paths(text: &str) -> BTreeSet<String> {
    let quoted = regex::Regex::new(r"`(src/[^`\s]*)`").unwrap();
    quoted
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .filter(|p| !p.contains(['<', '*']))
        .collect()
}

/// The directories that begin a bullet of `map` (`- `src/mcp/tools/` …`).
fn bullet_dirs(map: &str) -> BTreeSet<String> {
    let bullet = regex::Regex::new(r"(?m)^\s*- `(src/[^`\s]*/)`").unwrap();
    bullet
        .captures_iter(map)
        .map(|c| c[1].to_string())
        .collect()
}

/// Every `.rs` file under `src/`, as `src/…` paths.
fn source_files(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(repo()).unwrap();
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

#[test]
fn the_module_map_names_every_source_file() {
    let doc = architecture();
    let map = module_map(&doc);
    let named = src_paths(map);
    let dirs = bullet_dirs(map);
    let mut files = Vec::new();
    source_files(&repo().join("src"), &mut files);
    files.sort();
    let missing: Vec<_> = files
        .iter()
        .filter(|file| {
            let dir = &file[..=file.rfind('/').unwrap()];
            !named.contains(*file) && !dirs.contains(dir)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md \"## Module map\" does not name:\n{}\n\
         fix: add a bullet with the file's full path in backquotes and a sentence or \
         two on what it holds, under its module's paragraph",
        missing
            .iter()
            .map(|f| format!("  {f}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_src_path_in_the_architecture_page_exists() {
    let doc = architecture();
    let dead: Vec<_> = doc
        .lines()
        .enumerate()
        .flat_map(|(n, line)| src_paths(line).into_iter().map(move |p| (n + 1, p)))
        .filter(|(_, p)| !repo().join(p).exists())
        .map(|(n, p)| format!("  docs/ARCHITECTURE.md:{n}: `{p}`"))
        .collect();
    assert!(
        dead.is_empty(),
        "paths that do not exist:\n{}\n\
         fix: write the path the code has now (git log --stat names where it went), \
         or drop the sentence if what it named is gone",
        dead.join("\n")
    );
}
