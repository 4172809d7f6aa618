//! Doing a task with executors (agent CLIs), on a worker thread.
//!
//! The dispatch handshake (docs/executors.md): the executor process starting is the ack; a program that
//! cannot be started is a nack (DISPATCH_FAILED), kept apart from a failure after the
//! start (EXECUTION_FAILED). A dispatch timeout (docs/executors.md) has nothing to wait for
//! here: a local spawn succeeds or fails at once (std waits for the `exec`), so the
//! only deadline is the executor's own timeout, which is an execution failure.
//!
//! Claims need evidence: whatever the executor claims, the task's own checks (验证命令, step checks, declared files) decide; a
//! claimed success they refute is rejected. A reviewer passes when its last
//! `TOTAL SCORE: N` reaches the task's threshold.

use std::time::{Duration, Instant};

use crate::config::Role;
use crate::exec::process::{self, Exit, Program, Spec};
use crate::exec::reactor::block_on;
use crate::proof::{self, fingerprint, tree};
use crate::run::derived::Returning;
use crate::run::executor::{self, Executor, MockOutcome, MockPolicy};
use crate::run::usage::{self, Usage};
use crate::run::work::{self, append_header, Part, Ran, TaskOutcome, Verdict, WorkCtx};
use crate::state::event::{
    EventData, ExecutionResult, ExecutionStarted, Reason, Rehearsal, ReviewResult,
};
use crate::state::event_log::NewEvent;
use crate::state::evidence::{Changes, ClaimEvidence};
use crate::state::model::Task;

/// What an agent's attempt leaves for the evidence: its claim, and what the working
/// tree saw change.
type AgentWork = (Option<ClaimEvidence>, Option<Changes>);

pub const DEFAULT_AGENT_TIMEOUT: Duration = Duration::from_secs(1800);

pub struct Dispatch {
    /// One per needed capability, executors before reviewers.
    pub executors: Vec<Executor>,
    pub mock: Option<MockPolicy>,
    pub brief: Vec<u8>,
    /// Work of the task's story is still to come (`derived::Returning`).
    pub before_implementation: bool,
    /// What checking the work runs: `Full` in a workflow, `Standalone` (no commit)
    /// in a CI job's `wf run-task --agents`.
    pub part: Part,
}

/// Runs the task's executors in turn, then the task's own checks as evidence.
pub fn do_agent_task(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    dispatch: Dispatch,
    emit: &mut dyn FnMut(NewEvent),
) -> TaskOutcome {
    let started = Instant::now();
    let log = ctx.log_for(task, attempt);
    // What the executors reported they used, added up over this attempt.
    let mut spent: Option<Usage> = None;
    // The working tree before any executor touched it — its first attempt's, kept on
    // the task — to tell what they changed (a --mock rehearsal changes nothing).
    let before = dispatch
        .mock
        .is_none()
        .then(|| {
            task.base_tree
                .clone()
                .or_else(|| tree::snapshot(&ctx.project))
        })
        .flatten();
    let mut claim: Option<ClaimEvidence> = None;
    let mut changes: Option<Changes> = None;
    let wf = event_of(task, "wf", Role::Reviewer);
    let finish = |verdict: Verdict, ran: Ran, spent: Option<Usage>, agent: AgentWork| TaskOutcome {
        usage: spent,
        claim: agent.0,
        changes: agent.1,
        ..TaskOutcome::new(
            &task.id,
            verdict,
            ran,
            ctx.relative(&log),
            started.elapsed(),
        )
    };
    for ex in &dispatch.executors {
        let role = ex.role();
        let run = Run {
            ctx,
            task,
            attempt,
            log: &log,
        };
        let result = match dispatch.mock.as_ref().and_then(|m| m.for_role(role)) {
            Some(outcome) => mock_run(task, ex, role, outcome, emit),
            None => real_run(&run, ex, role, &dispatch.brief, &mut spent, emit),
        };
        match result {
            Ok(Some(said)) => {
                let all = claim.get_or_insert_with(ClaimEvidence::default);
                all.changed_files.extend(said.changed_files);
                all.summary = said.summary;
            }
            Ok(None) => {}
            Err(verdict) => return finish(verdict, Ran::default(), spent, (claim, None)),
        }
    }
    let claimed = claim.is_some();
    // The claim-evidence rule on files: what the agent says it changed must have
    // changed, and what changed should be what the task declares.
    if let Some(before) = &before {
        changes = tree::snapshot(&ctx.project).and_then(|after| {
            tree::changes(
                &ctx.project,
                before,
                &after,
                &fingerprint::declared_files(task),
            )
        });
    }
    if let Some(seen) = &changes {
        let claimed_files = claim.as_ref().map_or(&[][..], |c| &c.changed_files[..]);
        let strict = ctx.config.wf.reject_undeclared_changes == Some(true);
        if let Err(why) = proof::check_changes(claimed_files, seen, strict) {
            emit(wf(EventData::TaskReviewResult(ReviewResult {
                passed: false,
                reason: Some(format!("claim without evidence: {why}")),
                ..ReviewResult::default()
            })));
            let reason = format!("the agent's work does not match: {why}");
            return finish(
                Verdict::Failed { reason },
                Ran::default(),
                spent,
                (claim, changes),
            );
        }
    }
    let undeclared = changes
        .as_ref()
        .map_or(Vec::new(), |c| c.undeclared.clone());
    // The evidence: everything the task itself can check (what its line names,
    // when it has no command), plus its tests, gate, commit — on the worker this
    // agent task runs on (`run::dispatch`): its checks block it.
    let mut ran = Ran::default();
    let checked = if dispatch.mock.is_some() {
        // A rehearsal did no work: nothing its line names could have changed.
        block_on(work::run_parts(
            ctx,
            task,
            attempt,
            dispatch.part,
            &log,
            &mut ran,
        ))
    } else {
        let returning = Returning {
            seen: changes.as_ref(),
            before_implementation: dispatch.before_implementation,
        };
        let part = dispatch.part;
        block_on(work::check_task(
            ctx,
            task,
            attempt,
            part,
            &log,
            Some(returning),
            &mut ran,
        ))
    };
    match checked {
        Ok(verified) => {
            if claimed {
                // A claim nothing could check is accepted unchecked, not confirmed.
                emit(wf(EventData::TaskReviewResult(ReviewResult {
                    passed: true,
                    evidence: Some(verified),
                    undeclared_changes: Some(undeclared.clone()),
                    ..ReviewResult::default()
                })));
            }
            // A mock rehearsal did no work; it is not evidence either way.
            let verified = verified && dispatch.mock.is_none();
            finish(Verdict::Passed { verified }, ran, spent, (claim, changes))
        }
        Err(Verdict::Failed { reason }) => {
            let reason = if claimed {
                emit(wf(EventData::TaskReviewResult(ReviewResult {
                    passed: false,
                    reason: Some(format!("claim without evidence: {reason}")),
                    ..ReviewResult::default()
                })));
                format!("the executor claimed success but the checks disagree: {reason}")
            } else {
                reason
            };
            finish(Verdict::Failed { reason }, ran, spent, (claim, changes))
        }
        Err(other) => finish(other, ran, spent, (claim, changes)),
    }
}

fn mock_run(
    task: &Task,
    ex: &Executor,
    role: Role,
    outcome: MockOutcome,
    emit: &mut dyn FnMut(NewEvent),
) -> Result<Option<executor::Claim>, Verdict> {
    let name = ex.config.name.as_str();
    let by = event_of(task, name, role);
    emit(by(EventData::TaskDispatchAck(Rehearsal { mock: true })));
    emit(by(EventData::TaskExecutionStarted(ExecutionStarted {
        mock: true,
        ..ExecutionStarted::default()
    })));
    let success = outcome == MockOutcome::Success;
    // A rehearsal's result has the shape of the real one it stands for.
    let data = if role == Role::Reviewer {
        EventData::TaskReviewResult(ReviewResult {
            passed: success,
            mock: true,
            ..ReviewResult::default()
        })
    } else {
        EventData::TaskExecutionResult(ExecutionResult {
            success,
            mock: true,
            ..ExecutionResult::default()
        })
    };
    emit(by(data));
    if success {
        Ok(None)
    } else {
        Err(Verdict::Failed {
            reason: format!("mock {role} `{name}` reported failure (--mock)"),
        })
    }
}

/// The attempt an executor runs for.
struct Run<'a> {
    ctx: &'a WorkCtx,
    task: &'a Task,
    attempt: u32,
    log: &'a std::path::Path,
}

/// Runs one executor; `spent` gains what it reported it used. `Ok(Some)`: it made
/// a claim of success.
fn real_run(
    run: &Run<'_>,
    ex: &Executor,
    role: Role,
    brief: &[u8],
    spent: &mut Option<Usage>,
    emit: &mut dyn FnMut(NewEvent),
) -> Result<Option<executor::Claim>, Verdict> {
    let Run {
        ctx,
        task,
        attempt,
        log,
    } = *run;
    let name = ex.config.name.clone();
    let by = event_of(task, &name, role);
    let timeout = ex
        .config
        .timeout_secs
        .or(task.timeout_secs)
        .map_or(DEFAULT_AGENT_TIMEOUT, Duration::from_secs);
    let start_of_output = std::fs::metadata(log).map_or(0, |m| m.len());
    append_header(log, &format!("[{name}] {}", ex.config.command.join(" ")));
    let mut acked = false;
    let mut on_start = || {
        acked = true;
    };
    let mut env = ctx.env(task, attempt);
    env.push(("WF_EXECUTOR".into(), name.clone()));
    env.push(("WF_ROLE".into(), role.as_str().into()));
    let echo = ctx
        .echo
        .as_ref()
        .map(|echo| move |line: &str| echo(&task.id, line));
    // On the worker this agent task runs on: its executor blocks it.
    let exit = crate::exec::reactor::block_on(process::run(
        Spec {
            program: Program::Argv(ex.config.command.clone()),
            cwd: &ctx.project,
            env,
            timeout,
            log,
            stdin: Some(brief.to_vec()),
            on_start: Some(&mut on_start),
            log_cap: ctx.config.wf.log_cap(),
            echo: echo.as_ref().map(|e| e as _),
        },
        &ctx.children,
    ));
    if !acked {
        let reason = format!("executor `{name}` {}", exit.describe());
        emit(by(EventData::TaskDispatchNack(Reason {
            reason: reason.clone(),
        })));
        let unrecoverable = matches!(&exit, Exit::NotOnPath(_));
        return Err(Verdict::DispatchFailed {
            reason,
            unrecoverable,
        });
    }
    emit(by(EventData::TaskDispatchAck(Rehearsal::default())));
    emit(by(EventData::TaskExecutionStarted(ExecutionStarted {
        attempt: Some(attempt),
        ..ExecutionStarted::default()
    })));
    let output = read_from(log, start_of_output);
    if exit == Exit::Interrupted {
        return Err(Verdict::Interrupted);
    }
    // What it used, whatever came of it: a failed run was paid for too.
    let reported = usage::parse(&output);
    let used = reported.as_ref().map(|r| r.usage);
    if let Some(u) = used {
        *spent = Some(spent.unwrap_or_default().plus(u));
    }
    // The executor's result, as its own event (docs/events.md), with what it used.
    let report = |emit: &mut dyn FnMut(NewEvent), result: ExecutionResult| {
        let data = ExecutionResult {
            usage: used,
            ..result
        };
        emit(by(EventData::TaskExecutionResult(data)));
    };
    if !exit.success() {
        let reason = format!("executor `{name}` {}", exit.describe());
        report(emit, failed(&reason));
        return Err(Verdict::Failed { reason });
    }
    // Inside a JSON envelope (Claude Code's `result`), the claim is in the answer.
    let answer = reported.and_then(|r| r.answer).unwrap_or(output);
    if role == Role::Reviewer {
        return review_verdict(task, &name, &answer, used, emit).map(|()| None);
    }
    match executor::parse_claim(&answer) {
        None => {
            report(
                emit,
                ExecutionResult {
                    success: true,
                    ..ExecutionResult::default()
                },
            );
            Ok(None)
        }
        Some(Err(why)) => {
            let reason = format!("executor `{name}`: {why}");
            report(emit, failed(&reason));
            Err(Verdict::Failed { reason })
        }
        Some(Ok(claim)) => {
            report(
                emit,
                ExecutionResult {
                    success: claim.success,
                    changed_files: Some(claim.changed_files.clone()),
                    summary: Some(claim.summary.clone()),
                    ..ExecutionResult::default()
                },
            );
            if claim.success {
                Ok(Some(claim))
            } else {
                Err(Verdict::Failed {
                    reason: format!("executor `{name}` reported failure: {}", claim.summary),
                })
            }
        }
    }
}

fn review_verdict(
    task: &Task,
    name: &str,
    output: &str,
    used: Option<Usage>,
    emit: &mut dyn FnMut(NewEvent),
) -> Result<(), Verdict> {
    let by = event_of(task, name, Role::Reviewer);
    let threshold = task.threshold.unwrap_or(80);
    let score = executor::parse_score(output);
    let passed = score.is_some_and(|s| s >= threshold);
    emit(by(EventData::TaskReviewResult(ReviewResult {
        passed,
        score,
        threshold: Some(threshold),
        usage: used,
        ..ReviewResult::default()
    })));
    match score {
        _ if passed => Ok(()),
        Some(s) => Err(Verdict::Failed {
            reason: format!("reviewer `{name}` scored {s}, below the threshold {threshold}"),
        }),
        None => Err(Verdict::Failed {
            reason: format!("reviewer `{name}` gave no `TOTAL SCORE: N` line"),
        }),
    }
}

/// What makes `data` an event of `task` from executor `name` in `role`.
fn event_of<'a>(task: &'a Task, name: &'a str, role: Role) -> impl Fn(EventData) -> NewEvent + 'a {
    move |data| NewEvent::new(data).task(&task.id).executor(name, role)
}

/// An executor's result when it failed, and why.
fn failed(reason: &str) -> ExecutionResult {
    ExecutionResult {
        success: false,
        reason: Some(reason.to_string()),
        ..ExecutionResult::default()
    }
}

fn read_from(path: &std::path::Path, offset: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    // Not through a link: the log's place is the workflow dir's, not the executor's.
    let Ok(mut f) = crate::fs::open_regular(path, false) else {
        return String::new();
    };
    let _ = f.seek(SeekFrom::Start(offset));
    let mut buf = Vec::new();
    // An agent's own output is bounded by what it printed during one attempt; cap it
    // anyway so a runaway executor cannot exhaust memory.
    let _ = f.take(8 * 1024 * 1024).read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}
