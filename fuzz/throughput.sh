#!/usr/bin/env bash
# Throughput benchmark of the fuzz targets: executions per second under libFuzzer, on the build
# the project uses (`cargo fuzz build -s none`: release, debug assertions, comparison tracing).
#
#   bash fuzz/throughput.sh [TARGET…]        # default: framing
#
# Each target runs once per input bound in MAX_LENS (default "128 1024 default"; "default" is
# libFuzzer's own choice, which starts small and grows to 4096 bytes), for SECONDS_PER_RUN
# seconds each (default 60), from the committed seeds into a scratch corpus. With BASELINE=<git revision>,
# the same runs are made first on that revision's targets (built in a temporary worktree), then
# on the working tree's, alternating, so the ratio between them comes from one run on one
# machine. The load average is printed beside each figure: a busy machine means fewer
# executions, not other results.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${SECONDS_PER_RUN:-60}
max_lens=${MAX_LENS:-128 1024 default}
targets=("${@:-framing}")
scratch=$(mktemp -d)
trap '[ -z "${worktree:-}" ] || git worktree remove --force "$worktree"; rm -rf "$scratch"' EXIT
triple=$(rustc -vV | sed -n 's/^host: //p')

# build LABEL TREE: builds the targets of TREE (a checkout) into this crate's build directory
# (so a baseline rebuilds only the crates that differ) and copies them to $scratch/LABEL.
build() {
  mkdir -p "$scratch/$1"
  for t in "${targets[@]}"; do
    (cd "$2/fuzz" && cargo fuzz build -s none --target-dir "$target_dir" "$t" >"$scratch/build.log" 2>&1) ||
      { tail -n 30 "$scratch/build.log"; exit 1; }
    cp "$target_dir/$triple/release/$t" "$scratch/$1/"
  done
}
target_dir="$PWD/target"

builds=()
if [ -n "${BASELINE:-}" ]; then
  worktree="$scratch/baseline-tree"
  git worktree add --detach --quiet "$worktree" "$BASELINE"
  build baseline "$worktree"
  builds+=(baseline)
fi
build current ..
builds+=(current)

echo "| target | max_len | build | seconds | executions | exec/s | edges | load before → after |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for t in "${targets[@]}"; do
  for len in $max_lens; do
    for b in "${builds[@]}"; do
      rm -rf "$scratch/corpus" && mkdir "$scratch/corpus"
      before=$(cut -d' ' -f1 /proc/loadavg)
      bound=(); [ "$len" = default ] || bound=(-max_len="$len")
      "$scratch/$b/$t" "$scratch/corpus" "corpus/$t" -max_total_time="$seconds" "${bound[@]}" \
        -print_final_stats=1 >"$scratch/log" 2>&1 || { tail -n 30 "$scratch/log"; exit 1; }
      after=$(cut -d' ' -f1 /proc/loadavg)
      runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/log")
      rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$scratch/log")
      edges=$(grep -Eo 'cov: [0-9]+' "$scratch/log" | tail -n 1 | cut -d' ' -f2)
      echo "| $t | $len | $b | $seconds | $runs | $rate | $edges | $before → $after |"
    done
  done
done
