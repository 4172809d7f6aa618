//! The paths a plan's tasks declare, anchored in the project (`plan::anchor`), and
//! the ones it left out, to be said after the import.

use std::path::{Path, PathBuf};

use crate::plan;
use crate::project::Project;
use crate::state::model::Task;

/// Where the plan is, to anchor the paths its tasks declare in the project
/// (`plan::anchor`), and the paths it left out.
pub(super) struct Anchor {
    /// The plan as the user named it, for a warning's `FILE:LINE:`.
    shown: String,
    /// Its folder relative to the project; none when it is outside the project.
    dir: Option<PathBuf>,
    pub(super) left_out: std::cell::RefCell<Vec<String>>,
}

impl Anchor {
    pub(super) fn of(project: &Project, plan: &Path) -> Anchor {
        let dir = plan
            .parent()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    d
                }
            })
            .and_then(|d| d.canonicalize().ok())
            .and_then(|d| d.strip_prefix(&project.dir).ok().map(Path::to_path_buf));
        Anchor {
            shown: plan.display().to_string(),
            dir,
            left_out: std::cell::RefCell::default(),
        }
    }

    /// Anchors `task`'s declared paths; one outside the project is left out, and
    /// said after the import.
    pub(super) fn task(&self, task: &mut Task) {
        for path in plan::anchor::anchor(task, self.dir.as_deref()) {
            self.left_out.borrow_mut().push(format!(
                "{}:{}: task {} names {}, which is outside the project: it is not one of the task's files (wf neither checks nor fingerprints it)",
                self.shown,
                task.line,
                crate::escape::one_line(&task.id),
                crate::escape::one_line(&path)
            ));
        }
    }
}
