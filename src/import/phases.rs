//! The tasks of an import counted per phase, for the table `workflow-start` prints.

use std::collections::HashMap;

use crate::state::model::WorkflowState;
use crate::state::{Task, TaskStatus};

/// Per phase, in plan order: name, tasks, done, blocked.
#[derive(Debug, Default)]
pub struct Phases {
    counts: Vec<(String, usize, usize, usize)>,
    /// Where each phase is in `counts`.
    index: HashMap<String, usize>,
}

impl Phases {
    /// Name, tasks, done, blocked, per phase in plan order.
    pub fn rows(&self) -> &[(String, usize, usize, usize)] {
        &self.counts
    }

    pub fn of(state: &WorkflowState) -> crate::error::Result<Phases> {
        let mut phases = Phases::default();
        for t in &state.tasks {
            phases.add(t.task()?);
        }
        Ok(phases)
    }

    /// Counts the plan's next task.
    pub fn add(&mut self, task: &Task) {
        let i = if let Some(&i) = self.index.get(task.phase.as_str()) {
            i
        } else {
            self.index.insert(task.phase.clone(), self.counts.len());
            self.counts.push((task.phase.clone(), 0, 0, 0));
            self.counts.len() - 1
        };
        let Some(e) = self.counts.get_mut(i) else {
            return;
        };
        e.1 += 1;
        if task.status.is_done() {
            e.2 += 1;
        }
        if task.status == TaskStatus::Blocked {
            e.3 += 1;
        }
    }
}
