
use builtin;
use str;

set edit:completion:arg-completer[wf] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'wf'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'wf'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init 'Set the project up: a starter tasks.md, the project config and the Claude Code hook settings. Never writes over a file: an existing plan or config is refused (--force replaces it, keeping a backup); existing settings get the hooks merged in'
            cand doctor 'Check the setup for what would break later: the config, the executors, the Claude Code hooks, the constraints'' verify commands, the state and the lock. Read-only; exits 1 when a check finds a problem'
            cand workflow-start 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow'
            cand start 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow'
            cand check 'Lint a plan without importing it: parse errors, plan warnings, audit findings and the tasks that would start blocked, as file:line: severity: message. Writes nothing'
            cand workflow-execute 'Run the next tasks and their verifiers, stopping where the mode says'
            cand execute 'Run the next tasks and their verifiers, stopping where the mode says'
            cand workflow-unblock 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)'
            cand unblock 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)'
            cand resume 'Continue a paused, interrupted, blocked or failed workflow'
            cand status 'Show where the workflow stands (read-only)'
            cand st 'Show where the workflow stands (read-only)'
            cand next 'Print the brief of the task to do next: the one in progress, else the first ready'
            cand list 'List every workflow under the home (WF_HOME): project, name, status, progress, last update — so a moved or re-cloned project can find its workflow'
            cand graph 'Draw the task graph as Mermaid or Graphviz DOT'
            cand events 'Print the event log (events.jsonl); --follow keeps printing new events'
            cand logs 'Print a task''s log: by default the task in progress, else the first failed one'
            cand report 'Print a CI report: JUnit XML, GitHub annotations or a GitHub job summary'
            cand archive 'Move a completed workflow into archive/<UTC time>/ so a new one can start'
            cand completions 'Print a shell completion script (see completions/ for installed copies)'
            cand resources 'Show the executors as a capability catalog: who can do what, and who is usable'
            cand man 'Print the man page as roff (man ./wf.1)'
            cand hook 'Claude Code hook: reads the hook JSON on stdin (SessionStart, UserPromptSubmit, Stop, SubagentStop). Never blocks the editor on its own errors'
            cand constraints 'The workflow''s constraints: add, list, remove, promote, merge model outputs, verify'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'wf;init'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --force 'Replace an existing tasks.md or project config (and settings that cannot be merged); each old file is kept as FILE.backup-<ms>'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;doctor'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;workflow-start'= {
            cand --name 'The workflow''s name (default: the plan''s title or file name)'
            cand --tech-design 'The technical design the plan refers to (counted in the context estimate)'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --force 'Apply a major change (a completed task changed or removed, or a different plan); the old state is kept as backup-<ms>.json first'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;start'= {
            cand --name 'The workflow''s name (default: the plan''s title or file name)'
            cand --tech-design 'The technical design the plan refers to (counted in the context estimate)'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --force 'Apply a major change (a completed task changed or removed, or a different plan); the old state is kept as backup-<ms>.json first'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;check'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --strict 'Exit 1 when there are warnings (errors always exit 2)'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;workflow-execute'= {
            cand --retry 'Retry the failed task (or TASK): back to pending, retry_counts + 1'
            cand --skip 'Skip the failed task (or TASK) and go on; needs --reason'
            cand --reason 'Why the task is skipped (kept in skipped_info)'
            cand -j 'Run up to N ready tasks side by side'
            cand --jobs 'Run up to N ready tasks side by side'
            cand --mock 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed'
            cand --junit 'Write a JUnit XML report (one testcase per task) to FILE'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --step 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)'
            cand --phase 'Mode: stop when the next task''s phase differs'
            cand --all 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)'
            cand --ci 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true'
            cand -k 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
            cand --keep-going 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
            cand --allow-audit-errors 'Start even though the plan''s zero-decision audit found errors'
            cand --allow-open-questions 'Start even though constraints.openQuestions is not empty'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;execute'= {
            cand --retry 'Retry the failed task (or TASK): back to pending, retry_counts + 1'
            cand --skip 'Skip the failed task (or TASK) and go on; needs --reason'
            cand --reason 'Why the task is skipped (kept in skipped_info)'
            cand -j 'Run up to N ready tasks side by side'
            cand --jobs 'Run up to N ready tasks side by side'
            cand --mock 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed'
            cand --junit 'Write a JUnit XML report (one testcase per task) to FILE'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --step 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)'
            cand --phase 'Mode: stop when the next task''s phase differs'
            cand --all 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)'
            cand --ci 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true'
            cand -k 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
            cand --keep-going 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
            cand --allow-audit-errors 'Start even though the plan''s zero-decision audit found errors'
            cand --allow-open-questions 'Start even though constraints.openQuestions is not empty'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;workflow-unblock'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;unblock'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;resume'= {
            cand --retry 'Retry the failed task (or TASK): back to pending, retry_counts + 1'
            cand --skip 'Skip the failed task (or TASK) and go on; needs --reason'
            cand --reason 'Why the task is skipped (kept in skipped_info)'
            cand -j 'Run up to N ready tasks side by side'
            cand --jobs 'Run up to N ready tasks side by side'
            cand --mock 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed'
            cand --junit 'Write a JUnit XML report (one testcase per task) to FILE'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --step 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)'
            cand --phase 'Mode: stop when the next task''s phase differs'
            cand --all 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)'
            cand --ci 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true'
            cand -k 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
            cand --keep-going 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
            cand --allow-audit-errors 'Start even though the plan''s zero-decision audit found errors'
            cand --allow-open-questions 'Start even though constraints.openQuestions is not empty'
            cand -y 'Without a workflow in this project: resume the first resumable one without asking'
            cand --yes 'Without a workflow in this project: resume the first resumable one without asking'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;status'= {
            cand --phase 'List only the tasks of this phase'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --detail 'Also show phases, constraints, audit findings and quality gates'
            cand --failed 'List only the failed tasks'
            cand --all 'List every task; without it a plan of more than 40 tasks lists those that need attention and the next ones to do'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;st'= {
            cand --phase 'List only the tasks of this phase'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --detail 'Also show phases, constraints, audit findings and quality gates'
            cand --failed 'List only the failed tasks'
            cand --all 'List every task; without it a plan of more than 40 tasks lists those that need attention and the next ones to do'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;next'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;list'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;graph'= {
            cand --format 'The picture''s language'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'wf;events'= {
            cand --task 'Only the events of this task'
            cand --type 'Only events of this type (e.g. task.status_changed; see docs/events.md)'
            cand -n 'Only the last N of the events already written (then --follow goes on)'
            cand --last 'Only the last N of the events already written (then --follow goes on)'
            cand --since 'Only events at or after WHEN: a time (2026-11-25T10:00:00Z) or an age (30s, 15m, 2h, 3d)'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand -f 'Keep printing new events as they are written, until interrupted'
            cand --follow 'Keep printing new events as they are written, until interrupted'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;logs'= {
            cand --attempt 'Which attempt (default: the last)'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --path 'Print the log''s absolute path instead of its text'
            cand -f 'Keep printing what the attempt writes until it ends (or Ctrl-C)'
            cand --follow 'Keep printing what the attempt writes until it ends (or Ctrl-C)'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;report'= {
            cand -o 'Write the report to FILE instead of stdout'
            cand --output 'Write the report to FILE instead of stdout'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'wf;archive'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;completions'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;resources'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;man'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;hook'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;constraints'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
            cand add 'Add a hard (default) or soft constraint; prints its new id'
            cand list 'List the constraints, open questions and success criteria (read-only)'
            cand remove 'Remove a constraint (and its verification record)'
            cand promote 'Make a soft constraint hard: from now on it must hold'
            cand merge 'Merge constraint-set JSON files (one model''s analysis output each) into the workflow''s constraints; reports what the caps left out'
            cand verify 'Run hard constraints'' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'wf;constraints;add'= {
            cand --category 'The category (default: detected from the description)'
            cand --source 'Who stated it'
            cand --phase 'When it was stated'
            cand --verify-cmd 'The command that proves it: a builtin verifier (ts_typecheck, lint, test, build) or a command starting with an allowed prefix (wf.allowed_command_prefixes)'
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --soft 'A soft constraint: should hold, is not verified'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;constraints;list'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;constraints;remove'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;constraints;promote'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;constraints;merge'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;constraints;verify'= {
            cand -C 'The project directory (default: the git top level, else the current directory)'
            cand --project 'The project directory (default: the git top level, else the current directory)'
            cand --color 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all'
            cand --wait 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing'
            cand --json 'Print machine-readable JSON on stdout (errors too)'
            cand -q 'Print only errors'
            cand --quiet 'Print only errors'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'wf;constraints;help'= {
            cand add 'Add a hard (default) or soft constraint; prints its new id'
            cand list 'List the constraints, open questions and success criteria (read-only)'
            cand remove 'Remove a constraint (and its verification record)'
            cand promote 'Make a soft constraint hard: from now on it must hold'
            cand merge 'Merge constraint-set JSON files (one model''s analysis output each) into the workflow''s constraints; reports what the caps left out'
            cand verify 'Run hard constraints'' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'wf;constraints;help;add'= {
        }
        &'wf;constraints;help;list'= {
        }
        &'wf;constraints;help;remove'= {
        }
        &'wf;constraints;help;promote'= {
        }
        &'wf;constraints;help;merge'= {
        }
        &'wf;constraints;help;verify'= {
        }
        &'wf;constraints;help;help'= {
        }
        &'wf;help'= {
            cand init 'Set the project up: a starter tasks.md, the project config and the Claude Code hook settings. Never writes over a file: an existing plan or config is refused (--force replaces it, keeping a backup); existing settings get the hooks merged in'
            cand doctor 'Check the setup for what would break later: the config, the executors, the Claude Code hooks, the constraints'' verify commands, the state and the lock. Read-only; exits 1 when a check finds a problem'
            cand workflow-start 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow'
            cand check 'Lint a plan without importing it: parse errors, plan warnings, audit findings and the tasks that would start blocked, as file:line: severity: message. Writes nothing'
            cand workflow-execute 'Run the next tasks and their verifiers, stopping where the mode says'
            cand workflow-unblock 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)'
            cand resume 'Continue a paused, interrupted, blocked or failed workflow'
            cand status 'Show where the workflow stands (read-only)'
            cand next 'Print the brief of the task to do next: the one in progress, else the first ready'
            cand list 'List every workflow under the home (WF_HOME): project, name, status, progress, last update — so a moved or re-cloned project can find its workflow'
            cand graph 'Draw the task graph as Mermaid or Graphviz DOT'
            cand events 'Print the event log (events.jsonl); --follow keeps printing new events'
            cand logs 'Print a task''s log: by default the task in progress, else the first failed one'
            cand report 'Print a CI report: JUnit XML, GitHub annotations or a GitHub job summary'
            cand archive 'Move a completed workflow into archive/<UTC time>/ so a new one can start'
            cand completions 'Print a shell completion script (see completions/ for installed copies)'
            cand resources 'Show the executors as a capability catalog: who can do what, and who is usable'
            cand man 'Print the man page as roff (man ./wf.1)'
            cand hook 'Claude Code hook: reads the hook JSON on stdin (SessionStart, UserPromptSubmit, Stop, SubagentStop). Never blocks the editor on its own errors'
            cand constraints 'The workflow''s constraints: add, list, remove, promote, merge model outputs, verify'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'wf;help;init'= {
        }
        &'wf;help;doctor'= {
        }
        &'wf;help;workflow-start'= {
        }
        &'wf;help;check'= {
        }
        &'wf;help;workflow-execute'= {
        }
        &'wf;help;workflow-unblock'= {
        }
        &'wf;help;resume'= {
        }
        &'wf;help;status'= {
        }
        &'wf;help;next'= {
        }
        &'wf;help;list'= {
        }
        &'wf;help;graph'= {
        }
        &'wf;help;events'= {
        }
        &'wf;help;logs'= {
        }
        &'wf;help;report'= {
        }
        &'wf;help;archive'= {
        }
        &'wf;help;completions'= {
        }
        &'wf;help;resources'= {
        }
        &'wf;help;man'= {
        }
        &'wf;help;hook'= {
        }
        &'wf;help;constraints'= {
            cand add 'Add a hard (default) or soft constraint; prints its new id'
            cand list 'List the constraints, open questions and success criteria (read-only)'
            cand remove 'Remove a constraint (and its verification record)'
            cand promote 'Make a soft constraint hard: from now on it must hold'
            cand merge 'Merge constraint-set JSON files (one model''s analysis output each) into the workflow''s constraints; reports what the caps left out'
            cand verify 'Run hard constraints'' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails'
        }
        &'wf;help;constraints;add'= {
        }
        &'wf;help;constraints;list'= {
        }
        &'wf;help;constraints;remove'= {
        }
        &'wf;help;constraints;promote'= {
        }
        &'wf;help;constraints;merge'= {
        }
        &'wf;help;constraints;verify'= {
        }
        &'wf;help;help'= {
        }
    ]
    $completions[$command]
}
