//! The values of claude-workflow fields: text, lists, commands, steps, booleans and
//! durations, each read as docs/plans.md describes.

use super::doc::{self, code_spans, is_none_word, split_list, strip_ticks};
use super::ids::is_valid_id;
use crate::state::model::Step;

/// The non-empty value lines joined by newlines.
pub(super) fn text(parts: &[String]) -> Option<String> {
    let lines: Vec<&str> = parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

pub(super) fn item_lines(parts: &[String]) -> impl Iterator<Item = &str> {
    parts
        .iter()
        .map(|p| doc::list_item(p).unwrap_or(p).trim())
        .filter(|p| !p.is_empty())
}

pub(super) fn items(parts: &[String]) -> Vec<String> {
    item_lines(parts)
        .flat_map(|p| split_list(strip_ticks(p)))
        .filter(|x| !is_none_word(x))
        .collect()
}

/// Like [`items`] but also split on spaces: ids and kinds have none.
pub(super) fn words(parts: &[String]) -> Vec<String> {
    items(parts)
        .iter()
        .flat_map(|x| x.split_whitespace())
        .map(|w| strip_ticks(w).to_string())
        .filter(|x| !is_none_word(x))
        .collect()
}

pub(super) fn parse_bool(v: &str) -> Option<bool> {
    let v = strip_ticks(v).to_ascii_lowercase();
    match v.as_str() {
        "true" | "yes" | "y" | "1" | "on" | "是" | "需要" | "有" => Some(true),
        "false" | "no" | "n" | "0" | "off" | "否" | "不需要" | "无" | "" => Some(false),
        _ => None,
    }
}

pub(super) fn parse_secs(v: &str) -> Option<u64> {
    let v = strip_ticks(v).trim().to_ascii_lowercase();
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = v.get(..digits)?.parse().ok()?;
    let unit = v.get(digits..)?.trim();
    let scale = match unit {
        "" | "s" | "sec" | "secs" | "second" | "seconds" | "秒" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" | "分钟" | "分" => 60,
        "h" | "hour" | "hours" | "小时" => 3600,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// 验证命令: one command per line; a line starting with a backtick holds code spans.
pub(super) fn commands(parts: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for p in item_lines(parts) {
        if p.starts_with('`') {
            out.extend(
                code_spans(p)
                    .into_iter()
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(str::to_string),
            );
        } else if !is_none_word(p) {
            out.push(p.to_string());
        }
    }
    out
}

/// 步骤: each list item of the value is a step; other lines continue the last one.
pub(super) fn steps(parts: &[String]) -> Vec<Step> {
    let mut raw: Vec<String> = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        match (doc::list_item(p), raw.last_mut()) {
            (None, Some(last)) if i > 0 => {
                last.push(' ');
                last.push_str(p);
            }
            (item, _) => raw.push(item.unwrap_or(p).to_string()),
        }
    }
    raw.iter()
        .enumerate()
        .map(|(i, s)| step(s, i + 1))
        .collect()
}

pub(super) fn step(s: &str, n: usize) -> Step {
    let (id, body) = match s.split_once([':', '：']) {
        Some((id, body)) if is_step_id(id.trim()) => (id.trim().to_string(), body.trim()),
        _ => (format!("A{n}"), s.trim()),
    };
    let (body, check) = split_check(body);
    let (action, output) = match find_arrow(body) {
        Some((a, o)) => (a.trim(), Some(o.trim()).filter(|o| !o.is_empty())),
        None => (body.trim(), None),
    };
    let mut step = Step {
        id,
        action: action.to_string(),
        output: output.map(str::to_string),
        ..Step::default()
    };
    if let Some(c) = check.filter(|c| !c.is_empty()) {
        step.check_cmd = doc::whole_span(c)
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_string);
        step.check = Some(c.to_string());
    }
    step
}

pub(super) fn is_step_id(s: &str) -> bool {
    let letters = s.bytes().take_while(u8::is_ascii_alphabetic).count();
    s.len() <= 16 && s.as_bytes().get(letters).is_some_and(u8::is_ascii_digit) && is_valid_id(s)
}

pub(super) fn find_arrow(s: &str) -> Option<(&str, &str)> {
    ["→", "->", "=>"]
        .iter()
        .filter_map(|a| s.find(a).map(|i| (i, a.len())))
        .min()
        .and_then(|(i, len)| Some((s.get(..i)?, s.get(i + len..)?)))
}

/// Splits off a trailing `（验证：check）` / `(verify: check)`; the last one counts.
pub(super) fn split_check(body: &str) -> (&str, Option<&str>) {
    let opens = body
        .char_indices()
        .filter(|(_, c)| matches!(c, '(' | '（'))
        .collect::<Vec<_>>();
    for (i, c) in opens.into_iter().rev() {
        let Some(after) = body.get(i + c.len_utf8()..) else {
            continue;
        };
        let a = after.trim_start();
        let word_len = ["验证", "校验", "verify", "check"].iter().find_map(|w| {
            a.get(..w.len())
                .filter(|p| p.eq_ignore_ascii_case(w))
                .map(|_| w.len())
        });
        let Some(wl) = word_len else { continue };
        let Some(rest) = a.get(wl..).map(str::trim_start) else {
            continue;
        };
        let Some(check) = rest.strip_prefix([':', '：']) else {
            continue;
        };
        let check = check.trim_end();
        let check = check.strip_suffix([')', '）']).unwrap_or(check).trim();
        return (body.get(..i).unwrap_or(body), Some(check));
    }
    (body, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ids::is_valid_kind;

    fn parts(v: &[&str]) -> Vec<String> {
        v.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn steps_with_prose_and_command_checks() {
        let s = steps(&parts(&[
            "",
            "- A1: 生成工件 → 输出 spec（验证：工件存在）",
            "- A2: run -> report (verify: `cargo test -q`)",
            "- plain step",
            "  continued",
        ]));
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].id.as_str(), s[0].action.as_str()), ("A1", "生成工件"));
        assert_eq!(s[0].output.as_deref(), Some("输出 spec"));
        assert_eq!(s[0].check.as_deref(), Some("工件存在"));
        assert_eq!(s[0].check_cmd, None);
        assert_eq!(s[1].check.as_deref(), Some("`cargo test -q`"));
        assert_eq!(s[1].check_cmd.as_deref(), Some("cargo test -q"));
        assert_eq!(s[1].output.as_deref(), Some("report"));
        assert_eq!(s[2].id, "A3");
        assert_eq!(s[2].action, "plain step continued");
    }

    #[test]
    fn verify_commands() {
        assert_eq!(
            commands(&parts(&[
                "`npm test` `npm run lint`",
                "- cargo build",
                "无"
            ])),
            vec!["npm test", "npm run lint", "cargo build"]
        );
        assert_eq!(commands(&parts(&["echo `date`"])), vec!["echo `date`"]);
        assert_eq!(commands(&parts(&["``echo `x` ``"])), vec!["echo `x`"]);
    }

    #[test]
    fn lists_and_words() {
        assert_eq!(
            items(&parts(&["`a.ts`, b.ts", "- c.ts", "无"])),
            vec!["a.ts", "b.ts", "c.ts"]
        );
        assert_eq!(words(&parts(&["T1 T2、T3"])), vec!["T1", "T2", "T3"]);
        assert!(words(&parts(&["无"])).is_empty());
        assert!(words(&parts(&["none"])).is_empty());
    }

    #[test]
    fn scalars() {
        assert_eq!(parse_bool("是"), Some(true));
        assert_eq!(parse_bool("maybe"), None);
        assert_eq!(parse_secs("5m"), Some(300));
        assert_eq!(parse_secs("300 s"), Some(300));
        assert_eq!(parse_secs("x"), None);
        assert_eq!(parse_secs("99999999999999999999"), None);
        assert!(is_valid_kind("api_spec"));
        assert!(!is_valid_kind("Api"));
        assert!(!is_valid_kind(""));
        assert!(is_valid_id("T1.2-a_b"));
        assert!(!is_valid_id("../x/"));
        assert!(!is_valid_id(&"a".repeat(65)));
    }
}
