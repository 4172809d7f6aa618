//! Where each task sits on the page's canvas: one column per phase, in the order the
//! plan first names them (the plan's loops); inside a phase, a task's depth is the
//! longest chain of its dependencies within that phase, and tasks of one depth stack
//! in plan order. The page places the phase columns side by side (a collapsed phase
//! is one box), so a phase's size is given in depths and rows.

use std::collections::HashMap;

use crate::state::model::WorkflowState;

/// A phase: its name as the plan gives it (empty for tasks without one) and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Phase {
    pub name: String,
    pub tasks: Vec<usize>,
    /// How many depths (sub-columns) and rows its tasks take.
    pub depths: usize,
    pub rows: usize,
}

/// A task's place: its phase (index into the phases), depth and row there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    pub phase: usize,
    pub depth: usize,
    pub row: usize,
}

pub(super) struct Layout {
    pub phases: Vec<Phase>,
    /// One per task of the state, in plan order.
    pub places: Vec<Place>,
}

pub(super) fn of(state: &WorkflowState) -> crate::error::Result<Layout> {
    let tasks = state.whole_tasks()?;
    let index: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    let mut phase_of: HashMap<&str, usize> = HashMap::new();
    let mut phases: Vec<Phase> = Vec::new();
    let mut places = Vec::with_capacity(tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        let next = phases.len();
        let p = *phase_of.entry(t.phase.as_str()).or_insert(next);
        if p == next {
            phases.push(Phase {
                name: t.phase.clone(),
                tasks: Vec::new(),
                depths: 0,
                rows: 0,
            });
        }
        phases[p].tasks.push(i);
        places.push(Place {
            phase: p,
            depth: 0,
            row: 0,
        });
    }
    // Depth: the longest chain of same-phase dependencies below a task. Dependencies
    // may point forward in the file, so each task's depth is worked out on a stack
    // of its own; `None` marks one being worked out (a cycle, which the import
    // refuses, cannot loop here).
    let mut depth: Vec<Option<Option<usize>>> = vec![None; tasks.len()];
    for start in 0..tasks.len() {
        let mut stack = vec![start];
        while let Some(&i) = stack.last() {
            if matches!(depth[i], Some(Some(_))) {
                stack.pop();
                continue;
            }
            depth[i] = Some(None);
            let same_phase = tasks[i]
                .deps
                .iter()
                .filter_map(|d| index.get(d.as_str()).copied())
                .filter(|&d| places[d].phase == places[i].phase);
            let mut deepest = 0;
            let mut waiting = false;
            for d in same_phase {
                match depth[d] {
                    Some(Some(k)) => deepest = deepest.max(k + 1),
                    Some(None) => {}
                    None => {
                        stack.push(d);
                        waiting = true;
                    }
                }
            }
            if !waiting {
                depth[i] = Some(Some(deepest));
                stack.pop();
            }
        }
    }
    for phase in &mut phases {
        let mut rows_at: Vec<usize> = Vec::new();
        for &i in &phase.tasks {
            let d = depth[i].flatten().unwrap_or(0);
            if rows_at.len() <= d {
                rows_at.resize(d + 1, 0);
            }
            places[i].depth = d;
            places[i].row = rows_at[d];
            rows_at[d] += 1;
        }
        phase.depths = rows_at.len();
        phase.rows = rows_at.into_iter().max().unwrap_or(0);
    }
    Ok(Layout { phases, places })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(tasks: &[(&str, &str, &[&str])]) -> WorkflowState {
        let tasks: Vec<serde_json::Value> = tasks
            .iter()
            .map(|(id, phase, deps)| {
                serde_json::json!({"id": id, "name": id, "phase": phase, "status": "pending", "deps": deps})
            })
            .collect();
        serde_json::from_value(serde_json::json!({"status": "planned", "tasks": tasks})).unwrap()
    }

    #[test]
    fn phases_are_columns_in_plan_order_and_depth_follows_same_phase_dependencies() {
        let s = state(&[
            ("T1", "Setup", &[]),
            ("T2", "Setup", &["T1"]),
            ("T3", "Core", &["T2"]),
            ("T4", "Core", &["T5"]),
            ("T5", "Core", &["T3"]),
            ("T6", "Setup", &[]),
        ]);
        let layout = of(&s).unwrap();
        let names: Vec<&str> = layout.phases.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["Setup", "Core"]);
        let at = |i: usize| {
            let p = layout.places[i];
            (p.phase, p.depth, p.row)
        };
        assert_eq!(at(0), (0, 0, 0));
        assert_eq!(at(1), (0, 1, 0));
        assert_eq!(at(5), (0, 0, 1));
        // T3's dependency is in another phase: depth 0 in its own. T4 depends
        // forward on T5, which depends on T3.
        assert_eq!(at(2), (1, 0, 0));
        assert_eq!(at(4), (1, 1, 0));
        assert_eq!(at(3), (1, 2, 0));
        assert_eq!((layout.phases[0].depths, layout.phases[0].rows), (2, 2));
        assert_eq!((layout.phases[1].depths, layout.phases[1].rows), (3, 1));
    }

    #[test]
    fn a_long_chain_is_laid_out_without_recursion() {
        let ids: Vec<String> = (0..50_000).map(|i| format!("T{i}")).collect();
        let deps: Vec<Vec<&str>> = (0..50_000)
            .map(|i| {
                if i == 0 {
                    vec![]
                } else {
                    vec![ids[i - 1].as_str()]
                }
            })
            .collect();
        let tasks: Vec<(&str, &str, &[&str])> = (0..50_000)
            .rev()
            .map(|i| (ids[i].as_str(), "P", deps[i].as_slice()))
            .collect();
        let layout = of(&state(&tasks)).unwrap();
        assert_eq!(layout.phases[0].depths, 50_000);
        assert_eq!(layout.places[0].depth, 49_999);
    }
}
