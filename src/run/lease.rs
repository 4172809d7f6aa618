//! Which agent holds which handed-off task, so several agents can work one workflow
//! at once: `next` leases a ready task to the agent that asks (an MCP session, a
//! hook's `session_id`, `--agent NAME`), so two agents never get the same task. Every
//! call an agent makes renews its lease; a lease its agent stops renewing expires
//! (`wf.agents.lease_minutes`) and its task goes back to ready for anyone.
//!
//! A hand-off made without a lease (`wf workflow-execute` handing a task to the user)
//! is whoever's takes it back, as it was before leases. A task leased to one agent is
//! never taken back by another agent's call (`engine::Options::held_elsewhere`); the
//! user's own `wf workflow-execute` takes back every hand-off, as it always did, and a
//! lease whose task is no longer out (nor failed, which is still its agent's to fix)
//! is let go at the next agent's call.
//!
//! The record is small and its own: `<workflow dir>/leases.json`, rewritten whole
//! and atomically by a caller that holds the workflow's lock, read without it by
//! `wf status`. A lease is who is working on what, not what happened to the task: the
//! hand-off and the return are the task's events, as they always were.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Result, WfError};
use crate::state::event::TaskMove;
use crate::state::model::Glance;
use crate::state::{Session, TaskStatus};

/// The file's name in the workflow directory.
pub const FILE: &str = "leases.json";
const SCHEMA_VERSION: u32 = 1;

/// One task out with one agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lease {
    pub task: String,
    pub agent: String,
    /// When the task was leased (RFC 3339).
    pub since: String,
    /// The agent's last call: the lease expires a lease time after it.
    pub seen: String,
    /// The git worktree the task is done in, when it has one of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<Worktree>,
}

/// A task's own checkout: a worktree on a branch started from the head of the
/// project's checkout when the task was leased (`agent::worktree`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Worktree {
    /// The worktree's top directory.
    pub path: PathBuf,
    /// The project's directory in it (the worktree's top unless the project is a
    /// subdirectory of its repository): where the agent works and the checks run.
    pub dir: PathBuf,
    pub branch: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leases {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    pub leases: Vec<Lease>,
}

impl Default for Leases {
    fn default() -> Leases {
        Leases {
            schema_version: SCHEMA_VERSION,
            leases: Vec::new(),
        }
    }
}

impl Leases {
    /// The leases of the workflow in `workflow_dir`; none when it has no file. A file
    /// that is not a lease record is an error naming it and the fix.
    pub fn load(workflow_dir: &Path) -> Result<Leases> {
        let path = workflow_dir.join(FILE);
        let bytes = match crate::fs::read_regular(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => return Ok(Leases::default()),
            Err(e) => return Err(e),
        };
        serde_json::from_slice::<Leases>(&bytes)
            .ok()
            .filter(|l| l.schema_version == SCHEMA_VERSION)
            .ok_or_else(|| {
                WfError::usage(format!(
                    "{}: not a lease record of this wf; delete it (each agent's next `next` leases its task again)",
                    path.display()
                ))
            })
    }

    /// Writes the record whole, atomically; the caller holds the workflow's lock.
    pub fn save(&self, workflow_dir: &Path) -> Result<()> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("leases serialize");
        bytes.push(b'\n');
        crate::fs::durable::write_atomic(&workflow_dir.join(FILE), &bytes)
    }

    pub fn of_agent(&self, agent: &str) -> Option<&Lease> {
        self.leases.iter().find(|l| l.agent == agent)
    }

    pub fn of_task(&self, task: &str) -> Option<&Lease> {
        self.leases.iter().find(|l| l.task == task)
    }

    /// The tasks leased to agents other than `agent`.
    pub fn held_by_others(&self, agent: Option<&str>) -> HashSet<String> {
        self.leases
            .iter()
            .filter(|l| Some(l.agent.as_str()) != agent)
            .map(|l| l.task.clone())
            .collect()
    }

    /// The agent called: its lease is renewed.
    pub fn touch(&mut self, agent: &str, now: &str) {
        for lease in self.leases.iter_mut().filter(|l| l.agent == agent) {
            lease.seen = now.to_string();
        }
    }

    pub fn add(&mut self, lease: Lease) {
        self.leases.retain(|l| l.task != lease.task);
        self.leases.push(lease);
    }

    pub fn release(&mut self, task: &str) -> Option<Lease> {
        let at = self.leases.iter().position(|l| l.task == task)?;
        Some(self.leases.remove(at))
    }

    /// Takes out the leases whose agent has not called for `ttl` as of `now` (one
    /// whose time cannot be read has expired), and returns them.
    pub fn expire(&mut self, now: jiff::Timestamp, ttl: Duration) -> Vec<Lease> {
        let ttl = jiff::SignedDuration::try_from(ttl).unwrap_or(jiff::SignedDuration::MAX);
        let (gone, kept) = std::mem::take(&mut self.leases).into_iter().partition(|l| {
            l.seen
                .parse::<jiff::Timestamp>()
                .ok()
                .and_then(|seen| seen.checked_add(ttl).ok())
                .is_none_or(|until| until <= now)
        });
        self.leases = kept;
        gone
    }
}

/// The leases that have not expired, read without the lock (none when the record
/// cannot be read): what a reader that writes nothing goes by.
pub fn live(workflow_dir: &Path, config: &crate::config::Config) -> Leases {
    let mut leases = Leases::load(workflow_dir).unwrap_or_default();
    leases.expire(crate::clock::now(), config.wf.agents.lease_ttl());
    leases
}

/// Under the lock: the expired leases taken out, each one's task still handed off
/// put back to pending (ready again, for anyone), and `agent`'s lease renewed. The
/// record is written when it changed. Returns the leases left.
pub fn settle(
    session: &mut Session,
    config: &crate::config::Config,
    agent: &str,
) -> Result<Leases> {
    let dir = session.store().dir().to_path_buf();
    let mut leases = Leases::load(&dir)?;
    let before = leases.clone();
    let now = crate::clock::now();
    let expired = leases.expire(now, config.wf.agents.lease_ttl());
    // Done, skipped or put back by someone else meanwhile: nothing left to hold.
    let state = session.state()?;
    leases.leases.retain(|l| {
        state.task_ref(&l.task).is_some_and(|t| {
            t.status() == TaskStatus::Failed
                || (t.status() == TaskStatus::InProgress && t.handed_off())
        })
    });
    for lease in &expired {
        let out = session
            .state()?
            .task_ref(&lease.task)
            .is_some_and(|t| t.status() == TaskStatus::InProgress && t.handed_off());
        if out {
            session.set_task_status(
                &lease.task,
                TaskStatus::Pending,
                TaskMove {
                    reason: Some(format!(
                        "the lease of agent {} expired: no call since {}",
                        lease.agent, lease.seen
                    )),
                    ..TaskMove::default()
                },
                None,
            )?;
        }
    }
    leases.touch(agent, &crate::clock::format_ts(now));
    if leases != before {
        leases.save(&dir)?;
    }
    Ok(leases)
}

/// An agent's name as `--agent` or a client gives it: 1 to 64 characters, none of
/// them a control character (it is shown in `wf status` and in task events).
pub fn check_agent(name: &str) -> Result<()> {
    if (1..=64).contains(&name.chars().count()) && !name.chars().any(char::is_control) {
        return Ok(());
    }
    Err(WfError::usage(format!(
        "agent name {name:?} is not valid; use 1-64 characters and no control characters, e.g. --agent alice"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(task: &str, agent: &str, seen: &str) -> Lease {
        Lease {
            task: task.into(),
            agent: agent.into(),
            since: seen.into(),
            seen: seen.into(),
            worktree: None,
        }
    }

    fn at(text: &str) -> jiff::Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn a_lease_expires_a_lease_time_after_its_agent_last_called() {
        let mut leases = Leases::default();
        leases.add(lease("T1", "alice", "2026-01-08T10:00:00Z"));
        leases.add(lease("T2", "bob", "2026-01-08T10:30:00Z"));
        leases.add(lease("T3", "carol", "not a time"));
        let hour = Duration::from_secs(3600);
        let gone = leases.expire(at("2026-01-08T10:59:59Z"), hour);
        assert_eq!(
            gone.iter().map(|l| l.task.as_str()).collect::<Vec<_>>(),
            ["T3"]
        );
        // To the second: at exactly an hour it is gone.
        let gone = leases.expire(at("2026-01-08T11:00:00Z"), hour);
        assert_eq!(gone, [lease("T1", "alice", "2026-01-08T10:00:00Z")]);
        leases.touch("bob", "2026-01-08T11:20:00Z");
        assert!(leases.expire(at("2026-01-08T12:00:00Z"), hour).is_empty());
        assert_eq!(leases.of_agent("bob").unwrap().task, "T2");
    }

    #[test]
    fn others_tasks_exclude_the_callers_own() {
        let mut leases = Leases::default();
        leases.add(lease("T1", "alice", "2026-01-08T10:00:00Z"));
        leases.add(lease("T2", "bob", "2026-01-08T10:00:00Z"));
        assert_eq!(
            leases.held_by_others(Some("alice")),
            HashSet::from(["T2".to_string()])
        );
        assert_eq!(leases.held_by_others(None).len(), 2);
        // A task is leased once: a new lease replaces the old one.
        leases.add(lease("T2", "carol", "2026-01-08T10:05:00Z"));
        assert_eq!(leases.of_task("T2").unwrap().agent, "carol");
        assert_eq!(leases.leases.len(), 2);
        assert_eq!(leases.release("T1").unwrap().agent, "alice");
        assert!(leases.of_agent("alice").is_none());
    }

    #[test]
    fn the_record_round_trips_and_a_foreign_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Leases::load(dir.path()).unwrap(), Leases::default());
        let mut leases = Leases::default();
        let mut l = lease("T1", "alice", "2026-01-08T10:00:00Z");
        l.worktree = Some(Worktree {
            path: dir.path().join("worktrees/T1"),
            dir: dir.path().join("worktrees/T1"),
            branch: "wf/T1".into(),
        });
        leases.add(l);
        leases.save(dir.path()).unwrap();
        assert_eq!(Leases::load(dir.path()).unwrap(), leases);
        std::fs::write(dir.path().join(FILE), "{\"leases\": 3}").unwrap();
        let err = Leases::load(dir.path()).unwrap_err();
        assert!(
            err.message.contains("leases.json: not a lease record"),
            "{}",
            err.message
        );
    }

    #[test]
    fn agent_names_are_short_and_printable() {
        assert!(check_agent("alice").is_ok());
        assert!(check_agent("mcp-4242").is_ok());
        assert!(check_agent("").is_err());
        assert!(check_agent("a\u{1b}[2J").is_err());
        assert!(check_agent(&"x".repeat(65)).is_err());
    }
}
