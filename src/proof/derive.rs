//! Checks derived from a task's line (docs/proof.md "Derived checks"): what a task
//! with no command of its own is checked by, read from what its plan says — the
//! files it names, the tests it writes, the project's own check commands.
//!
//! [`derive`] is a pure function of the generic task (its name, the files it
//! declares, whether it has commands) and what the project says (`wf.checks`); it
//! never asks which plan format the task came from, so every reader's tasks get
//! the same checks. What a check finds is decided when the task comes back
//! (`src/run/derived.rs`): a file named must differ from the tree the agent started
//! from (one that was not there must exist and not be empty), a test it writes runs
//! with the project's runner (`src/proof/runner.rs`), a command runs.
//!
//! The line's words decide two things: whether it only reads (`Review …`,
//! `Verify …`, `Run …` with no word of writing) — then no file it names must change
//! — and which files it names only as references (`per data-model.md`, `from
//! spec.md`), which need not change either.

use crate::state::model::Task;

/// One check derived from a task's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Derived {
    /// The file must exist and not be empty after the task: the line creates it.
    Exists(String),
    /// The file must differ from the tree the agent started from (and, when it was
    /// not there, exist and not be empty).
    Changed(String),
    /// Some file must differ from the tree the agent started from: work that
    /// changed nothing is refused.
    SomethingChanged,
    /// The test file the task writes runs with the project's test runner: red is
    /// expected before its story's implementation, green at its phase's end.
    Test(String),
    /// A `wf.checks` command, for the files it matched (given to it as `"$@"`).
    Command { command: String, files: Vec<String> },
}

/// How a task is checked, for the counts `wf check` and `workflow-start` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// Its own commands (a verify command, a step check, `run_tests`, a gate).
    Command,
    /// Checks derived from its line.
    Derived,
    /// Nothing: it would be accepted on the agent's word.
    None,
}

/// How many tasks of a plan each [`Coverage`] has, and the first tasks nothing
/// checks: what `wf check` and `workflow-start` print.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub command: usize,
    pub derived: usize,
    pub none: usize,
    /// The first [`Counts::SHOWN`] tasks nothing checks.
    pub unchecked: Vec<String>,
}

impl Counts {
    pub const SHOWN: usize = 10;

    /// Counts `task` (a task already done is counted as any other).
    pub fn add(&mut self, task: &Task, checks: &[ConfigCheck]) {
        match coverage(task, checks) {
            Coverage::Command => self.command += 1,
            Coverage::Derived => self.derived += 1,
            Coverage::None => {
                self.none += 1;
                if self.unchecked.len() < Self::SHOWN {
                    self.unchecked.push(task.id.clone());
                }
            }
        }
    }
}

/// A `wf.checks` entry: a path glob and the command for the files it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigCheck {
    pub glob: String,
    pub command: String,
}

/// Whether `task` has commands of its own: then nothing is derived for it.
pub fn has_commands(task: &Task) -> bool {
    task.check_commands().next().is_some() || task.quality_gate || task.has_action("run_tests")
}

/// The checks derived for `task` (none when it has commands of its own), with the
/// project's `wf.checks`.
pub fn derive(task: &Task, checks: &[ConfigCheck]) -> Vec<Derived> {
    if has_commands(task) {
        return Vec::new();
    }
    let line = Line::of(&task.name);
    let files = crate::proof::fingerprint::declared_files(task);
    let mut out = Vec::new();
    let writes = !line.read_only();
    let tests: Vec<&str> = files.iter().copied().filter(|f| is_test_file(f)).collect();
    // "Contract test for POST /users in src/contract/users.rs": a line that says
    // test and names no test-shaped file writes its first file as the test.
    let tests: Vec<&str> = if tests.is_empty() && writes && line.says_test() {
        files.first().copied().into_iter().collect()
    } else {
        tests
    };
    for f in &files {
        let read = !writes || line.references(f);
        if writes && (task.creates.iter().any(|c| c == f) || (line.creates() && !read)) {
            out.push(Derived::Exists((*f).to_string()));
        }
        if !read {
            out.push(Derived::Changed((*f).to_string()));
        }
    }
    if writes {
        out.push(Derived::SomethingChanged);
    }
    out.extend(tests.iter().map(|t| Derived::Test((*t).to_string())));
    for c in checks {
        let matched: Vec<String> = files
            .iter()
            .filter(|f| glob_match(&c.glob, f))
            .map(|f| (*f).to_string())
            .collect();
        if !matched.is_empty() {
            out.push(Derived::Command {
                command: c.command.clone(),
                files: matched,
            });
        }
    }
    out
}

/// How `task` is checked ([`Coverage`]): what [`derive`] would give, without
/// building it (every task of a plan is counted at import).
pub fn coverage(task: &Task, checks: &[ConfigCheck]) -> Coverage {
    if has_commands(task) {
        return Coverage::Command;
    }
    // A line that writes is checked at least by "something changed".
    let matched = || {
        crate::proof::fingerprint::declared_files(task)
            .iter()
            .any(|f| checks.iter().any(|c| glob_match(&c.glob, f)))
    };
    if !Line::of(&task.name).read_only() || matched() {
        Coverage::Derived
    } else {
        Coverage::None
    }
}

/// Whether `task` writes a test file (a [`Derived::Test`] of its checks).
pub fn writes_tests(task: &Task, checks: &[ConfigCheck]) -> bool {
    derive(task, checks)
        .iter()
        .any(|d| matches!(d, Derived::Test(_)))
}

/// Whether work of `task`'s story — its story label, else its phase — is still to
/// come among `later` (the open tasks after it, in plan order) that is not itself
/// writing tests: a test `task` writes should fail until that work is done.
pub fn implementation_ahead<'a>(task: &Task, later: impl IntoIterator<Item = &'a Task>) -> bool {
    later.into_iter().any(|t| {
        let same = match (&task.story, &t.story) {
            (Some(a), Some(b)) => a == b,
            (Some(_), None) | (None, Some(_)) => false,
            (None, None) => t.phase == task.phase,
        };
        same && implements(t)
    })
}

/// Whether `task` is implementation rather than test writing: it names a file that
/// is no test, or names none and does not say test.
fn implements(task: &Task) -> bool {
    let files = crate::proof::fingerprint::declared_files(task);
    files.iter().any(|f| !is_test_file(f))
        || (files.is_empty() && !Line::of(&task.name).says_test())
}

/// The test files that must pass at the end of `phase` (`tasks` in plan order,
/// with `checks` the project's `wf.checks`): those written by tasks whose story
/// ends with it — the last phase holding a task of the same story label; for a task
/// with none, its own phase, or the next one when its phase only writes tests (a
/// "tests first" phase before the implementation's).
pub fn due_green(tasks: &[&Task], phase: &str, checks: &[ConfigCheck]) -> Vec<String> {
    let mut phases: Vec<&str> = Vec::new();
    for t in tasks {
        if phases.last() != Some(&t.phase.as_str()) && !phases.contains(&t.phase.as_str()) {
            phases.push(&t.phase);
        }
    }
    let index = |p: &str| phases.iter().position(|x| *x == p);
    let Some(closing) = index(phase) else {
        return Vec::new();
    };
    let implements_in = |p: &str| tasks.iter().any(|t| t.phase == p && implements(t));
    let mut due = Vec::new();
    for t in tasks {
        let tests: Vec<String> = derive(t, checks)
            .into_iter()
            .filter_map(|d| match d {
                Derived::Test(path) => Some(path),
                _ => None,
            })
            .collect();
        if tests.is_empty() {
            continue;
        }
        let own = index(&t.phase).unwrap_or(0);
        let ends = match &t.story {
            Some(story) => tasks
                .iter()
                .filter(|o| o.story.as_ref() == Some(story))
                .filter_map(|o| index(&o.phase))
                .max()
                .unwrap_or(own),
            None if implements_in(&t.phase) => own,
            None => (own + 1).min(phases.len() - 1),
        };
        if ends == closing {
            for p in tests {
                if !due.contains(&p) {
                    due.push(p);
                }
            }
        }
    }
    due
}

/// Whether `path` is a test file by its name: under a `tests/`, `test/`,
/// `__tests__/` or `spec/` directory, or named as test runners find tests
/// (`test_*.py`, `*_test.go`, `*.test.ts`, `*.spec.js`, `*Test.java`, `*Tests.cs`,
/// `*_spec.rb`, …).
pub fn is_test_file(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    if !CODE.contains(&ext) {
        return false;
    }
    let in_test_dir = path
        .split('/')
        .rev()
        .skip(1)
        .any(|d| matches!(d, "tests" | "test" | "__tests__" | "spec" | "specs" | "e2e"));
    // `a.test.ts`, `a.spec.js`: the word before the extension.
    let (_, inner) = stem.rsplit_once('.').unwrap_or(("", ""));
    in_test_dir
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || matches!(inner, "test" | "spec")
        || (stem.ends_with("Test") || stem.ends_with("Tests")) && stem.len() > 4
}

/// Source extensions a test is written in (`specs/001-x/spec.md` is no test).
const CODE: &[&str] = &[
    "py", "rs", "go", "ts", "tsx", "js", "jsx", "mjs", "cjs", "java", "kt", "cs", "rb", "php",
    "swift", "scala", "ex", "exs", "dart", "c", "cc", "cpp", "sh", "bats",
];

/// Verbs that make a file: its files must exist after the task.
const CREATES: &[&str] = &[
    "create",
    "add",
    "write",
    "scaffold",
    "initialize",
    "initialise",
    "init",
    "generate",
    "setup",
    "bootstrap",
    "new",
];

/// Verbs of a task that only reads, when the line has no word of writing.
const READS: &[&str] = &[
    "review",
    "read",
    "verify",
    "validate",
    "check",
    "audit",
    "inspect",
    "confirm",
    "analyze",
    "analyse",
    "run",
    "execute",
    "measure",
    "benchmark",
    "profile",
    "research",
    "investigate",
    "explore",
    "evaluate",
    "assess",
    "examine",
    "study",
    "identify",
    "test",
    "smoke",
    "manually",
    "manual",
    "demo",
    "walk",
];

/// Words of writing: a line with one changes files, whatever its first verb.
const WRITES: &[&str] = &[
    "create",
    "add",
    "write",
    "implement",
    "fix",
    "update",
    "refactor",
    "modify",
    "edit",
    "change",
    "remove",
    "delete",
    "rename",
    "move",
    "replace",
    "migrate",
    "configure",
    "install",
    "generate",
    "extract",
    "integrate",
    "wire",
    "connect",
    "build",
    "scaffold",
    "initialize",
    "initialise",
    "set",
    "setup",
    "document",
    "define",
    "introduce",
    "extend",
    "convert",
    "register",
    "expose",
    "append",
    "insert",
    "patch",
    "bump",
    "upgrade",
    "port",
    "split",
    "merge",
    "clean",
    "rewrite",
    "adjust",
    "tune",
    "improve",
    "enable",
    "disable",
    "record",
    "save",
    "store",
    "seed",
];

/// Words just before a path that name it as something read: `per data-model.md`,
/// `from spec.md`, `according to docs/x.md`, `described in plan.md`.
const REFERENCES: &[&str] = &[
    "per",
    "from",
    "using",
    "following",
    "see",
    "against",
    "according",
    "based",
    "described",
    "defined",
    "specified",
    "referenced",
    "documented",
    "mirroring",
    "matching",
    "consult",
    "consulting",
    "reading",
    "reads",
    "respecting",
    "honoring",
    "honouring",
];

/// A task's line as words, lower case, punctuation around them gone.
struct Line<'a> {
    text: &'a str,
    words: Vec<String>,
}

/// The words of `text`, lower case, punctuation around them gone.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    bare_words(text).map(str::to_lowercase)
}

/// The words of `text` as written, punctuation around them gone (what a path holds,
/// `/._-`, stays).
fn bare_words(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '/' | '.' | '_' | '-'))
        })
        .filter(|w| !w.is_empty())
}

/// A word that is a word (not a tag, a path or a number).
fn is_word(w: &str) -> bool {
    w.chars().all(char::is_alphabetic)
}

impl<'a> Line<'a> {
    fn of(text: &'a str) -> Line<'a> {
        Line {
            text,
            words: words(text).collect(),
        }
    }

    /// The first word that is a word (not a tag, a path or a number).
    fn verb(&self) -> Option<&str> {
        self.words.iter().map(String::as_str).find(|w| is_word(w))
    }

    /// Only reads: its first verb reads and no word of it writes.
    fn read_only(&self) -> bool {
        self.verb().and_then(verb_of).is_some_and(|v| v.reads)
            && !self
                .words
                .iter()
                .any(|w| verb_of(w).is_some_and(|v| v.writes))
    }

    fn creates(&self) -> bool {
        self.verb().and_then(verb_of).is_some_and(|v| v.creates)
    }

    fn says_test(&self) -> bool {
        self.words
            .iter()
            .any(|w| matches!(w.as_str(), "test" | "tests" | "spec" | "specs"))
    }

    /// Whether the line names `path` as something it reads: a reference word one or
    /// two words before it (`per x.md`, `described in x.md`).
    fn references(&self, path: &str) -> bool {
        let Some(at) = self.text.find(path) else {
            return false;
        };
        let before = Line::of(&self.text[..at]);
        before
            .words
            .iter()
            .rev()
            .take(2)
            .any(|w| REFERENCES.contains(&w.as_str()))
    }
}

/// A verb of the lists, and which lists it is in.
#[derive(Debug, Clone, Copy, Default)]
struct Verb {
    stem: &'static str,
    creates: bool,
    reads: bool,
    writes: bool,
}

/// The verb `word` (lower case, in any form: `creates`, `created`, `creating`) is,
/// when it is one of the lists'.
fn verb_of(word: &str) -> Option<&'static Verb> {
    FORMS.get(word)
}

/// Every form of every verb of the lists, to the verb: one lookup a word (the first
/// word of every task line is asked at import, for the counts).
type Forms = std::collections::HashMap<String, Verb, foldhash::fast::FixedState>;
static FORMS: std::sync::LazyLock<Forms> = std::sync::LazyLock::new(|| {
    let mut verbs: Vec<Verb> = Vec::new();
    for (list, set) in [
        (CREATES, (true, false, false)),
        (READS, (false, true, false)),
        (WRITES, (false, false, true)),
    ] {
        for &v in list {
            let i = verbs.iter().position(|x| x.stem == v).unwrap_or_else(|| {
                verbs.push(Verb {
                    stem: v,
                    ..Verb::default()
                });
                verbs.len() - 1
            });
            let verb = &mut verbs[i];
            verb.creates |= set.0;
            verb.reads |= set.1;
            verb.writes |= set.2;
        }
    }
    let mut forms = Forms::default();
    for verb in verbs {
        let v = verb.stem;
        let bare = v.strip_suffix('e').unwrap_or(v);
        for form in [
            v.to_string(),
            format!("{v}s"),
            format!("{v}es"),
            format!("{bare}ed"),
            format!("{bare}ing"),
            format!("{v}ed"),
            format!("{v}ing"),
        ] {
            forms.entry(form).or_insert(verb);
        }
    }
    forms
});

/// Whether `path` matches `glob`: `*` is any run of characters but `/`, `**` any
/// run including `/` (`**/` also none), `?` one character but `/`; anything else is
/// itself. A glob that ends in `/` matches what is under that directory.
pub fn glob_match(glob: &str, path: &str) -> bool {
    let path = path.trim_start_matches("./");
    let glob = glob.trim_start_matches("./");
    if let Some(dir) = glob.strip_suffix('/') {
        return path == dir || path.starts_with(glob);
    }
    matches(glob.as_bytes(), path.as_bytes())
}

fn matches(glob: &[u8], path: &[u8]) -> bool {
    match glob {
        [] => path.is_empty(),
        [b'*', b'*', b'/', rest @ ..] => {
            matches(rest, path)
                || path
                    .iter()
                    .enumerate()
                    .any(|(i, &c)| c == b'/' && matches(rest, &path[i + 1..]))
        }
        [b'*', b'*', rest @ ..] => (0..=path.len()).any(|i| matches(rest, &path[i..])),
        [b'*', rest @ ..] => {
            let run = path.iter().take_while(|&&c| c != b'/').count();
            (0..=run).any(|i| matches(rest, &path[i..]))
        }
        [b'?', rest @ ..] => path.first().is_some_and(|&c| c != b'/') && matches(rest, &path[1..]),
        [c, rest @ ..] => path.first() == Some(c) && matches(rest, &path[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(name: &str, file: Option<&str>, modifies: &[&str]) -> Task {
        Task {
            id: "T1".into(),
            name: name.into(),
            file: file.map(str::to_string),
            modifies: modifies.iter().map(|m| (*m).to_string()).collect(),
            ..Task::default()
        }
    }

    fn derived(name: &str, files: &[&str]) -> Vec<Derived> {
        derive(
            &task(name, files.first().copied(), &files[files.len().min(1)..]),
            &[],
        )
    }

    use Derived::{Changed, Exists, SomethingChanged, Test};

    #[test]
    fn a_line_that_creates_a_file_must_leave_it_there_changed() {
        assert_eq!(
            derived("Create the project README in README.md", &["README.md"]),
            [
                Exists("README.md".into()),
                Changed("README.md".into()),
                SomethingChanged
            ]
        );
        assert_eq!(
            derived("Implement add in src/calc.py", &["src/calc.py"]),
            [Changed("src/calc.py".into()), SomethingChanged]
        );
    }

    #[test]
    fn a_file_named_as_a_reference_need_not_change() {
        assert_eq!(
            derived(
                "Create User model in src/models/user.py per data-model.md",
                &["src/models/user.py", "data-model.md"]
            ),
            [
                Exists("src/models/user.py".into()),
                Changed("src/models/user.py".into()),
                SomethingChanged
            ]
        );
    }

    #[test]
    fn a_line_that_only_reads_changes_nothing() {
        assert_eq!(derived("Review src/api.py for errors", &["src/api.py"]), []);
        assert_eq!(
            derived("Run quickstart.md validation", &["quickstart.md"]),
            []
        );
        // A word of writing makes it work.
        assert_eq!(
            derived("Run the linter and fix src/api.py", &["src/api.py"]),
            [Changed("src/api.py".into()), SomethingChanged]
        );
    }

    #[test]
    fn a_test_the_task_writes_runs() {
        assert_eq!(
            derived(
                "Contract test POST /api/users in tests/contract/test_users_post.py",
                &["tests/contract/test_users_post.py"]
            ),
            [
                Changed("tests/contract/test_users_post.py".into()),
                SomethingChanged,
                Test("tests/contract/test_users_post.py".into())
            ]
        );
        assert_eq!(
            derived(
                "Integration test for signup in src/it/signup.rs",
                &["src/it/signup.rs"]
            ),
            [
                Changed("src/it/signup.rs".into()),
                SomethingChanged,
                Test("src/it/signup.rs".into())
            ],
            "a line that says test writes its file as one"
        );
    }

    #[test]
    fn a_task_with_its_own_commands_derives_nothing() {
        let mut t = task("Create README.md", Some("README.md"), &[]);
        t.verify = vec!["test -s README.md".into()];
        assert_eq!(derive(&t, &[]), []);
        assert_eq!(coverage(&t, &[]), Coverage::Command);
        assert_eq!(
            coverage(&task("Review the docs", None, &[]), &[]),
            Coverage::None
        );
        assert_eq!(
            coverage(&task("Add logging", None, &[]), &[]),
            Coverage::Derived
        );
    }

    proptest::proptest! {
        /// The counts' shortcut says what the derivation would.
        #[test]
        fn coverage_is_what_derive_gives(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "Review", "run", "Create", "fix", "tests", "the", "in", "per", "src/a.py",
                    "README.md", "Verify", "validation", "adds", "docs/", "test_x.py",
                ]),
                0..8,
            ),
            file in proptest::option::of(proptest::sample::select(vec!["src/a.py", "docs/x.md"])),
        ) {
            let t = task(&words.join(" "), file, &[]);
            let checks = [ConfigCheck { glob: "docs/**".into(), command: "make docs".into() }];
            let derived = derive(&t, &checks);
            let want = if derived.is_empty() { Coverage::None } else { Coverage::Derived };
            proptest::prop_assert_eq!(coverage(&t, &checks), want);
        }
    }

    #[test]
    fn the_declared_creates_must_exist_whatever_the_verb() {
        let mut t = task("Wire the router", None, &[]);
        t.creates = vec!["src/router.ts".into()];
        assert_eq!(
            derive(&t, &[]),
            [
                Exists("src/router.ts".into()),
                Changed("src/router.ts".into()),
                SomethingChanged
            ]
        );
    }

    #[test]
    fn a_test_is_before_its_implementation_while_its_storys_work_is_ahead() {
        let story = |name: &str, file: &str, story: &str| {
            let mut t = task(name, Some(file), &[]);
            t.story = Some(story.into());
            t.phase = "Phase 3: US1".into();
            t
        };
        let test = story(
            "Contract test in tests/test_users.py",
            "tests/test_users.py",
            "US1",
        );
        let other_test = story(
            "Integration test in tests/test_flow.py",
            "tests/test_flow.py",
            "US1",
        );
        let model = story("Create User model in src/user.py", "src/user.py", "US1");
        let elsewhere = story("Create Order in src/order.py", "src/order.py", "US2");
        assert!(implementation_ahead(&test, [&other_test, &model]));
        assert!(!implementation_ahead(&test, [&other_test, &elsewhere]));
        assert!(!implementation_ahead(&test, []));
        let mut unlabelled = task("Add tests in tests/test_x.py", Some("tests/test_x.py"), &[]);
        unlabelled.phase = "Phase 3.2".into();
        let mut impl_same_phase = task("Implement x in src/x.py", Some("src/x.py"), &[]);
        impl_same_phase.phase = "Phase 3.2".into();
        assert!(implementation_ahead(&unlabelled, [&impl_same_phase]));
        assert!(writes_tests(&unlabelled, &[]));
        assert!(!writes_tests(&impl_same_phase, &[]));
    }

    #[test]
    fn a_test_is_due_green_where_its_story_ends() {
        let at = |phase: &str, name: &str, file: &str, story: Option<&str>| {
            let mut t = task(name, Some(file), &[]);
            t.phase = phase.into();
            t.story = story.map(str::to_string);
            t
        };
        let tasks = [
            at("Setup", "Create src/app.py", "src/app.py", None),
            at(
                "US1",
                "Contract test in tests/test_a.py",
                "tests/test_a.py",
                Some("US1"),
            ),
            at("US1", "Implement a in src/a.py", "src/a.py", Some("US1")),
            at(
                "US2",
                "Contract test in tests/test_b.py",
                "tests/test_b.py",
                Some("US2"),
            ),
            at("US2b", "Implement b in src/b.py", "src/b.py", Some("US2")),
            at(
                "Tests first",
                "Integration test in tests/test_c.py",
                "tests/test_c.py",
                None,
            ),
            at("Core", "Implement c in src/c.py", "src/c.py", None),
        ];
        let refs: Vec<&Task> = tasks.iter().collect();
        let due = |phase: &str| due_green(&refs, phase, &[]);
        assert_eq!(due("US1"), ["tests/test_a.py"]);
        assert!(due("US2").is_empty(), "its story goes on in US2b");
        assert_eq!(due("US2b"), ["tests/test_b.py"]);
        assert!(
            due("Tests first").is_empty(),
            "a tests-first phase has no implementation"
        );
        assert_eq!(due("Core"), ["tests/test_c.py"]);
        assert!(due("Setup").is_empty());
    }

    #[test]
    fn config_checks_run_for_the_files_they_match() {
        let checks = [
            ConfigCheck {
                glob: "src/**/*.py".into(),
                command: "ruff check \"$@\"".into(),
            },
            ConfigCheck {
                glob: "docs/".into(),
                command: "make docs".into(),
            },
        ];
        let t = task(
            "Implement the parser",
            Some("src/p/parse.py"),
            &["README.md"],
        );
        assert_eq!(
            derive(&t, &checks).last(),
            Some(&Derived::Command {
                command: "ruff check \"$@\"".into(),
                files: vec!["src/p/parse.py".into()]
            })
        );
    }

    #[test]
    fn test_files_by_their_names() {
        for yes in [
            "tests/test_a.py",
            "test_a.py",
            "pkg/a_test.go",
            "src/a.test.ts",
            "src/a.spec.js",
            "src/test/java/a/FooTest.java",
            "FooTests.cs",
            "spec/models/user_spec.rb",
            "tests/integration/main.rs",
            "src/__tests__/x.tsx",
        ] {
            assert!(is_test_file(yes), "{yes}");
        }
        for no in [
            "src/a.py",
            "specs/001-x/spec.md",
            "tests/",
            "src/contest.py",
            "Test.java",
            "docs/testing.md",
        ] {
            assert!(!is_test_file(no), "{no}");
        }
    }

    #[test]
    fn globs() {
        for (glob, path, want) in [
            ("src/**/*.py", "src/a/b/c.py", true),
            ("src/**/*.py", "src/c.py", true),
            ("src/*.py", "src/a/c.py", false),
            ("*.md", "README.md", true),
            ("*.md", "docs/x.md", false),
            ("**/*.md", "docs/x.md", true),
            ("docs/", "docs/a/b.md", true),
            ("docs/", "docsx/a", false),
            ("src/?.rs", "src/a.rs", true),
            ("src/?.rs", "src/ab.rs", false),
            ("./tests/**", "tests/a/b", true),
        ] {
            assert_eq!(glob_match(glob, path), want, "{glob} {path}");
        }
    }

    #[test]
    fn verbs_in_any_form() {
        let stem = |w: &str| verb_of(w).map(|v| v.stem);
        assert_eq!(stem("creates"), Some("create"));
        assert_eq!(stem("creating"), Some("create"));
        assert_eq!(stem("added"), Some("add"));
        assert_eq!(stem("fixes"), Some("fix"));
        assert_eq!(stem("reviewing"), Some("review"));
        assert_eq!(stem("users"), None);
        let write = verb_of("writes").unwrap();
        assert!(write.creates && write.writes && !write.reads);
    }
}
