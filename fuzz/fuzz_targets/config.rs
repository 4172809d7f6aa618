//! Fuzzes the project-config loader on raw bytes: a config or a one-line error,
//! never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new(".claude/config/project-config.json");
    if let Err(e) = wf::config::Config::parse(path, data) {
        assert!(!e.message.contains('\n'), "multi-line error: {}", e.message);
    }
});
