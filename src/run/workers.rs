//! The threads that run agent tasks for the scheduler, kept for the whole run (a
//! command task runs on the scheduler's thread: `run::dispatch`).
//!
//! `--jobs N` runs on at most N long-lived threads fed through one queue, as a thread
//! started per task was a noticeable part of a short task's cost. The scheduler never
//! has more than N tasks out, so a job waits only while a thread finishes sending its
//! previous outcome.
//!
//! A thread is started only when none is idle, so a chain of tasks runs on one
//! thread, as under `--jobs 1`, rather than waking a thread on another core each time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

type Job<T> = Box<dyn FnOnce() -> T + Send>;

pub struct Workers<T> {
    size: usize,
    spawned: usize,
    queue: Sender<Job<T>>,
    jobs: Arc<Mutex<Receiver<Job<T>>>>,
    /// Jobs queued whose results are not yet on their way back.
    out: Arc<AtomicUsize>,
    /// Where each job's result goes.
    done: Sender<T>,
    /// Called after each result is sent, to wake a receiver that waits on more
    /// than the channel.
    sent: Arc<dyn Fn() + Send + Sync>,
}

impl<T: Send + 'static> Workers<T> {
    /// Up to `size` threads, started as work arrives, each job's result sent to `done`
    /// and `sent` called after.
    pub fn new(
        size: usize,
        done: Sender<T>,
        sent: impl Fn() + Send + Sync + 'static,
    ) -> Workers<T> {
        let (queue, jobs) = mpsc::channel();
        Workers {
            size: size.max(1),
            spawned: 0,
            queue,
            jobs: Arc::new(Mutex::new(jobs)),
            out: Arc::new(AtomicUsize::new(0)),
            done,
            sent: Arc::new(sent),
        }
    }

    /// Queues `job`; it starts at once when fewer than `size` jobs are out.
    pub fn run(&mut self, job: impl FnOnce() -> T + Send + 'static) {
        // A thread whose result is on its way back takes the next job as soon as it
        // has sent it, so a job queued now finds a thread unless every one has work.
        let out = self.out.fetch_add(1, Ordering::AcqRel);
        if out >= self.spawned && self.spawned < self.size {
            let jobs = Arc::clone(&self.jobs);
            let out = Arc::clone(&self.out);
            let done = self.done.clone();
            let sent = Arc::clone(&self.sent);
            std::thread::spawn(move || {
                work(&jobs, &out, &done, &*sent);
            });
            self.spawned += 1;
        }
        // The receiving end lives as long as any thread, and they only end when this
        // sender is dropped, so the send cannot fail while `self` exists.
        let _ = self.queue.send(Box::new(job));
    }
}

fn work<T>(jobs: &Mutex<Receiver<Job<T>>>, out: &AtomicUsize, done: &Sender<T>, sent: &dyn Fn()) {
    loop {
        // The lock is held only to take the next job, never while running it.
        let next = jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .recv();
        match next {
            Ok(job) => {
                // Sent here, once the job and all it held are freed, not by the job
                // itself: freed while the scheduler, woken by the result, allocates,
                // the two threads would contend for the allocator's lock.
                let result = job();
                // Before the send: the scheduler, woken by it, may queue the next job
                // at once, and must see this thread as free for it.
                out.fetch_sub(1, Ordering::AcqRel);
                let _ = done.send(result);
                sent();
            }
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
        let (tx, rx) = mpsc::channel();
        let mut workers = Workers::new(2, tx, || {});
        for i in 0..50 {
            workers.run(move || (i, std::thread::current().id()));
        }
        // Its threads end once it is gone, and with them the last senders of results.
        drop(workers);
        let got: Vec<_> = rx.iter().collect();
        let ids: HashSet<i32> = got.iter().map(|(i, _)| *i).collect();
        let threads: HashSet<_> = got.iter().map(|(_, t)| *t).collect();
        assert_eq!(ids.len(), 50);
        assert!(threads.len() <= 2, "{} threads", threads.len());
        assert!(!threads.contains(&std::thread::current().id()));
    }

    #[test]
    fn jobs_given_one_at_a_time_run_on_one_thread() {
        let (tx, rx) = mpsc::channel();
        let mut workers = Workers::new(4, tx, || {});
        let mut threads = HashSet::new();
        for _ in 0..50 {
            workers.run(|| std::thread::current().id());
            threads.insert(rx.recv().expect("a result"));
        }
        assert_eq!(threads.len(), 1);
    }

    /// Also: a job given while another is out gets a thread of its own.
    #[test]
    fn a_slow_job_does_not_hold_up_the_other_thread() {
        let (tx, rx) = mpsc::channel();
        let mut workers = Workers::new(2, tx, || {});
        let (release, wait) = mpsc::channel::<()>();
        workers.run(move || {
            let _ = wait.recv();
            "slow"
        });
        workers.run(move || "fast");
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
