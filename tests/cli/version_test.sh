#!/usr/bin/env bash
# bloomtool --version: "bloomtool VERSION" first (scripts read it), then the source commit and
# every library the program was built with.
source "$(dirname "$0")/lib.sh"

for flag in --version -V; do
  run "$BT" "$flag"
  expect_rc 0 "bloomtool $flag"
  expect_match "$(head -1 <<<"$OUT")" "^bloomtool [0-9]+\.[0-9]+\.[0-9]+$" "first line of $flag"
done
expect_match "$OUT" "^commit [0-9A-Za-z._+-]+$" "commit line"
for lib in "CLI11 [0-9]+\.[0-9]+" "fmt [0-9]+\.[0-9]+\.[0-9]+" \
  "zstd [0-9.]+ \(compiled against [0-9.]+\)" "simdjson [0-9]+\.[0-9]+" "xxHash [0-9]+\.[0-9]+" \
  "compiler (gcc|clang) [0-9]"; do
  expect_match "$OUT" "^  $lib" "--version names $lib"
done
expect_eq "$ERR" "" "--version writes nothing on stderr"

# The commit comes from cmake/git_commit.cmake: "unknown" outside a git checkout (a tarball), the
# checkout's `git describe --always --dirty` inside one.
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
mkdir tarball
run cmake -DSOURCE_DIR="$WORK/tarball" -DOUTPUT="$WORK/commit.h" -P "$SOURCE_DIR/cmake/git_commit.cmake"
expect_rc 0 "git_commit.cmake outside a checkout"
expect_match "$(cat "$WORK/commit.h")" '^#define BLOOMTOOL_GIT_COMMIT "unknown"$' "commit of a tarball"
if command -v git >/dev/null && git -C "$SOURCE_DIR" rev-parse --git-dir >/dev/null 2>&1; then
  run cmake -DSOURCE_DIR="$SOURCE_DIR" -DOUTPUT="$WORK/commit.h" -P "$SOURCE_DIR/cmake/git_commit.cmake"
  described=$(git -C "$SOURCE_DIR" describe --always --dirty)
  expect_eq "$(cat "$WORK/commit.h")" "#pragma once
#define BLOOMTOOL_GIT_COMMIT \"$described\"" "commit of the checkout"
fi

finish
