#!/usr/bin/env bash
# One-stop setup for a fresh Debian 12 machine (run as root, or with sudo available):
#   tools/quickstart.sh demo   install what building needs (build_packages below), build the
#                              tool, run the main job on testdata/
#   tools/quickstart.sh test   install what is missing (test_packages too), then everything CI
#                              runs (.ci/run): release
#                              build + whole ctest suite (valgrind smoke included), ASan+UBSan
#                              build + whole suite, a ThreadSanitizer build of the C API's
#                              concurrency check (tests/capi/tsan_threads.sh), each fuzz target for
#                              BLOOMTOOL_FUZZ_SECONDS (default 15; 0 skips fuzzing). About 18 min
#                              on 2 cores from a clean clone.
#   tools/quickstart.sh test-release   the quick loop: release build + whole ctest suite only
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-demo}
# What building bloomtool (without its tests) and the demo need: the README's list.
build_packages=(cmake g++ make pkg-config libcli11-dev libfmt-dev libsimdjson-dev libzstd-dev
                libxxhash-dev libsodium-dev zlib1g-dev)
# What the test suite and CI need besides: Catch2, the sanitizer and fuzzing compilers, valgrind,
# the peers' tools (Guava on a JDK, DCSO's bloom), the ssh recipe, packaging checks, a renderer
# for the stats --plot picture, tmux for the completion test, Dask for the distributed build, the
# Python headers for the module's optional extension, and for the Python package test and bench a
# venv with setuptools and flor.
test_packages=(catch2 zstd openssh-server rsync groff-base man-db parallel time valgrind clang-14
               libclang-rt-14-dev dpkg-dev lintian zsh python3 strace libguava-java
               default-jdk-headless golang-github-dcso-bloom-cli librsvg2-bin tmux
               python3-dask python3-distributed python3-venv python3-setuptools python3-flor
               python3-dev)
packages=("${build_packages[@]}")
case "$mode" in
  test | test-release) packages+=("${test_packages[@]}") ;;
esac

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "quickstart: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

build() {  # the demo builds the tool alone; the test modes the suite too
  if [ "$mode" = demo ]; then
    cmake --preset release -DBLOOMTOOL_TESTS=OFF >/dev/null
    cmake --build --preset release --target bloomtool
  else
    cmake --preset release -DBLOOMTOOL_TESTS=ON >/dev/null
    cmake --build --preset release
  fi
}

demo() {
  local bt=build/release/apps/bloomtool/bloomtool
  out=$(mktemp -d)
  trap 'rm -rf "${out:-}"' EXIT
  echo "== build a filter from testdata/urls-10k.txt at p = 1%"
  "$bt" build -p 1% -o "$out/urls.bf" --label "demo" testdata/urls-10k.txt
  echo "== query: members present (count), then non-members that look present"
  "$bt" query "$out/urls.bf" --count testdata/urls-10k.txt
  "$bt" query "$out/urls.bf" --count testdata/nonmembers-10k.txt || true
  if "$bt" stats --help >/dev/null 2>&1; then
    echo "== stats: model vs measured false-positive rate"
    "$bt" stats "$out/urls.bf" --measure 1000000 --seed 1
  fi
}

stage() {  # stage NAME COMMAND...: runs a CI stage and reports its wall time
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: done in $((SECONDS - start)) s"
}

run_tests() {
  stage "release: ctest" ctest --preset release -j2
}

run_ci() {
  local start=$SECONDS fuzz_seconds=${BLOOMTOOL_FUZZ_SECONDS:-15}
  run_tests
  stage "asan: build" cmake --build --preset asan
  stage "asan: ctest" ctest --preset asan -j2
  stage "tsan: build capi_check" cmake --build --preset tsan
  stage "tsan: 2 threads x 1000000 queries on one filter" tests/capi/tsan_threads.sh build/tsan \
    build/release/apps/bloomtool/bloomtool
  if [ "$fuzz_seconds" -gt 0 ]; then
    stage "fuzz: ${fuzz_seconds}s per target" tests/fuzz/run_fuzzers.sh "$fuzz_seconds"
  fi
  echo "== all CI stages passed in $((SECONDS - start)) s; $SECONDS s with the set-up and the release build"
}

install_missing
build
case "$mode" in
  demo) demo ;;
  test)
    cmake --preset asan >/dev/null
    cmake --preset tsan >/dev/null
    run_ci
    ;;
  test-release) run_tests ;;
  *) echo "usage: $0 demo|test|test-release" >&2; exit 2 ;;
esac
