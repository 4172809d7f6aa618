//! Which task a run starts next, without looking at every task each time.
//!
//! A scan of the plan per dispatch would be quadratic; instead each task counts the
//! dependencies it still waits for, and each task knows the tasks that wait for it;
//! when a task is done its dependants' counts go down, and a task whose count reaches
//! zero becomes a candidate. Candidates are kept in plan order, so the task picked is
//! the one a scan would pick: the first ready one in document order
//! (`state::ready::is_ready`) that is not running.
//!
//! A candidate whose status says it cannot start (running, failed, blocked, handed
//! off) is passed over, not removed — it may become pending again (a retry, an
//! escalation) — so a pick costs the number of such tasks, not the plan's size. A done
//! candidate is dropped for good.

use crate::state::model::Glance;
use crate::state::task_ref::TaskRef;
use std::collections::{BTreeSet, HashSet};

use crate::state::machine::TaskStatus;

#[derive(Debug, Default)]
pub struct ReadyQueue {
    /// Per task (by index), how many of its dependencies are not done. A dependency
    /// the plan does not have is never done, so its task never becomes ready.
    waiting_on: Vec<usize>,
    /// Per task, the tasks that depend on it.
    dependants: Vec<Vec<usize>>,
    /// Tasks with every dependency done and not done themselves, in plan order.
    candidates: BTreeSet<usize>,
    /// Whether a task's completion was already counted.
    counted: Vec<bool>,
    /// Tasks looked at by `next`, for the complexity test.
    examined: u64,
}

impl ReadyQueue {
    /// The queue for `tasks` as they are now, given where each id is in them
    /// (`WorkflowState::position`): O(tasks + dependency edges).
    pub fn new(tasks: &[TaskRef], mut position: impl FnMut(&str) -> Option<usize>) -> ReadyQueue {
        let mut q = ReadyQueue {
            waiting_on: vec![0; tasks.len()],
            dependants: vec![Vec::new(); tasks.len()],
            candidates: BTreeSet::new(),
            counted: vec![false; tasks.len()],
            examined: 0,
        };
        for (i, task) in tasks.iter().enumerate() {
            for dep in task.deps() {
                match position(dep) {
                    Some(d) if tasks[d].status().is_done() => {}
                    Some(d) => {
                        q.waiting_on[i] += 1;
                        q.dependants[d].push(i);
                    }
                    None => q.waiting_on[i] += 1,
                }
            }
        }
        for (i, task) in tasks.iter().enumerate() {
            if task.status().is_done() {
                q.counted[i] = true;
            } else if q.waiting_on[i] == 0 {
                q.candidates.insert(i);
            }
        }
        q
    }

    /// Task `i` is done (completed or skipped): its dependants may become ready.
    pub fn done(&mut self, i: usize) {
        if std::mem::replace(&mut self.counted[i], true) {
            return;
        }
        self.candidates.remove(&i);
        for &d in &self.dependants[i] {
            self.waiting_on[d] -= 1;
            if self.waiting_on[d] == 0 {
                self.candidates.insert(d);
            }
        }
    }

    /// The first ready task in plan order that is not `running`.
    pub fn next<'t>(
        &mut self,
        tasks: &'t [TaskRef],
        running: &HashSet<String>,
    ) -> Option<&'t TaskRef> {
        let mut gone = Vec::new();
        let mut found = None;
        for &i in &self.candidates {
            self.examined += 1;
            let task = &tasks[i];
            if task.status().is_done() {
                gone.push(i);
                continue;
            }
            if task.status() == TaskStatus::Pending
                && task.blocked_by().is_empty()
                && !running.contains(task.id())
            {
                found = Some(task);
                break;
            }
        }
        for i in gone {
            self.done(i);
        }
        found
    }

    /// How many tasks `next` has looked at so far.
    pub fn examined(&self) -> u64 {
        self.examined
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Task;

    fn chain(n: usize) -> Vec<Task> {
        (0..n)
            .map(|i| Task {
                id: format!("T{i}"),
                name: format!("T{i}"),
                status: TaskStatus::Pending,
                deps: if i == 0 {
                    vec![]
                } else {
                    vec![format!("T{}", i - 1)]
                },
                ..Task::default()
            })
            .collect()
    }

    fn index(tasks: &[TaskRef]) -> std::collections::HashMap<String, usize> {
        tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id().to_owned(), i))
            .collect()
    }

    /// Runs `tasks` to the end as the engine does with `jobs` slots, every task
    /// passing; returns the order they started in and the tasks examined.
    fn run(tasks: Vec<Task>, jobs: usize) -> (Vec<String>, u64) {
        let mut tasks: Vec<TaskRef> = tasks.into_iter().map(TaskRef::new).collect();
        let index = index(&tasks);
        let mut q = ReadyQueue::new(&tasks, |id| index.get(id).copied());
        let mut running: Vec<usize> = Vec::new();
        let mut order = Vec::new();
        loop {
            while running.len() < jobs {
                let ids: HashSet<String> =
                    running.iter().map(|&i| tasks[i].id().to_owned()).collect();
                let Some(t) = q.next(&tasks, &ids) else { break };
                let i = index[t.id()];
                order.push(t.id().to_owned());
                tasks[i].make_mut().unwrap().status = TaskStatus::InProgress;
                running.push(i);
            }
            if running.is_empty() {
                return (order, q.examined());
            }
            let i = running.remove(0);
            tasks[i].make_mut().unwrap().status = TaskStatus::Completed;
            q.done(i);
        }
    }

    #[test]
    fn the_work_per_dispatch_stays_flat_as_the_plan_grows() {
        for jobs in [1, 2, 8] {
            let small = run(chain(1_000), jobs).1;
            let large = run(chain(20_000), jobs).1;
            // Linear: 20 times the tasks, about 20 times the work (a scan per
            // dispatch would be 400 times).
            assert!(
                large <= small * 21,
                "jobs {jobs}: {small} examined at 1,000 tasks, {large} at 20,000"
            );
            assert!(large <= 3 * 20_000, "jobs {jobs}: {large} examined");
        }
    }

    #[test]
    fn the_order_is_plan_order_among_the_ready_ones() {
        let mut tasks = chain(3);
        tasks.push(Task {
            id: "W".into(),
            name: "W".into(),
            status: TaskStatus::Pending,
            ..Task::default()
        });
        // One slot: T1 is ready when T0 is done and comes before W in the plan.
        assert_eq!(run(tasks.clone(), 1).0, ["T0", "T1", "T2", "W"]);
        // Two: T0 and W are ready at once and fill both.
        assert_eq!(run(tasks, 2).0, ["T0", "W", "T1", "T2"]);
    }

    #[test]
    fn blocked_failed_unknown_and_done_tasks_are_not_started() {
        let mut tasks = chain(4);
        tasks[0].status = TaskStatus::Completed;
        tasks[1].blocked_by = vec!["api_spec".into()];
        tasks.push(Task {
            id: "F".into(),
            name: "F".into(),
            status: TaskStatus::Failed,
            ..Task::default()
        });
        tasks.push(Task {
            id: "U".into(),
            name: "U".into(),
            status: TaskStatus::Pending,
            deps: vec!["nowhere".into()],
            ..Task::default()
        });
        let mut tasks: Vec<TaskRef> = tasks.into_iter().map(TaskRef::new).collect();
        let index = index(&tasks);
        let mut q = ReadyQueue::new(&tasks, |id| index.get(id).copied());
        assert_eq!(q.next(&tasks, &HashSet::new()).map(Glance::id), None);
        // The blocker lifted (an unblock) and the failure retried: both can start.
        tasks[1].make_mut().unwrap().blocked_by.clear();
        tasks[4].make_mut().unwrap().status = TaskStatus::Pending;
        assert_eq!(q.next(&tasks, &HashSet::new()).map(Glance::id), Some("T1"));
        let running: HashSet<String> = ["T1".to_string()].into();
        assert_eq!(q.next(&tasks, &running).map(Glance::id), Some("F"));
    }
}
