//! The one end-to-end test binary: every module runs the real `wf` against real
//! files in a temp dir through the `Test` builder.

mod plans;
mod test;

mod bad_input;
mod concurrency;
mod constraints;
mod crash;
mod execute;
mod executors;
mod foundation;
mod hooks;
mod processes;
mod report;
mod security;
mod start;
