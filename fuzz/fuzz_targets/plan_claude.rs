//! Fuzzes the plan parser with claude-workflow-shaped input: a task heading is
//! prepended so most inputs reach the claude-workflow parser, its fields and the
//! graph checks, not just format detection. Any input must give a plan or an error,
//! never a panic, and errors are one line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let text = format!("## T1: fuzz\n- **阶段**: a\n{body}");
    if let Err(e) = wf::plan::parse(std::path::Path::new("tasks.md"), &text) {
        assert!(!e.message.contains('\n'), "multi-line error: {}", e.message);
    }
});
