//! The tools of `tools/` on the MCP protocol, over stdio (`transport.rs`: every line
//! answered), with the `rmcp` SDK.
//!
//! stdout carries the protocol and nothing else: the tools print nothing (the run's
//! progress goes to a quiet reporter, checks write to their logs) and diagnostics go
//! to stderr. A tool runs on tokio's blocking pool, since a check can run for minutes
//! and the engine is synchronous code.
//!
//! Signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT are counted as during a run
//! (`src/run/signals.rs`) from the start, so a signal in the middle of `done` stops its
//! checks and saves the state as `wf workflow-execute` would; the server then ends, after
//! the call in flight has, with 130. The client closing stdin ends it with 0, before
//! `initialize` too.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::ServerInitializeError;
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};

use super::schemas;
use super::tools::{self, Answer, Claim, Context, LogsQuery, Reported};
use super::transport::Lines;
use crate::error::{Result, WfError};
use crate::state::model::Usage;

/// The arguments of a tool that takes none: anything given is an error, not
/// ignored (a client that passes `task` to `next` learns that it means nothing).
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// `done`'s arguments: the agent's claim and what it used, optional.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DoneArgs {
    /// What was done, in a sentence or two.
    pub summary: Option<String>,
    /// The files the work changed, relative to the project.
    pub changed_files: Vec<String>,
    /// The tokens this task's work used, when you know them.
    pub usage: Option<UsageArgs>,
}

/// What the agent used on the task: its tokens, and its cost or its model (priced
/// by `wf.prices`).
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct UsageArgs {
    /// All input tokens, cached ones included.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    /// US dollars.
    pub cost_usd: Option<f64>,
    pub model: Option<String>,
}

/// `logs`' arguments, all optional.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LogsArgs {
    /// Task id; default: the one in progress, else the failed one, else the last that ran.
    pub task: Option<String>,
    /// Attempt, from 1; default: the last.
    pub attempt: Option<std::num::NonZeroU32>,
    /// Lines from the end (default 100, at most 2000).
    #[schemars(range(min = 1, max = 2000))]
    pub lines: Option<usize>,
}

/// `skip`'s arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkipArgs {
    /// Why it is left undone (recorded).
    #[schemars(length(min = 1))]
    pub reason: String,
    /// Task id; default: the failed task, else the one you were given.
    #[serde(default)]
    pub task: Option<String>,
}

#[derive(Clone)]
pub struct WfServer {
    ctx: Context,
    tool_router: ToolRouter<Self>,
    /// Calls in flight: the server ends only when none is.
    busy: Arc<AtomicUsize>,
}

/// Counts a call in flight until it is dropped, on the thread that ran it.
struct Busy(Arc<AtomicUsize>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[tool_router]
impl WfServer {
    pub fn new(ctx: Context) -> WfServer {
        WfServer {
            ctx,
            tool_router: Self::tool_router(),
            busy: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Runs a tool on the blocking pool; a panic in it is an error result, not the
    /// end of the server.
    async fn call(
        &self,
        tool: impl FnOnce(&Context) -> Result<Answer> + Send + 'static,
    ) -> CallToolResult {
        let ctx = self.ctx.clone();
        self.busy.fetch_add(1, Ordering::SeqCst);
        let busy = Busy(self.busy.clone());
        let answer = tokio::task::spawn_blocking(move || {
            let _busy = busy;
            tool(&ctx).unwrap_or_else(|e| Answer::error(&e))
        })
        .await
        .unwrap_or_else(|e| {
            Answer::error(&WfError::new(
                crate::error::ErrorKind::Failed,
                format!("internal error in the tool ({e}); the state is as the last save left it"),
            ))
        });
        result(answer)
    }

    #[tool(
        description = "The task to do now: its brief (requirement, files, checks, constraints), handed to you to do; for a failed task, its brief with the failure. Else why there is none and what to call.",
        output_schema = schemas::next()
    )]
    async fn next(
        &self,
        Parameters(NoArgs {}): Parameters<NoArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        Ok(self.call(tools::next).await)
    }

    #[tool(
        description = "Say the task you were given is finished: wf runs its checks and records the result. Passed: what is next. Failed: an error result with each failing check and its log's end; fix it and call `done` again.",
        output_schema = schemas::done()
    )]
    async fn done(
        &self,
        Parameters(args): Parameters<DoneArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        let claim = Claim {
            summary: args.summary,
            changed_files: args.changed_files,
            usage: args.usage.map(|u| Reported {
                usage: Usage {
                    input_tokens: u.input_tokens,
                    output_tokens: u.output_tokens,
                    cache_write_tokens: u.cache_write_tokens,
                    cache_read_tokens: u.cache_read_tokens,
                    cost_usd: u.cost_usd,
                },
                model: u.model,
            }),
        };
        Ok(self.call(move |ctx| tools::done(ctx, &claim)).await)
    }

    #[tool(
        description = "Leave a task undone with a reason (a failed one, or the one you were given), so the tasks after it can go on.",
        output_schema = schemas::skip()
    )]
    async fn skip(
        &self,
        Parameters(args): Parameters<SkipArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        Ok(self
            .call(move |ctx| tools::skip(ctx, args.task.as_deref(), &args.reason))
            .await)
    }

    #[tool(
        description = "Where the workflow stands: progress, the current and next task, failed and blocked tasks.",
        output_schema = schemas::status(),
        annotations(read_only_hint = true)
    )]
    async fn status(
        &self,
        Parameters(NoArgs {}): Parameters<NoArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        Ok(self.call(tools::status).await)
    }

    #[tool(
        description = "The end of a task's log (its checks' output).",
        output_schema = schemas::logs(),
        annotations(read_only_hint = true)
    )]
    async fn logs(
        &self,
        Parameters(args): Parameters<LogsArgs>,
    ) -> std::result::Result<CallToolResult, ErrorData> {
        let query = LogsQuery {
            task: args.task,
            attempt: args.attempt.map(std::num::NonZeroU32::get),
            lines: args.lines,
        };
        Ok(self.call(move |ctx| tools::logs(ctx, &query)).await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for WfServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("wf", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "wf runs a plan of tasks and checks each one. Loop: call `next` for the task to do, do it, call `done`; when `done` fails, fix what it shows and call `done` again, or `skip` it with a reason. `status` shows progress, `logs` a task's check output.",
            )
    }
}

/// An answer as a tool result: the text, the JSON as structured content, and
/// `isError` when the answer is a failure.
pub fn result(answer: Answer) -> CallToolResult {
    let content = vec![ContentBlock::text(answer.text)];
    let mut result = if answer.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = Some(answer.json);
    result
}

/// Serves the tools on stdin/stdout until the client closes stdin (0) or a signal
/// comes (130).
pub fn serve(ctx: Context) -> Result<i32> {
    crate::run::signals::install();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| WfError::io(&e, format!("cannot start the MCP server's runtime: {e}")))?;
    let server = WfServer::new(ctx);
    let busy = server.busy.clone();
    let code = runtime.block_on(async move {
        let service = tokio::select! {
            service = server.serve(Lines::new(tokio::io::stdin(), tokio::io::stdout())) => match service {
                Ok(service) => service,
                // The client went away before initializing: it is done, as when it
                // closes stdin later.
                Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(0),
                // It spoke something else than `initialize` first.
                Err(e) => return Err(WfError::usage(format!("MCP initialization failed: {e}"))),
            },
            () = signalled() => return Ok(crate::error::ErrorKind::Interrupted.exit_code()),
        };
        let token = service.cancellation_token();
        let code = tokio::select! {
            _ = service.waiting() => 0,
            () = signalled() => {
                token.cancel();
                crate::error::ErrorKind::Interrupted.exit_code()
            }
        };
        // A call in flight finishes (a signal has already stopped its checks) and
        // saves, before the process ends.
        while busy.load(Ordering::SeqCst) > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(code)
    });
    // A pending read of stdin cannot be cancelled (rmcp's transport::stdio says so);
    // waiting for it would keep a signalled server alive until the client writes.
    runtime.shutdown_background();
    code
}

async fn signalled() {
    while crate::run::signals::count() == 0 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
