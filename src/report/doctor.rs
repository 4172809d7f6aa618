//! `wf doctor`'s checks as text (one line each, then a summary) and as JSON.

use serde_json::{json, Value};

use super::plural;
use crate::output::{paint, Color};
use crate::setup::doctor::{Check, Status};

pub fn json(checks: &[Check], ok: bool) -> Value {
    json!({"checks": checks, "ok": ok})
}

/// `status  name  message; fix: …` per check, the status word painted when `color`,
/// then how many problems and warnings there are.
pub fn text(checks: &[Check], color: bool) -> String {
    let name_width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for c in checks {
        text.push_str(&line(c, name_width, color));
        text.push('\n');
    }
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    let (problems, warnings) = (count(Status::Problem), count(Status::Warning));
    text.push_str(&match (problems, warnings) {
        (0, 0) => "No problems found.".to_string(),
        (0, w) => format!(
            "No problems found; {w} {}.",
            plural(w, "warning", "warnings")
        ),
        (p, w) => format!(
            "{p} {} (exit 1), {w} {}.",
            plural(p, "problem", "problems"),
            plural(w, "warning", "warnings")
        ),
    });
    text
}

/// One check on one line: messages quote files and commands from the project, so
/// their control characters are spaces here.
pub fn line(c: &Check, name_width: usize, color: bool) -> String {
    let word = format!("{:<7}", c.status.as_str());
    let word = match c.status {
        Status::Ok => paint(&word, Color::Green, color),
        Status::Warning => paint(&word, Color::Yellow, color),
        Status::Problem => paint(&word, Color::Red, color),
    };
    let mut line = format!(
        "{word}  {:<name_width$}  {}",
        c.name,
        super::one_line(&c.message)
    );
    if let Some(fix) = &c.fix {
        line.push_str(&format!("; fix: {}", super::one_line(fix)));
    }
    line
}
