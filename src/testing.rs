//! Hooks that let the test suites reach states a real run reaches only by bad luck.
//!
//! `WF_TEST_CRASH_AT=<point>` makes `wf` abort (as SIGKILL would) when it reaches the
//! named point, e.g. `before-rename` in the middle of an atomic write. For tests only;
//! users never set it.

pub fn crash_point(name: &str) {
    if std::env::var_os("WF_TEST_CRASH_AT").is_some_and(|v| v == name) {
        std::process::abort();
    }
}
