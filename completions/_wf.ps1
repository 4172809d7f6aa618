
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'wf' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'wf'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'wf' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Set the project up: a starter tasks.md, the project config and the Claude Code hook settings. Never writes over a file: an existing plan or config is refused (--force replaces it, keeping a backup); existing settings get the hooks merged in')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the setup for what would break later: the config, the executors, the Claude Code hooks, the constraints'' verify commands, the state and the lock. Read-only; exits 1 when a check finds a problem')
            [CompletionResult]::new('workflow-start', 'workflow-start', [CompletionResultType]::ParameterValue, 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Lint a plan without importing it: parse errors, plan warnings, audit findings and the tasks that would start blocked, as file:line: severity: message. Writes nothing')
            [CompletionResult]::new('workflow-execute', 'workflow-execute', [CompletionResultType]::ParameterValue, 'Run the next tasks and their verifiers, stopping where the mode says')
            [CompletionResult]::new('execute', 'execute', [CompletionResultType]::ParameterValue, 'Run the next tasks and their verifiers, stopping where the mode says')
            [CompletionResult]::new('workflow-unblock', 'workflow-unblock', [CompletionResultType]::ParameterValue, 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)')
            [CompletionResult]::new('unblock', 'unblock', [CompletionResultType]::ParameterValue, 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a paused, interrupted, blocked or failed workflow')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where the workflow stands (read-only)')
            [CompletionResult]::new('st', 'st', [CompletionResultType]::ParameterValue, 'Show where the workflow stands (read-only)')
            [CompletionResult]::new('next', 'next', [CompletionResultType]::ParameterValue, 'Print the brief of the task to do next: the one in progress, else the first ready')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List every workflow under the home (WF_HOME): project, name, status, progress, last update — so a moved or re-cloned project can find its workflow')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Draw the task graph as Mermaid or Graphviz DOT')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'Print the event log (events.jsonl); --follow keeps printing new events')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Print a task''s log: by default the task in progress, else the first failed one')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Print a CI report: JUnit XML, GitHub annotations or a GitHub job summary')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Move a completed workflow into archive/<UTC time>/ so a new one can start')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (see completions/ for installed copies)')
            [CompletionResult]::new('resources', 'resources', [CompletionResultType]::ParameterValue, 'Show the executors as a capability catalog: who can do what, and who is usable')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page as roff (man ./wf.1)')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Claude Code hook: reads the hook JSON on stdin (SessionStart, UserPromptSubmit, Stop, SubagentStop). Never blocks the editor on its own errors')
            [CompletionResult]::new('constraints', 'constraints', [CompletionResultType]::ParameterValue, 'The workflow''s constraints: add, list, remove, promote, merge model outputs, verify')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'wf;init' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace an existing tasks.md or project config (and settings that cannot be merged); each old file is kept as FILE.backup-<ms>')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;doctor' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;workflow-start' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The workflow''s name (default: the plan''s title or file name)')
            [CompletionResult]::new('--tech-design', '--tech-design', [CompletionResultType]::ParameterName, 'The technical design the plan refers to (counted in the context estimate)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Apply a major change (a completed task changed or removed, or a different plan); the old state is kept as backup-<ms>.json first')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;start' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The workflow''s name (default: the plan''s title or file name)')
            [CompletionResult]::new('--tech-design', '--tech-design', [CompletionResultType]::ParameterName, 'The technical design the plan refers to (counted in the context estimate)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Apply a major change (a completed task changed or removed, or a different plan); the old state is kept as backup-<ms>.json first')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;check' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit 1 when there are warnings (errors always exit 2)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;workflow-execute' {
            [CompletionResult]::new('--retry', '--retry', [CompletionResultType]::ParameterName, 'Retry the failed task (or TASK): back to pending, retry_counts + 1')
            [CompletionResult]::new('--skip', '--skip', [CompletionResultType]::ParameterName, 'Skip the failed task (or TASK) and go on; needs --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why the task is skipped (kept in skipped_info)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Run up to N ready tasks side by side')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Run up to N ready tasks side by side')
            [CompletionResult]::new('--mock', '--mock', [CompletionResultType]::ParameterName, 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed')
            [CompletionResult]::new('--junit', '--junit', [CompletionResultType]::ParameterName, 'Write a JUnit XML report (one testcase per task) to FILE')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)')
            [CompletionResult]::new('--phase', '--phase', [CompletionResultType]::ParameterName, 'Mode: stop when the next task''s phase differs')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)')
            [CompletionResult]::new('--ci', '--ci', [CompletionResultType]::ParameterName, 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them')
            [CompletionResult]::new('--keep-going', '--keep-going', [CompletionResultType]::ParameterName, 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them')
            [CompletionResult]::new('--allow-audit-errors', '--allow-audit-errors', [CompletionResultType]::ParameterName, 'Start even though the plan''s zero-decision audit found errors')
            [CompletionResult]::new('--allow-open-questions', '--allow-open-questions', [CompletionResultType]::ParameterName, 'Start even though constraints.openQuestions is not empty')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;execute' {
            [CompletionResult]::new('--retry', '--retry', [CompletionResultType]::ParameterName, 'Retry the failed task (or TASK): back to pending, retry_counts + 1')
            [CompletionResult]::new('--skip', '--skip', [CompletionResultType]::ParameterName, 'Skip the failed task (or TASK) and go on; needs --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why the task is skipped (kept in skipped_info)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Run up to N ready tasks side by side')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Run up to N ready tasks side by side')
            [CompletionResult]::new('--mock', '--mock', [CompletionResultType]::ParameterName, 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed')
            [CompletionResult]::new('--junit', '--junit', [CompletionResultType]::ParameterName, 'Write a JUnit XML report (one testcase per task) to FILE')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)')
            [CompletionResult]::new('--phase', '--phase', [CompletionResultType]::ParameterName, 'Mode: stop when the next task''s phase differs')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)')
            [CompletionResult]::new('--ci', '--ci', [CompletionResultType]::ParameterName, 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them')
            [CompletionResult]::new('--keep-going', '--keep-going', [CompletionResultType]::ParameterName, 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them')
            [CompletionResult]::new('--allow-audit-errors', '--allow-audit-errors', [CompletionResultType]::ParameterName, 'Start even though the plan''s zero-decision audit found errors')
            [CompletionResult]::new('--allow-open-questions', '--allow-open-questions', [CompletionResultType]::ParameterName, 'Start even though constraints.openQuestions is not empty')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;workflow-unblock' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;unblock' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;resume' {
            [CompletionResult]::new('--retry', '--retry', [CompletionResultType]::ParameterName, 'Retry the failed task (or TASK): back to pending, retry_counts + 1')
            [CompletionResult]::new('--skip', '--skip', [CompletionResultType]::ParameterName, 'Skip the failed task (or TASK) and go on; needs --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why the task is skipped (kept in skipped_info)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Run up to N ready tasks side by side')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Run up to N ready tasks side by side')
            [CompletionResult]::new('--mock', '--mock', [CompletionResultType]::ParameterName, 'Rehearse with executors replaced by a policy: success, failure, or per role (executor=failure,reviewer=success). No agent needs to be installed')
            [CompletionResult]::new('--junit', '--junit', [CompletionResultType]::ParameterName, 'Write a JUnit XML report (one testcase per task) to FILE')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Mode: stop after every task. A mode sticks: a later run without a mode flag uses the last one (phase for a new workflow)')
            [CompletionResult]::new('--phase', '--phase', [CompletionResultType]::ParameterName, 'Mode: stop when the next task''s phase differs')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Mode: stop only before quality gates and before git_commit (when pause_before_commit)')
            [CompletionResult]::new('--ci', '--ci', [CompletionResultType]::ParameterName, 'Run the whole plan in one call: gates run and must pass but do not pause, the consecutive-task and context limits do not apply, and a task that needs an agent fails instead of being handed off. Implied when the environment has CI=true')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them')
            [CompletionResult]::new('--keep-going', '--keep-going', [CompletionResultType]::ParameterName, 'After a task fails, keep running every task that does not depend on a failed one (like make -k); the run still exits 1 and lists the failed tasks and the tasks not run because of them')
            [CompletionResult]::new('--allow-audit-errors', '--allow-audit-errors', [CompletionResultType]::ParameterName, 'Start even though the plan''s zero-decision audit found errors')
            [CompletionResult]::new('--allow-open-questions', '--allow-open-questions', [CompletionResultType]::ParameterName, 'Start even though constraints.openQuestions is not empty')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Without a workflow in this project: resume the first resumable one without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Without a workflow in this project: resume the first resumable one without asking')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;status' {
            [CompletionResult]::new('--phase', '--phase', [CompletionResultType]::ParameterName, 'List only the tasks of this phase')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--detail', '--detail', [CompletionResultType]::ParameterName, 'Also show phases, constraints, audit findings and quality gates')
            [CompletionResult]::new('--failed', '--failed', [CompletionResultType]::ParameterName, 'List only the failed tasks')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'List every task; without it a plan of more than 40 tasks lists those that need attention and the next ones to do')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;st' {
            [CompletionResult]::new('--phase', '--phase', [CompletionResultType]::ParameterName, 'List only the tasks of this phase')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--detail', '--detail', [CompletionResultType]::ParameterName, 'Also show phases, constraints, audit findings and quality gates')
            [CompletionResult]::new('--failed', '--failed', [CompletionResultType]::ParameterName, 'List only the failed tasks')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'List every task; without it a plan of more than 40 tasks lists those that need attention and the next ones to do')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;next' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;list' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;graph' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'The picture''s language')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'wf;events' {
            [CompletionResult]::new('--task', '--task', [CompletionResultType]::ParameterName, 'Only the events of this task')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only events of this type (e.g. task.status_changed; see docs/events.md)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only the last N of the events already written (then --follow goes on)')
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'Only the last N of the events already written (then --follow goes on)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only events at or after WHEN: a time (2026-11-25T10:00:00Z) or an age (30s, 15m, 2h, 3d)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing new events as they are written, until interrupted')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing new events as they are written, until interrupted')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;logs' {
            [CompletionResult]::new('--attempt', '--attempt', [CompletionResultType]::ParameterName, 'Which attempt (default: the last)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'Print the log''s absolute path instead of its text')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing what the attempt writes until it ends (or Ctrl-C)')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing what the attempt writes until it ends (or Ctrl-C)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;report' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of stdout')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'wf;archive' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;completions' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;resources' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;man' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;hook' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;constraints' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a hard (default) or soft constraint; prints its new id')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the constraints, open questions and success criteria (read-only)')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a constraint (and its verification record)')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Make a soft constraint hard: from now on it must hold')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Merge constraint-set JSON files (one model''s analysis output each) into the workflow''s constraints; reports what the caps left out')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Run hard constraints'' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'wf;constraints;add' {
            [CompletionResult]::new('--category', '--category', [CompletionResultType]::ParameterName, 'The category (default: detected from the description)')
            [CompletionResult]::new('--source', '--source', [CompletionResultType]::ParameterName, 'Who stated it')
            [CompletionResult]::new('--phase', '--phase', [CompletionResultType]::ParameterName, 'When it was stated')
            [CompletionResult]::new('--verify-cmd', '--verify-cmd', [CompletionResultType]::ParameterName, 'The command that proves it: a builtin verifier (ts_typecheck, lint, test, build) or a command starting with an allowed prefix (wf.allowed_command_prefixes)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--soft', '--soft', [CompletionResultType]::ParameterName, 'A soft constraint: should hold, is not verified')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;constraints;list' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;constraints;remove' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;constraints;promote' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;constraints;merge' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;constraints;verify' {
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'The project directory (default: the git top level, else the current directory)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'If another wf holds the workflow''s lock, wait for it (default 600 s) instead of failing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print machine-readable JSON on stdout (errors too)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'wf;constraints;help' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a hard (default) or soft constraint; prints its new id')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the constraints, open questions and success criteria (read-only)')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a constraint (and its verification record)')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Make a soft constraint hard: from now on it must hold')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Merge constraint-set JSON files (one model''s analysis output each) into the workflow''s constraints; reports what the caps left out')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Run hard constraints'' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'wf;constraints;help;add' {
            break
        }
        'wf;constraints;help;list' {
            break
        }
        'wf;constraints;help;remove' {
            break
        }
        'wf;constraints;help;promote' {
            break
        }
        'wf;constraints;help;merge' {
            break
        }
        'wf;constraints;help;verify' {
            break
        }
        'wf;constraints;help;help' {
            break
        }
        'wf;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Set the project up: a starter tasks.md, the project config and the Claude Code hook settings. Never writes over a file: an existing plan or config is refused (--force replaces it, keeping a backup); existing settings get the hooks merged in')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the setup for what would break later: the config, the executors, the Claude Code hooks, the constraints'' verify commands, the state and the lock. Read-only; exits 1 when a check finds a problem')
            [CompletionResult]::new('workflow-start', 'workflow-start', [CompletionResultType]::ParameterValue, 'Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Lint a plan without importing it: parse errors, plan warnings, audit findings and the tasks that would start blocked, as file:line: severity: message. Writes nothing')
            [CompletionResult]::new('workflow-execute', 'workflow-execute', [CompletionResultType]::ParameterValue, 'Run the next tasks and their verifiers, stopping where the mode says')
            [CompletionResult]::new('workflow-unblock', 'workflow-unblock', [CompletionResultType]::ParameterValue, 'Lift an external blocker (api_spec, design_spec, a custom kind, or all)')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a paused, interrupted, blocked or failed workflow')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show where the workflow stands (read-only)')
            [CompletionResult]::new('next', 'next', [CompletionResultType]::ParameterValue, 'Print the brief of the task to do next: the one in progress, else the first ready')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List every workflow under the home (WF_HOME): project, name, status, progress, last update — so a moved or re-cloned project can find its workflow')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Draw the task graph as Mermaid or Graphviz DOT')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'Print the event log (events.jsonl); --follow keeps printing new events')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Print a task''s log: by default the task in progress, else the first failed one')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Print a CI report: JUnit XML, GitHub annotations or a GitHub job summary')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Move a completed workflow into archive/<UTC time>/ so a new one can start')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (see completions/ for installed copies)')
            [CompletionResult]::new('resources', 'resources', [CompletionResultType]::ParameterValue, 'Show the executors as a capability catalog: who can do what, and who is usable')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page as roff (man ./wf.1)')
            [CompletionResult]::new('hook', 'hook', [CompletionResultType]::ParameterValue, 'Claude Code hook: reads the hook JSON on stdin (SessionStart, UserPromptSubmit, Stop, SubagentStop). Never blocks the editor on its own errors')
            [CompletionResult]::new('constraints', 'constraints', [CompletionResultType]::ParameterValue, 'The workflow''s constraints: add, list, remove, promote, merge model outputs, verify')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'wf;help;init' {
            break
        }
        'wf;help;doctor' {
            break
        }
        'wf;help;workflow-start' {
            break
        }
        'wf;help;check' {
            break
        }
        'wf;help;workflow-execute' {
            break
        }
        'wf;help;workflow-unblock' {
            break
        }
        'wf;help;resume' {
            break
        }
        'wf;help;status' {
            break
        }
        'wf;help;next' {
            break
        }
        'wf;help;list' {
            break
        }
        'wf;help;graph' {
            break
        }
        'wf;help;events' {
            break
        }
        'wf;help;logs' {
            break
        }
        'wf;help;report' {
            break
        }
        'wf;help;archive' {
            break
        }
        'wf;help;completions' {
            break
        }
        'wf;help;resources' {
            break
        }
        'wf;help;man' {
            break
        }
        'wf;help;hook' {
            break
        }
        'wf;help;constraints' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a hard (default) or soft constraint; prints its new id')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the constraints, open questions and success criteria (read-only)')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a constraint (and its verification record)')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Make a soft constraint hard: from now on it must hold')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Merge constraint-set JSON files (one model''s analysis output each) into the workflow''s constraints; reports what the caps left out')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Run hard constraints'' verifyCmd (all, or the ids given) and record the results; exits 1 when one fails')
            break
        }
        'wf;help;constraints;add' {
            break
        }
        'wf;help;constraints;list' {
            break
        }
        'wf;help;constraints;remove' {
            break
        }
        'wf;help;constraints;promote' {
            break
        }
        'wf;help;constraints;merge' {
            break
        }
        'wf;help;constraints;verify' {
            break
        }
        'wf;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
