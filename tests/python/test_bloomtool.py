"""The Python module (python/bloomtool, ctypes over libbloomtool.so) against the bloomtool program.

Run by ctest (python.unittest) with Debian's python3 and the standard library only:
BLOOMTOOL (the program), BLOOMTOOL_LIBRARY (the built libbloomtool.so), GEN_KEYS (bench/gen_keys)
and TESTDATA in the environment, python/ on PYTHONPATH.
"""

import json
import os
import re
import subprocess
import tempfile
import threading
import time
import unittest
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


if __name__ == "__main__":
    unittest.main()
