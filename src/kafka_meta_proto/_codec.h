/* What the compiled codec's parts share: _codec.c (the wire codec, the module), _codec_json.c
 * (Kafka's JSON form and JSON text) and _codec_arrow.c (Python lists into Arrow's buffers). */
#ifndef KAFKA_META_PROTO_CODEC_H
#define KAFKA_META_PROTO_CODEC_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* An object's attribute held in its slot at byte offset `off` (a borrowed reference, or NULL). */
#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* An exact int held in one digit, read in place (most integers a message or a row holds): 1, or
 * 0 for another (then PyLong_AsLongLongAndOverflow). */
static inline int
small_int(PyObject *v, long long *x)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)v))
        return 0;
    *x = (long long)PyUnstable_Long_CompactValue((PyLongObject *)v);
    return 1;
#else
    Py_ssize_t size = Py_SIZE(v);
    if (size < -1 || size > 1)
        return 0;
    *x = size * (long long)((PyLongObject *)v)->ob_digit[0];
    return 1;
#endif
}

/* a != b as Python evaluates it (no identity shortcut: a NaN differs from itself); -1 with an
 * error set. */
static inline int
python_ne(PyObject *a, PyObject *b)
{
    PyObject *r = PyObject_RichCompare(a, b, Py_NE);
    if (r == NULL)
        return -1;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
}

/* Set by setup(): the Uuid class and where its 16 bytes are held. */
extern PyTypeObject *UuidType;
extern Py_ssize_t uuid_bytes_offset;

/* The slot offset of cls's attribute `name`, or -1 with an error set. */
Py_ssize_t slot_offset(PyTypeObject *cls, PyObject *name);

/* _codec.c: read_record_value(data, classes) -> (record type, version, message), or None. */
PyObject *codec_read_record_value(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* _codec_json.c: the module functions it adds, and its start-up. */
PyObject *codec_setup_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_json_form(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_json_text(PyObject *module, PyObject *value);
PyObject *codec_json_form_alone(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_json_text_alone(PyObject *module, PyObject *value);
PyObject *codec_dict_columns(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_record_row(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *record_row_of(PyObject *value, PyObject *classes, PyObject *names);
int codec_json_ready(void);

/* _codec_arrow.c */
PyObject *codec_arrow_buffers(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
