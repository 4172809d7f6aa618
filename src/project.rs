//! Which project `wf` acts on, its id, and where its workflow lives.
//!
//! docs/state-file.md "Where it lives": the project is `-C DIR`, else the git top level, else the current
//! directory; its id is `project.id` from the config or the first 12 hex digits of the
//! MD5 of its canonical path (as the plugin computes it, so both find the same state);
//! the workflow dir is `<home>/<id>/` with home `$WF_HOME` or `~/.claude/workflows`.

use crate::state::model::Glance;
use std::path::{Path, PathBuf};

use md5::{Digest, Md5};

use crate::config::Config;
use crate::error::{Result, WfError};
use crate::state::store::PlanAccess;
use crate::state::{Store, WorkflowStatus};

pub struct Project {
    pub dir: PathBuf,
    pub id: String,
    pub name: String,
    pub config: Config,
    pub home: PathBuf,
}

impl Project {
    pub fn discover(explicit: Option<&Path>) -> Result<Project> {
        let dir = Project::locate(explicit)?;
        let config = Config::load(&dir)?;
        Project::at(dir, config)
    }

    /// The project's directory, canonical, without reading its config: `-C DIR`,
    /// else the current directory, then up to its git top level (as `git -C DIR`
    /// finds a repository from inside it). For the commands that must work when the
    /// config is broken (`wf init`, `wf doctor`) too.
    pub fn locate(explicit: Option<&Path>) -> Result<PathBuf> {
        let start = if let Some(d) = explicit {
            d.to_path_buf()
        } else {
            std::env::current_dir()
                .map_err(|e| WfError::io(&e, format!("cannot read the current directory: {e}")))?
        };
        let start = Project::directory(&start)?;
        Ok(git_top_level(&start).unwrap_or(start))
    }

    /// `dir` canonical, or why it is no directory to work in (`-C DIR`).
    pub fn directory(dir: &Path) -> Result<PathBuf> {
        let canonical = dir
            .canonicalize()
            .map_err(|e| WfError::io(&e, format!("project directory {}: {e}", dir.display())))?;
        if !canonical.is_dir() {
            return Err(WfError::usage(format!(
                "{} is not a directory; -C takes the project's directory",
                canonical.display()
            )));
        }
        Ok(canonical)
    }

    /// The project in `dir` (from [`Project::locate`]) with its config read.
    pub fn at(dir: PathBuf, config: Config) -> Result<Project> {
        let id = match &config.project.id {
            Some(id) => {
                validate_id(id).map_err(|why| {
                    WfError::usage(format!(
                        "{}: project.id {id:?} {why}; use 1 to 64 letters, digits, '_' or '-'",
                        config.display_path()
                    ))
                })?;
                id.clone()
            }
            None => path_id(&dir),
        };
        let name = config.project.name.clone().unwrap_or_else(|| {
            dir.file_name()
                .map_or_else(|| "project".into(), |n| n.to_string_lossy().into_owned())
        });
        Ok(Project {
            dir,
            id,
            name,
            config,
            home: workflow_home()?,
        })
    }

    pub fn store(&self) -> Store {
        self.store_with(crate::plan::STORE_ACCESS)
    }

    /// The store of this project's workflow, reading and writing its plan through
    /// `plan` (completion reads the state without ever parsing a plan).
    pub fn store_with(&self, plan: PlanAccess) -> Store {
        Store::for_project(self.home.join(&self.id), &self.dir, plan)
    }

    /// No workflow was started here: a usage error that says how to start one, the
    /// same from every command that needs one (and from `wf mcp`'s tools).
    pub fn no_workflow(&self) -> WfError {
        WfError::usage(format!(
            "no workflow for {} (id {}); start one with `wf workflow-start PLAN.md`",
            self.dir.display(),
            self.id
        ))
    }
}

/// A workflow under the home, as `wf list` and `wf resume` find it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Listed {
    /// Its directory's name under the home: the project id.
    pub id: String,
    /// The project it belongs to, from `project-meta.json` (absent for a workflow the
    /// plugin wrote).
    pub project: Option<PathBuf>,
    /// Whether that project directory is still there (a moved or deleted project
    /// leaves its workflow behind).
    pub project_exists: bool,
    pub name: String,
    /// None when the state cannot be read; `problem` says why.
    pub status: Option<WorkflowStatus>,
    pub done: usize,
    pub total: usize,
    pub updated_at: String,
    /// The state's `priority` (the plugin's field), for `wf resume`'s order.
    pub priority: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Every workflow under `home`, most recently updated first. Read-only: no lock is
/// taken and nothing is written, so a listing never waits for a run or disturbs it.
pub fn workflows(home: &Path) -> Vec<Listed> {
    let Ok(entries) = std::fs::read_dir(home) else {
        return Vec::new();
    };
    let mut found: Vec<Listed> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|entry| listed(&entry.path()))
        .collect();
    found.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.id.cmp(&b.id)));
    found
}

/// Every archived workflow under `home` (`<id>/archive/<UTC time>/`, as `wf archive`
/// leaves it), most recently archived first; its id is that path.
pub fn archived_workflows(home: &Path) -> Vec<Listed> {
    let dirs = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut found: Vec<Listed> = Vec::new();
    for project in dirs(home) {
        for archive in dirs(&project.join("archive")) {
            if let (Some(mut w), Ok(rel)) = (listed(&archive), archive.strip_prefix(home)) {
                w.id = rel.to_string_lossy().into_owned();
                found.push(w);
            }
        }
    }
    found.sort_by(|a, b| b.id.rsplit('/').next().cmp(&a.id.rsplit('/').next()));
    found
}

/// The workflow in `dir`, or none when `dir` holds no state.
fn listed(dir: &Path) -> Option<Listed> {
    let id = dir.file_name()?.to_string_lossy().into_owned();
    let project = std::fs::read_to_string(dir.join("project-meta.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|m| m.get("project_path")?.as_str().map(PathBuf::from));
    let project_exists = project.as_deref().is_some_and(Path::is_dir);
    let store = Store::new(dir.to_path_buf(), crate::plan::STORE_ACCESS);
    let blank = Listed {
        id,
        project,
        project_exists,
        name: String::new(),
        status: None,
        done: 0,
        total: 0,
        updated_at: String::new(),
        priority: 0,
        problem: None,
    };
    match store.load() {
        Ok(None) => None,
        Ok(Some(state)) => Some(Listed {
            name: state
                .task_name
                .clone()
                .unwrap_or_else(|| state.project_name.clone()),
            status: Some(state.status),
            done: state.tasks.iter().filter(|t| t.status().is_done()).count(),
            total: state.tasks.len(),
            updated_at: state.updated_at.clone(),
            priority: state
                .extra
                .get("priority")
                .and_then(serde_json::Value::as_i64)
                .unwrap_or(0),
            ..blank
        }),
        Err(e) => Some(Listed {
            problem: Some(crate::error::one_line(&e.message)),
            ..blank
        }),
    }
}

/// The first 12 hex digits of the MD5 of the path's text.
pub fn path_id(dir: &Path) -> String {
    let digest = Md5::digest(dir.to_string_lossy().as_bytes());
    digest.iter().take(6).fold(String::new(), |mut id, b| {
        id.push_str(&format!("{b:02x}"));
        id
    })
}

/// `^[A-Za-z0-9_-]{1,64}$`: safe as one path component, whatever else it is.
pub fn validate_id(id: &str) -> std::result::Result<(), &'static str> {
    if id.is_empty() {
        return Err("is empty");
    }
    if id.len() > 64 {
        return Err("is longer than 64 characters");
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err("has characters other than letters, digits, '_' and '-'");
    }
    Ok(())
}

pub fn workflow_home() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("WF_HOME") {
        let home = PathBuf::from(home);
        if !home.is_absolute() {
            return Err(WfError::usage(format!(
                "WF_HOME is {:?}, a relative path; set it to an absolute directory",
                home.display()
            )));
        }
        return Ok(home);
    }
    let base = directories::BaseDirs::new().ok_or_else(|| {
        WfError::usage("cannot find your home directory (HOME is unset); set HOME or WF_HOME")
    })?;
    Ok(base.home_dir().join(".claude").join("workflows"))
}

/// The nearest ancestor holding `.git` (a directory, or a file for worktrees).
fn git_top_level(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_id_is_md5_prefix() {
        // `printf /tmp/x | md5sum` = 7ae3976faedb45a92335f73e4d7bb9e5
        assert_eq!(path_id(Path::new("/tmp/x")), "7ae3976faedb");
    }

    #[test]
    fn ids_that_could_escape_are_refused() {
        assert!(validate_id("../x").is_err());
        assert!(validate_id("").is_err());
        assert!(validate_id(&"a".repeat(65)).is_err());
        assert!(validate_id("a/b").is_err());
        assert!(validate_id(&"a".repeat(64)).is_ok());
        assert!(validate_id("my-project_2").is_ok());
    }
}
