//! `wf ui`: a live view of one workflow, served on 127.0.0.1 to a browser
//! (docs/ui.md).
//!
//! The page derives nothing of its own: what it shows is read, for each request, from
//! the state and the event log through the readers the CLI uses (`Store::load`,
//! `Store::view`, the renderers of `report`), and the event log is followed as
//! `wf events --follow` follows it, as Server-Sent Events. Its buttons run this `wf`
//! with the arguments a person would type (`actions.rs`), so a write takes the
//! workflow's lock in that process, and is refused with the command's own message.
//!
//! - `server.rs`: the accept loop, the guard every request passes (Host, Origin,
//!   token), routing, the assets and their headers.
//! - `view.rs`: the JSON the page reads: the summary, the graph, a phase, a task, a
//!   log, the events.
//! - `layout.rs`: where each task sits on the canvas (phase columns, depth, rows).
//! - `stream.rs`: the event stream, resumed from the last `seq` seen.
//! - `resources.rs`: the executors, what each holds now and its history.
//! - `actions.rs`: the buttons: which `wf` command each runs, and their outcomes.
//!
//! Nothing here runs before `wf ui` is called: the server's threads start in
//! [`serve`], and the page's files are constants in the binary.

mod actions;
mod layout;
mod resources;
mod server;
mod stream;
mod view;

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::Config;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::state::Store;

/// What `wf ui` was asked for.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// 0: a free port.
    pub port: u16,
    pub open: bool,
    pub read_only: bool,
    /// `--wait SECS`, passed on to the commands the buttons run.
    pub wait: Option<u64>,
}

/// The workflow the page shows.
pub struct Workflow {
    /// The project: the commands the buttons run are run there (`-C`).
    pub project: PathBuf,
    pub config: Config,
    pub store: Store,
    /// An archived workflow's dir is read, never written.
    pub archived: bool,
}

/// Everything a request handler reads: the workflow, the server's own facts, and the
/// actions started from the page.
pub(crate) struct Ctx {
    workflow: Workflow,
    read_only: bool,
    /// The per-run secret every `/api/` request carries.
    token: String,
    /// The hosts a request may name: `127.0.0.1:PORT` and `localhost:PORT`.
    hosts: [String; 2],
    /// The `wf` the buttons run: this one.
    exe: PathBuf,
    wait: Option<u64>,
    actions: Arc<actions::Actions>,
    /// Taken by a request while it holds the whole state (`view.rs`).
    whole_reads: std::sync::Mutex<()>,
}

/// Serves the page until Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT); 0 then. The URL is
/// printed first (with `--json`, as `{"url", "port", "read_only"}`).
pub fn serve(workflow: Workflow, opts: &Options, out: &Output) -> Result<i32> {
    long_lived_memory();
    let server = tiny_http::Server::http(("127.0.0.1", opts.port)).map_err(|e| {
        WfError::usage(format!(
            "cannot serve on 127.0.0.1:{}: {e}; pick another port with --port, or leave it out for a free one",
            opts.port
        ))
    })?;
    let port = server
        .server_addr()
        .to_ip()
        .map_or(opts.port, |addr| addr.port());
    let exe = std::env::current_exe()
        .map_err(|e| WfError::io(&e, format!("cannot find the running wf: {e}")))?;
    let read_only = opts.read_only || workflow.archived;
    let name = crate::report::one_line(&workflow_title(&workflow));
    let ctx = Arc::new(Ctx {
        workflow,
        read_only,
        token: new_token()?,
        hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
        exe,
        wait: opts.wait,
        actions: Arc::default(),
        whole_reads: std::sync::Mutex::new(()),
    });
    // Before the URL is out: whoever reads it may stop the server at once.
    crate::run::signals::install();
    // The token rides in the fragment: a browser never sends it to a server, nor in a
    // Referer, so it reaches only the page's own script.
    let url = format!("http://127.0.0.1:{port}/#token={}", ctx.token);
    out.json_value(&serde_json::json!({"url": url, "port": port, "read_only": read_only}));
    out.say(format!(
        "wf ui: {name}{} at\n  {url}\nCtrl-C stops it.",
        if read_only { " (read-only)" } else { "" }
    ));
    if opts.open {
        open_browser(&url, out);
    }
    server::run(&server, &ctx);
    actions::stop_running(&ctx.actions, out);
    Ok(0)
}

/// A server that lives for hours should not keep the largest buffer it ever freed
/// (glibc's own threshold rises to the largest freed block, up to 32 MB), nor an
/// arena per request thread.
fn long_lived_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets the allocator's parameters; no thread of this
        // process allocates yet.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

/// Gives the pages of freed memory back to the kernel, after a request that read the
/// whole state.
fn give_back_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim only releases free memory of the allocator's own.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

/// The workflow's name as `wf status` shows it (read from the summary, as `wf status`
/// reads it), or the project's dir when there is no state.
fn workflow_title(workflow: &Workflow) -> String {
    match workflow.store.view() {
        Ok(Some(view)) => crate::report::workflow_name(&view.state).to_string(),
        _ => workflow.project.display().to_string(),
    }
}

/// 32 hex digits from the kernel's random source.
fn new_token() -> Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| WfError::io(&e, format!("cannot read /dev/urandom for the token: {e}")))?;
    Ok(format!("{:032x}", u128::from_be_bytes(bytes)))
}

/// `$BROWSER URL`, else `xdg-open URL`; the page is served either way, so a failure
/// is a warning.
fn open_browser(url: &str, out: &Output) {
    let program = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| "xdg-open".into());
    let started = std::process::Command::new(&program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = started {
        out.warn(format!(
            "--open: cannot run {program} ({e}); open the URL yourself"
        ));
    }
}
