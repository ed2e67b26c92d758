#!/usr/bin/env bash
# Writes the seed corpora in tests/fuzz/corpus/<target>/ from testdata/ and a few hand-made inputs.
# Run from anywhere; rerun after adding golden or bad files. The first byte of a key_reader or
# query seed is that target's option byte (see the target's header comment).
set -euo pipefail
cd "$(dirname "$0")/../.."
c=tests/fuzz/corpus
rm -rf "$c" && mkdir -p "$c"/{filter_file,key_reader,query,round_trip}

# filter_file: every golden and known-bad file.
cp testdata/golden/*.bf testdata/bad/*.bf "$c/filter_file/"

# key_reader: option byte (bits 0-2: key limit 1,2,3,7,64,4096,1MiB,default) + input bytes.
kr() { { printf "$1"; cat; } >"$c/key_reader/$2"; }
printf 'a\nb\r\nc' | kr '\x07' lf-crlf-nofinal
printf 'x\n\n\ny\n' | kr '\x00' limit1-empty-lines
printf '\xef\xbb\xbfabc\r\n1234567\n12345678\n' | kr '\x03' bom-limit7
head -50 testdata/urls-10k.txt | kr '\x05' urls
printf 'key\0with\0nul\n\xff\xfe invalid utf8\n' | kr '\x07' nul-and-binary
head -200 testdata/urls-10k.txt | zstd -q -c | kr '\x06' urls-zstd
{ printf 'one\ntwo\n' | zstd -q -c; printf 'three\n' | zstd -q -c; } | kr '\x07' zstd-two-frames
head -200 testdata/urls-10k.txt | zstd -q -c | head -c 60 | kr '\x07' zstd-truncated
printf 'loooooooooong\nshort\n' | kr '\x04' limit64

# query: option byte (bit 0 blocked, bits 1-2 m, bits 3-4 k, bit 5 default seed) + lines.
q() { { printf "$1"; cat; } >"$c/query/$2"; }
head -100 testdata/urls-10k.txt | q '\x24' standard-4096-k1
head -100 testdata/urls-10k.txt | q '\x3f' blocked-65536-k64
cat testdata/golden/keys.txt | q '\x2a' golden-keys-m100
printf 'a\nb\nc\n' | q '\x00\x01\x02\x03\x04\x05\x06\x07\x08' seeded-m1

# round_trip: kind, 4 kind bytes, seed, counts, texts separated by 0xff, then keys.
rt() { printf "$1" >"$c/round_trip/$2"; }
rt '\x00\x00\x00\x04\x07\x15\x7c\x4a\x7f\xb9\x79\x37\x9e\x28\x00\x00\x00\x00\x00\x00\x00\x28\x00\x00\x00\x00\x00\x00\x00\x80\xd9\x53\x65\x00\x00\x00\x00\x00\x00golden\xffbloomtool 0.1.0\xff\xfflines\xff\x00a\xffb\xffc' standard
rt '\x00\x01\x08\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\x02\x01\x00\x00\x00\x00\x00\x00\x00\xff\x00\x00\x00\x00\x00\x00\x00key1\xffkey2' blocked-params
head -c 600 testdata/golden/keys.txt >"$c/round_trip/text"
echo "corpus: $(find "$c" -type f | wc -l) seeds"
