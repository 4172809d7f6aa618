//! Writes a generated plan to stdout, or parses one and reports how long it took:
//! `cargo run --release --example gen_plan -- spec-kit 10000 > big.md`
//! `cargo run --release --example gen_plan -- parse big.md`
//! For checking by hand that parsing stays linear on large plans.

use std::path::Path;
use std::time::Instant;

use wf::plan::{self, render::render, Format};
use wf::state::model::Task;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["parse", path] => {
            let start = Instant::now();
            match plan::read(Path::new(path), None) {
                Ok((text, p)) => {
                    let parsed = start.elapsed();
                    let edges: usize = p.tasks.iter().map(|t| t.deps.len()).sum();
                    let start = Instant::now();
                    let rules = plan::classify::Rules::builtin();
                    let blocked = p
                        .tasks
                        .iter()
                        .filter(|t| !plan::classify::classify(t, &rules).is_empty())
                        .count();
                    let classified = start.elapsed();
                    let start = Instant::now();
                    let audit = plan::audit::audit(&p.tasks, &text, "now");
                    println!(
                        "{} tasks, {edges} edges, {}: parsed in {parsed:?}, classified ({blocked} blocked) in {classified:?}, audited ({} findings) in {:?}",
                        p.tasks.len(),
                        p.format.name(),
                        audit.anti_patterns.len(),
                        start.elapsed()
                    );
                }
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(2);
                }
            }
        }
        [format, n] => {
            let format = match *format {
                "spec-kit" => Format::SPEC_KIT,
                _ => Format::CLAUDE_WORKFLOW,
            };
            let n: usize = n.parse().unwrap_or(1000);
            let tasks: Vec<Task> = (0..n)
                .map(|i| Task {
                    id: format!("T{i:05}"),
                    name: format!("Implement part {i} in src/part{i}/mod.rs"),
                    phase: format!("Phase {}: block {}", i / 100 + 1, i / 100),
                    parallel: i % 4 != 0,
                    deps: if i > 0 && i % 10 == 0 {
                        vec![format!("T{:05}", i - 7)]
                    } else {
                        Vec::new()
                    },
                    actions: vec!["edit_file".into(), "run_tests".into()],
                    requirement: Some(format!("Requirement {i}")),
                    ..Task::default()
                })
                .collect();
            print!("{}", render(format, "Generated plan", &tasks));
        }
        _ => {
            eprintln!("usage: gen_plan (claude-workflow|spec-kit) N | gen_plan parse FILE");
            std::process::exit(2);
        }
    }
}
