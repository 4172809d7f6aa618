//! The builtin verifiers (`typecheck`, `lint`, `test`, `build`) and which command
//! each means in this project.
//!
//! Each name means a command of the project's own toolchain (not one assumed package
//! manager), detected from the files at its root: `pnpm-lock.yaml` → pnpm,
//! `yarn.lock` → yarn, `package-lock.json`/`package.json` → npm, `Cargo.toml` → cargo,
//! `go.mod` → go, `pyproject.toml`/`setup.py`/`setup.cfg`/`pytest.ini` → python. Within
//! a toolchain, a verifier exists only when the project declares its tool: a
//! package.json script, a `tsconfig.json`, a `[tool.mypy]` or `[tool.ruff]` table, a
//! `.golangci.yml` — so a Python project without mypy has no typecheck to fail.
//! `wf.verifiers.<name>` (a command, `true` or `false`) and `scripts.<name>` in the
//! project config override the mapping; what they name is required, and `false`
//! turns the verifier off.

use std::path::Path;

use crate::config::{Config, VerifierSetting};
use crate::exec::process::Program;

/// A builtin verifier: a check every project has under some command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verifier {
    Typecheck,
    Lint,
    Test,
    Build,
}

impl Verifier {
    /// In the order a quality gate runs them.
    pub const ALL: [Verifier; 4] = [
        Verifier::Typecheck,
        Verifier::Lint,
        Verifier::Test,
        Verifier::Build,
    ];

    /// The name plans, constraints (`verifyCmd`), `wf.verifiers` and `scripts` use.
    pub fn name(self) -> &'static str {
        match self {
            Verifier::Typecheck => "typecheck",
            Verifier::Lint => "lint",
            Verifier::Test => "test",
            Verifier::Build => "build",
        }
    }

    /// By its name, or by `ts_typecheck`, the name the claude-workflow plugin gives
    /// the type check (its plans and constraints keep working).
    pub fn parse(name: &str) -> Option<Verifier> {
        match name {
            "ts_typecheck" => Some(Verifier::Typecheck),
            _ => Verifier::ALL.into_iter().find(|v| v.name() == name),
        }
    }

    /// Its `wf.verifiers` entry, under its name or the plugin's.
    fn setting(self, config: &Config) -> Option<&VerifierSetting> {
        let v = &config.wf.verifiers;
        v.get(self.name()).or_else(|| match self {
            Verifier::Typecheck => v.get("ts_typecheck"),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolchain {
    Pnpm,
    Yarn,
    Npm,
    Cargo,
    Go,
    Python,
}

impl Toolchain {
    pub fn detect(project: &Path) -> Option<Toolchain> {
        let has = |f: &str| project.join(f).exists();
        if has("pnpm-lock.yaml") {
            Some(Toolchain::Pnpm)
        } else if has("yarn.lock") {
            Some(Toolchain::Yarn)
        } else if has("package-lock.json") || has("package.json") {
            Some(Toolchain::Npm)
        } else if has("Cargo.toml") {
            Some(Toolchain::Cargo)
        } else if has("go.mod") {
            Some(Toolchain::Go)
        } else if has("pyproject.toml") || has("setup.py") || has("setup.cfg") || has("pytest.ini")
        {
            Some(Toolchain::Python)
        } else {
            None
        }
    }

    /// The argv of a builtin verifier for this toolchain in `project`, or why it has
    /// none (the project declares no tool for it).
    fn command(self, verifier: Verifier, project: &Path) -> Result<Vec<String>, String> {
        use Toolchain::{Cargo, Go, Npm, Pnpm, Python, Yarn};
        use Verifier::{Build, Lint, Test, Typecheck};
        let argv: &[&str] = match (self, verifier) {
            (Pnpm | Yarn | Npm, _) => return self.node(verifier, project),
            (Cargo, Typecheck) => &["cargo", "check", "--all-targets"],
            (Cargo, Lint) => &["cargo", "clippy", "--all-targets"],
            (Cargo, Test) => &["cargo", "test"],
            (Cargo, Build) => &["cargo", "build"],
            (Go, Typecheck) => &["go", "vet", "./..."],
            (Go, Lint)
                if declares(
                    project,
                    &[".golangci.yml", ".golangci.yaml", ".golangci.toml"],
                ) =>
            {
                &["golangci-lint", "run"]
            }
            (Go, Lint) => return Err("go: no .golangci.yml (go vet is its typecheck)".into()),
            (Go, Test) => &["go", "test", "./..."],
            (Go, Build) => &["go", "build", "./..."],
            (Python, _) => return python(verifier, project),
        };
        Ok(argv.iter().map(|a| (*a).to_string()).collect())
    }

    /// A node project's verifier: its package.json script of that name (`tsc
    /// --noEmit` for typecheck when it has a tsconfig.json and no such script).
    fn node(self, verifier: Verifier, project: &Path) -> Result<Vec<String>, String> {
        let scripts = package_scripts(project);
        let script = scripts.iter().find(|(k, v)| {
            k == verifier.name() && !(k == "test" && v.contains("no test specified"))
        });
        let run = |name: &str| -> Vec<String> {
            let argv: &[&str] = match (self, verifier) {
                (Toolchain::Npm, Verifier::Test) => &["npm", "test"],
                (Toolchain::Npm, _) => &["npm", "run", name],
                (Toolchain::Pnpm, _) => &["pnpm", "run", name],
                _ => &["yarn", "run", name],
            };
            argv.iter().map(|a| (*a).to_string()).collect()
        };
        if let Some((name, _)) = script {
            return Ok(run(name));
        }
        if verifier == Verifier::Typecheck && project.join("tsconfig.json").is_file() {
            let exec: &[&str] = match self {
                Toolchain::Pnpm => &["pnpm", "exec", "tsc", "--noEmit"],
                Toolchain::Yarn => &["yarn", "tsc", "--noEmit"],
                _ => &["npx", "--no-install", "tsc", "--noEmit"],
            };
            return Ok(exec.iter().map(|a| (*a).to_string()).collect());
        }
        Err(format!(
            "package.json has no `{}` script{}",
            verifier.name(),
            if verifier == Verifier::Typecheck {
                " and there is no tsconfig.json"
            } else {
                ""
            }
        ))
    }
}

/// Whether any of `files` is at the project's root.
fn declares(project: &Path, files: &[&str]) -> bool {
    files.iter().any(|f| project.join(f).exists())
}

/// The `scripts` of the project's package.json, as (name, command) pairs.
fn package_scripts(project: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(project.join("package.json")) else {
        return Vec::new();
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    json["scripts"]
        .as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// A Python project's verifier, by the tools its files declare: mypy or pyright
/// for typecheck, ruff or flake8 for lint, pytest for test (also when it names
/// pytest anywhere in pyproject.toml, or has a conftest.py); no build.
fn python(verifier: Verifier, project: &Path) -> Result<Vec<String>, String> {
    let read = |f: &str| std::fs::read_to_string(project.join(f)).unwrap_or_default();
    let (pyproject, setup_cfg) = (read("pyproject.toml"), read("setup.cfg"));
    let table = |name: &str| {
        pyproject.contains(&format!("[tool.{name}")) || setup_cfg.contains(&format!("[{name}"))
    };
    let argv: &[&str] = match verifier {
        Verifier::Typecheck if table("mypy") || declares(project, &["mypy.ini", ".mypy.ini"]) => {
            &["mypy", "."]
        }
        Verifier::Typecheck if table("pyright") || declares(project, &["pyrightconfig.json"]) => {
            &["pyright"]
        }
        Verifier::Typecheck => {
            return Err("python: no mypy or pyright configuration (pyproject.toml [tool.mypy], mypy.ini, pyrightconfig.json)".into())
        }
        Verifier::Lint if table("ruff") || declares(project, &["ruff.toml", ".ruff.toml"]) => {
            &["ruff", "check", "."]
        }
        Verifier::Lint if table("flake8") || declares(project, &[".flake8"]) => &["flake8"],
        Verifier::Lint => {
            return Err("python: no ruff or flake8 configuration (pyproject.toml [tool.ruff], ruff.toml, .flake8)".into())
        }
        Verifier::Test
            if table("pytest")
                || pyproject.contains("pytest")
                || declares(project, &["pytest.ini", "conftest.py", "tox.ini"]) =>
        {
            &["pytest"]
        }
        Verifier::Test => return Err("python: no pytest configuration (pytest.ini, conftest.py, [tool.pytest.ini_options])".into()),
        Verifier::Build => return Err("python: no build verifier".into()),
    };
    Ok(argv.iter().map(|a| (*a).to_string()).collect())
}

/// A verifier resolved to a command line for this project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// From the project config: a shell line the project's owner wrote.
    Configured(String),
    /// From the detected toolchain: a program and its arguments.
    Detected(Vec<String>),
    /// Nothing maps this verifier here; the reason says why.
    Unavailable(String),
}

impl Resolved {
    /// What runs verifier `name` — a configured line by the shell, as its owner wrote
    /// it for one — or why nothing does.
    pub fn program(self, name: &str) -> Result<Program, String> {
        match self {
            Resolved::Configured(line) => Ok(Program::Shell(line)),
            Resolved::Detected(argv) => Ok(Program::Argv(argv)),
            Resolved::Unavailable(why) => Err(format!("no `{name}` verifier: {why}")),
        }
    }
}

pub fn resolve(verifier: Verifier, project: &Path, config: &Config) -> Resolved {
    let name = verifier.name();
    match verifier.setting(config) {
        Some(VerifierSetting::Command(cmd)) => return Resolved::Configured(cmd.clone()),
        Some(VerifierSetting::Required(false)) => {
            return Resolved::Unavailable(format!("turned off by wf.verifiers.{name}: false"))
        }
        Some(VerifierSetting::Required(true)) | None => {}
    }
    if let Some(cmd) = script(verifier, config) {
        return Resolved::Configured(cmd.clone());
    }
    let Some(tc) = Toolchain::detect(project) else {
        return Resolved::Unavailable(format!(
            "no toolchain detected for `{name}` (no package.json, Cargo.toml, go.mod or pyproject.toml); set scripts.{name} in {}",
            crate::config::CONFIG_PATH
        ));
    };
    match tc.command(verifier, project) {
        Ok(argv) => Resolved::Detected(argv),
        Err(why) => Resolved::Unavailable(why),
    }
}

/// What a verifier does in this project, before it runs: the one answer a quality
/// gate and `wf doctor` act on.
#[derive(Debug, Clone)]
pub enum Here {
    /// It runs this program (whose tool, when the config requires it, may still be
    /// missing: then it fails, by name).
    Runs(Program),
    /// Its detected tool is not on PATH and nothing requires it: not counted.
    Missing(String),
    /// `wf.verifiers.NAME: false`.
    Off,
    /// The project declares no tool for it.
    NotApplicable,
}

impl Here {
    /// The gate record's word for it, and how a gate's message says it.
    pub fn words(&self, name: &str) -> (&'static str, String) {
        match self {
            Here::Runs(_) => ("runs", format!("{name} runs")),
            Here::Missing(tool) => (
                "missing",
                format!("{name} missing (`{tool}` is not on PATH)"),
            ),
            Here::Off => ("off", format!("{name} off")),
            Here::NotApplicable => ("n/a", format!("{name} n/a")),
        }
    }
}

pub fn here(verifier: Verifier, project: &Path, config: &Config) -> Here {
    let standing = standing(verifier, config);
    if standing == Standing::Off {
        return Here::Off;
    }
    let Ok(program) = resolve(verifier, project, config).program(verifier.name()) else {
        return Here::NotApplicable;
    };
    match super::process::missing_program(&program) {
        Some(tool) if standing == Standing::Detected => Here::Missing(tool),
        _ => Here::Runs(program),
    }
}

/// `scripts.<name>` in the project config.
fn script(verifier: Verifier, config: &Config) -> Option<&String> {
    match verifier {
        Verifier::Test => config.scripts.test.as_ref(),
        Verifier::Lint => config.scripts.lint.as_ref(),
        Verifier::Build => config.scripts.build.as_ref(),
        Verifier::Typecheck => config.scripts.typecheck.as_ref(),
    }
}

/// How the project config holds a verifier: `Off` (`wf.verifiers.NAME: false`),
/// `Required` (a command of its own, `true`, or `scripts.NAME`: a missing tool
/// fails it), else `Detected` (a missing tool is only missing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Off,
    Required,
    Detected,
}

pub fn standing(verifier: Verifier, config: &Config) -> Standing {
    match verifier.setting(config) {
        Some(VerifierSetting::Required(false)) => Standing::Off,
        Some(_) => Standing::Required,
        None if script(verifier, config).is_some() => Standing::Required,
        None => Standing::Detected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_lockfile_first() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("package.json"), "{}").unwrap();
        assert_eq!(Toolchain::detect(d.path()), Some(Toolchain::Npm));
        std::fs::write(d.path().join("pnpm-lock.yaml"), "").unwrap();
        assert_eq!(Toolchain::detect(d.path()), Some(Toolchain::Pnpm));
    }

    #[test]
    fn config_script_wins() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("Cargo.toml"), "").unwrap();
        let mut cfg = Config::default();
        assert_eq!(
            resolve(Verifier::Test, d.path(), &cfg),
            Resolved::Detected(vec!["cargo".into(), "test".into()])
        );
        cfg.scripts.test = Some("make check".into());
        assert_eq!(
            resolve(Verifier::Test, d.path(), &cfg),
            Resolved::Configured("make check".into())
        );
    }

    #[test]
    fn no_toolchain_is_explained() {
        let d = tempfile::tempdir().unwrap();
        match resolve(Verifier::Lint, d.path(), &Config::default()) {
            Resolved::Unavailable(why) => assert!(why.contains("scripts.lint"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    fn detected(dir: &Path, v: Verifier) -> Resolved {
        resolve(v, dir, &Config::default())
    }

    fn argv(words: &[&str]) -> Resolved {
        Resolved::Detected(words.iter().map(|w| (*w).to_string()).collect())
    }

    #[test]
    fn a_python_project_has_the_verifiers_its_files_declare() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
        for v in Verifier::ALL {
            assert!(
                matches!(detected(d.path(), v), Resolved::Unavailable(_)),
                "{v:?}"
            );
        }
        std::fs::write(
            d.path().join("pyproject.toml"),
            "[tool.pyright]\n[tool.ruff.lint]\n[tool.pytest.ini_options]\n",
        )
        .unwrap();
        assert_eq!(detected(d.path(), Verifier::Typecheck), argv(&["pyright"]));
        assert_eq!(
            detected(d.path(), Verifier::Lint),
            argv(&["ruff", "check", "."])
        );
        assert_eq!(detected(d.path(), Verifier::Test), argv(&["pytest"]));
        std::fs::write(d.path().join("mypy.ini"), "").unwrap();
        assert_eq!(
            detected(d.path(), Verifier::Typecheck),
            argv(&["mypy", "."])
        );
    }

    #[test]
    fn a_node_project_runs_its_own_scripts_and_tsc_only_with_a_tsconfig() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("package.json"),
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1", "lint": "eslint ."}}"#,
        )
        .unwrap();
        assert!(matches!(
            detected(d.path(), Verifier::Test),
            Resolved::Unavailable(_)
        ));
        assert!(matches!(
            detected(d.path(), Verifier::Typecheck),
            Resolved::Unavailable(_)
        ));
        assert_eq!(
            detected(d.path(), Verifier::Lint),
            argv(&["npm", "run", "lint"])
        );
        std::fs::write(d.path().join("tsconfig.json"), "{}").unwrap();
        std::fs::write(d.path().join("pnpm-lock.yaml"), "").unwrap();
        assert_eq!(
            detected(d.path(), Verifier::Typecheck),
            argv(&["pnpm", "exec", "tsc", "--noEmit"])
        );
    }

    #[test]
    fn the_plugins_ts_typecheck_is_the_typecheck_and_false_turns_one_off() {
        assert_eq!(Verifier::parse("ts_typecheck"), Some(Verifier::Typecheck));
        let mut cfg = Config::default();
        cfg.wf.verifiers.insert(
            "ts_typecheck".into(),
            VerifierSetting::Command("tsc -p .".into()),
        );
        cfg.wf
            .verifiers
            .insert("lint".into(), VerifierSetting::Required(false));
        let d = tempfile::tempdir().unwrap();
        assert_eq!(
            resolve(Verifier::Typecheck, d.path(), &cfg),
            Resolved::Configured("tsc -p .".into())
        );
        assert_eq!(standing(Verifier::Typecheck, &cfg), Standing::Required);
        assert_eq!(standing(Verifier::Lint, &cfg), Standing::Off);
        assert_eq!(standing(Verifier::Test, &cfg), Standing::Detected);
    }
}
