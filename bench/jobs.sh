#!/usr/bin/env bash
# How mcpspec's wall time and CPU time move with -j on one implementation: the measurement
# behind the default -j (README, "Certifying a server"). One run per value, one after another.
#
#   bench/jobs.sh [server|client] "2 4 8 16 32" -- CMD [ARGS...]
#
# MCPSPEC_BIN names the mcpspec binary (default: target/release/mcpspec, built if missing);
# MCPSPEC_ARGS passes more arguments (e.g. --no-sweep). Prints one line per -j value.
set -euo pipefail
cd "$(dirname "$0")/.."
role=${1:?usage: bench/jobs.sh server|client \"J1 J2 ...\" -- CMD...}
values=${2:?the -j values to try, e.g. \"4 8 16\"}
shift 2
[ "${1:-}" = "--" ] && shift
bin=${MCPSPEC_BIN:-target/release/mcpspec}
[ -x "$bin" ] || cargo build --release -p mcpspec >&2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%-4s %10s %10s %10s  %s\n' "-j" "wall s" "user s" "sys s" "summary"
for j in $values; do
  # `timeout` bounds a run that would hang; mcpspec itself bounds every wait.
  /usr/bin/env time -f '%e %U %S' -o "$scratch/time" \
    timeout 1800 "$bin" "$role" -j "$j" ${MCPSPEC_ARGS:-} -- "$@" >"$scratch/out" 2>&1 || true
  read -r wall user sys < <(tail -n 1 "$scratch/time") || true
  printf '%-4s %10s %10s %10s  %s\n' "$j" "$wall" "$user" "$sys" "$(grep -E '^summary:' "$scratch/out" | tail -n 1)"
done
