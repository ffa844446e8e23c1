/* Inline helpers the package's C extensions share: the message codec (_codec*.c),
 * the record reader (log/_records.c) and the row builder (pipeline/_rows.c, pipeline/_arrow.c).
 * Each extension is built on its own; everything here is static. */
#ifndef KAFKA_META_PROTO_C_COMMON_H
#define KAFKA_META_PROTO_C_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

/* The package supports Python 3.10 on: the few names that newer versions made public (or
 * renamed) are spelled the new way here and mapped to the old ones below. */
#if PY_VERSION_HEX < 0x030B0000
#define PyFloat_Unpack8(p, le) _PyFloat_Unpack8((const unsigned char *)(p), (le))
#endif
#if PY_VERSION_HEX < 0x030C0000 /* 3.12 moved these into Python.h and deprecated structmember.h */
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#define Py_READONLY READONLY
#endif

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

/* The slot offset of cls's attribute `name`, or -1 with an error set. */
static inline Py_ssize_t
slot_offset(PyTypeObject *cls, PyObject *name)
{
    PyObject *d = PyObject_GetAttr((PyObject *)cls, name);
    if (d == NULL)
        return -1;
    if (!Py_IS_TYPE(d, &PyMemberDescr_Type) ||
        ((PyMemberDescrObject *)d)->d_member->type != Py_T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "%s.%U is not a slot", cls->tp_name, name);
        Py_DECREF(d);
        return -1;
    }
    Py_ssize_t off = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return off;
}

/* -- Reading bytes ---------------------------------------------------------------------------- */

typedef struct {
    const unsigned char *buf;
    Py_ssize_t len;
    PyObject *bytes; /* the input */
    PyObject *view;  /* memoryview of it, made for the first zero-copy field */
} Input;

/* Every reader returns -1 (or NULL) to decline; the caller does not look at why. */

static inline int
read_uvarint(const Input *in, Py_ssize_t *pos, uint64_t *out)
{
    Py_ssize_t p = *pos;
    uint64_t value = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
        if (p >= in->len)
            return -1;
        unsigned char b = in->buf[p++];
        value |= (uint64_t)(b & 0x7F) << shift;
        if (b < 0x80) {
            if (value > 0xFFFFFFFFULL)
                return -1;
            *out = value;
            *pos = p;
            return 0;
        }
    }
    return -1;
}

/* The n-byte big-endian integer at p, n 2, 4 or 8 (spelled out: a loop of constant count is not
 * always unrolled at -O2). */
static inline uint64_t
load_unsigned(const unsigned char *p, int n)
{
    uint64_t v = ((uint64_t)p[0] << 8) | p[1];
    if (n == 2)
        return v;
    v = (v << 16) | ((uint64_t)p[2] << 8) | p[3];
    if (n == 4)
        return v;
    return (v << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) | ((uint64_t)p[6] << 8) | p[7];
}

static inline int64_t
load_signed(const unsigned char *p, int n)
{
    uint64_t v = load_unsigned(p, n);
    if (n < 8 && (v >> (8 * n - 1)) & 1) /* sign-extend */
        v |= ~(uint64_t)0 << (8 * n);
    return (int64_t)v;
}

#endif
