#!/usr/bin/env bash
# The GitHub Action's certification step (action.yml at the repository's root): the action's
# inputs, passed as INPUT_* variables, become one `mcpspec server|client` command; its reports
# go to the report directory, summary.md to the job's page ($GITHUB_STEP_SUMMARY), and the
# outcome to the step's outputs ($GITHUB_OUTPUT): exit-code, badge (the certification in one
# line, from badge.json) and report-dir. The step fails as mcpspec does: on a broken MUST, on a
# failure the baseline does not list, or on a baseline entry that no longer fails.
#
# Run outside Actions too (the tests do): every GITHUB_* file is optional.
set -uo pipefail

mcpspec=${MCPSPEC_BIN:-mcpspec}
role=${INPUT_ROLE:-server}
case "$role" in
  server|client) ;;
  *) echo "mcpspec action: role must be server or client, not '$role'" >&2; exit 2 ;;
esac
report_dir=${INPUT_REPORT_DIR:-mcpspec-report}

args=("$role" --report-dir "$report_dir")
[ -n "${INPUT_TRANSPORT:-}" ] && args+=(--transport "$INPUT_TRANSPORT")
[ -n "${INPUT_URL:-}" ] && args+=(--url "$INPUT_URL")
if [ -n "${INPUT_REVISIONS:-}" ]; then
  IFS=', ' read -r -a revisions <<<"$INPUT_REVISIONS"
  for r in "${revisions[@]}"; do [ -n "$r" ] && args+=(--revision "$r"); done
fi
[ -n "${INPUT_BASELINE:-}" ] && args+=(--expected-failures "$INPUT_BASELINE")
[ "${INPUT_STRICT:-false}" = true ] && args+=(--strict)
if [ -n "${INPUT_ARGS:-}" ]; then
  # Further options, split on white space as a shell would (no globbing).
  set -f
  # shellcheck disable=SC2206
  extra=($INPUT_ARGS)
  set +f
  args+=("${extra[@]}")
fi
if [ -n "${INPUT_COMMAND:-}" ]; then
  # The command is one line as written in the workflow: a shell runs it (mcpspec --shell).
  args+=(--shell -- "$INPUT_COMMAND")
fi

echo "mcpspec ${args[*]}"
"$mcpspec" "${args[@]}"
code=$?

badge=""
if [ -f "$report_dir/badge.json" ]; then
  # The badge's message: each revision tested with its verdict, in one line.
  badge=$(sed -n 's/.*"message":"\([^"]*\)".*/\1/p' "$report_dir/badge.json")
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$report_dir/summary.md" ]; then
  cat "$report_dir/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "badge=$badge"
    echo "report-dir=$report_dir"
  } >>"$GITHUB_OUTPUT"
fi
exit "$code"
