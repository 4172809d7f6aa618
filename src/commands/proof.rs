//! `wf proof export FILE` and `wf proof check FILE`: the portable proof
//! (`src/proof/document.rs`, docs/proof.md "Portable proof"). Export reads the state
//! without a lock; check reads no workflow at all, only the document and the
//! project's files, so it works in a fresh clone.

use std::path::Path;

use crate::cli::{ProofArgs, ProofCommand};
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::proof::document::{self, Document};

pub fn run(explicit: Option<&Path>, args: &ProofArgs, out: &Output) -> Result<i32> {
    match &args.command {
        ProofCommand::Export { file, allow_stale } => {
            export(&Project::discover(explicit)?, file, *allow_stale, out)
        }
        ProofCommand::Check { file } => check(&Project::locate(explicit)?, file, out),
    }
}

fn export(project: &Project, file: &Path, allow_stale: bool, out: &Output) -> Result<i32> {
    let (_store, state) = super::load_state(project)?;
    let stale = crate::proof::now::stale(&project.dir, &state)?;
    if !stale.is_empty() && !allow_stale {
        return Err(WfError::new(
            crate::error::ErrorKind::Failed,
            format!(
                "{} not written: {}; `wf verify` checks them again (then export), or `--allow-stale` exports the proof as it is",
                file.display(),
                crate::report::proof::stale_text(&stale)
            ),
        ));
    }
    let doc = document::export(&state, &project.dir, crate::clock::now_rfc3339())?;
    let text = doc.to_json();
    if file == Path::new("-") {
        // The document is the product, --json or not.
        out.print(&text)?;
        return Ok(0);
    }
    crate::fs::durable::write_output(file, text.as_bytes(), "cannot write")?;
    if out.json {
        // The document itself, as `run-task --result` does: one schema reads both.
        out.print(&text)?;
    }
    out.say(crate::report::proof::export_text(
        &doc,
        &file.display().to_string(),
    ));
    if !stale.is_empty() {
        out.warn(format!(
            "exported with --allow-stale: {}",
            crate::report::proof::stale_text(&stale)
        ));
    }
    Ok(0)
}

fn check(dir: &Path, file: &Path, out: &Output) -> Result<i32> {
    let name = if file == Path::new("-") {
        "stdin".to_string()
    } else {
        file.display().to_string()
    };
    let bytes = if file == Path::new("-") {
        use std::io::Read;
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| WfError::io(&e, format!("cannot read the proof on stdin: {e}")))?;
        bytes
    } else {
        crate::fs::read_regular(file).map_err(|e| {
            WfError::new(
                e.kind,
                format!(
                    "cannot read {name}: {}; name the file `wf proof export FILE` wrote",
                    e.message
                ),
            )
        })?
    };
    let doc = Document::parse(&bytes, &name)?;
    let result = document::check(&doc, dir);
    out.json_value(&crate::report::proof::check_json(&doc, &name, &result));
    out.conclude(
        &crate::report::proof::check_text(&doc, &name, &result),
        result.ok(),
    );
    Ok(i32::from(!result.ok()))
}
