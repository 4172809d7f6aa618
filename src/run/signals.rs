//! Ctrl-C and SIGTERM during a run.
//!
//! The first signal stops dispatching and ends the running children (their tasks go
//! back to pending and a paused checkpoint is saved). A second one skips the grace
//! period: children are killed at once, the state is still saved, then `wf` exits.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

static SIGNALS: AtomicU32 = AtomicU32::new(0);
static INSTALLED: OnceLock<bool> = OnceLock::new();

/// Installs the handler once per process; later calls are no-ops.
pub fn install() {
    INSTALLED.get_or_init(|| {
        ctrlc::set_handler(|| {
            SIGNALS.fetch_add(1, Ordering::SeqCst);
        })
        .is_ok()
    });
}

/// How many interrupt signals arrived so far.
pub fn count() -> u32 {
    SIGNALS.load(Ordering::SeqCst)
}
