//! Merging the constraint sets several models produced in parallel (docs/constraints.md
//! "Merge"), with every item a cap or the intersection left out reported.
//!
//! - hard: union, deduplicated by id (the first occurrence wins), at most 7;
//! - soft: union deduplicated by description, ranked by how many *sets* contain that
//!   description (ties keep first-appearance order), at most 7;
//! - openQuestions: deduplicated union, at most 5;
//! - successCriteria: intersection of the sets that list any (an empty list does not
//!   veto), in the first such set's order, at most 7.
//!
//! Pure: no I/O, no ids invented. A silent cut would lose work; here whatever does not
//! make it is returned beside the result so the caller can say so.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::state::model::{Constraint, Constraints};

pub const MAX_HARD: usize = 7;
pub const MAX_SOFT: usize = 7;
pub const MAX_QUESTIONS: usize = 5;
pub const MAX_CRITERIA: usize = 7;

/// One model's analysis output, or the workflow's current constraints.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConstraintSet {
    #[serde(default)]
    pub hard: Vec<Constraint>,
    #[serde(default)]
    pub soft: Vec<Constraint>,
    #[serde(default)]
    pub open_questions: Vec<String>,
    #[serde(default)]
    pub success_criteria: Vec<String>,
}

impl ConstraintSet {
    /// The four lists of the state's constraints (verification records stay behind).
    pub fn from_state(c: &Constraints) -> ConstraintSet {
        ConstraintSet {
            hard: c.hard.clone(),
            soft: c.soft.clone(),
            open_questions: c.open_questions.clone(),
            success_criteria: c.success_criteria.clone(),
        }
    }
}

/// The merged set and everything that was left out of it, and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MergeResult {
    pub merged: ConstraintSet,
    /// Distinct hard constraints past the cap of 7.
    pub dropped_hard: Vec<Constraint>,
    /// Distinct soft constraints ranked past the cap of 7.
    pub dropped_soft: Vec<Constraint>,
    /// Distinct open questions past the cap of 5.
    pub dropped_questions: Vec<String>,
    /// Criteria every listing set shares, past the cap of 7.
    pub dropped_criteria: Vec<String>,
    /// Criteria not shared by every set that lists criteria (the intersection's cut).
    pub unshared_criteria: Vec<String>,
    /// Hard constraints dropped as duplicates of an earlier id although their
    /// description differs: two models used the same id for different things.
    pub id_conflicts: Vec<Constraint>,
}

impl MergeResult {
    pub fn dropped_anything(&self) -> bool {
        !(self.dropped_hard.is_empty()
            && self.dropped_soft.is_empty()
            && self.dropped_questions.is_empty()
            && self.dropped_criteria.is_empty())
    }
}

pub fn merge(sets: &[ConstraintSet]) -> MergeResult {
    let mut result = MergeResult::default();

    // hard: first occurrence of each id wins.
    let mut by_id: HashMap<&str, &Constraint> = HashMap::new();
    let mut hard = Vec::new();
    for c in sets.iter().flat_map(|s| &s.hard) {
        if let Some(kept) = by_id.get(c.id.as_str()) {
            if kept.description != c.description {
                result.id_conflicts.push(c.clone());
            }
        } else {
            by_id.insert(&c.id, c);
            hard.push(c.clone());
        }
    }
    (result.merged.hard, result.dropped_hard) = cap(hard, MAX_HARD);

    // soft: count sets, not occurrences, so one model repeating itself is one vote.
    let mut order: Vec<&Constraint> = Vec::new();
    let mut votes: HashMap<&str, usize> = HashMap::new();
    for set in sets {
        let mut seen_here = HashSet::new();
        for c in &set.soft {
            if !seen_here.insert(c.description.as_str()) {
                continue;
            }
            let n = votes.entry(&c.description).or_insert(0);
            if *n == 0 {
                order.push(c);
            }
            *n += 1;
        }
    }
    let mut ranked: Vec<(usize, &Constraint)> = order.into_iter().enumerate().collect();
    // sort_by_key is stable, and the index breaks ties anyway: first appearance first.
    ranked.sort_by_key(|(i, c)| (std::cmp::Reverse(votes[c.description.as_str()]), *i));
    let soft = ranked.into_iter().map(|(_, c)| c.clone()).collect();
    (result.merged.soft, result.dropped_soft) = cap(soft, MAX_SOFT);

    let questions = dedupe(sets.iter().flat_map(|s| &s.open_questions));
    (result.merged.open_questions, result.dropped_questions) = cap(questions, MAX_QUESTIONS);

    let listing: Vec<&Vec<String>> = sets
        .iter()
        .map(|s| &s.success_criteria)
        .filter(|l| !l.is_empty())
        .collect();
    let all = dedupe(listing.iter().flat_map(|l| l.iter()));
    let (shared, unshared): (Vec<String>, Vec<String>) = all
        .into_iter()
        .partition(|c| listing.iter().all(|l| l.contains(c)));
    result.unshared_criteria = unshared;
    (result.merged.success_criteria, result.dropped_criteria) = cap(shared, MAX_CRITERIA);
    result
}

fn dedupe<'a>(items: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut seen = HashSet::new();
    items.filter(|s| seen.insert(s.as_str())).cloned().collect()
}

/// The first `max` items, and the rest.
fn cap<T>(mut items: Vec<T>, max: usize) -> (Vec<T>, Vec<T>) {
    let rest = items.split_off(items.len().min(max));
    (items, rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Map;

    fn c(id: &str, desc: &str, kind: &str) -> Constraint {
        Constraint {
            id: id.into(),
            description: desc.into(),
            kind: kind.into(),
            category: "requirement".into(),
            source_model: "codex".into(),
            phase: "analysis".into(),
            verified: None,
            verify_cmd: None,
            extra: Map::new(),
        }
    }

    fn strs(items: &[&str]) -> Vec<String> {
        items.iter().map(std::string::ToString::to_string).collect()
    }

    fn set(hard: &[&str], soft: &[&str], q: &[&str], sc: &[&str]) -> ConstraintSet {
        ConstraintSet {
            hard: hard
                .iter()
                .map(|id| c(id, &format!("h {id}"), "hard"))
                .collect(),
            soft: soft
                .iter()
                .enumerate()
                .map(|(i, d)| c(&format!("S{i}"), d, "soft"))
                .collect(),
            open_questions: strs(q),
            success_criteria: strs(sc),
        }
    }

    fn ids(cs: &[Constraint]) -> Vec<&str> {
        cs.iter().map(|c| c.id.as_str()).collect()
    }

    fn descs(cs: &[Constraint]) -> Vec<&str> {
        cs.iter().map(|c| c.description.as_str()).collect()
    }

    #[test]
    fn hard_is_a_union_by_id_first_wins_capped_at_seven() {
        let mut a = set(&["C1", "C2", "C3", "C4"], &[], &[], &[]);
        let b = set(&["C2", "C5", "C6", "C7", "C8", "C9"], &[], &[], &[]);
        a.hard[1].source_model = "gemini".into();
        let r = merge(&[a, b]);
        assert_eq!(
            ids(&r.merged.hard),
            ["C1", "C2", "C3", "C4", "C5", "C6", "C7"]
        );
        assert_eq!(r.merged.hard[1].source_model, "gemini");
        assert_eq!(ids(&r.dropped_hard), ["C8", "C9"]);
        assert!(r.id_conflicts.is_empty());
    }

    #[test]
    fn same_id_with_another_meaning_is_reported() {
        let a = set(&["C1"], &[], &[], &[]);
        let mut b = set(&["C1"], &[], &[], &[]);
        b.hard[0].description = "something else".into();
        let r = merge(&[a, b]);
        assert_eq!(r.merged.hard.len(), 1);
        assert_eq!(descs(&r.id_conflicts), ["something else"]);
    }

    #[test]
    fn soft_is_ranked_by_how_many_sets_say_it() {
        let a = set(&[], &["x", "y", "y", "y"], &[], &[]);
        let b = set(&[], &["z", "y"], &[], &[]);
        let c_ = set(&[], &["z", "w"], &[], &[]);
        let r = merge(&[a, b, c_]);
        // y: 2 sets (repeats in one set count once), z: 2 sets, x and w: 1.
        // Ties keep first appearance: y before z, x before w.
        assert_eq!(descs(&r.merged.soft), ["y", "z", "x", "w"]);
    }

    #[test]
    fn soft_cap_reports_the_lowest_ranked() {
        let many: Vec<String> = (0..9).map(|i| format!("s{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let r = merge(&[set(&[], &many, &[], &[]), set(&[], &["s8"], &[], &[])]);
        assert_eq!(r.merged.soft[0].description, "s8");
        assert_eq!(descs(&r.dropped_soft), ["s6", "s7"]);
    }

    #[test]
    fn questions_are_a_deduplicated_union_capped_at_five() {
        let r = merge(&[
            set(&[], &[], &["a", "b", "a"], &[]),
            set(&[], &[], &["c", "b", "d", "e", "f"], &[]),
        ]);
        assert_eq!(r.merged.open_questions, strs(&["a", "b", "c", "d", "e"]));
        assert_eq!(r.dropped_questions, strs(&["f"]));
    }

    #[test]
    fn criteria_are_the_intersection_of_sets_that_list_any() {
        let r = merge(&[
            set(&[], &[], &[], &["types pass", "tests pass", "fast"]),
            set(&[], &[], &[], &[]),
            set(&[], &[], &[], &["tests pass", "types pass", "pretty"]),
        ]);
        assert_eq!(
            r.merged.success_criteria,
            strs(&["types pass", "tests pass"])
        );
        assert_eq!(r.unshared_criteria, strs(&["fast", "pretty"]));
        assert!(r.dropped_criteria.is_empty());
    }

    #[test]
    fn nothing_in_nothing_out() {
        assert_eq!(merge(&[]), MergeResult::default());
        assert!(!merge(&[set(&["C1"], &["s"], &["q"], &["k"])]).dropped_anything());
    }

    /// A set as a model would write it: ids from a small pool so sets overlap,
    /// descriptions derived from the id so one id means one thing.
    fn arb_set() -> impl Strategy<Value = ConstraintSet> {
        let pool = || prop::collection::vec(0u8..12, 0..10);
        (pool(), pool(), pool(), pool()).prop_map(|(h, s, q, k)| {
            let mut seen = HashSet::new();
            let hard = h
                .into_iter()
                .filter(|i| seen.insert(*i))
                .map(|i| c(&format!("C{i}"), &format!("hard {i}"), "hard"))
                .collect();
            let soft = s
                .into_iter()
                .map(|i| c(&format!("S{i}"), &format!("soft {i}"), "soft"))
                .collect();
            ConstraintSet {
                hard,
                soft,
                open_questions: q.into_iter().map(|i| format!("q{i}")).collect(),
                success_criteria: k.into_iter().map(|i| format!("k{i}")).collect(),
            }
        })
    }

    fn sorted(mut v: Vec<String>) -> Vec<String> {
        v.sort();
        v.dedup();
        v
    }

    proptest! {
        #[test]
        fn caps_hold(sets in prop::collection::vec(arb_set(), 0..5)) {
            let r = merge(&sets);
            prop_assert!(r.merged.hard.len() <= MAX_HARD);
            prop_assert!(r.merged.soft.len() <= MAX_SOFT);
            prop_assert!(r.merged.open_questions.len() <= MAX_QUESTIONS);
            prop_assert!(r.merged.success_criteria.len() <= MAX_CRITERIA);
            // No duplicates survive.
            prop_assert_eq!(sorted(ids(&r.merged.hard).iter().map(std::string::ToString::to_string).collect()).len(), r.merged.hard.len());
            prop_assert_eq!(sorted(r.merged.open_questions.clone()).len(), r.merged.open_questions.len());
        }

        #[test]
        fn merging_a_merged_set_with_itself_changes_nothing(s in arb_set()) {
            let once = merge(std::slice::from_ref(&s)).merged;
            let twice = merge(&[once.clone(), once.clone()]).merged;
            prop_assert_eq!(&twice, &once);
            let again = merge(std::slice::from_ref(&once)).merged;
            prop_assert_eq!(again, once);
        }

        #[test]
        fn set_order_does_not_change_hard_ids_or_questions(
            sets in prop::collection::vec(arb_set(), 1..5),
        ) {
            let mut reversed = sets.clone();
            reversed.reverse();
            let (a, b) = (merge(&sets), merge(&reversed));
            let all_ids = |r: &MergeResult| sorted(
                r.merged.hard.iter().chain(&r.dropped_hard).map(|c| c.id.clone()).collect());
            let all_q = |r: &MergeResult| sorted(
                r.merged.open_questions.iter().chain(&r.dropped_questions).cloned().collect());
            prop_assert_eq!(all_ids(&a), all_ids(&b));
            prop_assert_eq!(all_q(&a), all_q(&b));
            // Under the caps, the kept content itself is the same set.
            let kept_ids = |r: &MergeResult| sorted(ids(&r.merged.hard).iter().map(std::string::ToString::to_string).collect());
            if a.dropped_hard.is_empty() {
                prop_assert_eq!(kept_ids(&a), kept_ids(&b));
            }
            if a.dropped_questions.is_empty() {
                prop_assert_eq!(sorted(a.merged.open_questions.clone()), sorted(b.merged.open_questions.clone()));
            }
            if a.dropped_criteria.is_empty() {
                prop_assert_eq!(sorted(a.merged.success_criteria.clone()), sorted(b.merged.success_criteria.clone()));
            }
        }

        #[test]
        fn kept_plus_dropped_is_every_distinct_input(
            sets in prop::collection::vec(arb_set(), 0..5),
        ) {
            let r = merge(&sets);
            let input_ids = sorted(sets.iter().flat_map(|s| &s.hard).map(|c| c.id.clone()).collect());
            let out_ids: Vec<String> = r.merged.hard.iter().chain(&r.dropped_hard).map(|c| c.id.clone()).collect();
            prop_assert_eq!(out_ids.len(), input_ids.len());
            prop_assert_eq!(sorted(out_ids), input_ids);

            let input_soft = sorted(sets.iter().flat_map(|s| &s.soft).map(|c| c.description.clone()).collect());
            let out_soft: Vec<String> = r.merged.soft.iter().chain(&r.dropped_soft).map(|c| c.description.clone()).collect();
            prop_assert_eq!(out_soft.len(), input_soft.len());
            prop_assert_eq!(sorted(out_soft), input_soft);

            let input_q = sorted(sets.iter().flat_map(|s| s.open_questions.clone()).collect());
            let out_q: Vec<String> = r.merged.open_questions.iter().chain(&r.dropped_questions).cloned().collect();
            prop_assert_eq!(out_q.len(), input_q.len());
            prop_assert_eq!(sorted(out_q), input_q);

            let input_k = sorted(sets.iter().flat_map(|s| s.success_criteria.clone()).collect());
            let out_k: Vec<String> = r.merged.success_criteria.iter()
                .chain(&r.dropped_criteria).chain(&r.unshared_criteria).cloned().collect();
            prop_assert_eq!(out_k.len(), input_k.len());
            prop_assert_eq!(sorted(out_k), input_k);
        }

        #[test]
        fn soft_is_sorted_by_votes(sets in prop::collection::vec(arb_set(), 0..5)) {
            let r = merge(&sets);
            let votes = |d: &str| sets.iter().filter(|s| s.soft.iter().any(|c| c.description == d)).count();
            let ranked: Vec<usize> = r.merged.soft.iter().chain(&r.dropped_soft).map(|c| votes(&c.description)).collect();
            prop_assert!(ranked.windows(2).all(|w| w[0] >= w[1]), "{:?}", ranked);
        }
    }
}
