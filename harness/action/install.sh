#!/usr/bin/env bash
# The GitHub Action's install step (action.yml): puts `mcpspec` on the PATH of the job's later
# steps. In order: MCPSPEC_BIN (a binary already built, as this repository's tests use), an
# mcpspec already on the PATH, else a build from the action's own checkout with cargo
# (`cargo install --locked --path harness`; the runner's Rust toolchain), which takes a few
# minutes on a hosted runner.
set -euo pipefail

if [ -n "${MCPSPEC_BIN:-}" ]; then
  echo "mcpspec action: using $MCPSPEC_BIN"
  exit 0
fi
if command -v mcpspec >/dev/null; then
  echo "mcpspec action: using $(command -v mcpspec) ($(mcpspec --version))"
  exit 0
fi
if ! command -v cargo >/dev/null; then
  echo "mcpspec action: no mcpspec and no cargo to build it (add a Rust toolchain step, e.g. dtolnay/rust-toolchain@stable)" >&2
  exit 1
fi
root=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}
cargo install --locked --path "$root/harness" --root "${RUNNER_TEMP:-/tmp}/mcpspec"
echo "${RUNNER_TEMP:-/tmp}/mcpspec/bin" >>"${GITHUB_PATH:-/dev/null}"
