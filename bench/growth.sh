#!/usr/bin/env bash
# How mcpspec's cost grows with what a server offers (issue #31): the reference server with a
# catalogue of N more tools (and as many resources and prompts, paginated) whose results are S
# bytes, certified over stdio. One run per pair, one after another; prints wall time, peak RSS of
# mcpspec itself (VmHWM, sampled from /proc until it exits) and the size of the report directory.
#
#   bench/growth.sh ["10 1000 10000"] ["1024 4194304"]
#
# MCPSPEC_BIN names the mcpspec binary (default: target/release/mcpspec, built if missing);
# MCPSPEC_ARGS passes more arguments to `mcpspec server` (e.g. --revision 2025-11-25);
# GROWTH_PAGE_SIZE sets the server's items per page (default 100); GROWTH_LIMIT bounds each
# run in seconds (default 1800).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-"10 1000 10000"}
results=${2:-"1024 4194304"}
bin=${MCPSPEC_BIN:-target/release/mcpspec}
[ -x "$bin" ] || cargo build --release -p mcpspec >&2
page=${GROWTH_PAGE_SIZE:-100}
limit=${GROWTH_LIMIT:-1800}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%-7s %-9s %9s %13s %12s %5s  %s\n' "tools" "result" "wall s" "peak RSS MiB" "report MiB" "exit" "summary"
for n in $sizes; do
  for s in $results; do
    dir="$scratch/report-$n-$s"
    start=$(date +%s.%N)
    # A result of S bytes is a line a little longer than S: the line limit follows it.
    # shellcheck disable=SC2086 # MCPSPEC_ARGS is a list of words
    timeout "$limit" "$bin" server --max-message-bytes $((s + 1048576)) --report-dir "$dir" \
      ${MCPSPEC_ARGS:-} -- "$bin" reference server --catalogue "$n" --result-bytes "$s" \
      --page-size "$page" >"$scratch/out" 2>&1 &
    pid=$!
    # `timeout` stays the parent and mcpspec is its only child. The high-water mark only grows,
    # so the last sample before mcpspec exits is its peak (bounded: `timeout` ends the run).
    hwm=0
    while kill -0 "$pid" 2>/dev/null; do
      child=$(pgrep -P "$pid" | head -n 1 || true)
      if [ -n "$child" ]; then
        kib=$(awk '/^VmHWM:/ {print $2}' "/proc/$child/status" 2>/dev/null || true)
        [ -n "$kib" ] && hwm=$kib
      fi
      sleep 0.1
    done
    code=0
    wait "$pid" || code=$?
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    size=$(du -sk "$dir" 2>/dev/null | cut -f1 || echo 0)
    printf '%-7s %-9s %9.1f %13.1f %12.1f %5s  %s\n' "$n" "$s" "$wall" "$(echo "$hwm / 1024" | bc -l)" \
      "$(echo "${size:-0} / 1024" | bc -l)" "$code" "$(grep -E '^summary:' "$scratch/out" | tail -n 1)"
  done
done
