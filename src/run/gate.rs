//! A quality gate's checks: the builtin verifiers that exist for the project,
//! scored against the task's threshold, and every hard constraint with a
//! `verifyCmd`, each of which must pass (docs/execution.md "Quality gates"); the
//! same constraints once more as the final verifiers of a finished workflow, and
//! for a gate imported from elsewhere (`run::import_results`).

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::exec::verifier::{self, Verifier};
use crate::run::work::{append_header, CheckRun, Verdict, WorkCtx};
use crate::state::model::Task;

/// Runs the builtin verifiers that exist for this project and scores them: the
/// gate's record, none when it did not run to its end (interrupted). A verifier is
/// `passed`, `failed`, `missing` (its detected tool is not on PATH: not counted,
/// unless the config requires it, when it fails), `off` (`wf.verifiers.NAME:
/// false`) or `n/a` (the project declares no tool for it); a failure lists them all.
pub(crate) async fn quality_gate(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    log: &Path,
    runs: &mut Vec<CheckRun>,
) -> (Option<Value>, Result<(), Verdict>) {
    let threshold = task.threshold.unwrap_or(80);
    let mut results = Map::new();
    let mut considered = 0u32;
    let mut passed = 0u32;
    let mut first_failure = None;
    let mut said = Vec::new();
    for builtin in Verifier::ALL {
        let name = builtin.name();
        let program = match verifier::here(builtin, &ctx.project, &ctx.config) {
            verifier::Here::Runs(program) => program,
            not_run => {
                let (word, shown) = not_run.words(name);
                results.insert(name.into(), json!(word));
                said.push(shown);
                continue;
            }
        };
        considered += 1;
        match ctx.run(task, attempt, name, program, log, runs).await {
            Ok(()) => {
                passed += 1;
                results.insert(name.into(), json!("passed"));
                said.push(format!("{name} passed"));
            }
            Err(Verdict::Interrupted) => {
                return (None, Err(Verdict::Interrupted));
            }
            Err(Verdict::Failed { reason }) => {
                results.insert(name.into(), json!("failed"));
                said.push(format!("{name} failed"));
                first_failure.get_or_insert(reason);
            }
            Err(Verdict::Passed { .. } | Verdict::DispatchFailed { .. }) => {}
        }
    }
    let ConstraintChecks {
        results: constraints,
        failure: constraint_failure,
        verifications,
    } = match gate_constraints(ctx, log).await {
        Ok(checked) => checked,
        Err(v) => return (None, Err(v)),
    };
    let score = (passed * 100).checked_div(considered).unwrap_or(0);
    let ok = considered > 0 && score >= threshold && constraint_failure.is_none();
    let record = json!({
        "threshold": threshold,
        "score": score,
        "passed": ok,
        "verifiers": results,
        "constraints": constraints,
        // Folded into constraints.verifications like a `wf constraints verify`.
        "verifications": verifications,
        "checkedAt": crate::clock::now_rfc3339(),
    });
    let result = if ok {
        Ok(())
    } else if let (true, Some(why)) = (considered > 0, constraint_failure) {
        Err(Verdict::Failed {
            reason: format!("quality gate {}: {why}", task.id),
        })
    } else if considered == 0 {
        Err(Verdict::Failed {
            reason: format!(
                "quality gate {}: no verifier could run in this project{} (set scripts.test, scripts.lint, scripts.build or scripts.typecheck in {})",
                task.id,
                if said.is_empty() { String::new() } else { format!(": {}", said.join(", ")) },
                crate::config::CONFIG_PATH
            ),
        })
    } else {
        Err(Verdict::Failed {
            reason: format!(
                "quality gate {}: score {score} is below the threshold {threshold} ({}); {}",
                task.id,
                said.join(", "),
                first_failure.unwrap_or_default()
            ),
        })
    };
    (Some(record), result)
}

/// The final verifiers of a finished workflow (docs/execution.md "Completion"): every
/// hard constraint with a `verifyCmd`, run once more on the finished work. `Err` is
/// the reason it cannot be called complete.
pub fn final_verifiers(ctx: &WorkCtx) -> Result<(), String> {
    let log = ctx.workflow_dir.join("logs").join("final-verifiers.log");
    // At the end of a run, nothing else running: this thread waits for them.
    match crate::exec::reactor::block_on(gate_constraints(ctx, &log)) {
        Ok(ConstraintChecks { failure: None, .. }) => Ok(()),
        Ok(ConstraintChecks {
            failure: Some(failure),
            ..
        }) => Err(format!("final verifiers: {failure}")),
        Err(Verdict::Interrupted) => Err("final verifiers were interrupted".into()),
        Err(_) => Err("final verifiers could not run".into()),
    }
}

/// What checking the hard constraints found.
pub struct ConstraintChecks {
    /// `passed`/`failed` by constraint id, for the gate record.
    pub results: Map<String, Value>,
    /// The first failure, with the tail of its output.
    pub failure: Option<String>,
    pub verifications: Vec<crate::state::model::ConstraintVerification>,
}

/// Verifies every hard constraint that has a `verifyCmd`: the results by id for the
/// gate record, and the first failure with the tail of its output.
pub(crate) async fn gate_constraints(
    ctx: &WorkCtx,
    log: &Path,
) -> Result<ConstraintChecks, Verdict> {
    use crate::constraints::{has_verify_cmd, verify};
    let mut results = Map::new();
    let mut failure = None;
    let mut verifications = Vec::new();
    for c in ctx.hard_constraints.iter().filter(|c| has_verify_cmd(c)) {
        let logs = ctx.workflow_dir.join("logs");
        let v = verify::verify(c, &ctx.project, &ctx.config, &ctx.children, &logs).await;
        if ctx.children.is_interrupted() {
            return Err(Verdict::Interrupted);
        }
        let word = if v.passed { "passed" } else { "failed" };
        append_header(log, &format!("hard constraint {}: {}", c.id, v.details));
        results.insert(c.id.clone(), json!(word));
        if !v.passed {
            failure.get_or_insert(format!("hard constraint {} failed: {}", c.id, v.details));
        }
        verifications.push(v);
    }
    Ok(ConstraintChecks {
        results,
        failure,
        verifications,
    })
}

#[cfg(test)]
mod gate_constraint_tests {
    use super::*;
    use crate::config::Config;
    use crate::exec::reactor::block_on;
    use crate::state::model::Constraint;

    fn hard(id: &str, cmd: &str) -> Constraint {
        Constraint {
            id: id.into(),
            description: format!("checked by {cmd}"),
            kind: "hard".into(),
            category: "requirement".into(),
            source_model: "user".into(),
            phase: "analysis".into(),
            verified: None,
            verify_cmd: Some(cmd.into()),
            extra: Map::new(),
        }
    }

    fn gate(hard_constraints: Vec<Constraint>) -> (Value, Result<(), Verdict>) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hay.txt"), "straw\n").unwrap();
        let mut config = Config::default();
        config.scripts.test = Some("true".into());
        let ctx = WorkCtx::new(
            dir.path().to_path_buf(),
            dir.path().join("wf"),
            config,
            hard_constraints,
        );
        let task = Task {
            id: "T3".into(),
            quality_gate: true,
            ..Task::default()
        };
        let log = ctx.log_for(&task, 1);
        let (record, result) = block_on(quality_gate(&ctx, &task, 1, &log, &mut Vec::new()));
        (record.expect("a gate that ran to its end"), result)
    }

    #[test]
    fn passing_hard_constraints_are_recorded() {
        let (record, result) = gate(vec![hard("C001", "test -d ."), {
            let mut c = hard("C002", "x");
            c.verify_cmd = None;
            c
        }]);
        assert_eq!(result, Ok(()));
        assert_eq!(record["constraints"], json!({"C001": "passed"}));
        assert_eq!(record["passed"], true);
    }

    #[test]
    fn a_failing_hard_constraint_fails_the_gate() {
        let (record, result) = gate(vec![
            hard("C001", "test -d ."),
            hard("C002", "grep -q needle hay.txt"),
        ]);
        match result {
            Err(Verdict::Failed { reason }) => assert!(
                reason.starts_with("quality gate T3: hard constraint C002 failed: `grep -q needle hay.txt` exited with 1"),
                "{reason}"
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            record["constraints"],
            json!({"C001": "passed", "C002": "failed"})
        );
        assert_eq!(record["passed"], false);
        assert_eq!(record["score"], 100);
    }

    #[test]
    fn a_refused_verify_command_fails_the_gate_unrun() {
        let (_, result) = gate(vec![hard("C001", "touch made")]);
        match result {
            Err(Verdict::Failed { reason }) => assert!(reason.contains("refused"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
}
