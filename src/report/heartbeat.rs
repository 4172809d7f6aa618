//! A line for each task that runs long, where no progress bar shows it (a pipe, a CI
//! log): `… T4 name: still running (2m)` once a minute, so a job that runs a slow
//! test suite is not mistaken for a hung one.
//!
//! A thread of its own wakes once a second (or when told to stop) and prints, between
//! the run's other lines, for every task that has run a whole interval since it
//! started or since its last beat. `WF_TEST_HEARTBEAT_SECS` shortens the interval for
//! the tests (src/testing.rs).

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a task runs before its first beat, and between beats.
const INTERVAL: Duration = Duration::from_secs(60);

/// The tasks running now: id → (name, when it started, when it last beat).
type Running = HashMap<String, (String, Instant, Instant)>;

#[derive(Default)]
struct Shared {
    running: Mutex<(Running, bool)>,
    wake: Condvar,
}

/// The heartbeat of one run; it stops when dropped.
pub struct Heartbeat {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Heartbeat {
    /// Starts the thread; `say` prints one line between the run's others.
    pub fn start(say: impl Fn(String) + Send + 'static) -> Heartbeat {
        let interval = crate::testing::heartbeat_secs().map_or(INTERVAL, Duration::from_secs);
        let shared = Arc::new(Shared::default());
        let beat = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("wf-heartbeat".into())
            .spawn(move || beat_until_stopped(&beat, interval, &say))
            .ok();
        Heartbeat { shared, thread }
    }

    pub fn started(&self, id: &str, name: &str) {
        let now = Instant::now();
        self.lock()
            .0
            .insert(id.to_string(), (name.to_string(), now, now));
    }

    pub fn finished(&self, id: &str) {
        self.lock().0.remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (Running, bool)> {
        self.shared
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.lock().1 = true;
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn beat_until_stopped(shared: &Shared, interval: Duration, say: &dyn Fn(String)) {
    let tick = interval.min(Duration::from_secs(1));
    let mut guard = shared
        .running
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    loop {
        guard = shared
            .wake
            .wait_timeout(guard, tick)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
        if guard.1 {
            return;
        }
        let now = Instant::now();
        let mut due: Vec<(String, String, Duration)> = Vec::new();
        for (id, (name, started, last)) in &mut guard.0 {
            if now.duration_since(*last) >= interval {
                *last = now;
                due.push((id.clone(), name.clone(), now.duration_since(*started)));
            }
        }
        due.sort();
        for (id, name, ran) in due {
            say(line(&id, &name, ran));
        }
    }
}

/// `… T4 name: still running (2m 5s)`.
fn line(id: &str, name: &str, ran: Duration) -> String {
    let secs = ran.as_secs();
    let ran = match (secs / 60, secs % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m {s}s"),
    };
    format!(
        "… {id} {}: still running ({ran})",
        crate::report::one_line(name)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_beat_says_how_long_the_task_has_run() {
        assert_eq!(
            line("T4", "slow\nsuite", Duration::from_secs(125)),
            "… T4 slow suite: still running (2m 5s)"
        );
        assert_eq!(
            line("T4", "x", Duration::from_secs(60)),
            "… T4 x: still running (1m)"
        );
    }
}
