//! Plan patterns found in real plans that an import once dropped or misread without a
//! word: each fixture `fixtures/plans/p-*.md` is imported by the real binary, and the
//! tasks, their statuses, deps and files, and the warnings on stderr (with
//! `file:line`) are checked.

use serde_json::Value;

use crate::plans::assert_invariants;
use crate::test::{fixture, Run, Test};

/// Copies `fixtures/plans/<name>` to the project's tasks.md and imports it.
fn import(t: &Test, name: &str) -> Run {
    let text = std::fs::read(fixture(&format!("plans/{name}"))).expect("fixture");
    t.write("tasks.md", text);
    t.wf(&["workflow-start", "tasks.md"])
}

fn tasks(t: &Test) -> Vec<Value> {
    t.state()["tasks"].as_array().cloned().unwrap_or_default()
}

fn ids(t: &Test) -> Vec<String> {
    tasks(t)
        .iter()
        .map(|x| x["id"].as_str().unwrap_or("").to_string())
        .collect()
}

fn get(t: &Test, id: &str) -> Value {
    tasks(t)
        .into_iter()
        .find(|x| x["id"] == id)
        .unwrap_or_else(|| panic!("no task {id}"))
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The `wf: warning:` lines of a run, without the prefix.
fn warnings(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter_map(|l| l.strip_prefix("wf: warning: "))
        .collect()
}

#[track_caller]
fn refused(t: &Test, run: Run, needles: &[&str]) {
    let run = run.code(2);
    for n in needles {
        assert!(run.stderr.contains(n), "missing {n:?} in:\n{}", run.stderr);
    }
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(!t.workflow_dir().exists(), "a refused import wrote state");
}

// ---- claude-workflow headings ----

/// Issue 14.1: `## T-2:`, `## **T3**:`, `##T4:` and `## T5 name` headings were read as
/// prose, so the import said "1 tasks" and the run ended "Completed 1/1" with five
/// tasks never run.
#[test]
fn a_hyphenated_bold_spaceless_or_colonless_heading_is_read_not_dropped() {
    let t = Test::new();
    let run = import(&t, "p-claude-heading-forms.md").ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    Planned `heading forms`: 6 tasks (claude-workflow).
    ┌───────┬───────┬──────┬─────────┐
    │ phase ┆ tasks ┆ done ┆ blocked │
    ╞═══════╪═══════╪══════╪═════════╡
    │       ┆ 6     ┆ 0    ┆ 0       │
    └───────┴───────┴──────┴─────────┘
    Checks: 6 by a command, 0 by what their line names, 0 by nothing.
    Audit: passed (0 errors, 6 warnings).
      tasks.md:5: warning: T1: the task names no file and states no requirement
      tasks.md:8: warning: T-2: the task names no file and states no requirement
      tasks.md:12: warning: T3: the task names no file and states no requirement
      tasks.md:16: warning: T4: the task names no file and states no requirement
      tasks.md:20: warning: T5: the task names no file and states no requirement
      tasks.md:24: warning: T6: the task names no file and states no requirement
    Next: `wf workflow-execute`.
    --- stderr
    ");
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    assert_eq!(ids(&t), ["T1", "T-2", "T3", "T4", "T5", "T6"]);
    assert_eq!(strs(&get(&t, "T-2")["deps"]), ["T1"]);
    assert_eq!(get(&t, "T5")["name"], "no colon after the id");
    assert_eq!(get(&t, "T6")["name"], "bold over id and name");
    let run = t.wf(&["workflow-execute", "--all"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T1 plain heading
    ✓ T1 plain heading (N.Ns)
    ▶ T-2 hyphenated id
    ✓ T-2 hyphenated id (N.Ns)
    ▶ T3 bold id
    ✓ T3 bold id (N.Ns)
    ▶ T4 no space after the hashes
    ✓ T4 no space after the hashes (N.Ns)
    ▶ T5 no colon after the id
    ✓ T5 no colon after the id (N.Ns)
    ▶ T6 bold over id and name
    ✓ T6 bold over id and name (N.Ns)
    Completed: 6/6 tasks done.
    --- stderr
    ");
    assert_eq!(t.read("runs.log"), "T1\nT-2\nT3\nT4\nT5\nT6\n");
    let state = t.state();
    assert_eq!(state["status"], "completed");
    assert!(tasks(&t).iter().all(|x| x["status"] == "completed"));
    assert_invariants(&t);
}

#[test]
fn a_look_alike_letter_in_a_heading_id_refuses_the_import_with_its_line() {
    let t = Test::new();
    let run = import(&t, "p-claude-cyrillic-id.md");
    refused(
        &t,
        run,
        &[
            "tasks.md:6: this heading has task fields, but the id \"Т2\" is not valid",
            "'Т' (U+0422), which looks like a Latin letter",
            "write it as `## T2: name`",
        ],
    );
}

#[test]
fn a_zero_width_character_in_a_heading_id_refuses_the_import_with_its_line() {
    let t = Test::new();
    let run = import(&t, "p-claude-zero-width-id.md");
    refused(
        &t,
        run,
        &[
            "tasks.md:6: this heading has task fields",
            "an invisible character, U+200B",
            "write it as `## T2: name`",
        ],
    );
}

#[test]
fn an_emoji_in_a_heading_id_refuses_the_import_with_its_line() {
    let t = Test::new();
    let run = import(&t, "p-claude-emoji-id.md");
    refused(
        &t,
        run,
        &[
            "tasks.md:6: task id \"T2🚀\" (it holds '🚀' (U+1F680)) is not valid",
            "e.g. T2",
        ],
    );
}

#[test]
fn a_plan_whose_only_heading_has_a_bad_id_names_that_heading_not_no_tasks() {
    let t = Test::new();
    let run = import(&t, "p-claude-only-bad-heading.md");
    refused(
        &t,
        run,
        &[
            "tasks.md:5: the claude-workflow plan has no tasks: this heading looks like a task heading, but the id \"Т1\" is not valid",
            "write it as `## T1: name`",
        ],
    );
}

#[test]
fn a_misspelled_field_is_a_warning_with_a_suggestion() {
    let t = Test::new();
    let run = import(&t, "p-claude-misspelled-field.md").ok();
    assert_eq!(
        warnings(&run),
        [
            "tasks.md:4: task T1: unknown field `Verfy`; did you mean `verify`? (kept as a plain note, not used)",
            "tasks.md:8: task T2: unknown field `验证命名`; did you mean `验证命令`? (kept as a plain note, not used)",
            "tasks.md:9: task T2: unknown field `Dependancies`; did you mean `dependencies`? (kept as a plain note, not used)",
        ]
    );
    // A custom field far from every known name (需求 ID) is kept without a word.
    assert_eq!(get(&t, "T1")["需求 ID"], "R-1");
}

// ---- spec-kit task lines ----

/// A `[-]` box is skipped; a `[~]` box is in progress (issue 48: it was read as
/// skipped), which an import takes as pending. Both keep their box in the copy.
#[test]
fn a_dash_box_imports_as_skipped_a_tilde_box_as_pending_and_both_keep_their_box() {
    let t = Test::new();
    let run = import(&t, "p-speckit-boxes.md").ok();
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    assert_eq!(ids(&t), ["T001", "T002", "T003", "T004"]);
    let status: Vec<String> = tasks(&t)
        .iter()
        .map(|x| x["status"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(status, ["completed", "skipped", "pending", "pending"]);
    // The plan copy is rewritten at every checkpoint; the marks stay as written.
    t.wf(&["workflow-execute"]);
    let state = t.state();
    let copy = std::fs::read_to_string(
        t.workflow_dir()
            .join(state["tasks_file"].as_str().unwrap_or("")),
    )
    .expect("plan copy");
    assert!(
        copy.contains("- [-] T002 Configure linting in .eslintrc.json\n"),
        "{copy}"
    );
    assert!(copy.contains("- [~] T003 Add the CI workflow"), "{copy}");
    assert!(!copy.contains("DEFERRED"), "{copy}");
    assert_invariants(&t);
}

#[test]
fn a_bold_or_hyphenated_spec_kit_id_is_a_task_and_a_broken_one_is_a_warning() {
    let t = Test::new();
    let run = import(&t, "p-speckit-bold-ids.md").ok();
    assert_eq!(ids(&t), ["T-001", "T002", "T-003"]);
    assert_eq!(get(&t, "T-001")["status"], "completed");
    assert_eq!(get(&t, "T002")["file"], "src/config/loader.py");
    assert_eq!(strs(&get(&t, "T-003")["deps"]), ["T002"]);
    assert_eq!(
        warnings(&run),
        [
            "tasks.md:8: this line looks like a task, but the id \"Т004\" is not valid: it holds 'Т' (U+0422), which looks like a Latin letter but is not one, so it is not read as one; write it as `- [ ] T004 description`",
            "tasks.md:9: this line looks like a task, but \"TASK-005\" is the only id of its kind in the plan, so it is not read as one; write it as `- [ ] T001 description` if it is a task",
        ]
    );
}

#[test]
fn a_trailing_p_marks_parallel_and_story_labels_are_not_names() {
    let t = Test::new();
    import(&t, "p-speckit-tags.md").ok();
    let got: Vec<(String, String, bool)> = tasks(&t)
        .iter()
        .map(|x| {
            (
                x["story"].as_str().unwrap_or("").to_string(),
                x["name"].as_str().unwrap_or("").to_string(),
                x["parallel"] == true,
            )
        })
        .collect();
    let want = [
        ("US5a", "Create the model in src/models/venue.py", false),
        ("US1+US5", "Add the service in src/services/venue.py", true),
        ("Story 2", "Add the endpoint in src/api/venue.py", true),
        ("US1", "Wire it up in src/app.py", true),
        (
            "US2/US3",
            "[EXECUTOR: database-architect] [SEC] Add the index in src/db/index.sql",
            true,
        ),
    ];
    let want: Vec<(String, String, bool)> = want
        .iter()
        .map(|(s, n, p)| (s.to_string(), n.to_string(), *p))
        .collect();
    assert_eq!(got, want);
    // [P] tasks wait for the last unmarked one only.
    assert_eq!(strs(&get(&t, "T013")["deps"]), ["T010"]);
}

#[test]
fn continuation_lines_add_deps_and_files_and_prose_in_depends_on_is_ignored() {
    let t = Test::new();
    let run = import(&t, "p-speckit-continuation.md").ok();
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    let t2 = get(&t, "T002");
    assert_eq!(strs(&t2["deps"]), ["T001"]);
    assert_eq!(t2["file"], "src/services/user.py");
    assert_eq!(strs(&t2["modifies"]), ["src/services/auth.py"]);
    assert_eq!(
        t2["requirement"],
        "- Files: `src/services/user.py`, `src/services/auth.py`"
    );
    assert_eq!(strs(&get(&t, "T003")["deps"]), ["T001"]);
    assert_eq!(get(&t, "T003")["name"], "Add the schema");
    assert_eq!(strs(&get(&t, "T004")["deps"]), ["T002", "T003"]);
    assert_eq!(get(&t, "T004")["name"], "Document the API");
}

#[test]
fn files_are_real_paths_not_routes_word_lists_or_punctuation() {
    let t = Test::new();
    import(&t, "p-speckit-files.md").ok();
    let files = |id: &str| {
        let x = get(&t, id);
        let mut v: Vec<String> = x["file"].as_str().map(str::to_string).into_iter().collect();
        v.extend(strs(&x["modifies"]));
        v
    };
    assert_eq!(files("T001"), ["src/routes/venues.ts"]);
    assert_eq!(
        files("T002"),
        [
            "src/api/users.py",
            "src/api/router.py",
            "tests/test_users.py"
        ]
    );
    assert_eq!(files("T003"), ["docs/security.md"]);
    assert_eq!(files("T004"), ["src/lib/parse.rs", "src/lib/doc.rs"]);
}

#[test]
fn a_dependencies_section_adds_edges_and_a_cycle_it_would_close_is_a_warning() {
    let t = Test::new();
    let run = import(&t, "p-speckit-dependency-section.md").ok();
    assert_eq!(
        warnings(&run),
        [
            "tasks.md:25: this line makes T002 wait for T003, but T003 already waits for T002 (directly, through other dependencies or phase order), so the edge would close a cycle and is ignored; fix the line or the task order",
            "tasks.md:26: this dependency line names T009, which is not a task in this plan, so the whole line is ignored; fix the id",
        ]
    );
    // Phase order alone makes T004-T007 wait for T001-T003; the section adds the rest.
    assert_eq!(strs(&get(&t, "T003")["deps"]), ["T001", "T002"]);
    assert!(strs(&get(&t, "T005")["deps"]).contains(&"T004".to_string()));
    assert!(strs(&get(&t, "T006")["deps"]).contains(&"T004".to_string()));
    assert!(strs(&get(&t, "T007")["deps"]).contains(&"T004".to_string()));
    assert!(!strs(&get(&t, "T002")["deps"]).contains(&"T003".to_string()));
}

#[test]
fn a_status_mark_before_the_id_and_an_arrow_deferred_are_read() {
    let t = Test::new();
    let run = import(&t, "p-speckit-status-marks.md").ok();
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    assert_eq!(ids(&t), ["T001", "T002", "T003", "T004"]);
    let status: Vec<String> = tasks(&t)
        .iter()
        .map(|x| x["status"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(status[0], "completed");
    assert_ne!(status[1], "completed");
    assert_eq!(status[2..], ["skipped", "skipped"]);
    assert_eq!(
        get(&t, "T004")["name"],
        "Add the PDF endpoint to contracts/api.md"
    );
    assert_eq!(
        get(&t, "T003")["file"],
        "tests/fixtures/agents/manifest.yml"
    );
}

#[test]
/// Issue 48: a list of checkboxes without ids anywhere is a plain checklist, every
/// box a task, nested ones too (it was refused: "no task id"); `--format spec-kit`
/// still names the box without an id.
fn checkboxes_without_ids_anywhere_are_a_plain_checklist() {
    let t = Test::new();
    let run = import(&t, "p-speckit-no-ids.md").ok();
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    assert_eq!(t.state()["plan_format"], "checklist");
    assert_eq!(ids(&t), ["1", "1.1", "2"]);
    let forced = Test::new();
    let text = std::fs::read(fixture("plans/p-speckit-no-ids.md")).expect("fixture");
    forced.write("tasks.md", text);
    refused(
        &forced,
        forced.wf(&["workflow-start", "--format", "spec-kit", "tasks.md"]),
        &["tasks.md:5: the spec-kit plan has no tasks: this checkbox has no task id; give each task an id, e.g. `- [ ] T001 description`"],
    );
}

#[test]
fn story_ids_ranges_and_prose_in_depends_on_do_not_refuse_the_plan() {
    let t = Test::new();
    let run = import(&t, "p-speckit-depends-prose.md").ok();
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    assert_eq!(strs(&get(&t, "T004")["deps"]), ["T001"]);
    assert_eq!(get(&t, "T004")["name"], "Bind the provider");
    assert_eq!(strs(&get(&t, "T005")["deps"]), ["T001", "T002", "T003"]);
    // Prose only: neither read nor cut from the name.
    assert!(get(&t, "T006")["deps"].is_null());
    assert_eq!(
        get(&t, "T006")["name"],
        "Add a `test-runner` compose service (depends on web: service_healthy, api: service_healthy)"
    );
    // A continuation line's bare `depends on T005, T006.`
    assert_eq!(strs(&get(&t, "T007")["deps"]), ["T005", "T006"]);
}

/// Issue 48: `### Task 1.1: name` with task fields is the task numbered 1.1 (it was
/// refused as a heading with a broken id).
#[test]
fn a_numbered_task_title_heading_with_fields_is_the_task_of_that_number() {
    let t = Test::new();
    let run = import(&t, "p-claude-numbered-title.md").ok();
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    assert_eq!(ids(&t), ["1.1"]);
    assert_eq!(get(&t, "1.1")["name"], "Create fixtures directory");
    assert_eq!(get(&t, "1.1")["file"], "legaldocs/fixtures/");
}

#[test]
fn a_files_list_and_a_checkbox_before_a_field_are_read() {
    let t = Test::new();
    let run = import(&t, "p-claude-files-field.md").ok();
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    let t1 = get(&t, "T001");
    assert_eq!(t1["file"], "go.mod");
    assert_eq!(strs(&t1["modifies"]), ["go.sum"]);
    assert_eq!(t1["requirement"], "Add paho.mqtt.golang to go.mod");
}

#[test]
fn bold_paragraph_fields_without_list_markers_are_read() {
    let t = Test::new();
    import(&t, "p-claude-bold-paragraph-fields.md").ok();
    assert_eq!(ids(&t), ["T001", "T002"]);
    assert_eq!(
        get(&t, "T001")["requirement"],
        "Create the project skeleton with TypeScript, ESLint and Prettier."
    );
    let t2 = get(&t, "T002");
    assert_eq!(
        t2["requirement"],
        "Write the schema in `prisma/schema.prisma` for notes and tags."
    );
    assert_eq!(strs(&t2["deps"]), ["T001"]);
    // A bold word that is not a field name stays prose: no unknown-field warning.
    assert!(
        t.state()["zeroDecisionAudit"]["passed"] == true,
        "{}",
        t.state()["zeroDecisionAudit"]
    );
    assert_invariants(&t);
}

// ---- issue 48: what the corpus of real plans writes ----

/// The `(id, status)` of every task of the workflow.
fn statuses(t: &Test) -> Vec<(String, String)> {
    tasks(t)
        .iter()
        .map(|x| {
            (
                x["id"].as_str().unwrap_or("").to_string(),
                x["status"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// A deferral written in prose on an open or a checked box is skipped, and never
/// handed to an agent; prose that only mentions deferring is not one.
#[test]
fn a_deferral_in_prose_is_skipped_and_never_handed_off() {
    let t = Test::new();
    let run = import(&t, "p-speckit-prose-deferrals.md").ok();
    assert!(warnings(&run).is_empty(), "{}", run.stderr);
    assert_eq!(
        statuses(&t),
        pairs(&[
            ("T001", "completed"),
            ("T002", "skipped"),
            ("T003", "skipped"),
            ("T004", "skipped"),
            ("T005", "skipped"),
            ("T006", "skipped"),
            ("T007", "skipped"),
            ("T008", "skipped"),
            ("T009", "skipped"),
            ("T010", "pending"),
        ])
    );
    assert_eq!(get(&t, "T002")["name"], "Write the e2e suite");
    t.wf(&["workflow-execute"]);
    let handed: Vec<String> = statuses(&t)
        .into_iter()
        .filter(|(_, s)| s == "in_progress")
        .map(|(id, _)| id)
        .collect();
    assert_eq!(handed, ["T010"]);
}

/// Ids of other families are read where the plan has two of their kind, and one of
/// a kind alone is a warning with its line.
#[test]
fn ids_that_are_not_t_and_digits_are_read_or_warned_about() {
    let t = Test::new();
    let run = import(&t, "p-speckit-other-ids.md").ok();
    assert_eq!(
        ids(&t),
        [
            "P001",
            "P002",
            "T-FS0",
            "T-DOC-OPS",
            "T158-1",
            "PI-A1",
            "PI-A2",
            "D001",
            "D002"
        ]
    );
    assert_eq!(
        warnings(&run),
        ["tasks.md:17: this line looks like a task, but \"GPT-4\" is the only id of its kind in the plan, so it is not read as one; write it as `- [ ] T001 description` if it is a task"]
    );
}

/// A summary that restates tasks adds none: a range is not a task, a restated id is
/// the task already read.
#[test]
fn a_summary_that_restates_tasks_adds_none() {
    let t = Test::new();
    let run = import(&t, "p-speckit-summary-ranges.md").ok();
    assert_eq!(ids(&t), ["T008", "T009", "T010"]);
    assert_eq!(get(&t, "T010")["file"], "src/retry.rs");
    assert_eq!(
        warnings(&run),
        [
            "tasks.md:11: this line restates the tasks T008-T009 (a summary), so it is not read as a task of its own; give it an id of its own if it is one",
            "tasks.md:12: task T010 is restated here in a summary (first at line 7), so it is not read again; nothing to do unless it is another task, then give it an id of its own",
        ]
    );
}

/// The plan's legend decides what a box means: here `[~]` is deferred, `[/]` in
/// progress (pending once imported).
#[test]
fn a_legend_decides_what_a_box_means() {
    let t = Test::new();
    import(&t, "p-speckit-progress-boxes.md").ok();
    assert_eq!(
        statuses(&t),
        pairs(&[
            ("T001", "skipped"),
            ("T002", "pending"),
            ("T003", "completed"),
            ("T004", "pending"),
        ])
    );
}

/// A section pasted twice is one set of tasks with the later statuses; a task
/// written again as done is done; another task under a used id is read as ID-2.
/// None of them refuses the plan.
#[test]
fn a_repeated_section_does_not_refuse_the_plan() {
    let t = Test::new();
    let run = import(&t, "p-speckit-repeated-section.md").ok();
    assert_eq!(
        statuses(&t),
        pairs(&[
            ("T001", "completed"),
            ("T002", "completed"),
            ("T003", "pending"),
            ("T004", "completed"),
            ("T003-2", "pending"),
        ])
    );
    let lines: Vec<&str> = warnings(&run)
        .into_iter()
        .map(|w| w.split(": ").next().unwrap_or(""))
        .collect();
    assert_eq!(
        lines,
        ["tasks.md:14", "tasks.md:15", "tasks.md:20", "tasks.md:21"]
    );
}

/// A task table is read, its status cell written back when the task completes.
#[test]
fn a_task_table_is_read_and_its_status_cell_written_back() {
    let t = Test::new();
    import(&t, "p-speckit-table.md").ok();
    assert_eq!(
        statuses(&t),
        pairs(&[
            ("T1", "completed"),
            ("T2", "pending"),
            ("T3", "pending"),
            ("T4", "skipped"),
        ])
    );
    assert_eq!(strs(&get(&t, "T3")["deps"]), ["T2"]);
    t.wf(&["workflow-execute", "--all", "--mock", "success"])
        .ok();
    let name = t.state()["tasks_file"].as_str().unwrap_or("").to_string();
    let copy = std::fs::read_to_string(t.workflow_dir().join(name)).expect("copy");
    assert!(
        copy.contains("| T2 | Build the API in `src/api.rs` | Done | T1 |"),
        "{copy}"
    );
    assert!(
        copy.contains("| T3 | Write the docs | Done | T2 |"),
        "{copy}"
    );
    assert!(
        copy.contains("| T4 | Port to Windows | Deferred | T2 |"),
        "{copy}"
    );
    assert!(copy.contains("| Phase 1 | T1-T4 | In progress |"), "{copy}");
}

/// Estimates in brackets are not unfilled placeholders.
#[test]
fn estimates_in_brackets_are_not_placeholders() {
    let t = Test::new();
    import(&t, "p-speckit-estimates.md").ok();
    let audit = &t.state()["zeroDecisionAudit"];
    assert_eq!(audit["passed"], true, "{audit}");
    assert_eq!(audit["antiPatterns"], serde_json::json!([]), "{audit}");
}

/// Headings as tasks: `### Task 1.1:`, `## T1. Pre-flight:`, `#### TASK-014-001:`
/// over bold fields, `### - [x] T002 …`.
#[test]
fn headings_as_tasks_are_read() {
    let t = Test::new();
    import(&t, "p-claude-task-titles.md").ok();
    assert_eq!(
        statuses(&t),
        pairs(&[("1.1", "completed"), ("1.2", "pending")])
    );
    assert_eq!(strs(&get(&t, "1.2")["deps"]), ["1.1"]);
    let t = Test::new();
    import(&t, "p-claude-deep-headings.md").ok();
    assert_eq!(
        statuses(&t),
        pairs(&[
            ("T1", "completed"),
            ("TASK-014-001", "pending"),
            ("TASK-014-002", "pending"),
            ("T002", "completed"),
        ])
    );
    assert_eq!(strs(&get(&t, "TASK-014-002")["deps"]), ["TASK-014-001"]);
    assert_eq!(get(&t, "TASK-014-001")["file"], "src/billing/model.rs");
}

/// A checklist without ids is read box by box, the boxes under "Definition of
/// Done" left out, the sub-items of a deferred item deferred with it.
#[test]
fn a_plain_checklist_is_read_box_by_box() {
    let t = Test::new();
    import(&t, "p-checklist-plain.md").ok();
    assert_eq!(
        statuses(&t),
        pairs(&[
            ("1", "completed"),
            ("2", "pending"),
            ("2.1", "pending"),
            ("2.2", "pending"),
            ("3", "skipped"),
        ])
    );
    assert_eq!(strs(&get(&t, "2")["deps"]), ["2.1", "2.2"]);
}
