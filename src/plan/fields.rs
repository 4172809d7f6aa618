//! The claude-workflow fields: from a task block's `- **字段**: 值` lines to a
//! [`Task`]. The names of each field and how lists, commands, steps and status words
//! are read are in docs/plans.md "Fields".
//!
//! Names match ignoring case, spaces, `_` and `-`, in Chinese or English, as plans
//! write them. A field wf does not know is kept in `Task.extra`, not dropped (under
//! `plan_<name>` when the state uses the name), with a warning when it is a slip of
//! the keyboard from a known one ("did you mean `verify`?").

use serde_json::Value;

use super::doc::{is_none_word, shown, strip_ticks};
use super::{status, Draft, PlanError, PlanWarning};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

use super::ids::{bad_id, is_valid_id, is_valid_kind};
use super::values::{commands, items, parse_bool, parse_secs, steps, text, words};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Phase,
    File,
    /// `Files: a, b`: the first is the task's file, the others it modifies.
    Files,
    Creates,
    Modifies,
    Tests,
    Reuse,
    DesignRefs,
    Requirement,
    Acceptance,
    Actions,
    Deps,
    Blockers,
    QualityGate,
    Threshold,
    Verify,
    Expect,
    Status,
    Steps,
    Timeout,
    Capabilities,
    /// `- **ID**: TASK-001` under a heading that numbers the task (`### Task 0.1:`):
    /// the id the plan's dependencies use.
    Id,
}

/// Every field name a plan may use, as shown in suggestions; matched through [`norm`].
const NAMES: &[(&str, Key)] = &[
    ("阶段", Key::Phase),
    ("phase", Key::Phase),
    ("文件", Key::File),
    ("file", Key::File),
    ("files", Key::Files),
    ("创建文件", Key::Creates),
    ("creates", Key::Creates),
    ("create", Key::Creates),
    ("files_to_create", Key::Creates),
    ("修改文件", Key::Modifies),
    ("modifies", Key::Modifies),
    ("modify", Key::Modifies),
    ("files_to_modify", Key::Modifies),
    ("测试文件", Key::Tests),
    ("tests", Key::Tests),
    ("test_files", Key::Tests),
    ("files_to_test", Key::Tests),
    ("复用", Key::Reuse),
    ("reuse", Key::Reuse),
    ("leverage", Key::Reuse),
    ("设计参考", Key::DesignRefs),
    ("Spec 参考", Key::DesignRefs),
    ("Plan 参考", Key::DesignRefs),
    ("design_ref", Key::DesignRefs),
    ("design_refs", Key::DesignRefs),
    ("spec_ref", Key::DesignRefs),
    ("plan_ref", Key::DesignRefs),
    ("需求", Key::Requirement),
    ("内容", Key::Requirement),
    ("requirement", Key::Requirement),
    ("description", Key::Requirement),
    ("details", Key::Requirement),
    ("work", Key::Requirement),
    ("验收", Key::Acceptance),
    ("验收项", Key::Acceptance),
    ("验收标准", Key::Acceptance),
    ("acceptance", Key::Acceptance),
    ("acceptance criteria", Key::Acceptance),
    ("id", Key::Id),
    ("task id", Key::Id),
    ("actions", Key::Actions),
    ("action", Key::Actions),
    ("动作", Key::Actions),
    ("依赖", Key::Deps),
    ("depends", Key::Deps),
    ("depends_on", Key::Deps),
    ("deps", Key::Deps),
    ("dependencies", Key::Deps),
    ("阻塞依赖", Key::Blockers),
    ("blockers", Key::Blockers),
    ("blocked_by", Key::Blockers),
    ("质量关卡", Key::QualityGate),
    ("quality_gate", Key::QualityGate),
    ("阈值", Key::Threshold),
    ("threshold", Key::Threshold),
    ("验证命令", Key::Verify),
    ("verify", Key::Verify),
    ("verify_command", Key::Verify),
    ("verification", Key::Verify),
    ("验证期望", Key::Expect),
    ("expect", Key::Expect),
    ("expected", Key::Expect),
    ("状态", Key::Status),
    ("status", Key::Status),
    ("步骤", Key::Steps),
    ("steps", Key::Steps),
    ("超时", Key::Timeout),
    ("timeout", Key::Timeout),
    ("timeout_secs", Key::Timeout),
    ("能力", Key::Capabilities),
    ("capabilities", Key::Capabilities),
];

/// A field name compared: lowercase, without spaces, `_` and `-`.
fn norm(key: &str) -> String {
    key.chars()
        .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// `NAMES` by their compared form (the first name of a form wins, as a scan would),
/// built once: `canon` runs for every field line of a plan, on each import and each
/// plan-copy mirror.
static BY_NORM: std::sync::LazyLock<std::collections::HashMap<String, Key>> =
    std::sync::LazyLock::new(|| {
        let mut map = std::collections::HashMap::new();
        for (name, key) in NAMES {
            map.entry(norm(name)).or_insert(*key);
        }
        map
    });

pub(crate) fn canon(key: &str) -> Option<Key> {
    // Most plans spell a field as the table does: found without normalizing.
    static EXACT: std::sync::LazyLock<std::collections::HashMap<&'static str, Key>> =
        std::sync::LazyLock::new(|| {
            NAMES
                .iter()
                .filter_map(|(n, _)| Some((*n, *BY_NORM.get(&norm(n))?)))
                .collect()
        });
    if let Some(k) = EXACT.get(key) {
        return Some(*k);
    }
    BY_NORM.get(&norm(key)).copied()
}

/// The known field name closest to an unknown `key`, when it is close enough to be a
/// slip of the keyboard: one edit for names of up to five characters, two beyond.
pub(crate) fn suggest(key: &str) -> Option<&'static str> {
    let k: Vec<char> = norm(key).chars().collect();
    let most = if k.len() <= 5 { 1 } else { 2 };
    NAMES
        .iter()
        .map(|(n, _)| {
            (
                crate::error::edit_distance(&k, &norm(n).chars().collect::<Vec<_>>()),
                *n,
            )
        })
        .filter(|(d, _)| (1..=most).contains(d))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Names the state file uses for `Task` fields; an unknown plan field of the same
/// name would clash with them in `Task.extra`.
const RESERVED: &[&str] = &[
    "id",
    "name",
    "phase",
    "status",
    "line",
    "deps",
    "blocked_by",
    "actions",
    "file",
    "creates",
    "modifies",
    "tests",
    "reuse",
    "design_refs",
    "requirement",
    "acceptance",
    "quality_gate",
    "threshold",
    "verify",
    "expect",
    "steps",
    "parallel",
    "story",
    "timeout_secs",
    "capabilities",
    "digest",
    "failure_reason",
    "attempts",
    "dispatch_failures",
    "executor",
    "log",
    "handed_off",
];

/// One field of a block: its name as written, its line, and its value lines (the
/// first is what follows the colon, possibly empty).
#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub key: String,
    pub line: usize,
    pub parts: Vec<String>,
}

/// A task block as the block reader found it.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub id: String,
    /// The heading text after the colon, status emoji included.
    pub heading_name: String,
    pub line: usize,
    /// `(line, inside)` of whole-line HTML comments in the block.
    pub meta: Vec<(usize, String)>,
    pub fields: Vec<Field>,
    /// The box of a heading that holds one (`### - [x] T001 name`).
    pub heading_box: Option<char>,
    /// The box of the first field line that has one (`- [x] **Description**: …`).
    pub field_box: Option<char>,
    /// The checkbox items in the block (steps, criteria): how many, how many checked.
    pub boxes: (usize, usize),
}

impl Block {
    pub(crate) fn new(id: &str, heading_name: &str, line: usize) -> Block {
        Block {
            id: id.to_string(),
            heading_name: heading_name.to_string(),
            line,
            meta: Vec::new(),
            fields: Vec::new(),
            heading_box: None,
            field_box: None,
            boxes: (0, 0),
        }
    }
}

/// Turns a block into a task; errors name the line of the offending field.
pub(crate) fn build(block: Block, warnings: &mut Vec<PlanWarning>) -> Result<Draft, PlanError> {
    if !is_valid_id(&block.id) {
        return Err(bad_id(block.line, &block.id));
    }
    let (name, heading_status) = status::split_heading_status(&block.heading_name);
    if name.is_empty() {
        return Err(PlanError::new(
            block.line,
            format!(
                "task {} has no name; write it after the colon, e.g. `## {}: Add the login form`",
                block.id, block.id
            ),
        ));
    }
    let mut task = Task {
        id: block.id.clone(),
        name: name.to_string(),
        line: block.line,
        ..Task::default()
    };
    let id = block.id.as_str();
    for (line, inner) in &block.meta {
        apply_meta(&mut task, *line, inner)?;
    }
    let mut field_status = None;
    let mut deps_line = block.line;
    for f in &block.fields {
        let Some(key) = canon(&f.key) else {
            if let Some(name) = suggest(&f.key) {
                warnings.push(PlanWarning::new(
                    f.line,
                    format!(
                        "task {id}: unknown field `{}`; did you mean `{name}`? (kept as a plain note, not used)",
                        f.key
                    ),
                ));
            }
            add_extra(&mut task, &f.key, text(&f.parts).unwrap_or_default());
            continue;
        };
        match key {
            Key::Phase => {
                task.phase = text(&f.parts)
                    .map(|t| t.replace('\n', " "))
                    .unwrap_or_default();
            }
            Key::File => {
                task.file = text(&f.parts)
                    .map(|t| strip_ticks(&t).to_string())
                    .filter(|t| !is_none_word(t));
            }
            Key::Files => {
                for item in items(&f.parts) {
                    if task.file.is_none() {
                        task.file = Some(item);
                    } else if task.file.as_ref() != Some(&item) {
                        push_unique(&mut task.modifies, item);
                    }
                }
            }
            Key::Creates => task.creates.extend(items(&f.parts)),
            Key::Modifies => task.modifies.extend(items(&f.parts)),
            Key::Tests => task.tests.extend(items(&f.parts)),
            Key::Reuse => {
                task.reuse = text(&f.parts)
                    .map(|t| strip_ticks(&t).to_string())
                    .filter(|t| !is_none_word(t));
            }
            Key::DesignRefs => task.design_refs.extend(items(&f.parts)),
            Key::Requirement => task.requirement = text(&f.parts),
            Key::Acceptance => task.acceptance = text(&f.parts),
            Key::Actions => task.actions.extend(items(&f.parts)),
            Key::Capabilities => task.capabilities.extend(items(&f.parts)),
            Key::Expect => task.expect = text(&f.parts),
            Key::Deps => {
                deps_line = f.line;
                // `Task 1.1` names task 1.1 (a heading `### Task 1.1:`).
                let written = words(&f.parts);
                let deps = written
                    .iter()
                    .filter(|w| {
                        !matches!(w.as_str(), "Task" | "task" | "Step" | "Subtask" | "任务")
                    })
                    .cloned();
                for dep in deps {
                    if !is_valid_id(&dep) {
                        return Err(PlanError::new(f.line, format!(
                            "task {id} lists {} as a dependency, which is not a task id; write task ids such as `T1, T2` (or none)",
                            shown(&dep)
                        )));
                    }
                    push_unique(&mut task.deps, dep);
                }
            }
            Key::Blockers => {
                task.no_blockers = f.parts.first().is_some_and(|v| is_none_word(v));
                for kind in words(&f.parts) {
                    let kind = kind.to_ascii_lowercase();
                    if !is_valid_kind(&kind) {
                        return Err(PlanError::new(f.line, format!(
                            "task {id} lists {} as a blocker, which is not a blocker kind; use api_spec, design_spec or a kind from wf.blockers (lowercase letters, digits, _)",
                            shown(&kind)
                        )));
                    }
                    push_unique(&mut task.blocked_by, kind);
                }
            }
            Key::QualityGate => {
                task.quality_gate =
                    value(id, f, parse_bool, "not a yes/no value; write true or false")?;
            }
            Key::Threshold => {
                let percent = |v: &str| {
                    let n = v.trim().trim_end_matches('%').trim().parse::<u32>();
                    n.ok().filter(|n| *n <= 100)
                };
                let what = "not a number from 0 to 100; write e.g. 80";
                task.threshold = Some(value(id, f, percent, what)?);
            }
            Key::Timeout => {
                let what = "not a duration; write seconds, e.g. 300 or 300s or 5m";
                task.timeout_secs = Some(value(id, f, parse_secs, what)?);
            }
            Key::Verify => task.verify.extend(commands(&f.parts)),
            Key::Status => {
                let what = "not a status; use pending, in_progress, completed, skipped or failed";
                field_status = Some(value(id, f, status::parse_word, what)?);
            }
            Key::Steps => task.steps.extend(steps(&f.parts)),
            Key::Id => {
                let v = text(&f.parts).unwrap_or_default();
                let v = v.trim_matches('`').trim();
                if !is_valid_id(v) {
                    return Err(bad_id(f.line, v));
                }
                task.id = v.to_string();
            }
        }
    }
    if task.quality_gate && task.threshold.is_none() {
        task.threshold = Some(80);
    }
    let boxed = block
        .heading_box
        .or(block.field_box)
        .map(|mark| super::marks::Legend::default().status(mark));
    // A task whose every checkbox item is checked is done (`### Task 1.1:` over its
    // checked steps), when nothing else says.
    let all_checked =
        (block.boxes.0 > 0 && block.boxes.0 == block.boxes.1).then_some(TaskStatus::Completed);
    task.status = field_status
        .or(heading_status)
        .or(boxed)
        .or(all_checked)
        .unwrap_or(TaskStatus::Pending);
    Ok(Draft {
        task,
        deps_line,
        group: 0,
    })
}

/// The value of the field `f` of task `id` as `parse` reads it; else an error, `what`
/// saying what the value should be.
fn value<T>(
    id: &str,
    f: &Field,
    parse: impl Fn(&str) -> Option<T>,
    what: &str,
) -> Result<T, PlanError> {
    let v = text(&f.parts).unwrap_or_default();
    parse(&v).ok_or_else(|| {
        let message = format!("task {id}: {} is {}, {what}", f.key, shown(&v));
        PlanError::new(f.line, message)
    })
}

/// The V1 id comment: `id: T1, design_ref: 4.1`.
fn apply_meta(task: &mut Task, line: usize, inner: &str) -> Result<(), PlanError> {
    if !inner.starts_with("id:") && !inner.contains("design_ref") {
        return Ok(());
    }
    for pair in inner.split([',', '，']) {
        let Some((k, v)) = pair.split_once([':', '：']) else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "id" if v != task.id => {
                return Err(PlanError::new(
                    line,
                    format!(
                        "the id comment says {} but the heading says {}; make them the same",
                        shown(v),
                        task.id
                    ),
                ))
            }
            "design_ref" | "design_refs" if !is_none_word(v) => {
                push_unique(&mut task.design_refs, v.to_string());
            }
            _ => {}
        }
    }
    Ok(())
}

fn add_extra(task: &mut Task, key: &str, value: String) {
    let key = key.trim();
    let key = if RESERVED.contains(&key) {
        format!("plan_{key}")
    } else {
        key.to_string()
    };
    match task.extra.get_mut(&key) {
        Some(Value::String(old)) => {
            old.push('\n');
            old.push_str(&value);
        }
        _ => {
            task.extra.insert(key, Value::String(value));
        }
    }
}

/// Adds `item` to `list` unless it is there already.
pub(crate) fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canon_names() {
        assert_eq!(canon("Spec 参考"), Some(Key::DesignRefs));
        assert_eq!(canon("Quality Gate"), Some(Key::QualityGate));
        assert_eq!(canon("timeout_secs"), Some(Key::Timeout));
        assert_eq!(canon("需求 ID"), None);
    }

    #[test]
    fn suggestions_for_misspelled_fields() {
        assert_eq!(suggest("Verfy"), Some("verify"));
        assert_eq!(suggest("验证命名"), Some("验证命令"));
        assert_eq!(suggest("Dependancies"), Some("dependencies"));
        assert_eq!(suggest("Acceptence"), Some("acceptance"));
        assert_eq!(suggest("需求 ID"), None);
        assert_eq!(suggest("Notes"), None);
        assert_eq!(suggest("Priority"), None);
        assert_eq!(canon("Files"), Some(Key::Files));
    }

    #[test]
    fn a_files_list_fills_file_then_modifies() {
        let mut b = Block::new("T1", "a", 1);
        b.fields.push(Field {
            key: "Files".into(),
            line: 2,
            parts: vec!["`a.go`, `b.go`".into()],
        });
        let d = build(b, &mut Vec::new()).unwrap();
        assert_eq!(d.task.file.as_deref(), Some("a.go"));
        assert_eq!(d.task.modifies, ["b.go"]);
    }
}
