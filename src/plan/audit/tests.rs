use super::placeholder::{CLASS_RANGE, NEEDS_CLARIFICATION, TAG};
use super::prose::DEPENDS_MARKER;
use super::*;
use crate::plan::parse;
use proptest::prelude::*;
use std::path::Path;

#[test]
fn every_pattern_compiles() {
    assert_eq!(PATTERNS.len(), SOURCES.len());
    assert!(DEPENDS_MARKER.is_some() && CLASS_RANGE.is_some() && TAG.is_some());
    assert!(NEEDS_CLARIFICATION.is_some());
}

fn names(text: &str) -> Vec<&'static str> {
    hits(text).into_iter().map(|h| h.0).collect()
}

#[test]
fn word_boundaries() {
    assert_eq!(names("TODO: fix"), vec!["TODO"]);
    assert!(names("src/todos/list.ts").is_empty());
    assert!(names("a todo list").is_empty());
    assert!(names("TXXX docs").is_empty());
    assert_eq!(names("maybe later"), vec!["maybe"]);
    assert!(names("maybelline").is_empty());
    assert_eq!(names("Create [Entity1] model"), vec!["placeholder"]);
    assert_eq!(names("{{this.name}}"), vec!["placeholder"]);
    assert!(names("see [docs](http://x) and [x] and [P] [US1] [1]").is_empty());
    assert_eq!(names("[NEEDS CLARIFICATION: db?]"), vec!["placeholder"]);
    assert_eq!(names("接口待确认"), vec!["待定"]);
    assert_eq!(names("it Depends On the db"), vec!["depends on"]);
    assert_eq!(
        names("样式适当调整，如有必要"),
        vec!["if needed", "appropriate"]
    );
    assert_eq!(names("a, b, etc."), vec!["etc."]);
    assert_eq!(names("HACK around"), vec!["FIXME"]);
}

/// Text that is code, a path, a type, CSS, a template inside code, a regex class,
/// JSON or a label: never a finding.
#[test]
fn syntax_is_not_a_placeholder() {
    for text in [
        "Create src/app/api/venues/[id]/route.ts",
        "Add app/api/auth/[...nextauth]/route.ts",
        "Add the [...nextauth] handler",
        "Catch-all [[...slug]] page",
        "Blog page at app/blog/[slug]/page.tsx",
        "Render pages/[slug].tsx",
        "Route /posts/[slug]",
        "Dynamic [slug] segment",
        "Return list[User] from the repo",
        "Install passlib[bcrypt]",
        "Map Record<string, T> values",
        "Buttons are min-h-[44px]",
        "Style [data-theme=\"dark\"] overrides",
        "Handles are [a-z0-9_.-] only",
        "Defaults to [\"a\", \"b\"]",
        "[US5a] Filter venues",
        "[US1+US5] Shared header",
        "[US1+2+3] Polish",
        "[P] [US1] Model",
        "[FR-001, FR-003] Validation",
        "[SEQUENTIAL] [EXECUTOR: MAIN] Migrate",
        "[PARALLEL-GROUP-1] Lint",
        "[P?] Lint",
        "Set [tool.pytest.ini_options] in pyproject",
        "Use const [agents, setAgents] = useState()",
        "Show `{{.Size}}` in the listing",
        "Template `{{ user.name }}` rendered",
        "Write `TODO.md` and `todo.ts`",
        "Keep TODO.md up to date",
        "Edit src/todo.ts",
        "Fix docs/TODO/notes.md",
        "See https://example.com/TBD/page?x=[a]",
        "Tests in tests/contract/test_[name].py",
        "Regex `^[a-z]+$` only",
        "Spread ...rest into props",
        "Footnote[^1] and [^2]",
        "Array [1, 2, 3]",
        "Checkbox [ ] and [x]",
        "[docs]: https://example.com/docs",
        "Build T004 (depends on T003)",
        "Build T004 (depends on T002, T003)",
        "Build T004 (Depends on: T002 and T003)",
        "Build 用户页 (depends on T003、T004)",
        // From real plans (the corpus of issue 13).
        "[US2/US3] Create the release workflow",
        "[SEC] Add .gitignore patterns",
        "[P4] Security Center",
        "Return `SettingsResponse` (settings: dict[str, str])",
        "Return tuple[bool, str | None] from run",
        "Pin crewai[litellm]>=0.100.0",
        "Set collectionBehavior [.canJoinAllSpaces, .stationary]",
        "Widen the regex to [0-9A-Za-z.-]",
        "Write PLAN_[TASK_ID].md files",
        "writes to /Plans/PLAN_[TASK_ID].md",
        "`ok()` prints `[OK]     `, `info()` prints `[INFO]   `",
        "quickstart S6) — depends on T011, T012.",
        "Verify https://drowl.test (requires /etc/hosts entry)",
        "Configure log rotation in /etc/logrotate.d/caddy",
        "PROGRESS (corrected), `docs-app/.../guides/data.md`",
        "Push with --api-key ${{ secrets.GITHUB_TOKEN }}",
        "Push `dotnet nuget push --source\nhttps://x/index.json --api-key ${{ s.T }}\n--skip-duplicate` then",
        "print \"Watching {path} for new files...\"",
        "Use `docker inspect --format '{{.State.Health.Status}}'`",
        "Add `test-runner` (docker `depends_on: web`)",
        "ideal line, clamped to [0, initial], rounded",
        "Pick a value in [1, n] per step",
    ] {
        assert!(hits(text).is_empty(), "{text:?} gave {:?}", hits(text));
    }
}

#[test]
fn template_placeholders_are() {
    for (text, matched) in [
        ("Feature [FEATURE NAME]", "[FEATURE NAME]"),
        ("Branch [###-feature-name]", "[###-feature-name]"),
        ("Use [e.g., Python 3.11]", "[e.g., Python 3.11]"),
        ("Store [NEEDS CLARIFICATION]", "[NEEDS CLARIFICATION]"),
        (
            "Auth [NEEDS CLARIFICATION: OAuth?]",
            "[NEEDS CLARIFICATION: OAuth?]",
        ),
        ("Store sessions: NEEDS CLARIFICATION", "NEEDS CLARIFICATION"),
        ("[Entity1]: add the model", "[Entity1]"),
        ("Render {{title}} here", "{{title}}"),
        ("Create [Entity1] model", "[Entity1]"),
        ("Test for [user journey]", "[user journey]"),
        ("Implement [endpoint/feature]", "[endpoint/feature]"),
        ("Covers [FR-XXX]", "[FR-XXX]"),
        (
            "[Brief description of what this story delivers]",
            "[Brief description of what this story delivers]",
        ),
    ] {
        let h = hits(text);
        assert!(
            h.iter()
                .any(|(p, _, m)| *p == "placeholder" && m == matched),
            "{text:?} gave {h:?}"
        );
    }
}

#[test]
fn open_decisions_outside_code_still_count() {
    assert_eq!(names("TODO: pick `todo.ts` or `list.ts`"), vec!["TODO"]);
    assert_eq!(names("`x` depends on the db"), vec!["depends on"]);
    assert_eq!(names("depends on whether T3 ships"), vec!["depends on"]);
    assert_eq!(names("one, two, ..."), vec!["etc."]);
    assert_eq!(names("TBD/TODO"), vec!["TBD", "TODO"]);
    assert_eq!(names("修改src/api/user.ts，待定"), vec!["待定"]);
}

proptest! {
    /// Whatever is written inside backticks, the text around it decides.
    #[test]
    fn text_in_backticks_never_counts(code in "[^`\n]{1,60}") {
        prop_assert!(hits(&format!("`{code}`")).is_empty(), "{:?}", hits(&format!("`{code}`")));
        let text = format!("Write `{code}` now, then ``{code}`` too");
        prop_assert!(hits(&text).is_empty(), "{text:?} gave {:?}", hits(&text));
    }
}

#[test]
fn findings_and_passed() {
    let text = "# P\n\n## 约束\n\n- 性能可能需要优化\n- 使用 PostgreSQL\n\n## T1: Add TODO list\n- **需求**: maybe\n- **文件**: a.ts\n\n## T2: Clean\n- **actions**: edit_file\n";
    let plan = parse(Path::new("p.md"), text).unwrap();
    let a = audit(&plan.tasks, text, "2026-01-01T00:00:00Z");
    assert!(!a.passed);
    let got: Vec<(&str, &str, &str, Option<usize>)> = a
        .anti_patterns
        .iter()
        .map(|f| {
            (
                f.task_id.as_str(),
                f.pattern.as_str(),
                f.severity.as_str(),
                f.line,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("T1", "TODO", "error", Some(8)),
            ("T1", "maybe", "warning", Some(9)),
            ("T1", "missing actions", "warning", Some(8)),
            ("T2", "no file and no requirement", "warning", Some(12)),
        ]
    );
    assert_eq!(a.remaining_ambiguities.len(), 1);
    assert_eq!(a.remaining_ambiguities[0]["line"], 5);
    assert_eq!(a.remaining_ambiguities[0]["pattern"], "maybe");
    assert_eq!(a.audited_at.as_deref(), Some("2026-01-01T00:00:00Z"));
}

#[test]
fn a_finding_names_the_line_of_its_field() {
    let text = "## T1: Store\n- **actions**: edit_file\n- **文件**: a.ts\n- **需求**: keep it\n  simple, maybe cached\n- **验收**: TBD\n";
    let plan = parse(Path::new("p.md"), text).unwrap();
    let a = audit(&plan.tasks, text, "t");
    let got: Vec<(&str, Option<usize>)> = a
        .anti_patterns
        .iter()
        .map(|f| (f.pattern.as_str(), f.line))
        .collect();
    assert_eq!(got, vec![("maybe", Some(5)), ("TBD", Some(6))]);
}

#[test]
fn done_tasks_are_not_audited() {
    let text = "## Phase 1\n- [x] T001 TODO decide db\n- [ ] T002 Skip it — DEFERRED maybe later\n- [ ] T003 Write src/a.py\n";
    let plan = parse(Path::new("p.md"), text).unwrap();
    let a = audit(&plan.tasks, text, "t");
    assert!(a.anti_patterns.is_empty(), "{:?}", a.anti_patterns);
}

#[test]
fn agent_work_without_actions_is_a_warning() {
    let text = "## T1: Plan\n- **步骤**:\n  - A1: 生成工件 → 输出 spec（验证：存在）\n\n## T2: Bare\n- **文件**: a.ts\n";
    let plan = parse(Path::new("p.md"), text).unwrap();
    let a = audit(&plan.tasks, text, "t");
    let got: Vec<(&str, &str, &str)> = a
        .anti_patterns
        .iter()
        .map(|f| (f.task_id.as_str(), f.pattern.as_str(), f.severity.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("T1", "missing actions", "warning"),
            ("T2", "missing actions", "error"),
        ]
    );
}

#[test]
fn speckit_has_no_actions_check() {
    let text = "## Phase 1: Setup\n- [ ] T001 Create src/app.py\n- [ ] TXXX Polish\n";
    let plan = parse(Path::new("p.md"), text).unwrap();
    let a = audit(&plan.tasks, text, "now");
    assert!(a.passed, "{:?}", a.anti_patterns);
    assert!(a.anti_patterns.is_empty());
    assert_eq!(a.remaining_ambiguities[0]["pattern"], "placeholder task id");
}

#[test]
fn the_alternation_of_every_pattern_compiles_and_agrees_with_each() {
    let any = super::ANY.as_ref().expect("the alternation compiles");
    for text in [
        "Step 5 TBD",
        "maybe later",
        "适当",
        "run it",
        "etc",
        "depends on T1",
    ] {
        let one = super::PATTERNS.iter().any(|p| p.re.is_match(text));
        assert_eq!(any.is_match(text), one, "{text}");
    }
}

#[test]
fn a_task_block_is_read_in_one_pass_and_again_when_asked_out_of_order() {
    let text = "# P\n\n## T1: a\n- **需求**: x\n---\nafter the rule\n## T2: b\n<!-- note -->\n- **需求**: y\n";
    let numbers = |block: &[Line<'_>]| block.iter().map(|l| l.no).collect::<Vec<_>>();
    let mut blocks = Blocks::new(text, Some(Format::CLAUDE_WORKFLOW));
    // T1's block ends at the rule; T2's runs past a comment to the end.
    assert_eq!(numbers(blocks.of(3)), [3, 4]);
    assert_eq!(numbers(blocks.of(3)), [3, 4]);
    assert_eq!(numbers(blocks.of(7)), [7, 8, 9, 10]);
    // Asked for before the last one: read again from the start.
    assert_eq!(numbers(blocks.of(3)), [3, 4]);
    assert!(blocks.of(99).is_empty());
    // A spec-kit task's block ends at the next task line.
    let mut blocks = Blocks::new(
        "- [ ] T001 a\n  more\n- [ ] T002 b\n",
        Some(Format::SPEC_KIT),
    );
    assert_eq!(numbers(blocks.of(1)), [1, 2]);
    assert_eq!(numbers(blocks.of(3)), [3, 4]);
}
