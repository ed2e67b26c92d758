"""The Python module (python/bloomtool, ctypes over libbloomtool.so) against the bloomtool program.

Run by ctest (python.unittest) with Debian's python3 and the standard library only:
BLOOMTOOL (the program), BLOOMTOOL_LIBRARY (the built libbloomtool.so), GEN_KEYS (bench/gen_keys)
and TESTDATA in the environment, python/ on PYTHONPATH.
"""

import concurrent.futures
import copy
import errno
import gc
import json
import multiprocessing
import os
import pickle
import re
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from array import array
from pathlib import Path

import bloomtool

BT = os.environ["BLOOMTOOL"]
GEN_KEYS = os.environ["GEN_KEYS"]
TESTDATA = Path(os.environ["TESTDATA"])
GOLDEN = TESTDATA / "golden"


def cli_query(filter_path, keys_path):
    """The lines `bloomtool query` prints (exit 0 or 1)."""
    r = subprocess.run([BT, "query", str(filter_path), str(keys_path)], capture_output=True)
    if r.returncode not in (0, 1):
        raise AssertionError(f"bloomtool query {filter_path}: {r.stderr.decode()}")
    return r.stdout.splitlines()


def cli_error(filter_path):
    """The message `bloomtool query` prints for a file it refuses, without 'bloomtool: '."""
    r = subprocess.run([BT, "query", str(filter_path), "/dev/null"], capture_output=True)
    assert r.returncode == 2, (filter_path, r.returncode)
    line = r.stderr.decode().rstrip("\n")
    assert line.startswith("bloomtool: "), line
    return line[len("bloomtool: "):]


def read_keys(path):
    """Keys of a file, one per line, as bytes (what the CLI reads as its keys)."""
    return Path(path).read_bytes().split(b"\n")[:-1]


class GoldenFiles(unittest.TestCase):
    def setUp(self):
        # Every golden file, and its conversion to the raw chunked codec.
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.files = sorted(GOLDEN.glob("*.bf"))
        for path in list(self.files):
            raw = Path(self.tmp.name) / ("raw-" + path.name)
            subprocess.run([BT, "convert", "-q", "--codec", "raw", "-o", str(raw), str(path)],
                           check=True)
            self.files.append(raw)

    def test_every_golden_file_opens_and_answers_as_the_cli(self):
        self.assertGreaterEqual(len(self.files), 14)
        for path in self.files:
            with self.subTest(file=path.name), bloomtool.open(path) as f:
                for keys_path in (GOLDEN / "keys.txt", TESTDATA / "nonmembers-10k.txt"):
                    keys = read_keys(keys_path)
                    expected = cli_query(path, keys_path)
                    flags = f.contains_many(keys)
                    self.assertEqual(len(flags), len(keys))
                    self.assertEqual([k for k, b in zip(keys, flags) if b], expected)
                    # One at a time, as str (UTF-8), the same answers.
                    singles = [k.decode("utf-8") in f for k in keys]
                    self.assertEqual(singles, flags)
                self.assertTrue(all(f.contains_many(read_keys(GOLDEN / "keys.txt"))))

    def test_info_is_what_stats_json_reports(self):
        for path in self.files:
            with self.subTest(file=path.name):
                stats = json.loads(subprocess.run([BT, "stats", "--json", str(path)],
                                                  capture_output=True, check=True).stdout)
                if isinstance(stats, list):
                    stats = stats[0]
                with bloomtool.open(path) as f:
                    info = f.info
                for name in ("kind", "variant", "format_version", "m", "k", "hash", "label",
                             "normalisation", "created_unix", "keys_added", "distinct_keys",
                             "model_fpr", "file_bytes"):
                    self.assertEqual(info[name], stats[name], name)
                self.assertEqual(f"{info['seed']:#018x}", stats["seed"])
                self.assertEqual(info["signature"],
                                 {"signed": stats["signature"]["signed"],
                                  "key_id": stats["signature"]["key_id"], "verified": False})
                self.assertEqual(info["path"], str(path))
                self.assertIsInstance(info["m"], int)
                self.assertIsInstance(info["model_fpr"], float)


class RefusedFiles(unittest.TestCase):
    def test_every_bad_file_raises_the_cli_message(self):
        rows = []
        for line in (TESTDATA / "bad" / "README.md").read_text().splitlines():
            m = re.match(r"^\| `([^`]+\.bf)` \| ([a-z ]+) \|\s*`?([^|`]*)`?\s*\|", line)
            if m:
                rows.append(m.groups())
        on_disk = sorted(p.name for p in (TESTDATA / "bad").glob("*.bf"))
        self.assertEqual(sorted(r[0] for r in rows), on_disk, "every bad file has a row")
        for name, error, contains in rows:
            path = TESTDATA / "bad" / name
            with self.subTest(file=name):
                if error == "ok":
                    with bloomtool.open(path) as f:
                        self.assertIn(f.info["kind"], ("bloom", "xor", "binary-fuse"))
                    continue
                with self.assertRaises(bloomtool.FilterFileError) as caught:
                    bloomtool.open(path)
                e = caught.exception
                self.assertIsInstance(e, ValueError)
                self.assertIsInstance(e, bloomtool.Error)
                self.assertEqual(str(e), cli_error(path))
                self.assertIn(contains, str(e))
                self.assertEqual(e.status_name, error)

    def test_a_missing_file_and_a_directory_raise_oserror(self):
        with tempfile.TemporaryDirectory() as tmp:
            for path in (os.path.join(tmp, "missing.bf"), tmp):
                with self.subTest(path=path):
                    with self.assertRaises(bloomtool.OpenError) as caught:
                        bloomtool.open(path)
                    e = caught.exception
                    self.assertIsInstance(e, OSError)
                    self.assertIsInstance(e, bloomtool.Error)
                    self.assertEqual(str(e), cli_error(path))
                    self.assertEqual(e.filename, path)
                    self.assertEqual(e.status_name, "i/o error")


class TrustedKeys(unittest.TestCase):
    PUB = GOLDEN / "golden-signing.pub"

    def cli_untrusted(self, path, key):
        r = subprocess.run([BT, "query", "--trusted-key", str(key), str(path), "/dev/null"],
                           capture_output=True)
        self.assertEqual(r.returncode, 2)
        return r.stderr.decode().rstrip("\n")

    def test_a_signed_file_opens_with_its_key_and_answers(self):
        path = GOLDEN / "v1-bloom-signed.bf"
        with bloomtool.open(path, trusted_key=self.PUB) as f:
            self.assertTrue(f.info["signature"]["signed"])
            self.assertTrue(f.info["signature"]["verified"])
            self.assertRegex(f.info["signature"]["key_id"], r"^[0-9a-f]{16}$")
            keys = read_keys(GOLDEN / "keys.txt")
            self.assertTrue(all(f.contains_many(keys)))
        with bloomtool.open(path) as f:  # without a key: opens, unverified
            self.assertFalse(f.info["signature"]["verified"])

    def test_unsigned_and_altered_files_raise_untrusted(self):
        with tempfile.TemporaryDirectory() as tmp:
            altered = Path(tmp) / "altered.bf"
            data = bytearray((GOLDEN / "v1-bloom-signed.bf").read_bytes())
            data[-1] ^= 0x55
            altered.write_bytes(bytes(data))
            for path in (GOLDEN / "v1-bloom-standard.bf", GOLDEN / "v1-fuse-8.bf", altered):
                with self.subTest(file=path.name):
                    with self.assertRaises(bloomtool.UntrustedError) as caught:
                        bloomtool.open(path, trusted_key=self.PUB)
                    self.assertIsInstance(caught.exception, ValueError)
                    self.assertEqual("bloomtool: " + str(caught.exception),
                                     self.cli_untrusted(path, self.PUB))
                    self.assertEqual(caught.exception.status_name, "untrusted")

    def test_a_missing_key_file_is_an_oserror(self):
        with self.assertRaises(bloomtool.OpenError) as caught:
            bloomtool.open(GOLDEN / "v1-bloom-signed.bf", trusted_key="/nonexistent/k.pub")
        self.assertEqual(str(caught.exception), "/nonexistent/k.pub: No such file or directory")


class Api(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def build(self, keys, *options):
        keys_path = os.path.join(self.tmp.name, "keys.txt")
        out = os.path.join(self.tmp.name, "f.bf")
        Path(keys_path).write_bytes(b"".join(k + b"\n" for k in keys))
        subprocess.run([BT, "build", "-q", "-p", "0.1%", *options, "-o", out, keys_path],
                       check=True)
        return out

    def test_str_keys_are_utf8_and_normalised_as_the_file_says(self):
        path = self.build(["Grüße@Example.COM".encode(), b"bob@example.com"],
                          "--normalize", "email")
        with bloomtool.open(path) as f:
            self.assertEqual(f.info["normalisation"], "email")
            self.assertIn("grüße@example.com", f)
            self.assertIn(" Bob@Example.com ", f)
            self.assertIn(b"mailto:BOB@example.com", f)
            self.assertIn(bytearray(b"bob@example.com"), f)
            self.assertEqual(f.contains_many(["grüße@example.com", b"BOB@EXAMPLE.COM", "",
                                              "   ", "carol@example.com"]),
                             [True, True, False, False, f.contains("carol@example.com")])

    def test_the_empty_batch_and_the_empty_key(self):
        with bloomtool.open(GOLDEN / "v1-bloom-standard.bf") as f:
            self.assertEqual(f.contains_many([]), [])
            self.assertEqual(f.contains_many(iter([])), [])
            self.assertFalse("" in f)
            self.assertEqual(f.contains_many(k for k in [b"", b""]), [False, False])

    def test_bad_keys_and_a_closed_filter(self):
        f = bloomtool.open(GOLDEN / "v1-bloom-standard.bf")
        for bad in (1, None, 2.5):
            with self.assertRaises(bloomtool.ArgumentError):
                bad in f
            with self.assertRaises(bloomtool.ArgumentError) as caught:
                f.contains_many([b"a", bad])
            self.assertIsInstance(caught.exception, ValueError)
        self.assertFalse(f.closed)
        with f:
            pass
        self.assertTrue(f.closed)
        f.close()  # twice is fine
        with self.assertRaises(bloomtool.ArgumentError) as caught:
            "a" in f
        self.assertIn("closed", str(caught.exception))
        with self.assertRaises(ValueError):
            f.contains_many(["a"])
        with self.assertRaises(ValueError):
            f.info

    def test_error_classes(self):
        self.assertTrue(issubclass(bloomtool.FilterFileError, ValueError))
        self.assertTrue(issubclass(bloomtool.ArgumentError, ValueError))
        self.assertTrue(issubclass(bloomtool.OpenError, OSError))
        self.assertTrue(issubclass(bloomtool.UntrustedError, ValueError))
        for cls in (bloomtool.FilterFileError, bloomtool.ArgumentError, bloomtool.OpenError,
                    bloomtool.OutOfMemoryError, bloomtool.InternalError, bloomtool.UntrustedError):
            self.assertTrue(issubclass(cls, bloomtool.Error))
        self.assertRegex(bloomtool.library_version(), r"^\d+\.\d+\.\d+$")


class TenMillionKeys(unittest.TestCase):
    """One 10M-key filter, built once: 1,000,000 members and 1,000,000 non-members answered as
    `bloomtool query` answers them, by batch and one key at a time; two threads on one filter."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = Path(cls.tmp.name)
        cls.filter = d / "big.bf"
        gen = subprocess.Popen([GEN_KEYS, "phones", "10000000"], stdout=subprocess.PIPE)
        subprocess.run([BT, "build", "-q", "-n", "10M", "-p", "1%", "-o", str(cls.filter), "-"],
                       stdin=gen.stdout, check=True)
        gen.stdout.close()
        assert gen.wait() == 0
        cls.sets = {}
        for kind in ("phones", "nonmembers"):
            path = d / f"{kind}.txt"
            with open(path, "wb") as out:
                subprocess.run([GEN_KEYS, kind, "1000000"], stdout=out, check=True)
            cls.sets[kind] = (read_keys(path), cli_query(cls.filter, path))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_members_and_non_members_agree_with_the_cli(self):
        with bloomtool.open(self.filter) as f:
            for kind, (keys, expected) in self.sets.items():
                self.assertEqual(len(keys), 1000000)
                start = time.perf_counter()
                flags = f.contains_many(keys)
                seconds = time.perf_counter() - start
                present = [k for k, b in zip(keys, flags) if b]
                disagreements = len(set(present).symmetric_difference(expected))
                self.assertEqual(disagreements, 0, kind)
                self.assertEqual(present, expected, kind)
                singles = [k in f for k in keys]
                self.assertEqual(singles, flags, kind)
                print(f"\n{kind}: {len(present)} of 1000000 present; contains_many "
                      f"{len(keys) / seconds / 1e6:.2f} M keys/s", end="")
            self.assertEqual(len(self.sets["phones"][1]), 1000000, "a member is missing")

    def test_two_threads_on_one_filter(self):
        keys, expected = self.sets["nonmembers"]
        want = set(expected)
        flags_expected = [k in want for k in keys]
        errors = []
        with bloomtool.open(self.filter) as f:
            def work(offset):
                try:
                    rotated = keys[offset:] + keys[:offset]
                    got = [k in f for k in rotated]
                    if got != flags_expected[offset:] + flags_expected[:offset]:
                        errors.append(f"thread {offset}: single answers differ")
                    if f.contains_many(rotated) != flags_expected[offset:] + flags_expected[:offset]:
                        errors.append(f"thread {offset}: batch answers differ")
                except Exception as e:  # reported by the main thread
                    errors.append(repr(e))

            threads = [threading.Thread(target=work, args=(o,)) for o in (0, 500000)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        self.assertEqual(errors, [])


# --- embedding: closing, copying, pickling, odd arguments (issue classes of crashes) ------------

STANDARD = GOLDEN / "v1-bloom-standard.bf"
SIGNED = GOLDEN / "v1-bloom-signed.bf"
PUB = GOLDEN / "golden-signing.pub"


def probe_keys():
    """400 members and 400 non-members of the golden files."""
    return read_keys(GOLDEN / "keys.txt")[:400] + read_keys(TESTDATA / "nonmembers-10k.txt")[:400]


def cli_flags(filter_path, keys, trusted_key=None):
    """`bloomtool query`'s answer for each key, as a list of bools."""
    with tempfile.NamedTemporaryFile(suffix=".txt") as tmp:
        tmp.write(b"".join(k + b"\n" for k in keys))
        tmp.flush()
        extra = ["--trusted-key", str(trusted_key)] if trusted_key else []
        r = subprocess.run([BT, "query", *extra, str(filter_path), tmp.name], capture_output=True)
        assert r.returncode in (0, 1), r.stderr
        present = set(r.stdout.splitlines())
    return [k in present for k in keys]


def closed_error_of(test, f, call):
    with test.assertRaises(bloomtool.ArgumentError) as caught:
        call()
    test.assertEqual(str(caught.exception), f"{f.path}: the filter is closed")
    test.assertEqual(caught.exception.status_name, "closed")


# Workers of the process pools (module level: a spawned worker imports them by name).
def pool_query(args):
    f, keys = args
    return f.contains_many(keys), [k in f for k in keys], f.info["signature"]["verified"]


def pool_reopen(args):
    path, keys = args
    with bloomtool.open(path) as f:
        return f.contains_many(keys)


def pool_fail(path):
    bloomtool.open(path)


class Closing(unittest.TestCase):
    def test_every_method_of_a_closed_filter_raises_the_closed_error(self):
        f = bloomtool.open(STANDARD)
        f.close()
        self.assertTrue(f.closed)
        self.assertIn("(closed)", repr(f))
        for call in (lambda: f.contains(b"a"), lambda: "a" in f, lambda: f.contains(""),
                     lambda: f.contains_many([b"a", "b"]), lambda: f.contains_many([]),
                     lambda: f.contains_many(iter([])), lambda: f.info,
                     lambda: pickle.dumps(f), lambda: copy.copy(f), lambda: copy.deepcopy(f),
                     f.__enter__):
            closed_error_of(self, f, call)
        f.close()  # twice is fine
        closed_error_of(self, f, lambda: f.contains(b"a"))
        self.assertEqual(f.path, str(STANDARD))
        # A Filter never opened (its __init__ not run): the module's error, not AttributeError.
        g = bloomtool.Filter.__new__(bloomtool.Filter)
        for call in (lambda: g.contains(b"a"), lambda: g.contains_many([b"a"]), lambda: g.info,
                     lambda: pickle.dumps(g)):
            with self.assertRaises(bloomtool.ArgumentError):
                call()
        g.close()

    def test_close_while_threads_query(self):
        # 4 threads query one filter (single keys, str and bytes, batches, the facts) while the
        # main thread closes it; 25 rounds on 3 files. Every call answers as the CLI does or raises
        # the closed error, and once a thread saw it closed, every later call raises it.
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        raw = Path(tmp.name) / "raw.bf"
        subprocess.run([BT, "convert", "-q", "--codec", "raw", "-o", str(raw), str(STANDARD)],
                       check=True)
        keys = probe_keys()
        for path in (STANDARD, GOLDEN / "v1-fuse-8.bf", raw):
            expected = cli_flags(path, keys)
            answered = [0] * 4
            problems = []
            for round_ in range(25):
                f = bloomtool.open(path)
                start = threading.Barrier(5)

                def work(t):
                    closed_calls = 0  # once closed, 20 more calls, each must raise closed
                    n = 0
                    start.wait()
                    while closed_calls < 20:
                        n += 1
                        i = (n * 37 + t) % len(keys)
                        try:
                            kind = (n + t) % 4
                            if kind == 0:
                                ok = f.contains(keys[i]) == expected[i]
                            elif kind == 1:
                                ok = (keys[i].decode() in f) == expected[i]
                            elif kind == 2:
                                ok = f.contains_many(keys[i:i + 50]) == expected[i:i + 50]
                            else:
                                ok = f.info["kind"] in ("bloom", "binary-fuse")
                            if not ok:
                                problems.append(f"thread {t}: wrong answer")
                            if closed_calls:
                                problems.append(f"thread {t}: answered after closed")
                            answered[t] += 1
                        except bloomtool.ArgumentError as e:
                            if str(e) != f"{f.path}: the filter is closed":
                                problems.append(f"thread {t}: {e}")
                            closed_calls += 1
                        except Exception as e:  # reported below
                            problems.append(f"thread {t}: {e!r}")
                            return

                threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
                for t in threads:
                    t.start()
                start.wait()
                for _ in range(round_ % 5 * 20):
                    f.contains(keys[0])
                f.close()
                for t in threads:
                    t.join(timeout=60)
                    self.assertFalse(t.is_alive(), "a querying thread hangs")
                del f
                gc.collect()
            self.assertEqual(problems, [], path.name)
            print(f"\nclose while 4 threads query {path.name}, 25 rounds: {sum(answered)} calls "
                  "answered before the close, every later call raised closed", end="")


class CopyAndPickle(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.keys = probe_keys()

    def test_copies_are_independent_filters(self):
        for copier in (copy.copy, copy.deepcopy, lambda f: pickle.loads(pickle.dumps(f))):
            with self.subTest(copier=copier):
                f = bloomtool.open(STANDARD)
                expected = f.contains_many(self.keys)
                c = copier(f)
                self.assertIsNot(c, f)
                self.assertEqual(c.contains_many(self.keys), expected)
                c.close()  # closing (and dropping) the copy leaves the original open
                del c
                gc.collect()
                self.assertFalse(f.closed)
                self.assertEqual(f.contains_many(self.keys), expected)
                self.assertEqual([k in f for k in self.keys], expected)
                c = copier(f)
                f.close()
                del f
                gc.collect()
                self.assertEqual(c.contains_many(self.keys), expected)  # and the other way
                c.close()
        # A copy inside a structure, deep-copied: a new filter too.
        f = bloomtool.open(STANDARD)
        box = copy.deepcopy({"f": f, "again": f})
        self.assertIs(box["f"], box["again"])
        self.assertIsNot(box["f"], f)
        f.close()
        self.assertEqual(box["f"].contains_many(self.keys), cli_flags(STANDARD, self.keys))

    def test_pickle_keeps_the_trusted_key_and_the_absolute_path(self):
        with bloomtool.open(SIGNED, trusted_key=PUB) as f:
            data = pickle.dumps(f)
            self.assertIn(os.fsencode(PUB.resolve()), data)
        g = pickle.loads(data)
        self.assertTrue(g.info["signature"]["verified"])
        self.assertEqual(g.contains_many(self.keys), cli_flags(SIGNED, self.keys, PUB))
        # Opened by a relative path, unpickled elsewhere: the same file.
        cwd = os.getcwd()
        self.addCleanup(os.chdir, cwd)
        os.chdir(GOLDEN)
        f = bloomtool.open("v1-fuse-8.bf")
        s = bloomtool.open(b"v1-bloom-signed.bf", trusted_key=b"golden-signing.pub")
        data = pickle.dumps([f, s])
        f.close()
        s.close()
        os.chdir(self.tmp.name)
        f, s = pickle.loads(data)
        self.assertEqual(f.contains_many(self.keys), cli_flags(GOLDEN / "v1-fuse-8.bf", self.keys))
        self.assertTrue(s.info["signature"]["verified"])

    def test_a_file_changed_or_gone_since_pickling_is_refused(self):
        path = Path(self.tmp.name) / "f.bf"
        path.write_bytes(STANDARD.read_bytes())
        with bloomtool.open(path) as f:
            data = pickle.dumps(f)
        path.write_bytes((GOLDEN / "v1-fuse-8.bf").read_bytes())
        with self.assertRaises(bloomtool.FilterFileError) as caught:
            pickle.loads(data)
        self.assertRegex(str(caught.exception),
                         rf"^{re.escape(str(path))}: the file changed since the filter was pickled"
                         r" or copied \(kind was 'bloom', is 'binary-fuse'\)$")
        path.unlink()
        with self.assertRaises(FileNotFoundError):
            pickle.loads(data)
        # An untrusted file in place of a signed one: the trusted key is checked again.
        path.write_bytes(SIGNED.read_bytes())
        with bloomtool.open(path, trusted_key=PUB) as f:
            data = pickle.dumps(f)
        path.write_bytes(STANDARD.read_bytes())
        with self.assertRaises(bloomtool.UntrustedError):
            pickle.loads(data)

    def test_a_filter_that_cannot_be_reopened_refuses_to_pickle(self):
        with STANDARD.open("rb") as fd:
            for name in (f"/proc/self/fd/{fd.fileno()}", f"/dev/fd/{fd.fileno()}"):
                with self.subTest(name=name), bloomtool.open(name) as f:
                    self.assertEqual(f.contains_many(self.keys), cli_flags(STANDARD, self.keys))
                    for call in (pickle.dumps, copy.copy, copy.deepcopy):
                        with self.assertRaises(TypeError) as caught:
                            call(f)
                        self.assertIn("cannot reopen", str(caught.exception))
        # A key file that cannot be reopened: the filter neither.
        with PUB.open("rb") as key:
            with bloomtool.open(SIGNED, trusted_key=f"/proc/self/fd/{key.fileno()}") as f:
                with self.assertRaises(TypeError):
                    pickle.dumps(f)

    def test_process_pools_answer_as_the_cli(self):
        # Filters pickled to spawn / forkserver / fork workers (multiprocessing.Pool and
        # concurrent.futures.ProcessPoolExecutor), and reopened there by path: the CLI's answers.
        keys = self.keys
        expected = cli_flags(STANDARD, keys)
        expected_signed = cli_flags(SIGNED, keys, PUB)
        chunks = [keys[i:i + 200] for i in range(0, len(keys), 200)]
        with bloomtool.open(STANDARD) as f, bloomtool.open(SIGNED, trusted_key=PUB) as s:
            jobs = [(f, c) for c in chunks] + [(s, c) for c in chunks]
            want = [(expected[i:i + 200], True) for i in range(0, len(keys), 200)]
            want = [(e, e, False) for e, _ in want] + [
                (expected_signed[i:i + 200], expected_signed[i:i + 200], True)
                for i in range(0, len(keys), 200)]
            with multiprocessing.get_context("spawn").Pool(2) as pool:
                self.assertEqual(pool.map(pool_query, jobs), want)
                self.assertEqual(sum(pool.map(pool_reopen, [(str(STANDARD), c) for c in chunks]),
                                     []), expected)
                # A worker's exception comes back whole.
                with self.assertRaises(FileNotFoundError) as caught:
                    pool.apply(pool_fail, ("/nonexistent/x.bf",))
                self.assertIsInstance(caught.exception, bloomtool.OpenError)
                self.assertEqual(caught.exception.errno, errno.ENOENT)
            for method in ("spawn", "forkserver", "fork"):
                with self.subTest(method=method), concurrent.futures.ProcessPoolExecutor(
                        2, mp_context=multiprocessing.get_context(method)) as ex:
                    self.assertEqual(list(ex.map(pool_query, jobs)), want)


class Arguments(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_bytes_like_keys_are_their_bytes(self):
        keys = probe_keys()
        expected = cli_flags(STANDARD, keys)
        even = [k + b"-" * (len(k) % 2) for k in keys]  # for item sizes 2 and 4: whole items
        quad = [k + b"-" * (-len(k) % 4) for k in keys]
        expected_even = cli_flags(STANDARD, even)
        expected_quad = cli_flags(STANDARD, quad)
        self.assertTrue(any(expected_even) and any(expected_quad))
        spread = lambda k: memoryview(bytes(b for c in k for b in (c, 0x2D)))[::2]  # noqa: E731
        forms = [
            ("bytearray", keys, bytearray, expected),
            ("memoryview", keys, memoryview, expected),
            ("array B", keys, lambda k: array("B", k), expected),
            ("array b", keys, lambda k: array("b", k), expected),
            ("array H", even, lambda k: array("H", k), expected_even),
            ("array I", quad, lambda k: array("I", k), expected_quad),
            ("memoryview cast H", even, lambda k: memoryview(k).cast("H"), expected_even),
            ("memoryview 2-d", even,
             lambda k: memoryview(k).cast("B", (2, len(k) // 2)) if k else memoryview(k),
             expected_even),
            ("non-contiguous memoryview", keys, spread, expected),
        ]
        with bloomtool.open(STANDARD) as f:
            for name, base, form, want in forms:
                with self.subTest(form=name):
                    converted = [form(k) for k in base]
                    self.assertEqual(f.contains_many(converted), want)
                    self.assertEqual([f.contains(k) for k in converted], want)
                    self.assertEqual([k in f for k in converted], want)
                    # Mixed with bytes and str in one batch.
                    mixed = [c if i % 3 else (b.decode() if i % 2 else b)
                             for i, (b, c) in enumerate(zip(base, converted))]
                    self.assertEqual(f.contains_many(mixed), want)
            # The example: array('H', b'key1') is the 4-byte key b'key1'.
            member = next(k for k in read_keys(GOLDEN / "keys.txt") if len(k) % 2 == 0)
            self.assertEqual(f.contains_many([array("H", member), b"key2"]), [True, False])
            self.assertTrue(f.contains(array("H", member)))

    def test_a_single_key_is_not_a_batch(self):
        with bloomtool.open(STANDARD) as f:
            for batch in ("key1", b"key1", bytearray(b"key1"), memoryview(b"key1"),
                          array("B", b"key1"), array("u", "key1"), 5, None, 2.5):
                with self.subTest(batch=batch):
                    with self.assertRaises(bloomtool.ArgumentError) as caught:
                        f.contains_many(batch)
                    self.assertRegex(str(caught.exception), r"^keys: expected an iterable of keys")
            # Iterables that are batches.
            self.assertEqual(f.contains_many(("a", b"b")), [f.contains("a"), f.contains("b")])
            self.assertEqual(f.contains_many(k for k in ["a"]), [f.contains("a")])
            self.assertEqual(f.contains_many({"a": 1}), [f.contains("a")])

    def test_unencodable_and_bad_keys(self):
        with bloomtool.open(STANDARD) as f:
            for key in ("\ud800", "abc\udcff", "é\udfff"):
                with self.subTest(key=key):
                    with self.assertRaises(bloomtool.ArgumentError) as caught:
                        f.contains(key)
                    self.assertRegex(str(caught.exception), r"^key: not encodable as UTF-8")
                    for batch in ([key], ["a", key], [b"a", key], ["é", key]):
                        with self.assertRaises(bloomtool.ArgumentError) as caught:
                            f.contains_many(batch)
                        self.assertRegex(str(caught.exception),
                                         rf"^keys\[{len(batch) - 1}\]: not encodable as UTF-8")
            for bad in (1, None, 2.5, ["a"], object()):
                with self.assertRaises(bloomtool.ArgumentError):
                    f.contains(bad)
                with self.assertRaises(bloomtool.ArgumentError) as caught:
                    f.contains_many([b"a", bad])
                self.assertRegex(str(caught.exception), r"^keys\[1\]: expected bytes")

    def test_paths_with_nul_or_unencodable_or_empty_are_refused(self):
        # A file at the part before the NUL must not be what opens.
        os.symlink(STANDARD, os.path.join(self.tmp.name, "a.bf"))
        a = os.path.join(self.tmp.name, "a.bf")
        with bloomtool.open(a) as f:
            self.assertEqual(f.info["kind"], "bloom")
        for bad in (a + "\0x", os.fsencode(a) + b"\0x", Path(a + "\0x"), a + "\0"):
            with self.subTest(path=bad):
                with self.assertRaises(bloomtool.ArgumentError) as caught:
                    bloomtool.open(bad)
                self.assertRegex(str(caught.exception), r"^path: .* contains a NUL byte$")
                with self.assertRaises(bloomtool.ArgumentError) as caught:
                    bloomtool.open(SIGNED, trusted_key=str(PUB) + "\0" if isinstance(bad, str)
                                   else os.fsencode(PUB) + b"\0x")
                self.assertRegex(str(caught.exception), r"^trusted_key: .* contains a NUL byte$")
        with self.assertRaises(bloomtool.ArgumentError):
            bloomtool.open(SIGNED, trusted_key=Path(str(PUB) + "\0"))
        for bad, what in (("\ud800.bf", "path"), (1, "path"), (None, "path"), (2.5, "path")):
            with self.subTest(path=bad):
                with self.assertRaises(bloomtool.ArgumentError) as caught:
                    bloomtool.open(bad)
                self.assertTrue(str(caught.exception).startswith(what + ": "),
                                str(caught.exception))
        with self.assertRaises(bloomtool.ArgumentError) as caught:
            bloomtool.open(SIGNED, trusted_key="\ud800.pub")
        self.assertRegex(str(caught.exception), r"^trusted_key: ")
        for empty in ("", b""):
            with self.assertRaises(bloomtool.ArgumentError) as caught:
                bloomtool.open(empty)
            self.assertEqual(str(caught.exception), "no path (the path is empty)")
        with self.assertRaises(bloomtool.ArgumentError) as caught:
            bloomtool.open(SIGNED, trusted_key="")
        self.assertEqual(str(caught.exception), "no public key file (NULL or empty)")
        # A file name that is not UTF-8 (bytes, or str with surrogate escapes) opens.
        odd = os.path.join(os.fsencode(self.tmp.name), b"\xff.bf")
        os.symlink(STANDARD, odd)
        for name in (odd, os.fsdecode(odd)):
            with bloomtool.open(name) as f:
                self.assertEqual(f.path, os.fsdecode(odd))

    def test_open_errors_carry_errno_and_the_oserror_subclass(self):
        missing = os.path.join(self.tmp.name, "missing.bf")
        cases = [(missing, None, FileNotFoundError, errno.ENOENT, missing),
                 (self.tmp.name, None, IsADirectoryError, errno.EISDIR, self.tmp.name),
                 (os.path.join(str(STANDARD), "x.bf"), None, NotADirectoryError, errno.ENOTDIR,
                  os.path.join(str(STANDARD), "x.bf")),
                 (str(SIGNED), missing + ".pub", FileNotFoundError, errno.ENOENT, missing + ".pub")]
        if os.geteuid() != 0:
            locked = os.path.join(self.tmp.name, "locked.bf")
            Path(locked).write_bytes(STANDARD.read_bytes())
            os.chmod(locked, 0)
            cases.append((locked, None, PermissionError, errno.EACCES, locked))
        for path, key, cls, code, filename in cases:
            with self.subTest(path=path, key=key):
                with self.assertRaises(cls) as caught:
                    bloomtool.open(path, trusted_key=key)
                e = caught.exception
                self.assertIsInstance(e, bloomtool.OpenError)
                self.assertEqual(e.errno, code)
                self.assertEqual(e.strerror, os.strerror(code))
                self.assertEqual(e.filename, filename)
                self.assertEqual(str(e), f"{filename}: {os.strerror(code)}")
                if key is None:
                    self.assertEqual(str(e), cli_error(path))
                again = pickle.loads(pickle.dumps(e))
                self.assertIs(type(again), type(e))
                self.assertEqual((str(again), again.errno, again.filename, again.status_name),
                                 (str(e), e.errno, e.filename, e.status_name))

    def test_a_missing_library_fails_the_import_with_a_hint(self):
        r = subprocess.run([sys.executable, "-c", "import bloomtool"], capture_output=True,
                           env={**os.environ,
                                "BLOOMTOOL_LIBRARY": "/nonexistent/libbloomtool.so.0"})
        self.assertEqual(r.returncode, 1)
        last = r.stderr.decode().rstrip("\n").splitlines()[-1]
        self.assertRegex(last, r"^ImportError: bloomtool: cannot load the C library "
                               r"/nonexistent/libbloomtool\.so\.0 \(.*\): install libbloomtool0 "
                               r".*set BLOOMTOOL_LIBRARY")


if __name__ == "__main__":
    unittest.main()
