//! The one end-to-end test binary: every module runs the real `wf` against real
//! files in a temp dir through the `Test` builder.

mod plans;
mod test;

mod adopt;
mod agreement;
mod audit_patterns;
mod bad_input;
mod ci;
mod completions;
mod concurrency;
mod constraints;
mod cost;
mod crash;
mod crash_commands;
mod distributed;
mod doctor;
mod escapes;
mod events_filter;
mod execute;
mod executors;
mod export_ids;
mod faults;
mod foundation;
mod hardening;
mod hooks;
mod import_trust;
mod init;
mod json_contract;
mod layers;
mod list;
mod logs;
mod mcp;
mod plan_patterns;
mod processes;
mod proof;
mod proof_doc;
mod recovery;
mod report;
mod security;
mod start;
mod status_tasks;
mod summary;
mod terminal;
mod ui;
mod usage;
