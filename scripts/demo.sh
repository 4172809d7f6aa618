#!/usr/bin/env bash
# The main job, end to end, on the bundled example (fixtures/example): import a real
# plan, execute it with real verifier commands, show the status. It works on a copy
# in a temp dir with its own WF_HOME, so neither the repository nor ~/.claude changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
wf="$root/target/release/wf"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$root/fixtures/example" "$work/project"
export WF_HOME="$work/home"
cd "$work/project"

echo "\$ wf workflow-start tasks.md"
"$wf" workflow-start tasks.md
echo
echo "\$ wf workflow-execute --all        # runs until the quality gate"
"$wf" workflow-execute --all
echo
echo "\$ wf workflow-execute --all        # runs the gate and finishes"
"$wf" workflow-execute --all
echo
echo "\$ wf status"
"$wf" status
