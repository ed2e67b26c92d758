#!/usr/bin/env bash
# Generates the golden filter files in testdata/golden/ and the known-bad files in testdata/bad/.
#
#   tools/make_golden.sh [BUILD_DIR]          (default build/release; needs bloomtool and craft_files)
#   tools/make_golden.sh --force [BUILD_DIR]  also rewrite golden files that already exist
#
# A golden file is written once, by the bloomtool of its format version, and then kept forever:
# tests/unit/golden_test.cpp checks that every later bloomtool still reads it identically. So this
# script only creates golden files that are missing; --force is for a deliberate, reviewed reset.
# The bad files are derived from the golden ones by tests/tools/craft_files.cpp and are always
# regenerated (deterministically: ctest checks that regenerating them changes no byte).
set -euo pipefail
cd "$(dirname "$0")/.."

force=0
if [ "${1:-}" = "--force" ]; then
  force=1
  shift
fi
build=${1:-build/release}
bt=$build/apps/bloomtool/bloomtool
craft=$build/tests/tools/craft_files
for exe in "$bt" "$craft"; do
  [ -x "$exe" ] || { echo "make_golden: $exe not built (cmake --build --preset release)" >&2; exit 2; }
done

export SOURCE_DATE_EPOCH=1700000000  # 2023-11-14T22:13:20Z
keys=testdata/golden/keys.txt
# The signing key of the signed golden files: a test key, public by being in the repository. Git
# does not keep its mode, and --sign refuses a secret key others may read: a private copy signs.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
install -m 600 testdata/golden/golden-signing.key "$tmp/golden-signing.key"
signing_key=$tmp/golden-signing.key

# Bumped Ribbon has layers from 1,025 keys on: the golden keys, then the first 1,960 test URLs
# (2,000 keys; every golden file holds the golden keys).
bumped_keys=$tmp/keys-2000.txt
{ cat "$keys"; head -n 1960 testdata/urls-10k.txt; } >"$bumped_keys"

# name | arguments after "bloomtool" (the output path is appended as -o). One line per golden file;
# a new kind or format feature gets a new line here and an entry in tests/unit/golden_files.h.
golden=(
  "v1-bloom-standard.bf|build -q --threads 1 -m 1024 -k 5 --variant standard --label golden-standard $keys"
  "v1-bloom-blocked.bf|build -q --threads 1 -m 1024 -k 6 --variant blocked --label golden-blocked $keys"
  "v1-xor-8.bf|xor-build -q --threads 1 --layout xor --fingerprint 8 --label golden-xor $keys"
  "v1-xor-16.bf|xor-build -q --threads 1 --layout xor --fingerprint 16 --label golden-xor-16 $keys"
  "v1-fuse-8.bf|xor-build -q --threads 1 --layout fuse --fingerprint 8 --label golden-fuse-8 $keys"
  "v1-fuse-16.bf|xor-build -q --threads 1 --layout fuse --fingerprint 16 --label golden-fuse $keys"
  "v1-bloom-normalised.bf|build -q --threads 1 -m 1024 -k 5 --trim --lowercase --label golden-normalised $keys"
  "v1-bloom-signed.bf|build -q --threads 1 -m 1024 -k 5 --seed 5eed0123456789ab --sign $signing_key --label golden-signed $keys"
  "v1.1-raw-bloom-standard.bf|build -q --threads 1 -m 1024 -k 5 --variant standard --codec raw --label golden-standard $keys"
  "v1.1-raw-bloom-blocked.bf|build -q --threads 1 -m 1024 -k 6 --variant blocked --codec raw --label golden-blocked $keys"
  "v1.1-raw-xor-8.bf|xor-build -q --threads 1 --layout xor --fingerprint 8 --codec raw --label golden-xor $keys"
  "v1.1-raw-fuse-16.bf|xor-build -q --threads 1 --layout fuse --fingerprint 16 --codec raw --label golden-fuse $keys"
  "v1.2-ribbon.bf|build-static -q --threads 1 --kind ribbon --standard-ribbon -p 1% --label golden-ribbon $keys"
  "v1.2-raw-ribbon.bf|build-static -q --threads 1 --kind ribbon --standard-ribbon -p 0.1% --codec raw --label golden-ribbon-raw $keys"
  "v1.3-ribbon-bumped.bf|build-static -q --threads 1 -p 1% --label golden-ribbon-bumped $bumped_keys"
  "v1.3-raw-ribbon-bumped.bf|build-static -q --threads 1 -p 0.1% --codec raw --label golden-ribbon-bumped-raw $bumped_keys"
  "v1.3-fuse-8-partitioned.bf|build-static -q --threads 1 --kind fuse --partitions 4 --label golden-partitioned $keys"
  "v1.3-raw-ribbon-partitioned.bf|build-static -q --threads 1 --kind ribbon --standard-ribbon -p 1% --partitions 2 --codec raw --label golden-partitioned-raw $keys"
)

for entry in "${golden[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  out=testdata/golden/$name
  if [ -e "$out" ] && [ $force -eq 0 ]; then
    echo "make_golden: keeping $out"
    continue
  fi
  # shellcheck disable=SC2086
  "$bt" $args -o "$out"
  echo "make_golden: wrote $out ($(stat -c %s "$out") bytes)"
done

# Format 1.1, hash ids 2-4: the peers' own files (built as the peers build them) and the bloomtool
# files `convert` makes of them. The MITZ_32 file comes from the library's Guava component (the
# CLI builds MITZ_64 only, as Guava's create does); the plain DCSO file carries a data block
# (as `bloom set-data` appends it).
interop=$build/tests/interop/interop_tool
[ -x "$interop" ] || { echo "make_golden: $interop not built" >&2; exit 2; }
[ -e testdata/golden/guava-mitz32.bin ] && [ $force -eq 0 ] ||
  "$interop" guava-build 40 0.05 32 "$keys" testdata/golden/guava-mitz32.bin
foreign=(
  "guava-mitz64.bin|build -q --threads 1 --compat guava -n 40 -p 0.05 $keys"
  "dcso.bloom|build -q --threads 1 --compat dcso -n 40 -p 0.05 $keys"
  "dcso.bloom.gz|build -q --threads 1 --compat dcso --gzip -n 40 -p 0.05 $keys"
)
for entry in "${foreign[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  out=testdata/golden/$name
  if [ -e "$out" ] && [ $force -eq 0 ]; then
    echo "make_golden: keeping $out"
    continue
  fi
  # shellcheck disable=SC2086
  "$bt" $args -o "$out"
  case $name in
    dcso.bloom) printf 'golden data block\n' >>"$out" ;;
  esac
  echo "make_golden: wrote $out ($(stat -c %s "$out") bytes)"
done
converted=(
  "v1.1-bloom-guava-mitz64.bf|guava-mitz64.bin|guava"
  "v1.1-bloom-guava-mitz32.bf|guava-mitz32.bin|guava"
  "v1.1-bloom-dcso.bf|dcso.bloom|dcso"
  "v1.1-bloom-dcso-gzip.bf|dcso.bloom.gz|dcso"
)
for entry in "${converted[@]}"; do
  IFS='|' read -r name source from <<<"$entry"
  out=testdata/golden/$name
  if [ -e "$out" ] && [ $force -eq 0 ]; then
    echo "make_golden: keeping $out"
    continue
  fi
  touch -d @"$SOURCE_DATE_EPOCH" "testdata/golden/$source"  # created = the source's mtime
  "$bt" convert -q "testdata/golden/$source" --from "$from" --to bloomtool -o "$out"
  echo "make_golden: wrote $out ($(stat -c %s "$out") bytes)"
done

rm -f testdata/bad/*.bf
"$craft" bad testdata/golden testdata/bad
echo "make_golden: wrote $(find testdata/bad -name '*.bf' | wc -l) files in testdata/bad/"
