//! The `Test` builder every end-to-end test uses: a temp project and a temp
//! `WF_HOME`, the real `wf` binary, and a pinned clock, so tests never touch the real
//! home and their output is stable.

#![allow(dead_code)] // each test module uses its own part of the builder

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

pub const NOW: &str = "2026-01-08T10:00:00Z";

/// The `wf` every [`Test::command`] runs: this build's, or `WF_TEST_BIN` when set —
/// how a regression test is run against the older build it must fail on
/// (`proof_holes.rs`).
pub fn wf_binary() -> PathBuf {
    std::env::var_os("WF_TEST_BIN").map_or_else(|| env!("CARGO_BIN_EXE_wf").into(), PathBuf::from)
}

/// A task's duration as the run reports it, `(0.0s)`, and as events carry it,
/// `duration_ms=3` or `"duration_ms": 3`: how long `true` takes is the machine's.
static DURATION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r#"\(\d+\.\ds\)|duration_ms(=|": )\d+"#).expect("a valid regex")
});

/// Starts `cmd` with the signals that interrupt a run at their default, as a
/// terminal starts a command, but `ignored` ignored (as `nohup` starts one). `wf`
/// keeps a signal it was started with ignored (`run::signals::install`), and a
/// background job of a non-interactive shell (a CI script started with `&`, under
/// `setsid nohup`) starts with SIGINT and SIGQUIT ignored: a test that interrupts
/// `wf` must not inherit that.
pub fn signals_at_default_but(cmd: &mut Command, ignored: &'static [i32]) {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: `signal` is async-signal-safe; only the dispositions of these change.
    unsafe {
        cmd.pre_exec(move || {
            for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGTERM] {
                let how = if ignored.contains(&sig) {
                    libc::SIG_IGN
                } else {
                    libc::SIG_DFL
                };
                libc::signal(sig, how);
            }
            Ok(())
        });
    }
}

pub struct Test {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub project: PathBuf,
    pub home: PathBuf,
    env: Vec<(String, String)>,
    env_remove: Vec<String>,
    stdin: Option<Vec<u8>>,
}

#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The test's temp root, written `[ROOT]` in [`Run::whole`].
    pub root: PathBuf,
}

impl Run {
    /// Exit code, stdout and stderr as one text for a whole-output snapshot: the
    /// temp dir is `[ROOT]`, the repository `[REPO]`, the project id `[ID]`, and
    /// durations `(N.Ns)` and `duration_ms=N`, so the
    /// text is the same on every machine and every run.
    pub fn whole(&self) -> String {
        let id = wf::project::path_id(&self.root.join("project"));
        let clean = |text: &str| {
            let text = text
                .replace(&self.root.display().to_string(), "[ROOT]")
                .replace(env!("CARGO_MANIFEST_DIR"), "[REPO]")
                .replace(&id, "[ID]");
            DURATION
                .replace_all(&text, |c: &regex::Captures<'_>| match c.get(1) {
                    Some(sep) => format!("duration_ms{}N", sep.as_str()),
                    None => "(N.Ns)".to_string(),
                })
                .into_owned()
        };
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            self.code,
            clean(&self.stdout),
            clean(&self.stderr)
        )
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    #[track_caller]
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn code(self, code: i32) -> Run {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

impl Test {
    pub fn new() -> Test {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().canonicalize().expect("canonical temp dir");
        let project = root.join("project");
        let home = root.join("home");
        std::fs::create_dir_all(project.join(".git")).expect("project dir");
        std::fs::create_dir_all(&home).expect("home dir");
        Test {
            _tmp: tmp,
            root,
            project,
            home,
            env: Vec::new(),
            env_remove: Vec::new(),
            stdin: None,
        }
    }

    /// Writes `content` to `rel` inside the project, creating directories.
    /// Makes the project a git repository of its own with everything committed (the
    /// `.git` marker the project starts with is replaced).
    pub fn git_commit_all(&self) {
        let _ = std::fs::remove_dir_all(self.project.join(".git"));
        let ok = Command::new("sh")
            .args([
                "-c",
                "git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm plan",
            ])
            .current_dir(&self.project)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .expect("git")
            .success();
        assert!(ok, "git init");
    }

    /// A git identity for the commits wf makes in the project (`git_commit`, agent
    /// worktrees), and no user's global git config.
    pub fn git_identity(&mut self) {
        for (k, v) in [
            ("GIT_AUTHOR_NAME", "t"),
            ("GIT_AUTHOR_EMAIL", "t@example.com"),
            ("GIT_COMMITTER_NAME", "t"),
            ("GIT_COMMITTER_EMAIL", "t@example.com"),
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ] {
            self.env(k, v);
        }
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Test {
        let path = self.project.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("parent dir");
        }
        std::fs::write(&path, content).expect("write file");
        self
    }

    /// Writes the project's `.claude/config/project-config.json`.
    pub fn config(&self, content: impl AsRef<[u8]>) -> &Test {
        self.write(".claude/config/project-config.json", content)
    }

    /// Puts the claude-workflow plugin's example state where this project's state goes.
    pub fn plugin_state(&self) -> &Test {
        std::fs::create_dir_all(self.workflow_dir()).expect("workflow dir");
        std::fs::copy(
            format_file("claude-workflow/workflow-state.example.json"),
            self.workflow_dir().join("workflow-state.json"),
        )
        .expect("copy the plugin's state");
        self
    }

    pub fn env(&mut self, key: &str, value: impl AsRef<str>) -> &mut Test {
        self.env.push((key.into(), value.as_ref().into()));
        self
    }

    pub fn env_remove(&mut self, key: &str) -> &mut Test {
        self.env_remove.push(key.into());
        self
    }

    pub fn stdin(&mut self, input: impl Into<Vec<u8>>) -> &mut Test {
        self.stdin = Some(input.into());
        self
    }

    /// A `wf` command with this test's environment, not yet run.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(wf_binary());
        cmd.args(args)
            .current_dir(&self.project)
            .env("WF_HOME", &self.home)
            .env("HOME", self.root.join("user-home"))
            .env("WF_NOW", NOW)
            .env("NO_COLOR", "1")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CLICOLOR")
            .env_remove("COLUMNS")
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("WF_TEST_CRASH_AT")
            // Set, it would turn every run into a shell completion.
            .env_remove("COMPLETE");
        for key in &self.env_remove {
            cmd.env_remove(key);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// `program` with the environment and directory this test gives `wf`.
    pub fn program(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let like = self.command(&[]);
        let mut command = Command::new(program);
        for (key, value) in like.get_envs() {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        if let Some(dir) = like.get_current_dir() {
            command.current_dir(dir);
        }
        command
    }

    /// Runs `wf ARGS` in the project and waits for it.
    pub fn wf(&self, args: &[&str]) -> Run {
        let mut cmd = self.command(args);
        cmd.stdin(if self.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn wf");
        if let Some(input) = &self.stdin {
            use std::io::Write;
            let mut pipe = child.stdin.take().expect("stdin pipe");
            let _ = pipe.write_all(input);
        }
        let out = child.wait_with_output().expect("wait for wf");
        self.run_of(&out)
    }

    /// Runs `cmd` (from [`Test::command`]) to completion, or kills it after `secs`
    /// and fails the test: for the inputs that could make `wf` hang.
    #[track_caller]
    pub fn within(&self, mut cmd: Command, secs: u64) -> Run {
        cmd.stdin(Stdio::null()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn wf");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        while child.try_wait().expect("wait for wf").is_none() {
            if std::time::Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("wf hung: still running after {secs} s");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let out = child.wait_with_output().expect("collect wf's output");
        self.run_of(&out)
    }

    fn run_of(&self, out: &std::process::Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            root: self.root.clone(),
        }
    }

    /// Every file of the workflow dir with its bytes, but the lock file (whose
    /// holder's pid changes with every command), for "left byte-identical" checks.
    pub fn workflow_files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        snapshot_dir(&self.workflow_dir())
            .into_iter()
            .filter(|(p, _)| !p.ends_with(".lock"))
            .collect()
    }

    /// The project id `wf` derives from the project path.
    pub fn project_id(&self) -> String {
        wf::project::path_id(&self.project)
    }

    pub fn workflow_dir(&self) -> PathBuf {
        self.home.join(self.project_id())
    }

    /// The state as written on disk (the snapshot, without folding the event log).
    pub fn state_file(&self) -> Value {
        let text = std::fs::read_to_string(self.workflow_dir().join("workflow-state.json"))
            .expect("read workflow-state.json");
        serde_json::from_str(&text).expect("state is JSON")
    }

    /// Writes `state` over the snapshot, as a hand edit or another tool would.
    pub fn write_state(&self, state: &Value) {
        let path = self.workflow_dir().join("workflow-state.json");
        std::fs::write(path, serde_json::to_vec_pretty(state).unwrap()).expect("write state");
    }

    /// The state as `wf status --json` sees it (snapshot plus event log).
    /// The workflow's event log, a JSON value per line; a line that is not JSON fails
    /// the test.
    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(self.workflow_dir().join("events.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    pub fn state(&self) -> Value {
        self.wf(&["status", "--json"]).ok().json()["state"].clone()
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.project.join(rel)).expect("read project file")
    }
}

/// The first JSON document a running `wf` prints (`wf ui --json`, before it serves
/// until stopped), read a line at a time.
#[track_caller]
pub fn first_document(out: &mut impl std::io::BufRead) -> Value {
    let mut text = String::new();
    loop {
        let mut line = String::new();
        let read = out.read_line(&mut line).expect("read wf's stdout");
        assert!(read > 0, "wf ended before printing a document: {text}");
        text.push_str(&line);
        if let Ok(doc) = serde_json::from_str(&text) {
            return doc;
        }
    }
}

/// A test script in another language (tests/mcp/, tests/ui/) succeeded: it exits 0
/// and its last line is `done`, else the test fails with all it printed.
/// Each of `lines` stands exactly once in `text`: output shown as it came is not
/// shown again.
#[track_caller]
pub fn assert_each_once(text: &str, lines: &[&str]) {
    for line in lines {
        assert_eq!(text.matches(line).count(), 1, "{line}, once in: {text}");
    }
}

#[track_caller]
pub fn assert_script_done(out: &std::process::Output, what: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.ends_with("done\n"),
        "{what} failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

/// Every file under `dir` with its bytes, for "left byte-identical" checks.
pub fn snapshot_dir(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    files.sort();
    files
}

/// The repository's own `fixtures/` directory.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// A real file of a tool `wf` interoperates with: `fixtures/formats/` (where each
/// comes from is in `fixtures/formats/SOURCES.md`).
pub fn format_file(rel: &str) -> PathBuf {
    fixture("formats").join(rel)
}
