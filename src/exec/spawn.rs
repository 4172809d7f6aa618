//! Starting a command's process, and waiting for it.
//!
//! A child is made with `clone(CLONE_VM | CLONE_VFORK)`, as `posix_spawn(3)` makes
//! it, and does only what a command of `wf` needs before its exec: it puts the
//! signals `wf` catches back to their default, makes its own process group, takes
//! `/dev/null` (or the given pipe) as stdin and the one output pipe end as both
//! stdout and stderr, changes to its directory, empties its signal mask and execs.
//! glibc's `posix_spawn` and `std::process::Command` make many more system calls,
//! in the child and in `wf`, for the same result.
//!
//! The child opens `/dev/null` itself: one kept open by `wf` and given to every
//! command would be one open file shared by all of them, and a lock or a flag one
//! command set on its stdin would stay for the next (tried, for the path lookup it
//! saves, which no wall time showed).
//!
//! Otherwise the process starts as `Command` starts it: a full path, so no search
//! of PATH in the child; `argv[0]` the name the plan gave; the signal mask emptied,
//! SIGPIPE back to its default action and other ignored signals left ignored (as
//! `nohup` expects); the environment `wf`'s own with the command's variables over
//! it.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::ExitStatus;

use rustix::process::{Pid, WaitOptions};

/// What a command is started with.
pub struct Launch<'a> {
    /// The program's path; one without a `/` is looked up on PATH by the caller.
    pub path: &'a Path,
    /// `argv`, its first the program's name as the plan gave it.
    pub argv: &'a [String],
    pub cwd: &'a Path,
    /// Variables set over `wf`'s own environment.
    pub env: &'a [(String, String)],
    /// The read end of a pipe to give as stdin; `None`: `/dev/null`.
    pub stdin: Option<BorrowedFd<'a>>,
    /// Where stdout and stderr go.
    pub output: BorrowedFd<'a>,
}

/// A started command's leader, to wait for. Never reaped but through
/// [`Leader::try_wait`] and [`Leader::wait`], so its pid stays its own until then.
#[derive(Debug)]
pub struct Leader {
    pid: Pid,
}

impl Leader {
    pub fn id(&self) -> u32 {
        self.pid.as_raw_nonzero().get().unsigned_abs()
    }

    /// Its exit status, reaping it, if it exited.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        wait(self.pid, WaitOptions::NOHANG)
    }

    /// Waits for it to exit and reaps it.
    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            match wait(self.pid, WaitOptions::empty()) {
                Ok(Some(status)) => return Ok(status),
                Ok(None) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

fn wait(pid: Pid, options: WaitOptions) -> io::Result<Option<ExitStatus>> {
    Ok(rustix::process::waitpid(Some(pid), options)?
        .map(|(_, status)| ExitStatus::from_raw(status.as_raw())))
}

/// Starts the command; an error is the clone's or the child's, an exec failure's
/// included (`NotFound` for a program that is not there).
pub fn spawn(launch: &Launch<'_>) -> io::Result<Leader> {
    let path = c_string(launch.path.as_os_str().as_bytes())?;
    let argv = launch
        .argv
        .iter()
        .map(|a| c_string(a.as_bytes()))
        .collect::<io::Result<Vec<_>>>()?;
    let envp = environment(launch.env)?;
    let cwd = c_string(launch.cwd.as_os_str().as_bytes())?;
    let argv_ptrs = null_terminated(&argv);
    // A descriptor on 0, 1 or 2 (a process started with one closed gets it for its
    // next pipe) would be replaced by an earlier step of the child's: moved above.
    let stdin_copy = launch.stdin.map(above_stdio).transpose()?.flatten();
    let output_copy = above_stdio(launch.output)?;
    let raw = |fd: BorrowedFd<'_>, copy: &Option<OwnedFd>| {
        copy.as_ref().map_or(fd.as_raw_fd(), AsRawFd::as_raw_fd)
    };
    let mut plan = ChildPlan {
        path: path.as_ptr(),
        argv: argv_ptrs.as_ptr(),
        envp: envp.pointers.as_ptr(),
        cwd: cwd.as_ptr(),
        stdin: launch.stdin.map_or(-1, |fd| raw(fd, &stdin_copy)),
        output: raw(launch.output, &output_copy),
        err: 0,
    };
    // The child's stack, written only by the child while this thread waits
    // (CLONE_VFORK), down from its end, 16-byte aligned. It lies in this frame, as
    // musl's `posix_spawn` places it (below it only the clone call's frames,
    // suspended meanwhile), so a spawn allocates nothing for it.
    #[allow(clippy::large_stack_arrays)]
    let mut stack = [std::mem::MaybeUninit::<u128>::uninit(); CHILD_STACK / 16];
    // SAFETY: `stack` holds CHILD_STACK bytes; one past its end is its top.
    let top = unsafe { stack.as_mut_ptr().add(CHILD_STACK / 16) };
    let blocked = SignalsBlocked::all()?;
    // SAFETY: `child_main` only makes system calls and reads `plan`, which outlives
    // the call (this thread is suspended until the child has exec'd or exited);
    // `top` is the top of a stack of CHILD_STACK bytes that nothing else uses.
    let pid = unsafe {
        libc::clone(
            child_main,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (&raw mut plan).cast(),
        )
    };
    let clone_error = io::Error::last_os_error();
    drop(blocked);
    let pid = (pid > 0)
        .then(|| Pid::from_raw(pid))
        .flatten()
        .ok_or(clone_error)?;
    // SAFETY: the child wrote it, if at all, before it exited (the clone returned).
    let err = unsafe { std::ptr::read_volatile(&raw const plan.err) };
    if err != 0 {
        // It exited without an exec: reap it, and say why.
        let _ = wait(pid, WaitOptions::empty());
        return Err(io::Error::from_raw_os_error(err));
    }
    Ok(Leader { pid })
}

/// Bytes of stack for the child between the clone and the exec: it calls a few
/// system call wrappers (glibc's `posix_spawn` gives its child 32 KiB and room for
/// the arguments, which this one does not copy).
const CHILD_STACK: usize = 64 * 1024;

/// What the child does before its exec, all made ready by the parent: the child
/// runs in `wf`'s memory on its own stack and may only make system calls.
#[repr(C)]
struct ChildPlan {
    path: *const libc::c_char,
    argv: *const *mut libc::c_char,
    envp: *const *mut libc::c_char,
    cwd: *const libc::c_char,
    /// The descriptor to give as stdin; -1 for `/dev/null`.
    stdin: libc::c_int,
    output: libc::c_int,
    /// The errno of the step that failed, set by the child before it exits; 0 if
    /// it exec'd.
    err: libc::c_int,
}

/// The child, from the clone to the exec. Every signal is blocked (the parent
/// blocked them for the clone), so no handler of `wf`'s runs here until each one
/// caught is back to its default.
extern "C" fn child_main(plan: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `plan` is the parent's `ChildPlan`, alive while the parent waits; every
    // call below is a system call wrapper given valid pointers or none.
    unsafe {
        let plan = &mut *plan.cast::<ChildPlan>();
        for sig in 1..32 {
            if sig == libc::SIGKILL || sig == libc::SIGSTOP {
                continue;
            }
            let mut now: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &raw mut now) != 0 {
                continue;
            }
            let caught = now.sa_sigaction != libc::SIG_DFL && now.sa_sigaction != libc::SIG_IGN;
            let ignored_pipe = sig == libc::SIGPIPE && now.sa_sigaction == libc::SIG_IGN;
            if caught || ignored_pipe {
                let default: libc::sigaction = std::mem::zeroed();
                libc::sigaction(sig, &raw const default, std::ptr::null_mut());
            }
        }
        if libc::setpgid(0, 0) != 0 {
            child_failed(plan);
        }
        if plan.stdin >= 0 {
            if libc::dup2(plan.stdin, 0) < 0 {
                child_failed(plan);
            }
        } else {
            libc::close(0);
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
            if null < 0 || (null != 0 && (libc::dup2(null, 0) < 0 || libc::close(null) < 0)) {
                child_failed(plan);
            }
        }
        if libc::dup2(plan.output, 1) < 0
            || libc::dup2(plan.output, 2) < 0
            || libc::chdir(plan.cwd) != 0
        {
            child_failed(plan);
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&raw mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &raw const empty, std::ptr::null_mut());
        libc::execve(plan.path, plan.argv.cast(), plan.envp.cast());
        child_failed(plan)
    }
}

/// Leaves the failed step's errno for the parent and exits.
unsafe fn child_failed(plan: &mut ChildPlan) -> ! {
    // SAFETY: errno is this thread's (the parent's, shared while it waits); `_exit`
    // runs no handlers and flushes nothing.
    unsafe {
        std::ptr::write_volatile(&raw mut plan.err, *libc::__errno_location());
        libc::_exit(127)
    }
}

/// Every signal blocked on this thread, internal ones too, until dropped: a child
/// cloned meanwhile starts with them blocked.
struct SignalsBlocked {
    old: u64,
}

impl SignalsBlocked {
    fn all() -> io::Result<SignalsBlocked> {
        let all: u64 = !0;
        let mut old: u64 = 0;
        // SAFETY: the kernel's signal set is 8 bytes on Linux; both pointers are to
        // live u64s. Called directly, not through glibc, which keeps its own signals
        // unblocked.
        let done = unsafe {
            libc::syscall(
                libc::SYS_rt_sigprocmask,
                libc::SIG_BLOCK,
                &raw const all,
                &raw mut old,
                std::mem::size_of::<u64>(),
            )
        };
        if done != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(SignalsBlocked { old })
    }
}

impl Drop for SignalsBlocked {
    fn drop(&mut self) {
        // SAFETY: as in `all`.
        unsafe {
            libc::syscall(
                libc::SYS_rt_sigprocmask,
                libc::SIG_SETMASK,
                &raw const self.old,
                std::ptr::null_mut::<u64>(),
                std::mem::size_of::<u64>(),
            );
        }
    }
}

/// A close-on-exec copy of `fd` above 2 when it is 0, 1 or 2 (to hold until the
/// spawn returns); `None` when it is above already.
fn above_stdio(fd: BorrowedFd<'_>) -> io::Result<Option<OwnedFd>> {
    if fd.as_raw_fd() > 2 {
        return Ok(None);
    }
    Ok(Some(rustix::io::fcntl_dupfd_cloexec(fd, 3)?))
}

/// A command's environment: `wf`'s own with some variables set over it.
struct Environment {
    /// The variables set over `wf`'s, as `KEY=VALUE`: held for `pointers`, which
    /// point into them.
    _set: Vec<CString>,
    /// `envp`: `wf`'s variables not set over, then `set`, then NULL.
    pointers: Vec<*mut libc::c_char>,
}

/// `wf`'s environment with `overrides` set over it.
fn environment(overrides: &[(String, String)]) -> io::Result<Environment> {
    // The last setting of a variable wins, as with `Command::env`.
    let mut set: Vec<(&str, CString)> = Vec::with_capacity(overrides.len());
    for (k, v) in overrides {
        set.retain(|(have, _)| have != k);
        // Sized for the NUL too: one allocation per variable, not a copy to add it.
        let mut kv = Vec::with_capacity(k.len() + v.len() + 2);
        kv.extend_from_slice(k.as_bytes());
        kv.push(b'=');
        kv.extend_from_slice(v.as_bytes());
        set.push((k.as_str(), c_string(kv)?));
    }
    let mut pointers: Vec<*mut libc::c_char> = own_environment()
        .iter()
        .filter(|(key, _)| !set.iter().any(|(k, _)| k.as_bytes() == key.as_slice()))
        .map(|(_, kv)| kv.as_ptr().cast_mut())
        .collect();
    let set: Vec<CString> = set.into_iter().map(|(_, kv)| kv).collect();
    pointers.extend(set.iter().map(|kv| kv.as_ptr().cast_mut()));
    pointers.push(std::ptr::null_mut());
    Ok(Environment {
        _set: set,
        pointers,
    })
}

/// `wf`'s own environment, `(KEY, KEY=VALUE)`, read once at the first spawn rather
/// than copied for every command: nothing in `wf` changes it.
fn own_environment() -> &'static [(Vec<u8>, CString)] {
    static OWN: std::sync::OnceLock<Vec<(Vec<u8>, CString)>> = std::sync::OnceLock::new();
    OWN.get_or_init(|| {
        std::env::vars_os()
            .filter_map(|(k, v)| {
                let key = k.into_vec();
                let mut kv = key.clone();
                kv.push(b'=');
                kv.extend(v.into_vec());
                // The environment holds C strings: a NUL cannot be in it.
                Some((key, CString::new(kv).ok()?))
            })
            .collect()
    })
}

/// Borrowed bytes are copied once, sized for the NUL; owned ones are kept, with
/// room for it if they have it (`CString::new`).
fn c_string(bytes: impl Into<Vec<u8>>) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a NUL byte in a command, its directory or its environment",
        )
    })
}

fn null_terminated(strings: &[CString]) -> Vec<*mut libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr().cast_mut())
        .chain(std::iter::once(std::ptr::null_mut()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;
    use std::os::fd::AsFd as _;

    /// Runs `sh -c script` (its `$0` is `name`) in `dir` and gives what it printed
    /// on stdout and stderr, and its exit status.
    fn sh(script: &str, dir: &Path, env: &[(String, String)]) -> (String, ExitStatus) {
        let (mut read, write) = std::io::pipe().unwrap();
        let argv = [
            "name".to_string(),
            "-c".into(),
            script.into(),
            "name".into(),
            "one".into(),
        ];
        let mut leader = spawn(&Launch {
            path: Path::new("/bin/sh"),
            argv: &argv,
            cwd: dir,
            env,
            stdin: None,
            output: write.as_fd(),
        })
        .unwrap();
        drop(write);
        let mut out = String::new();
        read.read_to_string(&mut out).unwrap();
        (out, leader.wait().unwrap())
    }

    /// A variable is replaced by one of the command's only when their names are the
    /// same, not when one's is a prefix of the other's; each is there once.
    #[test]
    fn a_command_variable_replaces_only_the_one_of_its_name() {
        let own: Vec<Vec<u8>> = std::env::vars_os().map(|(k, _)| k.into_vec()).collect();
        assert!(own.iter().any(|k| k == b"PATH"), "the test needs a PATH");
        let set = |k: &str, v: &str| (k.to_string(), v.to_string());
        let env = environment(&[
            set("PAT", "short"),
            set("PATH", "/first"),
            set("PATHS", "long"),
            set("PATH", "/last"),
        ])
        .unwrap();
        let (last, rest) = env.pointers.split_last().unwrap();
        assert!(last.is_null());
        let vars: Vec<Vec<u8>> = rest
            .iter()
            // SAFETY: each points into a live C string, `env`'s or the static one's.
            .map(|p| unsafe { std::ffi::CStr::from_ptr(*p) }.to_bytes().to_vec())
            .collect();
        let key = |kv: &[u8]| kv.split(|b| *b == b'=').next().unwrap().to_vec();
        for k in &own {
            let n = vars.iter().filter(|kv| key(kv) == *k).count();
            assert_eq!(n, 1, "{}", String::from_utf8_lossy(k));
        }
        let tail: Vec<&[u8]> = vars[vars.len() - 3..].iter().map(Vec::as_slice).collect();
        assert_eq!(
            tail,
            [&b"PAT=short"[..], &b"PATHS=long"[..], &b"PATH=/last"[..]]
        );
    }

    #[test]
    fn a_command_gets_its_argv_directory_environment_and_one_output_for_both_streams() {
        let dir = tempfile::tempdir().unwrap();
        // HOME is `wf`'s own too: set over it, it is there once, with this value.
        let env = [
            ("WF_A".to_string(), "first".to_string()),
            ("HOME".to_string(), "/elsewhere".to_string()),
            ("WF_A".to_string(), "last".to_string()),
        ];
        let (out, status) = sh(
            r#"echo "$0 $1 $WF_A $(pwd -P)"; echo "$PATH"; echo "$HOME $(env | grep -c '^HOME=')"; echo err >&2; read x; echo "read $?"; exit 7"#,
            dir.path(),
            &env,
        );
        let cwd = dir.path().canonicalize().unwrap();
        let path = std::env::var("PATH").unwrap();
        assert_eq!(
            out,
            format!(
                "name one last {}\n{path}\n/elsewhere 1\nerr\nread 1\n",
                cwd.display()
            )
        );
        assert_eq!(status.code(), Some(7));
    }

    #[test]
    fn a_command_leads_its_own_group_with_no_signal_blocked_and_sigpipe_not_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let (out, status) = sh(
            // The masks read by the leader itself (`exec`): a shell blocks every
            // signal for a moment while it forks, and /proc read then shows that.
            "echo $$; cut -d' ' -f5 /proc/$$/stat; exec grep -E '^Sig(Blk|Ign)' /proc/self/status",
            dir.path(),
            &[],
        );
        assert!(status.success(), "{out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], lines[1], "its pid is its process group: {out}");
        let mask = |name: &str| {
            let line = lines.iter().find(|l| l.starts_with(name)).unwrap();
            u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
        };
        assert_eq!(mask("SigBlk:"), 0, "{out}");
        assert_eq!(mask("SigIgn:") & (1 << (libc::SIGPIPE - 1)), 0, "{out}");
    }

    /// `nohup wf …`: a signal `wf` was started with ignored stays ignored in its
    /// commands (only SIGPIPE goes back to its default).
    #[test]
    fn a_signal_ignored_by_wf_stays_ignored_in_its_commands() {
        // SIGUSR2: nothing else in the tests uses it.
        // SAFETY: setting a disposition; the old one is put back below.
        let old = unsafe { libc::signal(libc::SIGUSR2, libc::SIG_IGN) };
        let dir = tempfile::tempdir().unwrap();
        let (out, status) = sh("exec grep -E '^SigIgn' /proc/self/status", dir.path(), &[]);
        // SAFETY: as above.
        unsafe { libc::signal(libc::SIGUSR2, old) };
        assert!(status.success(), "{out}");
        let ignored = u64::from_str_radix(out.split_whitespace().nth(1).unwrap(), 16).unwrap();
        assert_ne!(ignored & (1 << (libc::SIGUSR2 - 1)), 0, "{out}");
    }

    #[test]
    fn a_program_that_is_not_there_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let (_read, write) = std::io::pipe().unwrap();
        let err = spawn(&Launch {
            path: &dir.path().join("missing"),
            argv: &["missing".to_string()],
            cwd: dir.path(),
            env: &[],
            stdin: None,
            output: write.as_fd(),
        })
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound, "{err}");
    }

    #[test]
    fn an_output_pipe_on_a_standard_descriptor_still_gets_both_streams() {
        // A process started with its stdin closed gets fd 0 for its next pipe: the
        // child's own stdin (its /dev/null) must not replace that pipe before the
        // pipe is given as stdout and stderr. Put a pipe on fd 0 for the spawn.
        let dir = tempfile::tempdir().unwrap();
        let (mut read, write) = std::io::pipe().unwrap();
        // SAFETY: fd 0 is saved and put back below; nothing else in the test process
        // reads its stdin.
        let saved = unsafe { libc::dup(0) };
        assert!(saved >= 0);
        // SAFETY: as above; `write` is a live descriptor.
        assert_eq!(unsafe { libc::dup2(write.as_raw_fd(), 0) }, 0);
        drop(write);
        let argv = [
            "sh".to_string(),
            "-c".into(),
            "echo out; echo err >&2".into(),
        ];
        let spawned = spawn(&Launch {
            path: Path::new("/bin/sh"),
            argv: &argv,
            cwd: dir.path(),
            env: &[],
            stdin: None,
            // SAFETY: fd 0 is the pipe's write end until it is put back below.
            output: unsafe { BorrowedFd::borrow_raw(0) },
        });
        // SAFETY: puts the saved stdin back, which also closes the pipe's end on 0.
        unsafe {
            libc::dup2(saved, 0);
            libc::close(saved);
        }
        let status = spawned.unwrap().wait().unwrap();
        let mut out = String::new();
        read.read_to_string(&mut out).unwrap();
        assert_eq!(out, "out\nerr\n");
        assert!(status.success());
    }
}
