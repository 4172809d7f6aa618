//! The builtin verifiers (`ts_typecheck`, `lint`, `test`, `build`) and which command
//! each means in this project.
//!
//! Seed 004's `BUILTIN_VERIFIERS` assumed pnpm; `wf` maps each name to the project's
//! toolchain, detected from the files at its root: `pnpm-lock.yaml` → pnpm,
//! `yarn.lock` → yarn, `package-lock.json`/`package.json` → npm, `Cargo.toml` → cargo,
//! `go.mod` → go, `pyproject.toml`/`setup.py`/`pytest.ini` → pytest. `scripts.<name>`
//! and `wf.verifiers.<name>` in the project config override the mapping.

use std::path::Path;

use crate::config::Config;

pub const BUILTIN: [&str; 4] = ["ts_typecheck", "lint", "test", "build"];

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
    fn command(self, verifier: &str) -> Option<Vec<&'static str>> {
        use Toolchain::{Cargo, Go, Npm, Pnpm, Python, Yarn};
        let argv: &[&str] = match (self, verifier) {
            (Pnpm, "ts_typecheck") => &["pnpm", "tsc", "--noEmit"],
            (Pnpm, "lint") => &["pnpm", "lint"],
            (Pnpm, "test") => &["pnpm", "test"],
            (Pnpm, "build") => &["pnpm", "build"],
            (Yarn, "ts_typecheck") => &["yarn", "tsc", "--noEmit"],
            (Yarn, "lint") => &["yarn", "lint"],
            (Yarn, "test") => &["yarn", "test"],
            (Yarn, "build") => &["yarn", "build"],
            (Npm, "ts_typecheck") => &["npx", "tsc", "--noEmit"],
            (Npm, "lint") => &["npm", "run", "lint"],
            (Npm, "test") => &["npm", "test"],
            (Npm, "build") => &["npm", "run", "build"],
            (Cargo, "ts_typecheck") => &["cargo", "check", "--all-targets"],
            (Cargo, "lint") => &["cargo", "clippy", "--all-targets"],
            (Cargo, "test") => &["cargo", "test"],
            (Cargo, "build") => &["cargo", "build"],
            (Go, "ts_typecheck") => &["go", "vet", "./..."],
            (Go, "lint") => &["go", "vet", "./..."],
            (Go, "test") => &["go", "test", "./..."],
            (Go, "build") => &["go", "build", "./..."],
            (Python, "ts_typecheck") => &["mypy", "."],
            (Python, "lint") => &["ruff", "check", "."],
            (Python, "test") => &["pytest"],
            _ => return None,
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

pub fn resolve(name: &str, project: &Path, config: &Config) -> Resolved {
    if let Some(cmd) = config.wf.verifiers.get(name) {
        return Resolved::Configured(cmd.clone());
    }
    let script = match name {
        "test" => &config.scripts.test,
        "lint" => &config.scripts.lint,
        "build" => &config.scripts.build,
        "ts_typecheck" => &config.scripts.typecheck,
        _ => &None,
    };
    if let Some(cmd) = script {
        return Resolved::Configured(cmd.clone());
    }
    let Some(tc) = Toolchain::detect(project) else {
        return Resolved::Unavailable(format!(
            "no toolchain detected for `{name}` (no package.json, Cargo.toml, go.mod or pyproject.toml); set scripts.{} in {}",
            if name == "ts_typecheck" { "typecheck" } else { name },
            crate::config::CONFIG_PATH
        ));
    };
    match tc.command(name) {
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
            resolve("test", d.path(), &cfg),
            Resolved::Detected(vec!["cargo".into(), "test".into()])
        );
        cfg.scripts.test = Some("make check".into());
        assert_eq!(
            resolve("test", d.path(), &cfg),
            Resolved::Configured("make check".into())
        );
    }

    #[test]
    fn no_toolchain_is_explained() {
        let d = tempfile::tempdir().unwrap();
        match resolve("lint", d.path(), &Config::default()) {
            Resolved::Unavailable(why) => assert!(why.contains("scripts.lint"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
