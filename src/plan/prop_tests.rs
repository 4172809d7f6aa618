//! Property tests: random valid plans of both formats survive render → parse with
//! the same graph, and no input — random bytes or soups of plan-like lines — makes
//! `parse` (or the audit and mirror after it) panic. Also the size sanity checks:
//! 10,000-task plans parse with a linear number of edges.

use std::path::Path;

use proptest::prelude::*;
use proptest::sample::Index;

use super::test_support::assert_speckit_order;
use super::{audit::audit, mirror::mirror, parse, render::render, status, Format};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

#[derive(Debug, Clone)]
struct GenTask {
    suffix: String,
    words: Vec<String>,
    status: usize,
    parallel: bool,
    story: Option<u8>,
    deps: Vec<Index>,
    new_phase: bool,
    phase_word: String,
}

fn gen_task() -> impl Strategy<Value = GenTask> {
    (
        // No `T` after the first character: `T3-T4` is a range of ids, not an id.
        "([a-z_.-][A-SU-Za-z0-9_.-]{0,4})?",
        // Words start in lower case: `N/A`, `DEFERRED` would defer the task.
        prop::collection::vec(
            "[a-z0-9_,.\u{4e00}-\u{4e20}][A-Za-z0-9_,./\u{4e00}-\u{4e20}]{0,7}",
            1..5,
        ),
        0..TaskStatus::ALL.len(),
        any::<bool>(),
        prop::option::of(1u8..5),
        prop::collection::vec(any::<Index>(), 0..3),
        prop::bool::weighted(0.25),
        "[a-z]{1,8}",
    )
        .prop_map(
            |(suffix, words, status, parallel, story, deps, new_phase, phase_word)| GenTask {
                suffix,
                words,
                status,
                parallel,
                story,
                deps,
                new_phase,
                phase_word,
            },
        )
}

/// Tasks in document order and each one's phase section index.
fn build(gen: &[GenTask], format: Format) -> (Vec<Task>, Vec<usize>) {
    let mut tasks: Vec<Task> = Vec::new();
    let mut sections = Vec::new();
    let mut section = 0;
    let mut phase = String::from("start");
    for (i, g) in gen.iter().enumerate() {
        if i > 0 && g.new_phase {
            section += 1;
            phase = g.phase_word.clone();
        }
        let mut deps: Vec<String> = Vec::new();
        if i > 0 {
            for d in &g.deps {
                let id = tasks[d.index(i)].id.clone();
                if !deps.contains(&id) {
                    deps.push(id);
                }
            }
        }
        let is_spec = format == Format::SPEC_KIT;
        tasks.push(Task {
            id: format!("T{i}{}", g.suffix),
            name: g.words.join(" "),
            phase: if is_spec {
                format!("Phase {section}: {phase}")
            } else {
                phase.clone()
            },
            status: TaskStatus::ALL[g.status],
            deps,
            parallel: is_spec && g.parallel,
            story: g.story.filter(|_| is_spec).map(|n| format!("US{n}")),
            actions: if is_spec {
                Vec::new()
            } else {
                vec!["edit_file".into()]
            },
            ..Task::default()
        });
        sections.push(section);
    }
    (tasks, sections)
}

fn speckit_status(s: TaskStatus) -> TaskStatus {
    status::imported(s)
}

proptest! {
    #[test]
    fn claude_round_trip(gen in prop::collection::vec(gen_task(), 1..25)) {
        let (tasks, _) = build(&gen, Format::CLAUDE_WORKFLOW);
        let text = render(Format::CLAUDE_WORKFLOW, "Random plan", &tasks);
        let plan = parse(Path::new("r.md"), &text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(plan.format, Format::CLAUDE_WORKFLOW);
        prop_assert_eq!(plan.tasks.len(), tasks.len());
        for (a, b) in tasks.iter().zip(&plan.tasks) {
            prop_assert_eq!(&a.id, &b.id);
            prop_assert_eq!(&a.name, &b.name);
            prop_assert_eq!(&a.phase, &b.phase);
            prop_assert_eq!(&a.deps, &b.deps);
            prop_assert_eq!(status::imported(a.status), b.status);
        }
        super::test_support::assert_outline_agrees(&text);
    }

    #[test]
    fn speckit_round_trip(gen in prop::collection::vec(gen_task(), 1..25)) {
        let (tasks, sections) = build(&gen, Format::SPEC_KIT);
        let text = render(Format::SPEC_KIT, "Random plan", &tasks);
        let plan = parse(Path::new("r.md"), &text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(plan.format, Format::SPEC_KIT);
        prop_assert_eq!(plan.tasks.len(), tasks.len());
        for (a, b) in tasks.iter().zip(&plan.tasks) {
            prop_assert_eq!(&a.id, &b.id);
            prop_assert_eq!(&a.name, &b.name);
            prop_assert_eq!(&a.phase, &b.phase);
            prop_assert_eq!(speckit_status(a.status), b.status);
            prop_assert_eq!(a.parallel, b.parallel);
            prop_assert_eq!(&a.story, &b.story);
            for d in &a.deps {
                prop_assert!(b.deps.contains(d), "{} lost dep {}", b.id, d);
            }
        }
        assert_speckit_order(&plan.tasks, &sections);
        super::test_support::assert_outline_agrees(&text);
        // Rendering the parsed plan again gives the same graph.
        let again = parse(Path::new("r.md"), &render(Format::SPEC_KIT, "x", &plan.tasks)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (a, b) in plan.tasks.iter().zip(&again.tasks) {
            prop_assert_eq!(&a.deps, &b.deps);
        }
    }

    #[test]
    fn mirror_then_parse_shows_new_statuses(
        gen in prop::collection::vec(gen_task(), 1..15),
        new in prop::collection::vec(0..TaskStatus::ALL.len(), 15),
        spec in any::<bool>(),
    ) {
        let format = if spec { Format::SPEC_KIT } else { Format::CLAUDE_WORKFLOW };
        let (tasks, _) = build(&gen, format);
        let text = render(format, "M", &tasks);
        let plan = parse(Path::new("m.md"), &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut changed = plan.tasks.clone();
        for (t, s) in changed.iter_mut().zip(&new) {
            t.status = TaskStatus::ALL[*s];
        }
        let out = mirror(format, &text, &changed);
        crate::plan::mirror::assert_patch_is_whole_mirror(format, &text, &plan.tasks, &changed);
        crate::plan::mirror::assert_patch_is_whole_mirror(format, &text, &changed, &plan.tasks);
        let again = parse(Path::new("m.md"), &out).map_err(|e| TestCaseError::fail(format!("{e}\n{out}")))?;
        for ((a, b), old) in changed.iter().zip(&again.tasks).zip(&plan.tasks) {
            prop_assert_eq!(status::imported(a.status), b.status);
            prop_assert_eq!(&old.digest, &b.digest);
            prop_assert_eq!(old.line, b.line);
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text);
    }

    #[test]
    fn plan_like_soups_never_panic(
        picks in prop::collection::vec((0..FRAGMENTS.len(), "[ -~\u{a0}-\u{3000}]{0,12}", any::<bool>()), 0..40),
    ) {
        exercise(&soup(picks));
    }
}

/// A line's kind as text, to compare two reads of the same lines.
fn label(kind: &super::claude::Kind<'_>) -> String {
    use super::claude::Kind;
    match kind {
        Kind::TaskHeading(h) => format!("task {} / {}", h.id, h.name),
        Kind::BadHeading(id) => format!("bad {id}"),
        Kind::Suspect(id) => format!("suspect {id}"),
        Kind::End => "end".into(),
        Kind::Field(f) => format!("field {f:?}"),
        Kind::Blank => "blank".into(),
        Kind::Hidden => "hidden".into(),
        Kind::Other => "other".into(),
    }
}

proptest! {
    /// The kinds read a block at a time (`claude::each_kind`, as the parse and the
    /// mirror read them) are the kinds of the whole text read at once.
    #[test]
    fn kinds_read_a_block_at_a_time_are_the_kinds_of_the_whole(
        picks in prop::collection::vec((0..FRAGMENTS.len(), "[ -~\u{a0}-\u{3000}]{0,12}", any::<bool>()), 0..60),
    ) {
        let text = soup(picks);
        let lines = super::doc::lines(&text);
        let whole: Vec<(usize, String)> = lines
            .iter()
            .zip(super::claude::kinds(&lines))
            .map(|(line, kind)| (line.no, label(&kind)))
            .collect();
        let mut streamed = Vec::new();
        let read = super::claude::each_kind(super::doc::iter(&text), |line, kind| {
            streamed.push((line.no, label(&kind)));
            Ok::<(), ()>(())
        });
        prop_assert_eq!(read, Ok(()));
        prop_assert_eq!(streamed, whole);
    }
}

/// A plan of `FRAGMENTS` lines, each with its noise and line ending.
fn soup(picks: Vec<(usize, String, bool)>) -> String {
    let mut text = String::new();
    for (i, noise, crlf) in picks {
        text.push_str(FRAGMENTS[i]);
        text.push_str(&noise);
        text.push_str(if crlf { "\r\n" } else { "\n" });
    }
    text
}

const FRAGMENTS: &[&str] = &[
    "## T1: a",
    "## T2: b ✅",
    "### T3：c ⏭️",
    "## T1$(touch PWNED): x",
    "## {{this.id}}: {{this.name}}",
    "# Title",
    "- **依赖**: T1, T2",
    "- **依赖**: T9",
    "- **依赖**: ",
    "- **状态**: ",
    "- **状态**: completed",
    "- **阈值**: ",
    "- **质量关卡**: true",
    "- **验证命令**: `",
    "- **步骤**:",
    "  - A1: x → y（验证：`true`）",
    "  - : → （验证：",
    "  - A2: (verify: (",
    "<!-- id: T1, design_ref: 4.1 -->",
    "<!-- id: ",
    "<!--",
    "-->",
    "```",
    "~~~",
    "---",
    "- [ ] T001 [P] [US1] Do it in src/a.py",
    "- [x] T002 (depends on T001)",
    "- [ ] T003 — DEFERRED (depends on",
    "- [X] T004 [",
    "- [ ] TXXX",
    "- [ ] T1",
    "- [ ]",
    "## Phase 1: Setup",
    "## Phase 2: Build",
    "## 约束",
    "  continuation `x` ``y",
    "",
    "\u{feff}",
    "\t",
    "- **x**: ****",
    "- ** **: y",
    "**",
    "[",
    "`` ` ``",
    "é",
    "\u{0}",
    "## T-2: h",
    "## **T4**: bold",
    "##T5: tight",
    "## T6 no colon",
    "## \u{422}7: look-alike",
    "### Task 1.1: numbered",
    "- **Verfy**: `true`",
    "- **Files**: `a.go`, b.go",
    "- [x] **Description**: d",
    "- [-] T005 skipped",
    "- [~] **T-006**: tilde",
    "- [x] ✅ T007 marked → DEFERRED (later)",
    "- [ ] T008 [EXECUTOR: x] [P] y [US2/US3]",
    "  (depends on T001–T004, same file)",
    "  — depends on T002.",
    "- [ ] \u{422}009 broken",
    "- [ ] [P] no id",
    "## Dependencies & Execution Order",
    "- T008 depends on T001 + T002",
    "- T002 → T001 → T008",
    "T005 blocks T006; T007 after T9.",
    "GET /api/users/:id in `src/x.ts`, a/b/c",
];

fn exercise(text: &str) {
    super::test_support::assert_outline_agrees(text);
    if let Ok(plan) = parse(Path::new("soup.md"), text) {
        let _ = audit(&plan.tasks, text, "now");
        let mut tasks = plan.tasks.clone();
        for (i, t) in tasks.iter_mut().enumerate() {
            t.status = TaskStatus::ALL[i % TaskStatus::ALL.len()];
        }
        let mirrored = mirror(plan.format, text, &tasks);
        // Each status moved one step on: what a later checkpoint mirrors by patching.
        let mut later = tasks.clone();
        for (i, t) in later.iter_mut().enumerate() {
            t.status = TaskStatus::ALL[(i * 7 + 3) % TaskStatus::ALL.len()];
        }
        later.truncate(later.len().saturating_sub(1));
        crate::plan::mirror::assert_patch_is_whole_mirror(plan.format, text, &tasks, &later);
        // The mirror only changes statuses, so the result still parses.
        if let Err(e) = parse(Path::new("soup.md"), &mirrored) {
            panic!("mirror broke the plan: {e}\n--- before\n{text}\n--- after\n{mirrored}");
        }
        let _ = render(plan.format, "t", &plan.tasks);
    } else {
        let _ = audit(&[], text, "now");
    }
}

/// Not timed: a 10,000-task plan of each format parses, with O(tasks) edges.
#[test]
fn large_plans_parse_with_linear_edges() {
    let n = 10_000;
    let mut tasks: Vec<Task> = (0..n)
        .map(|i| Task {
            id: format!("T{i:05}"),
            name: format!("Task number {i} in src/mod{i}/file.rs"),
            phase: format!("Phase {}: part", i / 500),
            parallel: i % 3 != 0,
            actions: vec!["edit_file".into()],
            ..Task::default()
        })
        .collect();
    let text = render(Format::SPEC_KIT, "Big", &tasks);
    let plan = parse(Path::new("big.md"), &text).unwrap();
    assert_eq!(plan.tasks.len(), n);
    let edges: usize = plan.tasks.iter().map(|t| t.deps.len()).sum();
    assert!(edges < 3 * n, "{edges} edges");

    // All [P]: wide phases meet wide phases; the barrier keeps edges linear.
    for t in &mut tasks {
        t.parallel = true;
    }
    let plan = parse(Path::new("wide.md"), &render(Format::SPEC_KIT, "W", &tasks)).unwrap();
    let edges: usize = plan.tasks.iter().map(|t| t.deps.len()).sum();
    assert!(edges < 3 * n, "{edges} edges");

    // A 10,000-deep chain of explicit deps: iterative cycle search, no overflow.
    for (i, t) in tasks.iter_mut().enumerate() {
        t.parallel = false;
        t.deps = if i == 0 {
            Vec::new()
        } else {
            vec![format!("T{:05}", i - 1)]
        };
    }
    let plan = parse(
        Path::new("chain.md"),
        &render(Format::CLAUDE_WORKFLOW, "C", &tasks),
    )
    .unwrap();
    assert_eq!(plan.tasks.len(), n);
    tasks[0].deps = vec![format!("T{:05}", n - 1)];
    let err = parse(
        Path::new("chain.md"),
        &render(Format::CLAUDE_WORKFLOW, "C", &tasks),
    )
    .unwrap_err();
    assert!(err
        .message
        .contains("dependency cycle T00000 → T09999 → T09998"));
}
