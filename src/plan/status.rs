//! How a plan writes a task's status, and which statuses an import keeps.
//!
//! claude-workflow shows status as an emoji at the end of the task heading (✅ done,
//! ⏳ in progress, ❌ failed, ⏭️ skipped — with or without the U+FE0F variation
//! selector) and in the `状态` field (English words or Chinese). The parser and the
//! mirror both go through this file so that what one writes the other reads.

use crate::state::machine::TaskStatus;

const EMOJIS: [(char, TaskStatus); 4] = [
    ('✅', TaskStatus::Completed),
    ('⏳', TaskStatus::InProgress),
    ('❌', TaskStatus::Failed),
    ('⏭', TaskStatus::Skipped),
];

/// A heading's text without its trailing status emoji(s) and the whitespace before
/// them (a prefix of `name`), and the status they show (the last emoji wins).
pub(crate) fn split_heading_status(name: &str) -> (&str, Option<TaskStatus>) {
    let mut rest = name.trim_end();
    let mut status = None;
    loop {
        let t = rest.trim_end().trim_end_matches('\u{fe0f}').trim_end();
        let Some(last) = t.chars().next_back() else {
            rest = t;
            break;
        };
        if let Some((c, s)) = EMOJIS.iter().find(|(c, _)| *c == last) {
            status.get_or_insert(*s);
            rest = t.get(..t.len() - c.len_utf8()).unwrap_or("");
        } else {
            rest = t;
            break;
        }
    }
    (rest.trim_end(), status)
}

/// The emoji a heading shows for `status`; pending and blocked show none.
pub(crate) fn emoji(status: TaskStatus) -> Option<&'static str> {
    match status {
        TaskStatus::Completed => Some("✅"),
        TaskStatus::InProgress => Some("⏳"),
        TaskStatus::Failed => Some("❌"),
        TaskStatus::Skipped => Some("⏭️"),
        TaskStatus::Pending | TaskStatus::Blocked => None,
    }
}

/// A `状态` value in English or Chinese, with any status emoji ignored.
pub(crate) fn parse_word(value: &str) -> Option<TaskStatus> {
    let mut emoji = None;
    let word: String = value
        .chars()
        .filter(|c| match EMOJIS.iter().find(|(e, _)| e == c) {
            Some((_, s)) => {
                emoji.get_or_insert(*s);
                false
            }
            None => *c != '\u{fe0f}',
        })
        .collect();
    let w = word.trim().trim_matches('`').trim().to_ascii_lowercase();
    let w = w.replace(['-', ' '], "_");
    let s = match w.as_str() {
        "" => return emoji,
        "pending" | "todo" | "to_do" | "not_started" | "open" | "待执行" | "待处理" | "未开始"
        | "待开始" | "未完成" => TaskStatus::Pending,
        "in_progress" | "inprogress" | "running" | "doing" | "started" | "进行中" | "执行中" => {
            TaskStatus::InProgress
        }
        "completed" | "complete" | "done" | "finished" | "已完成" | "完成" | "已结束" => {
            TaskStatus::Completed
        }
        "skipped" | "skip" | "deferred" | "已跳过" | "跳过" | "延后" => TaskStatus::Skipped,
        "failed" | "fail" | "error" | "失败" | "已失败" => TaskStatus::Failed,
        "blocked" | "阻塞" | "已阻塞" => TaskStatus::Blocked,
        _ => return None,
    };
    Some(s)
}

/// Import rule: only finished work (completed, skipped) carries over as progress.
pub(crate) fn imported(status: TaskStatus) -> TaskStatus {
    match status {
        TaskStatus::Completed | TaskStatus::Skipped => status,
        _ => TaskStatus::Pending,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_emojis() {
        assert_eq!(
            split_heading_status("Build ✅"),
            ("Build", Some(TaskStatus::Completed))
        );
        assert_eq!(
            split_heading_status("Build ⏭️"),
            ("Build", Some(TaskStatus::Skipped))
        );
        assert_eq!(
            split_heading_status("Build ⏭"),
            ("Build", Some(TaskStatus::Skipped))
        );
        assert_eq!(
            split_heading_status("Build ⏳ ❌"),
            ("Build", Some(TaskStatus::Failed))
        );
        assert_eq!(split_heading_status("Build"), ("Build", None));
        assert_eq!(
            split_heading_status("✅"),
            ("", Some(TaskStatus::Completed))
        );
    }

    #[test]
    fn words() {
        assert_eq!(parse_word("已完成"), Some(TaskStatus::Completed));
        assert_eq!(parse_word("In Progress"), Some(TaskStatus::InProgress));
        assert_eq!(parse_word("`pending`"), Some(TaskStatus::Pending));
        assert_eq!(parse_word("✅ completed"), Some(TaskStatus::Completed));
        assert_eq!(parse_word("✅"), Some(TaskStatus::Completed));
        assert_eq!(parse_word("whatever"), None);
        assert_eq!(parse_word(""), None);
    }

    #[test]
    fn every_emoji_reads_back() {
        for s in TaskStatus::ALL {
            if let Some(e) = emoji(s) {
                assert_eq!(split_heading_status(&format!("x {e}")).1, Some(s));
            }
        }
    }
}
