//! `wf` on a real terminal: a pseudo-terminal of a set size, with what `wf` writes
//! to it read back as a screen (vt100), so the tests see what a user sees — the
//! progress bar, what Ctrl-C leaves behind, tables cut to the width, colour.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};

use crate::plans::{plan, start, task};
use crate::test::Test;

/// A terminal of `cols` × `rows` with `wf` running on it.
struct Terminal {
    child: Child,
    /// Where keys are typed.
    keyboard: std::fs::File,
    bytes: Arc<Mutex<Vec<u8>>>,
    reader: Option<std::thread::JoinHandle<()>>,
    cols: u16,
    rows: u16,
}

impl Terminal {
    /// Starts `cmd` (from [`Test::command`]) with stdin, stdout and stderr on a new
    /// pseudo-terminal that is its controlling terminal, in a session of its own, so
    /// the terminal's Ctrl-C reaches it as a user's would.
    fn start(mut cmd: Command, cols: u16, rows: u16) -> Terminal {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("openpt");
        grantpt(&master).expect("grantpt");
        unlockpt(&master).expect("unlockpt");
        let name = ptsname(&master, Vec::new()).expect("ptsname");
        rustix::termios::tcsetwinsize(
            &master,
            rustix::termios::Winsize {
                ws_row: rows,
                ws_col: cols,
                ws_xpixel: 0,
                ws_ypixel: 0,
            },
        )
        .expect("set the terminal size");
        let side = || -> Stdio {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(name.to_str().expect("a UTF-8 pty name"))
                .expect("open the terminal's side")
                .into()
        };
        cmd.stdin(side())
            .stdout(side())
            .stderr(side())
            .env("TERM", "xterm-256color")
            .env_remove("COLUMNS");
        // Ctrl-C reaches it as on a real terminal, wherever the tests run.
        crate::test::signals_at_default_but(&mut cmd, &[]);
        // SAFETY: between fork and exec only async-signal-safe system calls run:
        // setsid and the ioctl that makes stdin (the terminal) the controlling one.
        unsafe {
            cmd.pre_exec(|| {
                rustix::process::setsid()?;
                rustix::process::ioctl_tiocsctty(std::io::stdin())?;
                Ok(())
            });
        }
        let child = cmd.spawn().expect("spawn wf on a terminal");
        // The terminal's side now lives only in the child: when it exits, reads of
        // the master end (EIO) and the reader stops.
        drop(cmd);
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&bytes);
        let mut master = std::fs::File::from(master);
        let keyboard = master.try_clone().expect("a second handle on the terminal");
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .expect("the screen bytes")
                    .extend_from_slice(&buf[..n]);
            }
        });
        Terminal {
            child,
            keyboard,
            bytes,
            reader: Some(reader),
            cols,
            rows,
        }
    }

    /// What the screen shows now, row by row.
    fn screen(&self) -> Vec<String> {
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal has a size");
        let mut parser = vt100::Parser::new(size(self.rows), size(self.cols), 0);
        parser.process(&self.bytes.lock().expect("the screen bytes"));
        parser
            .screen()
            .rows(0, self.cols)
            .map(|row| row.trim_end().to_string())
            .collect()
    }

    /// Waits until a row of the screen satisfies `pred`, and returns that row.
    #[track_caller]
    fn wait_for_row(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(row) = self.screen().into_iter().find(|r| pred(r)) {
                return row;
            }
            assert!(
                Instant::now() < deadline,
                "no row shows {what}; the screen:\n{}",
                self.screen().join("\n")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types Ctrl-C: the terminal echoes `^C` and interrupts its foreground group.
    fn ctrl_c(&self) {
        use std::io::Write;
        (&self.keyboard).write_all(b"\x03").expect("type Ctrl-C");
    }

    /// Waits for `wf` to exit (at most 30 s).
    #[track_caller]
    fn finish(mut self) -> Finished {
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait for wf") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                panic!("wf did not exit; the screen:\n{}", self.screen().join("\n"));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the reader thread");
        }
        Finished {
            code: status.code().unwrap_or(-1),
            screen: self.screen(),
            raw: String::from_utf8_lossy(&self.bytes.lock().expect("the screen bytes"))
                .into_owned(),
        }
    }
}

/// How a run on the terminal ended: its exit code, the last screen, every byte.
struct Finished {
    code: i32,
    screen: Vec<String>,
    raw: String,
}

/// The screen without its trailing empty rows, for a snapshot.
fn shown(screen: &[String]) -> String {
    let last = screen
        .iter()
        .rposition(|r| !r.is_empty())
        .map_or(0, |i| i + 1);
    screen[..last].join("\n")
}

fn is_bar(row: &str) -> bool {
    row.contains('/') && (row.contains('█') || row.contains('░'))
}

const LONG_NAME: &str =
    "migrate every customer record to the new billing schema without downtime ENDOFNAME";

#[test]
fn the_progress_bar_shows_elapsed_time_and_cuts_a_long_name_to_the_width() {
    let t = Test::new();
    t.write(
        "tasks.md",
        format!(
            "# Tasks: terminal\n\n## T1: {LONG_NAME}\n- **阶段**: a\n- **需求**: wait\n- **验证命令**: sleep 3\n"
        ),
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let term = Terminal::start(t.command(&["workflow-execute", "--all"]), 50, 12);
    let bar = term.wait_for_row("the progress bar with T1", |r| {
        is_bar(r) && r.contains("T1")
    });
    assert!(
        bar.starts_with("00:00:0"),
        "the elapsed time leads: {bar:?}"
    );
    assert!(bar.contains("0/1 T1 migrate"), "{bar:?}");
    // Cut, not wrapped: the rest of the name is on no row.
    assert!(
        !term.screen().iter().any(|r| r.contains("ENDOFNAME")),
        "{}",
        term.screen().join("\n")
    );
    let done = term.finish();
    assert_eq!(done.code, 0, "{}", shown(&done.screen));
    assert!(
        !done.screen.iter().any(|r| is_bar(r)),
        "{}",
        shown(&done.screen)
    );
}

#[test]
fn with_two_jobs_the_bar_names_every_running_task() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("sleep 3"),
            task("T2", "a").verify("sleep 3"),
        ]),
    );
    let term = Terminal::start(
        t.command(&["workflow-execute", "--all", "--jobs", "2"]),
        80,
        12,
    );
    let bar = term.wait_for_row("both running tasks", |r| {
        is_bar(r) && r.contains("T1") && r.contains("T2")
    });
    assert!(bar.contains("0/2 T1, T2: 2 running"), "{bar:?}");
    let done = term.finish();
    assert_eq!(done.code, 0, "{}", shown(&done.screen));
}

#[test]
fn ctrl_c_clears_the_progress_bar_before_the_summary() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("sleep 60")]));
    let term = Terminal::start(t.command(&["workflow-execute", "--all"]), 80, 12);
    term.wait_for_row("the progress bar", |r| is_bar(r) && r.contains("T1"));
    term.ctrl_c();
    let Finished { code, screen, .. } = term.finish();
    assert_eq!(code, 130, "{}", shown(&screen));
    assert!(
        !screen.iter().any(|r| is_bar(r)),
        "the bar is gone:\n{}",
        shown(&screen)
    );
    let text = shown(&screen);
    assert!(text.contains("T1 task T1: interrupted"), "{text}");
}

#[test]
fn a_table_fits_a_narrow_terminal() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a")]));
    t.wf(&[
        "constraints",
        "add",
        "--verify-cmd",
        "build",
        "every public endpoint answers within two hundred milliseconds under the nightly load profile",
    ])
    .ok();
    let Finished { code, screen, .. } =
        Terminal::start(t.command(&["constraints", "list"]), 60, 40).finish();
    assert_eq!(code, 0, "{}", shown(&screen));
    // Wrapped inside the table, so every row is a table row: a row that overflowed
    // would have spilled onto one that does not start with the frame.
    for row in screen.iter().filter(|r| !r.is_empty()) {
        assert!(
            row.starts_with(['┌', '│', '├', '╞', '└']),
            "a row outside the table:\n{}",
            shown(&screen)
        );
    }
    let text = shown(&screen);
    assert!(
        text.contains("interface") && text.contains("C001"),
        "short values stay whole:\n{text}"
    );
}

#[test]
fn colour_on_a_terminal_unless_no_color_and_always_when_forced() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a")]));
    let on_terminal = |no_color: bool| {
        let mut cmd = t.command(&["status"]);
        if !no_color {
            cmd.env_remove("NO_COLOR");
        }
        let done = Terminal::start(cmd, 100, 30).finish();
        assert_eq!(done.code, 0, "{}", shown(&done.screen));
        done.raw
    };
    assert!(on_terminal(false).contains("\x1b["), "colour on a terminal");
    assert!(!on_terminal(true).contains('\x1b'), "NO_COLOR: none");

    // In a pipe: none, unless --color always or CLICOLOR_FORCE (both beat NO_COLOR,
    // which the harness sets).
    assert!(!t.wf(&["status"]).ok().stdout.contains('\x1b'));
    assert!(t
        .wf(&["status", "--color", "always"])
        .ok()
        .stdout
        .contains("\x1b["));
    let mut forced = Test::new();
    forced.env("CLICOLOR_FORCE", "1");
    start(&forced, &plan(&[task("T1", "a")]));
    assert!(forced.wf(&["status"]).ok().stdout.contains("\x1b["));
    assert!(!forced
        .wf(&["status", "--color", "never"])
        .ok()
        .stdout
        .contains('\x1b'));
}
