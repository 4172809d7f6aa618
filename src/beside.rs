//! Work on a second thread beside the calling one, where a command waits on one
//! thing it could overlap with another: the log's tail read while the snapshot
//! parses (`state::store`), the plan copy worked out while the snapshot is written
//! (`run::checkpoint`).

use std::sync::{Mutex, PoisonError};

/// `side` on a scoped thread of its own while `here` runs on this one; both
/// results. With no thread to be had (the system's limit), `side` runs here after
/// `here`. A panic in `side` is a bug: it goes on here.
pub fn both<S: Send, H>(side: impl FnOnce() -> S + Send, here: impl FnOnce() -> H) -> (S, H) {
    // Shared, not moved into the thread: a thread that cannot start gives its
    // closure back to no one.
    let side = Mutex::new(Some(side));
    let run = || {
        let side = side.lock().unwrap_or_else(PoisonError::into_inner).take();
        side.map(|side| side())
    };
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().spawn_scoped(scope, run).ok();
        let here = here();
        let beside = thread.and_then(|thread| {
            thread
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p))
        });
        let side = beside
            .or_else(run)
            .expect("the side runs once, on its thread or here");
        (side, here)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_run_and_each_result_comes_back() {
        let (side, here) = both(|| 6 * 7, || "here");
        assert_eq!((side, here), (42, "here"));
    }
}
