//! Constraints committed with the project (`wf.constraints` in the project config,
//! docs/constraints.md "Committed constraints"): every workflow of the project starts
//! with them, a CI job's fresh import included, so a quality gate checks the same
//! hard constraints on every machine.
//!
//! A workflow's own constraints (`wf constraints add`) live in its state file and
//! stay on the machine that added them; these are the ones a team shares.

use clap::ValueEnum;

use super::vocabulary::{self, Category};
use super::NewConstraint;
use crate::config::constraints::ProjectConstraint;
use crate::config::Config;
use crate::error::{Result, WfError};
use crate::state::model::{Constraint, Constraints};

/// Whether `c`, a constraint of a workflow, is the committed `p` (seeded from it,
/// or added by hand with the same words and command).
pub fn is(p: &ProjectConstraint, c: &Constraint) -> bool {
    c.description == p.description.trim()
        && c.verify_cmd.as_deref().map(str::trim) == p.verify_cmd.as_deref().map(str::trim)
}

/// Refuses, before anything is written, a committed constraint `seed` would refuse
/// later or a quality gate would refuse unrun: an empty description, a
/// `verify_cmd` outside the allowed command prefixes.
pub fn check(config: &Config) -> Result<()> {
    for (i, c) in config.wf.constraints.iter().enumerate() {
        let at = || format!("{}: wf.constraints[{i}]", config.display_path());
        if c.description.trim().is_empty() {
            return Err(WfError::usage(format!(
                "{}: a constraint needs a description",
                at()
            )));
        }
        if let Some(word) = &c.category {
            if Category::from_str(word, false).is_err() {
                return Err(WfError::usage(format!(
                    "{}: category {word:?} is not one of requirement, interface, data, error, security, performance",
                    at()
                )));
            }
        }
        if let Err(e) = super::check_verify_cmd(c.verify_cmd.as_deref(), config) {
            return Err(WfError::usage(format!("{}: {}", at(), e.message)));
        }
    }
    Ok(())
}

/// Adds to `constraints` every committed constraint it does not hold yet (by its
/// description), so importing again, or a workflow that already has one, adds
/// nothing twice. Returns the constraints added.
pub fn seed(constraints: &mut Constraints, config: &Config) -> Result<Vec<Constraint>> {
    let mut added = Vec::new();
    for c in &config.wf.constraints {
        let description = c.description.trim();
        let held = constraints
            .hard
            .iter()
            .chain(&constraints.soft)
            .any(|have| have.description == description);
        if held {
            continue;
        }
        let new = NewConstraint {
            description: description.to_string(),
            hard: c.hard,
            category: c
                .category
                .as_deref()
                .and_then(|w| Category::from_str(w, false).ok())
                .as_ref()
                .map(vocabulary::name),
            source: "user".into(),
            phase: "analysis".into(),
            verify_cmd: c.verify_cmd.clone(),
        };
        let constraint = super::add(constraints, new).map_err(|e| {
            WfError::usage(format!(
                "{}: wf.constraints: {}",
                config.display_path(),
                e.message
            ))
        })?;
        added.push(constraint);
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(json: &str) -> Config {
        let mut config = Config::default();
        config.wf.constraints = serde_json::from_str(json).unwrap();
        config
    }

    #[test]
    fn seeding_adds_each_committed_constraint_once() {
        let config = config(
            r#"[{"description": "the API answers in JSON", "verify_cmd": "test -f x"},
                {"description": "no file over 1 MB", "hard": false, "category": "performance"}]"#,
        );
        let mut constraints = Constraints::default();
        let ids: Vec<String> = seed(&mut constraints, &config)
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(ids, ["C001", "C002"]);
        assert_eq!(constraints.hard.len(), 1);
        assert_eq!(constraints.hard[0].verify_cmd.as_deref(), Some("test -f x"));
        assert_eq!(constraints.soft[0].category, "performance");
        // Importing again adds nothing.
        assert!(seed(&mut constraints, &config).unwrap().is_empty());
        assert!(is(&config.wf.constraints[0], &constraints.hard[0]));
        assert!(!is(&config.wf.constraints[1], &constraints.hard[0]));
    }

    #[test]
    fn more_than_a_workflow_keeps_is_refused_naming_the_config() {
        let list: Vec<String> = (0..8)
            .map(|i| format!(r#"{{"description": "rule {i}", "verify_cmd": "test -f x"}}"#))
            .collect();
        let config = config(&format!("[{}]", list.join(",")));
        let err = seed(&mut Constraints::default(), &config).unwrap_err();
        assert!(err.message.contains("wf.constraints"), "{}", err.message);
        assert!(
            err.message.contains("7 hard constraints"),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_empty_description_is_refused_before_the_import() {
        let config = config(r#"[{"description": "  "}]"#);
        let err = check(&config).unwrap_err();
        assert!(err.message.contains("wf.constraints[0]"), "{}", err.message);
    }

    #[test]
    fn a_category_outside_the_vocabulary_is_refused_before_the_import() {
        let config = config(r#"[{"description": "fast", "category": "speed"}]"#);
        let err = check(&config).unwrap_err();
        assert!(
            err.message.contains("category \"speed\" is not one of"),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_unknown_key_is_an_error() {
        let err = serde_json::from_str::<Vec<ProjectConstraint>>(
            r#"[{"description": "x", "cmd": "true"}]"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown field `cmd`"), "{err}");
    }
}
