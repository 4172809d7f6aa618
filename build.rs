//! Names the layout of a task record in the snapshot for this build: a hash of the
//! files whose types and serde attributes decide how a task is written. A writer
//! copies a record from an earlier snapshot only when the task index says a build
//! with this layout wrote it (`src/state/snapshot_file.rs`), so a build that writes
//! a task differently never keeps another build's bytes.
//!
//! And names the commit the build is of, for `wf --version` (`WF_VERSION`: `0.1.0
//! (1a2b3c4d5e6f)`, the version alone outside a git checkout).

use std::hash::{Hash, Hasher};

const LAYOUT_SOURCES: &[&str] = &[
    "src/state/model.rs",
    "src/state/evidence.rs",
    "src/state/machine.rs",
];

fn main() {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for path in LAYOUT_SOURCES {
        println!("cargo:rerun-if-changed={path}");
        std::fs::read(path)
            .unwrap_or_else(|e| panic!("build.rs: cannot read {path}: {e}"))
            .hash(&mut hasher);
    }
    env!("CARGO_PKG_VERSION").hash(&mut hasher);
    println!("cargo:rustc-env=WF_RECORD_LAYOUT={:016x}", hasher.finish());
    let version = env!("CARGO_PKG_VERSION");
    match commit() {
        Some(commit) => println!("cargo:rustc-env=WF_VERSION={version} ({commit})"),
        None => println!("cargo:rustc-env=WF_VERSION={version}"),
    }
}

/// The short hash of the checked-out commit, asking to run again when HEAD or the
/// branch it names moves; `None` without git or a repository.
fn commit() -> Option<String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = std::process::Command::new("git").args(args).output().ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
    };
    let hash = git(&["rev-parse", "--short=12", "HEAD"])?;
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        // A path that does not exist would run this script, and rebuild wf, every time.
        match git(&["rev-parse", "--git-path", &name]) {
            Some(path) if std::path::Path::new(&path).exists() => {
                println!("cargo:rerun-if-changed={path}");
            }
            _ => {}
        }
    }
    Some(hash)
}
