//! The threads that run tasks for the scheduler, kept for the whole run.
//!
//! A thread per task cost about 60 µs of a no-op task's ~600 µs (stack mapping,
//! start-up, exit), so `--jobs N` runs on at most N long-lived threads fed through one
//! queue. The scheduler never has more than N tasks out, so a job waits only while a
//! thread finishes sending its previous outcome.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

type Job = Box<dyn FnOnce() + Send>;

pub struct Workers {
    size: usize,
    spawned: usize,
    queue: Sender<Job>,
    jobs: Arc<Mutex<Receiver<Job>>>,
}

impl Workers {
    /// Up to `size` threads, started as work arrives.
    pub fn new(size: usize) -> Workers {
        let (queue, jobs) = mpsc::channel();
        Workers {
            size: size.max(1),
            spawned: 0,
            queue,
            jobs: Arc::new(Mutex::new(jobs)),
        }
    }

    /// Queues `job`; it starts at once when fewer than `size` jobs are out.
    pub fn run(&mut self, job: impl FnOnce() + Send + 'static) {
        if self.spawned < self.size {
            let jobs = Arc::clone(&self.jobs);
            std::thread::spawn(move || work(&jobs));
            self.spawned += 1;
        }
        // The receiving end lives as long as any thread, and they only end when this
        // sender is dropped, so the send cannot fail while `self` exists.
        let _ = self.queue.send(Box::new(job));
    }
}

fn work(jobs: &Mutex<Receiver<Job>>) {
    loop {
        // The lock is held only to take the next job, never while running it.
        let next = jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .recv();
        match next {
            Ok(job) => job(),
            // The scheduler is done: its queue was dropped.
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::mpsc;

    #[test]
    fn runs_every_job_on_at_most_size_threads() {
        let mut workers = Workers::new(2);
        let (tx, rx) = mpsc::channel();
        for i in 0..50 {
            let tx = tx.clone();
            workers.run(move || {
                let _ = tx.send((i, std::thread::current().id()));
            });
        }
        drop(tx);
        let got: Vec<_> = rx.iter().collect();
        let ids: HashSet<i32> = got.iter().map(|(i, _)| *i).collect();
        let threads: HashSet<_> = got.iter().map(|(_, t)| *t).collect();
        assert_eq!(ids.len(), 50);
        assert!(threads.len() <= 2, "{} threads", threads.len());
        assert!(!threads.contains(&std::thread::current().id()));
    }

    #[test]
    fn a_slow_job_does_not_hold_up_the_other_thread() {
        let mut workers = Workers::new(2);
        let (tx, rx) = mpsc::channel();
        let (release, wait) = mpsc::channel::<()>();
        let tx1 = tx.clone();
        workers.run(move || {
            let _ = wait.recv();
            let _ = tx1.send("slow");
        });
        workers.run(move || {
            let _ = tx.send("fast");
        });
        assert_eq!(
            rx.recv_timeout(std::time::Duration::from_secs(5)),
            Ok("fast")
        );
        let _ = release.send(());
        assert_eq!(
            rx.recv_timeout(std::time::Duration::from_secs(5)),
            Ok("slow")
        );
    }
}
