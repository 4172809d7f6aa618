//! A short time slice for the run's own threads, so the kernel runs them as soon as
//! a command's end wakes them.
//!
//! With `--jobs 2` on two cores, both cores are mostly running commands (a no-op's
//! start is CPU-bound, its dynamic loading most of it), and a thread of `wf` woken by
//! a command's end or by a task handed over waited for a core: 0.14 ms on average, two
//! waits a task, measured with `perf sched latency` on a 2,000-task plan. Linux
//! (6.12 and later) lets a thread ask for a shorter slice (`sched_runtime` for a
//! normal thread), which puts it ahead when it wakes; `wf`'s threads run for tens of
//! microseconds at a time, so they lose nothing by it. Measured: 0.03–0.07 ms, and
//! that run 1.06 → 0.90 s (BENCHMARKS.md, "Measured by hand").
//!
//! Only with more than one job: with one, the other core is free whenever a thread
//! of `wf` wakes, and its wait (0.055 ms, the idle core's own wake-up) is the same
//! with a short slice or without.
//!
//! Commands keep the default: the slice is asked with `SCHED_FLAG_RESET_ON_FORK`, so
//! every process and thread started from such a thread starts with the kernel's.
//! That flag also puts a negative nice value back at 0 in them, so a thread with one
//! (`wf` started by `nice -n -5`) is left alone: its commands keep that value, as
//! with `--jobs 1`. So is a thread of another policy (`chrt`), and a kernel that
//! refuses the request changes nothing: the run is then as fast as before, no less
//! correct.

use std::io;

/// The shortest slice the kernel takes: 0.1 ms.
const SLICE_NS: u64 = 100_000;

/// The calling thread, one of a run's with `jobs` jobs: a short slice when there is
/// more than one (see the module docs), best effort — without it the run is slower,
/// not different.
pub fn shorten_for(jobs: usize) {
    if jobs > 1 {
        let _ = shorten();
    }
}

/// Asks a short slice for the calling thread; the error says why it was not given,
/// and nothing changed then.
fn shorten() -> io::Result<()> {
    let mut attr = empty_attr();
    // SAFETY: `attr` is a `sched_attr` as the kernel defines it, its size given; the
    // kernel writes at most that many bytes of it.
    let got = unsafe { libc::syscall(libc::SYS_sched_getattr, 0, &raw mut attr, attr.size, 0) };
    if got != 0 {
        return Err(io::Error::last_os_error());
    }
    if attr.sched_policy != libc::SCHED_OTHER as u32 {
        return Err(io::Error::other("not a normal thread"));
    }
    if attr.sched_nice < 0 {
        // The fork flag would start its commands and threads at 0.
        return Err(io::Error::other("a negative nice value"));
    }
    attr.sched_flags = libc::SCHED_FLAG_RESET_ON_FORK as u64;
    attr.sched_runtime = SLICE_NS;
    // The kernel wrote the size it filled in (ours, or its own if smaller): ask
    // with ours.
    attr.size = empty_attr().size;
    // SAFETY: as above; the kernel only reads `attr`. Its nice value is the thread's
    // own, read above, so only the slice and the fork flag change.
    let set = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &raw const attr, 0) };
    if set != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn empty_attr() -> libc::sched_attr {
    libc::sched_attr {
        size: u32::try_from(std::mem::size_of::<libc::sched_attr>()).unwrap_or(48),
        sched_policy: 0,
        sched_flags: 0,
        sched_nice: 0,
        sched_priority: 0,
        sched_runtime: 0,
        sched_deadline: 0,
        sched_period: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `se.slice` in a `/proc/…/sched` text, in nanoseconds.
    fn slice_of(sched: &str) -> Option<u64> {
        sched
            .lines()
            .find(|l| l.starts_with("se.slice"))
            .and_then(|l| l.rsplit(':').next())
            .and_then(|v| v.trim().parse().ok())
    }

    fn own_slice() -> Option<u64> {
        slice_of(&std::fs::read_to_string("/proc/thread-self/sched").ok()?)
    }

    /// On a kernel that gives it, the thread has the short slice and a command it
    /// starts has the default; on one that does not, nothing changed.
    #[test]
    fn the_thread_gets_the_slice_and_its_commands_do_not() {
        std::thread::spawn(|| {
            let before = own_slice();
            let given = shorten();
            let after = own_slice();
            let child = std::process::Command::new("cat")
                .arg("/proc/self/sched")
                .output()
                .expect("cat runs");
            let child = slice_of(&String::from_utf8_lossy(&child.stdout));
            match given {
                Ok(()) if before.is_some() => {
                    assert_eq!(after, Some(SLICE_NS));
                    assert_eq!(child, before, "a command keeps the default slice");
                }
                Ok(()) => {}
                Err(_) => assert_eq!(after, before),
            }
        })
        .join()
        .expect("the test thread");
    }

    /// The calling thread's nice value, and that of a command it starts.
    fn nice_here_and_in_a_command() -> (i32, i32) {
        // SAFETY: getpriority reads the calling thread's (tid's) nice value.
        let own = unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) };
        let out = std::process::Command::new("nice")
            .output()
            .expect("nice runs");
        let child = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a number");
        (own, child)
    }

    /// A command started by a thread given the slice has that thread's nice value,
    /// as it would without the slice: a lower (positive) one, and a higher
    /// (negative) one where the test may set it (CAP_SYS_NICE).
    #[test]
    fn a_command_keeps_the_nice_value_of_the_thread_that_starts_it() {
        for nice in [5, -5] {
            std::thread::spawn(move || {
                // SAFETY: sets the calling thread's (tid's) nice value only.
                let set = unsafe {
                    libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, nice)
                };
                if set != 0 {
                    return; // no CAP_SYS_NICE: a negative value cannot be tested
                }
                let given = shorten();
                assert_eq!(
                    nice_here_and_in_a_command(),
                    (nice, nice),
                    "nice {nice}, slice {given:?}"
                );
            })
            .join()
            .expect("the test thread");
        }
    }
}
