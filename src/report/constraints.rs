//! `wf constraints list` and `verify` as tables.

use crate::output::Look;
use crate::state::model::{Constraint, ConstraintVerification, Constraints};

/// Every constraint, hard first.
pub fn list_table(c: &Constraints, look: Look) -> String {
    let mut table = super::table::new(look);
    table.set_header(vec![
        "id",
        "type",
        "category",
        "source",
        "verified",
        "verifyCmd",
        "description",
    ]);
    for k in c.hard.iter().chain(&c.soft) {
        table.add_row(vec![
            super::one_line(&k.id),
            super::one_line(&k.kind),
            super::one_line(&k.category),
            super::one_line(&k.source_model),
            match k.verified {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => "-".into(),
            },
            super::one_line(k.verify_cmd.as_deref().unwrap_or("-")),
            super::one_line(&k.description),
        ]);
    }
    super::table::keep_whole(&mut table, &[0, 1, 2, 3, 4]);
    table.to_string()
}

/// Each hard constraint checked, with its result.
pub fn verify_table(hard: &[Constraint], results: &[ConstraintVerification], look: Look) -> String {
    let mut table = super::table::new(look);
    table.set_header(vec!["id", "result", "verifyCmd", "details"]);
    for c in hard {
        let (result, details) = match results.iter().find(|r| r.constraint_id == c.id) {
            Some(r) if r.passed => ("passed", String::new()),
            Some(r) => ("FAILED", r.details.clone()),
            None => ("no verify command", String::new()),
        };
        table.add_row(vec![
            super::one_line(&c.id),
            result.into(),
            super::one_line(c.verify_cmd.as_deref().unwrap_or("-")),
            crate::escape::controls(&details, crate::escape::Lines::Keep).into_owned(),
        ]);
    }
    super::table::keep_whole(&mut table, &[0, 1]);
    table.to_string()
}
