#!/usr/bin/env bash
# What shared processes save (issue #31), and that they change no verdict: a whole server
# certification run twice, as by default (scenarios share server processes, one after another
# and at once) and with --isolate (a process per scenario); prints each run's cost line, and
# the scenario runs whose verdicts differ (none expected).
#
#   bench/sharing.sh [MCPSPEC ARGS...] -- CMD [ARGS...]
#
# MCPSPEC_BIN names the mcpspec binary (default: target/release/mcpspec, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${MCPSPEC_BIN:-target/release/mcpspec}
[ -x "$bin" ] || cargo build --release -p mcpspec >&2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for mode in shared isolated; do
  extra=(); [ "$mode" = isolated ] && extra=(--isolate)
  "$bin" server --report-dir "$scratch/$mode" "${extra[@]}" "$@" >"$scratch/$mode.out" 2>&1 || true
  echo "$mode: $(grep -E '^cost:' "$scratch/$mode.out" || echo 'no cost line')"
done
python3 - "$scratch/shared/report.json" "$scratch/isolated/report.json" <<'PY'
import json, sys
def verdicts(path):
    return {(s["id"], s["revision"]): s["verdict"] for s in json.load(open(path))["scenarios"]}
shared, isolated = verdicts(sys.argv[1]), verdicts(sys.argv[2])
differ = sorted(k for k in shared.keys() | isolated.keys() if shared.get(k) != isolated.get(k))
report = json.load(open(sys.argv[1]))["scenarios"]
at_once = sum("(with others at once)" in (s.get("session") or "") for s in report)
again = sum((s.get("session") or "").startswith("run again") for s in report)
print(f"{len(shared)} scenario runs; shared at once: {at_once}; run again alone: {again}; verdicts that differ: {len(differ)}")
for k in differ:
    print(f"  {k[0]} at {k[1]}: shared {shared.get(k)}, isolated {isolated.get(k)}")
sys.exit(1 if differ else 0)
PY
