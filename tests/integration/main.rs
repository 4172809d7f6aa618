//! The one end-to-end test binary: every module runs the real `wf` against real
//! files in a temp dir through the `Test` builder.

mod test;

mod constraints;
mod foundation;
mod report;
