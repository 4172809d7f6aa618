//! Running `git` for what `wf` learns from a repository (the hook's tree
//! fingerprint, `src/agent/tree.rs`; an agent's real changes, `src/proof/tree.rs`):
//! no shell, a deadline, stdout read whole on a thread so git never blocks on a
//! full pipe, and nothing but `None` when git is missing, fails or is too slow.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `git ARGS` in `dir` with `env` added: its stdout when it succeeds before
/// `deadline` and prints at most `max_out` bytes, else `None`.
/// `GIT_OPTIONAL_LOCKS=0`: a status must not take the index lock an editor or the
/// agent's own git may be waiting for.
pub fn output(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &Path)],
    deadline: Instant,
    max_out: usize,
) -> Option<Vec<u8>> {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut out = child.stdout.take()?;
    // Read on a thread, all of it (keeping at most max_out), so git never blocks
    // on a full pipe while this one waits for its exit.
    let reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut whole = true;
        loop {
            match out.read(&mut buf) {
                Ok(0) => break,
                Ok(n) if kept.len() + n <= max_out => kept.extend_from_slice(&buf[..n]),
                Ok(_) => whole = false,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => {
                    whole = false;
                    break;
                }
            }
        }
        whole.then_some(kept)
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(2));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let out = reader.join().ok()??;
    status.success().then_some(out)
}
