/* bloomtool._speedups: the Python module's batches of keys in one C loop each.
 *
 * Optional: bloomtool works the same without it (pure Python; also with BLOOMTOOL_NO_SPEEDUPS=1),
 * only slower on long lists. It knows nothing of libbloomtool: it lays keys out as the C API's
 * batch calls take them (bloomtool_contains_many, bloomtool_builder_add_many: the keys' bytes back
 * to back and count + 1 uint64 offsets), and turns a results buffer into a list of bools.
 *
 *   pack(keys, start, stop, data, offsets, limit) -> int
 *     keys: a list or tuple; data, offsets: bytearrays the call grows as needed (never shrinks,
 *     so one pair serves a run of calls). Writes keys[start:stop] to data and their offsets (from
 *     0) to offsets, and returns how many it packed: stop - start, or fewer when the next key is
 *     not exactly bytes or str, is a str not encodable as UTF-8, or is longer than `limit` bytes
 *     (the caller gives that key to the pure-Python path, which raises the error it always did).
 *   bools(buffer) -> list: True for each nonzero byte of `buffer`, False for each zero.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Grows the bytearray `buf` to at least `need` bytes (doubling, so a run of appends is linear);
 * never shrinks it. */
static int reserve(PyObject *buf, Py_ssize_t need) {
  const Py_ssize_t have = PyByteArray_GET_SIZE(buf);
  if (need <= have) return 0;
  const Py_ssize_t twice = have > PY_SSIZE_T_MAX / 2 ? PY_SSIZE_T_MAX : 2 * have;
  return PyByteArray_Resize(buf, need > twice ? need : twice);
}

static PyObject *pack(PyObject *module, PyObject *args) {
  (void)module;
  PyObject *keys, *data, *offsets;
  Py_ssize_t start, stop, limit;
  if (!PyArg_ParseTuple(args, "OnnO!O!n:pack", &keys, &start, &stop, &PyByteArray_Type, &data,
                        &PyByteArray_Type, &offsets, &limit))
    return NULL;
  const int is_list = PyList_Check(keys);
  if (!is_list && !PyTuple_Check(keys)) {
    PyErr_Format(PyExc_TypeError, "pack: keys must be a list or tuple, not %.100s",
                 Py_TYPE(keys)->tp_name);
    return NULL;
  }
  const Py_ssize_t size = is_list ? PyList_GET_SIZE(keys) : PyTuple_GET_SIZE(keys);
  if (start < 0 || stop < start || stop > size || limit < 0) {
    PyErr_SetString(PyExc_ValueError, "pack: need 0 <= start <= stop <= len(keys), limit >= 0");
    return NULL;
  }
  const Py_ssize_t count = stop - start;
  if (count >= PY_SSIZE_T_MAX / 8 || reserve(offsets, (count + 1) * 8) < 0 ||
      reserve(data, 1) < 0)  // at least one byte: the caller takes its address
    return NULL;
  char *const off = PyByteArray_AS_STRING(offsets);
  uint64_t used = 0;
  memcpy(off, &used, 8);
  Py_ssize_t i = start;
  for (; i < stop; ++i) {
    // Only the encoding of a non-ASCII str allocates objects (and so may run a garbage
    // collection and arbitrary finalizers): the list is measured again at every key.
    if (is_list && i >= PyList_GET_SIZE(keys)) break;
    PyObject *key = is_list ? PyList_GET_ITEM(keys, i) : PyTuple_GET_ITEM(keys, i);
    PyObject *encoded = NULL;
    const char *bytes;
    Py_ssize_t len;
    if (PyBytes_CheckExact(key)) {
      bytes = PyBytes_AS_STRING(key);
      len = PyBytes_GET_SIZE(key);
    } else if (PyUnicode_CheckExact(key) && PyUnicode_IS_COMPACT_ASCII(key)) {
      bytes = (const char *)PyUnicode_DATA(key);
      len = PyUnicode_GET_LENGTH(key);
    } else if (PyUnicode_CheckExact(key)) {
      // Not PyUnicode_AsUTF8AndSize: that keeps a UTF-8 copy inside every key it is given.
      Py_INCREF(key);
      encoded = PyUnicode_AsUTF8String(key);
      Py_DECREF(key);
      if (encoded == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;  // MemoryError
        PyErr_Clear();
        break;
      }
      bytes = PyBytes_AS_STRING(encoded);
      len = PyBytes_GET_SIZE(encoded);
    } else {
      break;
    }
    if (len > limit) {
      Py_XDECREF(encoded);
      break;
    }
    if ((uint64_t)len > (uint64_t)PY_SSIZE_T_MAX - used ||
        reserve(data, (Py_ssize_t)(used + (uint64_t)len)) < 0) {
      Py_XDECREF(encoded);
      return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    memcpy(PyByteArray_AS_STRING(data) + used, bytes, (size_t)len);
    Py_XDECREF(encoded);
    used += (uint64_t)len;
    memcpy(PyByteArray_AS_STRING(offsets) + (i - start + 1) * 8, &used, 8);
  }
  return PyLong_FromSsize_t(i - start);
}

static PyObject *bools(PyObject *module, PyObject *arg) {
  (void)module;
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
  PyObject *list = PyList_New(view.len);
  if (list != NULL) {
    const unsigned char *p = (const unsigned char *)view.buf;
    for (Py_ssize_t i = 0; i < view.len; ++i) {
      PyObject *answer = p[i] ? Py_True : Py_False;
      Py_INCREF(answer);
      PyList_SET_ITEM(list, i, answer);
    }
  }
  PyBuffer_Release(&view);
  return list;
}

static PyMethodDef methods[] = {
    {"pack", pack, METH_VARARGS,
     "pack(keys, start, stop, data, offsets, limit) -> int\n\n"
     "keys[start:stop] (a list or tuple of bytes and str) as a batch: their bytes back to back\n"
     "in the bytearray data, count + 1 native uint64 offsets in the bytearray offsets (both\n"
     "grown as needed). Returns how many keys it packed, fewer than stop - start when the next\n"
     "is of another type, a str not encodable as UTF-8, or longer than limit bytes."},
    {"bools", bools, METH_O,
     "bools(buffer) -> list\n\nTrue for each nonzero byte of buffer, False for each zero."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "bloomtool._speedups",
    "Batches of keys for the C API in one C loop (optional; see bloomtool.building).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module_def); }
