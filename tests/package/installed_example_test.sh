#!/usr/bin/env bash
# The installed library, as a user meets it: `cmake --install` into an empty prefix, then
# examples/ configured against that prefix alone (find_package(bloomtool CONFIG)), built, run,
# and its output checked; then the same program compiled and linked with nothing but
# `pkg-config --cflags --libs bloomtool`. The public headers must stand without lib/src.
# In a sanitized build (asan preset) the installed library is instrumented, so the example is
# compiled and linked with the same -fsanitize flags.
source "$(dirname "$0")/../cli/lib.sh"
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
: "${BUILD_DIR:?BUILD_DIR must name the build tree}"
: "${LIBDIR:?LIBDIR must be the install libdir, relative to the prefix}"

flags=()
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && flags=(-fsanitize=address,undefined -fno-sanitize-recover=all)
expected="apple: maybe present
cherry: maybe present
durian: absent"

prefix=$WORK/prefix
run cmake --install "$BUILD_DIR" --prefix "$prefix"
expect_rc 0 "cmake --install"
for f in include/bloomtool/bloomtool.h include/bloomtool/version.h "$LIBDIR/libbloomtool.a" \
  "$LIBDIR/cmake/bloomtool/bloomtoolConfig.cmake" "$LIBDIR/cmake/bloomtool/bloomtoolConfigVersion.cmake" \
  "$LIBDIR/pkgconfig/bloomtool.pc"; do
  CHECKS=$((CHECKS + 1))
  [ -f "$prefix/$f" ] || fail "cmake --install did not install $f"
done
# No private header is installed, and no installed header refers to one.
CHECKS=$((CHECKS + 1))
bad=$(grep -h '^#include "' "$prefix"/include/bloomtool/*.h | grep -v '^#include "bloomtool/')
[ -z "$bad" ] || fail "installed headers include private headers: $bad"
# The entry header includes every other public header.
for h in "$prefix"/include/bloomtool/*.h; do
  name=$(basename "$h")
  [ "$name" = bloomtool.h ] && continue
  CHECKS=$((CHECKS + 1))
  grep -qxF "#include \"bloomtool/$name\"" "$prefix/include/bloomtool/bloomtool.h" ||
    fail "bloomtool.h does not include bloomtool/$name (lib/include/bloomtool/bloomtool.h lists them all)"
done

# CMake package, in a fresh build directory that knows only the prefix.
run cmake -S "$SOURCE_DIR/examples" -B "$WORK/example-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=${flags[*]}" "-DCMAKE_EXE_LINKER_FLAGS=${flags[*]}"
expect_rc 0 "configure examples/ with find_package(bloomtool CONFIG)"
run cmake --build "$WORK/example-build"
expect_rc 0 "build examples/"
run "$WORK/example-build/build_and_query" "$WORK/cmake.bf"
expect_rc 0 "run the example built with CMake"
expect_eq "$OUT" "$expected" "output of the example built with CMake"
run "$BLOOMTOOL" query "$WORK/cmake.bf" --count - <<<$'apple\nbanana\ncherry'
expect_eq "$OUT" "3" "bloomtool reads the example's filter"

# A version the package does not offer is refused.
mkdir -p "$WORK/wrong-version"
cat >"$WORK/wrong-version/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(wrong_version LANGUAGES CXX)
find_package(bloomtool 99 CONFIG REQUIRED)
CMAKE
run cmake -S "$WORK/wrong-version" -B "$WORK/wrong-version/build" -DCMAKE_PREFIX_PATH="$prefix"
CHECKS=$((CHECKS + 1))
[ "$RC" -ne 0 ] || fail "find_package(bloomtool 99) succeeded against version $("$BLOOMTOOL" --version | head -1)"

# pkg-config.
export PKG_CONFIG_PATH=$prefix/$LIBDIR/pkgconfig
run pkg-config --modversion bloomtool
expect_eq "$OUT" "$("$BLOOMTOOL" --version | head -1 | cut -d' ' -f2)" "pkg-config --modversion"
run pkg-config --cflags --libs bloomtool
expect_rc 0 "pkg-config --cflags --libs bloomtool"
pc_flags=$OUT
expect_match "$pc_flags" "-I$prefix/include" "pkg-config --cflags names the prefix"
expect_match "$pc_flags" "-lbloomtool" "pkg-config --libs"
# shellcheck disable=SC2086 # the flags are words
run "${CXX:-c++}" -std=c++20 "${flags[@]}" -o "$WORK/pc_example" \
  "$SOURCE_DIR/examples/build_and_query.cpp" $pc_flags
expect_rc 0 "compile and link the example with pkg-config's flags"
run "$WORK/pc_example" "$WORK/pc.bf"
expect_eq "$OUT" "$expected" "output of the example built with pkg-config"

finish
