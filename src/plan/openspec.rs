//! OpenSpec's `tasks.md` (`openspec/changes/<change>/tasks.md`): `## 1. Group`
//! headings over `- [ ] 1.1 Task` lines, every checkbox of the file a task (as
//! OpenSpec's own progress counts them). Read by the checklist parser
//! (`checklist/`); the brief carries the change's `proposal.md` and its spec deltas
//! (`specs/<capability>/spec.md`).

use std::path::Path;

use super::checklist::{Checklist, Counter, Dialect};
use super::doc::{self, Line};
use super::format::{Context, Detector, Evidence, Facts};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

/// A document the brief carries is cut at this many bytes (a proposal is meant to
/// be one or two pages).
const MAX_DOCUMENT: usize = 16 * 1024;

pub(crate) static OPENSPEC: Checklist = Checklist {
    name: "openspec",
    example: "`## 1. Group` headings over `- [ ] 1.1 Task` lines",
    dialect: Dialect {
        section: None,
        dash: TaskStatus::Skipped,
        criteria: None,
    },
    detector: |path| Box::new(OpenSpec::new(path)),
    context: change_context,
};

/// The change folder, its proposal whole and its spec deltas' requirement headings.
fn change_context(plan: &Path, _task: &Task) -> Context {
    let mut context = Context::folder_of(
        plan,
        "Change folder",
        &["proposal.md", "design.md", "specs/"],
    );
    let Some(dir) = plan.parent() else {
        return context;
    };
    if let Some(text) = read_capped(&dir.join("proposal.md")) {
        context
            .documents
            .push(("Change proposal (proposal.md)".into(), text));
    }
    let mut deltas = Vec::new();
    spec_files(&dir.join("specs"), 4, &mut deltas);
    deltas.sort();
    for path in deltas {
        if let Some(text) = read_capped(&path) {
            let rel = path
                .strip_prefix(dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            context
                .documents
                .push((format!("Spec delta ({rel})"), text));
        }
    }
    context
}

/// The `spec.md` files under `dir`, `depth` folders down at most (a capability path
/// may be nested: `specs/identity/user-auth/spec.md`); links are not followed.
fn spec_files(dir: &Path, depth: usize, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() && depth > 0 {
            spec_files(&e.path(), depth - 1, out);
        } else if kind.is_file() && e.file_name() == "spec.md" {
            out.push(e.path());
        }
    }
}

/// A document's text, cut at [`MAX_DOCUMENT`] bytes (on a character boundary);
/// none for a file that is missing or not text.
fn read_capped(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)?;
    let text = std::fs::read_to_string(path).ok()?;
    if (meta.len() as usize) <= MAX_DOCUMENT {
        return Some(text);
    }
    let mut cut = MAX_DOCUMENT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Some(format!(
        "{}\n\n… (cut at {MAX_DOCUMENT} bytes)",
        text.get(..cut).unwrap_or("")
    ))
}

/// Detection: numbered checkboxes (every checkbox under `openspec/changes/`), and
/// OpenSpec's numbered group headings.
struct OpenSpec {
    count: Counter,
    path: bool,
    groups: usize,
}

impl OpenSpec {
    fn new(path: Option<&Path>) -> OpenSpec {
        let p = path.map(Path::to_string_lossy).unwrap_or_default();
        OpenSpec {
            count: Counter::new(None),
            path: p.contains("openspec/changes/") || p.contains("openspec/specs/"),
            groups: 0,
        }
    }
}

impl Detector for OpenSpec {
    fn line(&mut self, line: &Line<'_>, facts: &Facts<'_>) {
        if self.count.line(facts) {
            // `## 1. Setup`: a numbered group heading.
            let numbered = doc::heading(&line.text).is_some_and(|(level, h)| {
                level == 2
                    && h.split_once(". ").is_some_and(|(n, _)| {
                        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
                    })
            });
            self.groups += usize::from(numbered);
        }
    }

    fn finish(mut self: Box<Self>, _text: &str) -> Evidence {
        let (tasks, first) = self.count.counted_tasks(self.path);
        let mut why = vec![first];
        if self.path {
            why.push("path openspec/changes/".into());
        }
        if self.groups > 0 {
            why.push(format!("{} `## 1. Group` headings", self.groups));
        }
        Evidence {
            tasks,
            signs: 2 * usize::from(self.path) + usize::from(self.groups > 0),
            bare: self.path,
            fallback: false,
            why,
        }
    }
}
