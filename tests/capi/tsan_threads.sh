#!/usr/bin/env bash
# CI stage (tools/quickstart.sh test): the C API under ThreadSanitizer. capi_check, built with
# -fsanitize=thread together with the whole library (cmake --preset tsan && cmake --build --preset
# tsan), makes 2 threads x 1,000,000 queries (single keys, batches and facts) on one open filter
# of three golden files (Bloom, Bloom with a key normalisation, binary fuse) and compares them
# with answers computed up front; any race report fails the stage.
# First it proves the sanitizer is live: a deliberate race in capi_check must be reported.
#   tests/capi/tsan_threads.sh BUILD_DIR     (BUILD_DIR: build/tsan)
set -uo pipefail
build=${1:?usage: tsan_threads.sh BUILD_DIR}
check=$build/tests/capi/capi_check
golden=$(cd "$(dirname "$0")/../../testdata/golden" && pwd)
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
status=0

out=$("$check" race 2>&1)
if [ $? -ne 66 ] || ! grep -q "ThreadSanitizer: data race" <<<"$out"; then
  echo "FAIL: capi_check race was not reported: is $check built with -fsanitize=thread?" >&2
  status=1
fi

for f in v1-bloom-standard.bf v1-bloom-normalised.bf v1-fuse-8.bf; do
  start=$SECONDS
  if out=$("$check" threads "$golden/$f" 2 1000000 2>&1); then
    echo "$f: $out ($((SECONDS - start)) s)"
  else
    echo "FAIL: $f: $out" >&2
    status=1
  fi
done
exit $status
