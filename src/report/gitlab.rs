//! GitLab CI's collapsible log sections around each task's output
//! (`GITLAB_CI=true`): `ESC[0Ksection_start:<unix time>:<name>[collapsed=true]\rESC[0K<header>`,
//! the task's lines, then `ESC[0Ksection_end:<unix time>:<name>\rESC[0K`, as GitLab's job
//! log reads them.
//!
//! Plan text never reaches a marker unescaped: the name is built from the task id
//! with every character outside `[A-Za-z0-9_.-]` replaced, and the header is one line
//! with every control character shown escaped (`crate::escape`). GitLab takes a marker only when it ends in `\r` and
//! `ESC[0K`, so a task name holding `section_end:…` cannot end a section or forge one.

use crate::report::one_line;

/// The section's name for attempt `attempt` of task `id`: `wf_<id>_<attempt>`, unique
/// in a job even when a task runs again.
pub fn section_name(id: &str, attempt: u32) -> String {
    let id: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("wf_{id}_{attempt}")
}

/// The line that opens section `name` at `unix` seconds, titled `header`; a
/// collapsed section shows only the header until opened.
pub fn section_start(name: &str, unix: i64, collapsed: bool, header: &str) -> String {
    let option = if collapsed { "[collapsed=true]" } else { "" };
    let header = one_line(header);
    format!("\x1b[0Ksection_start:{unix}:{name}{option}\r\x1b[0K{header}")
}

/// The line that closes section `name` at `unix` seconds.
pub fn section_end(name: &str, unix: i64) -> String {
    format!("\x1b[0Ksection_end:{unix}:{name}\r\x1b[0K")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_only_safe_characters() {
        let rows = [
            ("T3", 1, "wf_T3_1"),
            ("T3.a-b_c", 2, "wf_T3.a-b_c_2"),
            ("T:1\r\x1b[0Kx y", 1, "wf_T_1___0Kx_y_1"),
            ("任务1", 1, "wf___1_1"),
        ];
        for (id, attempt, want) in rows {
            assert_eq!(section_name(id, attempt), want, "{id:?}");
        }
    }

    #[test]
    fn markers_follow_gitlab_and_headers_cannot_forge_one() {
        assert_eq!(
            section_start("wf_T1_1", 1_767_866_400, true, "✓ T1 build"),
            "\x1b[0Ksection_start:1767866400:wf_T1_1[collapsed=true]\r\x1b[0K✓ T1 build"
        );
        assert_eq!(
            section_start("wf_T1_1", 5, false, "a\r\x1b[0Ksection_end:5:wf_T1_1\nb"),
            "\x1b[0Ksection_start:5:wf_T1_1\r\x1b[0Ka\\r\\u{1b}[0Ksection_end:5:wf_T1_1 b"
        );
        assert_eq!(
            section_end("wf_T1_1", 9),
            "\x1b[0Ksection_end:9:wf_T1_1\r\x1b[0K"
        );
    }
}
