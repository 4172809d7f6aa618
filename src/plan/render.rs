//! Writes tasks as a plan text that parses back to the same graph.
//!
//! Used by fixtures, property tests and plan generators, not by the import path.
//! claude-workflow output has a heading (with the status emoji) and every non-empty
//! field in its English name (the reader takes the Chinese ones too: `fields.rs`); spec-kit output groups consecutive tasks of one phase
//! under a `## <phase>` heading and writes all of `Task.deps` as `(depends on …)`, so
//! the parsed deps are a superset of the given ones (phase order adds its own edges).
//! Names are expected on one line and free of the syntax that would change their
//! meaning (a trailing status emoji, `(depends on …)`, a ` — DEFERRED` marker).

use std::fmt::Write as _;

use super::{status, Format};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

/// `tasks` as a plan of `format`: claude-workflow or spec-kit (any other is written
/// as spec-kit, the checklist the other markdown formats share).
pub fn render(format: Format, title: &str, tasks: &[Task]) -> String {
    if format == Format::CLAUDE_WORKFLOW {
        claude(title, tasks)
    } else {
        speckit(title, tasks)
    }
}

fn claude(title: &str, tasks: &[Task]) -> String {
    let mut s = format!("# {title}\n");
    for t in tasks {
        s.push('\n');
        let _ = write!(s, "## {}: {}", t.id, t.name);
        if let Some(e) = status::emoji(t.status) {
            let _ = write!(s, " {e}");
        }
        s.push('\n');
        let mut field = |key: &str, value: &str| {
            let mut lines = value.lines();
            let _ = writeln!(s, "- **{key}**: {}", lines.next().unwrap_or(""));
            for more in lines {
                let _ = writeln!(s, "  {more}");
            }
        };
        let list = |v: &[String]| v.join(", ");
        if !t.phase.is_empty() {
            field("phase", &t.phase);
        }
        if let Some(f) = &t.file {
            field("file", &code(f));
        }
        for (key, v) in [
            ("creates", &t.creates),
            ("modifies", &t.modifies),
            ("tests", &t.tests),
        ] {
            if !v.is_empty() {
                field(key, &list(v));
            }
        }
        if let Some(r) = &t.reuse {
            field("reuse", &code(r));
        }
        if !t.design_refs.is_empty() {
            field("design_refs", &list(&t.design_refs));
        }
        if let Some(r) = &t.requirement {
            field("requirement", r);
        }
        if let Some(a) = &t.acceptance {
            field("acceptance", a);
        }
        if !t.actions.is_empty() {
            field("actions", &list(&t.actions));
        }
        if !t.deps.is_empty() {
            field("depends", &list(&t.deps));
        }
        if !t.blocked_by.is_empty() {
            field("blocked_by", &list(&t.blocked_by));
        }
        if t.quality_gate {
            field("quality_gate", "true");
        }
        if let Some(n) = t.threshold {
            field("threshold", &n.to_string());
        }
        if !t.verify.is_empty() {
            let cmds: Vec<String> = t.verify.iter().map(|c| code(c)).collect();
            field("verify", &cmds.join(" "));
        }
        if let Some(e) = &t.expect {
            field("expect", e);
        }
        if let Some(n) = t.timeout_secs {
            field("timeout", &n.to_string());
        }
        if !t.capabilities.is_empty() {
            field("capabilities", &list(&t.capabilities));
        }
        for (k, v) in &t.extra {
            if let Some(v) = v.as_str() {
                field(k, v);
            }
        }
        // What the import would not keep is written pending.
        field("status", status::imported(t.status).as_str());
        if !t.steps.is_empty() {
            field("steps", "");
            for st in &t.steps {
                let _ = write!(s, "  - {}: {}", st.id, st.action);
                if let Some(o) = &st.output {
                    let _ = write!(s, " → {o}");
                }
                if let Some(c) = &st.check {
                    let _ = write!(s, " (verify: {c})");
                }
                s.push('\n');
            }
        }
    }
    s
}

fn speckit(title: &str, tasks: &[Task]) -> String {
    let mut s = format!("# Tasks: {title}\n");
    let mut phase: Option<&str> = None;
    for t in tasks {
        if phase != Some(t.phase.as_str()) {
            if phase.is_some() || !t.phase.is_empty() {
                let _ = write!(s, "\n## {}\n", t.phase);
            }
            s.push('\n');
            phase = Some(&t.phase);
        }
        let mark = if t.status == TaskStatus::Completed {
            'x'
        } else {
            ' '
        };
        let _ = write!(s, "- [{mark}] {}", t.id);
        if t.parallel {
            s.push_str(" [P]");
        }
        if let Some(story) = &t.story {
            let _ = write!(s, " [{story}]");
        }
        let _ = write!(s, " {}", t.name);
        if !t.deps.is_empty() {
            let _ = write!(s, " (depends on {})", t.deps.join(", "));
        }
        if t.status == TaskStatus::Skipped {
            s.push_str(" — DEFERRED");
        }
        s.push('\n');
    }
    s
}

/// A code span that holds `s` whatever backticks it contains.
fn code(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{s}{fence}")
    } else {
        format!("{fence} {s} {fence}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::parse;
    use crate::state::model::Step;
    use std::path::Path;

    #[test]
    fn claude_round_trip_of_every_field() {
        let mut t = Task {
            id: "T1".into(),
            name: "Build the thing".into(),
            phase: "implement".into(),
            status: TaskStatus::Completed,
            file: Some("src/a.ts".into()),
            creates: vec!["a.ts".into(), "b.ts".into()],
            modifies: vec!["c.ts".into()],
            tests: vec!["a.test.ts".into()],
            reuse: Some("src/util.ts".into()),
            design_refs: vec!["§1".into(), "P2".into()],
            requirement: Some("line one\nline two".into()),
            acceptance: Some("works".into()),
            actions: vec!["create_file".into(), "run_tests".into()],
            blocked_by: vec!["api_spec".into()],
            quality_gate: true,
            threshold: Some(90),
            verify: vec!["npm test".into(), "echo `x`".into()],
            expect: Some("exit 0".into()),
            timeout_secs: Some(300),
            capabilities: vec!["code".into()],
            steps: vec![Step {
                id: "A1".into(),
                action: "do".into(),
                output: Some("out".into()),
                check: Some("`true`".into()),
                check_cmd: Some("true".into()),
                ..Step::default()
            }],
            ..Task::default()
        };
        t.extra
            .insert("需求 ID".into(), serde_json::Value::String("R1".into()));
        let t0 = Task {
            id: "T0".into(),
            name: "first".into(),
            actions: vec!["x".into()],
            ..Task::default()
        };
        t.deps = vec!["T0".into()];
        let text = render(Format::CLAUDE_WORKFLOW, "Plan", &[t0, t.clone()]);
        let plan = parse(Path::new("r.md"), &text).unwrap();
        let mut back = plan.tasks[1].clone();
        assert_eq!(plan.title.as_deref(), Some("Plan"));
        back.line = 0;
        back.digest.clear();
        assert_eq!(back, t);
    }

    #[test]
    fn code_spans_hold_backticks() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "`` a`b ``");
    }
}
