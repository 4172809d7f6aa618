//! Which external inputs a task waits for: the claude-workflow plugin's
//! `classifyTaskDependencies`, read as words. The builtin rules and the project
//! config's keys are in docs/plans.md "Classification: external blockers".
//!
//! Terms match whole words (a plural, or a word inside an identifier such as
//! `userApi`), never part of another word, so `build` has no `ui` and `rapid` no
//! `api`. The rules are the plugin's, so only claude-workflow plans are classified
//! unless the project config says otherwise.

use regex::{Regex, RegexBuilder};

use crate::config::Config;
use crate::error::{Result, WfError};
use crate::state::model::Task;
use crate::state::TaskStatus;

use super::ids::is_valid_kind;
use super::Format;

pub const API_SPEC: &str = "api_spec";
pub const DESIGN_SPEC: &str = "design_spec";

/// Compiled classification rules: the builtins, then the project's; and which
/// tasks of which plan they apply to.
#[derive(Debug, Clone)]
#[allow(clippy::struct_field_names)] // `Rules::rules`: the rules, beside what binds them
pub struct Rules {
    rules: Vec<Rule>,
    /// The plan formats classified; `None` means any (rules not yet bound to a plan).
    formats: Option<Vec<Format>>,
    /// Whether the bound plan's format is among `formats`.
    enabled: bool,
}

#[derive(Debug, Clone)]
struct Rule {
    kind: String,
    name: Matcher,
    file: FileMatcher,
    /// A name matching this is never of the kind.
    exempt: Option<Terms>,
}

/// English words and Chinese substrings.
#[derive(Debug, Clone)]
struct Terms {
    words: &'static [&'static str],
    cjk: &'static [&'static str],
}

#[derive(Debug, Clone)]
enum Matcher {
    None,
    Terms(Terms),
    Regex(Regex),
}

#[derive(Debug, Clone)]
enum FileMatcher {
    None,
    Builtin {
        dirs: &'static [&'static str],
        exts: &'static [&'static str],
    },
    Regex(Regex),
}

/// Why a task is of a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub kind: String,
    /// `name has the word "api"`, `file is under "services/"`, …
    pub reason: String,
}

impl Rules {
    /// The builtin rules only.
    pub fn builtin() -> Rules {
        Rules {
            rules: builtin_rules(),
            formats: None,
            enabled: true,
        }
    }

    /// The builtin rules (unless `wf.classify.builtin` is false) plus the project's
    /// `wf.blockers`.
    pub fn from_config(cfg: &Config) -> Result<Rules> {
        let classify = &cfg.wf.classify;
        let path = cfg.display_path();
        for name in classify.formats.iter().flatten() {
            if Format::named(name).is_none() {
                return Err(WfError::usage(format!(
                    "{path}: wf.classify.formats lists {:?}, which is not a plan format; use some of {} ([] turns classification off)",
                    name.chars().take(64).collect::<String>(),
                    Format::names()
                )));
            }
        }
        let mut rules = Rules {
            rules: if classify.builtin.unwrap_or(true) {
                builtin_rules()
            } else {
                Vec::new()
            },
            formats: Some(match &classify.formats {
                Some(names) => names.iter().filter_map(|n| Format::named(n)).collect(),
                None => vec![Format::CLAUDE_WORKFLOW],
            }),
            enabled: true,
        };
        for (kind, rule) in &cfg.wf.blockers {
            if !is_valid_kind(kind) || kind == "all" {
                return Err(WfError::usage(format!(
                    "{path}: wf.blockers key {:?} is not a valid blocker kind; use lowercase letters, digits and _ (starting with a letter, at most 32, not \"all\")",
                    kind.chars().take(64).collect::<String>()
                )));
            }
            if rule.name.is_none() && rule.file.is_none() {
                return Err(WfError::usage(format!(
                    "{path}: wf.blockers.{kind} has neither a name nor a file regex; give at least one"
                )));
            }
            let compile = |field: &str, pattern: &Option<String>| -> Result<Option<Regex>> {
                pattern
                    .as_deref()
                    .map(|p| {
                        RegexBuilder::new(p)
                            .case_insensitive(true)
                            .size_limit(1 << 20)
                            .build()
                            .map_err(|e| {
                                WfError::usage(format!(
                                    "{path}: wf.blockers.{kind}.{field} is not a valid regex ({}); fix the pattern",
                                    one_line(&e)
                                ))
                            })
                    })
                    .transpose()
            };
            rules.rules.push(Rule {
                kind: kind.clone(),
                name: compile("name", &rule.name)?.map_or(Matcher::None, Matcher::Regex),
                file: compile("file", &rule.file)?.map_or(FileMatcher::None, FileMatcher::Regex),
                exempt: None,
            });
        }
        Ok(rules)
    }

    /// These rules bound to one plan: off unless its format is classified.
    #[must_use]
    pub fn for_plan(mut self, format: Format) -> Rules {
        self.enabled = self.formats.as_ref().is_none_or(|f| f.contains(&format));
        self
    }

    /// Whether the bound plan is classified at all.
    pub fn enabled(&self) -> bool {
        self.enabled && !self.rules.is_empty()
    }

    /// Every kind: `api_spec`, `design_spec`, then the custom ones.
    pub fn kinds(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.rules {
            super::fields::push_unique(&mut out, r.kind.clone());
        }
        out
    }
}

fn builtin_rules() -> Vec<Rule> {
    vec![
        Rule {
            kind: API_SPEC.into(),
            name: Matcher::Terms(Terms {
                words: &["api", "service", "fetch", "request", "http"],
                cjk: &["接口", "服务层", "数据获取", "后端"],
            }),
            file: FileMatcher::Builtin {
                dirs: &["services", "api", "http"],
                exts: &[],
            },
            exempt: None,
        },
        Rule {
            kind: DESIGN_SPEC.into(),
            name: Matcher::Terms(Terms {
                words: &["ui"],
                cjk: &[
                    "样式", "组件", "还原", "视觉", "布局", "卡片", "弹窗", "表单",
                ],
            }),
            file: FileMatcher::Builtin {
                dirs: &["components", "pages", "views"],
                exts: &["vue", "tsx", "jsx", "css", "scss"],
            },
            exempt: Some(Terms {
                words: &["skeleton", "mock", "stub", "placeholder"],
                cjk: &["骨架"],
            }),
        },
    ]
}

/// Gives the task its blocker kinds — its own plus those `rules` find, less the kinds
/// already lifted (`unblocked`) — and makes it `blocked` if it is pending with any left.
pub fn apply(task: &mut Task, rules: &Rules, unblocked: &[String]) {
    let mut kinds = std::mem::take(&mut task.blocked_by);
    for kind in classify(task, rules) {
        super::fields::push_unique(&mut kinds, kind);
    }
    kinds.retain(|k| !unblocked.contains(k));
    task.blocked_by = kinds;
    if task.status == TaskStatus::Pending && !task.blocked_by.is_empty() {
        task.status = TaskStatus::Blocked;
    }
}

/// The blocker kinds whose rules match `task`, in [`Rules::kinds`] order.
pub fn classify(task: &Task, rules: &Rules) -> Vec<String> {
    matches(task, rules).into_iter().map(|m| m.kind).collect()
}

/// [`classify`] with the reason for each kind.
pub fn matches(task: &Task, rules: &Rules) -> Vec<Match> {
    // A task whose `阻塞依赖` says none waits on nothing, whatever its name.
    if !rules.enabled || task.no_blockers {
        return Vec::new();
    }
    let file = task.file.as_deref().unwrap_or("");
    // The name's words, split once per task rather than once per rule.
    let name = Name {
        text: &task.name,
        words: std::cell::OnceCell::new(),
    };
    let mut out: Vec<Match> = Vec::new();
    for r in &rules.rules {
        if out.iter().any(|m| m.kind == r.kind) {
            continue;
        }
        let hit =
            name_reason(&r.name, &r.kind, &name).or_else(|| file_reason(&r.file, &r.kind, file));
        let exempt = r
            .exempt
            .as_ref()
            .is_some_and(|t| terms_hit(t, &name).is_some());
        if let (Some(reason), false) = (hit, exempt) {
            out.push(Match {
                kind: r.kind.clone(),
                reason,
            });
        }
    }
    out
}

/// A task's name and, once a rule asks, its words.
struct Name<'a> {
    text: &'a str,
    words: std::cell::OnceCell<Vec<String>>,
}

impl Name<'_> {
    /// A URL or a path in the name is not what the task is about: `https://x.dev`
    /// names no HTTP API, `src/UI/Controller.php` no UI work (the file rule reads files).
    fn words(&self) -> &[String] {
        self.words
            .get_or_init(|| words(&super::audit::without_paths(self.text)))
    }
}

fn name_reason(m: &Matcher, kind: &str, name: &Name<'_>) -> Option<String> {
    match m {
        Matcher::None => None,
        Matcher::Terms(t) => terms_hit(t, name),
        Matcher::Regex(re) => re
            .find(name.text)
            .map(|x| format!("name matches wf.blockers.{kind}.name at {:?}", x.as_str())),
    }
}

fn file_reason(m: &FileMatcher, kind: &str, file: &str) -> Option<String> {
    if file.is_empty() {
        return None;
    }
    match m {
        FileMatcher::None => None,
        FileMatcher::Builtin { dirs, exts } => {
            let lower = file.to_lowercase();
            let mut segments: Vec<&str> = lower.split(['/', '\\']).collect();
            let last = segments.pop().unwrap_or("");
            if let Some(d) = segments.iter().find(|s| dirs.contains(s)) {
                return Some(format!("file {file} is under {d}/"));
            }
            let ext = last.rsplit_once('.').map(|(_, e)| e)?;
            exts.contains(&ext)
                .then(|| format!("file {file} is a .{ext} file"))
        }
        FileMatcher::Regex(re) => re
            .find(file)
            .map(|x| format!("file matches wf.blockers.{kind}.file at {:?}", x.as_str())),
    }
}

/// The first term of `t` in `name`, as a reason.
fn terms_hit(t: &Terms, name: &Name<'_>) -> Option<String> {
    // The terms are CJK: an ASCII name, most of a large plan's, holds none of them.
    let cjk = if name.text.is_ascii() { &[][..] } else { t.cjk };
    if let Some(c) = cjk.iter().find(|c| name.text.contains(**c)) {
        return Some(format!("name contains {c}"));
    }
    let ws = name.words();
    t.words
        .iter()
        .find(|term| {
            ws.iter()
                .any(|w| w == *term || w.strip_suffix('s') == Some(**term))
        })
        .map(|term| format!("name has the word {term:?}"))
}

/// The lower-case ASCII words of `s`, identifiers split too: `userApi` → user, api;
/// `HTTPClient` → http, client; `api_client2` → api, client, 2.
pub(crate) fn words(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let next = chars.get(i + 1).copied();
            let after = chars.get(i + 2).copied();
            // `HTTPClient` is http + client, but `APIs` is the plural of api.
            let plural = next == Some('s') && !after.is_some_and(|a| a.is_ascii_lowercase());
            let split = (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (p.is_ascii_uppercase()
                    && c.is_ascii_uppercase()
                    && next.is_some_and(|n| n.is_ascii_lowercase())
                    && !plural)
                || (p.is_ascii_alphabetic() != c.is_ascii_alphabetic());
            if split {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c.to_ascii_lowercase());
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A regex error on one line (their `Display` draws a multi-line caret diagram).
fn one_line(e: &regex::Error) -> String {
    let text = e.to_string();
    let msg = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("error:"))
        .map(str::trim)
        .map(str::to_string);
    msg.unwrap_or_else(|| text.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BlockerRule;
    use std::path::PathBuf;

    /// `terms_hit` looks for them only in a name that is not ASCII.
    #[test]
    fn no_cjk_term_is_ascii() {
        for rule in super::builtin_rules() {
            let named = match &rule.name {
                Matcher::Terms(t) => Some(t),
                _ => None,
            };
            for t in named.into_iter().chain(&rule.exempt) {
                assert!(t.cjk.iter().all(|c| !c.is_ascii()), "{:?}", t.cjk);
            }
        }
    }

    fn task(name: &str, file: Option<&str>) -> Task {
        Task {
            id: "T1".into(),
            name: name.into(),
            file: file.map(str::to_string),
            ..Task::default()
        }
    }

    fn kinds_of(name: &str, file: Option<&str>) -> Vec<String> {
        classify(&task(name, file), &Rules::builtin())
    }

    #[test]
    fn builtin_rules() {
        let r = Rules::builtin();
        assert_eq!(r.kinds(), vec!["api_spec", "design_spec"]);
        assert_eq!(kinds_of("实现用户接口", None), vec!["api_spec"]);
        assert_eq!(
            kinds_of("x", Some("src/Services/user.ts")),
            vec!["api_spec"]
        );
        assert_eq!(
            kinds_of("Login form", Some("src/pages/Login.vue")),
            vec!["design_spec"]
        );
        assert_eq!(
            kinds_of("Fetch UI data", None),
            vec!["api_spec", "design_spec"]
        );
        assert!(kinds_of("页面骨架", Some("src/views/a.vue")).is_empty());
        assert!(kinds_of("UI placeholder", None).is_empty());
        assert!(kinds_of("Write docs", Some("README.md")).is_empty());
    }

    /// ASCII terms are words, found inside identifiers but never inside other words.
    #[test]
    fn terms_match_as_words() {
        for (name, kinds) in [
            ("Add userApi wrapper", &["api_spec"][..]),
            ("Create api_client module", &["api_spec"]),
            ("Write fetch-users hook", &["api_spec"]),
            ("Implement UserService", &["api_spec"]),
            ("Wrap HTTPClient", &["api_spec"]),
            ("Document the REST APIs", &["api_spec"]),
            ("Retry failed requests", &["api_spec"]),
            ("Polish the UI", &["design_spec"]),
            ("Settings UI", &["design_spec"]),
            ("renderUI helper", &["design_spec"]),
            ("登录表单", &["design_spec"]),
            ("对接后端", &["api_spec"]),
            ("Build the release", &[]),
            ("Write the quickstart", &[]),
            ("Rapid prototyping", &[]),
            ("Update the style guide", &[]),
            ("Fix the build", &[]),
            ("Add unit tests for the fetcher", &[]),
            ("Requirements review", &[]),
            ("Mock UI for tests", &[]),
            ("Verify https://drowl.dev in a browser", &[]),
            ("Extend src/UI/Controller/Catalog.php", &[]),
            ("Performance profiling (requires manual Instruments)", &[]),
            ("Confirm the build/test toolchain", &[]),
            ("Add a section to README.md on quickstart.md", &[]),
        ] {
            assert_eq!(kinds_of(name, None), kinds.to_vec(), "{name:?}");
        }
        for (file, kinds) in [
            ("src/app/api/venues/[id]/route.ts", &["api_spec"][..]),
            ("src/myapi/x.ts", &[]),
            ("src/rapid/build.ts", &[]),
            ("src/components/Card.tsx", &["design_spec"]),
            ("src/guide.md", &[]),
            ("styles/main.css", &["design_spec"]),
        ] {
            assert_eq!(kinds_of("x", Some(file)), kinds.to_vec(), "{file:?}");
        }
    }

    #[test]
    fn words_split_identifiers() {
        assert_eq!(words("userApi"), vec!["user", "api"]);
        assert_eq!(words("HTTPClient v2"), vec!["http", "client", "v", "2"]);
        assert_eq!(words("api_client-x"), vec!["api", "client", "x"]);
        assert_eq!(words("quickstart 用户UI"), vec!["quickstart", "ui"]);
        assert_eq!(words("APIs and URLs"), vec!["apis", "and", "urls"]);
    }

    #[test]
    fn reasons_name_the_term() {
        let r = Rules::builtin();
        assert_eq!(
            matches(&task("Add userApi", Some("src/components/A.tsx")), &r),
            vec![
                Match {
                    kind: "api_spec".into(),
                    reason: "name has the word \"api\"".into()
                },
                Match {
                    kind: "design_spec".into(),
                    reason: "file src/components/A.tsx is under components/".into()
                },
            ]
        );
    }

    fn config(blockers: &[(&str, Option<&str>, Option<&str>)]) -> Config {
        let mut cfg = Config {
            path: Some(PathBuf::from("/p/.claude/config/project-config.json")),
            ..Config::default()
        };
        for (k, n, f) in blockers {
            cfg.wf.blockers.insert(
                k.to_string(),
                BlockerRule {
                    name: n.map(str::to_string),
                    file: f.map(str::to_string),
                },
            );
        }
        cfg
    }

    #[test]
    fn custom_kinds() {
        let cfg = config(&[
            ("backend", Some("Migration|数据库"), None),
            ("api_spec", None, Some(r"\.proto$")),
        ]);
        let r = Rules::from_config(&cfg).unwrap();
        assert_eq!(r.kinds(), vec!["api_spec", "design_spec", "backend"]);
        assert_eq!(classify(&task("Add migration", None), &r), vec!["backend"]);
        assert_eq!(
            classify(&task("x", Some("proto/a.proto")), &r),
            vec!["api_spec"]
        );
    }

    #[test]
    fn config_turns_rules_off_or_replaces_them() {
        let mut cfg = config(&[("legal", Some("contract"), None)]);
        cfg.wf.classify.builtin = Some(false);
        let r = Rules::from_config(&cfg).unwrap();
        assert_eq!(r.kinds(), vec!["legal"]);
        assert!(classify(&task("Fetch UI", None), &r).is_empty());
        assert_eq!(classify(&task("Sign contract", None), &r), vec!["legal"]);

        let default = Rules::from_config(&config(&[])).unwrap();
        assert!(!default.clone().for_plan(Format::SPEC_KIT).enabled());
        assert!(default.clone().for_plan(Format::CLAUDE_WORKFLOW).enabled());
        let mut cfg = config(&[]);
        cfg.wf.classify.formats = Some(vec!["spec-kit".into()]);
        let r = Rules::from_config(&cfg).unwrap();
        assert!(r.clone().for_plan(Format::SPEC_KIT).enabled());
        assert!(!r.for_plan(Format::CLAUDE_WORKFLOW).enabled());
        cfg.wf.classify.formats = Some(vec![]);
        let off = Rules::from_config(&cfg)
            .unwrap()
            .for_plan(Format::CLAUDE_WORKFLOW);
        assert!(classify(&task("Fetch UI", None), &off).is_empty());
    }

    #[test]
    fn a_task_opts_out_with_blockers_none() {
        let text = "## T1: Fetch UI\n- **阻塞依赖**: none\n\n## T2: Fetch UI\n- **阻塞依赖**: 无\n\n## T3: Fetch UI\n- **blocked_by**: api_spec\n";
        let r = Rules::from_config(&config(&[]))
            .unwrap()
            .for_plan(Format::CLAUDE_WORKFLOW);
        let plan = crate::plan::parse(std::path::Path::new("p.md"), text).unwrap();
        let with_id = |id: &str| plan.tasks.iter().find(|t| t.id == id).unwrap();
        assert!(classify(with_id("T1"), &r).is_empty());
        assert!(classify(with_id("T2"), &r).is_empty());
        assert_eq!(classify(with_id("T3"), &r), vec!["api_spec", "design_spec"]);
    }

    #[test]
    fn bad_config_is_one_line_error() {
        let err = Rules::from_config(&config(&[("backend", Some("(unclosed"), None)])).unwrap_err();
        assert!(err.message.starts_with(
            "/p/.claude/config/project-config.json: wf.blockers.backend.name is not a valid regex ("
        ), "{}", err.message);
        assert!(!err.message.contains('\n'));
        let err = Rules::from_config(&config(&[("Bad-Kind", Some("x"), None)])).unwrap_err();
        assert!(err
            .message
            .contains("wf.blockers key \"Bad-Kind\" is not a valid blocker kind"));
        let err = Rules::from_config(&config(&[("all", Some("x"), None)])).unwrap_err();
        assert!(err.message.contains("not \"all\""));
        let err = Rules::from_config(&config(&[("k", None, None)])).unwrap_err();
        assert!(err.message.contains("wf.blockers.k has neither"));
    }
}
