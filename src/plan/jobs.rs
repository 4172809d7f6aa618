//! A plan's tasks as CI jobs (`wf export`, docs/distributed.md "Exporting a
//! pipeline"): which tasks share a job, which jobs each job needs, and the job ids.
//!
//! A task whose single dependency has no other dependant would wait for it anyway,
//! so the two share a job (a chain is one job). Past `max_jobs`, jobs are packed by
//! depth: jobs at the same depth never need each other, so merging them keeps every
//! dependency behind its dependant. `needs` lists only what is not already implied
//! through another need (a transitive reduction), and where a CI caps the `needs` of
//! one job (GitLab, 50), relay jobs with no task take the surplus. Every dependency
//! of an exported task is thereby waited for, directly or through other jobs — the
//! property `tests/integration/distributed.rs` checks on chains, wide and mixed plans.

use std::collections::HashMap;

use crate::state::model::Task;

/// One job: the tasks it runs, in order, and the jobs it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// A job id every CI accepts: `task-<first task>` (or `level-N-M` for a packed
    /// job, `<job>-wait-N` for a relay), letters, digits, `-` and `_` only.
    pub id: String,
    pub tasks: Vec<String>,
    /// Indices into [`JobPlan::jobs`], each lower than this job's own.
    pub needs: Vec<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobPlan {
    /// In an order where every job comes after the jobs it needs.
    pub jobs: Vec<Job>,
    /// Tasks left out, each with why (`omit` said so, or it depends on one that was).
    pub omitted: Vec<(String, String)>,
}

/// The limits a CI puts on a pipeline.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most jobs carrying tasks.
    pub max_jobs: usize,
    /// The most entries in one job's `needs` (none: no documented limit).
    pub max_needs: Option<usize>,
}

/// The job id part for a task id: letters, digits and `-` stay, anything else is
/// `_xx` (its bytes in hex), as log names are made (`src/exec/process.rs`), so two
/// task ids never share a job id and a YAML or CI special character never appears.
pub fn id_part(task_id: &str) -> String {
    let mut out = String::with_capacity(task_id.len());
    for b in task_id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("_{b:02x}"));
        }
    }
    out
}

/// The plan's tasks as jobs. `omit` names the tasks to leave out, with why; their
/// dependants go too. `Err` when a task id is not one a plan may hold (ids are
/// checked at import; a hand-edited state is checked again here, since ids reach the
/// pipeline's commands) or when the jobs cannot fit `limits`.
pub fn plan_jobs(
    tasks: &[Task],
    omit: &dyn Fn(&Task) -> Option<String>,
    limits: Limits,
) -> Result<JobPlan, String> {
    if let Some(bad) = tasks.iter().find(|t| !super::ids::is_valid_id(&t.id)) {
        return Err(format!(
            "task id {:?} is not one a plan may hold (1-64 letters, digits, '_', '.' or '-'); re-import the plan",
            crate::error::one_line(&bad.id)
        ));
    }
    let index: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    let order = topological(tasks, &index)?;
    // Left out: what `omit` names, then what depends on it, in dependency order.
    let mut out: Vec<Option<String>> = vec![None; tasks.len()];
    for &i in &order {
        out[i] = omit(&tasks[i]).or_else(|| {
            tasks[i]
                .deps
                .iter()
                .find(|d| index.get(d.as_str()).is_some_and(|&j| out[j].is_some()))
                .map(|d| format!("it depends on {d}, which is left out"))
        });
    }
    let kept: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| out[i].is_none())
        .collect();
    let deps_of = |i: usize| -> Vec<usize> {
        let mut d: Vec<usize> = tasks[i]
            .deps
            .iter()
            .filter_map(|d| index.get(d.as_str()).copied())
            .collect();
        d.sort_unstable();
        d.dedup();
        d
    };
    let mut dependants = vec![0usize; tasks.len()];
    for &i in &kept {
        for d in deps_of(i) {
            dependants[d] += 1;
        }
    }
    // Chains: a task joins its single dependency's job when it is that one's only
    // dependant.
    let mut job_of = vec![usize::MAX; tasks.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &i in &kept {
        let deps = deps_of(i);
        let joined = match deps.as_slice() {
            [d] if dependants[*d] == 1 && job_of[*d] != usize::MAX => {
                let g = job_of[*d];
                // Only onto the chain's last task: the job runs its tasks in order.
                groups[g].last() == Some(d)
            }
            _ => false,
        };
        if joined {
            let g = job_of[deps[0]];
            groups[g].push(i);
            job_of[i] = g;
        } else {
            job_of[i] = groups.len();
            groups.push(vec![i]);
        }
    }
    let needs_of = |groups: &[Vec<usize>], job_of: &[usize]| -> Vec<Vec<usize>> {
        groups
            .iter()
            .enumerate()
            .map(|(g, members)| {
                let mut n: Vec<usize> = members
                    .iter()
                    .flat_map(|&i| deps_of(i))
                    .map(|d| job_of[d])
                    .filter(|&j| j != g)
                    .collect();
                n.sort_unstable();
                n.dedup();
                n
            })
            .collect()
    };
    let mut needs = needs_of(&groups, &job_of);
    let mut packed = false;
    if groups.len() > limits.max_jobs {
        // Depth of each job; jobs are in dependency order, so one pass does.
        let mut depth = vec![0usize; groups.len()];
        for g in 0..groups.len() {
            depth[g] = needs[g].iter().map(|&n| depth[n] + 1).max().unwrap_or(0);
        }
        let levels = depth.iter().max().map_or(0, |d| d + 1);
        if levels > limits.max_jobs {
            return Err(format!(
                "the plan's longest line of dependent jobs is {levels} long, more than --max-jobs {}; raise --max-jobs, or run it in one job with `wf workflow-execute --all --ci`",
                limits.max_jobs
            ));
        }
        let per_level = (limits.max_jobs / levels).max(1);
        let mut seen = vec![0usize; levels];
        let mut bucket: HashMap<(usize, usize), usize> = HashMap::new();
        let mut merged: Vec<Vec<usize>> = Vec::new();
        let mut new_job_of = vec![usize::MAX; tasks.len()];
        // Level by level, so a merged job still comes after what it needs.
        let mut by_level: Vec<usize> = (0..groups.len()).collect();
        by_level.sort_by_key(|&g| (depth[g], g));
        for g in by_level {
            let key = (depth[g], seen[depth[g]] % per_level);
            seen[depth[g]] += 1;
            let m = *bucket.entry(key).or_insert_with(|| {
                merged.push(Vec::new());
                merged.len() - 1
            });
            for &i in &groups[g] {
                new_job_of[i] = m;
            }
            merged[m].extend(groups[g].iter().copied());
        }
        groups = merged;
        job_of = new_job_of;
        needs = needs_of(&groups, &job_of);
        packed = true;
    }
    let needs = reduce(&needs);
    let mut jobs: Vec<Job> = Vec::new();
    let mut level_count: HashMap<usize, usize> = HashMap::new();
    let mut depth = vec![0usize; groups.len()];
    for (g, members) in groups.iter().enumerate() {
        depth[g] = needs[g].iter().map(|&n| depth[n] + 1).max().unwrap_or(0);
        let id = if packed {
            let n = level_count.entry(depth[g]).or_default();
            *n += 1;
            format!("level-{}-{}", depth[g] + 1, n)
        } else {
            format!("task-{}", id_part(&tasks[members[0]].id))
        };
        jobs.push(Job {
            id,
            tasks: members.iter().map(|&i| tasks[i].id.clone()).collect(),
            needs: needs[g].clone(),
        });
    }
    if let Some(max) = limits.max_needs {
        jobs = relay(jobs, max);
    }
    let omitted = order
        .iter()
        .filter_map(|&i| out[i].clone().map(|why| (tasks[i].id.clone(), why)))
        .collect();
    Ok(JobPlan { jobs, omitted })
}

/// Tasks in dependency order, document order among equals (Kahn's algorithm).
fn topological(tasks: &[Task], index: &HashMap<&str, usize>) -> Result<Vec<usize>, String> {
    let mut indegree = vec![0usize; tasks.len()];
    let mut dependants: Vec<Vec<usize>> = vec![Vec::new(); tasks.len()];
    for (i, t) in tasks.iter().enumerate() {
        for d in &t.deps {
            let Some(&j) = index.get(d.as_str()) else {
                return Err(format!(
                    "task {} depends on {d}, which is not in the workflow; re-import the plan",
                    t.id
                ));
            };
            indegree[i] += 1;
            dependants[j].push(i);
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        (0..tasks.len()).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(tasks.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &j in &dependants[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.insert(j);
            }
        }
    }
    if order.len() < tasks.len() {
        return Err("the task graph has a cycle; re-import the plan".into());
    }
    Ok(order)
}

/// Each job's needs less those another of its needs already waits for.
fn reduce(needs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let words = needs.len().div_ceil(64);
    // ancestors[g]: every job g waits for, directly or not, as a bit set.
    let mut ancestors: Vec<Vec<u64>> = Vec::with_capacity(needs.len());
    let mut reduced = Vec::with_capacity(needs.len());
    for n in needs {
        let mut through = vec![0u64; words];
        for &j in n {
            for (w, a) in through.iter_mut().zip(&ancestors[j]) {
                *w |= a;
            }
        }
        let kept: Vec<usize> = n
            .iter()
            .copied()
            .filter(|&j| through[j / 64] & (1 << (j % 64)) == 0)
            .collect();
        let mut mine = through;
        for &j in n {
            mine[j / 64] |= 1 << (j % 64);
        }
        ancestors.push(mine);
        reduced.push(kept);
    }
    reduced
}

/// Jobs whose `needs` exceed `max` wait through relay jobs (no task) instead, each
/// needing at most `max`.
fn relay(jobs: Vec<Job>, max: usize) -> Vec<Job> {
    let max = max.max(2);
    let mut out: Vec<Job> = Vec::with_capacity(jobs.len());
    let mut moved: Vec<usize> = Vec::with_capacity(jobs.len());
    for job in jobs {
        let mut needs: Vec<usize> = job.needs.iter().map(|&n| moved[n]).collect();
        let mut round = 0;
        while needs.len() > max {
            round += 1;
            let mut next = Vec::new();
            for (k, chunk) in needs.chunks(max).enumerate() {
                out.push(Job {
                    id: format!("{}-wait-{round}-{}", job.id, k + 1),
                    tasks: Vec::new(),
                    needs: chunk.to_vec(),
                });
                next.push(out.len() - 1);
            }
            needs = next;
        }
        out.push(Job { needs, ..job });
        moved.push(out.len() - 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(id: &str, deps: &[&str]) -> Task {
        Task {
            id: id.into(),
            deps: deps.iter().map(|d| (*d).to_string()).collect(),
            ..Task::default()
        }
    }

    const WIDE: Limits = Limits {
        max_jobs: 1000,
        max_needs: None,
    };

    fn ids(plan: &JobPlan) -> Vec<(String, Vec<String>, Vec<String>)> {
        plan.jobs
            .iter()
            .map(|j| {
                (
                    j.id.clone(),
                    j.tasks.clone(),
                    j.needs.iter().map(|&n| plan.jobs[n].id.clone()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn a_chain_is_one_job_and_a_fork_is_not() {
        let tasks = [
            t("A", &[]),
            t("B", &["A"]),
            t("C", &["B"]),
            t("D", &["B"]),
            t("E", &["C", "D"]),
        ];
        let plan = plan_jobs(&tasks, &|_| None, WIDE).unwrap();
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_string()).collect::<Vec<_>>();
        assert_eq!(
            ids(&plan),
            vec![
                ("task-A".into(), s(&["A", "B"]), s(&[])),
                ("task-C".into(), s(&["C"]), s(&["task-A"])),
                ("task-D".into(), s(&["D"]), s(&["task-A"])),
                ("task-E".into(), s(&["E"]), s(&["task-C", "task-D"])),
            ]
        );
    }

    #[test]
    fn needs_implied_through_another_are_dropped() {
        let tasks = [
            t("A", &[]),
            t("B", &["A"]),
            t("X", &["A"]),
            t("C", &["A", "B", "X"]),
        ];
        let plan = plan_jobs(&tasks, &|_| None, WIDE).unwrap();
        let c = plan
            .jobs
            .iter()
            .find(|j| j.tasks.contains(&"C".into()))
            .unwrap();
        let named: Vec<&str> = c.needs.iter().map(|&n| plan.jobs[n].id.as_str()).collect();
        assert_eq!(named, ["task-B", "task-X"]);
    }

    #[test]
    fn left_out_tasks_take_their_dependants_along() {
        let tasks = [
            t("A", &[]),
            t("B", &["A"]),
            t("C", &[]),
            t("D", &["B", "C"]),
        ];
        let omit = |t: &Task| (t.id == "A").then(|| "needs an agent".to_string());
        let plan = plan_jobs(&tasks, &omit, WIDE).unwrap();
        assert_eq!(
            plan.omitted,
            vec![
                ("A".into(), "needs an agent".into()),
                ("B".into(), "it depends on A, which is left out".into()),
                ("D".into(), "it depends on B, which is left out".into()),
            ]
        );
        assert_eq!(plan.jobs.len(), 1);
    }

    #[test]
    fn job_ids_are_safe_and_distinct() {
        assert_eq!(id_part("T1.2"), "T1_2e2");
        assert_eq!(id_part("T1_2e2"), "T1_5f2e2");
        assert_eq!(id_part("a-b"), "a-b");
        let bad = [t("T1; rm -rf /", &[])];
        assert!(plan_jobs(&bad, &|_| None, WIDE)
            .unwrap_err()
            .contains("is not one a plan may hold"));
    }

    #[test]
    fn too_many_jobs_are_packed_by_depth_and_relays_keep_needs_small() {
        // 100 independent tasks, then one that needs them all.
        let mut tasks: Vec<Task> = (0..100).map(|i| t(&format!("W{i}"), &[])).collect();
        let all: Vec<String> = (0..100).map(|i| format!("W{i}")).collect();
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        tasks.push(t("Z", &refs));
        let plan = plan_jobs(
            &tasks,
            &|_| None,
            Limits {
                max_jobs: 10,
                max_needs: None,
            },
        )
        .unwrap();
        assert!(plan.jobs.len() <= 10, "{}", plan.jobs.len());
        let plan = plan_jobs(
            &tasks,
            &|_| None,
            Limits {
                max_jobs: 1000,
                max_needs: Some(50),
            },
        )
        .unwrap();
        assert!(plan.jobs.iter().all(|j| j.needs.len() <= 50));
        assert!(plan.jobs.iter().any(|j| j.id.starts_with("task-Z-wait-")));
        let chain: Vec<Task> = (0..20)
            .map(|i| {
                if i == 0 {
                    t("C0", &[])
                } else {
                    t(&format!("C{i}"), &[&format!("C{}", i - 1)])
                }
            })
            .collect();
        // A chain is one job, whatever the limit.
        assert_eq!(
            plan_jobs(
                &chain,
                &|_| None,
                Limits {
                    max_jobs: 1,
                    max_needs: None
                }
            )
            .unwrap()
            .jobs
            .len(),
            1
        );
    }
}
