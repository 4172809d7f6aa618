//! The plan formats `wf` reads, each one module behind the [`Reader`] interface and
//! listed once in [`READERS`]; and detection, which asks every format what in a
//! text says it is that format and picks one, saying why.
//!
//! A format is told apart by its task lines — claude-workflow's `## T1: name`
//! headings, spec-kit's `- [ ] T001 …` lines, Kiro's and OpenSpec's numbered
//! checkboxes, a BMAD story's `## Tasks / Subtasks` checklist, Taskmaster's JSON task
//! objects — and the format with the most wins, so a minority of another format's
//! lines never flips it (a spec-kit plan with a few `### T001:` detail headings is
//! still spec-kit). Formats that read the same lines (Kiro and OpenSpec both read
//! numbered checkboxes) are told apart by what else the text and its path show.

use std::path::Path;

use super::doc::Line;
use super::outline::{Drafts, Node};
use super::{PlanError, PlanWarning};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

/// Every format, in the order a tie between two is decided: the one registration
/// line a new format adds.
static READERS: [&dyn Reader; 7] = [
    &super::claude::ClaudeWorkflow,
    &super::speckit::SpecKit,
    &super::kiro::KIRO,
    &super::openspec::OPENSPEC,
    &super::bmad::BMAD,
    &super::taskmaster::Taskmaster,
    &super::plain::PLAIN,
];

/// Which pass a parser runs for: the first keeps what it needs to resolve
/// dependencies once every task is known (spec-kit's links).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pass {
    First,
    Second,
}

/// What a format's parser leaves beside its drafts: spec-kit's dependency links,
/// resolved only on the first pass.
pub(crate) type Links = Option<super::speckit::Links>;

/// What in a text says it is one format.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Evidence {
    /// How many of its tasks the text shows (what the formats are weighed by).
    pub tasks: usize,
    /// Signs beside the tasks that only this format writes (a path, a section, a
    /// marker): what decides between formats that read the same task lines.
    pub signs: usize,
    /// The text has this format's marks without a task (an empty plan, a template).
    pub bare: bool,
    /// The format reads what no other does (a plain checklist): weighed only when
    /// no other format finds a task.
    pub fallback: bool,
    /// Why, in a few words: `12 \`- [ ] T001\` task lines`, `path .kiro/specs/`.
    pub why: Vec<String>,
}

/// One format's look at a text during detection ([`Reader::detector`]).
pub(crate) trait Detector {
    /// A line that is not hidden (fences, comments and front matter are), with what
    /// every format asks of it, worked out once.
    fn line(&mut self, line: &Line<'_>, facts: &Facts<'_>);
    /// What it saw; `text` is the whole text, for a format that reads it otherwise.
    fn finish(self: Box<Self>, text: &str) -> Evidence;
}

/// What detection works out of a line once for every format: every line of every
/// plan is looked at by each detector, and several ask the same.
pub(crate) struct Facts<'a> {
    /// `(level, text)` of an ATX heading.
    pub heading: Option<(usize, &'a str)>,
    /// A checkbox item with text (not a template's): whether it is numbered
    /// (`checklist::item_shape`).
    pub item: Option<bool>,
    /// The heading is a claude-workflow task's (`## T1: name`).
    pub claude_task: bool,
    /// The heading names a section that restates tasks or holds none
    /// (`checklist::not_tasks`: "Acceptance criteria", "Summary", …).
    pub not_tasks: bool,
    /// A spec-kit task line (`- [ ] T001 …`).
    pub task_line: Option<super::speckit::TaskLine<'a>>,
}

impl<'a> Facts<'a> {
    fn of(text: &'a str) -> Facts<'a> {
        let heading = super::doc::heading(text);
        let listed = heading.is_none() && text.trim_start().starts_with(['-', '*', '+']);
        Facts {
            heading,
            item: listed.then(|| super::checklist::item_shape(text)).flatten(),
            claude_task: heading.is_some() && super::claude::is_task_heading(text),
            not_tasks: heading.is_some_and(|(_, h)| super::checklist::not_tasks(h)),
            task_line: listed.then(|| super::speckit::task_line(text)).flatten(),
        }
    }
}

/// Where a plan shows a task's status, for the mirror (`mirror.rs`): the task, the
/// byte offset the spot starts at, and which of the format's kinds of spot it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spot<'a> {
    pub id: &'a str,
    pub at: usize,
    pub kind: &'static str,
}

/// A spot rewritten: the bytes it spans in the text (from its `at`) and what
/// replaces them; `None` when they already show the status.
pub(crate) type Shown = (usize, Option<String>);

/// A plan format: how to tell it, read it, and write a status back in its own syntax.
pub(crate) trait Reader: Sync {
    /// Its name in the state, the config and `--format`.
    fn name(&self) -> &'static str;

    /// How its tasks are written, for the "no tasks" error: "`## T1: name` headings".
    fn example(&self) -> &'static str;

    /// What says a text (at `path`, when known) is this format, told one visible
    /// line at a time: detection reads the text once for every format.
    fn detector(&self, path: Option<&Path>) -> Box<dyn Detector>;

    /// Reads the tasks of `text` (its BOM cut) into `drafts`, each once done with.
    fn parse(
        &self,
        text: &str,
        drafts: &mut Drafts<'_>,
        warnings: &mut Vec<PlanWarning>,
        pass: Pass,
    ) -> Result<Links, PlanError>;

    /// The plan's title, which names the workflow (none: the file name does).
    fn title(&self, text: &str) -> Option<String> {
        super::doc::title(text)
    }

    /// The dependencies the format implies beyond those written (spec-kit's phase
    /// order, a checklist's document order), added once the written ones are checked.
    fn add_implied_deps(&self, _nodes: &mut [Node]) {}

    /// Where the plan lists a task's dependencies, for the unknown-dependency error.
    fn deps_written_in(&self) -> &'static str;

    /// What a dependency cycle error adds: what else than the written deps counts.
    fn cycle_note(&self) -> &'static str {
        ""
    }

    /// A better "no tasks" error than the generic one, when the text shows why.
    fn no_tasks(&self, _lines: &[Line<'_>]) -> Option<PlanError> {
        None
    }

    /// Every spot of `text` that shows a task's status, in text order.
    fn spots(&self, text: &str, each: &mut dyn FnMut(Spot<'_>));

    /// The spot of kind `kind` at `at` in `text`, noted for task `id`, showing
    /// `status` (with none, only checked); `None` when the text there is not that
    /// spot (the text changed since it was noted).
    fn show(
        &self,
        text: &str,
        at: usize,
        kind: &'static str,
        id: &str,
        status: Option<TaskStatus>,
    ) -> Option<Shown>;

    /// The kinds of spot it notes, so the mirror index can name them.
    fn spot_kinds(&self) -> &'static [&'static str];

    /// The extension of the workflow's copy of the plan.
    fn extension(&self) -> &'static str {
        "md"
    }

    /// A task's text is laid out as claude-workflow fields: the audit looks for a
    /// field's lines and wants actions, and `阻塞依赖: none` opts out of classification.
    fn writes_fields(&self) -> bool {
        false
    }

    /// Whether the visible line `text` starts a task (ends the text of the one
    /// before it, for the audit).
    fn starts_task(&self, text: &str) -> bool;

    /// What the plan says around `task`, for its brief: `(key, value)` lines, then
    /// `(title, text)` documents. `plan` is the plan file the workflow was imported
    /// from.
    fn context(&self, _plan: &Path, _task: &Task) -> Context {
        Context::default()
    }
}

/// What a brief shows of the plan around a task (`Reader::context`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Context {
    /// `(key, text)`: `("Goal", "sign in")`.
    pub lines: Vec<(String, String)>,
    /// The folder the plan sits in with the documents of the format found there:
    /// `("Spec folder", dir, ["spec.md", "plan.md"])`.
    pub folder: Option<(&'static str, std::path::PathBuf, Vec<&'static str>)>,
    /// `(title, markdown)`: documents the brief carries whole (an OpenSpec change's
    /// proposal).
    pub documents: Vec<(String, String)>,
}

impl Context {
    /// The folder of `plan` with those of `docs` present in it, under `label`.
    pub(crate) fn folder_of(plan: &Path, label: &'static str, docs: &[&'static str]) -> Self {
        let folder = plan.parent().map(|dir| {
            let present = docs
                .iter()
                .copied()
                .filter(|d| dir.join(d.trim_end_matches('/')).exists())
                .collect();
            (label, dir.to_path_buf(), present)
        });
        Context {
            folder,
            ..Context::default()
        }
    }
}

/// A plan format: a handle on its [`Reader`], compared and serialized by name.
#[derive(Clone, Copy)]
pub struct Format(&'static dyn Reader);

impl Format {
    pub const CLAUDE_WORKFLOW: Format = Format(&super::claude::ClaudeWorkflow);
    pub const SPEC_KIT: Format = Format(&super::speckit::SpecKit);

    /// Every format, in the order ties are decided.
    pub fn all() -> impl Iterator<Item = Format> {
        READERS.iter().map(|r| Format(*r))
    }

    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The format a state's `plan_format`, a config or `--format` names; `None` for
    /// a name this `wf` does not know (a state from a newer one).
    pub fn named(name: &str) -> Option<Format> {
        Format::all().find(|f| f.name() == name)
    }

    /// Every format's name, for messages: `claude-workflow, spec-kit, …`.
    pub fn names() -> String {
        Format::all()
            .map(Format::name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(crate) fn reader(self) -> &'static dyn Reader {
        self.0
    }

    /// The extension of the workflow's copy of a plan of this format (`md`, `json`).
    pub fn extension(self) -> &'static str {
        self.0.extension()
    }

    /// See [`Reader::writes_fields`].
    pub fn writes_fields(self) -> bool {
        self.0.writes_fields()
    }

    /// What the plan at `plan` says around `task`, for its brief.
    pub fn context(self, plan: &Path, task: &Task) -> Context {
        self.0.context(plan, task)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// The format detection picked, and why: one line for `wf check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub format: Format,
    /// How many tasks it expects to read (room to reserve).
    pub(crate) expected: usize,
    /// `12 \`- [ ] T001\` task lines; 2 \`## T1:\` headings are fewer`.
    pub why: String,
}

/// The format of `text` at `path`: the one showing the most tasks, a tie decided by
/// the signs only one format writes, then by [`READERS`]' order. With no tasks
/// anywhere, the first format whose marks show (a template, an empty plan).
pub(crate) fn detect(text: &str, path: Option<&Path>) -> Result<Detected, PlanError> {
    let mut detectors: Vec<(Format, Box<dyn Detector>)> = Format::all()
        .map(|f| (f, f.reader().detector(path)))
        .collect();
    for line in super::doc::iter(text).filter(|l| !l.hidden) {
        let facts = Facts::of(&line.text);
        for (_, d) in &mut detectors {
            d.line(&line, &facts);
        }
    }
    let all: Vec<(Format, Evidence)> = detectors
        .into_iter()
        .map(|(f, d)| (f, d.finish(text)))
        .collect();
    let pick = |fallback: bool| {
        all.iter()
            .enumerate()
            .filter(|(_, (_, e))| e.tasks > 0 && e.fallback == fallback)
            .max_by_key(|(i, (_, e))| (e.tasks, e.signs, std::cmp::Reverse(*i)))
            .map(|(_, pick)| pick)
    };
    let best = pick(false).or_else(|| pick(true));
    if let Some((format, evidence)) = best {
        let mut why = evidence.why.clone();
        // A format counting as many tasks (Kiro and OpenSpec) does not have "fewer".
        let others: Vec<String> = all
            .iter()
            .filter(|(f, e)| f != format && e.tasks > 0 && !e.fallback && e.tasks != evidence.tasks)
            .map(|(f, e)| format!("{} has {}", f.name(), e.tasks))
            .collect();
        if !others.is_empty() {
            why.push(format!("fewer in other formats ({})", others.join(", ")));
        }
        return Ok(Detected {
            format: *format,
            expected: evidence.tasks,
            why: why.join("; "),
        });
    }
    if let Some((format, evidence)) = all.iter().find(|(_, e)| e.bare) {
        return Ok(Detected {
            format: *format,
            expected: 0,
            why: evidence.why.join("; "),
        });
    }
    Err(PlanError::new(
        1,
        format!(
            "not a task plan: found no tasks of any format wf reads ({}), e.g. `## T1: name` headings or `- [ ] T001 description` lines; write the plan in one of these formats or name it with --format",
            Format::names()
        ),
    ))
}

/// `n` and the noun for it, singular or plural: `1 task line`, `2 task lines`.
pub(crate) fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
