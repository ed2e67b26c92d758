#!/usr/bin/env bash
# Builds the libFuzzer targets (cmake --preset fuzz: clang-14, ASan + UBSan) and runs each for a
# bounded time, starting from its seed corpus. Fails if any target finds a crash, a failed check,
# a leak, a timeout or an out-of-memory input; prints executions per target and in total.
#
#   tests/fuzz/run_fuzzers.sh [SECONDS]    seconds per target (default $BLOOMTOOL_FUZZ_SECONDS or 20)
#
# Environment: BLOOMTOOL_FUZZ_JOBS targets run at once (default 2), BLOOMTOOL_FUZZ_TARGETS a
# space-separated subset. New inputs go to build/fuzz/corpus/<target>/ (not the checked-in seeds);
# a finding is saved as build/fuzz/artifacts/<target>/crash-* — fix the bug, then copy the input
# to tests/fuzz/findings/<target>/ so that every ctest run replays it.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-${BLOOMTOOL_FUZZ_SECONDS:-20}}
jobs=${BLOOMTOOL_FUZZ_JOBS:-2}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz >/dev/null

bin=build/fuzz/tests/fuzz
if [ -n "${BLOOMTOOL_FUZZ_TARGETS:-}" ]; then
  read -r -a targets <<<"$BLOOMTOOL_FUZZ_TARGETS"
else
  targets=()
  for exe in "$bin"/fuzz_*; do targets+=("${exe##*/fuzz_}"); done
fi

run_one() {
  local t=$1 work=build/fuzz/corpus/$t art=build/fuzz/artifacts/$t
  mkdir -p "$work" "$art"
  local rc=0
  "$bin/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$art/" "$work" "tests/fuzz/corpus/$t" \
    >"build/fuzz/$t.log" 2>&1 || rc=$?
  echo "$rc" >"build/fuzz/$t.rc"
}

echo "fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time"
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

failed=0
total=0
for t in "${targets[@]}"; do
  rc=$(cat "build/fuzz/$t.rc")
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build/fuzz/$t.log" | grep -o '[0-9]*$' |
    tail -1)
  execs=${execs:-0}
  total=$((total + execs))
  if [ "$rc" -eq 0 ]; then
    printf 'fuzz: %-12s %12d executions, no findings\n' "$t" "$execs"
  else
    failed=$((failed + 1))
    printf 'fuzz: %-12s FAILED (exit %s) after %d executions; log build/fuzz/%s.log\n' \
      "$t" "$rc" "$execs" "$t"
    grep -E '^(==[0-9]+==|SUMMARY|.*FUZZ_CHECK|artifact_prefix|Test unit written)' \
      "build/fuzz/$t.log" | head -20 || true
  fi
done
printf 'fuzz: %d executions in total, %d target(s) failed\n' "$total" "$failed"
[ "$failed" -eq 0 ]
