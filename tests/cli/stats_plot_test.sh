#!/usr/bin/env bash
# stats: the region fill's chi-squared test, the headroom rows and gate, and --plot. The JSON is
# parsed by python3 and compared field by field with the text rows; the SVG is rendered to PNG by
# rsvg-convert (Debian librsvg2-bin, installed by tools/quickstart.sh test) and the picture
# checked: its size, that it is not blank, and that each mark's colour is there. Skipped (77)
# only for the rendering when rsvg-convert is missing.
source "$(dirname "$0")/lib.sh"

seq 1 20000 >keys.txt
"$BT" build -n 20000 -p 1% -o std.bf keys.txt 2>/dev/null || fail "build std.bf"
"$BT" build --variant blocked -n 20000 -p 1% -o blk.bf keys.txt 2>/dev/null || fail "build blk.bf"
"$BT" xor-build -o fuse.xf keys.txt 2>/dev/null || fail "xor-build fuse.xf"

# jvars FILE NAME=PATH...: sets each shell variable NAME to the member at PATH (slash-separated)
# of the JSON file as JSON text (null, numbers, "strings"); one python3 run per file.
jvars() {
  eval "$(python3 - "$@" <<'PY'
import json, shlex, sys
doc = json.load(open(sys.argv[1]))
for spec in sys.argv[2:]:
    name, path = spec.split('=', 1)
    v = doc
    for p in path.split('/'):
        v = v[int(p)] if isinstance(v, list) else v[p]
    print(f'{name}={shlex.quote(json.dumps(v))}')
PY
)"
}
# ere TEXT: TEXT with the extended-regex specials escaped.
ere() { sed 's/[][\.*^$+?(){}|]/\\&/g' <<<"$1"; }

for f in std blk; do
  run "$BT" stats $f.bf --measure 100000 --json
  expect_rc 0 "$f: stats --json"
  printf '%s\n' "$OUT" >$f.json
  run "$BT" stats $f.bf --measure 100000
  text=$OUT
  jvars $f.json count=regions/count bits=regions/region_bits m=m k=k chi=regions/chi_squared \
    df=regions/df pv=regions/p_value verdict=regions/verdict dk=headroom/design_keys \
    dp=headroom/design_fpr room=headroom/headroom from=headroom/design_from \
    distinct=distinct_keys g125=headroom/fpr_at_1_25x g15=headroom/fpr_at_1_5x \
    g2=headroom/fpr_at_2x k2=headroom/keys_at_2x_design_fpr
  # Regions: count and size, then the test, each printed in both renderings.
  expect_match "$text" "regions +$count of $bits bits" "$f: region count and size in text and JSON"
  expect_eq "$((bits * (count - 1) < m && bits * count >= m))" 1 \
    "$f: the regions cover the m bits"
  expect_eq "$df" "$((count - 1))" "$f: df = regions - 1"
  expect_eq "$verdict" '"uniform"' "$f: a uniform hash passes"
  expect_match "$text" "uniformity +chi-squared $(printf '%.1f' "$chi") on $df df, p-value $(printf '%.4g' "$pv"): consistent with a uniform hash" \
    "$f: the test's statistic and p-value in text and JSON"
  # Headroom: the design point, the growth rates, the key count at 2x the design rate.
  expect_eq "$from" '"geometry"' "$f: default design point"
  pct=$(awk -v r="$room" 'BEGIN { printf "%+.1f", 100 * r }')
  expect_match "$text" "design point +$(printf '%.0f' "$dk") keys at p $(printf '%.4g' "$dp") \(where k = $k is optimal\); $distinct keys now, headroom $(ere "$pct")%" \
    "$f: design point in text and JSON"
  expect_match "$text" "growth +p $(printf '%.4g' "$g125") at 1.25x the keys, $(printf '%.4g' "$g15") at 1.5x, $(printf '%.4g' "$g2") at 2x; 2x the design p at $(printf '%.0f' "$k2") keys" \
    "$f: growth rates in text and JSON"
  awk -v a="$g125" -v b="$g15" -v c="$g2" 'BEGIN { exit !(a < b && b < c) }' ||
    fail "$f: the rate grows with the keys"
done

# --design-fpr: the design point where the model reaches the rate given.
run "$BT" stats std.bf --design-fpr 0.01 --json
printf '%s\n' "$OUT" >given.json
jvars given.json from=headroom/design_from dp=headroom/design_fpr
expect_eq "$from/$dp" '"design_fpr"/0.01' \
  "--design-fpr sets the design rate"

# The gate: --min-headroom passes below the headroom and fails above it; n/a for xor filters.
run "$BT" stats blk.bf --min-headroom 5% --json
expect_rc 0 "--min-headroom 5% on a filter with 9.5% headroom"
printf '%s\n' "$OUT" >gate.json
jvars gate.json name=gates/0/name status=gates/0/status limit=gates/0/limit
expect_eq "$name/$status/$limit" '"min_headroom"/"passed"/0.05' "gate passed"
run "$BT" stats std.bf --min-headroom 50%
expect_rc 1 "--min-headroom 50% fails"
expect_match "$ERR" "std.bf: --min-headroom failed: room for [-+][0-9.]+% more keys before the design p 0.00[0-9]+, less than the minimum \+50.0%" \
  "the failed gate says why"
run "$BT" stats fuse.xf --min-headroom 25% --json
expect_rc 0 "--min-headroom on an xor filter"
printf '%s\n' "$OUT" >fuse.json
jvars fuse.json status=gates/0/status room=headroom/headroom verdict=regions/verdict
expect_eq "$status/$room/$verdict" \
  '"not_applicable"/null/"not_applicable"' "xor filter: no headroom, no regions"
run "$BT" stats std.bf --min-headroom 2x
expect_rc 2 "bad --min-headroom"
expect_one_error_line "bad --min-headroom"

# --plot: one file only; the SVG is written atomically and the text report printed as usual.
run "$BT" stats std.bf blk.bf --plot two.svg
expect_rc 2 "--plot with two files"
expect_eq "$ERR" "bloomtool: --plot: draws one filter; give one file" "--plot with two files: message"
[ -e two.svg ] && fail "--plot with two files wrote a picture"
run "$BT" stats std.bf --plot std.svg
expect_rc 0 "stats --plot"
expect_match "$OUT" "measured p +0\.0" "--plot measures the rate when no measurement was asked for"
expect_match "$(head -c 200 std.svg)" '<svg xmlns="http://www.w3.org/2000/svg"' "an SVG document"
run "$BT" stats fuse.xf --plot fuse.svg
expect_rc 0 "stats --plot of an xor filter"
cp std.bf self.bf
run "$BT" stats self.bf --plot self.bf
expect_rc 2 "--plot onto the filter read"
expect_eq "$ERR" "bloomtool: --plot: self.bf: is both an input and the output; nothing written" "--plot onto the filter: message"
expect_same_file self.bf std.bf "--plot onto the filter: the filter untouched"
run "$BT" stats std.bf --plot /nonexistent-dir/x.svg
expect_rc 2 "--plot into a missing directory"
expect_one_error_line "--plot into a missing directory"

if ! command -v rsvg-convert >/dev/null; then
  echo "SKIPPED: rsvg-convert (Debian librsvg2-bin) is missing: the pictures were not rendered" >&2
  finish_rc=$FAILURES
  [ "$finish_rc" -eq 0 ] && exit 77
  finish
fi

# check_png FILE MARK...: prints the PNG's size, whether it is blank, and holds at least 20 pixels of each
# mark's colour (within 40 of each channel). Decoded with python3's zlib (8-bit RGB or RGBA).
check_png() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
path, marks = sys.argv[1], sys.argv[2:]
data = open(path, 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
at, idat = 8, b''
while at < len(data):
    n, kind = struct.unpack('>I4s', data[at:at + 8])
    body = data[at + 8:at + 8 + n]
    if kind == b'IHDR':
        w, h, depth, colour = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    at += 12 + n
assert depth == 8 and colour in (2, 6), f'unexpected PNG type {depth}/{colour}'
bpp = 3 if colour == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
rows, prev, at = [], bytearray(stride), 0
for _ in range(h):
    f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
    at += 1 + stride
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
print(f'{w}x{h}')
pixels = [tuple(r[i:i + 3]) for r in rows for i in range(0, stride, bpp)]
white = sum(1 for p in pixels if p == (255, 255, 255))
print('blank' if white > 0.98 * len(pixels) else 'drawn')
for m in marks:
    want = tuple(int(m[i:i + 2], 16) for i in (0, 2, 4))
    hits = sum(1 for p in pixels if all(abs(p[j] - want[j]) <= 40 for j in range(3)))
    print(f'{m}:{"present" if hits >= 20 else "missing"}')
PY
}
marks="1f77b4 ff7f0e 2ca02c d62728 9467bd"
# The full-size rendering gives the size; a half-size one (fewer pixels to decode) the marks.
rsvg-convert std.svg -o std.png || fail "rsvg-convert could not render std.svg"
expect_eq "$(od -An -tu1 -j16 -N8 std.png | tr -s ' ')" " 0 0 3 192 0 0 1 184" "std.png is 960 x 440"
rsvg-convert --zoom 0.5 std.svg -o std.png || fail "rsvg-convert could not render std.svg"
got=$(check_png std.png $marks | tr '\n' ' ')
expect_eq "$got" "480x220 drawn 1f77b4:present ff7f0e:present 2ca02c:present d62728:present 9467bd:present " \
  "the picture: size, not blank, curve, design point, today, measurement, region bars"
# The xor picture: rendered at full size; its marks read from the SVG (a flat curve and the
# measurement, no design point, no region bars).
rsvg-convert fuse.svg -o fuse.png || fail "rsvg-convert could not render fuse.svg"
expect_eq "$(od -An -tu1 -j16 -N8 fuse.png | tr -s ' ')" " 0 0 3 192 0 0 1 184" "fuse.png is 960 x 440"
expect_eq "$(grep -c '<circle' fuse.svg)/$(grep -c 'fill="#9467bd"' fuse.svg)/$(grep -c 'a binary-fuse filter has no fill to test' fuse.svg)" \
  "0/0/1" "xor picture: no design point, no region bars, says why"
finish
