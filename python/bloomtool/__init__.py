"""Query bloomtool filter files in-process.

A Python module over the C API of libbloomtool.so.0 (``bloomtool/bloomtool_c.h``) with
``ctypes``: only the shared library to find (see ``_find_library``). An optional compiled helper,
``bloomtool._speedups`` (built where the Python headers are installed: Debian's python3-dev),
lays out long lists of keys for the library's batch calls in one C loop; without it (or with
the environment variable BLOOMTOOL_NO_SPEEDUPS=1) the same pure-Python code gives the same
answers, files and errors, only slower::

    import bloomtool

    with bloomtool.open("seen.bf") as f:
        if "https://example.com/" in f:
            ...
        flags = f.contains_many(urls)      # list[bool], one call into the library
        print(f.info["kind"], f.info["model_fpr"])

Keys are ``bytes`` (or any bytes-like object: its bytes), or ``str`` encoded as UTF-8, and are
normalised as the filter file says, exactly as ``bloomtool query`` does. Errors raise a subclass
of :class:`Error` carrying the message ``bloomtool`` prints: :class:`FilterFileError` (a
``ValueError``) for a file that is corrupt, unsupported or too large, :class:`OpenError` (an
``OSError``, and the matching FileNotFoundError, PermissionError, ...) when the file cannot be
opened or read, :class:`UntrustedError` (a ``ValueError``) when ``open(path, trusted_key=...)``
finds the file unsigned, signed by another key or altered, :class:`ArgumentError` (a
``ValueError``) for a bad argument or a closed filter.
One :class:`Filter` may be queried from many threads at once, and closed while they query (their
calls then answer or raise ArgumentError, never crash). A filter pickles (and copies) by reopening
its file with the same options in the other process: ``multiprocessing``, ``concurrent.futures``
and Dask can pass it to workers.
"""

from __future__ import annotations

import ctypes
import errno as _errno
import os
import stat
import sys
from array import array
from itertools import accumulate
from datetime import timedelta
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

__all__ = [
    "ArgumentError",
    "BloomFilter",
    "Error",
    "Filter",
    "FilterFileError",
    "InternalError",
    "OpenError",
    "OutOfMemoryError",
    "UntrustedError",
    "build",
    "from_bytes",
    "library_version",
    "open",
]

# A key: bytes, any bytes-like object (bytearray, memoryview, array.array, ...: its bytes, by
# byte length), or str (encoded as UTF-8).
Key = Union[bytes, bytearray, memoryview, str, Any]
PathArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# bloomtool_status (bloomtool_c.h).
_OK = 0
_INVALID_ARGUMENT = 1
_BAD_INPUT = 2
_CORRUPT = 3
_UNSUPPORTED = 4
_IO = 5
_LIMIT_EXCEEDED = 6
_NO_MEMORY = 7
_INTERNAL = 8
_UNTRUSTED = 9
_CLOSED = 10


class Error(Exception):
    """A refusal of libbloomtool: ``str(e)`` is the message the bloomtool program prints (without
    its ``bloomtool:`` prefix); ``e.status`` the C API's status code and ``e.status_name`` its
    name ("corrupt", "unsupported", "i/o error", ...)."""

    def __init__(self, message: str, status: int = 0, status_name: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = status_name

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Tuple[Any, ...]:
        # Exceptions travel between processes (multiprocessing returns a worker's to the caller).
        return (type(self), (self.message, self.status, self.status_name))


class FilterFileError(Error, ValueError):
    """The file is not a filter this library reads: corrupt, truncated, unsupported, or larger
    than this machine's memory."""


class ArgumentError(Error, ValueError):
    """A bad argument (a key that is neither bytes-like nor str, a path with a NUL byte, ...), or
    a closed filter (``e.status_name == "closed"``)."""


class OpenError(Error, OSError):
    """The operating system refused to open or read the file (missing, a directory, no
    permission). ``e.filename`` is the path, ``e.errno`` the error number and ``e.strerror`` its
    text; the exception is also an instance of the matching OSError subclass
    (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError), so ``except
    FileNotFoundError`` catches a missing file."""

    def __init__(self, message: str, status: int = _IO, status_name: str = "i/o error",
                 filename: Optional[str] = None, errno: Optional[int] = None) -> None:
        if errno is not None:
            OSError.__init__(self, errno, os.strerror(errno), filename)
        else:
            OSError.__init__(self, message)
            self.filename = filename
        self.message = message
        self.status = status
        self.status_name = status_name

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.status, self.status_name, self.filename,
                             self.errno))


class _FileNotFoundOpenError(OpenError, FileNotFoundError):
    pass


class _PermissionOpenError(OpenError, PermissionError):
    pass


class _IsADirectoryOpenError(OpenError, IsADirectoryError):
    pass


class _NotADirectoryOpenError(OpenError, NotADirectoryError):
    pass


_OPEN_ERRORS = {
    _errno.ENOENT: _FileNotFoundOpenError,
    _errno.EACCES: _PermissionOpenError,
    _errno.EPERM: _PermissionOpenError,
    _errno.EISDIR: _IsADirectoryOpenError,
    _errno.ENOTDIR: _NotADirectoryOpenError,
}
# The C API words an I/O error "<path>: <strerror(errno)>": the number back from the text.
_ERRNO_OF = {os.strerror(code): code for code in sorted(_errno.errorcode, reverse=True)}


class UntrustedError(Error, ValueError):
    """Opened with a trusted key, the file is not signed by it or was altered since it was."""


class OutOfMemoryError(Error, MemoryError):
    """An allocation failed inside the library."""


class InternalError(Error, RuntimeError):
    """Anything else the library reports (a bug: please report it)."""


_ERROR_CLASSES = {
    _INVALID_ARGUMENT: ArgumentError,
    _BAD_INPUT: FilterFileError,
    _CORRUPT: FilterFileError,
    _UNSUPPORTED: FilterFileError,
    _IO: OpenError,
    _LIMIT_EXCEEDED: FilterFileError,
    _NO_MEMORY: OutOfMemoryError,
    _INTERNAL: InternalError,
    _UNTRUSTED: UntrustedError,
    _CLOSED: ArgumentError,
}


class _Info(ctypes.Structure):
    # bloomtool_info, member for member.
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("kind", ctypes.c_char_p),
        ("variant", ctypes.c_char_p),
        ("format_version", ctypes.c_char_p),
        ("m", ctypes.c_uint64),
        ("k", ctypes.c_uint32),
        ("hash_id", ctypes.c_uint32),
        ("distinct_keys", ctypes.c_uint64),
        ("keys_added", ctypes.c_uint64),
        ("model_fpr", ctypes.c_double),
        ("label", ctypes.c_char_p),
        ("created_unix", ctypes.c_int64),
        ("normalisation", ctypes.c_char_p),
        ("hash", ctypes.c_char_p),
        ("seed", ctypes.c_uint64),
        ("file_bytes", ctypes.c_uint64),
        ("signature_signed", ctypes.c_int32),
        ("signature_verified", ctypes.c_int32),
        ("signature_key_id", ctypes.c_char_p),
    ]


class _OpenOptions(ctypes.Structure):
    # bloomtool_open_options, member for member.
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("trusted_key", ctypes.c_char_p),
        ("refresh_seconds", ctypes.c_uint32),
        ("max_age_seconds", ctypes.c_int64),
    ]


def _find_library() -> str:
    """Where libbloomtool.so.0 is: $BLOOMTOOL_LIBRARY if set; else the library installed with
    this module (``_libpath.py``, written by ``cmake --install``, names it relative to this
    directory); else the dynamic loader's search (ldconfig cache, LD_LIBRARY_PATH)."""
    explicit = os.environ.get("BLOOMTOOL_LIBRARY")
    if explicit:
        return explicit
    try:
        from . import _libpath  # type: ignore[attr-defined]

        candidate = os.path.normpath(os.path.join(os.path.dirname(__file__), _libpath.LIBRARY))
        if os.path.exists(candidate):
            return candidate
    except ImportError:
        pass
    return "libbloomtool.so.0"


def _load() -> ctypes.CDLL:
    name = _find_library()
    try:
        lib = ctypes.CDLL(name)
    except OSError as e:
        raise ImportError(
            f"bloomtool: cannot load the C library {name} ({e}): install libbloomtool0 (or "
            "`cmake --install` bloomtool), or set BLOOMTOOL_LIBRARY to the path of "
            "libbloomtool.so.0", name="bloomtool") from e
    lib.bloomtool_version.argtypes = []
    lib.bloomtool_version.restype = ctypes.c_char_p
    lib.bloomtool_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.bloomtool_open.restype = ctypes.c_int
    lib.bloomtool_open_trusted.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.POINTER(ctypes.c_void_p)]
    lib.bloomtool_open_trusted.restype = ctypes.c_int
    lib.bloomtool_close.argtypes = [ctypes.c_void_p]
    lib.bloomtool_close.restype = None
    if not hasattr(lib, "bloomtool_shutdown"):
        raise ImportError(f"bloomtool: {name} is older than this module (no bloomtool_shutdown)",
                          name="bloomtool")
    lib.bloomtool_shutdown.argtypes = [ctypes.c_void_p]
    lib.bloomtool_shutdown.restype = None
    lib.bloomtool_contains.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.bloomtool_contains.restype = ctypes.c_int
    lib.bloomtool_contains_many.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                            ctypes.c_size_t, ctypes.c_void_p]
    lib.bloomtool_contains_many.restype = ctypes.c_int
    lib.bloomtool_contains_separated.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                 ctypes.c_size_t, ctypes.c_uint8,
                                                 ctypes.c_size_t, ctypes.c_void_p]
    lib.bloomtool_contains_separated.restype = ctypes.c_int
    lib.bloomtool_get_info.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Info)]
    lib.bloomtool_get_info.restype = ctypes.c_int
    lib.bloomtool_last_error.argtypes = []
    lib.bloomtool_last_error.restype = ctypes.c_char_p
    lib.bloomtool_status_name.argtypes = [ctypes.c_int]
    lib.bloomtool_status_name.restype = ctypes.c_char_p
    # Following a replaced file (Filter.refresh, open(..., refresh_seconds=, max_age=)).
    lib.bloomtool_refresh.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    lib.bloomtool_refresh.restype = ctypes.c_int
    lib.bloomtool_open_with.argtypes = [ctypes.c_char_p, ctypes.POINTER(_OpenOptions),
                                        ctypes.POINTER(ctypes.c_void_p)]
    lib.bloomtool_open_with.restype = ctypes.c_int
    lib.bloomtool_last_refresh_error.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                 ctypes.c_size_t]
    lib.bloomtool_last_refresh_error.restype = ctypes.c_int64
    return lib


_lib = _load()
_contains = _lib.bloomtool_contains  # looked up once: `key in f` is one attribute lookup shorter


def _error(status: int, path: Optional[str] = None) -> Error:
    # The message is the calling thread's: ctypes makes the call and this read in the same thread.
    message = _lib.bloomtool_last_error().decode("utf-8", "replace")
    name = _lib.bloomtool_status_name(status).decode()
    cls = _ERROR_CLASSES.get(status, InternalError)
    if cls is OpenError:
        code = _ERRNO_OF.get(message.rpartition(": ")[2])
        filename = path
        if code is not None and path is not None and not message.startswith(path + ": "):
            filename = message.rpartition(": ")[0]  # the trusted key file, not the filter
        open_error = _OPEN_ERRORS.get(code, OpenError)  # type: ignore[arg-type]
        return open_error(message, status, name, filename, code)
    return cls(message, status, name)


def _argument_error(message: str) -> ArgumentError:
    return ArgumentError(message, _INVALID_ARGUMENT, "invalid argument")


def _as_bytes(key: Key, what: str = "key") -> bytes:
    """A key's bytes: a str as UTF-8, a bytes-like object's bytes (all of them: an array('H') of
    2 items is 4 bytes; a non-contiguous memoryview in its logical order)."""
    if isinstance(key, bytes):
        return key
    if isinstance(key, str):
        try:
            return key.encode("utf-8")
        except UnicodeEncodeError as e:
            raise _argument_error(f"{what}: not encodable as UTF-8 ({e.reason}: "
                                  f"{key[e.start:e.end]!r} at index {e.start})") from None
    try:
        view = memoryview(key)
    except (TypeError, ValueError, BufferError):
        raise _argument_error(f"{what}: expected bytes, a bytes-like object or str, got "
                              f"{type(key).__name__}") from None
    with view:
        return view.tobytes()


def _path_bytes(value: Any, what: str) -> bytes:
    """A path argument as the bytes handed to the C API: str (file system encoding), bytes or
    os.PathLike; refused with ArgumentError if of another type, not encodable, or holding a NUL
    byte (C would see only the part before it)."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise _argument_error(f"{what}: expected str, bytes or os.PathLike, got "
                              f"{type(value).__name__}")
    try:
        encoded = os.fsencode(value)
    except UnicodeEncodeError as e:
        raise _argument_error(f"{what}: {os.fsdecode(os.fspath(value))!r} is not encodable in the "
                              f"file system encoding ({e.reason})") from None
    except TypeError as e:  # a PathLike whose __fspath__ returns something else
        raise _argument_error(f"{what}: {e}") from None
    if b"\0" in encoded:
        raise _argument_error(f"{what}: {os.fsdecode(encoded)!r} contains a NUL byte")
    return encoded


def _reopenable(path: bytes) -> Optional[bytes]:
    """The absolute path by which another process reopens this file, or None if it cannot: not
    a regular file (a pipe, a device), or a name that only means something in this process."""
    absolute = os.path.abspath(path)
    local = (b"/proc/", b"/dev/fd/", b"/dev/std")
    if absolute.startswith(local) or os.path.realpath(absolute).startswith(local):
        return None
    try:
        if not stat.S_ISREG(os.stat(absolute).st_mode):
            return None
    except OSError:
        return None
    return absolute


def library_version() -> str:
    """The version of the loaded libbloomtool, e.g. "0.1.0"."""
    return _lib.bloomtool_version().decode()


# The facts compared when a pickled filter is reopened: a file replaced in between is refused.
_IDENTITY = ("kind", "variant", "m", "k", "hash", "seed", "distinct_keys", "created_unix",
             "file_bytes")


def _reopen(path: bytes, options: Dict[str, Any], identity: Tuple[Any, ...]) -> "Filter":
    """Unpickles a Filter: opens the same file with the same open options (keyword arguments of
    Filter: trusted_key as an absolute path, format, refresh_seconds, max_age), and checks that it
    is the file that was pickled (the facts of _IDENTITY), unless the filter follows its path
    (refresh_seconds): then whatever good file the path names now is the one wanted."""
    f = Filter(path, **options)
    if options.get("refresh_seconds"):
        return f  # it follows the path: the file serving there now is the one wanted
    info = f._info
    now = tuple(info[name] for name in _IDENTITY)
    if now != tuple(identity):
        f.close()
        changed = next(n for n, a, b in zip(_IDENTITY, identity, now) if a != b)
        raise FilterFileError(f"{f.path}: the file changed since the filter was pickled or copied"
                              f" ({changed} was {dict(zip(_IDENTITY, identity))[changed]!r}, is "
                              f"{info[changed]!r})", _CORRUPT, "corrupt")
    return f


# Keys joined by this byte go to the library in one join, with no offsets to compute (the
# library splits them, and refuses a count that does not match: a key holding the byte).
_SEP = 10  # b"\n"


def _joined(keys: List[Any]) -> Optional[bytes]:
    """The keys joined by b"\\n" in one join (str ones encoded as UTF-8 after the join), or None
    when they are not all str or all bytes-like. A key holding b"\\n" makes the count wrong, which
    the library refuses before using any key: the caller then falls back to _batch."""
    try:
        if type(keys[0]) is str:
            return "\n".join(keys).encode("utf-8")
        return b"\n".join(keys)
    except (TypeError, UnicodeEncodeError, BufferError, ValueError):
        return None


def _load_speedups() -> Any:
    """bloomtool._speedups (pack, bools), or None when it is not built or BLOOMTOOL_NO_SPEEDUPS
    is set (to anything but "" or "0")."""
    if os.environ.get("BLOOMTOOL_NO_SPEEDUPS", "") not in ("", "0"):
        return None
    try:
        from . import _speedups  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _speedups


_fast = _load_speedups()
# With _fast: no limit on a key's length for pack() (the query calls take any length).
_ANY_LENGTH = sys.maxsize


def _at(buffer: bytearray, offset: int = 0) -> Any:
    """A pointer to buffer[offset] for a ctypes call; the buffer cannot be resized until the
    pointer is dropped (it holds a buffer export)."""
    return ctypes.byref(ctypes.c_char.from_buffer(buffer, offset))


# Keys joined as they are: their len() is their length in bytes (not so for array.array or a
# memoryview of wider items, which are converted key by key).
_JOINABLE = {bytes, bytearray}


def _follow_options(refresh_seconds: Any, max_age: Any,
                    format: str) -> Optional[Tuple[int, int]]:
    """(refresh_seconds, max_age in whole seconds) for bloomtool_open_with, or None when neither
    is set; ArgumentError for a bad value."""
    if not isinstance(refresh_seconds, int) or isinstance(refresh_seconds, bool) or \
            not 0 <= refresh_seconds < 2 ** 32:
        raise _argument_error(f"refresh_seconds: expected an int from 0 (only refresh()) to "
                              f"2**32 - 1, got {refresh_seconds!r}")
    seconds = 0
    if max_age is not None:
        value = max_age.total_seconds() if isinstance(max_age, timedelta) else max_age
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 1 or \
                value >= 2 ** 63:
            raise _argument_error(f"max_age: expected None, a number of seconds of at least 1 or "
                                  f"a datetime.timedelta, got {max_age!r}")
        seconds = int(value)
    if refresh_seconds == 0 and seconds == 0:
        return None
    if format != "bloomtool":
        raise _argument_error(f"refresh_seconds, max_age: only for bloomtool files (format="
                              f"'bloomtool'), got format={format!r}")
    return refresh_seconds, seconds


class Filter:
    """An open filter file; create it with :func:`open`. Safe to query from several threads, and
    to close while they do (queries take no lock). Pickling and copying reopen the file by its
    absolute path with the same options: trusted key, format, refresh_seconds and max_age (a
    TypeError for a filter opened from a pipe, a device or /proc). :meth:`refresh` (or
    ``refresh_seconds``) follows a file that a job replaces; :attr:`refresh_error` holds the error
    of the last automatic refresh."""

    # An object whose __init__ failed or never ran answers every call with ArgumentError.
    _handle: Optional[int] = None
    _closed = True
    path = ""

    def __init__(self, path: PathArg, trusted_key: Optional[PathArg] = None,
                 format: str = "bloomtool", *, refresh_seconds: int = 0,
                 max_age: Union[None, int, float, timedelta] = None) -> None:
        if getattr(self, "_handle", None) is not None:
            raise TypeError("bloomtool.Filter: already open (create a new Filter)")
        # _handle is set once, here, and freed by __del__ only: close() shuts the C handle down
        # (bloomtool_shutdown: calls in flight finish, later ones fail with BLOOMTOOL_ERR_CLOSED),
        # so no thread ever passes a freed pointer, whatever the timing of close().
        self._handle = None
        self._closed = True
        encoded = _path_bytes(path, "path")
        key = None if trusted_key is None else _path_bytes(trusted_key, "trusted_key")
        self.path = os.fsdecode(encoded)
        handle = ctypes.c_void_p()
        follow = _follow_options(refresh_seconds, max_age, format)
        if follow is not None:
            options = _OpenOptions(ctypes.sizeof(_OpenOptions), key, *follow)
            status = _lib.bloomtool_open_with(encoded, ctypes.byref(options), ctypes.byref(handle))
        elif format != "bloomtool":
            from .building import _FORMATS
            if format not in _FORMATS:
                raise _argument_error(f"format: expected one of {', '.join(_FORMATS)}, got "
                                      f"{format!r}")
            status = _lib.bloomtool_open_format(encoded, _FORMATS[format], key,
                                                ctypes.byref(handle))
        elif key is None:
            status = _lib.bloomtool_open(encoded, ctypes.byref(handle))
        else:
            status = _lib.bloomtool_open_trusted(encoded, key, ctypes.byref(handle))
        if status != _OK:
            raise _error(status, self.path)
        self._handle = handle.value
        self._closed = False
        self._info = self._read_info()
        reopen = _reopenable(encoded)
        key_reopen = None if key is None else _reopenable(key)
        # How another process opens the same file: its absolute path and every open option.
        self._reopen: Optional[Tuple[bytes, Dict[str, Any]]] = (
            None if reopen is None or (key is not None and key_reopen is None)
            else (reopen, {} if key is None else {"trusted_key": key_reopen}))
        if self._reopen is not None and format != "bloomtool":
            self._reopen[1]["format"] = format
        if self._reopen is not None and follow is not None:
            self._reopen[1]["refresh_seconds"] = follow[0]
            if follow[1]:
                self._reopen[1]["max_age"] = follow[1]

    def _check_open(self) -> None:
        """Raises the closed error once the C handle is shut down (asking it, not a flag of
        this object: the answer is the same one the queries get, in the same order)."""
        probe = _Info()
        probe.size = ctypes.sizeof(ctypes.c_size_t)  # only the size member is written
        status = _lib.bloomtool_get_info(self._handle, ctypes.byref(probe))
        if status != _OK:
            raise _error(status, self.path)

    def contains(self, key: Key) -> bool:
        """True if `key` may be in the filter, False if it definitely is not. `key`: bytes, any
        bytes-like object (its bytes), or str (UTF-8)."""
        if type(key) is not bytes:
            key = _as_bytes(key)
        r = _contains(self._handle, key, len(key))
        if r < 0:
            raise _error(-r, self.path)
        return r == 1

    __contains__ = contains

    def contains_many(self, keys: Iterable[Key]) -> List[bool]:
        """One answer per key, in order, from a single batch call into the library. `keys` is an
        iterable of keys (a list, a generator, ...), not a single str or bytes-like object."""
        if type(keys) is list:
            items = keys
        else:
            if isinstance(keys, (str, bytes, bytearray, memoryview, array)) or _is_buffer(keys):
                raise _argument_error(f"keys: expected an iterable of keys, got a single "
                                      f"{type(keys).__name__} (use [key] or contains(key))")
            try:
                items = list(keys)
            except TypeError:
                raise _argument_error(f"keys: expected an iterable of keys, got "
                                      f"{type(keys).__name__}") from None
        count = len(items)
        if count and _fast is not None:
            # Packed by the extension in one pass; the library splits a long batch between
            # threads. A key of another type or a str not encodable as UTF-8: the code below.
            data, offsets = bytearray(), bytearray()
            if _fast.pack(items, 0, count, data, offsets, _ANY_LENGTH) == count:
                answers = bytearray(count)
                status = _lib.bloomtool_contains_many(self._handle, _at(data), _at(offsets),
                                                      count, _at(answers))
                if status != _OK:
                    raise _error(status, self.path)
                return _fast.bools(answers)
        results = bytearray(count)
        buffer = (ctypes.c_uint8 * count).from_buffer(results) if count else None
        if count:
            # Fast path: one join, split by the library (which refuses a key holding b"\n").
            joined = _joined(items)
            if joined is not None and _lib.bloomtool_contains_separated(
                    self._handle, joined, len(joined), _SEP, count, buffer) == _OK:
                return list(map(bool, results))
        data: Optional[bytes] = None
        first = type(items[0]) if items else bytes
        if first is str:
            data = self._join_str(items)
        elif set(map(type, items)) <= _JOINABLE:
            data = b"".join(items)
        if data is None:
            items = [_as_bytes(k, f"keys[{i}]") for i, k in enumerate(items)]
            data = b"".join(items)
        offsets = array("Q", accumulate(map(len, items), initial=0))
        address, _ = offsets.buffer_info()
        status = _lib.bloomtool_contains_many(self._handle, data, address, count, buffer)
        if status != _OK:
            raise _error(status, self.path)
        return list(map(bool, results))

    @staticmethod
    def _join_str(items: List[Key]) -> Optional[bytes]:
        """All keys str and all ASCII: one join and one encode, and each key's byte length is its
        length. None otherwise (the caller encodes key by key)."""
        try:
            text = "".join(items)  # type: ignore[arg-type]
        except TypeError:  # not all str
            return None
        return text.encode("ascii") if text.isascii() else None

    def _read_info(self) -> Dict[str, Any]:
        raw = _Info()
        raw.size = ctypes.sizeof(_Info)
        status = _lib.bloomtool_get_info(self._handle, ctypes.byref(raw))
        if status != _OK:
            raise _error(status, self.path)
        info: Dict[str, Any] = {}
        for name, ctype in _Info._fields_:
            if name == "size":
                continue
            value = getattr(raw, name)
            info[name] = value.decode("utf-8", "replace") if ctype is ctypes.c_char_p else value
        info["variant"] = info["variant"] or None
        info["signature"] = {
            "signed": bool(info.pop("signature_signed")),
            "key_id": info.pop("signature_key_id") or None,
            "verified": bool(info.pop("signature_verified")),
        }
        info["path"] = self.path
        return info

    @property
    def info(self) -> Dict[str, Any]:
        """The filter's facts, named as ``bloomtool stats --json`` names them: kind, variant (None
        unless Bloom or Ribbon), format_version, m, k, hash, hash_id, seed, distinct_keys (n),
        keys_added, model_fpr (the model's p), label, created_unix, normalisation, file_bytes,
        signature (a dict: signed, key_id or None, verified), path."""
        self._check_open()
        # Read anew: an automatic refresh (refresh_seconds) may have switched filters.
        self._info = self._read_info()
        info = dict(self._info)
        info["signature"] = dict(info["signature"])
        return info

    def refresh(self) -> bool:
        """Switches to the file the path names now if it is another file (a nightly job's atomic
        rename), after opening and verifying it fully (checksums, the same trusted key): True if
        it switched, False if the path still names the file being served. A new file that fails
        a check raises (e.g. :class:`FilterFileError`, :class:`UntrustedError`) and the old
        filter keeps serving; the next refresh retries. Queries from other threads may run
        meanwhile: each call answers from one whole filter, the old or the new."""
        changed = ctypes.c_int(0)
        status = _lib.bloomtool_refresh(self._handle, ctypes.byref(changed))
        if status != _OK:
            raise _error(status, self.path)
        if changed.value:
            self._info = self._read_info()
        return bool(changed.value)

    @property
    def refresh_error(self) -> Optional[str]:
        """The message of the last automatic refresh (``open(..., refresh_seconds=N)``) that
        failed, e.g. ``"x.bf: untrusted: ..."``, or None when the last one succeeded or none has
        run. No query raises it: the query that found the bad file answered from the old filter,
        which keeps serving; the next check retries. :meth:`refresh` raises its own errors and
        leaves this as it is. Readable from any thread."""
        size = 256
        while True:
            buf = ctypes.create_string_buffer(size)
            full = _lib.bloomtool_last_refresh_error(self._handle, buf, size)
            if full < 0:
                raise _error(-full, self.path)
            if full < size:
                return buf.value.decode("utf-8", "replace") or None
            size = full + 1

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Releases the filter; further calls raise ArgumentError ("... the filter is closed").
        Calling it twice is fine, and so is calling it while other threads query: it waits for
        the calls in flight, and the calls after it raise."""
        if self._handle is not None:
            _lib.bloomtool_shutdown(self._handle)
        self._closed = True

    def _reopen_args(self, what: str) -> Tuple[Any, ...]:
        self._check_open()
        if self._reopen is None:
            raise TypeError(f"cannot {what} bloomtool.Filter {self.path!r}: opened from a file that"
                            " another process cannot reopen by its path (a pipe, a device, /proc)")
        path, options = self._reopen
        info = self._read_info()
        return (path, dict(options), tuple(info[name] for name in _IDENTITY))

    def __reduce__(self) -> Tuple[Any, ...]:
        # Another process (multiprocessing, concurrent.futures, Dask) reopens the file by path;
        # a filter opened from bytes (bloomtool.build, from_bytes) travels as its bytes.
        image = getattr(self, "_image", None)
        if image is not None:
            self._check_open()
            return (_from_image, (image[0], image[1]))
        return (_reopen, self._reopen_args("pickle"))

    def __copy__(self) -> "Filter":
        """An independent Filter on the same file (reopened): closing one leaves the other open."""
        image = getattr(self, "_image", None)
        if image is not None:
            self._check_open()
            return _from_image(image[0], image[1])
        return _reopen(*self._reopen_args("copy"))

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Filter":
        return self.__copy__()

    def __enter__(self) -> "Filter":
        self._check_open()  # as a closed file does
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # No other reference exists, so no call is in flight: the handle itself is freed.
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None:
            try:
                _lib.bloomtool_close(handle)
            except Exception:  # interpreter shutdown: the library may already be gone
                pass

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<bloomtool.Filter {self.path!r} ({state})>"


def _is_buffer(value: object) -> bool:
    try:
        memoryview(value).release()  # type: ignore[arg-type]
    except Exception:  # TypeError; some exporters raise ValueError or BufferError
        return False
    return True


def open(path: PathArg,  # noqa: A001 (like io.open)
         trusted_key: Optional[PathArg] = None, format: str = "bloomtool", *,
         refresh_seconds: int = 0,
         max_age: Union[None, int, float, timedelta] = None) -> Filter:
    """Opens the filter file at `path`, with every check ``bloomtool query`` makes. With
    `trusted_key` (a NAME.pub file of ``bloomtool keygen``), only a file signed by that key and
    unaltered since opens, as with ``bloomtool query --trusted-key``; else UntrustedError. A path
    holding a NUL byte, or not encodable, raises ArgumentError. `format`: 'bloomtool' (a file
    bloomtool wrote), 'guava' (a Guava BloomFilter.writeTo file), 'dcso' (a DCSO bloom v1 file,
    plain or gzip) or 'auto' (told apart by the first bytes).

    Following a file that a job replaces (bloomtool files only): with `refresh_seconds` N > 0 the
    queries look, at most once every N seconds, whether the path names a new file, and switch to
    it after verifying it fully (checksums, the same trusted key, `max_age`), as
    :meth:`Filter.refresh` does on request; a new file that fails a check is not served (see
    :attr:`Filter.refresh_error`). `max_age` (seconds, or a ``datetime.timedelta``): a file
    created longer ago is refused with UntrustedError, at open and at every refresh. Pickling
    such a filter reopens the path with the same options.

    ::

        f = bloomtool.open("/srv/blocklist.bf", trusted_key="ops.pub", refresh_seconds=60,
                           max_age=timedelta(days=2))
    """
    return Filter(path, trusted_key, format, refresh_seconds=refresh_seconds, max_age=max_age)


def _from_image(data: bytes, format: str) -> Filter:
    from .building import from_bytes
    return from_bytes(data, format=format)


from .building import BloomFilter, build, from_bytes  # noqa: E402 (needs the names above)
