use super::*;
use crate::plan::paths::is_path;

use crate::plan::outline::drafts;
use crate::plan::Format;
const SPEC: Format = Format::SPEC_KIT;

/// The tasks as the parser and the phase-order edges leave them (no graph checks).
fn parse_text(text: &str) -> Vec<Task> {
    let d = drafts(SPEC, text, &mut Vec::new()).unwrap();
    let (mut nodes, tasks): (Vec<_>, Vec<_>) = d.into_iter().map(Draft::split).unzip();
    add_phase_edges(&mut nodes);
    nodes
        .into_iter()
        .zip(tasks)
        .map(|(n, t)| n.join(t).task)
        .collect()
}

#[test]
fn task_lines() {
    let tl = task_line("- [x] T001 [P] Do it").unwrap();
    assert_eq!(
        (tl.id, tl.desc, tl.checked(), tl.check_at),
        ("T001", "[P] Do it", true, 3)
    );
    assert_eq!(task_line("  * [ ] T2: x").unwrap().id, "T2");
    assert!(task_line("- [ ] TXXX Docs").is_none());
    assert!(task_line("- [ ] **Spec coverage** — x").is_none());
    assert!(task_line("- [ ] [US1] Create").is_none());
    assert!(task_line("-[ ] T1 x").is_none());
    assert!(task_line("- [ ]T1 x").is_none());
    assert!(placeholder_task("- [ ] TXXX [P] Docs"));
    assert!(!placeholder_task("- [ ] T001 Docs"));
}

#[test]
fn flags_deps_deferred_and_file() {
    let t = parse_text(
        "## Phase 1: A\n- [ ] T1 [P] [US2] Build src/models/user.py (depends on T0, `T9`) — DEFERRED: later\n- [X] T0 Init\n- [ ] T9 Docs in README.md -- deferred\n",
    );
    assert!(t[0].parallel);
    assert_eq!(t[0].story.as_deref(), Some("US2"));
    assert_eq!(t[0].name, "Build src/models/user.py");
    assert_eq!(t[0].deps, vec!["T0", "T9"]);
    assert_eq!(t[0].status, TaskStatus::Skipped);
    assert_eq!(t[0].file.as_deref(), Some("src/models/user.py"));
    assert_eq!(t[1].status, TaskStatus::Completed);
    assert_eq!(t[2].status, TaskStatus::Skipped);
    assert_eq!(t[2].file.as_deref(), Some("README.md"));
    assert_eq!(t[0].phase, "Phase 1: A");
}

#[test]
fn deferred_marker_forms() {
    for s in [
        "x — DEFERRED",
        "x – deferred",
        "x - Deferred",
        "x -- DEFERRED (y)",
        "— DEFERRED",
    ] {
        assert!(deferred_span(s).is_some(), "{s}");
    }
    // A task whose text is the bare marker is deferred too (`marks::deferral`).
    assert!(deferred_span("DEFERRED").is_some());
    for s in ["pre-deferred", "x deferredness"] {
        assert!(deferred_span(s).is_none(), "{s}");
    }
    let s = "x — DEFERRED note (depends on T1)";
    let (a, b) = deferred_span(s).unwrap();
    assert_eq!(&s[a..b], " — DEFERRED note ");
}

#[test]
fn paths() {
    for p in [
        "src/models/user.py",
        "docs/",
        "a/b.ts",
        "README.md",
        "tests/contract/test_[name].py",
        "src/a/b",
        "app/venues/[id]/page.tsx",
        "Dockerfile",
    ] {
        assert!(is_path(p, false), "{p}");
    }
    for p in [
        "authentication/authorization",
        "models/entities",
        "e.g",
        "http://x/y",
        "Setup",
        "authentication/authorization/audit",
        "/api/users/:id",
        "/venues/[id]",
        "Node.js",
    ] {
        assert!(!is_path(p, false), "{p}");
    }
}

#[test]
fn continuation_lines_become_requirement() {
    let t = parse_text("- [ ] T1 Do\n  more detail\n  - and this\n\n  not this\n");
    assert_eq!(t[0].requirement.as_deref(), Some("more detail\n- and this"));
}

fn deps(t: &[Task], id: &str) -> Vec<String> {
    t.iter().find(|x| x.id == id).unwrap().deps.clone()
}

#[test]
fn phase_edges() {
    let t = parse_text(
        "## P1\n- [ ] T1 a\n- [ ] T2 [P] b\n- [ ] T3 [P] c\n- [ ] T4 d\n- [ ] T5 [P] e\n## P2\n- [ ] T6 [P] f\n- [ ] T7 g\n### sub\n- [ ] T8 h\n## Empty\n## P3\n- [ ] T9 i\n",
    );
    assert!(deps(&t, "T1").is_empty());
    assert_eq!(deps(&t, "T2"), vec!["T1"]);
    assert_eq!(deps(&t, "T3"), vec!["T1"]);
    assert_eq!(deps(&t, "T4"), vec!["T1", "T2", "T3"]);
    assert_eq!(deps(&t, "T5"), vec!["T4"]);
    assert_eq!(deps(&t, "T6"), vec!["T4", "T5"]);
    assert_eq!(deps(&t, "T7"), vec!["T6"]);
    assert_eq!(deps(&t, "T8"), vec!["T7"]);
    assert_eq!(deps(&t, "T9"), vec!["T8"]);
}

#[test]
fn wide_phases_use_a_barrier() {
    let mut text = String::from("## A\n");
    for i in 0..100 {
        text.push_str(&format!("- [ ] T1_{i} [P] x\n"));
    }
    text.push_str("## B\n");
    for i in 0..100 {
        text.push_str(&format!("- [ ] T2_{i} [P] y\n"));
    }
    let t = parse_text(&text);
    let edges: usize = t.iter().map(|x| x.deps.len()).sum();
    assert!(edges < 300, "{edges}");
    assert_eq!(deps(&t, "T2_0").len(), 100);
    assert_eq!(deps(&t, "T2_1"), vec!["T2_0"]);
}

#[test]
fn boxes_bold_hyphenated_and_marked_ids() {
    let tl = task_line("- [-] **T-001**: Do it").unwrap();
    assert_eq!((tl.id, tl.desc, tl.mark), ("T-001", "Do it", '-'));
    assert!(!tl.checked());
    assert_eq!(task_line("- [~] **T002** x").unwrap().id, "T002");
    assert_eq!(task_line("- [ ] **T003:** x").unwrap().id, "T003");
    assert_eq!(task_line("- [x] ✅ T004 x").unwrap().id, "T004");
    assert_eq!(task_line("- [ ] T_5 x").unwrap().id, "T_5");
    assert!(task_line("- [a] T001 x").is_none());
    assert!(task_line("- [ ] **T001 x").is_none());
    assert!(task_line("- [ ] Team sync").is_none());
    // `[~]` and `[/]` are in progress (pending once imported), `[-]` skipped, unless a
    // legend says otherwise.
    let t = parse_text("- [~] T1 a\n- [-] T2 b\n- [/] T3 c\n- [X] T4 d\n");
    let st: Vec<TaskStatus> = t.iter().map(|x| x.status).collect();
    use TaskStatus::*;
    assert_eq!(st, [Pending, Skipped, Pending, Completed]);
    let t = parse_text("Legend: `[~]` deferred, `[-]` in progress\n\n- [~] T1 a\n- [-] T2 b\n");
    let st: Vec<TaskStatus> = t.iter().map(|x| x.status).collect();
    assert_eq!(st, [Skipped, Pending]);
}

#[test]
fn broken_ids_are_warnings() {
    let mut w = Vec::new();
    let d = drafts(
        SPEC,
        "- [ ] T001 ok\n- [ ] \u{422}002 x\n- [ ] T.3 y\n- [ ] TXXX z\n- [ ] Team sync\n",
        &mut w,
    )
    .unwrap();
    assert_eq!(d.len(), 1);
    let lines: Vec<usize> = w.iter().map(|x| x.line).collect();
    assert_eq!(lines, [2, 3]);
    assert!(
        w[0].message
            .contains("write it as `- [ ] T002 description`"),
        "{}",
        w[0].message
    );
    assert!(w.iter().all(|x| x.unread_task));
}

#[test]
fn trailing_and_story_tags() {
    let t = parse_text("- [ ] T1 [US5a] a in src/a.py [P]\n- [ ] T2 [Story 2] b [NEEDS CLARIFICATION]\n- [ ] T3 c [US1+US5]\n- [ ] T4 [EXECUTOR: db] [P] [SEC] d [WIP] [US2/US3]\n");
    assert_eq!(
        (t[3].story.as_deref(), t[3].parallel),
        (Some("US2/US3"), true)
    );
    assert_eq!(t[3].name, "[EXECUTOR: db] [SEC] d [WIP]");
    assert_eq!((t[0].story.as_deref(), t[0].parallel), (Some("US5a"), true));
    assert_eq!(t[0].name, "a in src/a.py");
    assert_eq!(t[1].story.as_deref(), Some("Story 2"));
    assert_eq!(t[1].name, "b [NEEDS CLARIFICATION]");
    assert_eq!(t[2].story.as_deref(), Some("US1+US5"));
    assert!(!is_story("P") && !is_story("id") && !is_story("T001"));
}

#[test]
fn an_id_with_dots_in_depends_on_is_that_task_not_a_range() {
    // Found by the round-trip property test: `T0..T0` read as the range T0 to T0.
    let t = parse_text("- [ ] T0..T0 a\n- [ ] T1 b (depends on T0..T0)\n");
    assert_eq!(deps(&t, "T1"), ["T0..T0"]);
}

#[test]
fn prose_and_ranges_in_depends_on() {
    let t = parse_text(
        "- [ ] T001 a\n- [ ] T002 b\n- [ ] T003 c\n- [ ] T004 d (depends on T001–T003, same file)\n- [ ] T005 e (depends on T004's schema.)\n- [ ] T006 f (Depends on T002..T003 for the schema)\n",
    );
    assert_eq!(deps(&t, "T004"), ["T001", "T002", "T003"]);
    assert_eq!(deps(&t, "T005"), ["T004"]);
    assert_eq!(deps(&t, "T006"), ["T002", "T003", "T005"]);
    assert_eq!(t[3].name, "d");
    let err = drafts(
        SPEC,
        "- [ ] T1 a\n- [ ] T2 b\n  (depends on T9)\n",
        &mut Vec::new(),
    )
    .unwrap_err();
    assert_eq!(err.line, 3);
    assert!(
        err.message.contains("task T2 depends on T9"),
        "{}",
        err.message
    );
}

#[test]
fn continuation_lines_add_deps_and_files() {
    let t = parse_text("- [ ] T1 a\n- [ ] T2 [P] b in `src/b.py`\n  - also `src/c.py`, src/d.py\n  - (depends on T1)\n");
    assert_eq!(t[1].file.as_deref(), Some("src/b.py"));
    assert_eq!(t[1].modifies, ["src/c.py", "src/d.py"]);
    assert_eq!(t[1].deps, ["T1"]);
    assert_eq!(
        t[1].requirement.as_deref(),
        Some("- also `src/c.py`, src/d.py")
    );
}

#[test]
fn files_of_a_line() {
    assert_eq!(
        paths_in(
            "Implement GET /venues/[id] and POST /api/x.json in `src/routes.ts`, see docs/api.md."
        ),
        ["src/routes.ts", "docs/api.md"]
    );
    assert_eq!(
        paths_in("Use authentication/authorization/audit from (src/auth/mod.rs); not Node.js"),
        ["src/auth/mod.rs"]
    );
    assert_eq!(paths_in("Run `npm test` then fix lib/x.py`"), ["lib/x.py"]);
    assert_eq!(paths_in("Add `config/settings` dir"), ["config/settings"]);
}

#[test]
fn dependency_section_lines() {
    let edges = |s: &str| -> Vec<(Vec<DepRef>, Vec<DepRef>)> {
        section_edges_of(s, 1)
            .into_iter()
            .map(|e| (e.dependents, e.deps))
            .collect()
    };
    let one = |s: &str| DepRef::One(s.into());
    assert_eq!(
        edges("- T010 depends on T008 + T009"),
        [(vec![one("T010")], vec![one("T008"), one("T009")])]
    );
    assert_eq!(
        edges("**T008** blocks T009, T015."),
        [(vec![one("T009"), one("T015")], vec![one("T008")])]
    );
    assert_eq!(
        edges("T1 → T2 -> T3"),
        [
            (vec![one("T2")], vec![one("T1")]),
            (vec![one("T3")], vec![one("T2")])
        ]
    );
    assert_eq!(
        edges("T010 depends on T006; T011 after T010."),
        [
            (vec![one("T010")], vec![one("T006")]),
            (vec![one("T011")], vec![one("T010")])
        ]
    );
    assert!(edges("Phase 2 depends on Phase 1").is_empty());
    assert!(edges("T008 after both").is_empty());
    assert!(edges("T004 and T005 are independent").is_empty());
    assert!(edges("T004 afterwards T005").is_empty());
    let plan = crate::plan::parse(
        std::path::Path::new("p"),
        "## P\n- [ ] T1 [P] a\n- [ ] T2 [P] b\n- [ ] T3 [P] c\n## Dependencies\n- T3 depends on T1\n- T1 depends on T9\n- T2 → T3 → T2\n",
    )
    .unwrap();
    assert_eq!(plan.tasks[2].deps, ["T1"]);
    assert_eq!(plan.tasks[1].deps, ["T3"]);
    let w: Vec<(usize, bool)> = plan
        .warnings
        .iter()
        .map(|w| (w.line, w.message.contains("cycle")))
        .collect();
    assert_eq!(w, [(7, false), (8, true)]);
}

#[test]
fn hand_written_deferred_and_prose_depends_on() {
    let t = parse_text(
        "- [ ] T1 a → DEFERRED (docs update)\n- [ ] T2 b **DEFERRED to later**\n- [ ] T3 c (depends on web: service_healthy)\n- [ ] T4 d\n  quickstart S6) — depends on T1, T2.\n- [ ] T5 e (depends on none)\n",
    );
    assert_eq!(t[0].status, TaskStatus::Skipped);
    assert_eq!(t[0].name, "a");
    // A marker in capitals defers wherever it stands (`marks::deferral`).
    assert_eq!(t[1].status, TaskStatus::Skipped);
    assert_eq!(t[1].name, "b");
    assert_eq!(t[2].name, "c (depends on web: service_healthy)");
    assert!(t[2].deps.iter().all(|d| d == "T2"), "{:?}", t[2].deps);
    assert!(deps(&t, "T4").contains(&"T1".to_string()));
    assert!(deps(&t, "T4").contains(&"T2".to_string()));
    assert_eq!(t[3].requirement.as_deref(), Some("quickstart S6) —"));
    assert_eq!(t[4].name, "e");
}
