//! The `git_commit` action (docs/execution.md "Doing a task", step 5): a task's
//! work committed in the project, taking only what the task is answerable for.

use std::path::Path;

use crate::exec::process::Program;
use crate::run::work::{append_header, CheckRun, Verdict, WorkCtx};
use crate::state::event::Commit;
use crate::state::model::Task;

/// What `git_commit` stages: the files the task declares that are there, or with
/// none, only changes to what git already tracks (`add -u`) — never an untracked
/// build dropping or an ignored file the task did not name.
fn stage_args<'a>(ctx: &WorkCtx, task: &'a Task) -> Vec<&'a str> {
    let declared: Vec<&str> = crate::proof::fingerprint::declared_files(task)
        .into_iter()
        .filter(|f| crate::fs::lexically_inside(Path::new(f)).is_some())
        .filter(|f| ctx.project.join(f).symlink_metadata().is_ok())
        .collect();
    if declared.is_empty() {
        vec!["add", "-u"]
    } else {
        ["add", "-A", "--"].into_iter().chain(declared).collect()
    }
}

pub(crate) async fn git_commit(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    log: &Path,
    runs: &mut Vec<CheckRun>,
) -> Result<Commit, Verdict> {
    let git = |args: &[&str]| {
        Program::Argv(
            std::iter::once("git")
                .chain(args.iter().copied())
                .map(String::from)
                .collect(),
        )
    };
    ctx.run(
        task,
        attempt,
        "git_commit",
        git(&stage_args(ctx, task)),
        log,
        runs,
    )
    .await?;
    let staged = git(&["diff", "--cached", "--quiet"]);
    if ctx
        .run(task, attempt, "git_commit", staged, log, runs)
        .await
        .is_ok()
    {
        append_header(log, "(nothing staged: no commit made)");
        return Ok(Commit {
            hash: None,
            files: 0,
        });
    }
    let message = log.with_extension("commit-msg");
    let text = format!(
        "{}: {}\n\nCommitted by wf for task {}.\n",
        task.id, task.name, task.id
    );
    // Created anew, never through a link planted where it goes.
    let written = crate::fs::durable::replace_new(&message).and_then(|mut f| {
        std::io::Write::write_all(&mut f, text.as_bytes())
            .map_err(|e| crate::error::WfError::usage(e.to_string()))
    });
    if let Err(e) = written {
        return Err(Verdict::Failed {
            reason: format!("git_commit: cannot write the message file: {e}"),
        });
    }
    let msg = message.display().to_string();
    ctx.run(
        task,
        attempt,
        "git_commit",
        git(&["commit", "-F", &msg]),
        log,
        runs,
    )
    .await?;
    // What was committed, in the log and to the run: the short hash and how many
    // files.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let said = crate::exec::git::output(
        &ctx.project,
        &["show", "--name-only", "--format=%h", "HEAD"],
        &[],
        deadline,
        1 << 20,
    )
    .and_then(|out| String::from_utf8(out).ok())
    .map(|text| {
        let mut lines = text.lines().filter(|l| !l.is_empty());
        let hash = lines.next().unwrap_or("?").to_string();
        Commit {
            hash: Some(hash),
            files: lines.count(),
        }
    });
    if let Some(Commit {
        hash: Some(hash),
        files,
    }) = &said
    {
        append_header(
            log,
            &format!(
                "(committed {hash}: {files} file{})",
                if *files == 1 { "" } else { "s" }
            ),
        );
    }
    // Committed, though git could not say as what: the hash is a question mark.
    Ok(said.unwrap_or(Commit {
        hash: Some("?".into()),
        files: 0,
    }))
}
