/* Following a replaced file (bloomtool_refresh, bloomtool_open_options.refresh_seconds) while
 * threads query: refresh_test.sh builds the files, this program replaces the followed file by an
 * atomic rename ROUNDS times while THREADS threads query batches on one handle, and checks that
 * every batch's answers are exactly those of one whole good filter (A or B), never those of the
 * file that must not be served (BAD: its keys, present in the corrupt and the wrongly signed
 * replacements), and that every bad replacement is refused by bloomtool_refresh while the old
 * filter keeps serving.
 *   refresh_check PATH KEY.pub A.bf B.bf CORRUPT.bf WRONGKEY.bf KEYS THREADS ROUNDS
 * KEYS: a file of newline-separated query keys. PATH is created from A.bf. */
#include <bloomtool/bloomtool_c.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxKeys = 4096 };

static const char* keys_data;
static uint64_t offsets[kMaxKeys + 1];
static size_t key_count;
static uint8_t answers_good[2][kMaxKeys]; /* of A and of B */
static uint8_t answers_bad[kMaxKeys];     /* of the filter that must never be served */
static bloomtool_filter* followed;
static atomic_int stop_flag;
static atomic_int failed;
static atomic_long batches[2]; /* answered by A, by B */

static char* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, len = 0;
  char* buf = malloc(cap);
  size_t got;
  while (buf != NULL && (got = fread(buf + len, 1, cap - len, f)) > 0) {
    len += got;
    if (len == cap) {
      char* bigger = realloc(buf, cap *= 2);
      if (bigger == NULL) free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  *size = len;
  return buf;
}

static int write_file(const char* path, const char* data, size_t size) {
  FILE* f = fopen(path, "wb");
  if (f == NULL) return -1;
  const int ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static int answers_of(const char* path, uint8_t* out) {
  bloomtool_filter* f = NULL;
  if (bloomtool_open(path, &f) != BLOOMTOOL_OK) {
    fprintf(stderr, "open %s: %s\n", path, bloomtool_last_error());
    return -1;
  }
  const int status = bloomtool_contains_many(f, keys_data, offsets, key_count, out);
  bloomtool_close(f);
  return status == BLOOMTOOL_OK ? 0 : -1;
}

static void* query_loop(void* arg) {
  (void)arg;
  uint8_t got[kMaxKeys];
  while (!atomic_load(&stop_flag) && !atomic_load(&failed)) {
    const int status = bloomtool_contains_many(followed, keys_data, offsets, key_count, got);
    if (status != BLOOMTOOL_OK) {
      fprintf(stderr, "FAIL: contains_many: %s\n", bloomtool_last_error());
      atomic_store(&failed, 1);
      break;
    }
    if (memcmp(got, answers_good[0], key_count) == 0) {
      atomic_fetch_add(&batches[0], 1);
    } else if (memcmp(got, answers_good[1], key_count) == 0) {
      atomic_fetch_add(&batches[1], 1);
    } else {
      fprintf(stderr, "FAIL: a batch's answers are %s\n",
              memcmp(got, answers_bad, key_count) == 0 ? "those of a refused file"
                                                       : "from no one whole filter");
      atomic_store(&failed, 1);
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 10) {
    fprintf(stderr,
            "usage: refresh_check PATH KEY.pub A.bf B.bf CORRUPT.bf WRONGKEY.bf KEYS THREADS "
            "ROUNDS\n");
    return 2;
  }
  const char* path = argv[1];
  const char* pub = argv[2];
  const int threads = atoi(argv[8]);
  const int rounds = atoi(argv[9]);
  size_t size[4];
  char* image[4];
  for (int i = 0; i < 4; ++i) {
    image[i] = read_all(argv[3 + i], &size[i]);
    if (image[i] == NULL) {
      fprintf(stderr, "cannot read %s\n", argv[3 + i]);
      return 2;
    }
  }
  size_t keys_size = 0;
  keys_data = read_all(argv[7], &keys_size);
  if (keys_data == NULL) return 2;
  for (size_t at = 0; at < keys_size && key_count < kMaxKeys;) {
    const char* nl = memchr(keys_data + at, '\n', keys_size - at);
    const size_t end = nl != NULL ? (size_t)(nl - keys_data) : keys_size;
    offsets[key_count] = at;
    offsets[++key_count] = end;
    at = end + 1;
  }
  /* The bad answers: those of the corrupt/wrongly signed file's keys, from its unsigned twin
   * (argv[6] opened without a trusted key: the signature is then not checked). */
  if (answers_of(argv[3], answers_good[0]) != 0 || answers_of(argv[4], answers_good[1]) != 0 ||
      answers_of(argv[6], answers_bad) != 0)
    return 2;
  if (memcmp(answers_good[0], answers_good[1], key_count) == 0 ||
      memcmp(answers_good[0], answers_bad, key_count) == 0 ||
      memcmp(answers_good[1], answers_bad, key_count) == 0) {
    fprintf(stderr, "the three key sets must answer differently\n");
    return 2;
  }

  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  if (write_file(path, image[0], size[0]) != 0) return 2;
  bloomtool_open_options options;
  memset(&options, 0, sizeof options);
  options.size = sizeof options;
  options.trusted_key = pub;
  options.refresh_seconds = 1; /* the queries look too, once a second */
  if (bloomtool_open_with(path, &options, &followed) != BLOOMTOOL_OK) {
    fprintf(stderr, "FAIL: open %s: %s\n", path, bloomtool_last_error());
    return 1;
  }

  pthread_t tid[64];
  if (threads < 1 || threads > 64) return 2;
  for (int t = 0; t < threads; ++t) pthread_create(&tid[t], NULL, query_loop, NULL);

  int switched = 0, refused = 0, good = 0;
  for (int r = 0; r < rounds && !atomic_load(&failed); ++r) {
    /* B, A, B, A, ... with one corrupt and one wrongly signed replacement in every 10. */
    const int which = r % 10 == 3 ? 2 : r % 10 == 6 ? 3 : r % 2 == 0 ? 1 : 0;
    if (write_file(tmp, image[which], size[which]) != 0 || rename(tmp, path) != 0) {
      perror("replace");
      atomic_store(&failed, 1);
      break;
    }
    int changed = -1;
    const bloomtool_status status = bloomtool_refresh(followed, &changed);
    if (which >= 2) {
      /* A flipped byte fails the signature check (made first, over the bytes then decoded). */
      if (status != BLOOMTOOL_ERR_UNTRUSTED || changed != 0) {
        fprintf(stderr, "FAIL: round %d: a %s replacement: status %s, changed %d (%s)\n", r,
                which == 2 ? "corrupt" : "wrongly signed", bloomtool_status_name(status), changed,
                bloomtool_last_error());
        atomic_store(&failed, 1);
      }
      ++refused;
    } else if (status != BLOOMTOOL_OK) {
      fprintf(stderr, "FAIL: round %d: refresh: %s\n", r, bloomtool_last_error());
      atomic_store(&failed, 1);
    } else {
      /* 0 when a query's own refresh got there first. */
      switched += changed;
      ++good;
      bloomtool_info info;
      memset(&info, 0, sizeof info);
      info.size = sizeof info;
      if (bloomtool_get_info(followed, &info) != BLOOMTOOL_OK || info.signature_verified != 1) {
        fprintf(stderr, "FAIL: round %d: get_info after a refresh\n", r);
        atomic_store(&failed, 1);
      }
    }
  }
  atomic_store(&stop_flag, 1);
  for (int t = 0; t < threads; ++t) pthread_join(tid[t], NULL);

  /* The last replacement was good (rounds is a multiple of 10): it is served. */
  int changed = -1;
  if (bloomtool_refresh(followed, &changed) != BLOOMTOOL_OK || changed != 0) {
    fprintf(stderr, "FAIL: a refresh with nothing new: changed %d\n", changed);
    atomic_store(&failed, 1);
  }
  bloomtool_close(followed);
  for (int i = 0; i < 4; ++i) free(image[i]);
  free((void*)keys_data);
  printf(
      "%d replacements (%d good, %d switched by refresh, %d refused), batches %ld from A, %ld "
      "from B\n",
      rounds, good, switched, refused, atomic_load(&batches[0]), atomic_load(&batches[1]));
  return atomic_load(&failed) ? 1 : 0;
}
