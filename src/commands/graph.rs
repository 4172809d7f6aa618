//! `wf graph`: the task graph as Mermaid (default) or DOT. Read-only.

use serde_json::json;

use crate::cli::{GraphArgs, GraphFormat};
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::report::graph;

pub fn run(project: &Project, args: &GraphArgs, out: &Output) -> Result<i32> {
    let (_, state) = super::load_state(project)?;
    let (name, text) = match args.format {
        GraphFormat::Mermaid => ("mermaid", graph::mermaid(&state)?),
        GraphFormat::Dot => ("dot", graph::dot(&state)?),
    };
    out.json_value(&json!({"format": name, "graph": text}));
    out.say(text.trim_end());
    Ok(0)
}
