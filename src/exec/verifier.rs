//! The builtin verifiers (`ts_typecheck`, `lint`, `test`, `build`) and which command
//! each means in this project.
//!
//! Each name means a command of the project's own toolchain (not one assumed package
//! manager), detected from the files at its root: `pnpm-lock.yaml` → pnpm,
//! `yarn.lock` → yarn, `package-lock.json`/`package.json` → npm, `Cargo.toml` → cargo,
//! `go.mod` → go, `pyproject.toml`/`setup.py`/`pytest.ini` → pytest. `scripts.<name>`
//! and `wf.verifiers.<name>` in the project config override the mapping.

use std::path::Path;

use crate::config::Config;

/// A builtin verifier: a check every project has under some command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verifier {
    TsTypecheck,
    Lint,
    Test,
    Build,
}

impl Verifier {
    /// In the order a quality gate runs them.
    pub const ALL: [Verifier; 4] = [
        Verifier::TsTypecheck,
        Verifier::Lint,
        Verifier::Test,
        Verifier::Build,
    ];

    /// The name plans, constraints (`verifyCmd`) and `wf.verifiers` use.
    pub fn name(self) -> &'static str {
        match self {
            Verifier::TsTypecheck => "ts_typecheck",
            Verifier::Lint => "lint",
            Verifier::Test => "test",
            Verifier::Build => "build",
        }
    }

    pub fn parse(name: &str) -> Option<Verifier> {
        Verifier::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Its key under `scripts` in the project config.
    fn script_key(self) -> &'static str {
        match self {
            Verifier::TsTypecheck => "typecheck",
            other => other.name(),
        }
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
        } else if has("pyproject.toml") || has("setup.py") || has("pytest.ini") {
            Some(Toolchain::Python)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Toolchain::Pnpm => "pnpm",
            Toolchain::Yarn => "yarn",
            Toolchain::Npm => "npm",
            Toolchain::Cargo => "cargo",
            Toolchain::Go => "go",
            Toolchain::Python => "python",
        }
    }

    /// The argv of a builtin verifier for this toolchain, if it has one.
    fn command(self, verifier: Verifier) -> Option<Vec<&'static str>> {
        use Toolchain::{Cargo, Go, Npm, Pnpm, Python, Yarn};
        use Verifier::{Build, Lint, Test, TsTypecheck};
        let argv: &[&str] = match (self, verifier) {
            (Pnpm, TsTypecheck) => &["pnpm", "tsc", "--noEmit"],
            (Pnpm, Lint) => &["pnpm", "lint"],
            (Pnpm, Test) => &["pnpm", "test"],
            (Pnpm, Build) => &["pnpm", "build"],
            (Yarn, TsTypecheck) => &["yarn", "tsc", "--noEmit"],
            (Yarn, Lint) => &["yarn", "lint"],
            (Yarn, Test) => &["yarn", "test"],
            (Yarn, Build) => &["yarn", "build"],
            (Npm, TsTypecheck) => &["npx", "tsc", "--noEmit"],
            (Npm, Lint) => &["npm", "run", "lint"],
            (Npm, Test) => &["npm", "test"],
            (Npm, Build) => &["npm", "run", "build"],
            (Cargo, TsTypecheck) => &["cargo", "check", "--all-targets"],
            (Cargo, Lint) => &["cargo", "clippy", "--all-targets"],
            (Cargo, Test) => &["cargo", "test"],
            (Cargo, Build) => &["cargo", "build"],
            (Go, TsTypecheck) => &["go", "vet", "./..."],
            (Go, Lint) => &["go", "vet", "./..."],
            (Go, Test) => &["go", "test", "./..."],
            (Go, Build) => &["go", "build", "./..."],
            (Python, TsTypecheck) => &["mypy", "."],
            (Python, Lint) => &["ruff", "check", "."],
            (Python, Test) => &["pytest"],
            (Python, Build) => return None,
        };
        Some(argv.to_vec())
    }
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

pub fn resolve(verifier: Verifier, project: &Path, config: &Config) -> Resolved {
    let name = verifier.name();
    if let Some(cmd) = config.wf.verifiers.get(name) {
        return Resolved::Configured(cmd.clone());
    }
    let script = match verifier {
        Verifier::Test => &config.scripts.test,
        Verifier::Lint => &config.scripts.lint,
        Verifier::Build => &config.scripts.build,
        Verifier::TsTypecheck => &config.scripts.typecheck,
    };
    if let Some(cmd) = script {
        return Resolved::Configured(cmd.clone());
    }
    let Some(tc) = Toolchain::detect(project) else {
        return Resolved::Unavailable(format!(
            "no toolchain detected for `{name}` (no package.json, Cargo.toml, go.mod or pyproject.toml); set scripts.{} in {}",
            verifier.script_key(),
            crate::config::CONFIG_PATH
        ));
    };
    match tc.command(verifier) {
        Some(argv) => Resolved::Detected(argv.into_iter().map(String::from).collect()),
        None => Resolved::Unavailable(format!(
            "the {} toolchain has no `{name}` verifier",
            tc.name()
        )),
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
}
