"""`wf ui` in a real headless Chromium (Debian's chromium and chromium-driver, driven
by Selenium), on the fixture of tests/ui/tasks.md after one run of it (set up by
tests/integration/ui.rs, which runs this script):

    T1 completed   T2 completed (by the fake agent `coder`)   T5 blocked (no executor
    offers `review`)   T3 failed (needs ok.flag)   T4 (an HTML name), T6, T7 pending

Arguments: WF_BINARY PROJECT_DIR SCREENSHOT_DIR. The environment carries WF_HOME and
WF_NOW. Prints one line per check; a failed one exits non-zero with what was seen.
No request may leave the page's origin: Chromium starts with no network services of
its own, and every request the page made is checked at the end.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

WF, PROJECT, SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
CHROMIUM = os.environ.get("WF_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("WF_CHROMEDRIVER", "/usr/bin/chromedriver")

COLOURS = {
    "pending": "rgb(154, 164, 178)",
    "blocked": "rgb(217, 164, 0)",
    "in_progress": "rgb(47, 125, 225)",
    "completed": "rgb(46, 158, 79)",
    "skipped": "rgb(138, 111, 209)",
    "failed": "rgb(214, 69, 69)",
}
XSS = "<img src=x onerror=alert(1)>"


def expect(cond, what, seen=None):
    if not cond:
        sys.exit(f"FAILED: {what}\nseen: {json.dumps(seen, indent=2, default=str)}")
    print(f"ok: {what}", flush=True)


def wait_for(what, check, seconds=20):
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except Exception as e:  # a node being redrawn, a page still loading
            last = repr(e)
        time.sleep(0.05)
    sys.exit(f"FAILED: {what} within {seconds} s\nlast seen: {last}")


def click(d, css, what):
    """Clicks what `css` finds, again if the page redrew it meanwhile."""
    def attempt():
        d.find_element(By.CSS_SELECTOR, css).click()
        return True
    wait_for(what, attempt)


def wf(*args):
    return subprocess.run([WF, *args], cwd=PROJECT, capture_output=True, text=True, timeout=120)


def state():
    return json.loads(wf("status", "--json").stdout)["state"]


def task_state(st, tid):
    return next(t for t in st["tasks"] if t["id"] == tid)


# What `wf ui` says on stderr (the commands it waits for at its end), shown when it
# does not stop.
UI_STDERR = tempfile.TemporaryFile(mode="w+")


def default_sigint():
    # A script run in the background by a non-interactive shell (a CI step, `cmd &`)
    # starts with SIGINT ignored, and so would `wf ui`, which keeps a signal it was
    # started with ignored (src/run/signals.rs): Ctrl-C at a terminal is the default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_ui():
    ui = subprocess.Popen([WF, "ui", "--json"], cwd=PROJECT, stdout=subprocess.PIPE,
                          stderr=UI_STDERR, stdin=subprocess.DEVNULL, text=True,
                          preexec_fn=default_sigint)
    text = ""
    while True:
        line = ui.stdout.readline()
        if not line:
            sys.exit(f"FAILED: wf ui ended before printing its URL: {text}")
        text += line
        try:
            return ui, json.loads(text)
        except json.JSONDecodeError:
            continue


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1440,1000",
                f"--user-data-dir={tempfile.mkdtemp(prefix='wf-ui-chromium-')}"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def nodes(d):
    return {n.get_attribute("data-id"): n for n in d.find_elements(By.CSS_SELECTOR, "#nodes .node")}


def status_of(d, tid):
    n = nodes(d).get(tid)
    return n.get_attribute("data-status") if n else None


def fill(d, tid):
    return d.execute_script(
        "const n = [...document.querySelectorAll('#nodes .node')].find(n => n.dataset.id === arguments[0]);"
        "return n && getComputedStyle(n.querySelector('rect.box')).fill;", tid)


def shot(d, element_id, name):
    os.makedirs(SHOTS, exist_ok=True)
    path = os.path.join(SHOTS, name)
    if element_id:
        d.find_element(By.ID, element_id).screenshot(path)
    else:
        d.save_screenshot(path)
    print(f"screenshot: {path}")


def main():
    ui, doc = start_ui()
    url = doc["url"]
    origin = f"http://127.0.0.1:{doc['port']}"
    d = browser()
    try:
        run(d, url, origin)
    finally:
        d.quit()
        ui.send_signal(2)
        try:
            ui.wait(timeout=30)
        except subprocess.TimeoutExpired:
            ui.kill()
            UI_STDERR.seek(0)
            ps = ["ps", "-eo", "pid,ppid,stat,etime,args"]
            running = subprocess.run(ps, capture_output=True, text=True).stdout if shutil.which("ps") else "(no ps)"
            sys.exit(f"FAILED: wf ui did not stop on Ctrl-C within 30 s; its stderr:\n{UI_STDERR.read()}\n"
                     f"the processes then:\n{running}")
    expect(ui.returncode == 0, "wf ui ends with 0 on Ctrl-C", ui.returncode)
    print("done")


def run(d, url, origin):
    d.get(url)
    wait_for("the page to load", lambda: d.execute_script("return document.documentElement.dataset.ready"))
    d.execute_script("window.__sameDocument = true")

    # The canvas: every task, coloured by its status.
    want = {"T1": "completed", "T2": "completed", "T5": "blocked", "T3": "failed",
            "T4": "pending", "T6": "pending", "T7": "pending"}
    seen = {tid: status_of(d, tid) for tid in nodes(d)}
    expect(seen == want, "every task is on the canvas with its status", seen)
    for tid, st in want.items():
        expect(fill(d, tid) == COLOURS[st], f"{tid} is drawn in the colour of {st}", fill(d, tid))
    phases = [p.text for p in d.find_elements(By.CSS_SELECTOR, ".phase-head text:first-of-type")]
    expect([p.split(" ", 1)[1] for p in phases] == ["setup", "build", "review", "ship"],
           "the phases are columns in plan order", phases)

    # Text from the plan is text.
    title = d.execute_script(
        "return [...document.querySelectorAll('#nodes .node')].find(n => n.dataset.id === 'T4').querySelector('title').textContent")
    expect(title == f"T4: {XSS} (pending)", "the HTML name shows as text on the canvas", title)
    expect(d.execute_script("return document.querySelectorAll('img').length") == 0, "no element was made from it")

    # The timeline of the agent task, in the design's order, actors as executor.role.
    rows = d.find_elements(By.CSS_SELECTOR, '.tl-task[data-task="T2"] .ev')
    kinds = [r.get_attribute("data-type") for r in rows]
    lifecycle = [k for k in kinds if k.startswith("task.") and k != "task.status_changed"]
    expect(lifecycle == ["task.dispatch_requested", "task.dispatch_ack", "task.execution_started",
                         "task.execution_result", "task.review_result"],
           "T2's timeline is dispatch, ack, start, result, review", kinds)
    actors = {r.get_attribute("data-type"): r.find_element(By.CSS_SELECTOR, ".actor").text for r in rows}
    expect(actors["task.dispatch_ack"] == "coder.executor", "the actor shows as executor.role", actors)
    tail = d.find_element(By.CSS_SELECTOR, '.tl-task[data-task="T3"] pre.tail').text
    expect("checking ok.flag" in tail, "a failed task's log tail is inline in the timeline", tail)

    # The resource panel: the executor, what it held and released; the missing one.
    card = d.find_element(By.CSS_SELECTOR, '.res-card[data-executor="coder"]')
    expect(card.get_attribute("data-status") == "available", "coder is available", card.text)
    expect("T2" in card.text and "released" in card.text and "completed" in card.text,
           "coder's history shows T2 allocated and released", card.text)
    missing = d.find_element(By.ID, "missing").text
    expect("review" in missing, "the missing capability stands out", missing)

    shot(d, None, "page.png")
    shot(d, "canvas-zone", "canvas.png")
    shot(d, "timeline-zone", "timeline.png")
    shot(d, "resources-zone", "resources.png")

    # A node's detail: checks, failure, log.
    nodes(d)["T3"].click()
    wait_for("T3's log in the detail", lambda: "checking ok.flag" in d.find_element(By.ID, "detail-log").text)
    body = d.find_element(By.ID, "detail-body").text
    expect("echo checking ok.flag; test -f ok.flag" in body, "the detail lists T3's check", body)
    expect("exited with 1" in body, "and why it failed", body)
    shot(d, "detail", "detail.png")
    d.find_element(By.ID, "detail-close").click()
    nodes(d)["T4"].click()
    wait_for("T4's detail", lambda: d.find_element(By.ID, "detail-title").text == f"T4: {XSS}")
    d.find_element(By.ID, "detail-close").click()

    # A write without the token is refused, from the page's own origin.
    status = d.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/actions', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({action: 'continue'})}).then(r => done(r.status));")
    expect(status == 401, "a write without the token is refused", status)

    # A run in another process: the page follows it, no reload.
    open(os.path.join(PROJECT, "ok.flag"), "w").close()
    started = time.monotonic()
    run = wf("workflow-execute", "--all", "--keep-going", "--retry", "T3")
    expect(run.returncode == 1, "the run in another process ends with T6 and T7 failed", run.stdout + run.stderr)
    wait_for("T3 and T4 to turn green without a reload",
             lambda: status_of(d, "T3") == "completed" and status_of(d, "T4") == "completed")
    print(f"the page showed the run {time.monotonic() - started:.2f} s after it started")
    expect(fill(d, "T3") == COLOURS["completed"], "T3 is green", fill(d, "T3"))
    wait_for("T6 and T7 to turn red", lambda: status_of(d, "T6") == "failed" and status_of(d, "T7") == "failed")
    expect(d.execute_script("return window.__sameDocument === true"), "the page was not reloaded")

    # Retry from the page: the CLI refuses to run on while T7 is failed, after T6 is
    # put back to pending; the page says so in the CLI's words.
    open(os.path.join(PROJECT, "ship.flag"), "w").close()
    click(d, 'button[data-action="retry"][data-task="T6"]', "the retry button for T6")
    refusal = wait_for("the refusal", lambda: next((t.text for t in d.find_elements(By.CSS_SELECTOR, ".toast.bad")), None))
    expect("the workflow failed:" in refusal and "--retry=T6" in refusal, "the refusal is the CLI's message", refusal)
    wait_for("T6 to be pending again", lambda: status_of(d, "T6") == "pending")
    st = state()
    expect(st["retry_counts"].get("T6") == 1 and task_state(st, "T6")["status"] == "pending",
           "the retry changed the state as `wf workflow-execute --retry T6` does", st["retry_counts"])

    # Skip from the page, with a reason: T7 skipped, and the run goes on to T6.
    click(d, 'button[data-action="skip"][data-task="T7"]', "the skip button for T7")
    d.find_element(By.ID, "skip-reason").send_keys("obsolete now")
    d.find_element(By.ID, "skip-ok").click()
    wait_for("T7 skipped and T6 completed", lambda: status_of(d, "T7") == "skipped" and status_of(d, "T6") == "completed")
    expect(fill(d, "T7") == COLOURS["skipped"], "T7 is drawn as skipped", fill(d, "T7"))
    st = state()
    expect(st["skipped_info"]["T7"]["reason"] == "obsolete now", "the reason is kept in skipped_info", st["skipped_info"])

    # Unblock the missing resource's kind.
    click(d, 'button[data-action="unblock"][data-kind="resource_missing"]', "the unblock button")
    wait_for("T5 to be pending", lambda: status_of(d, "T5") == "pending")
    shot(d, None, "after-actions.png")

    # Nothing left the origin, and the page raised no error.
    # (The page's requests are those its document made; Chromium's own pages, such as
    # chrome://, are not the page's.)
    urls = []
    for entry in d.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent" and \
                msg["params"].get("documentURL", "").startswith(origin + "/"):
            urls.append(msg["params"]["request"]["url"])
    outside = [u for u in urls if not u.startswith(origin + "/")]
    expect(len(urls) > 10 and not outside, f"every one of the page's {len(urls)} requests went to {origin}", outside)
    errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE" and "/api/actions" not in e["message"]]
    expect(not errors, "the console has no error", errors)
    try:
        d.switch_to.alert
        sys.exit("FAILED: an alert was raised")
    except NoAlertPresentException:
        print("ok: no alert was raised")


main()
