//! The shape of `src/` that docs/ARCHITECTURE.md promises, read from the source. The
//! modules depend on each other one way only ("Layers"): a module may use another
//! only if it sits lower in [`LAYERS`], so a new upward `use crate::…` fails here
//! with the file that has it. And comments cite only what is in the repository.

use std::path::Path;

/// Lowest first. Modules on one line share a layer and may not use each other.
const LAYERS: &[&[&str]] = &[
    &["escape"],
    &["error", "clock", "beside"],
    &["output"],
    &["testing"],
    &["fs"],
    &["config"],
    &["state"],
    &["plan", "exec"],
    &["constraints", "proof"],
    &["run", "project"],
    &["setup", "agent", "import"],
    &["report"],
    &["complete", "mcp", "ui"],
    &["cli"],
    &["commands"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level module a file of `src/` belongs to (`src/run/engine.rs` → `run`).
fn module_of(rel: &str) -> &str {
    let first = rel.split('/').next().unwrap_or(rel);
    first.strip_suffix(".rs").unwrap_or(first)
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_uses_only_modules_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let used = regex::Regex::new(r"crate::([a-z_]+)").unwrap();
    let mut wrong = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let from = module_of(&rel);
        // The crate root and the binary's one-line shell (main.rs) sit above every
        // layer.
        if matches!(from, "lib" | "main") {
            continue;
        }
        let from_layer =
            layer(from).unwrap_or_else(|| panic!("{rel}: module {from} is in no layer"));
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for cap in used.captures_iter(line) {
                let to = &cap[1];
                let Some(to_layer) = layer(to) else { continue };
                if to != from && to_layer >= from_layer {
                    wrong.push(format!("src/{rel}:{}: {from} uses {to}", n + 1));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "upward or sideways uses:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_comment_cites_a_document_outside_the_repository() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let outside =
        regex::Regex::new(r"(?i:\bseed\s*0\d\d)|seeds/|\bDESIGN\.md|\.\./shared").unwrap();
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if outside.is_match(line) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "cite docs/ instead:\n{}",
        found.join("\n")
    );
}
