//! Tasks written out as a state is built, so the state holds none of them whole.
//!
//! A fresh import builds a state of as many tasks as the plan has, and held every
//! one whole until the snapshot was written: several times the plan's size in
//! memory. A [`Spill`] takes each
//! task as it is made and writes its record, as a snapshot would hold it
//! (`snapshot_file::write_record`), to a file of its own, keeping only what the task
//! index keeps of it: the state gets the tasks unread, each read from its record
//! when something looks at more of it (`state::task_ref`), and the snapshot copies
//! the records' bytes instead of serializing the tasks again (the [`Prior`] it
//! gives).
//!
//! The file is made unnamed (`O_TMPFILE`) in the workflow's directory: nothing is
//! left of it if the command stops, and nothing else can reach it to change it.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use crate::state::model::Task;
use crate::state::snapshot_file::{self, Prior};
use crate::state::task_index::{Entry, Span};
use crate::state::task_ref::{Record, Source, TaskRef};

/// Tasks written to an unnamed file as they come, kept as unread [`TaskRef`]s.
pub struct Spill {
    out: BufWriter<std::fs::File>,
    source: Arc<Source>,
    /// Where the next record starts.
    at: u64,
    tasks: Vec<TaskRef>,
    record: Vec<u8>,
}

impl Spill {
    /// A spill in `dir`, with room for `expected` tasks.
    pub fn create(dir: &Path, expected: usize) -> io::Result<Spill> {
        let file = tempfile::tempfile_in(dir)?;
        let source = Arc::new(Source {
            snapshot: None,
            file: file.try_clone()?,
        });
        Ok(Spill {
            out: BufWriter::with_capacity(64 * 1024, file),
            source,
            at: 0,
            tasks: Vec::with_capacity(expected),
            record: Vec::new(),
        })
    }

    /// Writes `task`'s record; the task joins the state's tasks at [`Spill::finish`].
    pub fn push(&mut self, task: &Task) -> io::Result<()> {
        self.record.clear();
        snapshot_file::write_record(&mut self.record, task)?;
        let span = Span::after(self.at, self.record.len() as u64);
        self.out.write_all(&self.record)?;
        self.at = span.bounds()[1];
        self.tasks.push(TaskRef::unread(Record {
            source: Arc::clone(&self.source),
            glance: Entry::of(task, span),
        }));
        Ok(())
    }

    /// The tasks pushed, in order, each unread, and the prior the next snapshot
    /// copies their records from (`Session::copy_records_from`).
    pub fn finish(self) -> io::Result<(Vec<TaskRef>, Prior)> {
        let file = self
            .out
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        let prior = Prior::spilled(file, self.source)?;
        Ok((self.tasks, prior))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::{Glance, WorkflowState};
    use crate::state::TaskStatus;

    fn task(i: usize) -> Task {
        Task {
            id: format!("T{i}"),
            name: format!("step {i} — ünïcode \"quoted\""),
            status: if i.is_multiple_of(3) {
                TaskStatus::Blocked
            } else {
                TaskStatus::Pending
            },
            deps: (i > 1).then(|| format!("T{}", i - 1)).into_iter().collect(),
            blocked_by: if i.is_multiple_of(3) {
                vec!["human".into()]
            } else {
                Vec::new()
            },
            verify: vec![format!("test -f out/{i}")],
            line: i * 4,
            ..Task::default()
        }
    }

    /// The snapshot of a state whose tasks were spilled is, byte for byte, the one
    /// of the same tasks held whole — its records copied, not one task read.
    #[test]
    fn a_spilled_state_writes_the_snapshot_of_its_tasks_without_reading_them() {
        let dir = tempfile::tempdir().unwrap();
        let tasks: Vec<Task> = (1..=300).map(task).collect();
        let mut spill = Spill::create(dir.path(), tasks.len()).unwrap();
        for t in &tasks {
            spill.push(t).unwrap();
        }
        let (spilled, prior) = spill.finish().unwrap();
        let mut whole = WorkflowState::new();
        whole.tasks = crate::state::model::shared(tasks.clone());
        let mut state = WorkflowState::new();
        state.tasks = spilled;
        assert!(state.tasks.iter().all(|t| !t.is_read()));
        assert_eq!(state.tasks[2].status(), TaskStatus::Blocked);
        assert_eq!(state.tasks[2].deps(), ["T2"]);

        let mut copied = Vec::new();
        let written = snapshot_file::write(&mut copied, &state, prior.copier()).unwrap();
        assert_eq!(written.copied, tasks.len());
        assert!(state.tasks.iter().all(|t| !t.is_read()));
        let mut serialized = Vec::new();
        snapshot_file::write(&mut serialized, &whole, None).unwrap();
        assert_eq!(
            String::from_utf8(copied).unwrap(),
            String::from_utf8(serialized).unwrap()
        );
        // Read when looked at whole: the task as pushed.
        for (spilled, t) in state.tasks.iter().zip(&tasks) {
            assert_eq!(spilled.task().unwrap(), t);
        }
    }

    /// A spilled task read whole still names its record and is copied; one changed
    /// is serialized: the snapshot is the one of the tasks as they are now.
    #[test]
    fn a_spilled_task_read_is_copied_and_one_changed_is_serialized() {
        let dir = tempfile::tempdir().unwrap();
        let mut tasks: Vec<Task> = (1..=50).map(task).collect();
        let mut spill = Spill::create(dir.path(), tasks.len()).unwrap();
        for t in &tasks {
            spill.push(t).unwrap();
        }
        let (spilled, prior) = spill.finish().unwrap();
        let mut state = WorkflowState::new();
        state.tasks = spilled;
        assert_eq!(state.tasks[3].task().unwrap().name, tasks[3].name);
        assert!(state.tasks[3].is_read());
        state.tasks[7].make_mut().unwrap().name = "changed".into();
        tasks[7].name = "changed".into();

        let mut copied = Vec::new();
        let written = snapshot_file::write(&mut copied, &state, prior.copier()).unwrap();
        assert_eq!(written.copied, tasks.len() - 1);
        let mut whole = WorkflowState::new();
        whole.tasks = crate::state::model::shared(tasks);
        let mut serialized = Vec::new();
        snapshot_file::write(&mut serialized, &whole, None).unwrap();
        assert_eq!(
            String::from_utf8(copied).unwrap(),
            String::from_utf8(serialized).unwrap()
        );
    }

    #[test]
    fn a_spill_leaves_no_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::create(dir.path(), 1).unwrap();
        spill.push(&task(1)).unwrap();
        let (tasks, _prior) = spill.finish().unwrap();
        assert_eq!(tasks[0].task().unwrap().name, task(1).name);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
