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
mod faults;
mod foundation;
mod hooks;
mod report;
mod security;
mod start;
