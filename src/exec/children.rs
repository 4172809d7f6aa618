//! The commands running now, and the sweep that ends what a finished command left
//! behind: the registry of process groups `wf` started, and which stray processes
//! (reparented to `wf`, the child subreaper) belong to which command.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use crate::exec::reactor::readable;
use crate::exec::spawn::{Launch, Leader};

/// The commands running in this run, so a timeout watchdog and Ctrl-C can end them.
///
/// Every command gets `WF_SPAWN=<wf pid>.<n>` in its environment, which its
/// descendants inherit. When a command ends, each child of `wf` that is not a running
/// command's leader is looked at: a zombie is reaped, and `whose` tells whether a
/// live one is the command's to end, so `--jobs N` tasks never end each other's
/// processes.
#[derive(Clone)]
pub struct Children {
    inner: Arc<ChildrenInner>,
}

struct ChildrenInner {
    /// Tells this set's commands from those of another set in the same process.
    id: u64,
    interrupted: AtomicBool,
}

impl Default for Children {
    fn default() -> Children {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Children {
            inner: Arc::new(ChildrenInner {
                id: NEXT.fetch_add(1, Ordering::Relaxed),
                interrupted: AtomicBool::new(false),
            }),
        }
    }
}

/// Every command running in this process, whichever [`Children`] started it: the
/// subreaper's orphans are the process's, so one register decides whose they are.
#[derive(Default)]
struct Running {
    /// Commands started so far; a command's number is in its `WF_SPAWN`.
    spawned: u64,
    /// Running commands by number.
    leaders: HashMap<u64, LeaderOf>,
}

struct LeaderOf {
    /// The leader's pid, which is also its process group.
    pid: u32,
    /// The [`Children`] that started it.
    set: u64,
}

fn running() -> std::sync::MutexGuard<'static, Running> {
    static RUNNING: OnceLock<Mutex<Running>> = OnceLock::new();
    RUNNING
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How long a stray process has between SIGTERM and SIGKILL.
const SWEEP_GRACE: Duration = Duration::from_secs(1);

impl Children {
    /// Ends every running group (SIGTERM, then SIGKILL after `grace` or as soon as
    /// `hurry` says so), and refuses new ones.
    pub fn interrupt(&self, grace: Duration, hurry: impl Fn() -> bool) {
        self.inner.interrupted.store(true, Ordering::SeqCst);
        for pgid in self.groups() {
            signal_group(pgid, Signal::TERM);
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && !self.groups().is_empty() && !hurry() {
            std::thread::sleep(Duration::from_millis(10));
        }
        for pgid in self.groups() {
            signal_group(pgid, Signal::KILL);
        }
    }

    pub fn is_interrupted(&self) -> bool {
        self.inner.interrupted.load(Ordering::SeqCst)
    }

    /// The process groups of this set's running commands.
    fn groups(&self) -> Vec<u32> {
        running()
            .leaders
            .values()
            .filter(|l| l.set == self.inner.id)
            .map(|l| l.pid)
            .collect()
    }

    /// Starts `launch` as command number n, registered before any sweep can see it.
    pub(super) fn spawn(&self, launch: &Launch<'_>) -> std::io::Result<(u64, Leader)> {
        crate::exec::orphans::become_subreaper();
        // Held across the spawn: a sweep never sees a leader it does not know yet.
        let mut running = running();
        let number = running.spawned + 1;
        let mut env = launch.env.to_vec();
        env.push((
            crate::exec::orphans::SPAWN_VAR.to_string(),
            crate::exec::orphans::token(number),
        ));
        let leader = crate::exec::spawn::spawn(&Launch {
            env: &env,
            ..*launch
        })?;
        running.spawned = number;
        running.leaders.insert(
            number,
            LeaderOf {
                pid: leader.id(),
                set: self.inner.id,
            },
        );
        Ok((number, leader))
    }

    /// After command `number`'s leader was reaped: kills what is left of its group,
    /// ends every stray process that is its (SIGTERM, SIGKILL after [`SWEEP_GRACE`]),
    /// reaps them, and forgets the command. A future: between its passes over the
    /// strays it waits through the reactor, not in a sleep, so the other commands run
    /// on the same thread (a run's scheduler) are watched and reaped meanwhile.
    // A method of the set its callers hold, though the register it reads is
    // process-wide.
    #[allow(clippy::unused_self)]
    pub(super) async fn end(&self, number: u64, pgid: u32) {
        // The common case, a command that left nothing running: `wf` has no child
        // at all, so its group is empty and no stray is left (`orphans::no_children`
        // says why). Neither the group's SIGKILL nor a read of /proc is needed; the
        // SIGKILL of a group whose leader is reaped could even reach a new group that
        // took its id.
        if crate::exec::orphans::no_children() {
            running().leaders.remove(&number);
            return;
        }
        signal_group(pgid, Signal::KILL);
        let give_up = Instant::now() + SWEEP_GRACE + Duration::from_secs(2);
        let mut termed: HashMap<i32, Instant> = HashMap::new();
        let mut unsure_looks: HashMap<i32, u32> = HashMap::new();
        loop {
            // One pass under the register's lock: nothing is spawned or reaped
            // meanwhile, so a pid seen alive here is still the same process.
            let left = {
                let running = running();
                let leaders: HashSet<i32> =
                    running.leaders.values().map(|l| l.pid as i32).collect();
                let mut left = 0;
                for pid in crate::exec::orphans::children() {
                    if leaders.contains(&pid) {
                        continue;
                    }
                    let stray = crate::exec::orphans::Stray::read(pid);
                    if stray.gone {
                        continue;
                    }
                    if stray.zombie {
                        crate::exec::orphans::reap(pid);
                        continue;
                    }
                    // One this sweep signalled is its to see to the end: dying,
                    // its environment may read empty (an unreaped child's pid is
                    // not reused).
                    let verdict = if termed.contains_key(&pid) {
                        Whose::Its
                    } else {
                        whose(&stray, number, pgid, &running)
                    };
                    match verdict {
                        Whose::Its => {}
                        Whose::Another => continue,
                        Whose::Unsure => {
                            // Looked at again on the next pass, a few times, before
                            // it is taken for no command's.
                            let looks = unsure_looks.entry(pid).or_insert(0);
                            *looks += 1;
                            if *looks <= UNSURE_LOOKS {
                                left += 1;
                            }
                            continue;
                        }
                    }
                    left += 1;
                    let since = *termed.entry(pid).or_insert_with(|| {
                        crate::exec::orphans::signal(pid, Signal::TERM);
                        Instant::now()
                    });
                    if since.elapsed() >= SWEEP_GRACE {
                        crate::exec::orphans::signal(pid, Signal::KILL);
                    }
                }
                left
            };
            if left == 0 || Instant::now() >= give_up {
                break;
            }
            readable([None, None], Instant::now() + Duration::from_millis(5)).await;
        }
        running().leaders.remove(&number);
    }
}

/// How many passes of a command's sweep look again at a stray whose environment
/// could not be read (`Whose::Unsure`): 5 ms apart, long enough for an exec to end.
const UNSURE_LOOKS: u32 = 4;

/// Whose a live child of `wf` is, as a command's sweep decides.
#[derive(Debug, PartialEq)]
enum Whose {
    /// The command's: ended.
    Its,
    /// Another command's, or no command's, which is not ended while other commands
    /// run: left.
    Another,
    /// Its environment could not be read, and nothing else says it is the
    /// command's: looked at again.
    Unsure,
}

/// Whose `stray`, a live child of `wf`, is: command `number`'s (its group `pgid`)
/// or not, among the commands `running` (see [`Children`]).
fn whose(stray: &crate::exec::orphans::Stray, number: u64, pgid: u32, running: &Running) -> Whose {
    use crate::exec::orphans::Spawn;
    if matches!(stray.spawn, Spawn::Named(n) if n != number && running.leaders.contains_key(&n)) {
        return Whose::Another;
    }
    // Still in the command's own group, which was just killed: its. A process dying
    // of that kill has no environment left to read; passed over, it became a zombie
    // after the sweep and was never reaped. The group's id is free again once its
    // last member is reaped, so one that leads a group of that id is another's, by a
    // reused pid.
    let pgid = i32::try_from(pgid).ok();
    if stray.pgrp == pgid && Some(stray.pid) != pgid {
        return Whose::Its;
    }
    let alone = running.leaders.keys().all(|&n| n == number);
    match stray.spawn {
        // This command, or one that already ended.
        Spawn::Named(_) => Whose::Its,
        _ if alone && !stray.in_wf_group => Whose::Its,
        // A process in the middle of an exec (a `setsid` daemon becoming itself)
        // shows no environment for a moment.
        Spawn::Unread => Whose::Unsure,
        Spawn::Unnamed => Whose::Another,
    }
}

/// A group that already exited gives ESRCH, which is fine.
pub(super) fn signal_group(pgid: u32, sig: Signal) {
    if let Some(group) = i32::try_from(pgid).ok().and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process_group(group, sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stray_is_a_commands_by_its_group_then_its_environment() {
        use crate::exec::orphans::{Spawn, Stray};
        let mut running = Running::default();
        for (number, pid) in [(1, 100), (2, 200)] {
            running.leaders.insert(number, LeaderOf { pid, set: 1 });
        }
        // Dying of its group's kill: no environment left, another command running.
        let dying = Stray {
            pid: 101,
            gone: false,
            zombie: false,
            spawn: Spawn::Unread,
            in_wf_group: false,
            pgrp: Some(100),
        };
        assert_eq!(whose(&dying, 1, 100, &running), Whose::Its);
        // In a group of that id, but another's: named by a running command, or
        // leading it (the id reused once the command's group was empty).
        let others = Stray {
            spawn: Spawn::Named(2),
            ..dying
        };
        assert_eq!(whose(&others, 1, 100, &running), Whose::Another);
        let leads = Stray {
            pid: 100,
            spawn: Spawn::Unnamed,
            ..dying
        };
        assert_eq!(whose(&leads, 1, 100, &running), Whose::Another);
        // Out of the group: unread (in an exec) is looked at again, unnamed is left
        // while another command runs.
        let unread = Stray {
            pgrp: Some(300),
            ..dying
        };
        assert_eq!(whose(&unread, 1, 100, &running), Whose::Unsure);
        let unnamed = Stray {
            spawn: Spawn::Unnamed,
            ..unread
        };
        assert_eq!(whose(&unnamed, 1, 100, &running), Whose::Another);
        // Named: its own command's or an ended one's, not a running one's.
        let named = |n| Stray {
            spawn: Spawn::Named(n),
            ..unread
        };
        assert_eq!(whose(&named(1), 1, 100, &running), Whose::Its);
        assert_eq!(whose(&named(7), 1, 100, &running), Whose::Its);
        assert_eq!(whose(&named(2), 1, 100, &running), Whose::Another);
        // Alone, one unnamed or unread out of wf's own group is its.
        running.leaders.remove(&2);
        assert_eq!(whose(&unnamed, 1, 100, &running), Whose::Its);
        assert_eq!(whose(&unread, 1, 100, &running), Whose::Its);
        let in_wf_group = Stray {
            in_wf_group: true,
            ..unnamed
        };
        assert_eq!(whose(&in_wf_group, 1, 100, &running), Whose::Another);
    }
}
