/* A plain C program over libbloomtool.so (bloomtool_c.h only), driven by capi_test.sh:
 *   capi_check query FILTER KEYFILE batch|single   print the lines whose key may be present, as
 *                                                  `bloomtool query FILTER KEYFILE` does
 *   capi_check info FILTER [PUB]                   the facts, one "name=value" line each (opened
 *                                                  with bloomtool_open_trusted when PUB is given)
 *   capi_check open FILTER                         exit 0 if it opens; else exit 2 and print
 *                                                  "<status name>: <message>" on stdout
 *   capi_check trusted FILTER PUB                  the same with bloomtool_open_trusted
 *   capi_check threads FILTER THREADS QUERIES      THREADS threads each make QUERIES single-key
 *                                                  queries (and batches) on one handle and
 *                                                  compare them with answers computed up front
 *   capi_check shutdown FILTER THREADS ROUNDS      per round, THREADS threads query one handle
 *                                                  (contains, contains_many, get_info) while the
 *                                                  main thread shuts it down: every call answers
 *                                                  right or fails with BLOOMTOOL_ERR_CLOSED, and
 *                                                  once closed stays closed
 *   capi_check api FILTER                          argument checks, errors per thread, version
 *   capi_check race                                a deliberate data race (no library call), so
 *                                                  that tsan_threads.sh sees ThreadSanitizer work
 * Exit 0 = success, 1 = a check failed, 2 = the filter did not open. */
#define _POSIX_C_SOURCE 200809L
#include <bloomtool/bloomtool_c.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
      ++failures;                                          \
    }                                                      \
  } while (0)

static bloomtool_filter* open_or_exit(const char* path) {
  bloomtool_filter* f = NULL;
  const bloomtool_status s = bloomtool_open(path, &f);
  if (s != BLOOMTOOL_OK) {
    printf("%s: %s\n", bloomtool_status_name(s), bloomtool_last_error());
    exit(2);
  }
  return f;
}

/* Keys of a file, one per line (the line feed dropped), as one buffer and count + 1 offsets. */
struct keys {
  char* data;
  uint64_t* offsets;
  size_t count;
};

static struct keys read_keys(const char* path) {
  struct keys k = {NULL, NULL, 0};
  FILE* in = fopen(path, "rb");
  if (in == NULL) {
    perror(path);
    exit(2);
  }
  size_t cap = 1 << 20, len = 0, n;
  k.data = malloc(cap);
  while (k.data != NULL && (n = fread(k.data + len, 1, cap - len, in)) > 0) {
    len += n;
    if (len == cap) k.data = realloc(k.data, cap *= 2);
  }
  fclose(in);
  if (k.data == NULL) exit(2);
  size_t lines = 0;
  for (size_t i = 0; i < len; ++i) lines += k.data[i] == '\n';
  k.offsets = malloc((lines + 2) * sizeof *k.offsets);
  if (k.offsets == NULL) exit(2);
  /* Key i spans offsets[i] .. offsets[i + 1] - 1 plus its line feed: the line feeds are cut out by
   * moving the bytes down. */
  size_t out = 0, start = 0;
  k.offsets[0] = 0;
  for (size_t i = 0; i < len; ++i) {
    if (k.data[i] == '\n') {
      memmove(k.data + out, k.data + start, i - start);
      out += i - start;
      k.offsets[++k.count] = out;
      start = i + 1;
    }
  }
  if (start < len) {
    memmove(k.data + out, k.data + start, len - start);
    out += len - start;
    k.offsets[++k.count] = out;
  }
  return k;
}

static int cmd_query(const char* filter_path, const char* keys_path, const char* how) {
  bloomtool_filter* f = open_or_exit(filter_path);
  struct keys k = read_keys(keys_path);
  uint8_t* results = malloc(k.count + 1);
  int status = 0;
  /* A payload verified lazily may fail a check during a query: reported as `open` reports, after
   * freeing everything (LeakSanitizer would otherwise report, and replace the exit status). */
  if (strcmp(how, "batch") == 0) {
    const bloomtool_status s = bloomtool_contains_many(f, k.data, k.offsets, k.count, results);
    if (s != BLOOMTOOL_OK) {
      printf("%s: %s\n", bloomtool_status_name(s), bloomtool_last_error());
      status = 2;
      goto done;
    }
  } else {
    for (size_t i = 0; i < k.count; ++i) {
      const int r = bloomtool_contains(f, k.data + k.offsets[i], k.offsets[i + 1] - k.offsets[i]);
      if (r < 0) {
        printf("%s: %s\n", bloomtool_status_name(r), bloomtool_last_error());
        status = 2;
        goto done;
      }
      CHECK(r == 0 || r == 1, "contains: %d", r);
      results[i] = (uint8_t)r;
    }
  }
  for (size_t i = 0; i < k.count; ++i) {
    if (results[i] == 1) {
      fwrite(k.data + k.offsets[i], 1, k.offsets[i + 1] - k.offsets[i], stdout);
      putchar('\n');
    } else {
      CHECK(results[i] == 0, "result %zu is %u", i, results[i]);
    }
  }
done:
  free(results);
  free(k.data);
  free(k.offsets);
  bloomtool_close(f);
  if (status != 0) return status;
  return failures == 0 ? 0 : 1;
}

static int cmd_info(const char* path, const char* trusted_key) {
  bloomtool_filter* f = NULL;
  if (trusted_key == NULL) {
    f = open_or_exit(path);
  } else if (bloomtool_open_trusted(path, trusted_key, &f) != BLOOMTOOL_OK) {
    printf("%s\n", bloomtool_last_error());
    exit(2);
  }
  bloomtool_info info;
  memset(&info, 0xAB, sizeof info);
  info.size = sizeof info;
  CHECK(bloomtool_get_info(f, &info) == BLOOMTOOL_OK, "get_info: %s", bloomtool_last_error());
  printf("kind=%s\nvariant=%s\nformat_version=%s\nm=%llu\nk=%u\nhash_id=%u\ndistinct_keys=%llu\n",
         info.kind, info.variant, info.format_version, (unsigned long long)info.m, info.k,
         info.hash_id, (unsigned long long)info.distinct_keys);
  printf("keys_added=%llu\nmodel_fpr=%.17g\nlabel=%s\ncreated_unix=%lld\nnormalisation=%s\n",
         (unsigned long long)info.keys_added, info.model_fpr, info.label,
         (long long)info.created_unix, info.normalisation);
  printf("hash=%s\nseed=0x%016llx\nfile_bytes=%llu\n", info.hash, (unsigned long long)info.seed,
         (unsigned long long)info.file_bytes);
  printf("signature_signed=%s\nsignature_verified=%s\nsignature_key_id=%s\n",
         info.signature_signed ? "true" : "false", info.signature_verified ? "true" : "false",
         info.signature_key_id);
  bloomtool_close(f);
  return failures == 0 ? 0 : 1;
}

/* Synthetic key i: "key-<i>" with a varying length. */
static size_t make_key(char* buf, size_t i) {
  return (size_t)snprintf(buf, 48, "key-%zu-%.*s", i, (int)(i % 17), "abcdefghijklmnopq");
}

enum { kRaceRounds = 20 };

struct worker {
  const bloomtool_filter* f;
  const uint8_t* expected;
  size_t queries;
  size_t first;
  size_t disagreements;
  size_t errors;
  pthread_barrier_t* start;
  bloomtool_filter* const* fresh;
};

static void* run_worker(void* arg) {
  struct worker* w = arg;
  char key[48];
  /* Rounds on fresh handles first: all threads start at once with the same keys, so that they
   * need the same chunks of a lazily verified payload at the same moment (a race there was found
   * only now and then while the threads started apart). */
  for (int round = 0; round < kRaceRounds; ++round) {
    pthread_barrier_wait(w->start); /* the main thread has opened w->fresh[round] */
    for (size_t i = 0; i < 64 && i < w->queries; ++i) {
      const int r = bloomtool_contains(w->fresh[round], key, make_key(key, i));
      if (r < 0)
        ++w->errors;
      else if ((uint8_t)r != w->expected[i])
        ++w->disagreements;
    }
  }
  pthread_barrier_wait(w->start);
  for (size_t q = 0; q < w->queries; ++q) {
    const size_t i = (w->first + q * 7919) % w->queries;
    const int r = bloomtool_contains(w->f, key, make_key(key, i));
    if (r < 0)
      ++w->errors;
    else if ((uint8_t)r != w->expected[i])
      ++w->disagreements;
  }
  /* Batches from several threads at once too, and the facts. */
  enum { kBatch = 1000 };
  char data[kBatch * 48];
  uint64_t offsets[kBatch + 1];
  uint8_t results[kBatch];
  for (size_t at = 0; at + kBatch <= w->queries; at += 50 * kBatch) {
    offsets[0] = 0;
    for (size_t j = 0; j < kBatch; ++j)
      offsets[j + 1] = offsets[j] + make_key(data + offsets[j], at + j);
    if (bloomtool_contains_many(w->f, data, offsets, kBatch, results) != BLOOMTOOL_OK) ++w->errors;
    for (size_t j = 0; j < kBatch; ++j) w->disagreements += results[j] != w->expected[at + j];
    bloomtool_info info = {.size = sizeof info};
    if (bloomtool_get_info(w->f, &info) != BLOOMTOOL_OK) ++w->errors;
  }
  /* One batch of 100,000 keys joined by '\n': the library splits it between threads of its own
   * (65,536 keys or more), while the other workers do the same. */
  const size_t big = w->queries < 100000 ? w->queries : 100000;
  char* joined = malloc(big * 48);
  uint8_t* answers = malloc(big);
  size_t used = 0;
  for (size_t j = 0; j < big; ++j) {
    used += make_key(joined + used, j);
    joined[used++] = '\n';
  }
  if (bloomtool_contains_separated(w->f, joined, used - 1, '\n', big, answers) != BLOOMTOOL_OK)
    ++w->errors;
  for (size_t j = 0; j < big; ++j) w->disagreements += answers[j] != w->expected[j];
  free(joined);
  free(answers);
  return NULL;
}

static int cmd_threads(const char* path, int threads, size_t queries) {
  /* The answers come from a handle of their own, so that the workers' handle is fresh: a payload
   * verified lazily is verified by the worker threads, concurrently. */
  bloomtool_filter* f = open_or_exit(path);
  bloomtool_filter* shared = open_or_exit(path);
  uint8_t* expected = malloc(queries);
  char key[48];
  size_t present = 0;
  for (size_t i = 0; i < queries; ++i) {
    expected[i] = (uint8_t)bloomtool_contains(f, key, make_key(key, i));
    present += expected[i];
  }
  struct worker* workers = calloc((size_t)threads, sizeof *workers);
  pthread_t* ids = calloc((size_t)threads, sizeof *ids);
  pthread_barrier_t start;
  CHECK(pthread_barrier_init(&start, NULL, (unsigned)threads + 1) == 0, "pthread_barrier_init");
  bloomtool_filter* fresh[kRaceRounds];
  for (int t = 0; t < threads; ++t) {
    workers[t] =
        (struct worker){shared, expected, queries, (size_t)t * 104729, 0, 0, &start, fresh};
    CHECK(pthread_create(&ids[t], NULL, run_worker, &workers[t]) == 0, "pthread_create");
  }
  for (int round = 0; round < kRaceRounds; ++round) {
    fresh[round] = open_or_exit(path);
    pthread_barrier_wait(&start);
  }
  pthread_barrier_wait(&start);
  size_t disagreements = 0, errors = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    disagreements += workers[t].disagreements;
    errors += workers[t].errors;
  }
  printf("%d threads x %zu queries: %zu disagreements, %zu errors (%zu of %zu keys present)\n",
         threads, queries, disagreements, errors, present, queries);
  CHECK(disagreements == 0 && errors == 0, "concurrent queries disagree");
  pthread_barrier_destroy(&start);
  for (int round = 0; round < kRaceRounds; ++round) bloomtool_close(fresh[round]);
  free(workers);
  free(ids);
  free(expected);
  bloomtool_close(f);
  bloomtool_close(shared);
  return failures == 0 ? 0 : 1;
}

/* shutdown: the workers query until their handle is shut down under them. */
struct closer {
  bloomtool_filter* f;
  const char* path;
  const uint8_t* expected;
  size_t keys;
  int id;
  pthread_barrier_t* start;
  size_t answered, closed, wrong;
};

/* 0 = answered right, 1 = closed (with the closed message), 2 = anything else. */
static int closed_status(int status, const char* path) {
  char want[4096];
  snprintf(want, sizeof want, "%s: the filter is closed", path);
  if (status != BLOOMTOOL_ERR_CLOSED) {
    fprintf(stderr, "unexpected status %d (%s): %s\n", status, bloomtool_status_name(status),
            bloomtool_last_error());
    return 2;
  }
  if (strcmp(bloomtool_last_error(), want) != 0) {
    fprintf(stderr, "closed message: '%s'\n", bloomtool_last_error());
    return 2;
  }
  return 1;
}

static void* run_closer(void* arg) {
  struct closer* w = arg;
  enum { kBatch = 64 };
  char key[48], data[kBatch * 48];
  uint64_t offsets[kBatch + 1];
  uint8_t results[kBatch];
  int seen_closed = 0;
  pthread_barrier_wait(w->start);
  for (size_t q = 0;; ++q) {
    const size_t i = (q * 31 + (size_t)w->id * 7) % w->keys;
    int outcome;
    switch ((q + (size_t)w->id) % 3) {
      case 0: {
        const int r = bloomtool_contains(w->f, key, make_key(key, i));
        outcome = r >= 0 ? ((uint8_t)r == w->expected[i] ? 0 : 2) : closed_status(-r, w->path);
        break;
      }
      case 1: {
        const size_t first = i % (w->keys - kBatch);
        offsets[0] = 0;
        for (size_t j = 0; j < kBatch; ++j)
          offsets[j + 1] = offsets[j] + make_key(data + offsets[j], first + j);
        const bloomtool_status s = bloomtool_contains_many(w->f, data, offsets, kBatch, results);
        outcome = s == BLOOMTOOL_OK ? 0 : closed_status(s, w->path);
        for (size_t j = 0; s == BLOOMTOOL_OK && j < kBatch; ++j)
          if (results[j] != w->expected[first + j]) outcome = 2;
        break;
      }
      default: {
        bloomtool_info info = {.size = sizeof info};
        const bloomtool_status s = bloomtool_get_info(w->f, &info);
        outcome = s == BLOOMTOOL_OK ? (info.kind != NULL && info.kind[0] != '\0' ? 0 : 2)
                                    : closed_status(s, w->path);
      }
    }
    if (outcome == 2 || (seen_closed && outcome == 0)) ++w->wrong; /* closed stays closed */
    if (outcome == 0) ++w->answered;
    if (outcome == 1) {
      seen_closed = 1;
      /* A few calls more, all closed; then the thread is done. */
      if (++w->closed == 30) break;
    }
  }
  return NULL;
}

static int cmd_shutdown(const char* path, int threads, int rounds) {
  enum { kKeys = 4096 };
  bloomtool_filter* ref = open_or_exit(path);
  uint8_t expected[kKeys];
  char key[48];
  for (size_t i = 0; i < kKeys; ++i)
    expected[i] = (uint8_t)bloomtool_contains(ref, key, make_key(key, i));
  bloomtool_close(ref);
  struct closer* workers = calloc((size_t)threads, sizeof *workers);
  pthread_t* ids = calloc((size_t)threads, sizeof *ids);
  size_t answered = 0, closed = 0, wrong = 0;
  for (int round = 0; round < rounds; ++round) {
    bloomtool_filter* f = open_or_exit(path);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int t = 0; t < threads; ++t) {
      workers[t] = (struct closer){f, path, expected, kKeys, t, &start, 0, 0, 0};
      pthread_create(&ids[t], NULL, run_closer, &workers[t]);
    }
    pthread_barrier_wait(&start);
    /* Let the workers get going for a moment (a different moment each round), then shut down. */
    for (int i = 0; i < (round % 8) * 200; ++i)
      bloomtool_contains(f, key, make_key(key, (size_t)i));
    bloomtool_shutdown(f);
    if (round % 2 == 1) bloomtool_shutdown(f); /* twice is harmless */
    for (int t = 0; t < threads; ++t) {
      pthread_join(ids[t], NULL);
      answered += workers[t].answered;
      closed += workers[t].closed;
      wrong += workers[t].wrong;
    }
    pthread_barrier_destroy(&start);
    /* Every call on the shut handle fails with CLOSED, the empty batch and NULL arguments too. */
    bloomtool_info info = {.size = sizeof info};
    CHECK(closed_status(-bloomtool_contains(f, "a", 1), path) == 1, "contains after shutdown");
    CHECK(closed_status(-bloomtool_contains(f, NULL, 0), path) == 1, "empty key after shutdown");
    CHECK(closed_status(bloomtool_contains_many(f, NULL, NULL, 0, NULL), path) == 1,
          "empty batch after shutdown");
    CHECK(closed_status(bloomtool_get_info(f, &info), path) == 1, "get_info after shutdown");
    CHECK(strcmp(bloomtool_status_name(BLOOMTOOL_ERR_CLOSED), "closed") == 0, "status name");
    bloomtool_close(f);
  }
  printf("%d rounds x %d threads: %zu calls answered, %zu closed, %zu wrong\n", rounds, threads,
         answered, closed, wrong);
  CHECK(wrong == 0, "%zu calls neither answered right nor failed as closed", wrong);
  CHECK(closed == (size_t)rounds * (size_t)threads * 30, "every thread saw the handle closed");
  free(workers);
  free(ids);
  return failures == 0 ? 0 : 1;
}

static void* fail_in_thread(void* arg) {
  bloomtool_filter* f = NULL;
  CHECK(bloomtool_open((const char*)arg, &f) == BLOOMTOOL_ERR_IO, "open of a missing file");
  CHECK(strstr(bloomtool_last_error(), "No such file or directory") != NULL, "thread error: %s",
        bloomtool_last_error());
  return NULL;
}

static int cmd_api(const char* path) {
  CHECK(strcmp(bloomtool_last_error(), "") == 0, "no error yet: '%s'", bloomtool_last_error());
  CHECK(bloomtool_version() != NULL && strchr(bloomtool_version(), '.') != NULL, "version");
  bloomtool_filter* f = (bloomtool_filter*)1;
  CHECK(bloomtool_open(NULL, &f) == BLOOMTOOL_ERR_INVALID_ARGUMENT && f == NULL, "open(NULL)");
  CHECK(bloomtool_open(path, NULL) == BLOOMTOOL_ERR_INVALID_ARGUMENT, "open(path, NULL)");
  f = (bloomtool_filter*)1;
  CHECK(bloomtool_open_trusted(path, NULL, &f) == BLOOMTOOL_ERR_INVALID_ARGUMENT && f == NULL,
        "open_trusted without a key");
  CHECK(bloomtool_open_trusted(path, "", &f) == BLOOMTOOL_ERR_INVALID_ARGUMENT && f == NULL,
        "open_trusted with an empty key path");
  f = (bloomtool_filter*)1;
  CHECK(bloomtool_open("", &f) == BLOOMTOOL_ERR_INVALID_ARGUMENT && f == NULL, "open(\"\")");
  CHECK(strcmp(bloomtool_last_error(), "no path (the path is empty)") == 0, "open(\"\"): %s",
        bloomtool_last_error());
  CHECK(bloomtool_open_trusted("", path, &f) == BLOOMTOOL_ERR_INVALID_ARGUMENT && f == NULL,
        "open_trusted(\"\")");
  CHECK(strcmp(bloomtool_last_error(), "no path (the path is empty)") == 0,
        "open_trusted(\"\"): %s", bloomtool_last_error());
  bloomtool_shutdown(NULL);
  CHECK(strcmp(bloomtool_status_name(BLOOMTOOL_ERR_UNTRUSTED), "untrusted") == 0, "untrusted");
  CHECK(bloomtool_contains(NULL, "a", 1) == -BLOOMTOOL_ERR_INVALID_ARGUMENT, "contains(NULL)");
  CHECK(strcmp(bloomtool_last_error(), "no filter (the handle is NULL)") == 0, "%s",
        bloomtool_last_error());
  bloomtool_close(NULL);

  f = open_or_exit(path);
  CHECK(bloomtool_contains(f, NULL, 1) == -BLOOMTOOL_ERR_INVALID_ARGUMENT, "NULL key");
  CHECK(bloomtool_contains(f, NULL, 0) == 0, "the empty key is absent");
  CHECK(bloomtool_contains(f, "", 0) == 0, "the empty key is absent");
  uint64_t offsets[4] = {0, 3, 2, 5};
  uint8_t results[3] = {7, 7, 7};
  CHECK(bloomtool_contains_many(f, "abcde", offsets, 3, results) == BLOOMTOOL_ERR_INVALID_ARGUMENT,
        "decreasing offsets");
  CHECK(strcmp(bloomtool_last_error(), "offsets: entry 2 (2) is less than the one before it (3)") ==
            0,
        "%s", bloomtool_last_error());
  CHECK(bloomtool_contains_many(f, NULL, NULL, 0, NULL) == BLOOMTOOL_OK, "empty batch");
  CHECK(bloomtool_contains_many(f, "ab", offsets, 1, NULL) == BLOOMTOOL_ERR_INVALID_ARGUMENT,
        "NULL results");
  uint64_t empty[3] = {0, 0, 0};
  CHECK(bloomtool_contains_many(f, NULL, empty, 2, results) == BLOOMTOOL_OK && results[0] == 0 &&
            results[1] == 0,
        "two empty keys");

  /* An older caller's shorter struct: the members beyond its size stay untouched. */
  bloomtool_info info;
  memset(&info, 0xAB, sizeof info);
  info.size = offsetof(bloomtool_info, m);
  CHECK(bloomtool_get_info(f, &info) == BLOOMTOOL_OK && info.kind != NULL, "short info");
  CHECK(info.m == 0xABABABABABABABABull, "short info wrote past its size");
  info.size = 0;
  CHECK(bloomtool_get_info(f, &info) == BLOOMTOOL_ERR_INVALID_ARGUMENT, "size 0");
  CHECK(bloomtool_get_info(f, NULL) == BLOOMTOOL_ERR_INVALID_ARGUMENT, "NULL info");

  /* The last error belongs to the thread that failed. */
  const char* mine = bloomtool_last_error();
  char before[256];
  snprintf(before, sizeof before, "%s", mine);
  pthread_t t;
  pthread_create(&t, NULL, fail_in_thread, "/nonexistent/filter.bf");
  pthread_join(t, NULL);
  CHECK(strcmp(bloomtool_last_error(), before) == 0, "another thread's error leaked: %s",
        bloomtool_last_error());

  CHECK(strcmp(bloomtool_status_name(BLOOMTOOL_ERR_CORRUPT), "corrupt") == 0, "status name");
  CHECK(strcmp(bloomtool_status_name(-BLOOMTOOL_ERR_IO), "i/o error") == 0, "status name");
  bloomtool_close(f);
  printf("%s\n", failures == 0 ? "api checks passed" : "api checks FAILED");
  return failures == 0 ? 0 : 1;
}

static int racy_counter;

static void* race_worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; ++i) ++racy_counter; /* unsynchronised on purpose */
  return NULL;
}

static int cmd_race(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, race_worker, NULL);
  pthread_create(&b, NULL, race_worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("%d\n", racy_counter);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 5 && strcmp(argv[1], "query") == 0) return cmd_query(argv[2], argv[3], argv[4]);
  if (argc == 3 && strcmp(argv[1], "info") == 0) return cmd_info(argv[2], NULL);
  if (argc == 4 && strcmp(argv[1], "info") == 0) return cmd_info(argv[2], argv[3]);
  if (argc == 4 && strcmp(argv[1], "trusted") == 0) {
    bloomtool_filter* f = NULL;
    const bloomtool_status s = bloomtool_open_trusted(argv[2], argv[3], &f);
    if (s != BLOOMTOOL_OK) {
      printf("%s: %s\n", bloomtool_status_name(s), bloomtool_last_error());
      return f == NULL ? 2 : 1;
    }
    bloomtool_close(f);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "open") == 0) {
    bloomtool_close(open_or_exit(argv[2]));
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "threads") == 0)
    return cmd_threads(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10));
  if (argc == 5 && strcmp(argv[1], "shutdown") == 0)
    return cmd_shutdown(argv[2], atoi(argv[3]), atoi(argv[4]));
  if (argc == 3 && strcmp(argv[1], "api") == 0) return cmd_api(argv[2]);
  if (argc == 2 && strcmp(argv[1], "race") == 0) return cmd_race();
  fprintf(stderr, "usage: capi_check query|info|open|trusted|threads|shutdown|api|race ...\n");
  return 2;
}
