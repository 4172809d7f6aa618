//! Fuzzes the plan parser with spec-kit-shaped input: a phase heading and a task
//! line are prepended so most inputs reach the spec-kit parser. Any input must give
//! a plan or a one-line error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else {
        return;
    };
    let text = format!("## Phase 1: Setup\n\n- [ ] T001 fuzz\n{body}");
    if let Err(e) = wf::plan::parse(std::path::Path::new("tasks.md"), &text) {
        assert!(!e.message.contains('\n'), "multi-line error: {}", e.message);
    }
});
