//! What `wf show TASK` prints: one task for people — its definition, where it
//! stands, its evidence, and whether that evidence still holds now (docs/proof.md
//! "Evidence").

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::one_line as clean;
use crate::output::{paint, Color, Look};
use crate::proof::fingerprint::declared_files;
use crate::proof::now::Now;
use crate::state::evidence::{CheckEvidence, Evidence};
use crate::state::model::Task;
use crate::state::TaskStatus;

/// Width of the label column.
const LABEL: usize = 10;

/// `sha256:` and the first 12 hex digits: enough to tell fingerprints apart by eye.
pub fn short(fingerprint: &str) -> String {
    let (algo, hex) = fingerprint.split_once(':').unwrap_or(("", fingerprint));
    let hex: String = hex.chars().take(12).collect();
    if algo.is_empty() {
        hex
    } else {
        format!("{algo}:{hex}")
    }
}

/// An argv as a reader would type it: words with spaces or shell syntax in single
/// quotes.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                clean(w)
            } else {
                format!("'{}'", clean(&w.replace('\'', "'\\''")))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `(1.2s)`, as `wf workflow-execute` prints a duration.
fn seconds(ms: u64) -> String {
    format!("({:.1}s)", ms as f64 / 1000.0)
}

fn row(out: &mut String, indent: &str, label: &str, value: &str) {
    let width = LABEL.saturating_sub(indent.len());
    let _ = writeln!(out, "{indent}{label:<width$} {value}");
}

fn list_or(items: &[String], none: &str) -> String {
    if items.is_empty() {
        none.to_string()
    } else {
        items
            .iter()
            .map(|i| clean(i))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn check_line(c: &CheckEvidence) -> String {
    let exit = c.exit_code.map_or_else(
        || "no exit code (killed)".to_string(),
        |c| format!("exit {c}"),
    );
    format!(
        "{} → {exit} {}",
        shell_words(&c.argv),
        seconds(c.duration_ms)
    )
}

fn evidence_rows(out: &mut String, e: &Evidence) {
    row(
        out,
        "",
        "evidence",
        &format!(
            "{} at {}, fingerprint {}",
            if e.cached {
                "answered from the cache"
            } else {
                "passed"
            },
            clean(&e.at),
            short(&e.inputs.fingerprint)
        ),
    );
    for c in &e.checks {
        row(out, "  ", &clean(&c.what), &check_line(c));
    }
    for d in &e.derived {
        row(out, "  ", "derived", &super::checks::found_line(d));
    }
    if let Some(executor) = &e.executor {
        row(out, "  ", "executor", &clean(executor));
    }
    if let Some(r) = &e.runner {
        // Where an imported result ran (docs/distributed.md): the CI, its run, its
        // job and the commit it checked out.
        let part = |what: &str, v: &Option<String>| {
            v.as_deref()
                .map(|v| format!(", {what} {}", clean(v)))
                .unwrap_or_default()
        };
        let commit = r
            .commit
            .as_deref()
            .map(|c| c.chars().take(12).collect::<String>());
        row(
            out,
            "  ",
            "ran in",
            &format!(
                "{}{}{}{}",
                clean(&r.ci),
                part("run", &r.run_id),
                part("job", &r.job),
                part("commit", &commit)
            ),
        );
    }
    if let Some(claim) = &e.claim {
        let mut text = list_or(&claim.changed_files, "no files");
        if !claim.summary.is_empty() {
            let _ = write!(text, ": {}", clean(&claim.summary));
        }
        row(out, "  ", "claim", &format!("changed {text}"));
    }
    if let Some(changes) = &e.changes {
        let mut text = list_or(&changes.files, "no file");
        if !changes.undeclared.is_empty() {
            let _ = write!(
                text,
                " (not declared: {})",
                list_or(&changes.undeclared, "")
            );
        }
        row(out, "  ", "changed", &text);
    }
    row(out, "  ", "cached", if e.cached { "yes" } else { "no" });
}

/// The text of `wf show`; `derived` the lines of the checks derived from the task's
/// line (`report::checks::derived_lines`).
pub fn text(task: &Task, now: &Now, derived: &[String], look: Look) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}  {}",
        paint(&clean(&task.id), Color::Bold, look.color),
        clean(&task.name)
    );
    row(&mut out, "", "status", task.status.as_str());
    if !task.phase.is_empty() {
        row(&mut out, "", "phase", &clean(&task.phase));
    }
    row(&mut out, "", "deps", &list_or(&task.deps, "none"));
    let files: Vec<String> = declared_files(task).into_iter().map(String::from).collect();
    row(
        &mut out,
        "",
        "files",
        &list_or(&files, "none (nothing tells when its inputs change)"),
    );
    let checks: Vec<String> = task.check_commands().map(String::from).collect();
    if checks.is_empty() && !derived.is_empty() {
        row(
            &mut out,
            "",
            "checks",
            "none of its own; wf checks what its line names:",
        );
        for line in derived {
            row(&mut out, "  ", "derived", line);
        }
    } else {
        row(&mut out, "", "checks", &list_or(&checks, "none"));
    }
    if let Some(reason) = &task.failure_reason {
        row(&mut out, "", "reason", &clean(reason));
    }
    if let Some(used) = &task.usage {
        row(&mut out, "", "usage", &usage_line(used));
    }
    if let Some(reason) = &task.reopened {
        row(&mut out, "", "reopened", &clean(reason));
    }
    match task.proof() {
        Some(e) => evidence_rows(&mut out, &e),
        None => row(
            &mut out,
            "",
            "evidence",
            &if task.evidence.is_some() {
                "none: what the state holds does not read as evidence; `wf verify` records it"
                    .to_string()
            } else if task.status == TaskStatus::Completed {
                "none (completed before wf kept evidence): `wf verify` records it".to_string()
            } else {
                format!("none: it is {}", task.status)
            },
        ),
    }
    if let Some(up) = now.up_to_date {
        let text = if up {
            paint("up to date", Color::Green, look.color)
        } else {
            format!(
                "{}: {}; `wf verify {}` checks it again",
                paint("not up to date", Color::Yellow, look.color),
                clean(&now.changed.join("; ")),
                clean(&task.id)
            )
        };
        row(&mut out, "", "now", &text);
    }
    out.trim_end().to_string()
}

/// What a task's attempts used, all added up: `12,800 tokens (12,000 in, 800 out;
/// 10,000 cache read), $0.02`; the cost only when one was reported or priced.
fn usage_line(used: &crate::state::model::Usage) -> String {
    use super::status::thousands;
    let mut text = format!(
        "{} tokens ({} in, {} out",
        thousands(used.input_tokens + used.output_tokens),
        thousands(used.input_tokens),
        thousands(used.output_tokens)
    );
    let cache: Vec<String> = [
        (used.cache_read_tokens, "cache read"),
        (used.cache_write_tokens, "cache write"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{} {what}", thousands(n)))
    .collect();
    if !cache.is_empty() {
        text.push_str(&format!("; {}", cache.join(", ")));
    }
    text.push(')');
    if let Some(cost) = used.cost_usd {
        text.push_str(&format!(", ${cost:.2}"));
    }
    text
}

/// The `--json` document of `wf show` (docs/json/show.schema.json): the task as the
/// state holds it, and how it stands now.
pub fn json(task: &Task, now: &Now, derived: &[String]) -> Value {
    json!({
        "task": task,
        "up_to_date": now.up_to_date,
        "changed": now.changed,
        "fingerprint_now": now.inputs.fingerprint,
        "derived_checks": derived,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::evidence::{Changes, ClaimEvidence, Inputs};

    fn look() -> Look {
        Look {
            color: false,
            width: None,
        }
    }

    #[test]
    fn a_tasks_usage_is_one_line_of_tokens_and_cost() {
        let used = crate::state::model::Usage {
            input_tokens: 12_000,
            output_tokens: 800,
            cache_read_tokens: 10_000,
            cost_usd: Some(0.021),
            ..Default::default()
        };
        assert_eq!(
            usage_line(&used),
            "12,800 tokens (12,000 in, 800 out; 10,000 cache read), $0.02"
        );
        let plain = crate::state::model::Usage {
            input_tokens: 5,
            output_tokens: 1,
            ..Default::default()
        };
        assert_eq!(usage_line(&plain), "6 tokens (5 in, 1 out)");
    }

    #[test]
    fn an_agent_tasks_evidence_shows_its_claim_and_what_really_changed() {
        let task = Task {
            id: "T7".into(),
            name: "Write the \x1b]0;owned\x07parser".into(),
            status: TaskStatus::Completed,
            file: Some("src/parse.py".into()),
            verify: vec!["pytest -q 'tests/a b.py'".into()],
            evidence: Some(crate::state::evidence::Proof::of(Evidence {
                at: "2026-01-08T10:00:00Z".into(),
                inputs: Inputs {
                    fingerprint: format!("sha256:{}", "ab".repeat(32)),
                    ..Inputs::default()
                },
                checks: vec![CheckEvidence {
                    what: "check".into(),
                    argv: vec![
                        "/bin/sh".into(),
                        "-c".into(),
                        "pytest -q 'tests/a b.py'".into(),
                    ],
                    exit_code: Some(0),
                    duration_ms: 1400,
                    log_digest: None,
                }],
                executor: Some("claude".into()),
                claim: Some(ClaimEvidence {
                    changed_files: vec!["src/parse.py".into()],
                    summary: "parser\nwritten".into(),
                }),
                changes: Some(Changes {
                    files: vec!["notes.txt".into(), "src/parse.py".into()],
                    undeclared: vec!["notes.txt".into()],
                }),
                cached: false,
                runner: Some(crate::state::evidence::Runner {
                    ci: "github-actions".into(),
                    run_id: Some("42".into()),
                    job: Some("task-T7".into()),
                    commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
                }),
                derived: Vec::new(),
            })),
            ..Task::default()
        };
        let now = Now {
            inputs: Inputs::default(),
            up_to_date: Some(false),
            changed: vec!["src/parse.py changed".into()],
        };
        let text = text(&task, &now, &[], look());
        assert_eq!(
            text,
            "T7  Write the \\u{1b}]0;owned\\u{7}parser
status     completed
deps       none
files      src/parse.py
checks     pytest -q 'tests/a b.py'
evidence   passed at 2026-01-08T10:00:00Z, fingerprint sha256:abababababab
  check    /bin/sh -c 'pytest -q '\\''tests/a b.py'\\''' → exit 0 (1.4s)
  executor claude
  ran in   github-actions, run 42, job task-T7, commit 0123456789ab
  claim    changed src/parse.py: parser written
  changed  notes.txt, src/parse.py (not declared: notes.txt)
  cached   no
now        not up to date: src/parse.py changed; `wf verify T7` checks it again"
        );
    }
}
