//! Starting a command's process: `posix_spawn(3)` asked for only what a command of
//! `wf` needs, and waiting for it.
//!
//! `std::process::Command` opens `/dev/null` in `wf` for a null stdin and closes it,
//! needs its own copy of the output pipe for stderr (a `dup` and a `close`), and has
//! glibc check the descriptors of three `dup2`s (a `getrlimit` each side): five system
//! calls more per command, on the thread that runs every command, than here, where
//! `/dev/null` is opened by the child (a file action) and the one pipe end is given to
//! both stdout and stderr. Otherwise the process starts as `Command` starts
//! it (a full path, so no search of PATH in the child; `argv[0]` the name the plan
//! gave; the signal mask emptied and SIGPIPE back to its default action; the
//! environment `wf`'s own with the command's variables over it), in a process group
//! of its own, in its directory.

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

/// Starts the command; an error is `posix_spawn`'s, an exec failure's included
/// (`NotFound` for a program that is not there).
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
    // next pipe) would be replaced by an earlier action of the child's: moved above.
    let stdin_copy = launch.stdin.map(above_stdio).transpose()?.flatten();
    let output_copy = above_stdio(launch.output)?;
    let raw = |fd: BorrowedFd<'_>, copy: &Option<OwnedFd>| {
        copy.as_ref().map_or(fd.as_raw_fd(), AsRawFd::as_raw_fd)
    };
    let output = raw(launch.output, &output_copy);
    let mut actions = FileActions::new()?;
    match launch.stdin {
        Some(fd) => actions.dup2(raw(fd, &stdin_copy), 0)?,
        None => actions.open_null(0)?,
    }
    actions.dup2(output, 1)?;
    actions.dup2(output, 2)?;
    actions.chdir(&cwd)?;
    let attrs = Attrs::new()?;
    let mut pid: libc::pid_t = 0;
    // SAFETY: every pointer is to a live, NUL-terminated string or a NULL-terminated
    // array of them, held until the call returns; `actions` and `attrs` are
    // initialized and destroyed once, by their owners.
    let err = unsafe {
        libc::posix_spawn(
            &raw mut pid,
            path.as_ptr(),
            &raw const actions.0,
            &raw const attrs.0,
            argv_ptrs.as_ptr(),
            envp.pointers.as_ptr(),
        )
    };
    check(err)?;
    Pid::from_raw(pid)
        .map(|pid| Leader { pid })
        .ok_or_else(|| io::Error::other("posix_spawn gave no pid"))
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
        set.push((
            k.as_str(),
            c_string(&[k.as_bytes(), b"=", v.as_bytes()].concat())?,
        ));
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

/// `wf`'s own environment, `(KEY, KEY=VALUE)`, read at the first spawn: nothing in
/// `wf` changes it, and copying it for every command was a tenth of a worker's time
/// per task (`perf`, a 2,000-task plan).
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

fn c_string(bytes: &[u8]) -> io::Result<CString> {
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

/// A `posix_spawn` call's result: 0, or an errno.
fn check(err: libc::c_int) -> io::Result<()> {
    if err == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(err))
    }
}

/// What the child does with its file descriptors and directory before the exec.
struct FileActions(libc::posix_spawn_file_actions_t);

impl FileActions {
    fn new() -> io::Result<Box<FileActions>> {
        // Boxed: glibc may keep pointers into it while it is filled.
        // SAFETY: zeroed memory is a valid place for init to fill.
        let mut actions = Box::new(FileActions(unsafe { std::mem::zeroed() }));
        // SAFETY: a valid place to initialize.
        check(unsafe { libc::posix_spawn_file_actions_init(&raw mut actions.0) })?;
        Ok(actions)
    }

    fn dup2(&mut self, fd: libc::c_int, to: libc::c_int) -> io::Result<()> {
        // SAFETY: initialized in `new`.
        check(unsafe { libc::posix_spawn_file_actions_adddup2(&raw mut self.0, fd, to) })
    }

    fn open_null(&mut self, to: libc::c_int) -> io::Result<()> {
        // SAFETY: as in `dup2`; the path is a static NUL-terminated string, which
        // glibc copies.
        check(unsafe {
            libc::posix_spawn_file_actions_addopen(
                &raw mut self.0,
                to,
                c"/dev/null".as_ptr(),
                libc::O_RDONLY,
                0,
            )
        })
    }

    fn chdir(&mut self, dir: &CString) -> io::Result<()> {
        // SAFETY: as in `dup2`; glibc copies the path.
        check(unsafe { libc::posix_spawn_file_actions_addchdir_np(&raw mut self.0, dir.as_ptr()) })
    }
}

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(&raw mut self.0) };
    }
}

/// The child's process group (a new one, its own) and signals.
struct Attrs(libc::posix_spawnattr_t);

impl Attrs {
    fn new() -> io::Result<Box<Attrs>> {
        // SAFETY: zeroed memory is a valid place for init to fill; each call below
        // gets the initialized attributes and a valid signal set.
        unsafe {
            let mut attrs = Box::new(Attrs(std::mem::zeroed()));
            check(libc::posix_spawnattr_init(&raw mut attrs.0))?;
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&raw mut set);
            check(libc::posix_spawnattr_setsigmask(
                &raw mut attrs.0,
                &raw const set,
            ))?;
            libc::sigaddset(&raw mut set, libc::SIGPIPE);
            check(libc::posix_spawnattr_setsigdefault(
                &raw mut attrs.0,
                &raw const set,
            ))?;
            check(libc::posix_spawnattr_setpgroup(&raw mut attrs.0, 0))?;
            let flags = libc::POSIX_SPAWN_SETPGROUP
                | libc::POSIX_SPAWN_SETSIGMASK
                | libc::POSIX_SPAWN_SETSIGDEF;
            check(libc::posix_spawnattr_setflags(
                &raw mut attrs.0,
                i16::try_from(flags).unwrap_or(0),
            ))?;
            Ok(attrs)
        }
    }
}

impl Drop for Attrs {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(&raw mut self.0) };
    }
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
