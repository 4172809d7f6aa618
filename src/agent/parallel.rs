//! Several agents on one workflow at once: the steps of `next` and `done` that
//! lease a task to the agent that asks (`run::lease`), give it its own worktree
//! (`agent::worktree`) when the project asks for one, and merge that worktree back
//! when the task passes. `wf mcp`'s tools and `wf next|done --agent` both go through
//! here; the caller holds the workflow's lock throughout.
//!
//! Merging happens as each task passes, and a task is leased only once every task it
//! depends on is done, so branches come back in dependency order. A branch that
//! would conflict is not merged and its task not checked: the task stays the agent's,
//! with the conflicting files named.

use crate::state::model::Glance;
use std::collections::HashSet;

use crate::agent::step::Caller;
use crate::agent::worktree;
use crate::error::Result;
use crate::project::Project;
use crate::run::engine::{needs_agent, Stop};
use crate::run::lease::{Lease, Leases, Worktree};
use crate::run::now::{what_now_in, Facts, Now};
use crate::state::summary::Digest;
use crate::state::{Session, WorkflowState};

/// The leases as one agent's call sees them, once settled (`run::lease::settle`):
/// the expired taken out and their tasks ready again, the caller's renewed.
#[derive(Debug)]
pub struct Turn {
    pub agent: String,
    pub leases: Leases,
}

impl Turn {
    pub fn begin(project: &Project, session: &mut Session, agent: &str) -> Result<Turn> {
        crate::run::lease::check_agent(agent)?;
        let leases = crate::run::lease::settle(session, &project.config, agent)?;
        let agent = agent.to_string();
        Ok(Turn { agent, leases })
    }

    /// The tasks other agents hold: not this agent's to do, check or retry.
    pub fn others(&self) -> HashSet<String> {
        self.leases.held_by_others(Some(&self.agent))
    }

    /// The state's digest as this agent sees it: the tasks other agents hold are
    /// theirs, not in progress here (`run::now` then answers for this agent).
    pub fn digest(&self, state: &WorkflowState) -> Digest {
        seen_by(state, Digest::of(state), &self.others())
    }

    pub fn own(&self) -> Option<&Lease> {
        self.leases.of_agent(&self.agent)
    }

    /// The run for this agent's task `task`: the only leased task it takes back, done
    /// and checked in the task's worktree when it has one.
    pub fn caller(&self, task: Option<&str>) -> Caller {
        let lease = task.and_then(|id| self.leases.of_task(id));
        Caller {
            own: lease.map(|l| l.task.clone()),
            tree: lease
                .and_then(|l| l.worktree.as_ref())
                .map(|w| w.dir.clone()),
        }
    }

    /// Leases `task` to this agent: a hand-off nobody holds (`wf workflow-execute`
    /// handed it to whoever comes), or one just made.
    pub fn lease(&mut self, session: &Session, task: &str, tree: Option<Worktree>) -> Result<()> {
        let now = crate::clock::now_rfc3339();
        self.leases.add(Lease {
            task: task.to_string(),
            agent: self.agent.clone(),
            since: now.clone(),
            seen: now,
            worktree: tree,
        });
        self.leases.save(session.store().dir())
    }

    /// `next` for this agent: the first ready agent task handed off and leased to it
    /// (in a worktree of its own when `own_tree`), or a hand-off nobody holds leased
    /// to it; nothing when it holds a task already or no agent task is ready (a
    /// failure of its own comes first: `run::now`). `step` is one step of the engine
    /// for the caller. Returns the problems the step met.
    pub fn take_next(
        &mut self,
        project: &Project,
        session: &mut Session,
        own_tree: bool,
        step: impl FnOnce(&mut Session, &Caller) -> Result<(Stop, Vec<String>)>,
    ) -> Result<Vec<String>> {
        let state = session.state()?;
        let digest = self.digest(state);
        let (ready, unleased) = match what_now_in(state, &digest, Facts::locked())? {
            Now::Ready(t) if needs_agent(t) => (Some(t.id.clone()), None),
            Now::HandedOff(t)
                if t.handed_off == Some(true) && self.leases.of_task(&t.id).is_none() =>
            {
                (None, Some(t.id.clone()))
            }
            _ => (None, None),
        };
        if let Some(id) = ready {
            return Ok(self.hand_off(project, session, &id, own_tree, step)?.1);
        }
        if let Some(id) = unleased {
            self.lease(session, &id, None)?;
        }
        Ok(Vec::new())
    }

    /// Hands the ready agent task `task` to this agent, in a worktree of its own when
    /// `own_tree`, with one step of the engine; leases it when the step handed it
    /// off. Returns how the step stopped and the problems it met.
    fn hand_off(
        &mut self,
        project: &Project,
        session: &mut Session,
        task: &str,
        own_tree: bool,
        step: impl FnOnce(&mut Session, &Caller) -> Result<(Stop, Vec<String>)>,
    ) -> Result<(Stop, Vec<String>)> {
        let tree = own_tree
            .then(|| worktree::open(&project.dir, session.store().dir(), task))
            .transpose()?;
        let caller = Caller {
            own: None,
            tree: tree.as_ref().map(|t| t.dir.clone()),
        };
        let (stop, problems) = step(session, &caller)?;
        if stop == Stop::HandedOff(task.to_string()) {
            self.lease(session, task, tree)?;
        }
        Ok((stop, problems))
    }

    /// Before `task` is checked: its worktree's work committed, and the files that
    /// would conflict with the project's head when merged; none when it merges
    /// cleanly or has no worktree.
    pub fn conflicts(
        &self,
        project: &Project,
        task: &str,
        message: &str,
    ) -> Result<Option<worktree::Conflict>> {
        let Some(tree) = self.leases.of_task(task).and_then(|l| l.worktree.as_ref()) else {
            return Ok(None);
        };
        worktree::commit(tree, message)?;
        worktree::conflicts(&project.dir, tree)
    }

    /// After `task`'s checks: once it is done, its branch merged into the project's
    /// checkout, its worktree removed and its lease let go. A merge git refuses is a
    /// problem to report (the task passed; the branch is kept for the user to merge).
    pub fn settle_return(
        &mut self,
        project: &Project,
        session: &Session,
        task: &str,
        message: &str,
    ) -> Result<Vec<String>> {
        let done = session
            .state()?
            .task_ref(task)
            .is_some_and(|t| t.status().is_done());
        if !done {
            return Ok(Vec::new());
        }
        let mut problems = Vec::new();
        let Some(lease) = self.leases.release(task) else {
            return Ok(problems);
        };
        if let Some(tree) = &lease.worktree {
            match worktree::merge(&project.dir, tree, message) {
                Ok(()) => worktree::remove(&project.dir, tree),
                Err(e) => problems.push(format!(
                    "{task} passed, but its branch {} was not merged: {}; merge it yourself",
                    tree.branch, e.message
                )),
            }
        }
        self.leases.save(session.store().dir())?;
        Ok(problems)
    }
    /// A task left undone (skipped): its lease let go; its worktree is kept, with
    /// whatever work it holds.
    pub fn let_go(&mut self, session: &Session, task: &str) -> Result<()> {
        if self.leases.release(task).is_some() {
            self.leases.save(session.store().dir())?;
        }
        Ok(())
    }
}

/// `digest` as an agent sees it when `others` are the tasks other agents hold: those
/// are neither in progress nor failed for it (they are theirs to finish or fix), and
/// the handed-off task is the first of the rest.
pub fn seen_by(state: &WorkflowState, mut digest: Digest, others: &HashSet<String>) -> Digest {
    digest.in_progress.retain(|id| !others.contains(id));
    digest.failed.retain(|id| !others.contains(id));
    if digest
        .handed_off
        .as_ref()
        .is_some_and(|id| others.contains(id))
    {
        digest.handed_off = digest
            .in_progress
            .iter()
            .find(|id| state.task_ref(id).is_some_and(Glance::handed_off))
            .cloned();
    }
    digest
}
