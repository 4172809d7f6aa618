//! One table per decision of `policy`: each row is a rule or a failure path.

use super::*;
use crate::state::task_ref::TaskRef;
use std::collections::HashSet;

fn task(id: &str) -> Task {
    Task {
        id: id.into(),
        name: id.into(),
        phase: "p1".into(),
        ..Task::default()
    }
}

/// Tasks as a state holds them.
fn arcs(tasks: &[Task]) -> Vec<TaskRef> {
    tasks.iter().cloned().map(TaskRef::new).collect()
}

fn with(id: &str, f: impl FnOnce(&mut Task)) -> Task {
    let mut t = task(id);
    f(&mut t);
    t
}

/// A command task: it has something to run and no agent action.
fn command(id: &str) -> Task {
    with(id, |t| t.verify = vec!["true".into()])
}

/// An agent task: it names agent work.
fn agent(id: &str) -> Task {
    with(id, |t| t.actions = vec!["create_file".into()])
}

fn index(tasks: &[Task]) -> std::collections::HashMap<String, usize> {
    tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i))
        .collect()
}

#[test]
fn needs_agent_and_agent_actions() {
    let rows: &[(Task, bool, &[&str])] = &[
        (task("bare spec-kit task"), true, &[]),
        (command("verify only"), false, &[]),
        (with("gate", |t| t.quality_gate = true), false, &[]),
        (
            with("commands", |t| {
                t.actions = vec!["run_tests".into(), "git_commit".into()];
            }),
            false,
            &[],
        ),
        (
            with("mixed", |t| {
                t.actions = vec!["run_tests".into(), "edit_file".into()];
            }),
            true,
            &["edit_file"],
        ),
        (
            with("agent action with verify", |t| {
                t.actions = vec!["create_file".into()];
                t.verify = vec!["true".into()];
            }),
            true,
            &["create_file"],
        ),
    ];
    for (t, needs, actions) in rows {
        assert_eq!(needs_agent(t), *needs, "{}", t.id);
        assert_eq!(agent_actions(t), *actions, "{}", t.id);
    }
}

#[test]
fn the_ready_queue_takes_the_first_ready_task_in_document_order() {
    use TaskStatus::*;
    let running_b: HashSet<String> = ["b".to_string()].into();
    let none = HashSet::new();
    // (statuses of a, b, c; b's deps; b blocked; running; want)
    type Row<'a> = (
        [TaskStatus; 3],
        &'a [&'a str],
        bool,
        &'a HashSet<String>,
        Option<&'a str>,
    );
    let rows: &[Row] = &[
        ([Pending, Pending, Pending], &[], false, &none, Some("a")),
        ([Completed, Pending, Pending], &[], false, &none, Some("b")),
        ([Skipped, Completed, Pending], &[], false, &none, Some("c")),
        // not running
        (
            [Completed, Pending, Pending],
            &[],
            false,
            &running_b,
            Some("c"),
        ),
        // deps completed or skipped
        (
            [Completed, Pending, Pending],
            &["a"],
            false,
            &none,
            Some("b"),
        ),
        ([Skipped, Pending, Pending], &["a"], false, &none, Some("b")),
        // a dep not done, or an unknown one, keeps it waiting
        (
            [InProgress, Pending, Pending],
            &["a"],
            false,
            &none,
            Some("c"),
        ),
        // a failed task is not done: what depends on it waits
        ([Failed, Pending, Completed], &["a"], false, &none, None),
        ([Completed, Pending, Completed], &["zz"], false, &none, None),
        // not blocked
        ([Completed, Pending, Completed], &[], true, &none, None),
        // only pending tasks start
        ([Completed, Blocked, Failed], &[], false, &none, None),
        ([Completed, Completed, Skipped], &[], false, &none, None),
    ];
    for (i, (statuses, deps, blocked, running, want)) in rows.iter().enumerate() {
        let mut tasks: Vec<Task> = ["a", "b", "c"].iter().map(|id| task(id)).collect();
        for (t, s) in tasks.iter_mut().zip(statuses) {
            t.status = *s;
        }
        tasks[1].deps = deps.iter().map(std::string::ToString::to_string).collect();
        if *blocked {
            tasks[1].blocked_by = vec!["api_spec".into()];
        }
        let index = index(&tasks);
        let tasks = arcs(&tasks);
        let mut queue =
            crate::run::ready_queue::ReadyQueue::new(&tasks, |id| index.get(id).copied());
        let next = queue.next(&tasks, running);
        assert_eq!(next.map(crate::state::model::Glance::id), *want, "row {i}");
    }
}

#[test]
fn git_commit_runs_alone() {
    let commit = with("c", |t| t.actions = vec!["git_commit".into()]);
    let other = command("o");
    let rows: &[(&Task, &[&Task], bool)] = &[
        (&other, &[], false),
        (&other, &[&other], false),
        (&commit, &[], false),
        (&commit, &[&other], true),
        (&other, &[&commit], true),
    ];
    for (i, (t, running, wait)) in rows.iter().enumerate() {
        assert_eq!(waits_for_commit(t, running), *wait, "row {i}");
    }
}

const LIMIT_8: &str =
    "8 agent tasks in a row (the limit; set wf.max_consecutive_agent_tasks to change it)";

fn check(mode: Mode) -> StopCheck<'static> {
    StopCheck {
        mode,
        ci: false,
        dispatched: 1,
        run_phase: Some("p1"),
        busy: false,
        // As the engine builds it for a workflow with the plugin's default
        // pause_before_commit and nothing asked with --pause-at.
        pause_at: mode.pause_at(PauseAt::default(), true),
        agent_tasks: 0,
        agent_limit: None,
        usage: 0,
        danger_threshold: 80,
        over_budget: None,
    }
}

#[test]
fn stop_before_applies_every_stop_rule() {
    let paused = |s: &str| Some(Stop::Paused(s.into()));
    let gate = with("G", |t| t.quality_gate = true);
    let commit = with("C", |t| t.actions = vec!["git_commit".into()]);
    let next_phase = with("N", |t| {
        t.phase = "p2".into();
        t.verify = vec!["true".into()];
    });
    let simple = agent("A");
    type Row<'a> = (&'a str, &'a Task, StopCheck<'static>, Option<Stop>);
    let rows: Vec<Row> = vec![
        // step: one task per run; the first goes ahead, busy or not
        (
            "step first",
            &simple,
            StopCheck {
                dispatched: 0,
                ..check(Mode::Step)
            },
            None,
        ),
        (
            "step second",
            &simple,
            check(Mode::Step),
            paused("step mode: one task per run"),
        ),
        (
            "step busy",
            &simple,
            StopCheck {
                dispatched: 0,
                busy: true,
                ..check(Mode::Step)
            },
            paused("step mode: one task per run"),
        ),
        // phase: stops where the phase changes, never before the first phase is set
        ("phase same", &simple, check(Mode::Phase), None),
        (
            "phase next",
            &next_phase,
            check(Mode::Phase),
            paused("phase `p1` is done; next is phase `p2`"),
        ),
        (
            "phase unset",
            &next_phase,
            StopCheck {
                run_phase: None,
                ..check(Mode::Phase)
            },
            None,
        ),
        // quality gate (the plugin's --all): pauses before a gate and before
        // git_commit, not on the first task
        (
            "quality gate: gate",
            &gate,
            check(Mode::QualityGate),
            paused("before quality gate G"),
        ),
        (
            "quality gate: gate first",
            &gate,
            StopCheck {
                dispatched: 0,
                ..check(Mode::QualityGate)
            },
            None,
        ),
        (
            "quality gate: commit",
            &commit,
            check(Mode::QualityGate),
            paused("before the commit in C"),
        ),
        (
            "quality gate: commit pause off",
            &commit,
            StopCheck {
                pause_at: Mode::QualityGate.pause_at(PauseAt::default(), false),
                ..check(Mode::QualityGate)
            },
            None,
        ),
        // all: runs to the end, gates and commits included
        ("all gate", &gate, check(Mode::All), None),
        ("all commit", &commit, check(Mode::All), None),
        ("all plain", &next_phase, check(Mode::All), None),
        ("phase gate", &gate, check(Mode::Phase), None),
        ("phase commit", &commit, check(Mode::Phase), None),
        // --pause-at: the same pauses in every mode, never on the first task
        (
            "all --pause-at gate",
            &gate,
            StopCheck {
                pause_at: PauseAt {
                    gate: true,
                    commit: false,
                },
                ..check(Mode::All)
            },
            paused("before quality gate G"),
        ),
        (
            "all --pause-at gate: commit",
            &commit,
            StopCheck {
                pause_at: PauseAt {
                    gate: true,
                    commit: false,
                },
                ..check(Mode::All)
            },
            None,
        ),
        (
            "phase --pause-at commit",
            &commit,
            StopCheck {
                pause_at: PauseAt {
                    gate: false,
                    commit: true,
                },
                ..check(Mode::Phase)
            },
            paused("before the commit in C"),
        ),
        (
            "all --pause-at commit, first task",
            &commit,
            StopCheck {
                dispatched: 0,
                pause_at: PauseAt {
                    gate: false,
                    commit: true,
                },
                ..check(Mode::All)
            },
            None,
        ),
        // context past the danger threshold stops agent tasks, not the first one
        (
            "danger",
            &simple,
            StopCheck {
                usage: 80,
                ..check(Mode::All)
            },
            paused("context usage 80% is past the danger threshold 80%"),
        ),
        (
            "danger first",
            &simple,
            StopCheck {
                usage: 90,
                dispatched: 0,
                ..check(Mode::All)
            },
            None,
        ),
        (
            "danger command task",
            &next_phase,
            StopCheck {
                usage: 99,
                ..check(Mode::All)
            },
            None,
        ),
        (
            "under danger",
            &simple,
            StopCheck {
                usage: 79,
                ..check(Mode::All)
            },
            None,
        ),
        // consecutive agent tasks: 8 simple, one less at 50 %, two less at 70 %
        (
            "7 simple",
            &simple,
            StopCheck {
                agent_tasks: 7,
                ..check(Mode::All)
            },
            None,
        ),
        (
            "8 simple",
            &simple,
            StopCheck {
                agent_tasks: 8,
                ..check(Mode::All)
            },
            paused(LIMIT_8),
        ),
        (
            "7 simple at 50%",
            &simple,
            StopCheck {
                agent_tasks: 7,
                usage: 50,
                ..check(Mode::All)
            },
            paused("7 agent tasks in a row (the limit; set wf.max_consecutive_agent_tasks to change it)"),
        ),
        (
            "6 simple at 70%",
            &simple,
            StopCheck {
                agent_tasks: 6,
                usage: 70,
                ..check(Mode::All)
            },
            paused("6 agent tasks in a row (the limit; set wf.max_consecutive_agent_tasks to change it)"),
        ),
        (
            "limit applies to the first task too",
            &simple,
            StopCheck {
                agent_tasks: 8,
                dispatched: 0,
                ..check(Mode::All)
            },
            paused(LIMIT_8),
        ),
        // wf.max_consecutive_agent_tasks replaces the plugin's limit, usage or not
        (
            "configured limit 2",
            &simple,
            StopCheck {
                agent_tasks: 2,
                usage: 70,
                agent_limit: Some(2),
                ..check(Mode::All)
            },
            paused("2 agent tasks in a row (the limit; set wf.max_consecutive_agent_tasks to change it)"),
        ),
        (
            "configured limit 20",
            &simple,
            StopCheck {
                agent_tasks: 19,
                agent_limit: Some(20),
                ..check(Mode::All)
            },
            None,
        ),
        (
            "limit ignores command tasks",
            &next_phase,
            StopCheck {
                agent_tasks: 99,
                ..check(Mode::All)
            },
            None,
        ),
        // --ci: no rule applies
        (
            "ci",
            &gate,
            StopCheck {
                ci: true,
                agent_tasks: 99,
                usage: 99,
                ..check(Mode::Step)
            },
            None,
        ),
        (
            "ci agent",
            &simple,
            StopCheck {
                ci: true,
                agent_tasks: 99,
                usage: 99,
                ..check(Mode::All)
            },
            None,
        ),
        // a budget reached stops agent work, first task and CI included; a command
        // task costs nothing and goes on
        (
            "budget agent",
            &simple,
            StopCheck {
                dispatched: 0,
                over_budget: Some("budget reached".into()),
                ..check(Mode::All)
            },
            paused("budget reached"),
        ),
        (
            "budget ci agent",
            &simple,
            StopCheck {
                ci: true,
                over_budget: Some("budget reached".into()),
                ..check(Mode::All)
            },
            paused("budget reached"),
        ),
        (
            "budget command",
            &next_phase,
            StopCheck {
                over_budget: Some("budget reached".into()),
                ..check(Mode::All)
            },
            None,
        ),
    ];
    for (name, t, c, want) in rows {
        assert_eq!(stop_before(t, &c), want, "{name}");
    }
}

#[test]
fn a_mode_is_kept_under_its_state_word_and_shown_as_its_flag() {
    for (mode, word, flag) in [
        (Mode::Step, "step", "--step"),
        (Mode::Phase, "phase", "--phase"),
        (Mode::QualityGate, "quality_gate", "--quality-gate"),
        (Mode::All, "all", "--all"),
    ] {
        assert_eq!(mode.state_name(), word);
        assert_eq!(Mode::from_state_name(word), mode);
        assert_eq!(mode.flag(), flag);
    }
    // The plugin's default, and anything it does not know, is phase.
    assert_eq!(Mode::from_state_name("normal"), Mode::Phase);
}

#[test]
fn pause_points_parse_as_the_flag_takes_them() {
    let at = |gate, commit| Ok(PauseAt { gate, commit });
    assert_eq!(PauseAt::parse("gate"), at(true, false));
    assert_eq!(PauseAt::parse("commit"), at(false, true));
    assert_eq!(PauseAt::parse("gate,commit"), at(true, true));
    assert_eq!(PauseAt::parse("commit, gate"), at(true, true));
    assert_eq!(PauseAt::parse("none"), at(false, false));
    assert_eq!(
        PauseAt::parse("gates"),
        Err("`gates` is not a pause point; use gate, commit or none".into())
    );
}

#[test]
fn step_mode_takes_one_task_and_then_pauses() {
    assert!(one_at_a_time(Mode::Step, false));
    assert!(!one_at_a_time(Mode::Step, true));
    assert!(!one_at_a_time(Mode::Phase, false));
    assert!(!one_at_a_time(Mode::All, false));
    let pause = Some(Stop::Paused("step mode: one task per run".into()));
    let rows = [
        (Mode::Step, false, 1, true, pause.clone()),
        (Mode::Step, false, 0, true, None),
        (Mode::Step, false, 1, false, None),
        (Mode::Step, true, 1, true, None),
        (Mode::Phase, false, 1, true, None),
        (Mode::All, false, 3, true, None),
    ];
    for (i, (mode, ci, dispatched, more, want)) in rows.into_iter().enumerate() {
        assert_eq!(step_done(mode, ci, dispatched, more), want, "row {i}");
    }
}

#[test]
fn interruption_wins_and_a_second_one_has_no_grace() {
    assert_eq!(interrupt_grace(1), Duration::from_secs(2));
    assert_eq!(interrupt_grace(2), Duration::ZERO);
    let failed = Stop::Failed {
        task: None,
        reason: "x".into(),
    };
    assert!(replaces(&None, &failed));
    assert!(!replaces(&Some(Stop::Paused("p".into())), &failed));
    assert!(replaces(&Some(failed.clone()), &Stop::Interrupted));
}

#[test]
fn assign_picks_the_executor_role() {
    let offers = |c: &str| c != "design";
    let caps = |v: &[&str]| {
        v.iter()
            .map(std::string::ToString::to_string)
            .collect::<Vec<_>>()
    };
    let rows = [
        (
            "command task",
            command("c"),
            false,
            caps(&["implement"]),
            Assignment::Command,
        ),
        (
            "command task, no pool",
            command("c"),
            true,
            caps(&[]),
            Assignment::Command,
        ),
        (
            "agent, no pool",
            agent("a"),
            true,
            caps(&["implement"]),
            Assignment::HandOff,
        ),
        (
            "agent",
            agent("a"),
            false,
            caps(&["implement", "review"]),
            Assignment::Agent(caps(&["implement", "review"])),
        ),
        (
            "agent, missing capability",
            agent("a"),
            false,
            caps(&["implement", "design"]),
            Assignment::Missing("design".into()),
        ),
    ];
    for (name, t, pool_empty, c, want) in rows {
        assert_eq!(assign(&t, pool_empty, || c, offers), want, "{name}");
    }
    assert_eq!(
        ci_handoff_reason(&agent("T1")),
        "task T1 needs an agent (create_file) and --ci does not hand off; configure an executor in wf.executors"
    );
}

#[test]
fn after_outcome_covers_every_verdict() {
    let passed = |verified| Verdict::Passed { verified };
    let failed = Verdict::Failed { reason: "r".into() };
    let nack = |unrecoverable| Verdict::DispatchFailed {
        reason: "r".into(),
        unrecoverable,
    };
    let facts = OutcomeFacts {
        max_retries: 2,
        ..OutcomeFacts::default()
    };
    let agent_facts = OutcomeFacts {
        needs_agent: true,
        ..facts.clone()
    };
    const NOTHING: &str =
        "accepted unchecked: no command of its own, and nothing its line names could be checked";
    const MOCK: &str = "accepted unchecked: a --mock rehearsal did no work to check";
    let complete = |unchecked, agent_work| Next::Complete {
        unchecked,
        agent_work,
    };
    let rows: Vec<(&str, Verdict, OutcomeFacts, Next)> = vec![
        // dispatch failures: blocked when unrecoverable or out of attempts
        (
            "nack, unrecoverable",
            nack(true),
            facts.clone(),
            Next::Block,
        ),
        ("nack, first", nack(false), facts.clone(), Next::Redispatch),
        (
            "nack, last attempt",
            nack(false),
            OutcomeFacts {
                dispatch_failures: 1,
                ..facts.clone()
            },
            Next::Block,
        ),
        (
            "nack, no retries still tries once",
            nack(false),
            OutcomeFacts {
                max_retries: 0,
                ..facts.clone()
            },
            Next::Block,
        ),
        // failure: an agent task with executors and retries left escalates
        (
            "agent fails",
            failed.clone(),
            agent_facts.clone(),
            Next::Escalate,
        ),
        (
            "agent fails, retries spent",
            failed.clone(),
            OutcomeFacts {
                retries: 2,
                ..agent_facts.clone()
            },
            Next::Fail,
        ),
        (
            "agent fails, no pool",
            failed.clone(),
            OutcomeFacts {
                pool_empty: true,
                ..agent_facts.clone()
            },
            Next::Fail,
        ),
        ("command fails", failed.clone(), facts.clone(), Next::Fail),
        (
            "agent fails, no retries",
            failed.clone(),
            OutcomeFacts {
                max_retries: 0,
                ..agent_facts.clone()
            },
            Next::Fail,
        ),
        // completion: an unchecked agent's work says so
        (
            "command verified",
            passed(true),
            facts.clone(),
            complete(None, false),
        ),
        (
            "command unverified",
            passed(false),
            facts.clone(),
            complete(None, false),
        ),
        (
            "agent verified",
            passed(true),
            agent_facts.clone(),
            complete(None, true),
        ),
        (
            "agent unchecked",
            passed(false),
            agent_facts.clone(),
            complete(Some(NOTHING), true),
        ),
        (
            "handed off, unchecked",
            passed(false),
            OutcomeFacts {
                handed_off: true,
                ..facts.clone()
            },
            complete(Some(NOTHING), true),
        ),
        (
            "dispatched, unchecked",
            passed(false),
            OutcomeFacts {
                dispatched: true,
                ..facts.clone()
            },
            complete(Some(NOTHING), false),
        ),
        (
            "mock rehearsal",
            passed(false),
            OutcomeFacts {
                dispatched: true,
                mock: true,
                ..agent_facts.clone()
            },
            complete(Some(MOCK), true),
        ),
        (
            "mock, not dispatched",
            passed(false),
            OutcomeFacts {
                mock: true,
                ..agent_facts.clone()
            },
            complete(Some(NOTHING), true),
        ),
        (
            "interrupted",
            Verdict::Interrupted,
            agent_facts.clone(),
            Next::Requeue,
        ),
    ];
    for (name, verdict, f, want) in rows {
        assert_eq!(after_outcome(&verdict, &f), want, "{name}");
    }
}

#[test]
fn release_reason_by_verdict() {
    assert_eq!(
        release_reason(&Verdict::Passed { verified: false }),
        "completed"
    );
    assert_eq!(
        release_reason(&Verdict::DispatchFailed {
            reason: String::new(),
            unrecoverable: true
        }),
        "blocked"
    );
    assert_eq!(
        release_reason(&Verdict::Failed {
            reason: String::new()
        }),
        "failed"
    );
    assert_eq!(release_reason(&Verdict::Interrupted), "failed");
}

#[test]
fn nothing_ready_ends_the_run() {
    use TaskStatus::*;
    let rows: Vec<(&str, Vec<Task>, Option<Stop>)> = vec![
        (
            "all done",
            vec![
                with("a", |t| t.status = Completed),
                with("b", |t| t.status = Skipped),
            ],
            None,
        ),
        (
            "a failure first",
            vec![
                with("a", |t| {
                    t.status = Blocked;
                    t.blocked_by = vec!["api_spec".into()];
                }),
                with("b", |t| {
                    t.status = Failed;
                    t.failure_reason = Some("boom".into());
                }),
            ],
            Some(Stop::Failed {
                task: Some("b".into()),
                reason: "task b failed: boom".into(),
            }),
        ),
        (
            "a failure without reason",
            vec![with("a", |t| t.status = Failed)],
            Some(Stop::Failed {
                task: Some("a".into()),
                reason: "task a failed: no reason recorded".into(),
            }),
        ),
        (
            "blocked",
            vec![
                with("a", |t| t.status = Completed),
                with("b", |t| {
                    t.status = Blocked;
                    t.blocked_by = vec!["design_spec".into(), "api_spec".into()];
                }),
                with("c", |t| t.blocked_by = vec!["api_spec".into()]),
            ],
            Some(Stop::Blocked {
                kinds: vec!["api_spec".into(), "design_spec".into()],
                tasks: vec!["b".into(), "c".into()],
            }),
        ),
        (
            "waiting on nothing named",
            vec![with("a", |t| t.deps = vec!["zz".into()])],
            Some(Stop::Blocked {
                kinds: vec![],
                tasks: vec!["a".into()],
            }),
        ),
    ];
    for (name, tasks, want) in rows {
        assert_eq!(nothing_ready(&arcs(&tasks)).unwrap(), want, "{name}");
    }
}

#[test]
fn several_failures_are_named_in_the_stop() {
    use TaskStatus::*;
    let tasks = vec![
        with("a", |t| {
            t.status = Failed;
            t.failure_reason = Some("boom".into());
        }),
        with("b", |t| t.status = Completed),
        with("c", |t| t.status = Failed),
    ];
    assert_eq!(
        failed_stop(&arcs(&tasks)).unwrap(),
        Some(Stop::Failed {
            task: Some("a".into()),
            reason: "2 tasks failed (a, c); task a failed: boom".into(),
        })
    );
    assert_eq!(failed_stop(&arcs(&tasks[1..2])).unwrap(), None);
}

#[test]
fn keep_going_decides_whether_a_failure_stops_the_run() {
    let stop = Stop::Failed {
        task: Some("T2".into()),
        reason: "task T2 failed: exit 1".into(),
    };
    let rows = [
        ("without --keep-going the run stops", false, Some(stop)),
        ("with --keep-going it goes on", true, None),
    ];
    for (name, keep_going, want) in rows {
        assert_eq!(
            stop_after_failure("T2", "exit 1", keep_going),
            want,
            "{name}"
        );
    }
}

#[test]
fn settle_turns_a_pause_after_a_failure_into_failed() {
    use TaskStatus::*;
    let failed = vec![
        with("a", |t| {
            t.status = Failed;
            t.failure_reason = Some("boom".into());
        }),
        task("b"),
    ];
    let clean = vec![with("a", |t| t.status = Completed), task("b")];
    let failed_stop = Stop::Failed {
        task: Some("a".into()),
        reason: "task a failed: boom".into(),
    };
    let paused = Stop::Paused("phase `p1` is done; next is phase `p2`".into());
    let rows: Vec<(&str, Stop, &[Task], Stop)> = vec![
        (
            "a pause after a failure",
            paused.clone(),
            &failed,
            failed_stop.clone(),
        ),
        (
            "a pause with no failure",
            paused.clone(),
            &clean,
            paused.clone(),
        ),
        (
            "an interruption stays",
            Stop::Interrupted,
            &failed,
            Stop::Interrupted,
        ),
        (
            "a hand-off stays",
            Stop::HandedOff("b".into()),
            &failed,
            Stop::HandedOff("b".into()),
        ),
        ("a failure stays", failed_stop.clone(), &failed, failed_stop),
    ];
    for (name, stop, tasks, want) in rows {
        assert_eq!(settle(stop, &arcs(tasks)).unwrap(), want, "{name}");
    }
}

#[test]
fn fallout_follows_dependencies_transitively() {
    use TaskStatus::*;
    let failed = |id: &str, deps: &[&str]| {
        with(id, |t| {
            t.status = Failed;
            t.deps = deps.iter().map(|d| (*d).to_string()).collect();
        })
    };
    let open = |id: &str, deps: &[&str]| {
        with(id, |t| {
            t.deps = deps.iter().map(|d| (*d).to_string()).collect();
        })
    };
    let ids = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
    // (name, tasks, failed, not run)
    type Row<'a> = (&'a str, Vec<Task>, &'a [&'a str], &'a [&'a str]);
    let rows: Vec<Row> = vec![
        (
            "nothing failed",
            vec![open("a", &[]), open("b", &["a"])],
            &[],
            &[],
        ),
        (
            "a chain behind a failure, an independent task runs",
            vec![
                failed("a", &[]),
                open("b", &["a"]),
                open("c", &["b"]),
                open("d", &[]),
            ],
            &["a"],
            &["b", "c"],
        ),
        (
            "a dependency written later in the plan",
            vec![open("b", &["a"]), failed("a", &[])],
            &["a"],
            &["b"],
        ),
        (
            "a gate on two branches waits on the failed one",
            vec![
                failed("a", &[]),
                with("ok", |t| t.status = Completed),
                with("gate", |t| {
                    t.quality_gate = true;
                    t.deps = vec!["a".into(), "ok".into()];
                }),
            ],
            &["a"],
            &["gate"],
        ),
        (
            "a done task ends the walk",
            vec![
                failed("a", &[]),
                with("b", |t| {
                    t.status = Skipped;
                    t.deps = vec!["a".into()];
                }),
                open("c", &["b"]),
            ],
            &["a"],
            &[],
        ),
        (
            "a blocked task behind a failure counts, and so do its dependants",
            vec![
                failed("a", &[]),
                with("b", |t| {
                    t.status = Blocked;
                    t.blocked_by = vec!["api_spec".into()];
                    t.deps = vec!["a".into()];
                }),
                open("c", &["b"]),
            ],
            &["a"],
            &["b", "c"],
        ),
        (
            "two failures, one dependant of both, listed once",
            vec![failed("a", &[]), failed("b", &[]), open("c", &["a", "b"])],
            &["a", "b"],
            &["c"],
        ),
        (
            "a failed task depending on a failed task is failed, not not-run",
            vec![failed("a", &[]), failed("b", &["a"])],
            &["a", "b"],
            &[],
        ),
    ];
    for (name, tasks, want_failed, want_not_run) in rows {
        assert_eq!(
            fallout(&arcs(&tasks)),
            Fallout {
                failed: ids(want_failed),
                not_run: ids(want_not_run),
            },
            "{name}"
        );
    }
}

#[test]
fn fallout_of_a_long_chain_needs_no_recursion() {
    let mut tasks = vec![with("t0", |t| t.status = TaskStatus::Failed)];
    for i in 1..20_000 {
        tasks.push(with(&format!("t{i}"), |t| {
            t.deps = vec![format!("t{}", i - 1)];
        }));
    }
    assert_eq!(fallout(&arcs(&tasks)).not_run.len(), 19_999);
}

#[test]
fn missing_deliverables_of_completed_tasks_only() {
    let tasks = vec![
        with("a", |t| {
            t.status = TaskStatus::Completed;
            t.creates = vec!["here".into(), "gone".into()];
        }),
        with("b", |t| t.creates = vec!["not yet".into()]),
    ];
    assert_eq!(
        missing_deliverables(&arcs(&tasks), |f| f == "here").unwrap(),
        vec!["gone".to_string()]
    );
    assert!(missing_deliverables(&arcs(&tasks), |_| true)
        .unwrap()
        .is_empty());
}

#[test]
fn stop_status_and_final_stop() {
    use WorkflowStatus as W;
    let rows = [
        (Stop::Completed, Some(W::Completed), None),
        (Stop::Paused("why".into()), Some(W::Paused), Some("why")),
        (Stop::Interrupted, Some(W::Paused), Some("interrupted")),
        (
            Stop::HandedOff("T1".into()),
            None,
            Some("task T1 is handed off to an agent"),
        ),
        (
            Stop::Blocked {
                kinds: vec!["a".into(), "b".into()],
                tasks: vec![],
            },
            Some(W::Blocked),
            Some("waiting on a, b"),
        ),
        (
            Stop::Failed {
                task: None,
                reason: "r".into(),
            },
            Some(W::Failed),
            Some("r"),
        ),
    ];
    for (stop, status, reason) in rows {
        let (s, r) = stop_status(&stop);
        assert_eq!((s, r.as_deref()), (status, reason), "{stop:?}");
    }
    assert_eq!(final_stop(Stop::Completed, false), Stop::Completed);
    assert!(matches!(
        final_stop(Stop::Completed, true),
        Stop::Failed { task: None, .. }
    ));
    assert_eq!(final_stop(Stop::Interrupted, true), Stop::Interrupted);
}
