//! The README and docs/ stay true: the README's example is run as written, and every
//! link between the repository's Markdown files leads somewhere.
//!
//! The example's transcript is the output of its own `$ ` lines, run in order in a
//! fresh project with the plan above it. When wf's output changes on purpose,
//! `WF_UPDATE_README=1 cargo test --test integration docs::` writes the new output
//! into README.md; without it a difference fails the test.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::test::Test;

const PLAN_START: &str = "<!-- example-plan: tasks.md -->\n```markdown\n";
const RUN_START: &str = "<!-- example-run -->\n```text\n";
const BLOCK_END: &str = "```\n";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The text of the fenced block that follows `start` in `text`, and where it lies.
fn block<'a>(text: &'a str, start: &str) -> (usize, &'a str) {
    let at = text
        .find(start)
        .unwrap_or_else(|| panic!("README.md lacks the marker {start:?}"))
        + start.len();
    let len = text[at..]
        .find(BLOCK_END)
        .expect("the block's closing fence");
    (at, &text[at..at + len])
}

/// Durations differ from run to run: `0.0s` and `1.3s` compare equal.
fn masked(text: &str) -> String {
    regex::Regex::new(r"\b\d+\.\d+s\b")
        .unwrap()
        .replace_all(text, "N.Ns")
        .into_owned()
}

/// Runs each `$ ` line of `transcript` as a person would type it, in `t`'s project
/// with the built `wf` first on PATH, and writes the transcript they make: each
/// command, then its output (stdout and stderr as they interleave). The temp dirs
/// read as the user's would: the project `~/hello`, the home `~/.claude/workflows`.
fn replay(t: &Test, transcript: &str) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_wf")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let id = wf::project::path_id(&t.project);
    let mut out = String::new();
    for line in transcript.lines().filter_map(|l| l.strip_prefix("$ ")) {
        out.push_str(&format!("$ {line}\n"));
        let mut cmd = t.program("sh");
        cmd.arg("-c")
            .arg(format!("exec 2>&1; {line}"))
            .env("PATH", &path)
            .stdin(Stdio::null());
        let done = cmd.output().expect("run sh");
        out.push_str(&String::from_utf8_lossy(&done.stdout));
    }
    out.replace(
        &format!("{}/{id}", t.home.display()),
        "~/.claude/workflows/<id>",
    )
    .replace(&t.project.display().to_string(), "~/hello")
}

#[test]
fn the_readme_example_is_what_wf_prints() {
    let readme_path = repo().join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md");
    let (_, plan) = block(&readme, PLAN_START);
    let (at, shown) = block(&readme, RUN_START);
    assert!(
        plan.lines().count() <= 12,
        "the README's plan is meant to be read at a glance"
    );
    let t = Test::new();
    t.write("tasks.md", plan);
    let actual = replay(&t, shown);
    if std::env::var_os("WF_UPDATE_README").is_some() {
        let updated = format!("{}{actual}{}", &readme[..at], &readme[at + shown.len()..]);
        std::fs::write(&readme_path, updated).expect("write README.md");
        return;
    }
    assert_eq!(
        masked(shown),
        masked(&actual),
        "README.md's example is not what wf prints; if the change is meant, run \
         WF_UPDATE_README=1 cargo test --test integration docs:: and read the diff"
    );
    // The story the README tells: a failure, a fix and a retry, a completion.
    assert!(actual.contains("✗ T1"), "{actual}");
    assert!(actual.contains("Retrying T1."), "{actual}");
    assert!(actual.contains("Completed: 2/2 tasks done."), "{actual}");
}

/// GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped,
/// spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// A line that opens or closes a fenced code block: three backticks or more, then an
/// info string with no backtick (CommonMark's rule: "```` ```json ```` block" at the
/// start of a line is inline code, not a fence).
fn is_fence(line: &str) -> bool {
    let rest = line.trim_start().trim_start_matches('`');
    line.trim_start().starts_with("```") && !rest.contains('`')
}

/// The anchors of `text`'s headings (outside fenced code).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if is_fence(line) {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// The relative link targets in `text` (outside fenced code): `[x](target)`.
fn links(text: &str) -> Vec<String> {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut fenced = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if is_fence(line) {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for c in link.captures_iter(line) {
            let target = &c[1];
            if !target.contains("://") && !target.starts_with("mailto:") {
                found.push(target.to_string());
            }
        }
    }
    found
}

#[test]
fn every_docs_link_leads_somewhere() {
    let mut pages: Vec<PathBuf> = vec![
        repo().join("README.md"),
        repo().join("RELIABILITY.md"),
        repo().join("BENCHMARKS.md"),
    ];
    for entry in std::fs::read_dir(repo().join("docs")).expect("docs/") {
        let path = entry.expect("docs entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages.iter().filter(|p| p.exists()) {
        let text = std::fs::read_to_string(page).expect("read page");
        for target in links(&text) {
            checked += 1;
            let (file, frag) = target.split_once('#').unwrap_or((&target, ""));
            let dest = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            let name = page.strip_prefix(repo()).unwrap().display().to_string();
            if !dest.exists() {
                broken.push(format!("{name}: {target}: no such file"));
                continue;
            }
            let markdown = dest.extension().is_some_and(|e| e == "md");
            if !frag.is_empty() && markdown {
                let there = std::fs::read_to_string(&dest).expect("read link target");
                if !anchors(&there).iter().any(|a| a == frag) {
                    broken.push(format!("{name}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} links found: is the scan broken?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_scan_sees_anchors_and_links_as_github_does() {
    assert_eq!(anchor(" Agents and MCP"), "agents-and-mcp");
    assert_eq!(anchor(" `wf check PLAN`"), "wf-check-plan");
    assert_eq!(
        anchor(" Proof: what passed, and whether it still does"),
        "proof-what-passed-and-whether-it-still-does"
    );
    let text = "see [a](a.md#x) and [b](https://x.org)\n```\n[c](c.md)\n```\n![i](ui.png)\n";
    assert_eq!(links(text), vec!["a.md#x", "ui.png"]);
    assert!(is_fence("```json"));
    assert!(!is_fence("```` ```json ```` block, [d](d.md)"));
}
