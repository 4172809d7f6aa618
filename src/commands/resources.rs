//! `wf resources`: the executor pool as a capability catalog (docs/executors.md): for
//! each capability, how many executors offer it, how many are usable, and each one's
//! level and status. Read-only; it needs no workflow, only the project config.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use serde_json::json;

use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::run::executor::{Pool, ResourceStatus};

// The signature every command has, though listing resources cannot fail.
#[allow(clippy::unnecessary_wraps)]
pub fn run(project: &Project, out: &Output) -> Result<i32> {
    let pool = Pool::from_config(&project.config, None);
    let catalog = pool.catalog();
    out.json_value(&json!({"schemaVersion": 1, "capabilities": catalog}));
    if catalog.is_empty() {
        out.say(format!(
            "No executors configured: agent tasks are handed off to you (see wf.executors in {}).",
            project.config.display_path()
        ));
        return Ok(0);
    }
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header(vec![
        "capability",
        "resources",
        "available",
        "executors (level, status)",
    ]);
    for entry in &catalog {
        let list: Vec<String> = entry
            .resources
            .iter()
            .map(|r| {
                let status = match r.status {
                    ResourceStatus::Available => "available".to_string(),
                    ResourceStatus::Busy => "busy".to_string(),
                    ResourceStatus::Error => {
                        format!("error: {}", r.error.as_deref().unwrap_or("unusable"))
                    }
                };
                format!("{} ({}, L{}, {status})", r.id, r.role, r.level)
            })
            .collect();
        table.add_row(vec![
            entry.capability.clone(),
            entry.resource_count.to_string(),
            entry.available_count.to_string(),
            list.join("\n"),
        ]);
    }
    out.say(table.to_string());
    Ok(0)
}
