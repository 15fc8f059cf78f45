#!/usr/bin/env bash
# Runs the interop matrix (matrix.txt) through its tests and regenerates the matrix table of
# interop/README.md from the report.json files they keep. Installs nothing: MCPSPEC_IUT_DIR must
# name a folder laid out as .ci/run lays it (npm/, venv/), and interop/rmcp must be built
# (`cd interop/rmcp && cargo build`).
#
#   MCPSPEC_IUT_DIR=/tmp/iut interop/run.sh [TEST FILTER]      # e.g. interop_rmcp
#   interop/run.sh --table                                      # only rebuild the table from interop/out
set -euo pipefail
cd "$(dirname "$0")/.."
out=interop/out
if [ "${1:-}" != "--table" ]; then
  : "${MCPSPEC_IUT_DIR:?MCPSPEC_IUT_DIR must name the install folder (see .ci/run)}"
  rm -rf "$out" && mkdir -p "$out"
  MCPSPEC_INTEROP_OUT="$PWD/$out" cargo test -p mcpspec --test suite -- --ignored "${1:-interop_}" --test-threads 3 || true
fi
python3 - "$out" interop/README.md <<'PY'
import json, os, sys
out, readme = sys.argv[1], sys.argv[2]
rows = []
for line in open("interop/matrix.txt"):
    words = line.split()
    if not words or words[0].startswith("#"):
        continue
    rows.append(words[:4])
lines = ["| implementation | role | transport | revision | era | passed | failed | warnings | expected failures | skipped | certification |",
         "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
for row_id, baseline, role, transport in rows:
    path = os.path.join(out, row_id.replace("/", "-"), "report.json")
    if not os.path.exists(path):
        lines.append(f"| {baseline} | {role} | {transport} | all | | | | | | | not run |")
        continue
    report = json.load(open(path))
    for cert in report.get("certification", []):
        s = cert["summary"]
        lines.append(f"| {baseline} | {role} | {transport} | {cert['revision']} | {cert['era']} | {s['passed']} | {s['failed']} "
                     f"| {s['warnings']} | {s.get('expected_failures', 0)} | {s['skipped']} | {cert['verdict']} |")
text = open(readme).read()
begin, end = "<!-- matrix:begin -->", "<!-- matrix:end -->"
a, b = text.index(begin) + len(begin), text.index(end)
open(readme, "w").write(text[:a] + "\n" + "\n".join(lines) + "\n" + text[b:])
print(f"{readme}: {len(lines) - 2} lines of the matrix")
PY
