//! `wf` in real terminals, not an emulator of ours: tmux (its screen read back with
//! `capture-pane`) at 80 and 120 columns, and `script`, whose terminal reports 0
//! columns as `docker run -t` and CI log collectors do. What a user would see is
//! asserted: lines the progress bar ran under are whole, with no fragment of it left
//! at their end; plan text shows escaped; a 0-column terminal gets tables of the
//! default width.
//!
//! tmux and `script` are skipped when missing, unless `WF_REQUIRE_TMUX` is set (CI
//! installs them and sets it), which makes a missing one a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::plans::{plan, start, task};
use crate::test::Test;

/// Whether `program` runs here; without it, a skip — or a failure under
/// `WF_REQUIRE_TMUX`.
fn have(program: &str, test: &str) -> bool {
    let found = Command::new(program)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        assert!(
            std::env::var_os("WF_REQUIRE_TMUX").is_none(),
            "WF_REQUIRE_TMUX is set but `{program}` is not installed (apt-get install tmux bsdutils)"
        );
        eprintln!("\n*** SKIPPED {test}: `{program}` is not installed ***\n");
    }
    found
}

/// A tmux server of this test's own (its socket in the test's temp dir).
struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    fn command(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.arg("-S").arg(&self.socket);
        cmd
    }

    /// Runs `wf ARGS` in a `cols` × `rows` window, waits for it to exit (at most
    /// 60 s), and returns its exit code and the window's lines, history included.
    fn run(t: &Test, args: &[&str], cols: u16, rows: u16) -> (i32, Vec<String>) {
        let tmux = Tmux {
            socket: t.root.join(format!("tmux-{cols}x{rows}.sock")),
        };
        let config = t.root.join("tmux.conf");
        std::fs::write(
            &config,
            "set -g remain-on-exit on\nset -g history-limit 10000\nset -g status off\n",
        )
        .expect("write tmux.conf");
        let like = t.command(args);
        let mut cmd = tmux.command();
        for (key, value) in like.get_envs() {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        // Through a shell that writes wf's exit code to a file: tmux can mark a pane
        // dead (its terminal closed) without ever learning its exit status.
        let exit_file = t.root.join(format!("tmux-{cols}x{rows}.exit"));
        cmd.arg("-f")
            .arg(&config)
            .args(["new-session", "-d", "-s", "wf"])
            .args(["-x", &cols.to_string(), "-y", &rows.to_string()])
            .arg("-c")
            .arg(&t.project)
            .args(["--", "sh", "-c", r#""$0" "$@"; echo $? > "$WF_TMUX_EXIT""#])
            .arg(env!("CARGO_BIN_EXE_wf"))
            .args(args)
            .env("WF_TMUX_EXIT", &exit_file);
        let ok = cmd.status().expect("run tmux").success();
        assert!(ok, "tmux new-session failed");
        let deadline = Instant::now() + Duration::from_secs(60);
        // Exited, and its terminal closed: everything it wrote is on the screen.
        let code = loop {
            let out = tmux
                .command()
                .args(["display-message", "-p", "-t", "wf", "#{pane_dead}"])
                .output()
                .expect("tmux display-message");
            let dead = String::from_utf8_lossy(&out.stdout).trim() == "1";
            if let (true, Ok(code)) = (dead, std::fs::read_to_string(&exit_file)) {
                break code.trim().parse().expect("an exit status");
            }
            if Instant::now() >= deadline {
                let screen = tmux
                    .command()
                    .args(["capture-pane", "-p", "-t", "wf"])
                    .output()
                    .expect("tmux capture-pane");
                panic!(
                    "wf did not exit in tmux; the screen:\n{}",
                    String::from_utf8_lossy(&screen.stdout)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let out = tmux
            .command()
            .args(["capture-pane", "-p", "-t", "wf", "-S", "-"])
            .output()
            .expect("tmux capture-pane");
        let screen = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.is_empty() && !l.starts_with("Pane is dead"))
            .collect();
        (code, screen)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self
            .command()
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
    }
}

/// Three tasks that each run long enough for the bar to be drawn under the lines
/// before them, and one that fails.
fn slow_plan(t: &Test) {
    start(
        t,
        &plan(&[
            task("T1", "a").verify("sleep 1"),
            task("T2", "a").verify("sleep 1").deps("T1"),
            task("T3", "a").verify("sleep 1").deps("T2"),
            task("T4", "a").verify("echo the end; false").deps("T3"),
        ]),
    );
}

#[test]
fn the_progress_bar_leaves_no_fragment_on_the_lines_above_it_in_tmux() {
    if !have(
        "tmux",
        "the_progress_bar_leaves_no_fragment_on_the_lines_above_it_in_tmux",
    ) {
        return;
    }
    let done = regex::Regex::new(r"^✓ T[123] task T[123] \(\d+\.\ds\)$").unwrap();
    for cols in [80, 120] {
        let t = Test::new();
        slow_plan(&t);
        let (code, screen) = Tmux::run(&t, &["workflow-execute", "--all"], cols, 30);
        let text = screen.join("\n");
        assert_eq!(code, 1, "{cols} columns:\n{text}");
        let passed: Vec<&String> = screen.iter().filter(|l| l.starts_with('✓')).collect();
        assert_eq!(passed.len(), 3, "{cols} columns:\n{text}");
        for line in passed {
            assert!(done.is_match(line), "{cols} columns: {line:?}\n{text}");
        }
        let failed = screen
            .iter()
            .find(|l| l.starts_with('✗'))
            .unwrap_or_else(|| panic!("no ✗ line at {cols} columns:\n{text}"));
        assert_eq!(
            failed, "✗ T4 task T4: check `echo the end; false` exited with 1",
            "{cols} columns:\n{text}"
        );
        // Nothing of the bar is left anywhere: not its elapsed time, not its cells.
        assert!(
            !screen
                .iter()
                .any(|l| l.contains("00:0") || l.contains('░') || l.contains('█')),
            "{cols} columns:\n{text}"
        );
        assert!(
            screen.iter().any(|l| l == "  | the end"),
            "{cols} columns:\n{text}"
        );
    }
}

#[test]
fn plan_text_and_a_log_show_escaped_in_tmux() {
    if !have("tmux", "plan_text_and_a_log_show_escaped_in_tmux") {
        return;
    }
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks: evil\n\n## T1: name \u{1b}]0;TITLE\u{7} end\n- **阶段**: a\n- **需求**: req \u{1b}]52;c;cHduZWQ=\u{7} \u{9b}2J done\n- **验证命令**: `printf 'out \\033]52;c;eA==\\007 \\033[2J x\\n'`\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let (code, next) = Tmux::run(&t, &["next"], 120, 30);
    let text = next.join("\n");
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(r"req \u{1b}]52;c;cHduZWQ=\u{7} \u{9b}2J done"),
        "{text}"
    );
    assert!(
        text.contains(r"# T1: name \u{1b}]0;TITLE\u{7} end"),
        "{text}"
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    let (code, logs) = Tmux::run(&t, &["logs", "T1"], 120, 30);
    let text = logs.join("\n");
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(r"out \u{1b}]52;c;eA==\u{7} \u{1b}[2J x"),
        "{text}"
    );
}

/// `wf ARGS` under `script`, whose terminal has 0 rows and 0 columns when `script`
/// itself runs without one; everything the terminal received.
fn under_script(t: &Test, args: &[&str]) -> (i32, String) {
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut line = quote(env!("CARGO_BIN_EXE_wf"));
    for arg in args {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    // Colour on, as on a terminal by default (comfy-table measures the terminal only
    // then).
    let mut like = t.command(args);
    like.env_remove("NO_COLOR");
    let mut cmd = Command::new("script");
    for (key, value) in like.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    let out = cmd
        .args(["-q", "-e", "-c"])
        .arg(format!("stty size; {line}"))
        .arg("/dev/null")
        .current_dir(&t.project)
        .stdin(Stdio::null())
        .output()
        .expect("run script");
    let sgr = regex::Regex::new("\x1b\\[[0-9;]*m").expect("a valid regex");
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    (
        out.status.code().unwrap_or(-1),
        sgr.replace_all(&text, "").into_owned(),
    )
}

#[test]
fn a_terminal_of_0_columns_gets_the_default_width() {
    if !have("script", "a_terminal_of_0_columns_gets_the_default_width") {
        return;
    }
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("sleep 1"),
            task("T2", "a").verify("true").deps("T1"),
        ]),
    );
    let (code, status) = under_script(&t, &["status"]);
    assert_eq!(code, 0, "{status}");
    assert!(
        status.starts_with("0 0\n"),
        "not a 0-column terminal: {status}"
    );
    // A table as wide as its content allows within 80 columns: labels whole, no
    // column one character wide.
    assert!(status.contains("│ Workflow "), "{status}");
    assert!(status.contains("│ Status "), "{status}");
    for line in status.lines().skip(1) {
        assert!(
            line.chars().count() <= 80,
            "wider than 80: {line:?}\n{status}"
        );
    }
    let (code, run) = under_script(&t, &["workflow-execute", "--all"]);
    assert_eq!(code, 0, "{run}");
    assert!(run.contains("✓ T1 task T1 ("), "{run}");
    // The bar was drawn 80 columns wide, not one: its counter is there.
    assert!(run.contains(" 0/2 T1 task T1"), "{run}");
    assert!(Path::new(&t.project).exists());
}

/// What a person sees at 80 columns, run after run: `execute --dry-run`, `execute` (a
/// pass and a failure), then `status` and `graph`, each screen read back from tmux
/// whole.
#[test]
fn execute_status_and_graph_at_80_columns_in_tmux() {
    if !have("tmux", "execute_status_and_graph_at_80_columns_in_tmux") {
        return;
    }
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "build").verify("true"),
            task("T2", "build")
                .verify("echo 'no such file: out/report.txt'; false")
                .deps("T1"),
            task("T3", "check").verify("true").deps("T2"),
        ]),
    );
    let mut screens = String::new();
    for args in [
        &["workflow-execute", "--dry-run", "--all"][..],
        &["workflow-execute", "--all"],
        &["status"],
        &["graph"],
    ] {
        let (code, screen) = Tmux::run(&t, args, 80, 40);
        for line in &screen {
            assert!(
                line.chars().count() <= 80,
                "wf {}: a line wider than the terminal: {line:?}",
                args.join(" ")
            );
        }
        screens.push_str(&format!("$ wf {} (exit {code})\n", args.join(" ")));
        screens.push_str(&screen.join("\n"));
        screens.push('\n');
    }
    let masked = regex::Regex::new(r"\d+\.\ds\b")
        .unwrap()
        .replace_all(&screens, "N.Ns");
    insta::assert_snapshot!(masked
        .replace(&t.root.display().to_string(), "[ROOT]")
        .replace(&wf::project::path_id(&t.project), "[ID]"));
}
