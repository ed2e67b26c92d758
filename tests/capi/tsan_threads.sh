#!/usr/bin/env bash
# CI stage (tools/quickstart.sh test): the C API under ThreadSanitizer. capi_check, built with
# -fsanitize=thread together with the whole library (cmake --preset tsan && cmake --build --preset
# tsan), makes 2 threads x 1,000,000 queries (single keys, batches and facts) on one open filter
# of three golden files (Bloom, Bloom with a key normalisation, binary fuse) and compares them
# with answers computed up front; any race report fails the stage.
# It also shuts each handle down while 4 threads query it (capi_check shutdown, 20 rounds).
# First it proves the sanitizer is live: a deliberate race in capi_check must be reported.
# With a bloomtool program as second argument, also a filter of 200,000 keys in the raw chunked
# codec: its chunks are read into the handle's cache and verified by whichever worker thread needs
# them first, while the other reads chunks already there (first 20 rounds in which the threads
# start together on a fresh handle with the same keys), and the followed file replaced 1,000 times
# by atomic renames while 4 threads query (refresh_test.sh).
#   tests/capi/tsan_threads.sh BUILD_DIR [BLOOMTOOL]   (BUILD_DIR: build/tsan)
set -uo pipefail
build=$(realpath "${1:?usage: tsan_threads.sh BUILD_DIR [BLOOMTOOL]}")
bloomtool=${2:+$(realpath "$2")}  # absolute: refresh_test.sh runs in a directory of its own
check=$build/tests/capi/capi_check
golden=$(cd "$(dirname "$0")/../../testdata/golden" && pwd)
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
status=0

out=$("$check" race 2>&1)
if [ $? -ne 66 ] || ! grep -q "ThreadSanitizer: data race" <<<"$out"; then
  echo "FAIL: capi_check race was not reported: is $check built with -fsanitize=thread?" >&2
  status=1
fi

files=()
for f in v1-bloom-standard.bf v1-bloom-normalised.bf v1-fuse-8.bf; do files+=("$golden/$f"); done
if [ -n "$bloomtool" ]; then
  raw=$(mktemp -d)
  trap 'rm -rf "$raw"' EXIT
  # 200,000 keys: a payload of several 64 KiB chunks, verified as the threads reach them.
  if seq 1 200000 | "$bloomtool" build -q -n 200000 -p 1% -o "$raw/200k.bf" - &&
    "$bloomtool" convert -q --codec raw -o "$raw/raw-200k.bf" "$raw/200k.bf"; then
    files+=("$raw/raw-200k.bf")
  else
    echo "FAIL: building the raw-codec filter" >&2
    status=1
  fi
fi
for f in "${files[@]}"; do
  # bloomtool_shutdown while 4 threads query the handle (20 rounds).
  if ! out=$("$check" shutdown "$f" 4 20 2>&1); then
    echo "FAIL: $(basename "$f") shutdown: $out" >&2
    status=1
  fi
  start=$SECONDS
  if out=$("$check" threads "$f" 2 1000000 2>&1); then
    echo "$(basename "$f"): $out ($((SECONDS - start)) s)"
  else
    echo "FAIL: $(basename "$f"): $out" >&2
    status=1
  fi
done
# The followed file replaced 1,000 times while 4 threads query (refresh_test.sh with the tsan
# build's refresh_check).
if [ -n "$bloomtool" ]; then
  start=$SECONDS
  if out=$(TESTDATA=$golden/.. BLOOMTOOL=$bloomtool REFRESH_CHECK=$build/tests/capi/refresh_check \
    bash "$(dirname "$0")/refresh_test.sh" 2>&1); then
    echo "refresh: $(grep replacements <<<"$out") ($((SECONDS - start)) s)"
  else
    echo "FAIL: refresh: $out" >&2
    status=1
  fi
fi
exit $status
