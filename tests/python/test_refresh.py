"""Filter.refresh(): following a file that a job replaces by an atomic rename.

Run by ctest (python.refresh) with BLOOMTOOL (the program) and BLOOMTOOL_LIBRARY in the
environment, python/ on PYTHONPATH.
"""

import copy
import ctypes
import os
import pickle
import time
import subprocess
import tempfile
import threading
import unittest
from datetime import timedelta
from pathlib import Path

import bloomtool

BT = os.environ["BLOOMTOOL"]


class Refresh(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self._tmp.name)
        for name in ("signer", "other"):
            subprocess.run([BT, "keygen", "-q", "-o", str(self.dir / name)], check=True)
        self.keys = {}
        for name in ("a", "b"):
            keys = [f"{name}{i}".encode() for i in range(200)]
            self.keys[name] = keys
            (self.dir / f"{name}.txt").write_bytes(b"".join(k + b"\n" for k in keys))
            self.build(name, name, "signer")
        self.build("b-other", "b", "other")
        self.path = self.dir / "followed.bf"

    def tearDown(self):
        self._tmp.cleanup()

    def build(self, out, keys, key):
        subprocess.run([BT, "build", "-q", "-n", "200", "-p", "0.1%", "--sign",
                        str(self.dir / f"{key}.key"), "-o", str(self.dir / f"{out}.bf"),
                        str(self.dir / f"{keys}.txt")], check=True)

    def replace(self, name, data=None):
        """The nightly job: write beside, then rename over the followed path."""
        tmp = self.dir / "followed.tmp"
        tmp.write_bytes(data if data is not None else (self.dir / f"{name}.bf").read_bytes())
        os.replace(tmp, self.path)

    def serves(self, f, name):
        other = "b" if name == "a" else "a"
        return all(f.contains_many(self.keys[name])) and not any(f.contains_many(self.keys[other]))

    def test_switches_only_to_a_new_good_file(self):
        self.replace("a")
        with bloomtool.open(self.path, trusted_key=self.dir / "signer.pub") as f:
            self.assertTrue(self.serves(f, "a"))
            self.assertFalse(f.refresh())  # the same file
            self.replace("b")
            self.assertTrue(f.refresh())
            self.assertTrue(self.serves(f, "b"))
            self.assertTrue(f.info["signature"]["verified"])
            self.assertFalse(f.refresh())
            # Signed by another key: refused, the old filter keeps serving, and again next time.
            self.replace("b-other")
            for _ in range(2):
                with self.assertRaises(bloomtool.UntrustedError) as caught:
                    f.refresh()
                self.assertTrue(str(caught.exception).startswith(str(self.path) + ": "))
                self.assertTrue(self.serves(f, "b"))
            # Truncated: refused the same way (a file that fails a check).
            self.replace("a", (self.dir / "a.bf").read_bytes()[:100])
            with self.assertRaises(bloomtool.Error):
                f.refresh()
            self.assertTrue(self.serves(f, "b"))
            # A missing path: an OSError, the old filter serving.
            os.unlink(self.path)
            with self.assertRaises(FileNotFoundError):
                f.refresh()
            self.assertTrue(self.serves(f, "b"))
            self.replace("a")
            self.assertTrue(f.refresh())
            self.assertTrue(self.serves(f, "a"))
        with self.assertRaises(bloomtool.ArgumentError):
            f.refresh()  # closed

    def test_threads_query_while_the_file_is_replaced(self):
        self.replace("a")
        queries = self.keys["a"] + self.keys["b"]
        want = {name: [k in set(self.keys[name]) for k in queries] for name in ("a", "b")}
        seen = {"a": 0, "b": 0}
        bad = []
        stop = threading.Event()
        with bloomtool.open(self.path, trusted_key=self.dir / "signer.pub") as f:
            def query():
                while not stop.is_set():
                    got = f.contains_many(queries)
                    name = "a" if got == want["a"] else "b" if got == want["b"] else None
                    if name is None:
                        bad.append(got)
                        return
                    seen[name] += 1

            threads = [threading.Thread(target=query) for _ in range(2)]
            for t in threads:
                t.start()
            try:
                for i in range(40):
                    self.replace("b" if i % 2 == 0 else "a")
                    self.assertTrue(f.refresh())
            finally:
                stop.set()
                for t in threads:
                    t.join()
        self.assertEqual(bad, [])
        self.assertGreater(seen["a"] + seen["b"], 0)

    def test_open_options_follow_the_file(self):
        """open(..., refresh_seconds=1): the queries switch to a good new file by themselves, a
        bad one is not served and its error is kept in refresh_error; the options survive
        pickling and copying (the copy follows the path too)."""
        self.replace("a")
        key = self.dir / "signer.pub"
        with bloomtool.open(self.path, trusted_key=key, refresh_seconds=1) as f:
            twin = pickle.loads(pickle.dumps(f))
            other = copy.copy(f)
            self.assertIsNone(f.refresh_error)
            self.replace("b")
            time.sleep(1.05)  # the next query may look again (at most once a second)
            for g in (f, twin, other):
                self.assertTrue(self.serves(g, "b"))
                self.assertIsNone(g.refresh_error)
            self.assertEqual(f.info["signature"]["verified"], True)
            self.replace("b-other")
            time.sleep(1.05)
            self.assertTrue(self.serves(f, "b"))  # the query that looked answered from b.bf
            self.assertTrue(f.refresh_error.startswith(str(self.path) + ": "), f.refresh_error)
            refused = r"followed\.bf: signed by key [0-9a-f]{16}, not by the trusted key "
            self.assertRegex(f.refresh_error, refused)
            with self.assertRaises(bloomtool.UntrustedError):
                f.refresh()  # on request: raised, the automatic error kept as it was
            self.assertRegex(f.refresh_error, refused)
            twin.close()
            other.close()
        with self.assertRaises(bloomtool.ArgumentError):
            f.refresh_error  # closed

    def test_open_options_max_age_and_bad_values(self):
        subprocess.run([BT, "build", "-q", "-n", "200", "-p", "0.1%", "-o",
                        str(self.dir / "old.bf"), str(self.dir / "a.txt")], check=True,
                       env=dict(os.environ, SOURCE_DATE_EPOCH="1000000000"))
        self.replace("old")
        for age in (3600, 3600.5, timedelta(hours=1)):
            with self.assertRaises(bloomtool.UntrustedError) as caught:
                bloomtool.open(self.path, max_age=age)
            self.assertRegex(str(caught.exception),
                             r"followed\.bf: too old: created \d+ s ago, the maximum age is 3600 s$")
        self.replace("a")
        with bloomtool.open(self.path, max_age=timedelta(days=1)) as f:
            self.assertTrue(self.serves(f, "a"))
            self.replace("old")
            with self.assertRaises(bloomtool.UntrustedError):
                f.refresh()
            self.assertTrue(self.serves(f, "a"))
            self.assertIsNone(f.refresh_error)  # no automatic refresh ran
        bad = [({"refresh_seconds": -1}, "refresh_seconds: expected an int"),
               ({"refresh_seconds": 1.5}, "refresh_seconds: expected an int"),
               ({"refresh_seconds": True}, "refresh_seconds: expected an int"),
               ({"refresh_seconds": 2 ** 32}, "refresh_seconds: expected an int"),
               ({"max_age": 0}, "max_age: expected None"),
               ({"max_age": "1d"}, "max_age: expected None"),
               ({"max_age": timedelta(seconds=-5)}, "max_age: expected None"),
               ({"refresh_seconds": 5, "format": "guava"}, "only for bloomtool files")]
        for kwargs, message in bad:
            with self.assertRaises(bloomtool.ArgumentError) as caught:
                bloomtool.open(self.path, **kwargs)
            self.assertIn(message, str(caught.exception))

    def test_max_age_through_the_c_api(self):
        """bloomtool_open_with's max_age_seconds, called directly: refused at open and at
        refresh, the old filter serving."""
        Options = bloomtool._OpenOptions  # bloomtool_open_options, as the module declares it
        lib = bloomtool._lib
        subprocess.run([BT, "build", "-q", "-n", "200", "-p", "0.1%", "-o",
                        str(self.dir / "old.bf"), str(self.dir / "a.txt")], check=True,
                       env=dict(os.environ, SOURCE_DATE_EPOCH="1000000000"))
        options = Options(ctypes.sizeof(Options), None, 0, 3600)
        handle = ctypes.c_void_p()
        self.replace("old")
        status = lib.bloomtool_open_with(bytes(self.path), ctypes.byref(options),
                                         ctypes.byref(handle))
        self.assertEqual(lib.bloomtool_status_name(status), b"untrusted")
        self.assertRegex(lib.bloomtool_last_error().decode(),
                         r"^.*followed\.bf: too old: created \d+ s ago, the maximum age is 3600 s$")
        self.assertIsNone(handle.value)
        self.replace("b")
        self.assertEqual(lib.bloomtool_open_with(bytes(self.path), ctypes.byref(options),
                                                 ctypes.byref(handle)), 0)
        try:
            self.replace("old")
            changed = ctypes.c_int(-1)
            status = lib.bloomtool_refresh(handle, ctypes.byref(changed))
            self.assertEqual(lib.bloomtool_status_name(status), b"untrusted")
            self.assertEqual(changed.value, 0)
            key = b"b7"
            self.assertEqual(lib.bloomtool_contains(handle, key, len(key)), 1)  # still b.bf
        finally:
            lib.bloomtool_close(handle)


if __name__ == "__main__":
    unittest.main()
