//! Reading plans: from a markdown file to a validated task graph.
//!
//! Every format (docs/plans.md) is a module behind the `Reader` interface of
//! `format.rs`, listed once in its `READERS`: claude-workflow (`claude/`,
//! `fields.rs`), spec-kit (`speckit/`), the checklists (`checklist/`: Kiro, OpenSpec,
//! BMAD, a plain list) and Taskmaster (`taskmaster/`). [`parse`] detects the
//! format, builds the tasks and validates the graph (`graph.rs`); [`read_outline`]
//! does the same without holding the tasks, which an [`Outline`] gives one at a
//! time (`outline.rs`, for the import).
//! Reading writes nothing, so a bad plan leaves every file as it was (the one writer
//! here is [`mirror`], which a run calls to show statuses in the plan's copy). Every
//! error is one line, `<file>:<line>: <what>; <fix>`.
//!
//! Around the parsers: [`classify`] marks tasks that wait on an external input
//! (docs/plans.md "Classification"), [`audit`] runs the zero-decision audit,
//! [`diff`] compares two imports, [`mirror`] writes task statuses back into the plan
//! text and [`render`] writes a plan from tasks (fixtures and property tests).

pub mod adopt;
pub mod anchor;
pub mod audit;
mod bmad;
mod checklist;
pub mod classify;
mod claude;
pub mod diff;
pub mod digest;
mod doc;
mod fields;
pub mod format;
mod graph;
mod ids;
pub mod inline;
pub mod jobs;
mod kiro;
mod limits;
pub mod locate;
mod marks;
pub mod mirror;
mod openspec;
mod outline;
mod paths;
mod plain;
pub mod render;
mod repeats;
pub mod replan;

/// How the store reads and writes a workflow's plan (see `state::store::PlanAccess`).
pub const STORE_ACCESS: crate::state::store::PlanAccess = crate::state::store::PlanAccess {
    adopt: adopt::adopt,
    mirror: mirror::mirror_plan_copy,
    digest_file: digest::file_digest,
};
mod speckit;
mod status;
mod taskmaster;
mod values;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod prop_tests;
#[cfg(test)]
mod test_support;

use std::path::Path;

use serde::Serialize;

use crate::error::{Result, WfError};
use crate::state::model::Task;
pub use format::{Context, Format};
pub use outline::Outline;

/// A parsed, validated plan: tasks in document order.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub format: Format,
    /// Why detection picked the format, or that `--format` named it.
    pub detected: String,
    pub title: Option<String>,
    pub tasks: Vec<Task>,
    /// What was read but may not be what the author meant, in line order.
    pub warnings: Vec<PlanWarning>,
}

/// A line of the plan that looks like part of a task but was not read as one (or was
/// read with a guess): never an error, always shown with its line so nothing is
/// dropped without a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanWarning {
    pub line: usize,
    /// `<what>; <fix>`, one line.
    pub message: String,
    /// The line looks like a task of its own that could not be read: when a plan has
    /// no tasks, the first such line is the error instead of "no tasks".
    #[serde(skip)]
    pub(crate) unread_task: bool,
}

impl PlanWarning {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> Self {
        PlanWarning {
            line,
            message: message.into(),
            unread_task: false,
        }
    }

    /// A warning for a line that looks like a task but could not be read as one.
    pub(crate) fn unread_task(line: usize, message: impl Into<String>) -> Self {
        PlanWarning {
            unread_task: true,
            ..PlanWarning::new(line, message)
        }
    }
}

/// Plans larger than this are refused before they are read into memory.
const MAX_PLAN_BYTES: u64 = 64 * 1024 * 1024;

/// An error inside the plan, before it is given the file's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlanError {
    pub line: usize,
    /// `<what>; <fix>`, one line.
    pub message: String,
}

impl PlanError {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> Self {
        PlanError {
            line,
            message: message.into(),
        }
    }
}

/// A task on its way into the graph.
#[derive(Debug, Clone)]
pub(crate) struct Draft {
    pub task: Task,
    /// The line that lists the task's explicit deps (its own line when none does).
    pub deps_line: usize,
    /// spec-kit: which `## ` section the task sits in (phase order edges).
    pub group: usize,
}

/// Detects the format, parses and validates. `path` is used in error messages and
/// as a hint of the format (`.kiro/specs/…`).
pub fn parse(path: &Path, text: &str) -> Result<Plan> {
    parse_as(path, text, None)
}

/// [`parse`] in the format `forced` names (`--format`), else the one detected.
pub fn parse_as(path: &Path, text: &str, forced: Option<Format>) -> Result<Plan> {
    let (outline, tasks) = outline::read(path, text, forced, true)?;
    Ok(Plan {
        format: outline.format,
        detected: outline.detected,
        title: outline.title,
        tasks,
        warnings: outline.warnings,
    })
}

/// Reads a plan file, refusing what is not UTF-8 text, then [`parse_as`]s it.
/// Returns the text as read (the caller keeps a copy) and the plan.
pub fn read(path: &Path, forced: Option<Format>) -> Result<(String, Plan)> {
    let text = read_text(path)?;
    let plan = parse_as(path, &text, forced)?;
    Ok((text, plan))
}

/// [`read`], the tasks left in the text: an [`Outline`] of the checked plan, which
/// gives them one at a time.
pub fn read_outline(path: &Path, forced: Option<Format>) -> Result<(String, Outline)> {
    let text = read_text(path)?;
    let (outline, _) = outline::read(path, &text, forced, false)?;
    Ok((text, outline))
}

/// A plan file's text, refusing what is not a regular file of UTF-8 text.
fn read_text(path: &Path) -> Result<String> {
    let shown = path_shown(path);
    let meta = std::fs::metadata(path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        WfError::io(
            &e,
            format!("{why}: {shown}; give the path of a tasks.md plan file"),
        )
    })?;
    if meta.is_dir() {
        return Err(WfError::usage(format!(
            "{shown}: is a directory; give the path of a tasks.md plan file"
        )));
    }
    // A FIFO or device would make the read below block or never end.
    if !meta.is_file() {
        return Err(WfError::usage(format!(
            "{shown}: is not a regular file (a pipe, socket or device); give the path of a tasks.md plan file"
        )));
    }
    if meta.len() > MAX_PLAN_BYTES {
        return Err(WfError::usage(format!(
            "{shown}: the plan is {} bytes, more than the {MAX_PLAN_BYTES} a plan may have; split it into smaller plans",
            meta.len()
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| WfError::io(&e, format!("cannot read {shown}: {e}")))?;
    check_text(&shown, bytes)
}

/// Refuses empty, binary and non-UTF-8 files with the position of the problem.
fn check_text(shown: &str, bytes: Vec<u8>) -> Result<String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(WfError::usage(format!(
            "{shown}:1: the plan file is empty; write tasks as `## T1: name` headings (claude-workflow) or `- [ ] T001 description` lines (spec-kit)"
        )));
    }
    if let Some(pos) = bytes.iter().position(|b| *b == 0) {
        let (line, col) = crate::fs::line_col(&bytes, pos);
        return Err(WfError::usage(format!(
            "{shown}:{line}:{col}: contains a NUL byte, so it is not a text file; give a UTF-8 markdown plan"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let pos = e.utf8_error().valid_up_to();
        let (line, col) = crate::fs::line_col(e.as_bytes(), pos);
        WfError::usage(format!(
            "{shown}:{line}:{col}: not valid UTF-8; save the plan as UTF-8"
        ))
    })
}

/// The path for an error message, on one line whatever its bytes.
fn path_shown(path: &Path) -> String {
    path.display()
        .to_string()
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// The format of a plan text, or `None` when it is none wf reads.
pub(crate) fn detect_format(text: &str) -> Option<Format> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    format::detect(text, None).ok().map(|d| d.format)
}

fn empty_plan(format: Format, lines: &[doc::Line<'_>]) -> PlanError {
    if let Some(better) = format.reader().no_tasks(lines) {
        return better;
    }
    let hint = if doc::has_template(lines) {
        " (this looks like an unfilled template: `{{…}}` placeholders are not tasks)"
    } else {
        ""
    };
    PlanError::new(
        1,
        format!(
            "the {} plan has no tasks{hint}; add tasks as {}",
            format.name(),
            format.reader().example()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_named_once() {
        let names: Vec<&str> = Format::all().map(Format::name).collect();
        for f in Format::all() {
            assert_eq!(Format::named(f.name()), Some(f));
            assert_eq!(names.iter().filter(|n| **n == f.name()).count(), 1);
            assert!(!f.reader().spot_kinds().is_empty(), "{}", f.name());
        }
        assert_eq!(Format::named("asciidoc"), None);
    }

    #[test]
    fn format_names_and_serde() {
        assert_eq!(Format::CLAUDE_WORKFLOW.name(), "claude-workflow");
        assert_eq!(
            serde_json::to_string(&Format::SPEC_KIT).unwrap(),
            "\"spec-kit\""
        );
    }

    #[test]
    fn mixed_files_go_to_the_majority() {
        let spec = "## US1: Browse\n- [ ] T001 a\n- [ ] T002 b\n";
        assert_eq!(
            parse(Path::new("p"), spec).unwrap().format,
            Format::SPEC_KIT
        );
        let claude =
            "## T1: a\n- **actions**: x\n## T2: b\n- **actions**: x\n- [ ] T001 checklist\n";
        let plan = parse(Path::new("p"), claude).unwrap();
        assert_eq!(plan.format, Format::CLAUDE_WORKFLOW);
        assert_eq!(plan.tasks.len(), 2);
    }

    #[test]
    fn neither_format_is_one_line_error() {
        let err = parse(Path::new("p.md"), "# Notes\n\nhello\n").unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::Usage);
        assert!(err.message.starts_with("p.md:1: not a task plan"));
        assert!(!err.message.contains('\n'));
    }

    #[test]
    fn read_refuses_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        };
        let p = write("empty.md", b"\n  \n");
        let msg = read(&p, None).unwrap_err().message;
        assert!(msg.ends_with("empty.md:1: the plan file is empty; write tasks as `## T1: name` headings (claude-workflow) or `- [ ] T001 description` lines (spec-kit)"), "{msg}");
        let p = write("nul.md", b"## T1: a\nab\0c");
        let msg = read(&p, None).unwrap_err().message;
        assert!(msg.ends_with("nul.md:2:3: contains a NUL byte, so it is not a text file; give a UTF-8 markdown plan"), "{msg}");
        let p = write("latin1.md", b"## T1: a\n- **\xe9**: x");
        let msg = read(&p, None).unwrap_err().message;
        assert!(
            msg.ends_with("latin1.md:2:5: not valid UTF-8; save the plan as UTF-8"),
            "{msg}"
        );
        let msg = read(dir.path(), None).unwrap_err().message;
        assert!(msg.contains("is a directory"), "{msg}");
        let msg = read(&dir.path().join("missing.md"), None)
            .unwrap_err()
            .message;
        assert!(msg.contains("missing.md"), "{msg}");
        let p = write("ok.md", "\u{feff}## T1: a\n- **actions**: x\n".as_bytes());
        let (text, plan) = read(&p, None).unwrap();
        assert!(text.starts_with('\u{feff}'));
        assert_eq!(plan.tasks.len(), 1);
    }
}
