# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_wf_global_optspecs
    string join \n C/project= json color= q/quiet wait= h/help V/version
end

function __fish_wf_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_wf_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_wf_using_subcommand
    set -l cmd (__fish_wf_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c wf -n "__fish_wf_needs_command" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_needs_command" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_needs_command" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_needs_command" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_needs_command" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_needs_command" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_needs_command" -s V -l version -d 'Print version'
complete -c wf -n "__fish_wf_needs_command" -f -a "init" -d 'Set the project up: a starter tasks.md, the project config and the Claude Code hook settings. Never writes over a file: an existing plan or config is refused (--force replaces it, keeping a backup); existing settings get the hooks merged in'
complete -c wf -n "__fish_wf_needs_command" -f -a "doctor" -d 'Check the setup for what would break later: the config, the executors, the Claude Code hooks, the constraints\' verify commands, the state and the lock. Read-only; exits 1 when a check finds a problem'
complete -c wf -n "__fish_wf_needs_command" -f -a "workflow-start" -d 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow'
complete -c wf -n "__fish_wf_needs_command" -f -a "start" -d 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow'
complete -c wf -n "__fish_wf_needs_command" -f -a "check" -d 'Lint a plan without importing it: parse errors, plan warnings, audit findings and the tasks that would start blocked, as file:line: severity: message. Writes nothing'
complete -c wf -n "__fish_wf_needs_command" -f -a "workflow-execute" -d 'Run the next tasks and their verifiers, stopping where the mode says'
complete -c wf -n "__fish_wf_needs_command" -f -a "execute" -d 'Run the next tasks and their verifiers, stopping where the mode says'
complete -c wf -n "__fish_wf_needs_command" -f -a "workflow-unblock" -d 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)'
complete -c wf -n "__fish_wf_needs_command" -f -a "unblock" -d 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)'
complete -c wf -n "__fish_wf_needs_command" -f -a "resume" -d 'Continue a paused, interrupted, blocked or failed workflow'
complete -c wf -n "__fish_wf_needs_command" -f -a "status" -d 'Show where the workflow stands (read-only)'
complete -c wf -n "__fish_wf_needs_command" -f -a "st" -d 'Show where the workflow stands (read-only)'
complete -c wf -n "__fish_wf_needs_command" -f -a "next" -d 'Print the brief of the task to do next: the one in progress, else the first ready'
complete -c wf -n "__fish_wf_needs_command" -f -a "list" -d 'List every workflow under the home (WF_HOME): project, name, status, progress, last update — so a moved or re-cloned project can find its workflow'
complete -c wf -n "__fish_wf_needs_command" -f -a "graph" -d 'Draw the task graph as Mermaid or Graphviz DOT'
complete -c wf -n "__fish_wf_needs_command" -f -a "events" -d 'Print the event log (events.jsonl); --follow keeps printing new events'
complete -c wf -n "__fish_wf_needs_command" -f -a "logs" -d 'Print a task\'s log: by default the task in progress, else the first failed one'
complete -c wf -n "__fish_wf_needs_command" -f -a "report" -d 'Print a CI report: JUnit XML, GitHub annotations or a GitHub job summary'
complete -c wf -n "__fish_wf_needs_command" -f -a "archive" -d 'Move a completed workflow into archive/<UTC time>/ so a new one can start'
complete -c wf -n "__fish_wf_needs_command" -f -a "completions" -d 'Print a shell completion script (see completions/ for installed copies)'
complete -c wf -n "__fish_wf_needs_command" -f -a "resources" -d 'Show the executors as a capability catalog: who can do what, and who is usable'
complete -c wf -n "__fish_wf_needs_command" -f -a "man" -d 'Print the man page as roff (man ./wf.1)'
complete -c wf -n "__fish_wf_needs_command" -f -a "hook" -d 'Claude Code hook: reads the hook JSON on stdin (SessionStart, UserPromptSubmit, Stop, SubagentStop). Never blocks the editor on its own errors'
complete -c wf -n "__fish_wf_needs_command" -f -a "constraints" -d 'The workflow\'s constraints: add, list, remove, promote, merge model outputs, verify'
complete -c wf -n "__fish_wf_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c wf -n "__fish_wf_using_subcommand init" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand init" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand init" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand init" -l force -d 'Replace an existing tasks.md or project config (and settings that cannot be merged); each old file is kept as FILE.backup-<ms>'
complete -c wf -n "__fish_wf_using_subcommand init" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand init" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand init" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand doctor" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand doctor" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand doctor" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand doctor" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand doctor" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -l name -d 'The workflow\'s name (default: the plan\'s title or file name)' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -l tech-design -d 'The technical design the plan refers to (counted in the context estimate)' -r -F
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -l force -d 'Apply a major change (a completed task changed or removed, or a different plan); the old state is kept as backup-<ms>.json first'
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand workflow-start" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand start" -l name -d 'The workflow\'s name (default: the plan\'s title or file name)' -r
complete -c wf -n "__fish_wf_using_subcommand start" -l tech-design -d 'The technical design the plan refers to (counted in the context estimate)' -r -F
complete -c wf -n "__fish_wf_using_subcommand start" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand start" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand start" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand start" -l force -d 'Apply a major change (a completed task changed or removed, or a different plan); the old state is kept as backup-<ms>.json first'
complete -c wf -n "__fish_wf_using_subcommand start" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand start" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand start" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand check" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand check" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand check" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand check" -l strict -d 'Exit 1 when there are warnings (errors always exit 2)'
complete -c wf -n "__fish_wf_using_subcommand check" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand check" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand check" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l retry -d 'Retry the failed task (or TASK): back to pending, retry_counts + 1' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l skip -d 'Skip the failed task (or TASK) and go on; needs --reason' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l reason -d 'Why the task is skipped (kept in skipped_info)' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -s j -l jobs -d 'Run up to N ready tasks side by side' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l mock -d 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l junit -d 'Write a JUnit XML report (one testcase per task) to FILE' -r -F
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l step -d 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l phase -d 'Mode: stop when the next task\'s phase differs'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l all -d 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l ci -d 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -s k -l keep-going -d 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l allow-audit-errors -d 'Start even though the plan\'s zero-decision audit found errors'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l allow-open-questions -d 'Start even though constraints.openQuestions is not empty'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand workflow-execute" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand execute" -l retry -d 'Retry the failed task (or TASK): back to pending, retry_counts + 1' -r
complete -c wf -n "__fish_wf_using_subcommand execute" -l skip -d 'Skip the failed task (or TASK) and go on; needs --reason' -r
complete -c wf -n "__fish_wf_using_subcommand execute" -l reason -d 'Why the task is skipped (kept in skipped_info)' -r
complete -c wf -n "__fish_wf_using_subcommand execute" -s j -l jobs -d 'Run up to N ready tasks side by side' -r
complete -c wf -n "__fish_wf_using_subcommand execute" -l mock -d 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed' -r
complete -c wf -n "__fish_wf_using_subcommand execute" -l junit -d 'Write a JUnit XML report (one testcase per task) to FILE' -r -F
complete -c wf -n "__fish_wf_using_subcommand execute" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand execute" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand execute" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand execute" -l step -d 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)'
complete -c wf -n "__fish_wf_using_subcommand execute" -l phase -d 'Mode: stop when the next task\'s phase differs'
complete -c wf -n "__fish_wf_using_subcommand execute" -l all -d 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)'
complete -c wf -n "__fish_wf_using_subcommand execute" -l ci -d 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true'
complete -c wf -n "__fish_wf_using_subcommand execute" -s k -l keep-going -d 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
complete -c wf -n "__fish_wf_using_subcommand execute" -l allow-audit-errors -d 'Start even though the plan\'s zero-decision audit found errors'
complete -c wf -n "__fish_wf_using_subcommand execute" -l allow-open-questions -d 'Start even though constraints.openQuestions is not empty'
complete -c wf -n "__fish_wf_using_subcommand execute" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand execute" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand execute" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand workflow-unblock" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand workflow-unblock" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand workflow-unblock" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand workflow-unblock" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand workflow-unblock" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand workflow-unblock" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand unblock" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand unblock" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand unblock" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand unblock" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand unblock" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand unblock" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand resume" -l retry -d 'Retry the failed task (or TASK): back to pending, retry_counts + 1' -r
complete -c wf -n "__fish_wf_using_subcommand resume" -l skip -d 'Skip the failed task (or TASK) and go on; needs --reason' -r
complete -c wf -n "__fish_wf_using_subcommand resume" -l reason -d 'Why the task is skipped (kept in skipped_info)' -r
complete -c wf -n "__fish_wf_using_subcommand resume" -s j -l jobs -d 'Run up to N ready tasks side by side' -r
complete -c wf -n "__fish_wf_using_subcommand resume" -l mock -d 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed' -r
complete -c wf -n "__fish_wf_using_subcommand resume" -l junit -d 'Write a JUnit XML report (one testcase per task) to FILE' -r -F
complete -c wf -n "__fish_wf_using_subcommand resume" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand resume" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand resume" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand resume" -l step -d 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)'
complete -c wf -n "__fish_wf_using_subcommand resume" -l phase -d 'Mode: stop when the next task\'s phase differs'
complete -c wf -n "__fish_wf_using_subcommand resume" -l all -d 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)'
complete -c wf -n "__fish_wf_using_subcommand resume" -l ci -d 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true'
complete -c wf -n "__fish_wf_using_subcommand resume" -s k -l keep-going -d 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them'
complete -c wf -n "__fish_wf_using_subcommand resume" -l allow-audit-errors -d 'Start even though the plan\'s zero-decision audit found errors'
complete -c wf -n "__fish_wf_using_subcommand resume" -l allow-open-questions -d 'Start even though constraints.openQuestions is not empty'
complete -c wf -n "__fish_wf_using_subcommand resume" -s y -l yes -d 'Without a workflow in this project: resume the first resumable one without asking'
complete -c wf -n "__fish_wf_using_subcommand resume" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand resume" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand resume" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand status" -l phase -d 'List only the tasks of this phase' -r
complete -c wf -n "__fish_wf_using_subcommand status" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand status" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand status" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand status" -l detail -d 'Also show phases, constraints, audit findings and quality gates'
complete -c wf -n "__fish_wf_using_subcommand status" -l failed -d 'List only the failed tasks'
complete -c wf -n "__fish_wf_using_subcommand status" -l all -d 'List every task; without it a plan of more than 40 tasks lists those that need attention and the next ones to do'
complete -c wf -n "__fish_wf_using_subcommand status" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand status" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand status" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand st" -l phase -d 'List only the tasks of this phase' -r
complete -c wf -n "__fish_wf_using_subcommand st" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand st" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand st" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand st" -l detail -d 'Also show phases, constraints, audit findings and quality gates'
complete -c wf -n "__fish_wf_using_subcommand st" -l failed -d 'List only the failed tasks'
complete -c wf -n "__fish_wf_using_subcommand st" -l all -d 'List every task; without it a plan of more than 40 tasks lists those that need attention and the next ones to do'
complete -c wf -n "__fish_wf_using_subcommand st" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand st" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand st" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand next" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand next" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand next" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand next" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand next" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand next" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand list" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand list" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand list" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand list" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand list" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand list" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand graph" -l format -d 'The picture\'s language' -r -f -a "mermaid\t'A Mermaid flowchart (renders in GitHub Markdown)'
dot\t'Graphviz DOT (`wf graph --format dot | dot -Tsvg`)'"
complete -c wf -n "__fish_wf_using_subcommand graph" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand graph" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand graph" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand graph" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand graph" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand graph" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wf -n "__fish_wf_using_subcommand events" -l task -d 'Only the events of this task' -r
complete -c wf -n "__fish_wf_using_subcommand events" -l type -d 'Only events of this type (e.g. task.status_changed; see docs/events.md)' -r
complete -c wf -n "__fish_wf_using_subcommand events" -s n -l last -d 'Only the last N of the events already written (then --follow goes on)' -r
complete -c wf -n "__fish_wf_using_subcommand events" -l since -d 'Only events at or after WHEN: a time (2026-11-25T10:00:00Z) or an age (30s, 15m, 2h, 3d)' -r
complete -c wf -n "__fish_wf_using_subcommand events" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand events" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand events" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand events" -s f -l follow -d 'Keep printing new events as they are written, until interrupted'
complete -c wf -n "__fish_wf_using_subcommand events" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand events" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand events" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand logs" -l attempt -d 'Which attempt (default: the last)' -r
complete -c wf -n "__fish_wf_using_subcommand logs" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand logs" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand logs" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand logs" -l path -d 'Print the log\'s absolute path instead of its text'
complete -c wf -n "__fish_wf_using_subcommand logs" -s f -l follow -d 'Keep printing what the attempt writes until it ends (or Ctrl-C)'
complete -c wf -n "__fish_wf_using_subcommand logs" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand logs" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand logs" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand report" -s o -l output -d 'Write the report to FILE instead of stdout' -r -F
complete -c wf -n "__fish_wf_using_subcommand report" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand report" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand report" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand report" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand report" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c wf -n "__fish_wf_using_subcommand archive" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand archive" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand archive" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand archive" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand archive" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand archive" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand completions" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand completions" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand completions" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand completions" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand completions" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand completions" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand resources" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand resources" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand resources" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand resources" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand resources" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand resources" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand man" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand man" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand man" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand man" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand man" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand man" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand hook" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand hook" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand hook" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand hook" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand hook" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand hook" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -f -a "add" -d 'Add a hard (default) or soft constraint; prints its new id'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -f -a "list" -d 'List the constraints, open questions and success criteria (read-only)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -f -a "remove" -d 'Remove a constraint (and its verification record)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -f -a "promote" -d 'Make a soft constraint hard: from now on it must hold'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -f -a "merge" -d 'Merge constraint-set JSON files (one model\'s analysis output each) into the workflow\'s constraints; reports what the caps left out'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -f -a "verify" -d 'Run hard constraints\' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails'
complete -c wf -n "__fish_wf_using_subcommand constraints; and not __fish_seen_subcommand_from add list remove promote merge verify help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -l category -d 'The category (default: detected from the description)' -r -f -a "requirement\t''
interface\t''
data\t''
error\t''
security\t''
performance\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -l source -d 'Who stated it' -r -f -a "codex\t''
gemini\t''
claude\t''
user\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -l phase -d 'When it was stated' -r -f -a "analysis\t''
review\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -l verify-cmd -d 'The command that proves it: a builtin verifier (ts_typecheck, lint, test, build) or a command starting with an allowed prefix (wf.allowed_command_prefixes)' -r
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -l soft -d 'A soft constraint: should hold, is not verified'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from list" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from list" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from list" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from list" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from remove" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from remove" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from remove" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from remove" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from remove" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from promote" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from promote" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from promote" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from promote" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from promote" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from promote" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from merge" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from merge" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from merge" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from merge" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from merge" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from verify" -s C -l project -d 'The project directory (default: the git top level, else the current directory)' -r -F
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from verify" -l color -d 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all' -r -f -a "auto\t''
always\t''
never\t''"
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from verify" -l wait -d 'If another wf holds the workflow\'s lock, wait for it (default 600 s) instead of failing' -r
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from verify" -l json -d 'Print machine-readable JSON on stdout (errors too)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from verify" -s q -l quiet -d 'Print only errors'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a hard (default) or soft constraint; prints its new id'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the constraints, open questions and success criteria (read-only)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove a constraint (and its verification record)'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from help" -f -a "promote" -d 'Make a soft constraint hard: from now on it must hold'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Merge constraint-set JSON files (one model\'s analysis output each) into the workflow\'s constraints; reports what the caps left out'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Run hard constraints\' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails'
complete -c wf -n "__fish_wf_using_subcommand constraints; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "init" -d 'Set the project up: a starter tasks.md, the project config and the Claude Code hook settings. Never writes over a file: an existing plan or config is refused (--force replaces it, keeping a backup); existing settings get the hooks merged in'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "doctor" -d 'Check the setup for what would break later: the config, the executors, the Claude Code hooks, the constraints\' verify commands, the state and the lock. Read-only; exits 1 when a check finds a problem'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "workflow-start" -d 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "check" -d 'Lint a plan without importing it: parse errors, plan warnings, audit findings and the tasks that would start blocked, as file:line: severity: message. Writes nothing'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "workflow-execute" -d 'Run the next tasks and their verifiers, stopping where the mode says'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "workflow-unblock" -d 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "resume" -d 'Continue a paused, interrupted, blocked or failed workflow'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "status" -d 'Show where the workflow stands (read-only)'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "next" -d 'Print the brief of the task to do next: the one in progress, else the first ready'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "list" -d 'List every workflow under the home (WF_HOME): project, name, status, progress, last update — so a moved or re-cloned project can find its workflow'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "graph" -d 'Draw the task graph as Mermaid or Graphviz DOT'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "events" -d 'Print the event log (events.jsonl); --follow keeps printing new events'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "logs" -d 'Print a task\'s log: by default the task in progress, else the first failed one'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "report" -d 'Print a CI report: JUnit XML, GitHub annotations or a GitHub job summary'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "archive" -d 'Move a completed workflow into archive/<UTC time>/ so a new one can start'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "completions" -d 'Print a shell completion script (see completions/ for installed copies)'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "resources" -d 'Show the executors as a capability catalog: who can do what, and who is usable'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "man" -d 'Print the man page as roff (man ./wf.1)'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "hook" -d 'Claude Code hook: reads the hook JSON on stdin (SessionStart, UserPromptSubmit, Stop, SubagentStop). Never blocks the editor on its own errors'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "constraints" -d 'The workflow\'s constraints: add, list, remove, promote, merge model outputs, verify'
complete -c wf -n "__fish_wf_using_subcommand help; and not __fish_seen_subcommand_from init doctor workflow-start check workflow-execute workflow-unblock resume status next list graph events logs report archive completions resources man hook constraints help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c wf -n "__fish_wf_using_subcommand help; and __fish_seen_subcommand_from constraints" -f -a "add" -d 'Add a hard (default) or soft constraint; prints its new id'
complete -c wf -n "__fish_wf_using_subcommand help; and __fish_seen_subcommand_from constraints" -f -a "list" -d 'List the constraints, open questions and success criteria (read-only)'
complete -c wf -n "__fish_wf_using_subcommand help; and __fish_seen_subcommand_from constraints" -f -a "remove" -d 'Remove a constraint (and its verification record)'
complete -c wf -n "__fish_wf_using_subcommand help; and __fish_seen_subcommand_from constraints" -f -a "promote" -d 'Make a soft constraint hard: from now on it must hold'
complete -c wf -n "__fish_wf_using_subcommand help; and __fish_seen_subcommand_from constraints" -f -a "merge" -d 'Merge constraint-set JSON files (one model\'s analysis output each) into the workflow\'s constraints; reports what the caps left out'
complete -c wf -n "__fish_wf_using_subcommand help; and __fish_seen_subcommand_from constraints" -f -a "verify" -d 'Run hard constraints\' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails'
