//! A plan's tasks as CI jobs (`wf export`, docs/distributed.md "Exporting a
//! pipeline"): which tasks share a job, which jobs each job needs, and the job ids.
//!
//! A task whose single dependency has no other dependant would wait for it anyway,
//! so the two share a job (a chain is one job, `wf run-task T1 T2 …` running it).
//! Past `max_jobs`, jobs are packed by depth: bands of consecutive depths, each
//! band's jobs that wait for one another merged, the rest spread over the band's
//! share of jobs — so every dependency stays behind its dependant, whatever the
//! plan's depth. `needs` lists only what is not already implied through another
//! need (a transitive reduction), and each job knows its depth, from which a CI
//! whose `needs` are capped (GitLab, 50) orders the jobs that need more by stage.
//! Every dependency of an exported task is thereby waited for, directly or through
//! other jobs — the property `tests/integration/distributed.rs` checks on chains,
//! wide and mixed plans.
//!
//! A task can stay out of the pipeline two ways: left out (an agent task under
//! `--agent-tasks omit`, a blocked one), when its dependants go too; or skipped (the
//! plan defers it), when they stay, as a local run runs the dependants of a skipped
//! task.

use std::borrow::Borrow;
use std::collections::HashMap;

use crate::state::model::Task;

/// One job: the tasks it runs, in order, and the jobs it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// A job id every CI accepts: `task-<first task>` (or `level-N-M` for a packed
    /// job), letters, digits, `-` and `_` only, and distinct from every other job's
    /// even in another case (GitHub's job ids are case-insensitive: `task-T1` and
    /// `task-t1` are one id there, so the second is `task-t1__2`). [`id_part`] writes
    /// `_` only before two hex digits, so `__` cannot come from a task id.
    pub id: String,
    pub tasks: Vec<String>,
    /// Indices into [`JobPlan::jobs`], each lower than this job's own.
    pub needs: Vec<usize>,
    /// 0 for a job that needs none, else one more than the deepest it needs.
    pub depth: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobPlan {
    /// In an order where every job comes after the jobs it needs.
    pub jobs: Vec<Job>,
    /// Tasks left out, each with why (`leave` said so, or it depends on one that
    /// was).
    pub omitted: Vec<(String, String)>,
    /// Tasks skipped, each with why; their dependants are in the pipeline.
    pub skipped: Vec<(String, String)>,
}

/// Why a task is not in the pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leave {
    /// Left out, and every task that depends on it.
    Out(String),
    /// Skipped: its dependants run without it.
    Skipped(String),
}

/// The limits a CI puts on a pipeline.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most jobs carrying tasks.
    pub max_jobs: usize,
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

/// The plan's tasks as jobs. `leave` names the tasks to leave out or skip, with
/// why ([`Leave`]). `Err` when a task id is not one a plan may hold (ids are
/// checked at import; a hand-edited state is checked again here, since ids reach the
/// pipeline's commands) or when the graph is not one (an unknown dependency, a
/// cycle). Any plan fits `limits.max_jobs`.
/// `tasks` are a state's (`TaskRef`) or a plan's (`Task`).
pub fn plan_jobs(
    tasks: &[impl Borrow<Task>],
    leave: &dyn Fn(&Task) -> Option<Leave>,
    limits: Limits,
) -> Result<JobPlan, String> {
    let tasks: Vec<&Task> = tasks.iter().map(Borrow::borrow).collect();
    if let Some(bad) = tasks.iter().find(|t| !super::ids::is_valid_id(&t.id)) {
        return Err(format!(
            "task id {:?} is not one a plan may hold (1-64 letters, digits, '_', '.' or '-'); re-import the plan",
            crate::error::one_line(&bad.id)
        ));
    }
    let (index, order) = topological(&tasks)?;
    // Not in the pipeline: what `leave` names, then what depends on a task left out,
    // in dependency order.
    let mut out: Vec<Option<Leave>> = vec![None; tasks.len()];
    for &i in &order {
        out[i] = leave(tasks[i]).or_else(|| {
            tasks[i]
                .deps
                .iter()
                .find(|d| {
                    index
                        .get(d.as_str())
                        .is_some_and(|&j| matches!(out[j], Some(Leave::Out(_))))
                })
                .map(|d| Leave::Out(format!("it depends on {d}, which is left out")))
        });
    }
    let kept: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| out[i].is_none())
        .collect();
    // A skipped dependency is not waited for: it is done as far as its dependants go.
    let deps_of = |i: usize| -> Vec<usize> {
        let mut d: Vec<usize> = tasks[i]
            .deps
            .iter()
            .filter_map(|d| index.get(d.as_str()).copied())
            .filter(|&j| out[j].is_none())
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
    let needs = needs_of(&groups, &job_of);
    let mut names: Vec<String> = groups
        .iter()
        .map(|members| format!("task-{}", id_part(&tasks[members[0]].id)))
        .collect();
    if groups.len() > limits.max_jobs {
        let position: Vec<usize> = {
            let mut p = vec![0usize; tasks.len()];
            for (k, &i) in order.iter().enumerate() {
                p[i] = k;
            }
            p
        };
        let (packed, packed_names) = pack(&groups, &needs, &position, limits.max_jobs);
        for (m, members) in packed.iter().enumerate() {
            for &i in members {
                job_of[i] = m;
            }
        }
        groups = packed;
        names = packed_names;
    }
    let needs = reduce(&needs_of(&groups, &job_of));
    let names = distinct_ignoring_case(names);
    let mut jobs: Vec<Job> = Vec::with_capacity(groups.len());
    for (g, (members, id)) in groups.iter().zip(names).enumerate() {
        let depth = needs[g]
            .iter()
            .map(|&n| jobs[n].depth + 1)
            .max()
            .unwrap_or(0);
        jobs.push(Job {
            id,
            tasks: members.iter().map(|&i| tasks[i].id.clone()).collect(),
            needs: needs[g].clone(),
            depth,
        });
    }
    let listed = |skipped: bool| -> Vec<(String, String)> {
        order
            .iter()
            .filter_map(|&i| match &out[i] {
                Some(Leave::Skipped(why)) if skipped => Some((tasks[i].id.clone(), why.clone())),
                Some(Leave::Out(why)) if !skipped => Some((tasks[i].id.clone(), why.clone())),
                _ => None,
            })
            .collect()
    };
    Ok(JobPlan {
        jobs,
        omitted: listed(false),
        skipped: listed(true),
    })
}

/// Indices of `tasks` in dependency order, document order among equals; `Err` for
/// an unknown dependency or a cycle. `wf run-task --outputs` restores the outputs
/// of upstream tasks in this order, so a later writer of a file wins.
pub fn dependency_order(tasks: &[impl Borrow<Task>]) -> Result<Vec<usize>, String> {
    let tasks: Vec<&Task> = tasks.iter().map(Borrow::borrow).collect();
    topological(&tasks).map(|(_, order)| order)
}

/// `names` with a `__N` suffix on each one whose lowercase an earlier one already
/// has: `task-T1`, `task-t1__2`.
fn distinct_ignoring_case(names: Vec<String>) -> Vec<String> {
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    names
        .into_iter()
        .map(|name| {
            let mut n = 1;
            let mut id = name.clone();
            while !seen.insert(id.to_ascii_lowercase()) {
                n += 1;
                id = format!("{name}__{n}");
            }
            id
        })
        .collect()
}

/// `groups` (in dependency order, `needs` between them) packed into at most
/// `max_jobs` jobs, with their names. The groups' depths are cut into bands of
/// consecutive depths, as few depths to a band as keeps the bands within `max_jobs`;
/// a band's groups that wait for one another (directly, inside the band) form one
/// component, and the components are spread over the band's share of jobs, largest
/// first onto the lightest. A job thus needs only jobs of earlier bands, and runs its
/// tasks in the plan's dependency order (`position`), so every dependency is waited
/// for or runs before it in the job; a plan of any depth fits.
fn pack(
    groups: &[Vec<usize>],
    needs: &[Vec<usize>],
    position: &[usize],
    max_jobs: usize,
) -> (Vec<Vec<usize>>, Vec<String>) {
    let max_jobs = max_jobs.max(1);
    // Groups are in dependency order, so one pass gives each its depth.
    let mut depth = vec![0usize; groups.len()];
    for g in 0..groups.len() {
        depth[g] = needs[g].iter().map(|&n| depth[n] + 1).max().unwrap_or(0);
    }
    let levels = depth.iter().max().map_or(0, |d| d + 1);
    let per_band = levels.div_ceil(max_jobs);
    let bands = levels.div_ceil(per_band);
    let share = (max_jobs / bands).max(1);
    let band = |g: usize| depth[g] / per_band;
    // Components of each band: union-find over the needs inside a band.
    let mut parent: Vec<usize> = (0..groups.len()).collect();
    for (g, need) in needs.iter().enumerate() {
        for &n in need {
            if band(n) == band(g) {
                let (a, b) = (root(&mut parent, g), root(&mut parent, n));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut components: Vec<Vec<Vec<usize>>> = vec![Vec::new(); bands];
    let mut component_of: HashMap<usize, usize> = HashMap::new();
    for g in 0..groups.len() {
        let r = root(&mut parent, g);
        let list = &mut components[band(g)];
        let c = *component_of.entry(r).or_insert_with(|| {
            list.push(Vec::new());
            list.len() - 1
        });
        list[c].push(g);
    }
    let mut jobs: Vec<Vec<usize>> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for (b, mut comps) in components.into_iter().enumerate() {
        let size = |c: &Vec<usize>| c.iter().map(|&g| groups[g].len()).sum::<usize>();
        // Largest first onto the lightest job; ties in plan order.
        comps.sort_by_key(|c| std::cmp::Reverse(size(c)));
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); share.min(comps.len())];
        let mut load = vec![0usize; buckets.len()];
        for c in &comps {
            let k = (0..buckets.len())
                .min_by_key(|&k| (load[k], k))
                .unwrap_or(0);
            load[k] += size(c);
            buckets[k].extend(c.iter().flat_map(|&g| groups[g].iter().copied()));
        }
        let (first, last) = (b * per_band + 1, ((b + 1) * per_band).min(levels));
        for (k, mut tasks) in buckets.into_iter().enumerate() {
            tasks.sort_by_key(|&i| position[i]);
            names.push(if first == last {
                format!("level-{first}-{}", k + 1)
            } else {
                format!("levels-{first}-{last}-{}", k + 1)
            });
            jobs.push(tasks);
        }
    }
    (jobs, names)
}

/// The representative of `g`'s set in a union-find forest, halving the path.
fn root(parent: &mut [usize], mut g: usize) -> usize {
    while parent[g] != g {
        parent[g] = parent[parent[g]];
        g = parent[g];
    }
    g
}

/// Each task's position by its id, and the tasks in dependency order, document order
/// among equals (Kahn's algorithm).
fn topological<'a>(tasks: &[&'a Task]) -> Result<(HashMap<&'a str, usize>, Vec<usize>), String> {
    let index: HashMap<&str, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
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
    Ok((index, order))
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

    const WIDE: Limits = Limits { max_jobs: 1000 };

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
        let omit = |t: &Task| (t.id == "A").then(|| Leave::Out("needs an agent".to_string()));
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
    fn a_skipped_task_stays_out_and_its_dependants_run_without_waiting_for_it() {
        let tasks = [
            t("A", &[]),
            t("B", &["A"]),
            t("C", &["B"]),
            t("D", &["A", "C"]),
        ];
        let skip = |t: &Task| (t.id == "B").then(|| Leave::Skipped("deferred".to_string()));
        let plan = plan_jobs(&tasks, &skip, WIDE).unwrap();
        assert_eq!(plan.skipped, vec![("B".into(), "deferred".into())]);
        assert!(plan.omitted.is_empty());
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_string()).collect::<Vec<_>>();
        assert_eq!(
            ids(&plan),
            vec![
                ("task-A".into(), s(&["A"]), s(&[])),
                ("task-C".into(), s(&["C"]), s(&[])),
                ("task-D".into(), s(&["D"]), s(&["task-A", "task-C"])),
            ]
        );
        assert_eq!(
            plan.jobs.iter().map(|j| j.depth).collect::<Vec<_>>(),
            [0, 0, 1]
        );
    }

    /// Every task in exactly one job; each dependency earlier in the same job, or in
    /// a job this one waits for (directly or not); needs point backwards.
    fn assert_sound(tasks: &[Task], plan: &JobPlan) {
        let mut place: HashMap<&str, (usize, usize)> = HashMap::new();
        for (j, job) in plan.jobs.iter().enumerate() {
            assert!(
                job.needs.iter().all(|&n| n < j),
                "{} needs a later job",
                job.id
            );
            for (k, t) in job.tasks.iter().enumerate() {
                assert!(place.insert(t, (j, k)).is_none(), "{t} twice");
            }
        }
        assert_eq!(place.len(), tasks.len());
        let waits = |from: usize, to: usize| {
            let mut stack = vec![from];
            let mut seen = vec![false; plan.jobs.len()];
            while let Some(j) = stack.pop() {
                if j == to {
                    return true;
                }
                if !std::mem::replace(&mut seen[j], true) {
                    stack.extend(&plan.jobs[j].needs);
                }
            }
            false
        };
        for t in tasks {
            for d in &t.deps {
                let ((a, ka), (b, kb)) = (place[t.id.as_str()], place[d.as_str()]);
                if a == b {
                    assert!(kb < ka, "{d} after {} in {}", t.id, plan.jobs[a].id);
                } else {
                    assert!(waits(a, b), "{} does not wait for {d}", t.id);
                }
            }
        }
    }

    #[test]
    fn a_plan_deeper_than_the_job_limit_is_packed_in_bands() {
        // A thousand layers of three, each task after two of the layer before: too
        // deep for one depth per job.
        let tasks: Vec<Task> = (0..3000)
            .map(|i| {
                let deps: Vec<String> = if i < 3 {
                    vec![]
                } else {
                    vec![
                        format!("T{}", i - 3),
                        format!("T{}", (i / 3 - 1) * 3 + (i + 1) % 3),
                    ]
                };
                let refs: Vec<&str> = deps.iter().map(String::as_str).collect();
                t(&format!("T{i}"), &refs)
            })
            .collect();
        for max_jobs in [1, 7, 200, 5000] {
            let plan = plan_jobs(&tasks, &|_| None, Limits { max_jobs }).unwrap();
            let carrying = plan.jobs.iter().filter(|j| !j.tasks.is_empty()).count();
            assert!(carrying <= max_jobs, "{carrying} jobs for {max_jobs}");
            assert_sound(&tasks, &plan);
        }
        let plan = plan_jobs(&tasks, &|_| None, Limits { max_jobs: 200 }).unwrap();
        assert_eq!(plan.jobs[0].id, "levels-1-5-1");
        // Layers that never meet spread over the band's jobs: 100 independent chains
        // of 30, in 10 jobs of 10 chains each.
        let chains: Vec<Task> = (0..3000)
            .map(|i| {
                if i < 100 {
                    t(&format!("C{i}"), &[])
                } else {
                    t(&format!("C{i}"), &[&format!("C{}", i - 100)])
                }
            })
            .collect();
        let plan = plan_jobs(&chains, &|_| None, Limits { max_jobs: 10 }).unwrap();
        assert_eq!(plan.jobs.len(), 10);
        assert!(plan
            .jobs
            .iter()
            .all(|j| j.tasks.len() == 300 && j.needs.is_empty()));
        assert_sound(&chains, &plan);
    }

    #[test]
    fn job_ids_are_safe_and_distinct() {
        assert_eq!(id_part("T1.2"), "T1_2e2");
        assert_eq!(id_part("T1_2e2"), "T1_5f2e2");
        assert_eq!(id_part("a-b"), "a-b");
        // Case apart.
        let tasks = [t("T1", &[]), t("t1", &[]), t("T1__2", &[])];
        let plan = plan_jobs(&tasks, &|_| None, WIDE).unwrap();
        let named: Vec<&str> = plan.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(named, ["task-T1", "task-t1__2", "task-T1_5f_5f2",]);
        let bad = [t("T1; rm -rf /", &[])];
        assert!(plan_jobs(&bad, &|_| None, WIDE)
            .unwrap_err()
            .contains("is not one a plan may hold"));
    }

    #[test]
    fn too_many_jobs_are_packed_by_depth_and_a_wide_fan_in_keeps_its_needs() {
        // 100 independent tasks, then one that needs them all.
        let mut tasks: Vec<Task> = (0..100).map(|i| t(&format!("W{i}"), &[])).collect();
        let all: Vec<String> = (0..100).map(|i| format!("W{i}")).collect();
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        tasks.push(t("Z", &refs));
        let plan = plan_jobs(&tasks, &|_| None, Limits { max_jobs: 10 }).unwrap();
        assert!(plan.jobs.len() <= 10, "{}", plan.jobs.len());
        let plan = plan_jobs(&tasks, &|_| None, Limits { max_jobs: 1000 }).unwrap();
        // Z needs all hundred, one depth below them (GitLab orders it by stage).
        let z = plan.jobs.last().unwrap();
        assert_eq!((z.id.as_str(), z.needs.len(), z.depth), ("task-Z", 100, 1));
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
        assert_eq!(plan_jobs(&chain, &|_| None, WIDE).unwrap().jobs.len(), 1);
        assert_eq!(
            plan_jobs(&chain, &|_| None, Limits { max_jobs: 1 })
                .unwrap()
                .jobs
                .len(),
            1
        );
    }
}
