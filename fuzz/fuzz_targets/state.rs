//! Fuzzes the state loader on raw bytes (not UTF-8, not JSON, wrong shapes, deep
//! nesting): a state or a one-line error, never a panic. A state that loads must
//! also save and load again.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("workflow-state.json");
    match wf::state::store::parse_state(path, data) {
        Ok(state) => {
            let bytes = serde_json::to_vec(&state).expect("a loaded state encodes");
            wf::state::store::parse_state(path, &bytes).expect("a saved state loads");
        }
        Err(e) => assert!(!e.message.contains('\n'), "multi-line error: {}", e.message),
    }
});
