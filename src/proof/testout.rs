//! Which tests passed and which failed, read from what a test runner printed — so
//! a phase's checkpoint can name the tests that passed at the phase's start and
//! fail now (docs/proof.md "Checkpoints").
//!
//! Read line by line, in the forms the runners wf knows print: TAP (`ok 1 - name`,
//! `not ok 2 - name`: `node --test`, and any script that prints it), cargo (`test
//! name ... ok`), go (`--- PASS: TestName`), pytest (`path::test PASSED`, `FAILED
//! path::test`), jest and vitest (`✓ name`, `✕ name`). A test seen to fail anywhere
//! has failed. Output in none of these forms gives no tests: the checkpoint then
//! compares the command's exit alone.

use std::collections::BTreeMap;

/// Each test's name and whether it passed, sorted by name.
pub fn results(output: &str) -> BTreeMap<String, bool> {
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    for line in output.lines() {
        if let Some((name, passed)) = one(line.trim_end()) {
            let name = name.trim();
            if name.is_empty() || name.len() > 512 {
                continue;
            }
            let seen = out.entry(name.to_string()).or_insert(passed);
            *seen &= passed;
        }
    }
    out
}

fn one(line: &str) -> Option<(&str, bool)> {
    let t = line.trim_start();
    // TAP: `ok 3 - name`, `not ok 3 - name # comment`; a skip or todo is no result.
    for (prefix, passed) in [("not ok ", false), ("ok ", true)] {
        if let Some(rest) = t.strip_prefix(prefix) {
            let rest = rest
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start();
            let rest = rest.strip_prefix("- ").unwrap_or(rest);
            let (name, directive) = rest.split_once(" # ").unwrap_or((rest, ""));
            let directive = directive.to_ascii_lowercase();
            if directive.starts_with("skip") || directive.starts_with("todo") {
                return None;
            }
            return Some((name, passed));
        }
    }
    // cargo: `test module::name ... ok` / `... FAILED` (`ignored` is no result).
    if let Some(rest) = t.strip_prefix("test ") {
        if let Some(name) = rest.strip_suffix(" ... ok") {
            return Some((name, true));
        }
        if let Some(name) = rest.strip_suffix(" ... FAILED") {
            return Some((name, false));
        }
    }
    // go: `--- PASS: TestX (0.00s)`.
    for (prefix, passed) in [("--- PASS: ", true), ("--- FAIL: ", false)] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return Some((rest.split(" (").next().unwrap_or(rest), passed));
        }
    }
    // pytest -v: `tests/test_a.py::test_one PASSED [ 50%]`; the summary's
    // `FAILED tests/test_a.py::test_two - AssertionError`.
    if let Some(rest) = t
        .strip_prefix("FAILED ")
        .or_else(|| t.strip_prefix("ERROR "))
    {
        let name = rest.split(" - ").next().unwrap_or(rest);
        if name.contains("::") {
            return Some((name, false));
        }
    }
    if t.contains("::") {
        for (word, passed) in [(" PASSED", true), (" FAILED", false), (" ERROR", false)] {
            if let Some(at) = t.find(word) {
                return Some((&t[..at], passed));
            }
        }
    }
    // jest / vitest: `✓ name (3 ms)`, `✕ name`, `× name`.
    for (mark, passed) in [("✓ ", true), ("√ ", true), ("✕ ", false), ("× ", false)] {
        if let Some(rest) = t.strip_prefix(mark) {
            let name = rest.rsplit_once(" (").map_or(rest, |(n, _)| n);
            return Some((name, passed));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passed(output: &str) -> Vec<(String, bool)> {
        results(output).into_iter().collect()
    }

    #[test]
    fn tap_as_node_and_scripts_print_it() {
        let out = "TAP version 13\n# Subtest: adds\nok 1 - adds\n  ---\nnot ok 2 - subtracts\nok 3 - later # SKIP not yet\n  ok 1 - nested\n";
        assert_eq!(
            passed(out),
            [
                ("adds".to_string(), true),
                ("nested".to_string(), true),
                ("subtracts".to_string(), false)
            ]
        );
    }

    #[test]
    fn cargo_go_pytest_and_jest() {
        let out = "test calc::adds ... ok\ntest calc::subs ... FAILED\ntest calc::slow ... ignored\n\
                   --- PASS: TestAdd (0.00s)\n--- FAIL: TestSub (0.01s)\n\
                   tests/test_a.py::test_one PASSED [ 50%]\ntests/test_a.py::test_two FAILED [100%]\n\
                   FAILED tests/test_a.py::test_two - assert 1 == 2\n\
                   ✓ renders (3 ms)\n✕ clicks (5 ms)\n";
        assert_eq!(
            passed(out),
            [
                ("TestAdd".to_string(), true),
                ("TestSub".to_string(), false),
                ("calc::adds".to_string(), true),
                ("calc::subs".to_string(), false),
                ("clicks".to_string(), false),
                ("renders".to_string(), true),
                ("tests/test_a.py::test_one".to_string(), true),
                ("tests/test_a.py::test_two".to_string(), false),
            ]
        );
    }

    #[test]
    fn a_test_that_fails_anywhere_failed_and_prose_is_no_test() {
        assert_eq!(
            passed("ok 1 - a\nnot ok 1 - a\n"),
            [("a".to_string(), false)]
        );
        assert!(results("all good\n3 passed\nok\n").is_empty());
    }
}
