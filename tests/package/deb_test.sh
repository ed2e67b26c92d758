#!/usr/bin/env bash
# `cpack -G DEB` from the build tree: the package holds the program (stripped), the gzipped
# manual, the library, its headers, CMake and pkg-config files (naming /usr), the completions,
# the copyright file and the gzipped changelog; its control file names the maintainer, section and
# the shared libraries it needs; and lintian reports no error. Without lintian (installed by
# tools/quickstart.sh) that last check is skipped with a message, the others still run.
source "$(dirname "$0")/../cli/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build tree}"
: "${LIBDIR:?LIBDIR must be the install libdir, relative to the prefix}"
for tool in cpack dpkg-deb dpkg-shlibdeps readelf; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (tools/quickstart.sh installs dpkg-dev and binutils)"
    exit 0
  fi
done

run cpack --config "$BUILD_DIR/CPackConfig.cmake" -G DEB -B "$WORK/out"
expect_rc 0 "cpack -G DEB"
debs=("$WORK"/out/bloomtool_*.deb)
[ -f "${debs[0]}" ] || { fail "cpack made no bloomtool_*.deb: $OUT $ERR"; finish; }
deb=${debs[0]}
echo "package: $(basename "$deb")"

contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
for f in /usr/bin/bloomtool /usr/share/man/man1/bloomtool.1.gz /usr/share/man/man1/bloomtool-build.1.gz \
  /usr/share/man/man5/bloomtool-format.5.gz /usr/share/bash-completion/completions/bloomtool \
  /usr/share/zsh/vendor-completions/_bloomtool /usr/include/bloomtool/bloomtool.h \
  /usr/include/bloomtool/version.h "/usr/$LIBDIR/libbloomtool.a" "/usr/$LIBDIR/pkgconfig/bloomtool.pc" \
  "/usr/$LIBDIR/cmake/bloomtool/bloomtoolConfig.cmake" /usr/share/doc/bloomtool/copyright \
  /usr/share/doc/bloomtool/changelog.Debian.gz; do
  CHECKS=$((CHECKS + 1))
  grep -qxF "$f" <<<"$contents" || fail "$f is not in the package"
done
CHECKS=$((CHECKS + 1))
grep -qE '/share/man/.*\.[0-9]$' <<<"$contents" && fail "uncompressed man pages in the package"

for field in Maintainer Section Description; do
  run dpkg-deb -f "$deb" "$field"
  CHECKS=$((CHECKS + 1))
  [ -n "$OUT" ] || fail "control field $field is empty"
done
run dpkg-deb -f "$deb" Depends
expect_match "$OUT" "libc6" "Depends (from dpkg-shlibdeps)"
expect_match "$OUT" "libzstd1" "Depends names libzstd1"

mkdir "$WORK/root"
dpkg-deb -x "$deb" "$WORK/root"
expect_match "$(grep '^prefix=' "$WORK/root/usr/$LIBDIR/pkgconfig/bloomtool.pc")" "^prefix=/usr$" "bloomtool.pc prefix"
run readelf -S "$WORK/root/usr/bin/bloomtool"
CHECKS=$((CHECKS + 1))
grep -qE '\.debug_|\.symtab' <<<"$OUT" && fail "/usr/bin/bloomtool is not stripped"
run "$WORK/root/usr/bin/bloomtool" --version
expect_rc 0 "the packaged bloomtool runs"
expect_match "$OUT" "^bloomtool [0-9]" "the packaged bloomtool --version"

if ! command -v lintian >/dev/null; then
  echo "SKIP: lintian is not installed; the package was not checked by it (tools/quickstart.sh installs it)"
  finish
fi
# Errors fail the test; warnings and informational tags are printed for the record.
run lintian --fail-on error --tag-display-limit 0 "$deb"
expect_rc 0 "lintian reports errors"
echo "lintian $(lintian --version | awk '{print $2}'):"
printf '%s\n' "${OUT:-(no tags)}" "$ERR" | sed '/^$/d;s/^/  /'

finish
