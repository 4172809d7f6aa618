//! `wf graph`: the task graph as text on a terminal, Mermaid in a pipe, or DOT.
//! Read-only.

use serde_json::json;

use crate::cli::{GraphArgs, GraphFormat};
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::report::graph;

pub fn run(project: &Project, args: &GraphArgs, out: &Output) -> Result<i32> {
    let (_, state) = super::load_state(project)?;
    // A pipe gets what it got before text existed: scripts read Mermaid.
    let format = args.format.unwrap_or(if out.stdout_tty && !out.json {
        GraphFormat::Text
    } else {
        GraphFormat::Mermaid
    });
    let (name, text) = match format {
        GraphFormat::Text => (
            "text",
            graph::text(&state, usize::from(out.look().width.unwrap_or(80)))?,
        ),
        GraphFormat::Mermaid => ("mermaid", graph::mermaid(&state)?),
        GraphFormat::Dot => ("dot", graph::dot(&state)?),
    };
    out.json_value(&json!({"format": name, "graph": text}));
    out.say(text.trim_end());
    Ok(0)
}
