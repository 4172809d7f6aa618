//! What `wf proof export` and `wf proof check` print (docs/proof.md "Portable
//! proof"): a line per task that no longer matches, with which input changed, and a
//! verdict that names the document.

use serde_json::{json, Value};

// Every text `clean`: the document and the plan behind it are input from elsewhere.
use super::one_line as clean;
use super::plural;
use crate::proof::document::{Check, Document, Standing, TaskCheck};

/// Ids as a list for a sentence.
fn ids<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items.map(clean).collect::<Vec<_>>().join(", ")
}

/// The tasks whose evidence is out of date, for a sentence: `the evidence of T2 is
/// out of date (shared.txt changed)`; at most five named.
pub fn stale_text(stale: &[(String, Vec<String>)]) -> String {
    const SHOWN: usize = 5;
    let mut named: Vec<String> = stale
        .iter()
        .take(SHOWN)
        .map(|(id, why)| format!("{} ({})", clean(id), clean(&why.join(", "))))
        .collect();
    if stale.len() > SHOWN {
        named.push(format!("and {} more", stale.len() - SHOWN));
    }
    format!(
        "the evidence of {} {} out of date: {}",
        if stale.len() == 1 {
            "one task"
        } else {
            "these tasks"
        },
        if stale.len() == 1 { "is" } else { "are" },
        named.join("; ")
    )
}

/// What `wf proof export FILE` says once the document is written.
pub fn export_text(doc: &Document, file: &str) -> String {
    let bare: Vec<&str> = doc
        .tasks
        .iter()
        .filter(|t| t.evidence.is_none())
        .map(|t| t.id.as_str())
        .collect();
    let mut text = format!(
        "Wrote {}: the proof of {} completed {}",
        clean(file),
        doc.tasks.len(),
        plural(doc.tasks.len(), "task", "tasks")
    );
    if !bare.is_empty() {
        text.push_str(&format!(
            "; {} without evidence ({}): `wf verify` records it",
            bare.len(),
            ids(bare.into_iter())
        ));
    }
    if !doc.not_completed.is_empty() {
        text.push_str(&format!(
            "; {} {} not completed",
            doc.not_completed.len(),
            plural(doc.not_completed.len(), "task", "tasks")
        ));
    }
    text.push_str(&format!(
        ". Check it anywhere with `wf proof check {}`.",
        clean(file)
    ));
    text
}

fn line(t: &TaskCheck) -> Option<String> {
    let why = clean(&t.changed.join("; "));
    Some(match t.result {
        Standing::Matches => return None,
        Standing::Changed => format!("✗ {} changed: {why}", clean(&t.id)),
        Standing::Tampered => format!(
            "✗ {} was edited after the export: its recorded fingerprint is not the hash of its recorded inputs{}",
            clean(&t.id),
            if why.is_empty() {
                String::new()
            } else {
                format!(" (differs from the tree: {why})")
            }
        ),
        Standing::NoEvidence => format!(
            "- {} has no evidence (completed before wf kept evidence): nothing to check",
            clean(&t.id)
        ),
    })
}

/// The text report of `wf proof check`.
pub fn check_text(doc: &Document, file: &str, check: &Check) -> String {
    let mut lines: Vec<String> = check.tasks.iter().filter_map(line).collect();
    if !check.intact {
        lines.push(format!(
            "✗ {} was edited after the export: its digest is not the hash of its content",
            clean(file)
        ));
    }
    let proven = check.tasks.len() - check.count(Standing::NoEvidence);
    let matching = check.count(Standing::Matches);
    let mut summary = if check.ok() {
        format!(
            "{}: {} proven {} match{} the working tree",
            clean(file),
            if proven == matching && proven > 1 {
                format!("all {proven}")
            } else {
                proven.to_string()
            },
            plural(proven, "task", "tasks"),
            if proven == 1 { "es" } else { "" }
        )
    } else {
        format!(
            "{}: {matching} of {proven} proven tasks match the working tree",
            clean(file)
        )
    };
    let undeclared = check
        .tasks
        .iter()
        .filter(|t| t.result == Standing::Matches && !t.declares_files)
        .count();
    if undeclared > 0 {
        summary.push_str(&format!(
            " ({undeclared} declare{} no files: only {} definition and the tasks upstream are covered)",
            if undeclared == 1 { "s" } else { "" },
            if undeclared == 1 { "its" } else { "their" }
        ));
    }
    let no_evidence = check.count(Standing::NoEvidence);
    if no_evidence > 0 {
        summary.push_str(&format!("; {no_evidence} completed without evidence"));
    }
    if !doc.not_completed.is_empty() {
        summary.push_str(&format!(
            "; {} {} of the plan not completed ({})",
            doc.not_completed.len(),
            plural(doc.not_completed.len(), "task", "tasks"),
            ids(doc.not_completed.iter().map(|t| t.id.as_str()))
        ));
    }
    summary.push('.');
    let of = |s: Standing| -> Vec<&str> {
        check
            .tasks
            .iter()
            .filter(|t| t.result == s)
            .map(|t| t.id.as_str())
            .collect()
    };
    let changed = of(Standing::Changed);
    let tampered = of(Standing::Tampered);
    if !changed.is_empty() {
        summary.push_str(&format!(
            " Changed since the export: {}; `wf verify` checks them again, then export again.",
            ids(changed.into_iter())
        ));
    }
    if !tampered.is_empty() {
        summary.push_str(&format!(
            " Edited after the export: {}.",
            ids(tampered.iter().copied())
        ));
    }
    if !check.intact || !tampered.is_empty() {
        summary.push_str(
            " The document proves nothing as it stands: export it again where the workflow is.",
        );
    }
    lines.push(summary);
    lines.join("\n")
}

/// The `--json` document of `wf proof check` (docs/json/proof-check.schema.json).
pub fn check_json(doc: &Document, file: &str, check: &Check) -> Value {
    json!({
        "file": file,
        "ok": check.ok(),
        "intact": check.intact,
        "plan_file": doc.plan_file,
        "plan_digest": doc.plan_digest,
        "exported_at": doc.exported_at,
        "tasks": check.tasks,
        "mismatches": check.mismatches,
        "counts": {
            "matches": check.count(Standing::Matches),
            "changed": check.count(Standing::Changed),
            "tampered": check.count(Standing::Tampered),
            "no_evidence": check.count(Standing::NoEvidence),
        },
        "not_completed": doc.not_completed.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
    })
}
