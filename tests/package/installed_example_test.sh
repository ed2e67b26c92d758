#!/usr/bin/env bash
# The installed libraries, as a user meets them: `cmake --install` into an empty prefix, then
# examples/ configured against that prefix alone (find_package(bloomtool CONFIG)), built, run,
# and their output checked (the C++ library's public API, and the C API in libbloomtool.so.0);
# then the C++ and C programs compiled and linked with nothing but `pkg-config --cflags --libs
# bloomtool` / `bloomtool-c`; then the installed Python module, found by python3 with only
# PYTHONPATH set, finding its own libbloomtool.so.0. The public headers must stand without lib/src.
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
# Under umask 002 (group-writable by default): the installed modes are the build's all the same,
# directories 0755, the program 0755, files 0644 (the shared library too, as Debian wants).
run bash -c 'umask 002 && exec "$@"' umask002 cmake --install "$BUILD_DIR" --prefix "$prefix"
expect_rc 0 "cmake --install"
bad=$(cd "$prefix" && find . ! -type l -printf '%M %p\n' | awk '
  { want = ($1 ~ /^d/ || $2 ~ /^\.\/bin\//) ? "rwxr-xr-x" : "rw-r--r--" }
  substr($1, 2) != want { print $1, $2, "(want " want ")" }')
CHECKS=$((CHECKS + 1))
[ -z "$bad" ] || fail "installed paths with other modes:
$bad"
for f in include/bloomtool/bloomtool.h include/bloomtool/version.h "$LIBDIR/libbloomtool.a" \
  include/bloomtool/bloomtool_c.h include/bloomtool/filter.h "$LIBDIR/pkgconfig/bloomtool-c.pc" \
  "$LIBDIR/cmake/bloomtool/bloomtoolConfig.cmake" "$LIBDIR/cmake/bloomtool/bloomtoolConfigVersion.cmake" \
  "$LIBDIR/pkgconfig/bloomtool.pc"; do
  CHECKS=$((CHECKS + 1))
  [ -f "$prefix/$f" ] || fail "cmake --install did not install $f"
done
# The installed headers are exactly the public set (tests/package/public_headers.txt), and each
# compiles on its own (bloomtool_c.h as C too).
public=$(grep -v '^#' "$SOURCE_DIR/tests/package/public_headers.txt")
expect_eq "$(cd "$prefix/include/bloomtool" && find . -type f -printf '%P\n' | sort)" "$(sort <<<"$public")" \
  "installed headers"
for h in $public; do
  run "${CXX:-c++}" -std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/include" \
    -x c++ - <<<"#include <bloomtool/$h>"
  expect_rc 0 "bloomtool/$h compiles on its own: $ERR"
done
run "${CC:-cc}" -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/include" -x c - \
  <<<"#include <bloomtool/bloomtool_c.h>"
expect_rc 0 "bloomtool/bloomtool_c.h compiles as C: $ERR"
# The C library: the real file, its SONAME link and the development link.
so=$(readlink "$prefix/$LIBDIR/libbloomtool.so")
expect_eq "$so" "libbloomtool.so.0" "libbloomtool.so -> libbloomtool.so.0"
expect_match "$(readlink "$prefix/$LIBDIR/libbloomtool.so.0")" '^libbloomtool\.so\.0\.[0-9]+\.[0-9]+$' \
  "libbloomtool.so.0 -> libbloomtool.so.0.x.y"
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
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=${flags[*]}" "-DCMAKE_C_FLAGS=${flags[*]}" "-DCMAKE_EXE_LINKER_FLAGS=${flags[*]}"
expect_rc 0 "configure examples/ with find_package(bloomtool CONFIG)"
run cmake --build "$WORK/example-build"
expect_rc 0 "build examples/"
run "$WORK/example-build/build_and_query" "$WORK/cmake.bf"
expect_rc 0 "run the example built with CMake"
expect_eq "$OUT" "$expected" "output of the example built with CMake"
run "$BLOOMTOOL" query "$WORK/cmake.bf" --count - <<<$'apple\nbanana\ncherry'
expect_eq "$OUT" "3" "bloomtool reads the example's filter"
# The C++ Reader and the C API answer about the same filter alike; "durian" is not in it.
reader_expected="apple: maybe present
durian: absent
1 of 2 maybe present; bloom filter, m=$("$BLOOMTOOL" stats --json "$WORK/cmake.bf" | grep -o '"m": *[0-9]*' | grep -o '[0-9]*$'), k=7, n=3, model p="
for prog in reader_query c_query; do
  run "$WORK/example-build/$prog" "$WORK/cmake.bf" apple durian
  expect_rc 0 "run $prog"
  expect_eq "${OUT%model p=*}model p=" "$reader_expected" "output of $prog"
  run "$WORK/example-build/$prog" "$TESTDATA/bad/payload-checksum.bf" apple
  expect_rc 2 "$prog on a corrupt file"
  expect_eq "$ERR" "$prog: $TESTDATA/bad/payload-checksum.bf: corrupt: payload checksum mismatch" \
    "$prog reports the CLI's message"
done
# c_query uses the installed shared library (its RUNPATH names the prefix), not a copy.
run ldd "$WORK/example-build/c_query"
expect_match "$OUT" "libbloomtool\.so\.0 => $prefix/$LIBDIR/libbloomtool\.so\.0" "c_query loads the installed library"

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
expect_match "$pc_flags" "$prefix/$LIBDIR/libbloomtool\.a" "pkg-config --libs names the static library"
# shellcheck disable=SC2086 # the flags are words
run "${CXX:-c++}" -std=c++20 "${flags[@]}" -o "$WORK/pc_example" \
  "$SOURCE_DIR/examples/build_and_query.cpp" $pc_flags
expect_rc 0 "compile and link the example with pkg-config's flags"
run "$WORK/pc_example" "$WORK/pc.bf"
expect_eq "$OUT" "$expected" "output of the example built with pkg-config"
CHECKS=$((CHECKS + 1))
ldd "$WORK/pc_example" | grep -q libbloomtool && fail "the C++ example links libbloomtool.so, not the static library"

# The C API with pkg-config: a C compiler, bloomtool-c.pc, the shared library.
run pkg-config --cflags --libs bloomtool-c
expect_rc 0 "pkg-config --cflags --libs bloomtool-c"
expect_match "$OUT" "-lbloomtool" "pkg-config --libs bloomtool-c"
# shellcheck disable=SC2086 # the flags are words
run "${CC:-cc}" -std=c11 -Wall -Wextra -Werror "${flags[@]}" -o "$WORK/pc_c_query" \
  "$SOURCE_DIR/examples/c_query.c" $OUT
expect_rc 0 "compile and link the C example with pkg-config's flags: $ERR"
LD_LIBRARY_PATH=$prefix/$LIBDIR run "$WORK/pc_c_query" "$WORK/pc.bf" cherry
expect_eq "${OUT%%$'\n'*}" "cherry: maybe present" "output of the C example built with pkg-config"

# The Python module: installed under the prefix, it finds libbloomtool.so.0 of the same install
# (no BLOOMTOOL_LIBRARY, no LD_LIBRARY_PATH). Not in a sanitized build (python3 is not).
if [ "${BLOOMTOOL_SANITIZED:-0}" != 1 ] && command -v python3 >/dev/null; then
  pydir=$(find "$prefix" -name __init__.py -path '*/bloomtool/*' -printf '%h\n' | xargs dirname)
  expect_match "$pydir" "^$prefix/lib/python3\.[0-9]+/dist-packages$" "Python module directory"
  CHECKS=$((CHECKS + 1))
  [ -f "$pydir/bloomtool/py.typed" ] || fail "py.typed is not installed"
  run env -u BLOOMTOOL_LIBRARY PYTHONPATH="$pydir" python3 -c "
import bloomtool, sys
with bloomtool.open(sys.argv[1]) as f:
    print(bloomtool.__file__)
    print([k in f for k in ('apple', b'cherry', 'durian')], f.contains_many(['apple', 'durian']))
    print(f.info['label'])" "$WORK/pc.bf"
  expect_rc 0 "the installed Python module: $ERR"
  expect_eq "$OUT" "$pydir/bloomtool/__init__.py
[True, True, False] [True, False]
example" "the installed Python module answers"
  run env -u BLOOMTOOL_LIBRARY PYTHONPATH="$pydir" python3 -c "import bloomtool; print(bloomtool._find_library())"
  expect_eq "$(realpath "$OUT")" "$(realpath "$prefix/$LIBDIR/libbloomtool.so.0")" "the module's library"
fi

finish
