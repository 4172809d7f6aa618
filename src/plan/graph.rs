//! Validation of the task graph: unique ids, known dependencies, no cycles.
//!
//! All checks are O(tasks + edges) with hash maps, and the cycle search is an
//! iterative depth-first search (an explicit stack), so a long chain neither takes
//! quadratic time nor overflows the call stack. Every problem is reported, each
//! as one line naming its task's line, so one `wf check` shows them all.

use super::outline::Node;
use super::{Format, PlanError, PlanWarning};

/// Each node's position, hashed by its id: the ids are the nodes' own, not copies,
/// which would add a copy of every id to a fresh import's peak.
pub(crate) struct IdIndex {
    at: hashbrown::HashTable<usize>,
    // foldhash, as the state's positions (`state::model`): the ids are the plan's.
    hasher: foldhash::fast::RandomState,
}

impl IdIndex {
    /// The position of every node; for an id written twice, the first's, and every
    /// later copy with the first's position, `(first, later)`, in document order.
    pub(crate) fn of(nodes: &[Node]) -> (IdIndex, Vec<(usize, usize)>) {
        let mut index = IdIndex {
            at: hashbrown::HashTable::with_capacity(nodes.len()),
            hasher: foldhash::fast::RandomState::default(),
        };
        let mut repeated = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            let hash = index.hash(node.id());
            let same = |&j: &usize| nodes.get(j).is_some_and(|n| n.id() == node.id());
            let hasher = &index.hasher;
            let rehash = |&j: &usize| {
                nodes
                    .get(j)
                    .map_or(0, |n| std::hash::BuildHasher::hash_one(hasher, n.id()))
            };
            match index.at.entry(hash, same, rehash) {
                hashbrown::hash_table::Entry::Occupied(first) => {
                    repeated.push((*first.get(), i));
                }
                hashbrown::hash_table::Entry::Vacant(slot) => {
                    slot.insert(i);
                }
            }
        }
        (index, repeated)
    }

    /// The position of the node of id `id` among `nodes`, the nodes it was made of.
    pub(crate) fn get(&self, nodes: &[Node], id: &str) -> Option<usize> {
        let same = |&j: &usize| nodes.get(j).is_some_and(|n| n.id() == id);
        self.at.find(self.hash(id), same).copied()
    }

    fn hash(&self, id: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, id)
    }
}

/// Most cycles one check lists: past them the search stops (a plan of thousands
/// of back edges would otherwise cost a walk of the stack for each).
const MOST_CYCLES: usize = 20;

/// Every dependency on an id that is not a task, in document order, each with the
/// id it is closest to when one stands out.
pub(crate) fn check_known_deps(nodes: &[Node], index: &IdIndex, format: Format) -> Vec<PlanError> {
    let field = format.reader().deps_written_in();
    let mut errors = Vec::new();
    for d in nodes {
        for dep in d.deps().filter(|dep| index.get(nodes, dep).is_none()) {
            let hint =
                closest_id(nodes, dep).map_or(String::new(), |id| format!("did you mean {id}? "));
            errors.push(PlanError::new(
                d.deps_line as usize,
                format!(
                    "task {} depends on {dep}, which is not a task in this plan; {hint}fix the id or remove it from {field}",
                    d.id()
                ),
            ));
        }
    }
    errors
}

/// The one id nearest to `unknown` (a typo's edit or two away, a third of its
/// length at most); none when none is that near or two are equally near.
fn closest_id<'a>(nodes: &'a [Node], unknown: &str) -> Option<&'a str> {
    let wanted: Vec<char> = unknown.chars().collect();
    let most = (wanted.len() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for id in nodes.iter().map(Node::id) {
        let far = crate::error::edit_distance(&wanted, &id.chars().collect::<Vec<_>>());
        match best {
            _ if far > most => {}
            Some((near, known)) if far == near && known != id => tied = true,
            Some((near, _)) if far >= near => {}
            _ => {
                best = Some((far, id));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, id)| id)
}

/// Every dependency cycle, each once: one for each edge that closes a loop in a
/// depth-first walk (so no two name the same loop), at most [`MOST_CYCLES`].
pub(crate) fn check_acyclic(nodes: &[Node], index: &IdIndex, format: Format) -> Vec<PlanError> {
    let adj = Adjacency::of(
        nodes
            .iter()
            .map(|d| d.deps().filter_map(|dep| index.get(nodes, dep))),
    );
    let cycles = find_cycles(&adj, MOST_CYCLES);
    let mut errors: Vec<PlanError> = cycles
        .iter()
        .map(|cycle| cycle_error(nodes, cycle, format))
        .collect();
    if cycles.len() == MOST_CYCLES {
        if let Some(last) = errors.last_mut() {
            last.message.push_str(&format!(
                " (the first {MOST_CYCLES} cycles are listed; there may be more)"
            ));
        }
    }
    errors
}

/// The message for one cycle: its tasks from the one written first, on its line.
fn cycle_error(nodes: &[Node], cycle: &[usize], format: Format) -> PlanError {
    // Start the loop at the task written first, so the message is stable.
    let start = cycle
        .iter()
        .enumerate()
        .min_by_key(|(_, n)| **n)
        .map_or(0, |(i, _)| i);
    let mut ids: Vec<&str> = cycle
        .iter()
        .cycle()
        .skip(start)
        .take(cycle.len())
        .filter_map(|n| nodes.get(*n).map(Node::id))
        .collect();
    let first = ids.first().copied().unwrap_or("");
    ids.push(first);
    // A long loop is shown by its ends, so the message stays one readable line.
    let size = cycle.len();
    if ids.len() > 12 {
        let tail = ids.split_off(ids.len() - 5);
        ids.truncate(6);
        ids.push("…");
        ids.extend(tail);
    }
    let count = if size > 11 {
        format!(" ({size} tasks)")
    } else {
        String::new()
    };
    let line = cycle
        .get(start)
        .and_then(|n| nodes.get(*n))
        .map_or(1, |d| d.deps_line as usize);
    let note = format.reader().cycle_note();
    PlanError::new(
        line,
        format!(
            "dependency cycle {}{count} (each task depends on the next){note}; remove one of these dependencies",
            ids.join(" → ")
        ),
    )
}

/// spec-kit's Dependencies-section edges, each as its line, the position of the
/// task that waits and the id it waits for (`speckit::resolve`).
pub(crate) type SectionDeps = Vec<(usize, usize, String)>;

/// Adds each Dependencies-section edge (in line order) unless it would close a
/// cycle — the dependency already waits, through any path, for the dependent — in
/// which case the edge is dropped with a warning naming its line.
pub(crate) fn add_section_deps(
    nodes: &mut [Node],
    index: &IdIndex,
    mut edges: SectionDeps,
    warnings: &mut Vec<PlanWarning>,
) {
    edges.sort();
    for (line, i, dep) in edges {
        let Some(j) = index.get(nodes, &dep) else {
            continue;
        };
        let (id, known) = match nodes.get(i) {
            Some(d) => (d.id().to_owned(), d.deps().any(|x| x == dep)),
            None => continue,
        };
        if known {
            continue;
        }
        if reaches(nodes, index, j, i) {
            warnings.push(PlanWarning::new(
                line,
                format!(
                    "this line makes {id} wait for {dep}, but {dep} already waits for {id} (directly, through other dependencies or phase order), so the edge would close a cycle and is ignored; fix the line or the task order"
                ),
            ));
            continue;
        }
        if let Some(d) = nodes.get_mut(i) {
            d.add_deps([dep.as_str()]);
        }
    }
}

/// Whether `from` depends on `to`, directly or through other tasks.
fn reaches(nodes: &[Node], index: &IdIndex, from: usize, to: usize) -> bool {
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        match seen.get_mut(n) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        if let Some(d) = nodes.get(n) {
            stack.extend(d.deps().filter_map(|x| index.get(nodes, x)));
        }
    }
    false
}

/// Each node's edges, all in one array: not a `Vec` and an allocation a node.
struct Adjacency {
    /// Where each node's edges start in `targets`, and where the last one's end.
    starts: Vec<usize>,
    targets: Vec<usize>,
}

impl Adjacency {
    fn of<E: Iterator<Item = usize>>(nodes: impl ExactSizeIterator<Item = E>) -> Adjacency {
        let mut starts = Vec::with_capacity(nodes.len() + 1);
        let mut targets = Vec::with_capacity(nodes.len());
        for edges in nodes {
            starts.push(targets.len());
            targets.extend(edges);
        }
        starts.push(targets.len());
        Adjacency { starts, targets }
    }

    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    fn edges(&self, node: usize) -> &[usize] {
        match (self.starts.get(node), self.starts.get(node + 1)) {
            (Some(&from), Some(&to)) => self.targets.get(from..to).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// The loops a depth-first walk closes, one per edge back to a task still on the
/// walk's stack, each as node indices depending on the next; at most `most`.
fn find_cycles(adj: &Adjacency, most: usize) -> Vec<Vec<usize>> {
    const WHITE: u8 = 0;
    const GREY: u8 = 1;
    const BLACK: u8 = 2;
    let mut color = vec![WHITE; adj.len()];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut cycles = Vec::new();
    for root in 0..adj.len() {
        if color.get(root) != Some(&WHITE) {
            continue;
        }
        if let Some(c) = color.get_mut(root) {
            *c = GREY;
        }
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(dep) = adj.edges(node).get(next).copied() {
                top.1 += 1;
                match color.get(dep).copied() {
                    Some(WHITE) => {
                        if let Some(c) = color.get_mut(dep) {
                            *c = GREY;
                        }
                        stack.push((dep, 0));
                    }
                    Some(GREY) => {
                        let from = stack.iter().rposition(|(n, _)| *n == dep).unwrap_or(0);
                        let cycle = stack.get(from..).unwrap_or(&[]);
                        cycles.push(cycle.iter().map(|(n, _)| *n).collect());
                        if cycles.len() >= most {
                            return cycles;
                        }
                    }
                    _ => {}
                }
            } else {
                if let Some(c) = color.get_mut(node) {
                    *c = BLACK;
                }
                stack.pop();
            }
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find_cycle(adj: &[Vec<usize>]) -> Option<Vec<usize>> {
        find_cycles(adj).into_iter().next()
    }

    fn find_cycles(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
        super::find_cycles(&Adjacency::of(adj.iter().map(|e| e.iter().copied())), 20)
    }

    #[test]
    fn finds_every_loop_once() {
        // 0 → 1 → 0, and 2 → 3 → 4 → 2 with 3 → 2 too: three loops, each once.
        let adj = [vec![1], vec![0], vec![3], vec![4, 2], vec![2]];
        assert_eq!(find_cycles(&adj), [vec![0, 1], vec![2, 3, 4], vec![2, 3]]);
        assert_eq!(
            super::find_cycles(&Adjacency::of(adj.iter().map(|e| e.iter().copied())), 2).len(),
            2
        );
    }

    #[test]
    fn finds_cycles_and_self_loops() {
        assert_eq!(find_cycle(&[vec![1], vec![2], vec![]]), None);
        assert_eq!(
            find_cycle(&[vec![1], vec![2], vec![0]]),
            Some(vec![0, 1, 2])
        );
        assert_eq!(find_cycle(&[vec![0]]), Some(vec![0]));
        assert_eq!(find_cycle(&[vec![], vec![2], vec![1]]), Some(vec![1, 2]));
        assert_eq!(
            find_cycle(&[vec![1, 2], vec![], vec![3], vec![2]]),
            Some(vec![2, 3])
        );
    }

    fn node(id: &str, line: usize, deps: &[&str]) -> Node {
        let task = crate::state::model::Task {
            id: id.into(),
            line,
            deps: deps.iter().map(|d| (*d).to_owned()).collect(),
            ..Default::default()
        };
        let draft = super::super::Draft {
            task,
            deps_line: line,
            group: 0,
        };
        draft.split().0
    }

    #[test]
    fn an_id_index_finds_each_id_at_its_first_node_and_names_every_repeat() {
        let nodes = [
            node("A", 1, &[]),
            node("B", 2, &["A"]),
            node("A", 3, &[]),
            node("B", 4, &[]),
        ];
        let (index, repeated) = IdIndex::of(&nodes);
        assert_eq!(repeated, [(0, 2), (1, 3)]);
        assert_eq!(index.get(&nodes, "A"), Some(0));
        assert_eq!(index.get(&nodes, "B"), Some(1));
        assert_eq!(index.get(&nodes, "C"), None);
        assert!(IdIndex::of(&nodes[..2]).1.is_empty());
    }

    #[test]
    fn a_node_adds_only_the_deps_it_does_not_have_in_order() {
        let mut n = node("T3", 3, &["T1"]);
        n.add_deps(["T2", "T1", "T0", "T2"]);
        assert_eq!(n.id(), "T3");
        assert_eq!(n.deps(), ["T1", "T2", "T0"]);
        n.add_deps([]);
        assert_eq!(n.deps(), ["T1", "T2", "T0"]);
    }

    #[test]
    fn deep_chain_does_not_overflow() {
        let n = 200_000;
        let adj: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        assert_eq!(find_cycle(&adj), None);
        let mut adj = adj;
        adj[n - 1] = vec![0];
        assert_eq!(find_cycle(&adj).map(|c| c.len()), Some(n));
    }
}
