//! `wf ui` over HTTP, as a browser or a script on this machine reaches it: the guard
//! (token, Host, Origin, read-only), the page's headers, the stream resumed from a
//! `seq`, and the buttons, which must do what the CLI does. The page itself, in a
//! real browser, is tests/ui/browser.py (run by `the_page_in_a_real_browser`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::plans::task_status;
use crate::test::{fixture, Test};

/// The fixture of tests/ui/: the plan, and an executor config with the fake agent.
pub fn fixture_project(t: &Test) {
    let plan = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/tasks.md");
    t.write("tasks.md", std::fs::read(plan).expect("tests/ui/tasks.md"));
    let agent = fixture("agents/edits-and-claims.sh").display().to_string();
    t.config(
        json!({"wf": {"executors": [{"name": "coder", "command": [agent], "capabilities": ["implement"]}]}})
            .to_string(),
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
}

/// The fixture run once: T1 and T2 completed, T5 blocked on a missing resource, T3
/// failed.
fn ran_once(t: &Test) {
    fixture_project(t);
    t.wf(&["workflow-execute", "--all"]).code(1);
}

/// A running `wf ui`, stopped with Ctrl-C when dropped.
struct Ui {
    child: Child,
    port: u16,
    token: String,
}

impl Ui {
    fn start(t: &Test, args: &[&str]) -> Ui {
        let mut all = vec!["ui", "--json"];
        all.extend_from_slice(args);
        let mut command = t.command(&all);
        crate::test::signals_at_default_but(&mut command, &[]);
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn wf ui");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let doc = crate::test::first_document(&mut out);
        let url = doc["url"].as_str().expect("url").to_string();
        let token = url.split("#token=").nth(1).expect("a token").to_string();
        let port = u16::try_from(doc["port"].as_u64().expect("port")).expect("a port");
        assert_eq!(url, format!("http://127.0.0.1:{port}/#token={token}"));
        Ui { child, port, token }
    }

    /// A request with this server's Host and, unless told otherwise, its token.
    fn get(&self, path: &str) -> Reply {
        self.send("GET", path, &[("X-WF-Token", &self.token)], "")
    }

    fn json(&self, path: &str) -> Value {
        let reply = self.get(path);
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        reply.json()
    }

    fn post(&self, body: &Value) -> Reply {
        self.send(
            "POST",
            "/api/actions",
            &[
                ("X-WF-Token", &self.token),
                ("Content-Type", "application/json"),
                ("Origin", &format!("http://127.0.0.1:{}", self.port)),
            ],
            &body.to_string(),
        )
    }

    /// An action, waited for until it has ended.
    fn act(&self, body: &Value) -> Value {
        let reply = self.post(body);
        assert_eq!(reply.status, 200, "{}", reply.body);
        let mut record = reply.json();
        let deadline = Instant::now() + Duration::from_secs(60);
        while record["state"] == "running" {
            assert!(
                Instant::now() < deadline,
                "the action never ended: {record}"
            );
            std::thread::sleep(Duration::from_millis(50));
            let all = self.json("/api/actions");
            record = all
                .as_array()
                .and_then(|a| a.iter().find(|r| r["id"] == record["id"]).cloned())
                .expect("the action is listed");
        }
        record
    }

    fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let host = format!("127.0.0.1:{}", self.port);
        let mut all: Vec<(&str, &str)> = vec![("Host", &host)];
        all.extend_from_slice(headers);
        raw(self.port, method, path, &all, body)
    }
}

impl Drop for Ui {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the child this test spawned and has not reaped.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let _ = self.child.wait();
    }
}

struct Reply {
    status: u16,
    headers: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// One HTTP/1.1 request with exactly these headers, read to its end.
fn raw(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).expect("send");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("read the reply");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    Reply {
        status,
        headers: head.to_string(),
        body: body.to_string(),
    }
}

#[test]
fn the_page_is_its_own_files_under_a_policy_that_forbids_inline_script_and_other_origins() {
    let t = Test::new();
    ran_once(&t);
    let ui = Ui::start(&t, &[]);
    let page = ui.send("GET", "/", &[], "");
    assert_eq!(page.status, 200);
    let csp = page.header("Content-Security-Policy").expect("a CSP");
    for rule in [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(rule), "{csp}");
    }
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(page.header("X-Content-Type-Options"), Some("nosniff"));
    assert_eq!(page.header("Referrer-Policy"), Some("no-referrer"));
    // Every script and style is a file of this origin; no URL names another host.
    assert!(page
        .body
        .contains(r#"<script src="/app.js" defer></script>"#));
    assert_eq!(page.body.matches("<script").count(), 1, "{}", page.body);
    assert!(!page.body.contains("<style"), "{}", page.body);
    let js = ui.send("GET", "/app.js", &[], "");
    assert_eq!(
        js.header("Content-Type"),
        Some("text/javascript; charset=utf-8")
    );
    let urls = regex::Regex::new(r"(?:https?:)?//[a-zA-Z0-9.-]+").unwrap();
    for asset in [
        &page.body,
        &js.body,
        &ui.send("GET", "/app.css", &[], "").body,
    ] {
        assert!(!asset.contains("innerHTML"), "text goes in as text");
        for url in urls.find_iter(asset) {
            assert_eq!(
                url.as_str(),
                "http://www.w3.org",
                "a request outside the origin: {url:?}"
            );
        }
    }
}

#[test]
fn every_api_request_needs_the_token_and_this_servers_host_and_origin() {
    let t = Test::new();
    ran_once(&t);
    let ui = Ui::start(&t, &[]);
    let host = format!("127.0.0.1:{}", ui.port);
    let no_token = ui.send("GET", "/api/summary", &[], "");
    assert_eq!(no_token.status, 401);
    assert_eq!(
        no_token.json()["error"]["message"],
        "this needs the token of the URL `wf ui` printed (open that URL)"
    );
    let wrong = ui.send(
        "GET",
        "/api/summary",
        &[("X-WF-Token", &"0".repeat(32))],
        "",
    );
    assert_eq!(wrong.status, 401);
    assert_eq!(ui.get("/api/summary").status, 200);
    let in_query = ui.send("GET", &format!("/api/summary?token={}", ui.token), &[], "");
    assert_eq!(
        in_query.status, 200,
        "an EventSource can only send it in the URL"
    );
    // A page of another site that rebinds its name to 127.0.0.1 names its own host.
    let rebound = raw(
        ui.port,
        "GET",
        "/api/summary",
        &[("Host", "evil.example:80"), ("X-WF-Token", &ui.token)],
        "",
    );
    assert_eq!(rebound.status, 403, "{}", rebound.body);
    let page_of_another_origin = ui.send(
        "GET",
        "/api/summary",
        &[("X-WF-Token", &ui.token), ("Origin", "http://evil.example")],
        "",
    );
    assert_eq!(page_of_another_origin.status, 403);
    let cross_site = ui.send(
        "GET",
        "/api/summary",
        &[("X-WF-Token", &ui.token), ("Sec-Fetch-Site", "cross-site")],
        "",
    );
    assert_eq!(cross_site.status, 403);
    assert_eq!(
        raw(ui.port, "GET", "/", &[("Host", "localhost:1")], "").status,
        403
    );
    // A write: the token, and a JSON body (a form post from another page is not).
    let before = t.events().len();
    let body = json!({"action": "retry", "task": "T3"}).to_string();
    let without_token = ui.send(
        "POST",
        "/api/actions",
        &[("Content-Type", "application/json")],
        &body,
    );
    assert_eq!(without_token.status, 401);
    let form = ui.send(
        "POST",
        "/api/actions",
        &[("X-WF-Token", &ui.token), ("Content-Type", "text/plain")],
        &body,
    );
    assert_eq!(form.status, 415);
    let other_origin = raw(
        ui.port,
        "POST",
        "/api/actions",
        &[
            ("Host", &host),
            ("X-WF-Token", &ui.token),
            ("Content-Type", "application/json"),
            ("Origin", "http://127.0.0.1:1"),
        ],
        &body,
    );
    assert_eq!(other_origin.status, 403);
    assert_eq!(t.events().len(), before, "a refused write wrote nothing");
    assert_eq!(task_status(&t.state(), "T3"), "failed");
}

#[test]
fn read_only_offers_no_button_and_refuses_every_write() {
    let t = Test::new();
    ran_once(&t);
    let ui = Ui::start(&t, &["--read-only"]);
    let summary = ui.json("/api/summary");
    assert_eq!(summary["read_only"], true);
    assert_eq!(summary["offered"], json!([]));
    let reply = ui.post(&json!({"action": "retry", "task": "T3"}));
    assert_eq!(reply.status, 403);
    assert_eq!(
        reply.json()["error"]["message"],
        "wf ui runs --read-only: no writes"
    );
    assert_eq!(task_status(&t.state(), "T3"), "failed");
}

#[test]
fn the_buttons_are_what_wf_next_offers() {
    let t = Test::new();
    ran_once(&t);
    let ui = Ui::start(&t, &[]);
    let summary = ui.json("/api/summary");
    assert_eq!(summary["next"]["reason"], "failed");
    assert_eq!(
        summary["offered"],
        json!([
            {"action": "retry", "task": "T3"},
            {"action": "skip", "task": "T3"},
            {"action": "unblock", "kind": "resource_missing"},
            {"action": "unblock", "kind": "all"},
            {"action": "verify"},
        ])
    );
    assert_eq!(summary["workflow"]["status"], "failed");
    assert_eq!(summary["counts"]["completed"], 2);
}

/// Runs the same steps in two copies of a workflow — through the page in one, by the
/// CLI in the other — and compares what each wrote: the events (the clock is pinned)
/// and the tasks.
#[test]
fn a_retry_a_skip_and_an_unblock_from_the_page_change_the_state_as_the_cli_does() {
    let (page, cli) = (Test::new(), Test::new());
    ran_once(&page);
    ran_once(&cli);
    let ui = Ui::start(&page, &[]);
    for t in [&page, &cli] {
        t.write("ok.flag", "");
    }
    let steps: [(Value, &[&str]); 4] = [
        (
            json!({"action": "retry", "task": "T3"}),
            &["workflow-execute", "--retry", "T3"],
        ),
        (
            json!({"action": "skip", "task": "T7", "reason": "not needed any more"}),
            &[
                "workflow-execute",
                "--skip",
                "T7",
                "--reason",
                "not needed any more",
            ],
        ),
        (
            json!({"action": "unblock", "kind": "resource_missing"}),
            &["workflow-unblock", "resource_missing"],
        ),
        (json!({"action": "continue"}), &["workflow-execute"]),
    ];
    for (body, args) in steps {
        let record = ui.act(&body);
        let by_cli = cli.wf(&[args, &["--json"]].concat());
        assert_eq!(
            record["exit_code"], by_cli.code,
            "{body}: {record}\n{}",
            by_cli.stderr
        );
        assert_eq!(
            scrub(&page, &record["result"]),
            scrub(&cli, &by_cli.json()),
            "{body}"
        );
        assert_eq!(comparable(&page), comparable(&cli), "after {body}");
    }
    let state = page.state();
    assert_eq!(task_status(&state, "T3"), "completed");
    assert_eq!(task_status(&state, "T7"), "skipped");
    assert_eq!(state["skipped_info"]["T7"]["reason"], "not needed any more");
    assert_eq!(state["retry_counts"]["T3"], 1);
}

/// `value` without what names the test's own directories, and without durations
/// (how long `true` takes is the machine's).
fn scrub(t: &Test, value: &Value) -> Value {
    let text = value
        .to_string()
        .replace(&t.root.display().to_string(), "[ROOT]")
        .replace(&t.project_id(), "[ID]");
    let durations = regex::Regex::new(r#""duration_ms":\d+"#).expect("a regex");
    let text = durations.replace_all(&text, r#""duration_ms":0"#);
    serde_json::from_str(&text).expect("still JSON")
}

/// The events and the tasks, scrubbed.
fn comparable(t: &Test) -> (Vec<Value>, Value) {
    let events = t.events().iter().map(|e| scrub(t, e)).collect();
    (events, scrub(t, &t.state()["tasks"]))
}

#[test]
fn a_refusal_is_the_commands_own_message() {
    let t = Test::new();
    ran_once(&t);
    let ui = Ui::start(&t, &[]);
    // T3 failed and T9 does not exist: the CLI refuses both the same way.
    let record = ui.act(&json!({"action": "retry", "task": "T9"}));
    let cli = t.wf(&["workflow-execute", "--retry", "T9", "--json"]);
    assert_eq!(record["exit_code"], cli.code);
    assert_eq!(record["message"], cli.json()["error"]["message"]);
    assert_eq!(
        record["message"],
        "--retry: there is no task T9 in this workflow"
    );
    assert_eq!(record["command"], "wf workflow-execute --retry=T9");
    let record = ui.act(&json!({"action": "unblock", "kind": "--help"}));
    assert_eq!(record["exit_code"], 2);
    assert!(
        record["message"]
            .as_str()
            .unwrap()
            .starts_with("unknown blocker kind `--help`"),
        "a value is never read as a flag: {record}"
    );
    let missing = ui.post(&json!({"action": "skip", "task": "T3"}));
    assert_eq!(missing.status, 400);
    assert_eq!(
        missing.json()["error"]["message"],
        "`skip` needs `reason`: a text of 1 to 4096 bytes"
    );
}

#[test]
fn the_stream_resumes_after_the_last_seq_and_follows_new_events() {
    let t = Test::new();
    ran_once(&t);
    let last = t.events().len() as u64;
    let ui = Ui::start(&t, &[]);
    let mut stream = TcpStream::connect(("127.0.0.1", ui.port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(
        stream,
        "GET /api/stream?token={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nLast-Event-ID: {}\r\n\r\n",
        ui.token,
        ui.port,
        last - 2
    )
    .expect("send");
    let mut stream = Stream {
        reader: BufReader::new(stream),
        ids: Vec::new(),
        seen: String::new(),
    };
    assert_eq!(stream.ids_until(last), [last - 1, last]);
    assert!(
        stream.seen.starts_with("HTTP/1.1 200 OK\r\n"),
        "{}",
        stream.seen
    );
    assert!(
        stream.seen.contains("Content-Type: text/event-stream"),
        "{}",
        stream.seen
    );
    // A command in another process writes; the stream has its events.
    t.wf(&["workflow-unblock", "resource_missing"]).ok();
    let written = t.events().len() as u64;
    assert!(written > last);
    assert_eq!(
        stream.ids_until(written),
        (last - 1..=written).collect::<Vec<_>>()
    );
}

/// An event stream read a line at a time: the ids it gave, and all it said.
struct Stream {
    reader: BufReader<TcpStream>,
    ids: Vec<u64>,
    seen: String,
}

impl Stream {
    fn ids_until(&mut self, until: u64) -> Vec<u64> {
        while self.ids.last().is_none_or(|&id| id < until) {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).expect("read the stream");
            assert!(n > 0, "the stream ended: {}", self.seen);
            self.seen.push_str(&line);
            if let Some(id) = line.strip_prefix("id: ") {
                self.ids.push(id.trim().parse().expect("an id is a seq"));
            }
        }
        self.ids.clone()
    }
}

#[test]
fn a_task_its_log_and_the_timeline_are_read_from_the_state_and_the_log() {
    let t = Test::new();
    ran_once(&t);
    let ui = Ui::start(&t, &[]);
    let graph = ui.json("/api/graph");
    let names: Vec<&str> = graph["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["setup", "build", "review", "ship"]);
    let t4 = graph["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "T4")
        .unwrap();
    // Plan text is data, in JSON, for the page to put in as text.
    assert_eq!(t4["name"], "<img src=x onerror=alert(1)>");
    assert_eq!(
        (t4["phase"].as_u64(), t4["depth"].as_u64()),
        (Some(1), Some(1))
    );
    let task = ui.json("/api/task?id=T3");
    assert_eq!(
        task["brief"]["check_commands"],
        json!(["echo checking ok.flag; test -f ok.flag"])
    );
    let log = ui.json("/api/log?id=T3");
    assert_eq!(
        (log["attempt"].as_u64(), log["running"].as_bool()),
        (Some(1), Some(false))
    );
    assert!(
        log["text"].as_str().unwrap().contains("checking ok.flag"),
        "{log}"
    );
    let events = ui.json("/api/events?task=T2");
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds
            .iter()
            .filter(|k| k.starts_with("task.") && !k.ends_with("status_changed"))
            .copied()
            .collect::<Vec<_>>(),
        [
            "task.dispatch_requested",
            "task.dispatch_ack",
            "task.execution_started",
            "task.execution_result",
            "task.review_result"
        ],
        "the design's order"
    );
    let failed = ui.json("/api/events?status=failed");
    assert!(
        failed["tasks"]["T3"]["log_tail"]
            .as_str()
            .unwrap()
            .contains("checking ok.flag"),
        "{failed}"
    );
    assert!(failed["events"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["task_id"] == "T3"));
    assert_eq!(ui.get("/api/task?id=T9").status, 404);
    let resources = ui.json("/api/resources");
    assert_eq!(resources["missing"][0]["data"]["capability"], "review");
    let coder = &resources["executors"][0];
    assert_eq!(
        (coder["name"].as_str(), coder["status"].as_str()),
        (Some("coder"), Some("available"))
    );
    assert_eq!(coder["history"][0]["task"], "T2");
    assert_eq!(coder["history"][0]["released"]["reason"], "completed");
}

#[test]
fn an_archived_workflow_is_shown_read_only_and_a_missing_one_is_refused() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks: x\n\n## T1: one\n- **验证命令**: `true`\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let none = t.wf(&["ui", "--archived"]).code(2);
    assert!(
        none.stderr.contains("--archived: no archived workflow in"),
        "{}",
        none.stderr
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    t.wf(&["archive"]).ok();
    let ui = Ui::start(&t, &["--archived"]);
    let summary = ui.json("/api/summary");
    assert_eq!(
        (
            summary["archived"].as_bool(),
            summary["read_only"].as_bool()
        ),
        (Some(true), Some(true))
    );
    assert_eq!(summary["workflow"]["status"], "archived");
    assert_eq!(
        ui.post(&json!({"action": "verify"})).json()["error"]["message"],
        "an archived workflow is read-only"
    );
    let wrong = t.wf(&["ui", "--archived", "../x"]).code(2);
    assert!(
        wrong
            .stderr
            .contains("--archived ../x: no such archive; the archives: "),
        "{}",
        wrong.stderr
    );
}

/// tests/ui/browser.py: the page in a real headless Chromium, on the fixture run once.
/// Without Chromium, its driver or Selenium it is skipped, and said so; CI sets
/// WF_REQUIRE_BROWSER, which makes that a failure.
#[test]
fn the_page_in_a_real_browser() {
    let chromium = std::env::var("WF_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let driver =
        std::env::var("WF_CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
    let has_selenium = std::process::Command::new("python3")
        .args(["-c", "import selenium"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let missing: Vec<&str> = [
        (!std::path::Path::new(&chromium).exists()).then_some("chromium"),
        (!std::path::Path::new(&driver).exists()).then_some("chromium-driver"),
        (!has_selenium).then_some("selenium (pip)"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var_os("WF_REQUIRE_BROWSER").is_none(),
            "WF_REQUIRE_BROWSER is set but {} missing: apt-get install chromium chromium-driver; pip install selenium",
            missing.join(", ")
        );
        eprintln!(
            "\n*** SKIPPED the_page_in_a_real_browser: {} not installed ***\n",
            missing.join(", ")
        );
        return;
    }
    let t = Test::new();
    ran_once(&t);
    // target/debug/wf → target/ui-screenshots, where CI keeps its artefacts.
    let shots = std::path::Path::new(env!("CARGO_BIN_EXE_wf"))
        .parent()
        .and_then(std::path::Path::parent)
        .expect("the target dir")
        .join("ui-screenshots");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/browser.py");
    let mut python = t.program("python3");
    // The interpreter keeps its own HOME, where Selenium is installed; Selenium asks
    // no one for a driver.
    let home = std::env::var_os("HOME").unwrap_or_default();
    let out = python
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_wf"))
        .arg(&t.project)
        .arg(&shots)
        .env("HOME", home)
        .env("SE_OFFLINE", "true")
        .env("WF_CHROMIUM", &chromium)
        .env("WF_CHROMEDRIVER", &driver)
        .stdin(Stdio::null())
        .output()
        .expect("run python3");
    crate::test::assert_script_done(&out, "the browser test");
}

#[test]
fn open_hands_the_url_with_its_token_to_the_browser() {
    let mut t = Test::new();
    ran_once(&t);
    let opened = t.root.join("opened.txt");
    let browser = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/record-url.sh");
    t.env("BROWSER", browser.display().to_string())
        .env("WF_TEST_OPENED", opened.display().to_string());
    let ui = Ui::start(&t, &["--open"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let url = loop {
        let text = std::fs::read_to_string(&opened).unwrap_or_default();
        if text.ends_with('\n') || Instant::now() >= deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        url.trim(),
        format!("http://127.0.0.1:{}/#token={}", ui.port, ui.token)
    );
}
