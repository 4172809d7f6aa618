//! `wf list` as a table: a row per workflow under the home.

use crate::output::Look;
use crate::project::Listed;

pub fn table(workflows: &[Listed], look: Look) -> String {
    let mut table = super::table::new(look);
    table.set_header(vec!["project", "workflow", "status", "progress", "updated"]);
    for w in workflows {
        let project = match &w.project {
            Some(path) if w.project_exists => path.display().to_string(),
            Some(path) => format!("{} (gone)", path.display()),
            None => format!("? (id {})", w.id),
        };
        let (name, status) = match (w.status, &w.problem) {
            (Some(status), _) => (super::one_line(&w.name), status.as_str()),
            (None, problem) => (problem.clone().unwrap_or_default(), "unreadable"),
        };
        table.add_row(vec![
            project,
            name,
            status.to_string(),
            format!("{}/{}", w.done, w.total),
            w.updated_at.clone(),
        ]);
    }
    super::table::keep_whole(&mut table, &[2, 3, 4]);
    table.to_string()
}
