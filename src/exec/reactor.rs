//! Waiting for many commands from one thread.
//!
//! A command runs as a future (`process::run_logged`): it starts its process, then
//! waits for its output pipe, its exit or its deadline through [`readable`]. Whoever
//! drives the future polls it and, while it is pending, waits in one `poll(2)` on
//! every descriptor the pending futures asked for, until the earliest time any of
//! them asked for ([`wait`]). [`block_on`] drives one future so (a command run from a
//! worker, `wf verify`, a hook); the run's scheduler drives every running command
//! task of a run on its own thread (`run::dispatch::Floor`), as make does.
//!
//! Handing each task to a worker thread and its outcome back costs two wake-ups of an
//! idle CPU per task, and as much in moving work between CPUs; docs/ARCHITECTURE.md
//! ("Performance devices kept") says what this was measured to gain.
//!
//! Nothing here uses a waker: a driver polls all of its futures after each wait, so a
//! future's [`Readable`] only has to say what it waits for and read what the wait
//! saw. The state is the thread's own: a future is polled on the thread that created
//! it, and a [`block_on`] inside a polled future (a blocking check in a task) waits
//! for its own future alone and leaves the outer driver's requests as they were.

use std::cell::RefCell;
use std::future::Future;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};

thread_local! {
    static REACTOR: RefCell<State> = RefCell::new(State::default());
}

#[derive(Default)]
struct State {
    /// Counts this thread's waits: a request made in an earlier round than the
    /// current one has been waited on.
    round: u64,
    /// The descriptors the futures polled since the last wait asked for.
    wanted: Vec<RawFd>,
    /// The earliest time one of them wants to be polled again.
    until: Option<Instant>,
    /// What the last wait saw of each descriptor it watched.
    seen: Vec<(RawFd, PollFlags)>,
}

impl State {
    fn seen(&self, fd: RawFd) -> PollFlags {
        self.seen
            .iter()
            .find(|(f, _)| *f == fd)
            .map_or(PollFlags::empty(), |(_, flags)| *flags)
    }
}

/// Ready when one of `fds` is readable (or at its end) or at `until`: the poll flags
/// each one had (none for a missing one; all of `IN | HUP` when the wait was cut
/// short by a signal, so the caller looks at each for itself).
pub fn readable(fds: [Option<BorrowedFd<'_>>; 2], until: Instant) -> Readable {
    Readable {
        fds: fds.map(|fd| fd.map(|fd| fd.as_raw_fd())),
        until,
        asked: None,
    }
}

/// See [`readable`]. The descriptors must stay open until it is ready or dropped.
pub struct Readable {
    fds: [Option<RawFd>; 2],
    until: Instant,
    /// The round in which it asked to be waited on.
    asked: Option<u64>,
}

impl Future for Readable {
    type Output = [PollFlags; 2];

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<[PollFlags; 2]> {
        REACTOR.with_borrow_mut(|state| {
            if self.asked.is_some_and(|round| round < state.round) {
                let flags = self
                    .fds
                    .map(|fd| fd.map_or(PollFlags::empty(), |fd| state.seen(fd)));
                if flags.iter().any(|f| !f.is_empty()) || Instant::now() >= self.until {
                    return Poll::Ready(flags);
                }
            }
            for fd in self.fds.into_iter().flatten() {
                if !state.wanted.contains(&fd) {
                    state.wanted.push(fd);
                }
            }
            state.until = Some(state.until.map_or(self.until, |t| t.min(self.until)));
            self.asked = Some(state.round);
            Poll::Pending
        })
    }
}

/// Waits until a descriptor a pending future asked for is ready, one of `extra` is,
/// or the earliest time asked for comes, and for at most `longest`. Returns the poll
/// flags of `extra`.
pub fn wait<const N: usize>(extra: [BorrowedFd<'_>; N], longest: Duration) -> [PollFlags; N] {
    let (wanted, until) =
        REACTOR.with_borrow_mut(|state| (std::mem::take(&mut state.wanted), state.until.take()));
    let now = Instant::now();
    let timeout = until.map_or(longest, |t| t.saturating_duration_since(now).min(longest));
    let mut pfds: Vec<PollFd<'_>> = Vec::with_capacity(N + wanted.len());
    pfds.extend(
        extra
            .iter()
            .map(|fd| PollFd::from_borrowed_fd(*fd, PollFlags::IN)),
    );
    pfds.extend(wanted.iter().map(|&fd| {
        // SAFETY: each one was asked for by a pending future that holds it open
        // until the future is ready or dropped; a dropped one is only a closed (or
        // reused) number, which poll reports or watches without harm.
        PollFd::from_borrowed_fd(unsafe { BorrowedFd::borrow_raw(fd) }, PollFlags::IN)
    }));
    let revents: Vec<PollFlags> = if pfds.is_empty() {
        std::thread::sleep(timeout);
        Vec::new()
    } else {
        let timespec = Timespec {
            tv_sec: i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(timeout.subsec_nanos()),
        };
        match rustix::event::poll(&mut pfds, Some(&timespec)) {
            Ok(_) => pfds.iter().map(PollFd::revents).collect(),
            // Interrupted by a signal (EINTR): anything may be ready.
            Err(_) => vec![PollFlags::IN | PollFlags::HUP; pfds.len()],
        }
    };
    let mut flags = [PollFlags::empty(); N];
    for (slot, got) in flags.iter_mut().zip(&revents) {
        *slot = *got;
    }
    REACTOR.with_borrow_mut(|state| {
        state.round += 1;
        state.seen = wanted
            .iter()
            .zip(revents.iter().skip(N))
            .map(|(&fd, &got)| (fd, got))
            .collect();
    });
    flags
}

/// Runs `future` to its end on this thread, waiting in between.
pub fn block_on<F: Future>(future: F) -> F::Output {
    // A driver's requests, put back when this returns (or unwinds): the future
    // driven here waits alone.
    struct Outer(Option<State>);
    impl Drop for Outer {
        fn drop(&mut self) {
            if let Some(state) = self.0.take() {
                REACTOR.with_borrow_mut(|now| *now = state);
            }
        }
    }
    let _outer = Outer(Some(REACTOR.with_borrow_mut(std::mem::take)));
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        wait([], Duration::MAX);
    }
}

/// Polls `future` once, with no waker (see the module's doc).
pub fn poll_once<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(Waker::noop()))
}

/// A descriptor another thread makes readable, to end a [`wait`] (an eventfd).
pub struct Bell(OwnedFd);

impl Bell {
    pub fn new() -> std::io::Result<Bell> {
        use rustix::event::EventfdFlags;
        Ok(Bell(rustix::event::eventfd(
            0,
            EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK,
        )?))
    }

    pub fn ring(&self) {
        let _ = rustix::io::write(&self.0, &1u64.to_ne_bytes());
    }

    /// Takes the rings so far: the bell is quiet until the next one.
    pub fn quiet(&self) {
        let mut count = [0u8; 8];
        let _ = rustix::io::read(&self.0, &mut count);
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_with_data_is_readable_and_a_silent_one_times_out() {
        let (read, mut write) = std::io::pipe().unwrap();
        let start = Instant::now();
        let flags = block_on(readable(
            [Some(read.as_fd()), None],
            start + Duration::from_millis(30),
        ));
        assert!(flags[0].is_empty(), "{flags:?}");
        assert!(start.elapsed() >= Duration::from_millis(30));
        std::io::Write::write_all(&mut write, b"x").unwrap();
        let flags = block_on(readable(
            [None, Some(read.as_fd())],
            Instant::now() + Duration::from_secs(5),
        ));
        assert!(flags[1].contains(PollFlags::IN), "{flags:?}");
        drop(write);
    }

    /// Two futures on one thread: each is woken by its own descriptor, and the one
    /// that is not ready stays pending.
    #[test]
    fn one_wait_serves_every_pending_future() {
        let (read_a, mut write_a) = std::io::pipe().unwrap();
        let (read_b, _write_b) = std::io::pipe().unwrap();
        let far = Instant::now() + Duration::from_secs(5);
        let mut a = pin!(readable([Some(read_a.as_fd()), None], far));
        let mut b = pin!(readable([Some(read_b.as_fd()), None], far));
        assert!(poll_once(a.as_mut()).is_pending());
        assert!(poll_once(b.as_mut()).is_pending());
        std::io::Write::write_all(&mut write_a, b"x").unwrap();
        let bell = Bell::new().unwrap();
        let [rang] = wait([bell.fd()], Duration::from_secs(5));
        assert!(rang.is_empty());
        assert!(matches!(poll_once(a.as_mut()), Poll::Ready([f, _]) if f.contains(PollFlags::IN)));
        assert!(poll_once(b.as_mut()).is_pending());
        // Not waited on since it asked again: still pending, whatever was seen before.
        assert!(poll_once(b.as_mut()).is_pending());
    }

    #[test]
    fn a_bell_ends_a_wait_and_is_quiet_once_heard() {
        let bell = std::sync::Arc::new(Bell::new().unwrap());
        let ringer = bell.clone();
        let thread = std::thread::spawn(move || ringer.ring());
        let [rang] = wait([bell.fd()], Duration::from_secs(5));
        assert!(rang.contains(PollFlags::IN));
        thread.join().unwrap();
        bell.quiet();
        let [rang] = wait([bell.fd()], Duration::from_millis(10));
        assert!(rang.is_empty());
    }

    /// A command run to its end inside a polled future leaves the driver's requests.
    #[test]
    fn block_on_inside_a_driver_keeps_its_requests() {
        let (read, mut write) = std::io::pipe().unwrap();
        let far = Instant::now() + Duration::from_secs(5);
        let mut outer = pin!(readable([Some(read.as_fd()), None], far));
        assert!(poll_once(outer.as_mut()).is_pending());
        let inner = block_on(readable([None, None], Instant::now()));
        assert_eq!(inner, [PollFlags::empty(); 2]);
        std::io::Write::write_all(&mut write, b"x").unwrap();
        wait([], Duration::from_secs(5));
        assert!(poll_once(outer.as_mut()).is_ready());
    }
}
