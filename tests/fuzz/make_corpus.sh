#!/usr/bin/env bash
# Writes the hand-made seeds of tests/fuzz/corpus/<target>/ (named files) from testdata/ and a few
# hand-made inputs; the hash-named files beside them are inputs the fuzzers found that add
# coverage, merged in with: build/fuzz/tests/fuzz/fuzz_<target> -merge=1 tests/fuzz/corpus/<target>
# build/fuzz/corpus/<target>. Run from anywhere; rerun after adding golden or bad files. The first byte of a key_reader or
# query seed is that target's option byte (see the target's header comment).
set -euo pipefail
cd "$(dirname "$0")/../.."
c=tests/fuzz/corpus
mkdir -p "$c"/{filter_file,key_reader,query,round_trip,signature}  # keeps inputs merged in from fuzzing

# filter_file: every golden and known-bad file.
cp testdata/golden/*.bf testdata/bad/*.bf "$c/filter_file/"

# key_reader: option byte (bits 0-2: key limit 1,2,3,7,64,4096,1MiB,default; bits 3-4: lines,
# ndjson, delimited, csv), parameter byte (bits 0-1: field or delimiter, 2-3: column, 4-6:
# normalisation), then the input bytes.
kr() { { printf "$1"; cat; } >"$c/key_reader/$2"; }
printf 'a\nb\r\nc' | kr '\x07\x00' lf-crlf-nofinal
printf 'x\n\n\ny\n' | kr '\x00\x00' limit1-empty-lines
printf '\xef\xbb\xbfabc\r\n1234567\n12345678\n' | kr '\x03\x00' bom-limit7
head -50 testdata/urls-10k.txt | kr '\x05\x00' urls
printf 'key\0with\0nul\n\xff\xfe invalid utf8\n' | kr '\x07\x00' nul-and-binary
head -200 testdata/urls-10k.txt | zstd -q -c | kr '\x06\x00' urls-zstd
{ printf 'one\ntwo\n' | zstd -q -c; printf 'three\n' | zstd -q -c; } | kr '\x07\x00' zstd-two-frames
head -200 testdata/urls-10k.txt | zstd -q -c | head -c 60 | kr '\x07\x00' zstd-truncated
printf 'loooooooooong\nshort\n' | kr '\x04\x00' limit64
printf '{"k":"a@B.com"}\n{"k":1}\n\n{"x":2}\n[1]\n{"k":"\\u00e9\\n"}\n' | kr '\x0f\x21' ndjson-email
printf '{"a":["x","y"]}\n{"a":[]}\n"str"\n' | kr '\x0f\x02' ndjson-array
printf 'a,b,c\n1,2\n,,\nx,HTTP://Ex.com:80/p/#f,z\n' | kr '\x17\x35' delimited-col2-url
printf 'k1\tv1\nk2\n\tv3\n' | kr '\x17\x04' delimited-tab-col2
printf '"a,b",c\n"x""y",z\n"open,d\nplain,+1 (555) 010-99\n' | kr '\x1f\x41' csv-phone
printf 'ab  KEY \nab\nAB x\n' | kr '\x07\x50' strip-prefix-trim

# query: option byte (bit 0 blocked, bits 1-2 m, bits 3-4 k, bit 5 default seed, bit 6 xor layout,
# bit 7 16-bit fingerprints) + lines.
q() { { printf "$1"; cat; } >"$c/query/$2"; }
head -100 testdata/urls-10k.txt | q '\x24' standard-4096-k1
head -100 testdata/urls-10k.txt | q '\x3f' blocked-65536-k64
head -300 testdata/urls-10k.txt | q '\xe4' xor16-standard
printf 'dup\n%.0s' $(seq 50) | q '\x24' duplicates
cat testdata/golden/keys.txt | q '\x2a' golden-keys-m100
printf 'a\nb\nc\n' | q '\x00\x01\x02\x03\x04\x05\x06\x07\x08' seeded-m1

# round_trip: kind, 4 kind bytes, seed, counts, texts separated by 0xff, then keys.
rt() { printf "$1" >"$c/round_trip/$2"; }
rt '\x00\x00\x00\x04\x07\x15\x7c\x4a\x7f\xb9\x79\x37\x9e\x28\x00\x00\x00\x00\x00\x00\x00\x28\x00\x00\x00\x00\x00\x00\x00\x80\xd9\x53\x65\x00\x00\x00\x00\x00\x00golden\xffbloomtool 0.1.0\xff\xfflines\xff\x00a\xffb\xffc' standard
rt '\x00\x01\x08\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\x02\x01\x00\x00\x00\x00\x00\x00\x00\xff\x00\x00\x00\x00\x00\x00\x00key1\xffkey2' blocked-params
head -c 600 testdata/golden/keys.txt >"$c/round_trip/text"
rt '\x01\x00\x03\x00\x00\x15\x7c\x4a\x7f\xb9\x79\x37\x9e\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00xor\xff\xff\xff\xff\x00a\xffb\xffc\xffd\xffe\xffa' xor8
rt '\x01\x03\x03\x00\x00\x15\x7c\x4a\x7f\xb9\x79\x37\x9e\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00fuse\xff\xff\xff\xff\x00k1\xffk2\xffk3\xffk4\xffk5\xffk6\xffk7\xffk8' fuse16
# Ribbon (kind byte 2) at 2^-7 from 1,500 keys: bumped (layers), and standard (bit 16 of the kind
# bytes).
rt_ribbon() {
  { printf "$1"; printf '\x15\x7c\x4a\x7f\xb9\x79\x37\x9e'; head -c 26 /dev/zero
    printf 'ribbon\xff\xff\xff\xff\x00'; head -1500 testdata/urls-10k.txt | tr '\n' '\377'; } >"$c/round_trip/$2"
}
rt_ribbon '\x02\x06\x00\x00\x00' ribbon-bumped
rt_ribbon '\x02\x06\x00\x01\x00' ribbon-standard
# signature: mode byte (0 public key file, 1 secret key file, 2 field 9 value, 3 a filter file
# verified against the golden signing key), then the bytes.
sg() { { printf "$1"; cat; } >"$c/signature/$2"; }
sg '\x00' golden-pub <testdata/golden/golden-signing.pub
sg '\x01' golden-key <testdata/golden/golden-signing.key
head -c -1 testdata/golden/golden-signing.pub | sg '\x00' pub-no-final-newline
sg '\x00' secret-as-public <testdata/golden/golden-signing.key
sg '\x03' signed-golden <testdata/golden/v1-bloom-signed.bf
sg '\x03' unsigned-golden <testdata/golden/v1-bloom-standard.bf
# Field 9 of the signed golden file: the 76 bytes before its header checksum.
hb=$(od -An -tu4 -j12 -N4 testdata/golden/v1-bloom-signed.bf | tr -d ' ')
tail -c +$((hb - 8 - 76 + 1)) testdata/golden/v1-bloom-signed.bf | head -c 76 | sg '\x02' field9
printf '\x02\x00\x00\x00' | sg '\x02' field9-unknown-algorithm
echo "corpus: $(find "$c" -type f | wc -l) seeds"
