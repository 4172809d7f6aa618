#!/usr/bin/env bash
# The story of a plan, told by running it: import, a failing check and its log, the
# fix and a retry, Ctrl-C and resume, an agent's hand-off taken back, and `wf verify`
# catching an edit. It works in a directory of its own (its own WF_HOME too, so
# ~/.claude is not touched) and leaves it for you to look around in.
#
#   bash scripts/demo.sh [DIR]     DIR: where to work (default: a new dir under /tmp)
#
# The wf it runs: $WF when set, else this repository's newest build (in
# $CARGO_TARGET_DIR when set, brought up to date with cargo first), else a `wf`
# on PATH, else it builds one (cargo's progress shown).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

wf=${WF:-}
if [ -z "$wf" ]; then
    target=${CARGO_TARGET_DIR:-$root/target}
    for build in "$target/release/wf" "$target/debug/wf"; do
        if [ -x "$build" ] && { [ -z "$wf" ] || [ "$build" -nt "$wf" ]; }; then
            wf=$build
        fi
    done
fi
# A build found here may be older than the sources (after a `git pull`): brought
# up to date first, which costs a second when it already is.
if [ -z "${WF:-}" ] && [ -n "$wf" ] && command -v cargo >/dev/null 2>&1; then
    case $wf in
    */release/wf) cargo build --release --manifest-path "$root/Cargo.toml" ;;
    *) cargo build --manifest-path "$root/Cargo.toml" ;;
    esac
fi
if [ -z "$wf" ] && command -v wf >/dev/null 2>&1; then
    wf=$(command -v wf)
fi
if [ -z "$wf" ]; then
    echo "Building wf (once; a few minutes on a fresh clone)..."
    cargo build --release --manifest-path "$root/Cargo.toml"
    wf="${CARGO_TARGET_DIR:-$root/target}/release/wf"
fi

work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/wf-demo.XXXXXX")}
mkdir -p "$work/project"
export WF_HOME="$work/home"
# A person at a terminal, even when run from a CI job: hand-offs, not --ci failures.
unset CI GITHUB_ACTIONS GITLAB_CI
cd "$work/project"
# The project is a git repository of its own: `wf verify` and the agent checks read
# what changed from git.
git init --quiet
wf_dir=$(dirname "$wf")
export PATH="$wf_dir:$PATH"

# Shows a shell line as typed, and runs it.
shell() {
    printf '$ %s\n' "$1"
    sh -c "$1"
}
say() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
# Shows a command as typed, runs it, and shows a non-zero exit (the demo goes on).
run() {
    printf '$ %s\n' "$*"
    local code=0
    "$@" || code=$?
    if [ "$code" -ne 0 ]; then
        printf '(exit %d)\n' "$code"
    fi
}

cat >tasks.md <<'PLAN'
# Tasks: word count

## T1: Create the output directory out/
- **phase**: build
- **verify**: `mkdir -p out`

## T2: Check the sample text in out/sample.txt
- **phase**: build
- **depends**: T1
- **files**: out/sample.txt
- **verify**: `test -s out/sample.txt`

## T3: Count the words of out/sample.txt
- **phase**: build
- **depends**: T2
- **files**: out/sample.txt
- **verify**: `test "$(wc -w < out/sample.txt)" -eq 9`

## T4: Run the slow integration check
- **phase**: integration
- **depends**: T3
- **verify**: `sleep 3`

## T5: Write the usage notes in docs/USAGE.md
- **phase**: docs
- **depends**: T4
- **creates**: docs/USAGE.md
- **actions**: create_file
PLAN
git add tasks.md
git -c user.name=demo -c user.email=demo@example.invalid commit --quiet -m "the plan"

say "A plan: five tasks in three phases (claude-workflow's format; wf reads spec-kit's and others too)"
cat tasks.md

say "Import it"
run wf start tasks.md

say "Run it to the end: T2's check fails, and the run shows why"
run wf execute --all

say "Fix what failed, then retry the failed task"
shell 'echo "the quick brown fox jumps over the lazy dog" > out/sample.txt'
# T4 takes 3 s: Ctrl-C it a second in. The run ends the check and saves its place.
printf '$ wf execute --retry        # and Ctrl-C during T4\n'
set -m
wf execute --retry &
pid=$!
set +m
# Wait (at most 30 s) until T4 has started.
for _ in $(seq 300); do
    grep -q '"task_id":"T4"' "$WF_HOME"/*/events.jsonl 2>/dev/null && break
    sleep 0.1
done
sleep 1
kill -INT "$pid"
code=0
wait "$pid" || code=$?
printf '(exit %d)\n' "$code"

say "Where it stands: status ends with what to run next"
run wf status

say "Resume: T4 runs again; T5 needs an agent, and with none configured wf hands it off"
run wf resume

say "What the agent is to do now (an agent asks the same through wf mcp or the hooks)"
run wf next

say "The agent does the work; wf takes the task back and checks what its line names"
shell 'mkdir -p docs && printf "Run wc -w < out/sample.txt\n" > docs/USAGE.md'
run wf execute

say "An edit after the fact: wf verify runs again only what the change touches"
shell 'echo "and then some more words" >> out/sample.txt'
run wf verify

say "Done. The project is in $work/project; look around:"
cat <<EOF
  cd $work/project
  export WF_HOME=$work/home PATH=$wf_dir:\$PATH
  wf show T3       # one task: its checks, its evidence, whether it is up to date
  wf graph         # the task graph
  wf logs T2       # the log of the failed attempt
EOF
