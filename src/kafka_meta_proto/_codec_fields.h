/* The per-field helpers of encoding, which the measuring pass (_codec_measure.c) and the writing
 * pass (_codec_write.c) both call for every field: static inline, so each pass keeps them
 * inlined (a call per field was a tenth of measuring many small structs). */
#ifndef KAFKA_META_PROTO_CODEC_FIELDS_H
#define KAFKA_META_PROTO_CODEC_FIELDS_H

#include "_codec.h"

/* The byte count of a fixed-width kind, else 0. */
static inline int
fixed_width(char kind)
{
    switch (kind) {
    case '?': case 'b': return 1;
    case 'h': case 'H': return 2;
    case 'i': case 'I': return 4;
    case 'q': case 'd': return 8;
    case 'u': return 16;
    }
    return 0;
}

/* -- Checking values ------------------------------------------------------------------------- */
/* Measuring declines (-1) anything it is not sure the Python writer encodes the same way: a value
 * of an unusual type, out of range, a struct of another class; the Python writer then encodes it
 * or raises its EncodeError. */

static inline int
uvarint_size(uint64_t v)
{
    return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/* A value the Python writer packs with struct code `kind`, as an unsigned 64-bit pattern. */
static __attribute__((unused)) int
fixed_bits(char kind, PyObject *v, uint64_t *bits)
{
    if (kind == '?') { /* struct packs the truth of any object, None included */
        int truth = PyObject_IsTrue(v);
        if (truth < 0)
            return -1;
        *bits = (uint64_t)truth;
        return 0;
    }
    if (kind == 'd') {
        double d;
        if (PyFloat_CheckExact(v))
            d = PyFloat_AS_DOUBLE(v);
        else if (PyLong_CheckExact(v)) {
            d = PyLong_AsDouble(v);
            if (d == -1.0 && PyErr_Occurred())
                return -1;
        } else
            return -1;
        memcpy(bits, &d, 8);
        return 0;
    }
    if (kind == 'u') {
        if (Py_TYPE(v) != UuidType)
            return -1;
        PyObject *raw = SLOT(v, uuid_bytes_offset);
        return raw != NULL && PyBytes_CheckExact(raw) && PyBytes_GET_SIZE(raw) == 16 ? 0 : -1;
    }
    if (!PyLong_Check(v))
        return -1;
    long long x;
    if (!PyLong_CheckExact(v) || !small_int(v, &x)) {
        int overflow;
        x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && PyErr_Occurred())
            return -1;
        if (overflow)
            return -1;
    }
    switch (kind) {
    case 'b': if (x < -128 || x > 127) return -1; break;
    case 'h': if (x < -32768 || x > 32767) return -1; break;
    case 'H': if (x < 0 || x > 0xFFFF) return -1; break;
    case 'i': if (x < INT32_MIN || x > INT32_MAX) return -1; break;
    case 'I': if (x < 0 || x > 0xFFFFFFFFLL) return -1; break;
    case 'q': break;
    default: return -1;
    }
    *bits = (uint64_t)x;
    return 0;
}

/* 1 when v is an exact int in the range of integer kind `kind`, told without a call (most values a
 * sizer checks); 0 when fixed_bits must decide. */
static inline int
plain_int(char kind, PyObject *v)
{
    long long x;
    if (!Py_IS_TYPE(v, &PyLong_Type) || !small_int(v, &x))
        return 0;
    switch (kind) {
    case 'i': case 'q': return 1; /* one digit holds under 31 bits */
    case 'I': return x >= 0;
    case 'h': return x >= -32768 && x <= 32767;
    case 'H': return x >= 0 && x <= 0xFFFF;
    case 'b': return x >= -128 && x <= 127;
    }
    return 0;
}

/* v fits fixed-width kind `kind` (the check fixed_bits makes, the common case first). */
static inline int
check_fixed(char kind, PyObject *v)
{
    uint64_t bits;
    return plain_int(kind, v) ? 0 : fixed_bits(kind, v, &bits);
}

/* The bytes of a bytes-like value whose len() is its byte count (what the writer prefixes). */
static __attribute__((unused)) int
byte_view(PyObject *v, const char **data, Py_ssize_t *n)
{
    if (PyBytes_Check(v)) {
        *data = PyBytes_AS_STRING(v);
        *n = PyBytes_GET_SIZE(v);
        return 0;
    }
    if (PyByteArray_Check(v)) {
        *data = PyByteArray_AS_STRING(v);
        *n = PyByteArray_GET_SIZE(v);
        return 0;
    }
    if (PyMemoryView_Check(v)) {
        Py_buffer *b = PyMemoryView_GET_BUFFER(v);
        if (b->ndim != 1 || b->itemsize != 1 || !PyBuffer_IsContiguous(b, 'C') ||
            ((PyMemoryViewObject *)v)->flags & _Py_MEMORYVIEW_RELEASED)
            return -1;
        *data = b->buf;
        *n = b->len;
        return 0;
    }
    return -1;
}

/* UTF-8 of a string the writer encodes (strict: a lone surrogate declines, as str.encode()
 * raises); strings hold at most 32767 bytes. */
static __attribute__((unused)) int
text_view(PyObject *v, const char **data, Py_ssize_t *n)
{
    if (PyUnicode_CheckExact(v) && PyUnicode_IS_COMPACT_ASCII(v)) { /* most strings: no call */
        *data = (const char *)(((PyASCIIObject *)v) + 1);
        *n = PyUnicode_GET_LENGTH(v);
        return *n <= 0x7FFF ? 0 : -1;
    }
    if (!PyUnicode_CheckExact(v)) /* a subclass may have its own encode(), which the writer calls */
        return -1;
    *data = PyUnicode_AsUTF8AndSize(v, n);
    return *data != NULL && *n <= 0x7FFF ? 0 : -1;
}

/* -- Unknown tagged fields -------------------------------------------------------------------- */

/* An unknown tagged field the writer takes: (tag, bytes). */
static inline int
unknown_item(PyObject *item, uint32_t *tag, const char **data, Py_ssize_t *n)
{
    if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 2 ||
        !PyLong_CheckExact(PyTuple_GET_ITEM(item, 0)) || !PyBytes_CheckExact(PyTuple_GET_ITEM(item, 1)))
        return -1;
    unsigned long long t = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(item, 0));
    if (PyErr_Occurred() || t > 0xFFFFFFFFULL)
        return -1;
    *tag = (uint32_t)t;
    *data = PyBytes_AS_STRING(PyTuple_GET_ITEM(item, 1));
    *n = PyBytes_GET_SIZE(PyTuple_GET_ITEM(item, 1));
    return 0;
}

/* The unknown tagged fields as the writer takes them: a tuple or list of (tag, bytes). */
static __attribute__((unused)) int
unknown_fields(PyObject *unknown, PyObject ***items, Py_ssize_t *count)
{
    if (unknown == empty_tuple) { /* what the reader and the constructors leave */
        *items = NULL;
        *count = 0;
        return 0;
    }
    if (unknown == NULL)
        return -1;
    if (!PyTuple_CheckExact(unknown) && !PyList_CheckExact(unknown)) {
        int truth = PyObject_IsTrue(unknown); /* the writer tests it: a false value means none */
        if (truth != 0)
            return -1;
        *items = NULL;
        *count = 0;
        return 0;
    }
    *items = PySequence_Fast_ITEMS(unknown);
    *count = PySequence_Fast_GET_SIZE(unknown);
    return 0;
}

/* -- Writing bytes ---------------------------------------------------------------------------- */

/* The write pass: values were all checked by measuring; each write still checks the room left
 * (a value changed in between cannot overrun the buffer), and -1 declines. */
typedef struct {
    char *p;
    char *end;
} Out;

static inline int
put(Out *out, const void *data, Py_ssize_t n)
{
    if (n > out->end - out->p)
        return -1;
    memcpy(out->p, data, (size_t)n);
    out->p += n;
    return 0;
}

static inline int
put_uvarint(Out *out, uint64_t v)
{
    unsigned char b[5];
    int n = 0;
    while (v >= 0x80 && n < 4) {
        b[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (unsigned char)v;
    return put(out, b, n);
}

static inline int
put_be(Out *out, uint64_t v, int width)
{
    unsigned char b[8];
    for (int i = width - 1; i >= 0; i--) {
        b[i] = (unsigned char)v;
        v >>= 8;
    }
    return put(out, b, width);
}

static inline int
put_length(Out *out, int compact, int width, Py_ssize_t n)
{
    return compact ? put_uvarint(out, (uint64_t)n + 1) : put_be(out, (uint64_t)n, width);
}

static inline int
put_fixed(Out *out, char kind, PyObject *v)
{
    uint64_t bits;
    if (fixed_bits(kind, v, &bits) < 0)
        return -1;
    if (kind == 'u')
        return put(out, PyBytes_AS_STRING(SLOT(v, uuid_bytes_offset)), 16);
    return put_be(out, bits, fixed_width(kind));
}

#endif
