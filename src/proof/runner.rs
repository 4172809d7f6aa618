//! The project's test runner (docs/proof.md "Derived checks"): the command that
//! runs its whole suite (a phase's checkpoint) and the one that runs a single test
//! file (a test a task writes). `wf.test_command` in the project config wins;
//! otherwise the runner is read from the project's files — `Cargo.toml` (cargo),
//! `go.mod` (go), `package.json` (vitest or jest among its dependencies, else
//! `node --test` in its test script), a Python project file (pytest), a `*.csproj`
//! or `*.sln` (dotnet), `pom.xml` (maven), `build.gradle` (gradle) — and last the
//! plugin's `scripts.test`.
//!
//! A file path from the plan is only ever one argument of the program, never text
//! of a shell line: a configured command gets it as `"$@"`. A runner that is not
//! installed is found out when the command starts (`exec::process`), and the check
//! is reported as one that cannot run here, never as a pass.

use std::path::Path;

use crate::config::Config;
use crate::exec::process::Program;

/// A test runner this project has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runner {
    /// `wf.test_command` or `scripts.test`: a shell line of the project's owner.
    Configured(String),
    Pytest,
    Cargo,
    Go,
    Vitest,
    Jest,
    NodeTest,
    Dotnet,
    Maven,
    Gradle,
}

impl Runner {
    /// The project's runner; `Err` says why there is none and how to set one.
    pub fn detect(project: &Path, config: &Config) -> Result<Runner, String> {
        if let Some(line) = &config.wf.test_command {
            return Ok(Runner::Configured(line.clone()));
        }
        let has = |f: &str| project.join(f).is_file();
        let found = if has("Cargo.toml") {
            Some(Runner::Cargo)
        } else if has("go.mod") {
            Some(Runner::Go)
        } else if has("package.json") {
            node_runner(project)
        } else if [
            "pyproject.toml",
            "pytest.ini",
            "setup.cfg",
            "tox.ini",
            "setup.py",
            "conftest.py",
        ]
        .iter()
        .any(|f| has(f))
        {
            Some(Runner::Pytest)
        } else if has_extension(project, &["csproj", "sln", "fsproj"]) {
            Some(Runner::Dotnet)
        } else if has("pom.xml") {
            Some(Runner::Maven)
        } else if has("build.gradle") || has("build.gradle.kts") {
            Some(Runner::Gradle)
        } else {
            None
        };
        found
            .or_else(|| config.scripts.test.clone().map(Runner::Configured))
            .ok_or_else(|| {
                format!(
                    "no test runner found in this project (no Cargo.toml, go.mod, package.json, pyproject.toml, *.csproj, pom.xml or build.gradle); set wf.test_command in {}",
                    crate::config::CONFIG_PATH
                )
            })
    }

    /// How the runner is called in what wf says.
    pub fn name(&self) -> &str {
        match self {
            Runner::Configured(_) => "wf.test_command",
            Runner::Pytest => "pytest",
            Runner::Cargo => "cargo test",
            Runner::Go => "go test",
            Runner::Vitest => "vitest",
            Runner::Jest => "jest",
            Runner::NodeTest => "node --test",
            Runner::Dotnet => "dotnet test",
            Runner::Maven => "mvn test",
            Runner::Gradle => "gradle test",
        }
    }

    /// The whole suite, printing a line per test where the runner can (what a
    /// checkpoint compares, `src/proof/testout.rs`).
    pub fn suite(&self) -> Program {
        let argv: &[&str] = match self {
            Runner::Configured(line) => return Program::Shell(line.clone()),
            Runner::Pytest => &["pytest", "-v"],
            Runner::Cargo => &["cargo", "test"],
            Runner::Go => &["go", "test", "-v", "./..."],
            Runner::Vitest => &[VITEST, "run"],
            Runner::Jest => &[JEST, "--verbose"],
            Runner::NodeTest => &["node", "--test"],
            Runner::Dotnet => &["dotnet", "test"],
            Runner::Maven => &["mvn", "-q", "test"],
            Runner::Gradle => &["gradle", "test"],
        };
        argv_of(argv)
    }

    /// The command that runs the one test file `file` (relative to the project);
    /// `Err` says why this runner cannot run it alone.
    pub fn one(&self, file: &str) -> Result<Program, String> {
        let stem = Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("");
        let class = || {
            (!stem.is_empty() && stem.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
                .then(|| stem.to_string())
                .ok_or_else(|| format!("{} cannot name {file} as a test class", self.name()))
        };
        let mut argv: Vec<String> = match self {
            Runner::Configured(line) => {
                return Ok(Program::Argv(vec![
                    "/bin/sh".into(),
                    "-c".into(),
                    format!("{line} \"$@\""),
                    "sh".into(),
                    file.into(),
                ]))
            }
            Runner::Pytest => strings(&["pytest", "-q"]),
            Runner::Cargo => return Ok(cargo_test(file)),
            Runner::Go => {
                let dir = Path::new(file).parent().map_or(String::new(), |d| {
                    d.to_string_lossy().trim_end_matches('/').to_string()
                });
                let package = if dir.is_empty() {
                    ".".into()
                } else {
                    format!("./{dir}")
                };
                return Ok(argv_of(&["go", "test", "-v", &package]));
            }
            Runner::Vitest => strings(&[VITEST, "run"]),
            Runner::Jest => strings(&[JEST]),
            Runner::NodeTest => strings(&["node", "--test"]),
            Runner::Dotnet => {
                return Ok(argv_of(&[
                    "dotnet",
                    "test",
                    "--filter",
                    &format!("FullyQualifiedName~{}", class()?),
                ]))
            }
            Runner::Maven => {
                return Ok(argv_of(&[
                    "mvn",
                    "-q",
                    &format!("-Dtest={}", class()?),
                    "test",
                ]))
            }
            Runner::Gradle => return Ok(argv_of(&["gradle", "test", "--tests", &class()?])),
        };
        argv.push(file.into());
        Ok(Program::Argv(argv))
    }

    /// Why the runner cannot run in `project` though it was detected there (a
    /// node runner that `npm install` has not put in `node_modules`); none when it
    /// can, as far as its files tell. A program missing from PATH is found when it
    /// starts.
    pub fn missing(&self, project: &Path) -> Option<String> {
        let local = match self {
            Runner::Vitest => VITEST,
            Runner::Jest => JEST,
            _ => return None,
        };
        (!project.join(local).exists()).then(|| {
            format!(
                "{} is not installed here ({local} is missing; run npm install)",
                self.name()
            )
        })
    }
}

/// Where npm installs the node runners' programs.
const VITEST: &str = "node_modules/.bin/vitest";
const JEST: &str = "node_modules/.bin/jest";

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_string()).collect()
}

fn argv_of(words: &[&str]) -> Program {
    Program::Argv(strings(words))
}

/// `cargo test --test NAME` for an integration test (`tests/NAME.rs`,
/// `tests/NAME/main.rs`); the whole `cargo test` for a test elsewhere (unit tests
/// live in the crate's own files).
fn cargo_test(file: &str) -> Program {
    let parts: Vec<&str> = file.split('/').collect();
    let name = match parts.as_slice() {
        ["tests", f] => f.strip_suffix(".rs"),
        ["tests", dir, "main.rs"] => Some(*dir),
        _ => None,
    };
    match name {
        Some(n) => argv_of(&["cargo", "test", "--test", n]),
        None => argv_of(&["cargo", "test"]),
    }
}

/// vitest or jest among `package.json`'s dependencies, else `node --test` in its
/// test script; none when it names no runner wf knows.
fn node_runner(project: &Path) -> Option<Runner> {
    let text = crate::fs::read_regular(&project.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_slice(&text).ok()?;
    let depends = |name: &str| {
        ["devDependencies", "dependencies"]
            .iter()
            .any(|k| json[k].get(name).is_some())
    };
    let script = json["scripts"]["test"].as_str().unwrap_or("");
    if depends("vitest") || script.contains("vitest") {
        Some(Runner::Vitest)
    } else if depends("jest") || script.contains("jest") {
        Some(Runner::Jest)
    } else if script.contains("node --test") {
        Some(Runner::NodeTest)
    } else {
        None
    }
}

fn has_extension(project: &Path, extensions: &[&str]) -> bool {
    std::fs::read_dir(project).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            Path::new(&e.file_name())
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| extensions.contains(&x))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (f, text) in files {
            std::fs::write(dir.path().join(f), text).unwrap();
        }
        dir
    }

    fn detected(files: &[(&str, &str)]) -> Result<Runner, String> {
        Runner::detect(project(files).path(), &Config::default())
    }

    #[test]
    fn the_runner_is_read_from_the_project_files() {
        assert_eq!(detected(&[("Cargo.toml", "")]), Ok(Runner::Cargo));
        assert_eq!(detected(&[("go.mod", "")]), Ok(Runner::Go));
        assert_eq!(detected(&[("pyproject.toml", "")]), Ok(Runner::Pytest));
        assert_eq!(detected(&[("App.csproj", "")]), Ok(Runner::Dotnet));
        assert_eq!(detected(&[("pom.xml", "")]), Ok(Runner::Maven));
        let pkg = |json: &str| detected(&[("package.json", json)]);
        assert_eq!(
            pkg(r#"{"devDependencies": {"vitest": "1"}}"#),
            Ok(Runner::Vitest)
        );
        assert_eq!(pkg(r#"{"dependencies": {"jest": "29"}}"#), Ok(Runner::Jest));
        assert_eq!(
            pkg(r#"{"scripts": {"test": "node --test"}}"#),
            Ok(Runner::NodeTest)
        );
        let none = pkg(r#"{"scripts": {"test": "echo"}}"#).unwrap_err();
        assert!(none.contains("set wf.test_command"), "{none}");
    }

    #[test]
    fn the_config_wins_and_a_file_is_an_argument_never_shell_text() {
        let dir = project(&[("Cargo.toml", "")]);
        let mut config = Config::default();
        config.wf.test_command = Some("./run-tests".into());
        let runner = Runner::detect(dir.path(), &config).unwrap();
        assert_eq!(runner.suite().argv(), ["./run-tests"]);
        let hostile = "tests/$(rm -rf ~);x.sh";
        assert_eq!(
            runner.one(hostile).unwrap().argv(),
            ["/bin/sh", "-c", "./run-tests \"$@\"", "sh", hostile]
        );
    }

    #[test]
    fn one_file_per_runner() {
        let argv = |r: Runner, f: &str| r.one(f).map(|p| p.argv());
        assert_eq!(
            argv(Runner::Cargo, "tests/cli.rs").unwrap(),
            ["cargo", "test", "--test", "cli"]
        );
        assert_eq!(
            argv(Runner::Cargo, "tests/it/main.rs").unwrap(),
            ["cargo", "test", "--test", "it"]
        );
        assert_eq!(argv(Runner::Cargo, "src/a.rs").unwrap(), ["cargo", "test"]);
        assert_eq!(
            argv(Runner::Go, "pkg/x/a_test.go").unwrap(),
            ["go", "test", "-v", "./pkg/x"]
        );
        assert_eq!(
            argv(Runner::Go, "a_test.go").unwrap(),
            ["go", "test", "-v", "."]
        );
        assert_eq!(
            argv(Runner::NodeTest, "test/a.test.js").unwrap(),
            ["node", "--test", "test/a.test.js"]
        );
        assert_eq!(
            argv(Runner::Pytest, "tests/test_a.py").unwrap(),
            ["pytest", "-q", "tests/test_a.py"]
        );
        assert_eq!(
            argv(Runner::Maven, "src/test/java/a/FooTest.java").unwrap(),
            ["mvn", "-q", "-Dtest=FooTest", "test"]
        );
        assert!(
            argv(Runner::Dotnet, "tests/foo-bar.Tests.cs").is_err(),
            "no class name"
        );
    }

    #[test]
    fn a_node_runner_npm_did_not_install_is_missing() {
        let dir = project(&[("package.json", r#"{"devDependencies": {"vitest": "1"}}"#)]);
        let why = Runner::Vitest.missing(dir.path()).unwrap();
        assert!(why.contains("npm install"), "{why}");
        assert_eq!(Runner::NodeTest.missing(dir.path()), None);
    }
}
