/* The C builder API as a C program sees it (plain C11, only <bloomtool/bloomtool_c.h>), driven by
 * builder_test.sh:
 *   builder_check build KIND KEYS OUT [N P [NORMALISATION [SEED]]]: the lines of KEYS (without
 *     their '\n') added, the first half one by one and the rest by batches of 1000 in the
 *     bloomtool_contains_many layout, written to OUT; and again to bytes, which must equal OUT's
 *     and those of all keys in one bloomtool_builder_add_separated call,
 *     open with bloomtool_open_bytes and hold every key. KIND: bloom, blocked, xor, fuse; N 0 and
 *     P 0 leave them unset.
 *   builder_check api: bad input gives statuses and messages, never a crash.
 *   builder_check full OUT KIND, builder_check refresh-error PATH NEW: see full() and
 *     refresh_error() below.
 * Exit 0 when all is well, 1 with a message on stderr otherwise. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <bloomtool/bloomtool_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures = 0;

static void check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "FAIL: %s (last error: %s)\n", what, bloomtool_last_error());
    ++failures;
  }
}

static char* slurp(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, n = 0;
  char* data = malloc(cap);
  size_t got;
  while (data != NULL && (got = fread(data + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      char* grown = realloc(data, cap);
      if (grown == NULL) free(data);
      data = grown;
    }
  }
  fclose(f);
  *len = n;
  return data;
}

static int kind_of(const char* name) {
  if (strcmp(name, "bloom") == 0) return BLOOMTOOL_KIND_BLOOM;
  if (strcmp(name, "blocked") == 0) return BLOOMTOOL_KIND_BLOCKED_BLOOM;
  if (strcmp(name, "xor") == 0) return BLOOMTOOL_KIND_XOR;
  if (strcmp(name, "fuse") == 0) return BLOOMTOOL_KIND_BINARY_FUSE;
  return -1;
}

static int build(int argc, char** argv) {
  bloomtool_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.size = sizeof plan;
  plan.kind = kind_of(argv[2]);
  if (argc > 6) {
    plan.n = strtoull(argv[5], NULL, 10);
    plan.p = strtod(argv[6], NULL);
  }
  if (argc > 7) plan.normalisation = argv[7];
  if (argc > 8) {
    plan.seed_mode = BLOOMTOOL_SEED_GIVEN;
    plan.seed = strtoull(argv[8], NULL, 10);
  }
  size_t len = 0;
  char* text = slurp(argv[3], &len);
  if (text == NULL) {
    fprintf(stderr, "cannot read %s\n", argv[3]);
    return 1;
  }
  /* Key boundaries: each line without its '\n'. */
  size_t count = 0;
  for (size_t i = 0; i < len; ++i) count += text[i] == '\n';
  uint64_t* begin = malloc((count + 1) * sizeof *begin);
  uint64_t* end = malloc((count + 1) * sizeof *end);
  size_t keys = 0, start = 0;
  for (size_t i = 0; i < len; ++i) {
    if (text[i] == '\n') {
      begin[keys] = start;
      end[keys] = i;
      ++keys;
      start = i + 1;
    }
  }
  bloomtool_builder* pair[2] = {NULL, NULL};
  for (int b = 0; b < 2; ++b) {
    check(bloomtool_builder_new(&plan, &pair[b]) == BLOOMTOOL_OK, "builder_new");
    if (pair[b] == NULL) return 1;
    size_t half = keys / 2;
    for (size_t i = 0; i < half; ++i)
      check(bloomtool_builder_add(pair[b], text + begin[i], end[i] - begin[i]) == BLOOMTOOL_OK,
            "builder_add");
    /* The rest by batches: a copy of the keys back to back and their offsets. */
    char* batch = malloc(len + 1);
    uint64_t offsets[1001];
    for (size_t i = half; i < keys;) {
      size_t n = 0, used = 0;
      offsets[0] = 0;
      for (; n < 1000 && i < keys; ++n, ++i) {
        memcpy(batch + used, text + begin[i], end[i] - begin[i]);
        used += end[i] - begin[i];
        offsets[n + 1] = used;
      }
      check(bloomtool_builder_add_many(pair[b], batch, offsets, n) == BLOOMTOOL_OK,
            "builder_add_many");
    }
    free(batch);
    uint64_t size = 0;
    check(bloomtool_builder_size(pair[b], &size) == BLOOMTOOL_OK && size == keys, "builder_size");
  }
  check(bloomtool_builder_finish(pair[0], argv[4], NULL, 0) == BLOOMTOOL_OK, "builder_finish");
  uint8_t* image = NULL;
  size_t image_len = 0;
  check(bloomtool_builder_finish_bytes(pair[1], NULL, 0, &image, &image_len) == BLOOMTOOL_OK,
        "builder_finish_bytes");
  size_t file_len = 0;
  char* file = slurp(argv[4], &file_len);
  check(file != NULL && file_len == image_len && memcmp(file, image, image_len) == 0,
        "finish_bytes gives the bytes finish wrote");
  /* Every key in one call, joined by '\n' (the text itself, its last '\n' left out): split
   * by the library, on several threads for 65,536 keys or more; the same bytes. */
  bloomtool_builder* joined = NULL;
  check(bloomtool_builder_new(&plan, &joined) == BLOOMTOOL_OK, "builder_new(separated)");
  const size_t text_len = len > 0 && text[len - 1] == '\n' ? len - 1 : len;
  check(bloomtool_builder_add_separated(joined, text, text_len, '\n', keys) == BLOOMTOOL_OK,
        "builder_add_separated");
  check(bloomtool_builder_add_separated(joined, text, text_len, '\n', keys + 1) ==
                BLOOMTOOL_ERR_INVALID_ARGUMENT &&
            strstr(bloomtool_last_error(), "separated by the byte 0x0a, the count says") != NULL,
        "builder_add_separated with a wrong count adds nothing");
  uint8_t* joined_image = NULL;
  size_t joined_len = 0;
  check(
      bloomtool_builder_finish_bytes(joined, NULL, 0, &joined_image, &joined_len) == BLOOMTOOL_OK &&
          joined_len == image_len && memcmp(joined_image, image, image_len) == 0,
      "add_separated gives the bytes of add and add_many");
  bloomtool_free(joined_image);
  bloomtool_builder_free(joined);
  bloomtool_filter* f = NULL;
  check(
      bloomtool_open_bytes(image, image_len, BLOOMTOOL_FORMAT_BLOOMTOOL, NULL, &f) == BLOOMTOOL_OK,
      "open_bytes");
  bloomtool_free(image);
  if (f != NULL) {
    size_t missed = 0;
    for (size_t i = 0; i < keys; ++i) /* an empty key answers 0: builds skip it */
      missed += end[i] > begin[i] && bloomtool_contains(f, text + begin[i], end[i] - begin[i]) != 1;
    check(missed == 0 || plan.normalisation != NULL, "every key added is found");
    uint8_t* found = malloc(keys + 1);
    check(bloomtool_contains_separated(f, text, text_len, '\n', keys, found) == BLOOMTOOL_OK,
          "contains_separated");
    size_t disagree = 0;
    for (size_t i = 0; i < keys; ++i)
      disagree += found[i] != bloomtool_contains(f, text + begin[i], end[i] - begin[i]);
    check(disagree == 0, "contains_separated answers as contains, key by key");
    free(found);
    bloomtool_close(f);
  }
  if (plan.n != 0 && file != NULL) { /* a Bloom filter sized up front: union, reopen, query */
    bloomtool_builder* half[2] = {NULL, NULL};
    for (int b = 0; b < 2; ++b) {
      check(bloomtool_builder_new(&plan, &half[b]) == BLOOMTOOL_OK, "builder_new(half)");
      for (size_t i = b == 0 ? 0 : keys / 3; i < (b == 0 ? keys / 3 : keys); ++i)
        bloomtool_builder_add(half[b], text + begin[i], end[i] - begin[i]);
    }
    check(bloomtool_builder_merge(half[0], half[1], 0) == BLOOMTOOL_OK, "builder_merge");
    uint8_t* merged = NULL;
    size_t merged_len = 0;
    check(bloomtool_builder_finish_bytes(half[0], NULL, BLOOMTOOL_FINISH_KEEP, &merged,
                                         &merged_len) == BLOOMTOOL_OK,
          "finish_bytes(KEEP) of the union");
    check(merged_len == file_len && memcmp(merged, file, file_len) == 0,
          "the union of two parts is the file of the whole");
    uint64_t size = 0, distinct = 0;
    check(bloomtool_builder_size(half[0], &size) == BLOOMTOOL_OK && size == keys,
          "the union counts every key (open after KEEP)");
    check(bloomtool_builder_estimate(half[0], &distinct) == BLOOMTOOL_OK && distinct > 0 &&
              distinct <= keys,
          "builder_estimate");
    uint8_t* answers = malloc(keys + 1);
    uint64_t* offs = malloc((keys + 1) * sizeof *offs);
    offs[0] = 0;
    for (size_t i = 0; i < keys; ++i) offs[i + 1] = end[i]; /* key i: text[end[i-1]..end[i]) */
    check(bloomtool_builder_contains_many(half[0], text, offs, keys, answers) == BLOOMTOOL_OK,
          "builder_contains_many");
    size_t found = 0;
    for (size_t i = 0; i < keys; ++i) found += answers[i];
    size_t agree = 0;
    for (size_t i = 0; i < keys; ++i)
      agree +=
          bloomtool_builder_contains(half[0], text + offs[i], offs[i + 1] - offs[i]) == answers[i];
    check(found > 0 && agree == keys, "builder_contains_many finds keys, as builder_contains");
    bloomtool_builder* again = NULL;
    check(bloomtool_builder_from_bytes(merged, merged_len, &again) == BLOOMTOOL_OK,
          "builder_from_bytes");
    uint8_t* round = NULL;
    size_t round_len = 0;
    check(again != NULL &&
              bloomtool_builder_finish_bytes(again, NULL, 0, &round, &round_len) == BLOOMTOOL_OK &&
              round_len == file_len && memcmp(round, file, file_len) == 0,
          "builder_from_bytes then finish_bytes gives the same bytes");
    bloomtool_free(round);
    bloomtool_free(merged);
    free(answers);
    free(offs);
    bloomtool_builder_free(again);
    bloomtool_builder_free(half[0]);
    bloomtool_builder_free(half[1]);
  }
  bloomtool_builder_free(pair[0]);
  bloomtool_builder_free(pair[1]);
  free(file);
  free(begin);
  free(end);
  free(text);
  return failures == 0 ? 0 : 1;
}

static int expect_status(int got, int want, const char* message, const char* what) {
  int ok = got == want && strstr(bloomtool_last_error(), message) != NULL;
  if (!ok) {
    fprintf(stderr, "FAIL: %s: status %d (%s), expected %d with '%s'\n", what, got,
            bloomtool_last_error(), want, message);
    ++failures;
  }
  return ok;
}

static int api(void) {
  bloomtool_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.size = sizeof plan;
  bloomtool_builder* b = (bloomtool_builder*)&plan; /* must be overwritten with NULL */
  expect_status(bloomtool_builder_new(NULL, &b), BLOOMTOOL_ERR_INVALID_ARGUMENT, "no plan",
                "new(NULL plan)");
  check(b == NULL, "new(NULL plan) stores NULL");
  expect_status(bloomtool_builder_new(&plan, NULL), BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place",
                "new(NULL out)");
  plan.size = 0;
  expect_status(bloomtool_builder_new(&plan, &b), BLOOMTOOL_ERR_INVALID_ARGUMENT, "size",
                "new(size 0)");
  plan.size = sizeof plan;
  plan.kind = 7;
  expect_status(bloomtool_builder_new(&plan, &b), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "kind: 7 is not a bloomtool_kind", "new(kind 7)");
  plan.kind = BLOOMTOOL_KIND_BLOOM;
  plan.p = 1.5;
  expect_status(bloomtool_builder_new(&plan, &b), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "p: must be between 0 and 1", "new(p 1.5)");
  plan.p = 0.01;
  plan.m = 1000;
  expect_status(bloomtool_builder_new(&plan, &b), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "p: give p or m, not both", "new(p and m)");
  plan.m = 0;
  plan.kind = BLOOMTOOL_KIND_XOR;
  plan.n = 10;
  expect_status(bloomtool_builder_new(&plan, &b), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "n: sizes Bloom filters only", "new(xor with n)");
  plan.kind = BLOOMTOOL_KIND_BLOOM;
  plan.normalisation = "trim,shout";
  expect_status(bloomtool_builder_new(&plan, &b), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "normalisation: 'trim,shout' is not a list", "new(bad normalisation)");
  plan.normalisation = NULL;
  plan.seed_mode = 9;
  expect_status(bloomtool_builder_new(&plan, &b), BLOOMTOOL_ERR_INVALID_ARGUMENT, "seed_mode: 9",
                "new(seed_mode 9)");
  plan.seed_mode = BLOOMTOOL_SEED_RANDOM;
  check(bloomtool_builder_new(&plan, &b) == BLOOMTOOL_OK && b != NULL, "new(random seed)");

  /* NULL handles and arguments. */
  uint64_t offsets[3] = {0, 3, 2};
  expect_status(bloomtool_builder_add(NULL, "a", 1), BLOOMTOOL_ERR_INVALID_ARGUMENT, "no builder",
                "add(NULL)");
  expect_status(bloomtool_builder_add(b, NULL, 1), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "key: NULL with a non-zero length", "add(NULL key)");
  check(bloomtool_builder_add(b, NULL, 0) == BLOOMTOOL_OK, "add(empty key)");
  expect_status(bloomtool_builder_add(b, "a", (size_t)1 << 21), BLOOMTOOL_ERR_LIMIT_EXCEEDED,
                "key: 2097152 bytes, longer than the limit of 1MiB", "add(huge key)");
  expect_status(bloomtool_builder_add(b, "a", SIZE_MAX), BLOOMTOOL_ERR_LIMIT_EXCEEDED,
                "longer than the limit", "add(SIZE_MAX)");
  expect_status(bloomtool_builder_add_many(b, "abc", offsets, 2), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "offsets: entry 2 (2) is less than the one before it (3)", "add_many(decreasing)");
  uint64_t huge[3] = {0, 1, UINT64_MAX};
  expect_status(bloomtool_builder_add_many(b, "abc", huge, 2), BLOOMTOOL_ERR_LIMIT_EXCEEDED,
                "keys[1]: ", "add_many(huge)");
  expect_status(bloomtool_builder_add_many(b, "abc", NULL, 2), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "offsets must not be NULL", "add_many(NULL offsets)");
  expect_status(bloomtool_builder_add_many(b, NULL, offsets, 1), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "keys: NULL", "add_many(NULL keys)");
  check(bloomtool_builder_add_many(b, NULL, NULL, 0) == BLOOMTOOL_OK, "add_many(count 0)");
  /* Keys joined by a separator: NULLs, wrong counts and huge keys add nothing. */
  expect_status(bloomtool_builder_add_separated(NULL, "a", 1, '\n', 1),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "no builder", "add_separated(NULL)");
  expect_status(bloomtool_builder_add_separated(b, NULL, 3, '\n', 1),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "data: NULL with a non-zero length",
                "add_separated(NULL data)");
  expect_status(bloomtool_builder_add_separated(b, "a\nb\nc", 5, '\n', 2),
                BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "data: holds more than 2 keys separated by the byte 0x0a, the count says 2",
                "add_separated(3 keys, count 2)");
  expect_status(bloomtool_builder_add_separated(b, "a,b", 3, ',', 3),
                BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "data: holds 2 keys separated by the byte 0x2c, the count says 3",
                "add_separated(2 keys, count 3)");
  expect_status(bloomtool_builder_add_separated(b, "a", 1, '\n', 0), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "data: holds at least 1 keys separated by the byte 0x0a, the count says 0",
                "add_separated(count 0, data)");
  char* big = calloc(((size_t)1 << 20) + 3, 1);
  big[0] = 'x';
  big[1] = '\n';
  expect_status(bloomtool_builder_add_separated(b, big, ((size_t)1 << 20) + 3, '\n', 2),
                BLOOMTOOL_ERR_LIMIT_EXCEEDED, "keys[1]: 1048577 bytes, longer than the limit",
                "add_separated(huge key)");
  free(big);
  check(bloomtool_builder_add_separated(b, NULL, 0, '\n', 0) == BLOOMTOOL_OK,
        "add_separated(count 0)");
  uint8_t results[2] = {7, 7};
  expect_status(bloomtool_builder_contains_separated(b, "a", 1, '\n', 1, NULL),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "results must not be NULL",
                "builder_contains_separated(NULL results)");
  check(bloomtool_builder_contains_separated(b, "\nzz", 3, '\n', 2, results) == BLOOMTOOL_OK &&
            results[0] == 0 && results[1] == 0,
        "builder_contains_separated: an empty key and an absent one");
  expect_status(bloomtool_contains_separated(NULL, "a", 1, '\n', 1, results),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "no filter", "contains_separated(NULL)");
  char refresh_buf[4];
  check(bloomtool_last_refresh_error(NULL, refresh_buf, sizeof refresh_buf) ==
            -BLOOMTOOL_ERR_INVALID_ARGUMENT,
        "last_refresh_error(NULL)");
  uint64_t size = 9;
  check(bloomtool_builder_size(b, &size) == BLOOMTOOL_OK && size == 1,
        "size counts the empty key only (failed adds add nothing)");
  expect_status(bloomtool_builder_size(b, NULL), BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place",
                "size(NULL)");
  expect_status(bloomtool_builder_finish(b, NULL, NULL, 0), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "no path", "finish(NULL path)");
  expect_status(bloomtool_builder_finish(b, "x.bf", NULL, 4), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "flags: unknown bits", "finish(flags 4)");
  uint8_t* data = (uint8_t*)&plan;
  size_t len = 5;
  expect_status(bloomtool_builder_finish_bytes(b, NULL, 0, NULL, &len),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place", "finish_bytes(NULL data)");
  check(bloomtool_builder_add(b, "key", 3) == BLOOMTOOL_OK, "add after failed finishes");
  /* A missing signing key: an I/O error; the builder is finished even so. */
  expect_status(bloomtool_builder_finish_bytes(b, "no-such.key", 0, &data, &len), BLOOMTOOL_ERR_IO,
                "no-such.key", "finish_bytes(missing key)");
  check(data == NULL && len == 0, "failed finish_bytes stores NULL and 0");
  expect_status(bloomtool_builder_add(b, "a", 1), BLOOMTOOL_ERR_CLOSED, "the builder is finished",
                "add after finish");
  expect_status(bloomtool_builder_add_many(b, "abc", offsets, 1), BLOOMTOOL_ERR_CLOSED,
                "the builder is finished", "add_many after finish");
  expect_status(bloomtool_builder_add_separated(b, "a", 1, '\n', 1), BLOOMTOOL_ERR_CLOSED,
                "the builder is finished", "add_separated after finish");
  expect_status(bloomtool_builder_finish(b, "x.bf", NULL, 0), BLOOMTOOL_ERR_CLOSED,
                "the builder is finished", "finish after finish");
  expect_status(bloomtool_builder_size(b, &size), BLOOMTOOL_ERR_CLOSED, "finished", "size after");
  bloomtool_builder_free(b);
  bloomtool_builder_free(NULL);
  bloomtool_free(NULL);

  /* A finish into a missing directory: an I/O error naming the path. */
  plan.seed_mode = BLOOMTOOL_SEED_DEFAULT;
  check(bloomtool_builder_new(&plan, &b) == BLOOMTOOL_OK, "new");
  bloomtool_builder_add(b, "k", 1);
  expect_status(bloomtool_builder_finish(b, "no-such-dir/x.bf", NULL, 0), BLOOMTOOL_ERR_IO,
                "no-such-dir/x.bf", "finish(missing directory)");
  bloomtool_builder_free(b);

  /* Static kinds: no keys cannot be a problem; raw codec to bytes, reopened. */
  plan.kind = BLOOMTOOL_KIND_BINARY_FUSE;
  plan.n = 0;
  plan.p = 0;
  check(bloomtool_builder_new(&plan, &b) == BLOOMTOOL_OK, "new(fuse)");
  const char keys[] = "onetwothree";
  uint64_t offs[4] = {0, 3, 6, 11};
  check(bloomtool_builder_add_many(b, keys, offs, 3) == BLOOMTOOL_OK, "add_many(fuse)");
  check(bloomtool_builder_finish_bytes(b, NULL, BLOOMTOOL_CODEC_RAW, &data, &len) == BLOOMTOOL_OK,
        "finish_bytes(raw)");
  bloomtool_builder_free(b);
  bloomtool_filter* f = NULL;
  check(bloomtool_open_bytes(data, len, BLOOMTOOL_FORMAT_AUTO, NULL, &f) == BLOOMTOOL_OK,
        "open_bytes(raw, auto)");
  if (f != NULL) {
    check(bloomtool_contains(f, "two", 3) == 1 && bloomtool_contains(f, "three", 5) == 1,
          "fuse from bytes holds its keys");
    bloomtool_close(f);
  }
  /* A plan that keeps its keys answers nothing before finish; a fuse file is no builder. */
  check(bloomtool_builder_new(&plan, &b) == BLOOMTOOL_OK, "new(fuse)");
  uint8_t answer = 0;
  expect_status(bloomtool_builder_contains_many(b, keys, offs, 1, &answer),
                BLOOMTOOL_ERR_UNSUPPORTED, "answers before finish", "contains_many(fuse)");
  expect_status(-bloomtool_builder_contains(b, "one", 3), BLOOMTOOL_ERR_UNSUPPORTED,
                "answers before finish", "contains(fuse)");
  expect_status(-bloomtool_builder_contains(NULL, "one", 3), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "no builder", "contains(NULL)");
  expect_status(bloomtool_builder_finish(b, "x.bf", NULL, BLOOMTOOL_FINISH_KEEP),
                BLOOMTOOL_ERR_UNSUPPORTED, "stays open", "finish(fuse, KEEP)");
  bloomtool_builder* other = NULL;
  expect_status(bloomtool_builder_from_bytes(data, len, &other), BLOOMTOOL_ERR_UNSUPPORTED,
                "not a Bloom filter", "from_bytes(fuse)");
  plan.kind = BLOOMTOOL_KIND_BLOOM;
  plan.n = 100;
  bloomtool_builder* live = NULL;
  check(bloomtool_builder_new(&plan, &live) == BLOOMTOOL_OK, "new(bloom n=100)");
  expect_status(bloomtool_builder_merge(live, b, 0), BLOOMTOOL_ERR_UNSUPPORTED,
                "answers before finish", "merge(bloom, fuse)");
  expect_status(bloomtool_builder_merge(live, live, 0), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "the same builder", "merge(itself)");
  expect_status(bloomtool_builder_merge(live, NULL, 0), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "no builder", "merge(NULL)");
  plan.n = 1000;
  check(bloomtool_builder_new(&plan, &other) == BLOOMTOOL_OK, "new(bloom n=1000)");
  expect_status(bloomtool_builder_merge(live, other, 1), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "m: the filters differ", "merge(other m)");
  bloomtool_builder_free(other);
  /* 1,000 distinct keys in a filter for 100: refused at finish, nothing written. */
  char key[16];
  for (int i = 0; i < 1000; ++i) {
    int n = snprintf(key, sizeof key, "k%d", i);
    bloomtool_builder_add(live, key, (size_t)n);
  }
  expect_status(bloomtool_builder_finish(live, "over.bf", NULL, 0), BLOOMTOOL_ERR_LIMIT_EXCEEDED,
                "over.bf: about", "finish(overfilled)");
  FILE* none = fopen("over.bf", "rb");
  check(none == NULL, "an overfilled finish writes nothing");
  if (none != NULL) fclose(none);
  bloomtool_builder_free(live);
  bloomtool_builder_free(b);

  /* Bytes that are no filter, and bad arguments of the opens. */
  data[len / 2] ^= 0x40;
  expect_status(bloomtool_open_bytes(data, len, BLOOMTOOL_FORMAT_BLOOMTOOL, NULL, &f),
                BLOOMTOOL_ERR_CORRUPT, "<memory>: corrupt", "open_bytes(flipped byte)");
  check(f == NULL, "failed open_bytes stores NULL");
  expect_status(bloomtool_open_bytes(data, 7, BLOOMTOOL_FORMAT_BLOOMTOOL, NULL, &f),
                BLOOMTOOL_ERR_CORRUPT, "<memory>", "open_bytes(7 bytes)");
  expect_status(bloomtool_open_bytes(NULL, 0, BLOOMTOOL_FORMAT_BLOOMTOOL, NULL, &f),
                BLOOMTOOL_ERR_CORRUPT, "<memory>", "open_bytes(nothing)");
  expect_status(bloomtool_open_bytes(NULL, 5, BLOOMTOOL_FORMAT_BLOOMTOOL, NULL, &f),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "data: NULL", "open_bytes(NULL, 5)");
  expect_status(bloomtool_open_bytes(data, len, 42, NULL, &f), BLOOMTOOL_ERR_INVALID_ARGUMENT,
                "format: 42", "open_bytes(format 42)");
  expect_status(bloomtool_open_bytes(data, len, BLOOMTOOL_FORMAT_BLOOMTOOL, "", &f),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "public key", "open_bytes(empty key path)");
  expect_status(bloomtool_open_bytes(data, len, BLOOMTOOL_FORMAT_BLOOMTOOL, NULL, NULL),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place", "open_bytes(NULL out)");
  expect_status(bloomtool_open_format(NULL, BLOOMTOOL_FORMAT_AUTO, NULL, &f),
                BLOOMTOOL_ERR_INVALID_ARGUMENT, "no path", "open_format(NULL)");
  expect_status(bloomtool_open_format("no-such.bf", BLOOMTOOL_FORMAT_GUAVA, NULL, &f),
                BLOOMTOOL_ERR_IO, "no-such.bf", "open_format(missing)");
  bloomtool_free(data);
  return failures == 0 ? 0 : 1;
}

/* builder_check full OUT KIND: 300,000 keys ("big-0", "big-1", ...) into a builder of KIND
 * (bloom: n = 300,000, p = 0.1%, about 540 KB; fuse: about 330 KB), finished to OUT, which is on
 * a file system too small for it: prints "<status name>|<message>" of the finish. */
static int full(const char* out, const char* kind) {
  bloomtool_plan plan;
  memset(&plan, 0, sizeof plan);
  plan.size = sizeof plan;
  plan.kind = kind_of(kind);
  if (plan.kind == BLOOMTOOL_KIND_BLOOM) {
    plan.n = 300000;
    plan.p = 0.001;
  }
  bloomtool_builder* b = NULL;
  if (bloomtool_builder_new(&plan, &b) != BLOOMTOOL_OK) return 1;
  char key[32];
  for (int i = 0; i < 300000; ++i) {
    const int n = snprintf(key, sizeof key, "big-%d", i);
    if (bloomtool_builder_add(b, key, (size_t)n) != BLOOMTOOL_OK) return 1;
  }
  const bloomtool_status status = bloomtool_builder_finish(b, out, NULL, 0);
  printf("%s|%s\n", bloomtool_status_name(status), bloomtool_last_error());
  /* Finished all the same: the keys are released, later calls say so. */
  check(bloomtool_builder_add(b, "x", 1) == BLOOMTOOL_ERR_CLOSED, "add after a failed finish");
  bloomtool_builder_free(b);
  return failures == 0 ? 0 : 1;
}

/* builder_check refresh-error PATH NEW: opens PATH with refresh_seconds = 1, renames NEW over
 * PATH, waits 1.1 s and queries (the query's automatic refresh fails on NEW, the old filter
 * answers), then prints bloomtool_last_refresh_error's message; checks the length, cutting and
 * argument rules on the way. */
static int refresh_error(const char* path, const char* next) {
  bloomtool_open_options options;
  memset(&options, 0, sizeof options);
  options.size = sizeof options;
  options.refresh_seconds = 1;
  bloomtool_filter* f = NULL;
  if (bloomtool_open_with(path, &options, &f) != BLOOMTOOL_OK) return 1;
  char buf[512];
  check(bloomtool_last_refresh_error(f, buf, sizeof buf) == 0 && buf[0] == '\0',
        "no automatic refresh yet: length 0, empty message");
  check(rename(next, path) == 0, "rename");
  struct timespec wait = {1, 100000000};
  nanosleep(&wait, NULL);
  check(bloomtool_contains(f, "a1", 2) == 1, "the old filter answers the query that looked");
  const int64_t full_len = bloomtool_last_refresh_error(f, buf, sizeof buf);
  check(full_len > 0 && (size_t)full_len == strlen(buf), "the message and its length");
  char small[8];
  check(bloomtool_last_refresh_error(f, small, sizeof small) == full_len &&
            strlen(small) == sizeof small - 1 && memcmp(small, buf, sizeof small - 1) == 0,
        "a short buffer: the start of the message, NUL-terminated, and the full length");
  check(bloomtool_last_refresh_error(f, NULL, 0) == full_len, "NULL, 0: the length");
  check(bloomtool_last_refresh_error(f, NULL, 5) == -BLOOMTOOL_ERR_INVALID_ARGUMENT,
        "NULL with a length");
  check(bloomtool_last_refresh_error(NULL, buf, sizeof buf) == -BLOOMTOOL_ERR_INVALID_ARGUMENT,
        "NULL handle");
  printf("%s\n", buf);
  bloomtool_shutdown(f);
  check(bloomtool_last_refresh_error(f, buf, sizeof buf) == -BLOOMTOOL_ERR_CLOSED,
        "after shutdown: closed");
  bloomtool_close(f);
  return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc >= 5 && strcmp(argv[1], "build") == 0 && kind_of(argv[2]) >= 0) return build(argc, argv);
  if (argc == 2 && strcmp(argv[1], "api") == 0) return api();
  if (argc == 4 && strcmp(argv[1], "full") == 0 && kind_of(argv[3]) >= 0)
    return full(argv[2], argv[3]);
  if (argc == 4 && strcmp(argv[1], "refresh-error") == 0) return refresh_error(argv[2], argv[3]);
  fprintf(stderr,
          "usage: builder_check build bloom|blocked|xor|fuse KEYS OUT [N P [NORM [SEED]]]\n"
          "       builder_check api\n"
          "       builder_check full OUT bloom|fuse\n"
          "       builder_check refresh-error PATH NEW\n");
  return 2;
}
