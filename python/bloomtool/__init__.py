"""Query bloomtool filter files in-process.

A pure-Python module over the C API of libbloomtool.so.0 (``bloomtool/bloomtool_c.h``) with
``ctypes``: nothing to compile, only the shared library to find (see ``_find_library``)::

    import bloomtool

    with bloomtool.open("seen.bf") as f:
        if "https://example.com/" in f:
            ...
        flags = f.contains_many(urls)      # list[bool], one call into the library
        print(f.info["kind"], f.info["model_fpr"])

Keys are ``bytes`` (or ``bytearray``), or ``str`` encoded as UTF-8, and are normalised as the
filter file says, exactly as ``bloomtool query`` does. Errors raise a subclass of
:class:`Error` carrying the message ``bloomtool`` prints: :class:`FilterFileError` (a
``ValueError``) for a file that is corrupt, unsupported or too large, :class:`OpenError` (an
``OSError``) when the file cannot be opened or read, :class:`UntrustedError` (a
``ValueError``) when ``open(path, trusted_key=...)`` finds the file unsigned, signed by another
key or altered, :class:`ArgumentError` (a ``ValueError``) for a bad argument or a closed filter.
One :class:`Filter` may be queried from many threads at once.
"""

from __future__ import annotations

import ctypes
import os
from array import array
from itertools import accumulate
from typing import Any, Dict, Iterable, List, Optional, Union

__all__ = [
    "ArgumentError",
    "Error",
    "Filter",
    "FilterFileError",
    "InternalError",
    "OpenError",
    "OutOfMemoryError",
    "UntrustedError",
    "library_version",
    "open",
]

Key = Union[bytes, bytearray, str]

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


class FilterFileError(Error, ValueError):
    """The file is not a filter this library reads: corrupt, truncated, unsupported, or larger
    than this machine's memory."""


class ArgumentError(Error, ValueError):
    """A bad argument: a key that is neither bytes nor str, or a closed filter."""


class OpenError(Error, OSError):
    """The operating system refused to open or read the file (missing, a directory, no
    permission). ``e.filename`` is the path."""

    def __init__(self, message: str, status: int = 0, status_name: str = "",
                 filename: Optional[str] = None) -> None:
        Error.__init__(self, message, status, status_name)
        self.filename = filename

    def __str__(self) -> str:
        return self.message


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
    lib = ctypes.CDLL(_find_library())
    lib.bloomtool_version.argtypes = []
    lib.bloomtool_version.restype = ctypes.c_char_p
    lib.bloomtool_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.bloomtool_open.restype = ctypes.c_int
    lib.bloomtool_open_trusted.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.POINTER(ctypes.c_void_p)]
    lib.bloomtool_open_trusted.restype = ctypes.c_int
    lib.bloomtool_close.argtypes = [ctypes.c_void_p]
    lib.bloomtool_close.restype = None
    lib.bloomtool_contains.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.bloomtool_contains.restype = ctypes.c_int
    lib.bloomtool_contains_many.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                                            ctypes.c_size_t, ctypes.c_void_p]
    lib.bloomtool_contains_many.restype = ctypes.c_int
    lib.bloomtool_get_info.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Info)]
    lib.bloomtool_get_info.restype = ctypes.c_int
    lib.bloomtool_last_error.argtypes = []
    lib.bloomtool_last_error.restype = ctypes.c_char_p
    lib.bloomtool_status_name.argtypes = [ctypes.c_int]
    lib.bloomtool_status_name.restype = ctypes.c_char_p
    return lib


_lib = _load()


def _error(status: int, path: Optional[str] = None) -> Error:
    # The message is the calling thread's: ctypes makes the call and this read in the same thread.
    message = _lib.bloomtool_last_error().decode("utf-8", "replace")
    name = _lib.bloomtool_status_name(status).decode()
    cls = _ERROR_CLASSES.get(status, InternalError)
    if cls is OpenError:
        return OpenError(message, status, name, path)
    return cls(message, status, name)


def _as_bytes(key: Key) -> bytes:
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, (bytes, bytearray)):
        return bytes(key)
    raise ArgumentError(f"key: expected bytes or str, got {type(key).__name__}",
                        _INVALID_ARGUMENT, "invalid argument")


def library_version() -> str:
    """The version of the loaded libbloomtool, e.g. "0.1.0"."""
    return _lib.bloomtool_version().decode()


class Filter:
    """An open filter file; create it with :func:`open`. Safe to query from several threads."""

    def __init__(self, path: Union[str, bytes, "os.PathLike[str]"],
                 trusted_key: Union[str, bytes, "os.PathLike[str]", None] = None) -> None:
        self._handle: Optional[int] = None
        self.path: str = os.fsdecode(path)
        handle = ctypes.c_void_p()
        if trusted_key is None:
            status = _lib.bloomtool_open(os.fsencode(path), ctypes.byref(handle))
        else:
            status = _lib.bloomtool_open_trusted(os.fsencode(path), os.fsencode(trusted_key),
                                                 ctypes.byref(handle))
        if status != _OK:
            raise _error(status, self.path)
        self._handle = handle.value
        self._info: Optional[Dict[str, Any]] = None

    def _live(self) -> int:
        if self._handle is None:
            raise ArgumentError(f"{self.path}: the filter is closed", _INVALID_ARGUMENT,
                                "invalid argument")
        return self._handle

    def contains(self, key: Key) -> bool:
        """True if `key` may be in the filter, False if it definitely is not."""
        if isinstance(key, str):
            key = key.encode("utf-8")
        elif not isinstance(key, bytes):
            key = _as_bytes(key)
        r = _lib.bloomtool_contains(self._live(), key, len(key))
        if r < 0:
            raise _error(-r, self.path)
        return r == 1

    __contains__ = contains

    def contains_many(self, keys: Iterable[Key]) -> List[bool]:
        """One answer per key, in order, from a single batch call into the library."""
        items = keys if isinstance(keys, list) else list(keys)
        if not items:
            self._live()
            return []
        try:
            data = b"".join(items)  # bytes and bytearray keys as they are
        except TypeError:
            data = self._join_str(items)
            if data is None:
                items = [_as_bytes(k) for k in items]
                data = b"".join(items)
        offsets = array("Q", accumulate(map(len, items), initial=0))
        count = len(items)
        results = bytearray(count)
        address, _ = offsets.buffer_info()
        status = _lib.bloomtool_contains_many(
            self._live(), data, address, count, (ctypes.c_uint8 * count).from_buffer(results))
        if status != _OK:
            raise _error(status, self.path)
        return list(map(bool, results))

    @staticmethod
    def _join_str(items: List[Key]) -> Optional[bytes]:
        """All keys str and all ASCII: one join and one encode, and each key's byte length is its
        length. None otherwise (the caller encodes key by key)."""
        try:
            text = "".join(items)  # type: ignore[arg-type]
        except TypeError:
            return None
        return text.encode("ascii") if text.isascii() else None

    @property
    def info(self) -> Dict[str, Any]:
        """The filter's facts, named as ``bloomtool stats --json`` names them: kind, variant (None
        unless Bloom), format_version, m, k, hash, hash_id, seed, distinct_keys (n), keys_added,
        model_fpr (the model's p), label, created_unix, normalisation, file_bytes, signature
        (a dict: signed, key_id or None, verified), path."""
        if self._info is None:
            raw = _Info()
            raw.size = ctypes.sizeof(_Info)
            status = _lib.bloomtool_get_info(self._live(), ctypes.byref(raw))
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
            self._info = info
        return dict(self._info)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Releases the filter; further queries raise ArgumentError. Calling it twice is fine.
        Like closing a file, it must not race with a query on the same filter in another thread."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _lib.bloomtool_close(handle)

    def __enter__(self) -> "Filter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if getattr(self, "_handle", None) is not None:
                self.close()
        except Exception:  # interpreter shutdown: the library may already be gone
            pass

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "open"
        return f"<bloomtool.Filter {self.path!r} ({state})>"


def open(path: Union[str, bytes, "os.PathLike[str]"],  # noqa: A001 (like io.open)
         trusted_key: Union[str, bytes, "os.PathLike[str]", None] = None) -> Filter:
    """Opens the filter file at `path`, with every check ``bloomtool query`` makes. With
    `trusted_key` (a NAME.pub file of ``bloomtool keygen``), only a file signed by that key and
    unaltered since opens, as with ``bloomtool query --trusted-key``; else UntrustedError."""
    return Filter(path, trusted_key)
