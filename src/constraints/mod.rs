//! The workflow's constraints (docs/constraints.md): adding, removing, promoting,
//! merging model outputs and verifying hard constraints, as edits of
//! `state.constraints`.
//!
//! Pure logic over the state: no printing, no clap, no locking — `commands/
//! constraints.rs` holds the lock and reports. Running a `verifyCmd` is the one
//! side effect, and it lives in [`verify`].

pub mod category;
pub mod merge;
pub mod project;
pub mod set;
pub mod verify;
pub mod vocabulary;

use std::collections::HashSet;
use std::path::Path;

use serde_json::Map;

use crate::config::Config;
use crate::error::{Result, WfError};
use crate::exec::process::Children;
use crate::state::model::{Constraint, ConstraintVerification, Constraints};

pub use merge::{merge, ConstraintSet, MergeResult};

/// A constraint as the user describes it; the id and defaults come from [`add`].
#[derive(Debug, Clone)]
pub struct NewConstraint {
    pub description: String,
    pub hard: bool,
    /// Detected from the description when `None`.
    pub category: Option<String>,
    pub source: String,
    pub phase: String,
    pub verify_cmd: Option<String>,
}

/// The id after the highest `C<n>` ever handed out. Ids are never reused, so a
/// verification record or a log line naming a removed constraint cannot be mistaken
/// for a new one: the state keeps the highest number given (`lastId`), and an id in
/// use above it (a state from before the counter, or edited by hand) counts too.
pub fn next_id(constraints: &Constraints) -> String {
    format!("C{:03}", highest(constraints).saturating_add(1))
}

/// The highest number handed out: the counter, or a higher `C<n>` in use.
fn highest(constraints: &Constraints) -> u32 {
    constraints
        .hard
        .iter()
        .chain(&constraints.soft)
        .filter_map(|c| number(&c.id))
        .fold(constraints.last_id, u32::max)
}

/// The number of a `C<n>` id (`C007` → 7); `None` for any other id.
fn number(id: &str) -> Option<u32> {
    let digits = id.strip_prefix('C')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

pub fn add(constraints: &mut Constraints, new: NewConstraint) -> Result<Constraint> {
    let description = new.description.trim();
    if description.is_empty() {
        return Err(WfError::usage("a constraint needs a description"));
    }
    let (list, cap, kind) = if new.hard {
        (&constraints.hard, merge::MAX_HARD, "hard")
    } else {
        (&constraints.soft, merge::MAX_SOFT, "soft")
    };
    // Each list is capped (docs/constraints.md "The record"); refusing here keeps a later merge from dropping what
    // the user added by hand.
    if list.len() >= cap {
        return Err(WfError::usage(format!(
            "there are already {cap} {kind} constraints, the most a workflow keeps; remove one first (`wf constraints remove ID`)"
        )));
    }
    if let Some(dup) = list.iter().find(|c| c.description == description) {
        return Err(WfError::usage(format!(
            "{} already says that: {description}",
            dup.id
        )));
    }
    let n = highest(constraints).checked_add(1).ok_or_else(|| {
        WfError::usage(format!(
            "constraint ids are used up (the last was C{}); start a new workflow",
            u32::MAX
        ))
    })?;
    let constraint = Constraint {
        id: format!("C{n:03}"),
        description: description.to_string(),
        kind: kind.into(),
        category: new
            .category
            .unwrap_or_else(|| category::detect(description).to_string()),
        source_model: new.source,
        phase: new.phase,
        verified: None,
        verify_cmd: new.verify_cmd.filter(|c| !c.trim().is_empty()),
        extra: Map::new(),
    };
    if new.hard {
        constraints.hard.push(constraint.clone());
    } else {
        constraints.soft.push(constraint.clone());
    }
    constraints.last_id = n;
    Ok(constraint)
}

/// Refuses a `verifyCmd` that `verify` would refuse unrun (see
/// [`verify::refusal`]), with the message `verify` gives: accepted here, it would
/// fail only later, at a quality gate. Checked before the lock is taken, so a refused
/// add leaves the workflow untouched.
pub fn check_verify_cmd(cmd: Option<&str>, config: &Config) -> Result<()> {
    match cmd.map(str::trim).filter(|c| !c.is_empty()) {
        Some(cmd) => match verify::refusal(cmd, config, "so the constraint was not added") {
            Some(why) => Err(WfError::usage(why)),
            None => Ok(()),
        },
        None => Ok(()),
    }
}

pub fn remove(constraints: &mut Constraints, id: &str) -> Result<Constraint> {
    let removed = take(&mut constraints.hard, id)
        .or_else(|| take(&mut constraints.soft, id))
        .ok_or_else(|| unknown(constraints, id))?;
    constraints.verifications.retain(|v| v.constraint_id != id);
    Ok(removed)
}

/// Soft → hard: the constraint moves to the end of the hard list and must now hold.
pub fn promote(constraints: &mut Constraints, id: &str) -> Result<Constraint> {
    if constraints.hard.iter().any(|c| c.id == id) {
        return Err(WfError::usage(format!("{id} is already a hard constraint")));
    }
    if !constraints.soft.iter().any(|c| c.id == id) {
        return Err(unknown(constraints, id));
    }
    if constraints.hard.len() >= merge::MAX_HARD {
        return Err(WfError::usage(format!(
            "cannot promote {id}: there are already {} hard constraints, the most a workflow keeps; remove one first",
            merge::MAX_HARD
        )));
    }
    let mut c = take(&mut constraints.soft, id).ok_or_else(|| unknown(constraints, id))?;
    c.kind = "hard".into();
    constraints.hard.push(c.clone());
    Ok(c)
}

fn take(list: &mut Vec<Constraint>, id: &str) -> Option<Constraint> {
    let at = list.iter().position(|c| c.id == id)?;
    Some(list.remove(at))
}

fn unknown(constraints: &Constraints, id: &str) -> WfError {
    let known: Vec<&str> = constraints
        .hard
        .iter()
        .chain(&constraints.soft)
        .map(|c| c.id.as_str())
        .collect();
    WfError::usage(format!(
        "there is no constraint {id}; known: {}",
        if known.is_empty() {
            "none yet".to_string()
        } else {
            known.join(", ")
        }
    ))
}

/// Replaces the four lists with a merge result, keeping the state consistent:
/// `type` matches the list, an id used twice (a model's C001 beside the state's
/// C001) or once used by another constraint (a model's C002 after the state's C002
/// was removed) is renumbered past every id handed out, a constraint new to the state
/// starts unverified (a model's `verified: true` is a claim, not evidence), and
/// verification records of constraints that left are dropped. The id counter only
/// moves up. Returns the renumbered ids (old, new).
pub fn apply_merge(constraints: &mut Constraints, merged: ConstraintSet) -> Vec<(String, String)> {
    let before: Vec<(String, String)> = constraints
        .hard
        .iter()
        .chain(&constraints.soft)
        .map(|c| (c.id.clone(), c.description.clone()))
        .collect();
    let handed_out = highest(constraints);
    let mut last = merged
        .hard
        .iter()
        .chain(&merged.soft)
        .filter_map(|c| number(&c.id))
        .fold(handed_out, u32::max);
    let mut seen = HashSet::new();
    let mut renamed = Vec::new();
    let mut fix = |c: &mut Constraint, kind: &str| {
        c.kind = kind.into();
        let reused = number(&c.id).is_some_and(|n| n <= handed_out)
            && !before.contains(&(c.id.clone(), c.description.clone()));
        if !seen.insert(c.id.clone()) || reused {
            last = last.saturating_add(1);
            let id = format!("C{last:03}");
            renamed.push((c.id.clone(), id.clone()));
            c.id.clone_from(&id);
            seen.insert(id);
        }
        if !before.contains(&(c.id.clone(), c.description.clone())) {
            c.verified = None;
        }
    };
    let mut hard = merged.hard;
    let mut soft = merged.soft;
    for c in &mut hard {
        fix(c, "hard");
    }
    for c in &mut soft {
        fix(c, "soft");
    }
    constraints.hard = hard;
    constraints.soft = soft;
    constraints.open_questions = merged.open_questions;
    constraints.success_criteria = merged.success_criteria;
    constraints.last_id = last;
    constraints
        .verifications
        .retain(|v| seen.contains(&v.constraint_id));
    renamed
}

/// Runs the `verifyCmd` of the hard constraints named by `ids` (all of them when
/// `None`) and records each result: `verified` on the constraint, and the latest
/// record per constraint in `verifications`. Constraints without a `verifyCmd` are
/// not run and not in the result. Naming an unknown or soft constraint is an error.
pub fn verify_hard(
    constraints: &mut Constraints,
    ids: Option<&[String]>,
    project_dir: &Path,
    config: &Config,
    children: &Children,
    log_dir: &Path,
) -> Result<Vec<ConstraintVerification>> {
    if let Some(ids) = ids {
        for id in ids {
            if constraints.soft.iter().any(|c| &c.id == id) {
                return Err(WfError::usage(format!(
                    "{id} is a soft constraint; only hard constraints are verified (`wf constraints promote {id}` first)"
                )));
            }
            if !constraints.hard.iter().any(|c| &c.id == id) {
                return Err(unknown(constraints, id));
            }
        }
    }
    let mut results = Vec::new();
    for c in &mut constraints.hard {
        if ids.is_some_and(|ids| !ids.contains(&c.id)) || !has_verify_cmd(c) {
            continue;
        }
        let result = crate::exec::reactor::block_on(verify::verify(
            c,
            project_dir,
            config,
            children,
            log_dir,
        ));
        if children.is_interrupted() {
            // A run cut short proves nothing either way; leave the old record.
            break;
        }
        results.push(result);
    }
    for r in &results {
        constraints.record(r);
    }
    Ok(results)
}

pub fn has_verify_cmd(c: &Constraint) -> bool {
    c.verify_cmd
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(desc: &str, hard: bool) -> NewConstraint {
        NewConstraint {
            description: desc.into(),
            hard,
            category: None,
            source: "user".into(),
            phase: "analysis".into(),
            verify_cmd: None,
        }
    }

    #[test]
    fn ids_count_up_and_are_not_reused() {
        let mut c = Constraints::default();
        assert_eq!(next_id(&c), "C001");
        add(&mut c, new("a", true)).unwrap();
        add(&mut c, new("b", false)).unwrap();
        assert_eq!(next_id(&c), "C003");
        remove(&mut c, "C001").unwrap();
        assert_eq!(next_id(&c), "C003");
    }

    #[test]
    fn constraint_ids_are_not_reused_after_removing_the_newest() {
        let mut c = Constraints::default();
        add(&mut c, new("a", true)).unwrap();
        add(&mut c, new("b", true)).unwrap();
        remove(&mut c, "C002").unwrap();
        assert_eq!(add(&mut c, new("c", true)).unwrap().id, "C003");
        remove(&mut c, "C003").unwrap();
        remove(&mut c, "C001").unwrap();
        // The counter survives a save and a load, and only counts up.
        let text = serde_json::to_string(&c).unwrap();
        assert!(text.contains("\"lastId\":3"), "{text}");
        let mut c: Constraints = serde_json::from_str(&text).unwrap();
        assert_eq!(add(&mut c, new("d", false)).unwrap().id, "C004");
    }

    #[test]
    fn a_state_without_the_counter_counts_from_its_highest_id() {
        let mut c: Constraints = serde_json::from_str(
            r#"{"hard": [{"id": "C007", "description": "x", "type": "hard", "category": "other", "sourceModel": "user", "phase": "analysis"}]}"#,
        )
        .unwrap();
        assert_eq!(c.last_id, 0);
        assert_eq!(add(&mut c, new("y", true)).unwrap().id, "C008");
        assert_eq!(number("C+5"), None);
        assert_eq!(number("C"), None);
        assert_eq!(number("C010"), Some(10));
    }

    #[test]
    fn merge_never_reuses_a_removed_id_nor_moves_the_counter_back() {
        let mut state = Constraints::default();
        add(&mut state, new("kept", true)).unwrap();
        add(&mut state, new("gone", false)).unwrap();
        remove(&mut state, "C002").unwrap();
        let mut theirs = state.hard[0].clone();
        theirs.id = "C002".into();
        theirs.description = "a model's own C002".into();
        theirs.kind = "soft".into();
        let merged = ConstraintSet {
            hard: state.hard.clone(),
            soft: vec![theirs],
            ..ConstraintSet::default()
        };
        let renamed = apply_merge(&mut state, merged);
        assert_eq!(renamed, [("C002".to_string(), "C003".to_string())]);
        assert_eq!(state.last_id, 3);
        // A merge that keeps only low ids leaves the counter where it was.
        let only_first = ConstraintSet {
            hard: state.hard.clone(),
            ..ConstraintSet::default()
        };
        apply_merge(&mut state, only_first);
        assert_eq!(state.last_id, 3);
        assert_eq!(next_id(&state), "C004");
    }

    #[test]
    fn add_detects_the_category_and_refuses_past_the_cap() {
        let mut c = Constraints::default();
        let added = add(&mut c, new("API 响应必须包含 requestId", true)).unwrap();
        assert_eq!(
            (added.category.as_str(), added.kind.as_str()),
            ("interface", "hard")
        );
        for i in 1..merge::MAX_HARD {
            add(&mut c, new(&format!("rule {i}"), true)).unwrap();
        }
        let err = add(&mut c, new("one more", true)).unwrap_err();
        assert!(err.message.contains("already 7 hard"), "{}", err.message);
        assert!(add(&mut c, new("rule 1", false)).is_ok());
        assert!(add(&mut c, new("  ", false)).is_err());
    }

    #[test]
    fn promote_moves_soft_to_hard() {
        let mut c = Constraints::default();
        add(&mut c, new("a", true)).unwrap();
        add(&mut c, new("b", false)).unwrap();
        let p = promote(&mut c, "C002").unwrap();
        assert_eq!(p.kind, "hard");
        assert!(c.soft.is_empty());
        assert_eq!(c.hard.len(), 2);
        let err = promote(&mut c, "C002").unwrap_err();
        assert!(
            err.message.contains("C002 is already a hard"),
            "{}",
            err.message
        );
        let err = promote(&mut c, "C009").unwrap_err();
        assert!(
            err.message.contains("no constraint C009"),
            "{}",
            err.message
        );
        assert!(remove(&mut c, "C009").is_err());
    }

    #[test]
    fn apply_merge_renumbers_collisions_and_resets_claims() {
        let mut state = Constraints::default();
        add(&mut state, new("ours", true)).unwrap();
        let mut theirs = state.hard[0].clone();
        theirs.description = "theirs".into();
        theirs.verified = Some(true);
        let mut soft = theirs.clone();
        soft.description = "soft theirs".into();
        let merged = ConstraintSet {
            hard: vec![state.hard[0].clone(), theirs],
            soft: vec![soft],
            ..ConstraintSet::default()
        };
        let renamed = apply_merge(&mut state, merged);
        assert_eq!(
            renamed,
            [
                ("C001".to_string(), "C002".to_string()),
                ("C001".to_string(), "C003".to_string())
            ]
        );
        assert_eq!(state.hard[1].verified, None);
        assert_eq!(state.soft[0].kind, "soft");
        assert_eq!(state.soft[0].id, "C003");
    }

    #[test]
    fn verify_records_the_latest_result_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Constraints::default();
        let mut n = new("dir exists", true);
        n.verify_cmd = Some("test -d .".into());
        add(&mut c, n).unwrap();
        add(&mut c, new("no command", true)).unwrap();
        add(&mut c, new("soft", false)).unwrap();
        let logs = dir.path().join("logs");
        let run = |c: &mut Constraints, ids: Option<&[String]>| {
            verify_hard(
                c,
                ids,
                dir.path(),
                &Config::default(),
                &Children::default(),
                &logs,
            )
        };
        for _ in 0..2 {
            let r = run(&mut c, None).unwrap();
            assert_eq!(r.len(), 1);
            assert!(r[0].passed);
        }
        assert_eq!(c.verifications.len(), 1);
        assert_eq!(c.hard[0].verified, Some(true));
        assert_eq!(c.hard[1].verified, None);
        assert!(run(&mut c, Some(&["C003".into()]))
            .unwrap_err()
            .message
            .contains("soft"));
        assert!(run(&mut c, Some(&["C404".into()])).is_err());
        assert!(run(&mut c, Some(&["C002".into()])).unwrap().is_empty());
    }
}
