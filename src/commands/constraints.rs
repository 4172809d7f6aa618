//! `wf constraints add|list|remove|promote|merge|verify`: the workflow's constraints
//! (docs/constraints.md) from the shell.
//!
//! `list` reads without a lock. Every other subcommand is one locked
//! read-modify-write: change `state.constraints` through `crate::constraints`, emit
//! one event per change, save the snapshot. Input files are read and checked before
//! the lock is taken, so a bad file leaves the workflow directory untouched.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::cli::{ConstraintAddArgs, ConstraintsArgs, ConstraintsCommand, GlobalArgs};
use crate::constraints::{self, merge, set, vocabulary, ConstraintSet, NewConstraint};
use crate::error::{ErrorKind, Result, WfError};
use crate::exec::process::Children;
use crate::output::Output;
use crate::project::Project;
use crate::state::event::{
    ConstraintChange, ConstraintChecked, ConstraintCounts, Dropped, EventData, MergeReport, Renamed,
};
use crate::state::event_log::NewEvent;
use crate::state::model::{Constraint, Constraints};
use crate::state::Session;

pub fn run(
    project: &Project,
    global: &GlobalArgs,
    args: &ConstraintsArgs,
    out: &Output,
) -> Result<i32> {
    match &args.command {
        ConstraintsCommand::List => list(project, out),
        ConstraintsCommand::Add(add) => add_one(project, global, add, out),
        ConstraintsCommand::Remove { id } => remove(project, global, id, out),
        ConstraintsCommand::Promote { id } => promote(project, global, id, out),
        ConstraintsCommand::Merge { files } => merge_files(project, global, files, out),
        ConstraintsCommand::Verify { ids } => verify(project, global, ids, out),
    }
}

fn lock(project: &Project, global: &GlobalArgs, what: &str) -> Result<Session> {
    let mut session = project.store().lock(
        global.wait.map(Duration::from_secs),
        &format!("constraints {what}"),
    )?;
    session.state()?;
    // Constraint events are not folded: the change lives in the snapshot only, so
    // they are a transaction the save commits (no event for a change not made).
    session.begin_txn();
    Ok(session)
}

fn add_one(
    project: &Project,
    global: &GlobalArgs,
    args: &ConstraintAddArgs,
    out: &Output,
) -> Result<i32> {
    constraints::check_verify_cmd(args.verify_cmd.as_deref(), &project.config)?;
    if args.project_config && project.store().load()?.is_none() {
        commit_to_config(project, args)?;
        out.json_value(&json!({"id": null, "project_config": true}));
        out.say(format!(
            "Added to {}: every workflow started here from now on has it.",
            project.config.display_path()
        ));
        return Ok(0);
    }
    let mut session = lock(project, global, "add")?;
    let new = NewConstraint {
        description: args.description.clone(),
        hard: !args.soft,
        category: args.category.as_ref().map(vocabulary::name),
        source: vocabulary::name(&args.source),
        phase: vocabulary::name(&args.phase),
        verify_cmd: args.verify_cmd.clone(),
    };
    let added = constraints::add(&mut session.state_mut()?.constraints, new)?;
    session.emit(NewEvent::new(EventData::ConstraintAdded(
        ConstraintChange {
            constraint: added.clone(),
        },
    )))?;
    // Written before the workflow's save: a config that cannot be written leaves the
    // workflow as it was.
    if args.project_config {
        commit_to_config(project, args)?;
    }
    session.save()?;
    out.json_value(
        &json!({"id": added.id, "constraint": added, "project_config": args.project_config}),
    );
    // Only the id, so a script can take it: `id=$(wf constraints add …)`.
    out.say(&added.id);
    Ok(0)
}

/// `--project-config`: the constraint joins `wf.constraints` in the project config, which
/// seeds every workflow started here, a CI job's included (docs/constraints.md
/// "Committed constraints"). The rest of the file is kept as it was read, key order
/// included; only its layout becomes serde_json's.
fn commit_to_config(project: &Project, args: &ConstraintAddArgs) -> Result<()> {
    let path = project
        .config
        .path
        .clone()
        .unwrap_or_else(|| project.dir.join(crate::config::CONFIG_PATH));
    let shown = path.display().to_string();
    crate::fs::refuse_symlink(&path)?;
    let mut doc: serde_json::Value = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| WfError::usage(format!("{shown}: {e}; fix the file first")))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(WfError::io(&e, format!("cannot read {shown}: {e}"))),
    };
    let list = doc
        .as_object_mut()
        .map(|top| top.entry("wf").or_insert_with(|| json!({})))
        .and_then(serde_json::Value::as_object_mut)
        .map(|wf| wf.entry("constraints").or_insert_with(|| json!([])))
        .and_then(serde_json::Value::as_array_mut)
        .ok_or_else(|| {
            WfError::usage(format!(
                "{shown}: `wf.constraints` is not a list (or `wf` not an object); fix the file first"
            ))
        })?;
    let description = args.description.trim();
    if list
        .iter()
        .any(|c| c["description"].as_str().map(str::trim) == Some(description))
    {
        return Err(WfError::usage(format!(
            "{shown}: wf.constraints already says that: {description}"
        )));
    }
    let mut entry = serde_json::Map::new();
    entry.insert("description".into(), json!(description));
    if let Some(cmd) = args.verify_cmd.as_deref().filter(|c| !c.trim().is_empty()) {
        entry.insert("verify_cmd".into(), json!(cmd));
    }
    if args.soft {
        entry.insert("hard".into(), json!(false));
    }
    if let Some(category) = &args.category {
        entry.insert("category".into(), json!(vocabulary::name(category)));
    }
    list.push(serde_json::Value::Object(entry));
    let mut text = serde_json::to_string_pretty(&doc).map_err(|e| WfError::usage(e.to_string()))?;
    text.push('\n');
    if let Some(dir) = path.parent() {
        crate::fs::ensure_dir(dir)?;
    }
    crate::fs::durable::write_atomic(&path, text.as_bytes())
}

fn remove(project: &Project, global: &GlobalArgs, id: &str, out: &Output) -> Result<i32> {
    let mut session = lock(project, global, "remove")?;
    let c = constraints::remove(&mut session.state_mut()?.constraints, id)?;
    let c = commit(session, c, EventData::ConstraintRemoved)?;
    out.json_value(&json!({"removed": c}));
    out.say(format!("Removed {} ({}): {}", c.id, c.kind, c.description));
    Ok(0)
}

fn promote(project: &Project, global: &GlobalArgs, id: &str, out: &Output) -> Result<i32> {
    let mut session = lock(project, global, "promote")?;
    let c = constraints::promote(&mut session.state_mut()?.constraints, id)?;
    let c = commit(session, c, EventData::ConstraintPromoted)?;
    out.json_value(&json!({"promoted": c}));
    out.say(format!(
        "{} is now a hard constraint: {}",
        c.id, c.description
    ));
    Ok(0)
}

/// A constraint `remove` or `promote` changed: its event recorded, the state saved.
fn commit(
    mut session: Session,
    c: Constraint,
    event: fn(ConstraintChange) -> EventData,
) -> Result<Constraint> {
    let constraint = c.clone();
    session.emit(NewEvent::new(event(ConstraintChange { constraint })))?;
    session.save()?;
    Ok(c)
}

fn list(project: &Project, out: &Output) -> Result<i32> {
    let state = project.store().load()?.ok_or_else(|| {
        WfError::usage("no workflow here yet; start one with `wf workflow-start PLAN.md`")
    })?;
    let c = &state.constraints;
    out.json_value(&json!({"constraints": c}));
    if !out.says() {
        return Ok(0);
    }
    if c.hard.is_empty() && c.soft.is_empty() {
        out.say("No constraints yet; add one with `wf constraints add DESCRIPTION`.");
    } else {
        out.say(crate::report::constraints::list_table(c, out.look()));
    }
    let section = |title: &str, items: &[String]| {
        if !items.is_empty() {
            out.say(format!("\n{title}:"));
            for item in items {
                out.say(format!("  - {item}"));
            }
        }
    };
    section("Open questions", &c.open_questions);
    section("Success criteria", &c.success_criteria);
    Ok(0)
}

fn merge_files(
    project: &Project,
    global: &GlobalArgs,
    files: &[std::path::PathBuf],
    out: &Output,
) -> Result<i32> {
    // Every file is read and checked before the lock: a bad one changes nothing.
    let mut sets = Vec::with_capacity(files.len() + 1);
    for file in files {
        sets.push(read_set(file)?);
    }
    let mut session = lock(project, global, "merge")?;
    let state = session.state_mut()?;
    // The current constraints go first: their hard ids win and their order leads.
    sets.insert(0, ConstraintSet::from_state(&state.constraints));
    let result = merge::merge(&sets);
    let renamed = constraints::apply_merge(&mut state.constraints, result.merged.clone());
    let report = MergeReport {
        files: files.iter().map(|f| f.display().to_string()).collect(),
        counts: counts(&state.constraints),
        dropped: Dropped {
            hard: result.dropped_hard.clone(),
            soft: result.dropped_soft.clone(),
            open_questions: result.dropped_questions.clone(),
            success_criteria: result.dropped_criteria.clone(),
        },
        unshared_criteria: result.unshared_criteria.clone(),
        id_conflicts: result.id_conflicts.clone(),
        renamed: renamed
            .iter()
            .map(|(from, to)| Renamed {
                from: from.clone(),
                to: to.clone(),
            })
            .collect(),
    };
    session.emit(NewEvent::new(EventData::ConstraintsMerged(report.clone())))?;
    session.save()?;
    out.json_value(&report);

    let c = &session.state()?.constraints;
    out.say(format!(
        "Merged {} {}: {} hard, {} soft, {} open {}, {} success criteria.",
        files.len(),
        crate::report::plural(files.len(), "file", "files"),
        c.hard.len(),
        c.soft.len(),
        c.open_questions.len(),
        crate::report::plural(c.open_questions.len(), "question", "questions"),
        c.success_criteria.len()
    ));
    let say_dropped = |what: &str, cap: usize, items: Vec<String>| {
        if !items.is_empty() {
            out.say(format!(
                "Dropped by the cap of {cap} {what}: {}",
                items.join("; ")
            ));
        }
    };
    let describe = |cs: &[Constraint]| -> Vec<String> {
        cs.iter()
            .map(|c| format!("{} {}", c.id, c.description))
            .collect()
    };
    say_dropped(
        "hard constraints",
        merge::MAX_HARD,
        describe(&result.dropped_hard),
    );
    say_dropped(
        "soft constraints",
        merge::MAX_SOFT,
        describe(&result.dropped_soft),
    );
    say_dropped(
        "open questions",
        merge::MAX_QUESTIONS,
        result.dropped_questions.clone(),
    );
    say_dropped(
        "success criteria",
        merge::MAX_CRITERIA,
        result.dropped_criteria.clone(),
    );
    if !result.unshared_criteria.is_empty() {
        out.say(format!(
            "Not shared by every set, so not success criteria: {}",
            result.unshared_criteria.join("; ")
        ));
    }
    for c in &result.id_conflicts {
        out.warn(format!(
            "{} from another set means something else (\"{}\"); the first {} was kept",
            c.id, c.description, c.id
        ));
    }
    for (from, to) in &renamed {
        out.say(format!("Renumbered {from} to {to} (the id was taken)."));
    }
    Ok(0)
}

fn read_set(file: &Path) -> Result<ConstraintSet> {
    let name = file.display().to_string();
    let bytes = crate::fs::read_named(file)
        .map_err(|e| WfError::new(e.kind, format!("{name}: {}", e.message)))?;
    set::parse(&name, &bytes).map_err(WfError::usage)
}

fn counts(c: &Constraints) -> ConstraintCounts {
    ConstraintCounts {
        hard: c.hard.len(),
        soft: c.soft.len(),
        open_questions: c.open_questions.len(),
        success_criteria: c.success_criteria.len(),
    }
}

fn verify(project: &Project, global: &GlobalArgs, ids: &[String], out: &Output) -> Result<i32> {
    let mut session = lock(project, global, "verify")?;
    let children = Children::default();
    crate::run::signals::install();
    let watcher = crate::run::signals::InterruptWatch::start(children.clone());
    let logs = session.store().logs_dir();
    let state = session.state_mut()?;
    let results = constraints::verify_hard(
        &mut state.constraints,
        (!ids.is_empty()).then_some(ids),
        &project.dir,
        &project.config,
        &children,
        &logs,
    );
    drop(watcher);
    let results = results?;
    let hard: Vec<Constraint> = state
        .constraints
        .hard
        .iter()
        .filter(|c| ids.is_empty() || ids.contains(&c.id))
        .cloned()
        .collect();
    for r in &results {
        session.emit(NewEvent::new(EventData::ConstraintVerified(
            ConstraintChecked {
                verification: r.clone(),
            },
        )))?;
    }
    session.save()?;
    if children.is_interrupted() {
        return Err(WfError::new(
            ErrorKind::Interrupted,
            "interrupted; the results so far were saved",
        ));
    }

    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.passed)
        .map(|r| r.constraint_id.as_str())
        .collect();
    let unchecked: Vec<&str> = hard
        .iter()
        .filter(|c| !constraints::has_verify_cmd(c))
        .map(|c| c.id.as_str())
        .collect();
    out.json_value(&json!({
        "passed": failed.is_empty(),
        "results": results,
        "failed": failed,
        "no_verify_command": unchecked,
    }));
    if out.says() && !hard.is_empty() {
        out.say(crate::report::constraints::verify_table(
            &hard,
            &results,
            out.look(),
        ));
    }
    if hard.is_empty() {
        out.say("No hard constraints to verify.");
    }
    if failed.is_empty() {
        out.say(format!(
            "{} hard constraint(s) passed{}.",
            results.len(),
            if unchecked.is_empty() {
                String::new()
            } else {
                format!("; {} have no verify command", unchecked.len())
            }
        ));
        Ok(0)
    } else {
        if !out.json {
            crate::output::stderr_line(format_args!(
                "wf: {} hard constraint(s) failed: {}",
                failed.len(),
                failed.join(", ")
            ));
        }
        Ok(ErrorKind::Failed.exit_code())
    }
}
