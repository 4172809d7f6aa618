//! `wf resources` as a table: per capability, the executors offering it with their
//! role, level and status.

use crate::output::Look;
use crate::run::executor::{CatalogEntry, ResourceStatus};

pub fn catalog_table(catalog: &[CatalogEntry], look: Look) -> String {
    let mut table = super::table::new(look);
    table.set_header(vec![
        "capability",
        "resources",
        "available",
        "executors (level, status)",
    ]);
    for entry in catalog {
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
    super::table::keep_whole(&mut table, &[0, 1, 2]);
    table.to_string()
}
