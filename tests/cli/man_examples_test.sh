#!/usr/bin/env bash
# The EXAMPLES of bloomtool(1) are real pipelines: the nightly cron script and the URL dedupe are
# taken from the page as written, with only their directories (and the `crawl` placeholder)
# replaced, and run.
MAN_DIR=$(cd "$(dirname "$0")/../../man" && pwd)
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
mkdir -p bin srv/filters srv/exports
ln -s "$BT" bin/bloomtool
export PATH="$WORK/bin:$PATH"

# Example N (from 1) of bloomtool(1) as shell text: the Nth .EX/.EE block, roff escapes undone.
example() {
  awk -v n="$1" '/^\.EX$/ { i++; next } /^\.EE$/ { if (i == n) exit; next } i == n' \
    "$MAN_DIR/bloomtool.1" | sed -e 's/\\-/-/g' -e 's/\\e/\\/g'
}

# --- nightly cron rebuild with a size sanity check ---
example 1 | sed "s|/srv/|$WORK/srv/|g" >cron.sh
grep -q '^bloomtool build ' cron.sh || fail "example 1 is not the cron script: $(head -3 cron.sh)"
export_of() {  # N: an NDJSON export of N users, every 10th without an e-mail field
  awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) if (i % 10) printf "{\"email\":\" User%d@Example.com\"}\n", i; else printf "{\"id\":%d}\n", i }' |
    zstd -q >srv/exports/blocked.ndjson.zst
}
export_of 20000
run sh cron.sh
expect_rc 2 "cron: records without an e-mail are an error (the export is not what it should be)"
[ ! -e srv/filters/blocked.bf ] || fail "cron: published despite bad records"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"email\":\" User%d@Example.com\"}\n", i }' |
  zstd -q >srv/exports/blocked.ndjson.zst
run sh cron.sh
expect_rc 0 "cron: first run publishes"
cp srv/filters/blocked.bf first.bf
run bloomtool query srv/filters/blocked.bf --count - <<<"user7@example.COM"
expect_eq "$OUT" "1" "cron: the published filter answers with its normalisation"
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "{\"email\":\"user%d@example.com\"}\n", i }' |
  zstd -q >srv/exports/blocked.ndjson.zst
run sh cron.sh
expect_rc 1 "cron: a truncated export is not published"
expect_match "$ERR" "blocked.bf.new: [0-9]+ bytes, was [0-9]+: not published" "cron: says why"
expect_same_file srv/filters/blocked.bf first.bf "cron: the old filter stays"
awk 'BEGIN { for (i = 0; i < 21000; i++) printf "{\"email\":\"user%d@example.com\"}\n", i }' |
  zstd -q >srv/exports/blocked.ndjson.zst
run sh cron.sh
expect_rc 0 "cron: a grown export is published"
cmp -s srv/filters/blocked.bf first.bf && fail "cron: the filter was not replaced"

# --- dedupe a URL stream ---
example 3 >dedupe.sh
grep -q 'query seen.bf --absent' dedupe.sh || fail "example 3 is not the dedupe pipeline"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "https://site%d.example/p/%d\n", i % 7, i }' | zstd -q >seen-urls.zst
# Today's crawl: 1000 URLs seen before (written differently), 500 new ones.
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "HTTPS://Site%d.EXAMPLE:443/p/%d/#frag\n", (i * 3) % 7, i * 3 }' | zstd -q >crawl-1.urls.zst
awk 'BEGIN { for (i = 0; i < 500; i++) printf "https://new%d.example/q/%d\n", i % 5, i }' | zstd -q >crawl-2.urls.zst
crawl() { cat >crawled.txt; }
export -f crawl
run bash dedupe.sh
expect_rc 0 "dedupe pipeline"
new=$(wc -l <new-urls.txt)
# The filter is at 0.01%: at most a few of the 500 new URLs may be taken for seen ones.
[ "$new" -ge 495 ] && [ "$new" -le 500 ] || fail "dedupe: $new new URLs, expected about 500"
CHECKS=$((CHECKS + 1))
grep -qi 'site' new-urls.txt && fail "dedupe: a URL seen before was passed on"
expect_same_file crawled.txt new-urls.txt "dedupe: the crawler got exactly the new URLs"
expect_eq "$(zstdcat seen-urls.zst | wc -l)" "$((3000 + new))" "dedupe: seen URLs grew by the new ones"

finish
