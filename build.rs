//! Names the layout of a task record in the snapshot for this build: a hash of the
//! files whose types and serde attributes decide how a task is written. A writer
//! copies a record from an earlier snapshot only when the task index says a build
//! with this layout wrote it (`src/state/snapshot_file.rs`), so a build that writes
//! a task differently never keeps another build's bytes.

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
}
