#!/usr/bin/env bash
# The C API against the CLI, through capi_check (a C program that uses only bloomtool_c.h):
# - every golden file, and its conversion to the raw chunked codec, opens, reports the facts
#   `bloomtool stats --json` reports, and answers exactly as `bloomtool query` on its keys and on
#   10,000 non-members, by batch and key by key; a raw payload with a flipped byte is refused;
# - every file of testdata/bad/ is refused with the status and the very message the CLI prints
#   (the optional-field file opens), and so are a missing file and a directory;
# - a 10M-key filter agrees with `bloomtool query` on 1,000,000 members and 1,000,000 non-members
#   (0 disagreements, no member missed; and as a raw-codec file), and 2 threads x 1,000,000
#   queries on one handle agree with the answers computed up front;
# - bloomtool_shutdown racing with queries from 4 threads (capi_check shutdown), 40 rounds on 3
#   files: every call answers right or fails with BLOOMTOOL_ERR_CLOSED, never a crash;
# - argument checks (the empty path too), the empty key, per-thread errors and the short-struct
#   rule (capi_check api).
source "$(dirname "$0")/../cli/lib.sh"
: "${CAPI_CHECK:?CAPI_CHECK must name the capi_check program}"
: "${GEN_KEYS:?GEN_KEYS must name bench/gen_keys}"
: "${JSON_QUERY:?JSON_QUERY must name the json_query test helper}"
C=$CAPI_CHECK
golden=$TESTDATA/golden

# --- golden files: facts and answers -------------------------------------------------------------
# Each also converted to the raw chunked codec (read and verified chunk by chunk where the reader
# does so), which must answer alike.
mkdir raw
for f in "$golden"/*.bf; do
  "$BT" convert -q --codec raw -o "raw/$(basename "$f")" "$f" || fail "convert --codec raw $f"
done
count=0
for f in "$golden"/*.bf raw/*.bf; do
  name=$(basename "$f")
  count=$((count + 1))
  for keys in "$golden/keys.txt" "$TESTDATA/nonmembers-10k.txt"; do
    "$BT" query "$f" "$keys" >cli.out 2>cli.err
    cli_rc=$?
    CHECKS=$((CHECKS + 1))
    [ "$cli_rc" -le 1 ] || fail "$name: bloomtool query failed: $(cat cli.err)"
    for how in batch single; do
      run "$C" query "$f" "$keys" "$how"
      expect_rc 0 "$name: capi_check query $how"
      CHECKS=$((CHECKS + 1))
      [ "$OUT" == "$(cat cli.out)" ] ||
        fail "$name $(basename "$keys") ($how): the C API and bloomtool query disagree"
    done
  done
  # Members are all found (the CLI's own golden tests pin the rest).
  expect_eq "$("$C" query "$f" "$golden/keys.txt" batch | wc -l)" "$(grep -c . "$golden/keys.txt")" \
    "$name: every key of keys.txt is found"

  "$BT" stats --json "$f" >stats.json
  run "$C" info "$f"
  expect_rc 0 "$name: capi_check info"
  info=$OUT
  field() { sed -n "s/^$1=//p" <<<"$info"; }
  for name_ in kind m k label normalisation hash created_unix keys_added distinct_keys seed \
    format_version file_bytes; do
    expect_eq "$(field "$name_")" "$("$JSON_QUERY" stats.json "/$name_")" "$name: $name_"
  done
  variant=$("$JSON_QUERY" stats.json /variant)
  [ "$variant" = null ] && variant=""
  expect_eq "$(field variant)" "$variant" "$name: variant"
  expect_eq "$(field signature_signed)" "$("$JSON_QUERY" stats.json /signature/signed)" "$name: signed"
  key_id=$("$JSON_QUERY" stats.json /signature/key_id)
  [ "$key_id" = null ] && key_id=""
  expect_eq "$(field signature_key_id)" "$key_id" "$name: signing key id"
  expect_eq "$(field signature_verified)" false "$name: not verified by bloomtool_open"
  # stats prints the model rate to 17 significant digits too (JSON numbers round-trip doubles).
  expect_eq "$(python3 -c "print(float('$(field model_fpr)') == float('$("$JSON_QUERY" stats.json /model_fpr)'))")" \
    True "$name: model_fpr ($(field model_fpr))"
done
CHECKS=$((CHECKS + 1))
[ "$count" -ge 14 ] || fail "only $count golden and converted files found"
echo "golden files: $count checked"

# --- refused files: the CLI's message, word for word --------------------------------------------
declare -A status_of=([corrupt]=corrupt [unsupported]=unsupported ["limit exceeded"]="limit exceeded"
                      [ok]=ok)
bad=0
while IFS='|' read -r _ file error contains _; do
  file=$(sed 's/^ *`//;s/` *$//' <<<"$file")
  error=$(sed 's/^ *//;s/ *$//' <<<"$error")
  contains=$(sed 's/^ *`\?//;s/`\? *$//' <<<"$contains")
  [[ "$file" == *.bf ]] || continue
  bad=$((bad + 1))
  path=$TESTDATA/bad/$file
  run "$C" open "$path"
  if [ "$error" = ok ]; then
    expect_rc 0 "$file opens ($OUT)"
    continue
  fi
  expect_rc 2 "$file is refused, not a crash"
  "$BT" query "$path" /dev/null 2>cli.err >/dev/null
  cli_message=$(sed 's/^bloomtool: //' cli.err)
  expect_eq "$OUT" "${status_of[$error]}: $cli_message" "$file: status and the CLI's message"
  CHECKS=$((CHECKS + 1))
  [[ "$OUT" == *"$contains"* ]] || fail "$file: '$OUT' does not contain '$contains'"
done <"$TESTDATA/bad/README.md"
expect_eq "$bad" "$(find "$TESTDATA/bad" -name '*.bf' | wc -l)" "every bad file has a row and was tried"
echo "bad files: $bad checked"

for path in "$WORK/missing.bf" "$WORK"; do
  run "$C" open "$path"
  expect_rc 2 "open $path"
  "$BT" query "$path" /dev/null 2>cli.err >/dev/null
  expect_eq "$OUT" "i/o error: $(sed 's/^bloomtool: //' cli.err)" "open $path: the CLI's message"
done

# A raw payload with a flipped byte: refused, at open or at the first query that reads the chunk
# (as the file is verified), with the CLI's status and message; never an answer.
cp raw/v1-bloom-standard.bf raw-flipped.bf
payload_at=$(( ($(stat -c %s raw-flipped.bf) - 1) / 4096 * 4096 ))
printf '\x5a' | dd of=raw-flipped.bf bs=1 seek=$((payload_at + 9)) conv=notrunc 2>/dev/null
for how in batch single; do
  run "$C" query raw-flipped.bf "$golden/keys.txt" "$how"
  expect_rc 2 "raw file with a flipped payload byte ($how)"
  "$BT" query raw-flipped.bf "$golden/keys.txt" 2>cli.err >/dev/null
  expect_eq "$OUT" "corrupt: $(sed 's/^bloomtool: //' cli.err)" "flipped raw payload ($how): the CLI's message"
done

# --- signed files: bloomtool_open_trusted refuses as `query --trusted-key` does ---------------------
pub=$golden/golden-signing.pub
signed=0
for f in "$golden"/*.bf; do
  run "$C" trusted "$f" "$pub"
  "$BT" query --trusted-key "$pub" "$f" /dev/null >/dev/null 2>cli.err
  if [ $? -ne 2 ]; then  # 1: opened, nothing matched the empty input
    signed=$((signed + 1))
    expect_rc 0 "$(basename "$f") opens with its trusted key"
    run "$C" info "$f" "$pub"
    expect_match "$OUT" $'signature_signed=true\nsignature_verified=true' "$(basename "$f"): verified"
  else
    expect_rc 2 "$(basename "$f") without a valid signature is refused"
    expect_eq "$OUT" "untrusted: $(sed 's/^bloomtool: //' cli.err)" "$(basename "$f"): the CLI's message"
  fi
done
expect_eq "$signed" 1 "one signed golden file"
# Altered after signing (one payload byte, checksums not repaired): untrusted, as the CLI says.
cp "$golden/v1-bloom-signed.bf" altered.bf
printf '\x55' | dd of=altered.bf bs=1 seek=$(($(stat -c %s altered.bf) - 1)) conv=notrunc 2>/dev/null
run "$C" trusted altered.bf "$pub"
expect_rc 2 "an altered signed file is refused"
"$BT" query --trusted-key "$pub" altered.bf /dev/null 2>cli.err
expect_eq "$OUT" "untrusted: $(sed 's/^bloomtool: //' cli.err)" "altered: the CLI's message"
# Key files that are not public keys: the CLI's message without its flag.
for key in "$WORK/missing.pub" "$golden/golden-signing.key"; do
  run "$C" trusted "$golden/v1-bloom-signed.bf" "$key"
  expect_rc 2 "trusted key $(basename "$key") is refused"
  "$BT" query --trusted-key "$key" "$golden/v1-bloom-signed.bf" /dev/null 2>cli.err
  expect_eq "${OUT#*: }" "$(sed 's/^bloomtool: --trusted-key: //' cli.err)" "$(basename "$key"): the CLI's message"
done

# --- a 10M-key filter: 1,000,000 members and 1,000,000 non-members -------------------------------
# (A tenth of each in a sanitized build, which runs the same code about ten times slower; the
# release run is the check of record.)
nkeys=10000000 probes=1000000
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && nkeys=1000000 probes=100000
"$GEN_KEYS" phones $nkeys | "$BT" build -q -n $nkeys -p 1% -o big.bf - || fail "building big.bf"
"$GEN_KEYS" phones $probes >members.txt
"$GEN_KEYS" nonmembers $probes >nonmembers.txt
"$BT" convert -q --codec raw -o big-raw.bf big.bf || fail "convert big.bf to the raw codec"
for keys in members.txt nonmembers.txt; do
  "$BT" query big.bf "$keys" >cli.out
  for how in batch single raw; do
    if [ $how = raw ]; then "$C" query big-raw.bf "$keys" batch >capi.out; else "$C" query big.bf "$keys" "$how" >capi.out; fi
    CHECKS=$((CHECKS + 1))
    cmp -s cli.out capi.out || fail "big.bf $keys ($how): $(diff cli.out capi.out | grep -c '^[<>]') disagreements"
  done
  echo "big.bf ($nkeys keys) $keys: $(wc -l <capi.out) of $probes reported present, as bloomtool query"
done
expect_eq "$(wc -l <cli.out)" "$(wc -l <capi.out)" "same count"
# The raw payload is verified chunk by chunk as queries reach it: a byte flipped in the middle
# opens (only the last chunk is read at open) and fails the first query that probes its chunk,
# with the CLI's message; the handle keeps refusing, never answering from unverified bytes.
cp big-raw.bf big-flipped.bf
size=$(stat -c %s big-flipped.bf)
printf '\x5a' | dd of=big-flipped.bf bs=1 seek=$((size - size / 3)) conv=notrunc 2>/dev/null
run "$C" open big-flipped.bf
expect_rc 0 "a raw file with a flipped byte in a middle chunk opens"
for how in batch single; do
  run "$C" query big-flipped.bf members.txt "$how"
  expect_rc 2 "the query that reaches the flipped chunk fails ($how)"
  "$BT" query big-flipped.bf members.txt 2>cli.err >/dev/null
  expect_eq "$OUT" "corrupt: $(sed 's/^bloomtool: //' cli.err)" "flipped middle chunk ($how): the CLI's message"
done
expect_eq "$("$C" query big.bf members.txt batch | wc -l)" $probes "every member is found"

run "$C" threads big.bf 2 $probes
expect_rc 0 "2 threads x $probes queries on one handle: $OUT $ERR"
echo "$OUT"

# --- shutdown while other threads query: every call answers right or fails as closed -----------
# Per round, 4 threads query one handle (single keys, batches, facts) while the main thread shuts
# it down (bloomtool_shutdown) at a different moment; then every call on it fails as closed.
# A Bloom, a fuse and a raw-codec file (chunks verified by whichever thread reaches them first).
for f in "$golden/v1-bloom-standard.bf" "$golden/v1-fuse-8.bf" raw/v1-bloom-normalised.bf; do
  run timeout 60 "$C" shutdown "$f" 4 40
  expect_rc 0 "capi_check shutdown $(basename "$f"): $OUT $ERR"
  expect_match "$OUT" "^40 rounds x 4 threads: [0-9]+ calls answered, 4800 closed, 0 wrong$" \
    "shutdown $(basename "$f")"
  echo "shutdown $(basename "$f"): $OUT"
done

run "$C" api "$golden/v1-bloom-normalised.bf"
expect_rc 0 "capi_check api: $ERR"
finish
