#!/usr/bin/env bash
# `cpack -G DEB` from the build tree makes four packages, split as Debian splits a library:
# - bloomtool: the program (stripped), the gzipped manual, the completions;
# - libbloomtool0: libbloomtool.so.0 (stripped, SONAME link), shlibs, a symbols file listing
#   exactly abi/libbloomtool.symbols, an ldconfig trigger and no maintainer scripts;
# - libbloomtool-dev: headers, the static library, the libbloomtool.so link, CMake and pkg-config
#   files (naming /usr), depending on libbloomtool0 of the same version;
# - python3-bloomtool: the Python module, depending on python3 and the library; architecture all,
#   or, with its extension bloomtool._speedups (stripped), of the build's architecture, for the
#   build's Python 3.X (python3 (<< 3.X+1)) and with the extension's shared library dependencies.
# Each has its copyright file and gzipped changelog, a maintainer, section and description, every
# path Debian's mode (directories 0755, files 0644, the program 0755) even when cpack runs under
# umask 002 with source files of mode 0664 (a release tarball's); python3-bloomtool byte-compiles
# in postinst and cleans up in prerm (py3compile / py3clean); and
# lintian reports no tag at all (errors and warnings; the Debian-archive-only tag
# initial-upload-closes-no-bugs is overridden). The unpacked packages work together: the Python
# module loads the packaged library, the packaged program runs. Without lintian (installed by
# tools/quickstart.sh) that check is skipped with a message, the others still run.
source "$(dirname "$0")/../cli/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build tree}"
: "${LIBDIR:?LIBDIR must be the install libdir, relative to the prefix}"
SOURCE_DIR=$(cd "$(dirname "$0")/../.." && pwd)
for tool in cpack dpkg-deb dpkg-shlibdeps readelf; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (tools/quickstart.sh installs dpkg-dev and binutils)"
    exit 0
  fi
done

# Under umask 002 and with a copyright file of mode 0664 (what a release tarball unpacks to, and
# what a checkout has under umask 002): the packages' modes must still be Debian's.
mkdir "$WORK/src"
cp "$SOURCE_DIR/packaging/copyright" "$WORK/src/copyright"
chmod 0664 "$WORK/src/copyright"
run bash -c 'umask 002 && exec "$@"' umask002 cpack --config "$BUILD_DIR/CPackConfig.cmake" -G DEB \
  -B "$WORK/out" -D CPACK_BLOOMTOOL_COPYRIGHT="$WORK/src/copyright"
expect_rc 0 "cpack -G DEB"
declare -A deb
for p in bloomtool libbloomtool0 libbloomtool-dev python3-bloomtool; do
  files=("$WORK"/out/"${p}"_*.deb)
  [ -f "${files[0]}" ] || { fail "cpack made no ${p}_*.deb: $OUT $ERR"; finish; }
  deb[$p]=${files[0]}
  echo "package: $(basename "${files[0]}")"
done
expect_eq "$(find "$WORK/out" -maxdepth 1 -name '*.deb' | wc -l)" 4 "four packages"

contents_of() { dpkg-deb -c "${deb[$1]}" | awk '{print $6}' | sed 's|^\./|/|'; }
expect_contents() {  # expect_contents PACKAGE FILE...
  local p=$1 contents
  shift
  contents=$(contents_of "$p")
  for f in "$@"; do
    CHECKS=$((CHECKS + 1))
    grep -qxF "$f" <<<"$contents" || fail "$f is not in $p"
  done
}
expect_contents bloomtool /usr/bin/bloomtool /usr/share/man/man1/bloomtool.1.gz \
  /usr/share/man/man1/bloomtool-build.1.gz /usr/share/man/man5/bloomtool-format.5.gz \
  /usr/share/bash-completion/completions/bloomtool /usr/share/zsh/vendor-completions/_bloomtool
expect_contents libbloomtool0 "/usr/$LIBDIR/libbloomtool.so.0" \
  "/usr/$LIBDIR/libbloomtool.so.0.$(sed -n 's/^project(bloomtool VERSION 0\.\([0-9.]*\).*/\1/p' "$SOURCE_DIR/CMakeLists.txt")"
expect_contents libbloomtool-dev /usr/include/bloomtool/bloomtool.h /usr/include/bloomtool/version.h \
  /usr/include/bloomtool/bloomtool_c.h /usr/include/bloomtool/filter.h "/usr/$LIBDIR/libbloomtool.a" \
  "/usr/$LIBDIR/libbloomtool.so" "/usr/$LIBDIR/pkgconfig/bloomtool.pc" \
  "/usr/$LIBDIR/pkgconfig/bloomtool-c.pc" "/usr/$LIBDIR/cmake/bloomtool/bloomtoolConfig.cmake"
# The -dev package's headers are exactly the public set.
expect_eq "$(contents_of libbloomtool-dev | sed -n 's|^/usr/include/bloomtool/\(..*\)|\1|p' | sort)" \
  "$(grep -v '^#' "$SOURCE_DIR/tests/package/public_headers.txt" | sort)" "libbloomtool-dev headers"
expect_contents python3-bloomtool /usr/lib/python3/dist-packages/bloomtool/__init__.py \
  /usr/lib/python3/dist-packages/bloomtool/building.py \
  /usr/lib/python3/dist-packages/bloomtool/_libpath.py /usr/lib/python3/dist-packages/bloomtool/py.typed
for p in "${!deb[@]}"; do
  expect_contents "$p" "/usr/share/doc/$p/copyright" "/usr/share/doc/$p/changelog.Debian.gz"
  for field in Maintainer Section Description; do
    run dpkg-deb -f "${deb[$p]}" "$field"
    CHECKS=$((CHECKS + 1))
    [ -n "$OUT" ] || fail "$p: control field $field is empty"
  done
done
CHECKS=$((CHECKS + 1))
contents_of bloomtool | grep -qE '/share/man/.*\.[0-9]$' && fail "uncompressed man pages in the package"
CHECKS=$((CHECKS + 1))
contents_of bloomtool | grep -q libbloomtool && fail "the program's package holds a library"

run dpkg-deb -f "${deb[bloomtool]}" Depends
expect_match "$OUT" "libc6" "bloomtool Depends (from dpkg-shlibdeps)"
expect_match "$OUT" "libzstd1" "bloomtool Depends names libzstd1"
run dpkg-deb -f "${deb[libbloomtool0]}" Depends
expect_match "$OUT" "libc6 \(>= [0-9.]+\)" "libbloomtool0 Depends (from dpkg-shlibdeps)"
expect_match "$OUT" "libstdc\+\+6" "libbloomtool0 Depends names libstdc++6"
version=$(dpkg-deb -f "${deb[libbloomtool0]}" Version)
run dpkg-deb -f "${deb[libbloomtool-dev]}" Depends
expect_match "$OUT" "^libbloomtool0 \(= $version\)" "libbloomtool-dev depends on its library"
run dpkg-deb -f "${deb[python3-bloomtool]}" Depends Architecture
expect_match "$OUT" "python3" "python3-bloomtool depends on python3"
expect_match "$OUT" "libbloomtool0" "python3-bloomtool depends on the library"
extension=$(contents_of python3-bloomtool | grep -E '^/usr/lib/python3/dist-packages/bloomtool/_speedups\.cpython-3[0-9]+-.*\.so$')
if [ -n "$extension" ]; then
  expect_match "$OUT" "Architecture: $(dpkg --print-architecture)" "python3-bloomtool with its extension"
  expect_match "$OUT" "python3 \(>= 3\.[0-9]+~\), python3 \(<< 3\.[0-9]+\)" "python3-bloomtool's Python version"
  expect_match "$OUT" "libc6" "python3-bloomtool Depends names the extension's libc6 (dpkg-shlibdeps)"
else
  expect_match "$OUT" "Architecture: all" "python3-bloomtool without the extension is architecture all"
fi

# Every installed path of every package: directories 0755, files 0644 (the program 0755), all
# root's; the control members 0644 (maintainer scripts 0755). The build decides, not the checkout.
for p in "${!deb[@]}"; do
  bad=$(dpkg-deb -c "${deb[$p]}" | awk '
    $1 ~ /^l/ { next }
    { want = ($1 ~ /^d/) ? "drwxr-xr-x" : ($6 ~ /^\.\/usr\/bin\// ? "-rwxr-xr-x" : "-rw-r--r--") }
    $1 != want || $2 != "root/root" { print $1, $2, $6, "(want " want " root/root)" }')
  CHECKS=$((CHECKS + 1))
  [ -z "$bad" ] || fail "$p: installed paths with other modes or owners:
$bad"
  expect_match "$(dpkg-deb -c "${deb[$p]}" | grep -c '^-')" "^[1-9]" "$p: files listed"
  bad=$(dpkg-deb --ctrl-tarfile "${deb[$p]}" | tar -tvf - | awk '
    $1 ~ /^d/ { next }
    { want = ($6 ~ /(postinst|prerm|postrm|preinst)$/) ? "-rwxr-xr-x" : "-rw-r--r--" }
    $1 != want { print $1, $6, "(want " want ")" }')
  CHECKS=$((CHECKS + 1))
  [ -z "$bad" ] || fail "$p: control members with other modes:
$bad"
done

# python3-bloomtool byte-compiles on configure and removes the byte code before removal, as
# Debian's Python packages do (py3compile / py3clean -p, here stand-ins that log their calls).
dpkg-deb -e "${deb[python3-bloomtool]}" "$WORK/pyctl"
mkdir "$WORK/stub"
for tool in py3compile py3clean; do
  printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$tool" "$WORK/stub/log" >"$WORK/stub/$tool"
  chmod +x "$WORK/stub/$tool"
done
for step in "postinst configure" "prerm remove" "postinst abort-upgrade 0.1.0-1"; do
  run env PATH="$WORK/stub:$PATH" sh -e "$WORK/pyctl/${step%% *}" ${step#* }
  expect_rc 0 "python3-bloomtool $step"
done
expect_eq "$(cat "$WORK/stub/log")" "py3compile -p python3-bloomtool
py3clean -p python3-bloomtool" "python3-bloomtool's maintainer scripts"

# The library's control files: shlibs, symbols (the ABI list of record), the ldconfig trigger.
dpkg-deb -e "${deb[libbloomtool0]}" "$WORK/control"
expect_eq "$(cat "$WORK/control/shlibs")" "libbloomtool 0 libbloomtool0 (>= ${version%-*})" "shlibs"
expect_eq "$(cat "$WORK/control/triggers")" "activate-noawait ldconfig" "triggers"
CHECKS=$((CHECKS + 1))
ls "$WORK/control" | grep -qE '^(postinst|postrm|preinst|prerm)$' && fail "maintainer scripts in libbloomtool0"
expect_eq "$(sed -n 's/^ \([^ ]*\) .*/\1/p' "$WORK/control/symbols" | grep -v '^BLOOMTOOL_0@' | sort)" \
  "$(grep -v '^#' "$SOURCE_DIR/abi/libbloomtool.symbols" | sed 's/@@/@/' | sort)" "symbols = abi list"

# Unpacked together: the program runs, the library is stripped and has its SONAME, the Python
# module finds the packaged library through its _libpath.py.
mkdir "$WORK/root"
for p in "${!deb[@]}"; do dpkg-deb -x "${deb[$p]}" "$WORK/root"; done
expect_match "$(grep '^prefix=' "$WORK/root/usr/$LIBDIR/pkgconfig/bloomtool.pc")" "^prefix=/usr$" "bloomtool.pc prefix"
for bin in "usr/bin/bloomtool" "usr/$LIBDIR/libbloomtool.so.0" ${extension:+"${extension#/}"}; do
  run readelf -S "$WORK/root/$bin"
  CHECKS=$((CHECKS + 1))
  grep -qE '\.debug_|\.symtab' <<<"$OUT" && fail "/$bin is not stripped"
done
expect_match "$(readelf -d "$WORK/root/usr/$LIBDIR/libbloomtool.so.0")" "Library soname: \[libbloomtool\.so\.0\]" "SONAME"
run "$WORK/root/usr/bin/bloomtool" --version
expect_rc 0 "the packaged bloomtool runs"
expect_match "$OUT" "^bloomtool [0-9]" "the packaged bloomtool --version"
if [ "${BLOOMTOOL_SANITIZED:-0}" != 1 ] && command -v python3 >/dev/null; then
  run env -u BLOOMTOOL_LIBRARY PYTHONPATH="$WORK/root/usr/lib/python3/dist-packages" python3 -c "
import bloomtool, os
print(os.path.realpath(bloomtool._find_library()))
with bloomtool.open('$TESTDATA/golden/v1-bloom-standard.bf') as f:
    print(f.info['kind'], f.contains_many([b'']))
print(bloomtool._fast is not None)"
  expect_eq "$OUT" "$(realpath "$WORK/root/usr/$LIBDIR/libbloomtool.so.0")
bloom [False]
$([ -n "$extension" ] && echo True || echo False)" "the packaged Python module uses the packaged library (and its extension): $ERR"
fi

if ! command -v lintian >/dev/null; then
  echo "SKIP: lintian is not installed; the packages were not checked by it (tools/quickstart.sh installs it)"
  finish
fi
# Errors and warnings fail the test (one lintian run for the four packages; each tag names its
# package); informational tags are printed for the record.
run lintian --fail-on error,warning --tag-display-limit 0 "${deb[@]}"
expect_rc 0 "lintian reports errors or warnings"
echo "lintian $(lintian --version | awk '{print $2}'), ${!deb[*]}:"
printf '%s\n' "${OUT:-(no tags)}" "$(grep -v 'root privileges' <<<"$ERR")" | sed '/^$/d;s/^/  /'

finish
