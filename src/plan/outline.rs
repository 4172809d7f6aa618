//! A plan read without holding its tasks: what the graph's checks need of each task
//! ([`Node`]) on a first pass, the tasks themselves one at a time on a second.
//!
//! A fresh import that held every task to check the graph before writing any grew
//! with the plan in memory, while the checks — unique ids, known dependencies, no
//! cycle, spec-kit's phase-order and Dependencies-section edges — read only ids,
//! lines, dependencies and `[P]` marks. So the parsers hand each task over as they
//! finish it ([`Drafts`]); the first pass keeps its [`Node`] (and the task too, for
//! `plan::parse`), and an [`Outline`] of the checked plan parses the text again to
//! give each task, with the dependencies and digest the checks settled, to the
//! import, which writes it out and keeps none (`state::spill`).

use super::format::{Links, Pass};
use super::{digest, Draft, Format, PlanError, PlanWarning};
use crate::error::{Result, WfError};
use crate::state::ids::{narrow, Ids, Packed};
use crate::state::model::Task;
use std::collections::HashSet;

/// What the graph's checks read of a task, one a task while they run: kept small, its
/// counts and lines `u32` (a plan is at most 64 MiB) and its words inline when short.
#[derive(Debug)]
pub(crate) struct Node {
    /// The task's id, then its dependencies: as written, then with spec-kit's
    /// phase-order and Dependencies-section edges added. Packed (`state::ids`): one
    /// allocation, not a `String` a word and a `Vec` of them.
    words: Packed,
    /// How many of the words are dependencies.
    deps: u32,
    pub line: u32,
    /// How many of `deps` the task's digest covers: those it lists itself (spec-kit's
    /// added edges come after them, see `digest`).
    pub hashed_deps: u32,
    /// The line that lists the task's explicit deps (its own line when none does).
    pub deps_line: u32,
    /// spec-kit: which `## ` section the task sits in (phase order edges).
    pub group: u32,
    pub parallel: bool,
}

impl Node {
    pub(crate) fn id(&self) -> &str {
        self.words.first()
    }

    pub(crate) fn deps(&self) -> Ids<'_> {
        self.words.words(1, self.deps as usize)
    }

    /// The node under another id, its deps as they were (`repeats`).
    pub(crate) fn rename(&mut self, id: &str) {
        self.words = Packed::new(std::iter::once(id).chain(self.deps()));
    }

    /// Adds each of `deps` it does not have yet, in order.
    pub(crate) fn add_deps<'a>(&mut self, deps: impl IntoIterator<Item = &'a str>) {
        let mut seen: HashSet<&str> = self.deps().collect();
        let added: Vec<&str> = deps.into_iter().filter(|d| seen.insert(d)).collect();
        if added.is_empty() {
            return;
        }
        let count = self.deps as usize + added.len();
        self.words = Packed::new(self.words.words(0, 1 + self.deps as usize).chain(added));
        self.deps = narrow(count);
    }
}

impl Draft {
    /// The draft's node, and its task without the dependencies (the node has them).
    pub(crate) fn split(self) -> (Node, Task) {
        let Draft {
            mut task,
            deps_line,
            group,
        } = self;
        let deps = std::mem::take(&mut task.deps);
        let node = Node {
            words: Packed::new(
                std::iter::once(task.id.as_str()).chain(deps.iter().map(String::as_str)),
            ),
            deps: narrow(deps.len()),
            line: narrow(task.line),
            hashed_deps: 0,
            deps_line: narrow(deps_line),
            group: narrow(group),
            parallel: task.parallel,
        };
        (node, task)
    }
}

#[cfg(test)]
impl Node {
    /// The draft [`Draft::split`] made this node and `task` from, with the node's deps.
    pub(crate) fn join(self, mut task: Task) -> Draft {
        task.deps = self.deps().to_vec();
        Draft {
            task,
            deps_line: self.deps_line as usize,
            group: self.group as usize,
        }
    }
}

/// Where a parser puts its drafts: each is handed to the sink once the parser is
/// done with it, when the next one starts or the text ends (a spec-kit task takes
/// the indented lines after it).
pub(crate) struct Drafts<'s> {
    open: Option<Draft>,
    count: usize,
    sink: &'s mut dyn FnMut(Draft) -> std::result::Result<(), PlanError>,
}

impl<'s> Drafts<'s> {
    fn new(sink: &'s mut dyn FnMut(Draft) -> std::result::Result<(), PlanError>) -> Self {
        Drafts {
            open: None,
            count: 0,
            sink,
        }
    }

    /// How many drafts were pushed.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn push(&mut self, draft: Draft) -> std::result::Result<(), PlanError> {
        self.close()?;
        self.open = Some(draft);
        self.count += 1;
        Ok(())
    }

    /// The draft pushed last, while the parser may still add to it.
    pub fn last_mut(&mut self) -> Option<&mut Draft> {
        self.open.as_mut()
    }

    /// Hands the open draft to the sink, its status as an import keeps it: only
    /// finished work (completed, skipped) carries over, whatever else the plan shows
    /// (`[~]`, `in-progress`, `review`, `blocked`) is pending (`status::imported`).
    fn close(&mut self) -> std::result::Result<(), PlanError> {
        match self.open.take() {
            Some(mut draft) => {
                draft.task.status = super::status::imported(draft.task.status);
                (self.sink)(draft)
            }
            None => Ok(()),
        }
    }
}

/// Runs `format`'s parser over `text` (its BOM already cut), each draft to `sink`.
pub(crate) fn run_parser(
    format: Format,
    text: &str,
    sink: &mut dyn FnMut(Draft) -> std::result::Result<(), PlanError>,
    warnings: &mut Vec<PlanWarning>,
    pass: Pass,
) -> std::result::Result<Links, PlanError> {
    let mut drafts = Drafts::new(sink);
    let links = format.reader().parse(text, &mut drafts, warnings, pass)?;
    drafts.close()?;
    Ok(links)
}

/// A plan whose graph is checked, its tasks not held: [`Outline::each_task`] reads
/// them from the text again.
#[derive(Debug)]
pub struct Outline {
    pub format: Format,
    /// Why detection picked the format, or that `--format` named it.
    pub detected: String,
    pub title: Option<String>,
    /// What was read but may not be what the author meant, in line order.
    pub warnings: Vec<PlanWarning>,
    /// The tasks in blocks of [`BLOCK`], each let go once the second pass has read
    /// it, so the import's memory falls as it writes the tasks out.
    tasks: Vec<Vec<Settled>>,
    /// The plan's path as errors show it.
    shown: String,
    /// The copies of repeated ids not read, and the tasks read under a new id.
    repeats: super::repeats::Settled,
}

/// Tasks a block of [`Settled`] holds: a block large enough that glibc maps it on
/// its own and gives it back when it is freed.
const BLOCK: usize = 4096;

/// What the second pass needs of a task the first one checked: a [`Node`] less what
/// only the checks read.
#[derive(Debug)]
struct Settled {
    /// Its id, and its dependencies as the checks left them ([`Node::deps`]).
    words: Packed,
    /// The line of its heading or task line: the task the second pass reads there,
    /// of the same id, is this one.
    line: u32,
    deps: u32,
    hashed_deps: u32,
}

impl Outline {
    /// How many tasks the plan has.
    pub fn len(&self) -> usize {
        self.tasks.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Gives `each` the plan's tasks in plan order, as `plan::parse` would return
    /// them, parsed again from `text`: the text this outline was read from.
    ///
    /// Two threads: another one parses, this one hashes each task (`digest`) and
    /// runs `each` on it — about as much work on either side. The
    /// tasks go back to the parser's thread to be dropped: freed on a thread other
    /// than the one that made them, glibc takes the maker's arena lock for each of
    /// their strings, against the parser's own allocations.
    pub fn each_task(
        self,
        text: &str,
        mut each: impl FnMut(&mut Task) -> Result<()>,
    ) -> Result<()> {
        /// Parsed tasks, and how many of each one's deps its digest covers.
        #[derive(Default)]
        struct Batch {
            tasks: Vec<Task>,
            hashed_deps: Vec<usize>,
        }
        /// Tasks a batch holds: few, as several batches are in flight (two queued, one
        /// parsed into, one run, the spent ones on their way back to be dropped).
        const BATCH: usize = 32;
        let (to_main, parsed) = std::sync::mpsc::sync_channel::<Batch>(2);
        let (to_parser, spent) = std::sync::mpsc::channel::<Batch>();
        std::thread::scope(|scope| {
            let parser = scope.spawn(move || -> Result<()> {
                let mut batch = Batch::default();
                let sent = self.each_unstamped(text, |task, hashed_deps| {
                    batch.tasks.push(task);
                    batch.hashed_deps.push(hashed_deps);
                    if batch.tasks.len() == BATCH {
                        // Closed: `each` failed, and the main side returns its error.
                        to_main
                            .send(std::mem::take(&mut batch))
                            .map_err(|_| WfError::usage("stopped"))?;
                        while let Ok(done) = spent.try_recv() {
                            drop(done);
                        }
                    }
                    Ok(())
                });
                if sent.is_ok() {
                    let _ = to_main.send(batch);
                }
                drop(to_main);
                for done in spent {
                    drop(done);
                }
                sent
            });
            let mut result = Ok(());
            for mut batch in parsed {
                let hashed = &batch.hashed_deps;
                stamp_covering(&mut batch.tasks, |i| hashed.get(i).copied().unwrap_or(0));
                result = batch.tasks.iter_mut().try_for_each(&mut each);
                let _ = to_parser.send(batch);
                if result.is_err() {
                    break;
                }
            }
            drop(to_parser);
            let parsed = parser
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            result.and(parsed)
        })
    }

    /// Every task at once ([`Outline::each_task`]), hashed across the cores
    /// (`digest::stamp_all`, as `plan::parse` does), the deps the digest does not
    /// cover set aside meanwhile.
    pub fn into_tasks(self, text: &str) -> Result<Vec<Task>> {
        let mut tasks = Vec::with_capacity(self.len());
        let mut hashed = Vec::with_capacity(self.len());
        self.each_unstamped(text, |task, hashed_deps| {
            tasks.push(task);
            hashed.push(hashed_deps);
            Ok(())
        })?;
        stamp_covering(&mut tasks, |i| hashed.get(i).copied().unwrap_or(0));
        Ok(tasks)
    }

    /// The second pass: each task with its settled deps, not yet hashed, and how
    /// many of the deps its digest covers.
    fn each_unstamped(
        self,
        text: &str,
        mut each: impl FnMut(Task, usize) -> Result<()>,
    ) -> Result<()> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut next = 0;
        // An error of `each` stops the parser, which only knows plan errors: kept
        // here and returned in place of the marker that stopped it.
        let mut failed: Option<WfError> = None;
        let shown = &self.shown;
        let total = self.len();
        // Each block is dropped as the pass moves past it.
        let mut settled = self.tasks.into_iter().flatten();
        let repeats = &self.repeats;
        let mut sink = |mut draft: Draft| {
            let line = crate::state::ids::narrow(draft.task.line);
            if repeats.dropped.binary_search(&line).is_ok() {
                return Ok(());
            }
            if let Ok(i) = repeats.renamed.binary_search_by_key(&line, |r| r.0) {
                if let Some((_, id)) = repeats.renamed.get(i) {
                    draft.task.id.clone_from(id);
                }
            }
            if let Ok(i) = repeats.restatus.binary_search_by_key(&line, |r| r.0) {
                if let Some((_, s)) = repeats.restatus.get(i) {
                    draft.task.status = *s;
                }
            }
            let stop = |e: WfError, failed: &mut Option<WfError>| {
                *failed = Some(e);
                PlanError::new(0, "")
            };
            let same = |s: &Settled| {
                s.line as usize == draft.task.line && s.words.first() == draft.task.id
            };
            let Some(settled) = settled.next().filter(same) else {
                let what = format!("task {} is not the one the first pass read", draft.task.id);
                return Err(stop(second_pass(shown, &what), &mut failed));
            };
            next += 1;
            let mut task = draft.task;
            task.deps = settled.words.words(1, settled.deps as usize).to_vec();
            each(task, settled.hashed_deps as usize).map_err(|e| stop(e, &mut failed))
        };
        let parsed = run_parser(self.format, text, &mut sink, &mut Vec::new(), Pass::Second);
        if let Some(e) = failed {
            return Err(e);
        }
        parsed.map_err(|e| second_pass(&self.shown, &format!("line {}: {}", e.line, e.message)))?;
        if next != total {
            let what = format!("{next} of its {total} tasks were read");
            return Err(second_pass(&self.shown, &what));
        }
        Ok(())
    }
}

/// Stamps each task's digest (`digest::stamp_all`: across the cores for a plan's
/// worth) over the dependencies it covers, the first `hashed_deps(i)` of the `i`th
/// task's: the edges added after them are set aside meanwhile.
fn stamp_covering(tasks: &mut [Task], hashed_deps: impl Fn(usize) -> usize) {
    let added: Vec<Vec<String>> = tasks
        .iter_mut()
        .enumerate()
        .map(|(i, task)| task.deps.split_off(hashed_deps(i).min(task.deps.len())))
        .collect();
    digest::stamp_all(tasks);
    for (task, added) in tasks.iter_mut().zip(added) {
        task.deps.extend(added);
    }
}

/// A second pass over the same text that did not give what the first did: a bug.
fn second_pass(shown: &str, what: &str) -> WfError {
    WfError::usage(format!(
        "{shown}: the second reading of the plan differs from the first ({what}); this is a bug in wf, please report it"
    ))
}

/// Detects the format (unless `forced`), parses and checks the graph: an outline of
/// the plan, and its tasks when `keep_tasks` (`plan::parse`; the outline then has no tasks to give,
/// only its format, title and warnings). `path` is used only in error messages.
pub(crate) fn read(
    path: &std::path::Path,
    text: &str,
    forced: Option<Format>,
    keep_tasks: bool,
) -> Result<(Outline, Vec<Task>)> {
    let shown = super::path_shown(path);
    let at = |e: PlanError| WfError::usage(format!("{shown}:{}: {}", e.line, e.message));
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The lines are read as they are parsed, never all held: held, they grow with
    // the plan.
    let (format, expected, detected) = if let Some(format) = forced {
        (format, 0, "named by --format".to_string())
    } else {
        let d = super::format::detect(text, Some(path)).map_err(at)?;
        (d.format, d.expected, d.why)
    };
    let mut warnings = Vec::new();
    // Room for every task at once: grown by doubling, the drafts would take up to
    // twice their size at the import's peak.
    let mut nodes: Vec<Node> = Vec::with_capacity(expected);
    let mut tasks: Vec<Task> = Vec::with_capacity(if keep_tasks { expected } else { 0 });
    // Reported once the whole plan parses: an error of the parse, anywhere, comes
    // first.
    let mut oversized: Option<PlanError> = None;
    let mut links = run_parser(
        format,
        text,
        &mut |draft: Draft| {
            if oversized.is_none() {
                oversized = super::limits::check(&draft.task, text).err();
            }
            let (node, task) = draft.split();
            nodes.push(node);
            if keep_tasks {
                tasks.push(task);
            }
            Ok(())
        },
        &mut warnings,
        Pass::First,
    )
    .map_err(at)?;
    // One index of the ids for every check: a node keeps its position as deps are
    // added. An id written twice is settled first (`repeats`).
    let (mut index, repeated) = super::graph::IdIndex::of(&nodes);
    let mut repeats = super::repeats::Settled::default();
    if !repeated.is_empty() {
        repeats = super::repeats::settle(
            format,
            text,
            &mut nodes,
            &mut tasks,
            &mut links,
            &repeated,
            &mut warnings,
        );
        index = super::graph::IdIndex::of(&nodes).0;
    }
    let section_deps = match links {
        Some(links) => {
            super::speckit::resolve(&mut nodes, &index, &links, &mut warnings).map_err(at)?
        }
        None => Vec::new(),
    };
    if let Some(e) = oversized {
        return Err(at(e));
    }
    // Hashed as the plan has them: before spec-kit's phase-order edges and the
    // Dependencies section's deps are added (`digest`).
    for node in &mut nodes {
        node.hashed_deps = node.deps;
    }
    warnings.sort_by_key(|w| w.line);
    if nodes.is_empty() {
        return Err(at(match warnings.iter().find(|w| w.unread_task) {
            Some(w) => PlanError::new(
                w.line,
                format!("the {} plan has no tasks: {}", format.name(), w.message),
            ),
            None => super::empty_plan(format, &super::doc::lines(text)),
        }));
    }
    let mut graph_errors = super::graph::check_known_deps(&nodes, &index, format);
    format.reader().add_implied_deps(&mut nodes);
    graph_errors.extend(super::graph::check_acyclic(&nodes, &index, format));
    graph_errors.sort_by_key(|e| e.line);
    let mut graph_errors = graph_errors.into_iter().map(at);
    if let Some(mut first) = graph_errors.next() {
        first.more = graph_errors.map(|e| e.message).collect();
        return Err(first);
    }
    super::graph::add_section_deps(&mut nodes, &index, section_deps, &mut warnings);
    warnings.sort_by_key(|w| w.line);
    let mut settled = Vec::new();
    if keep_tasks {
        let hashed: Vec<usize> = nodes.iter().map(|n| n.hashed_deps as usize).collect();
        for (task, node) in tasks.iter_mut().zip(nodes) {
            task.deps = node.deps().to_vec();
        }
        stamp_covering(&mut tasks, |i| hashed.get(i).copied().unwrap_or(0));
    } else {
        // One at a time into new blocks: collected in place, the nodes' array
        // would stay at its size.
        let mut nodes = nodes.into_iter().peekable();
        while nodes.peek().is_some() {
            let block: Vec<Settled> = nodes
                .by_ref()
                .take(BLOCK)
                .map(|node| Settled {
                    words: node.words,
                    line: node.line,
                    deps: node.deps,
                    hashed_deps: node.hashed_deps,
                })
                .collect();
            settled.push(block);
        }
    }
    let outline = Outline {
        format,
        detected,
        title: format.reader().title(text),
        warnings,
        tasks: settled,
        shown,
        repeats,
    };
    Ok((outline, tasks))
}

/// The drafts a format's parser gives for `text`, spec-kit's `(depends on …)` deps
/// resolved onto them: the parsers as unit tests see them.
#[cfg(test)]
pub(crate) fn drafts(
    format: Format,
    text: &str,
    warnings: &mut Vec<PlanWarning>,
) -> std::result::Result<Vec<Draft>, PlanError> {
    let mut drafts = Vec::new();
    let links = run_parser(
        format,
        text,
        &mut |d| {
            drafts.push(d);
            Ok(())
        },
        warnings,
        Pass::First,
    )?;
    if let Some(links) = links {
        let (mut nodes, tasks): (Vec<Node>, Vec<Task>) =
            drafts.into_iter().map(Draft::split).unzip();
        let (index, _) = super::graph::IdIndex::of(&nodes);
        super::speckit::resolve(&mut nodes, &index, &links, warnings)?;
        drafts = nodes
            .into_iter()
            .zip(tasks)
            .map(|(n, t)| n.join(t))
            .collect();
    }
    Ok(drafts)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::error::WfError;

    fn plan(n: usize) -> String {
        let mut text = String::new();
        for i in 1..=n {
            text.push_str(&format!("## T{i}: step {i}\n- **actions**: x\n\n"));
        }
        text
    }

    /// Past a block of settled tasks (each let go once read), the second pass gives
    /// every task, in order, as `plan::parse` does: a spec-kit plan of two blocks and
    /// more, with phase edges, explicit deps and a Dependencies section.
    #[test]
    fn a_second_pass_over_several_blocks_gives_every_task_as_parse_does() {
        let n = 2 * super::BLOCK + 321;
        let mut text = String::from("# Tasks\n");
        for i in 1..=n {
            if i % 100 == 1 {
                text.push_str(&format!("\n## Phase {}\n\n", i / 100 + 1));
            }
            let p = if i % 4 == 0 { "" } else { "[P] " };
            let d = if i > 10 && i % 10 == 0 {
                format!(" (depends on T{:05})", i - 7)
            } else {
                String::new()
            };
            text.push_str(&format!("- [ ] T{i:05} {p}part {i}{d}\n"));
        }
        text.push_str("\n## Dependencies\n\n- T00009 depends on T00002\n");
        let parsed = super::super::parse(Path::new("tasks.md"), &text)
            .unwrap()
            .tasks;
        let (outline, _) = super::read(Path::new("tasks.md"), &text, None, false).unwrap();
        assert_eq!(outline.len(), n);
        let mut read = Vec::new();
        outline
            .each_task(&text, |t| {
                read.push(t.clone());
                Ok(())
            })
            .unwrap();
        assert_eq!(read.len(), n);
        assert!(
            read[8].deps.iter().any(|d| d == "T00002"),
            "{:?}",
            read[8].deps
        );
        assert_eq!(read, parsed);
    }

    /// A digest covers the deps a task lists, not the phase-order edges spec-kit adds
    /// after them (`digest`): a task inserted before it moves its edge, not its hash,
    /// through either way of reading.
    #[test]
    fn a_digest_covers_a_tasks_own_deps_not_the_added_edges() {
        let before = "## Phase 1\n- [ ] T001 a\n- [ ] T003 c (depends on T001)\n";
        let after = "## Phase 1\n- [ ] T001 a\n- [ ] T002 b\n- [ ] T003 c (depends on T001)\n";
        let digests = |text: &str| {
            let parsed = super::super::parse(Path::new("tasks.md"), text)
                .unwrap()
                .tasks;
            let (outline, _) = super::read(Path::new("tasks.md"), text, None, false).unwrap();
            let mut read = Vec::new();
            outline
                .each_task(text, |t| {
                    read.push((t.id.clone(), t.deps.clone(), t.digest.clone()));
                    Ok(())
                })
                .unwrap();
            let parsed: Vec<_> = parsed
                .into_iter()
                .map(|t| (t.id, t.deps, t.digest))
                .collect();
            assert_eq!(parsed, read, "{text}");
            read
        };
        let (before, after) = (digests(before), digests(after));
        assert_eq!(before[1].1, ["T001"]);
        assert_eq!(after[2].1, ["T001", "T002"], "the phase-order edge moved");
        assert_eq!(before[1].2, after[2].2, "T003's digest did not");
    }

    /// The callback's own error ends the second pass and is what it returns: the
    /// parser does not go on, nor is the error turned into a plan error.
    #[test]
    fn an_error_of_the_callback_stops_the_second_pass_and_is_returned() {
        let text = plan(10);
        let (outline, _) = super::read(Path::new("tasks.md"), &text, None, false).unwrap();
        let mut seen = 0;
        let err = outline
            .each_task(&text, |_| {
                seen += 1;
                if seen == 3 {
                    Err(WfError::usage("disk full"))
                } else {
                    Ok(())
                }
            })
            .unwrap_err();
        assert_eq!((seen, err.message.as_str()), (3, "disk full"));
    }

    /// The second pass gives only the tasks the first one checked: a task read at the
    /// same line under another id stops it (the text is the same in memory, so this
    /// is a bug's check, not a user's error).
    #[test]
    fn a_second_pass_that_reads_another_task_stops() {
        let text = plan(3);
        let (outline, _) = super::read(Path::new("tasks.md"), &text, None, false).unwrap();
        let other = text.replace("## T2:", "## T7:");
        let mut seen = Vec::new();
        let err = outline
            .each_task(&other, |t| {
                seen.push(t.id.clone());
                Ok(())
            })
            .unwrap_err();
        // Given in batches: T1 may not have been.
        assert!(!seen.iter().any(|id| id == "T7"), "{seen:?}");
        assert!(
            err.message
                .contains("task T7 is not the one the first pass read"),
            "{}",
            err.message
        );
    }

    /// An oversized verify command is refused only once the whole plan parses, as
    /// before the parsers handed tasks over one at a time: a bad heading after it is
    /// the error shown, however far apart the two are.
    #[test]
    fn an_error_of_the_parse_comes_before_an_oversized_command() {
        let big = "x".repeat(super::super::limits::MAX_VERIFY_CMD_BYTES + 1);
        let bad = "### Part 1.1: z\n- **File**: a.rs\n";
        for between in [0, 3] {
            let text = format!(
                "## T1: one\n- **验证命令**: `{big}`\n\n{}{bad}",
                plan(between).replace("## T", "## T9")
            );
            let err = super::read(Path::new("tasks.md"), &text, None, false).unwrap_err();
            assert!(
                err.message.contains("this heading has task fields"),
                "{between}: {}",
                &err.message[..120.min(err.message.len())]
            );
        }
    }
}
