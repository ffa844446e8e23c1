/* The measuring pass of encoding: every check the Python writer makes, and the size. Encoding
 * makes two passes over the object: measure, then write (_codec_write.c) into a bytes object of
 * exactly that size. */
#include "_codec_fields.h"

/* a != b as Python evaluates it, the common cases without a call (-1: decline). */
static int
not_equal(PyObject *a, PyObject *b)
{
    long long x, y;
    if (a == b && (PyLong_CheckExact(a) || PyUnicode_CheckExact(a) || a == Py_None || a == empty_tuple))
        return 0;
    if (PyLong_CheckExact(a) && PyLong_CheckExact(b) && small_int(a, &x) && small_int(b, &y))
        return x != y;
    return python_ne(a, b);
}

/* v differs from the default (it is then written, or refused where the field is absent). A
 * struct default is compared as the generated writer compares it: the class, then each field in
 * order until one differs, instead of the dataclass __eq__ (two tuples and Python code). Kept out
 * of measure_struct: inlined there, it slowed the loop over the steps. */
__attribute__((noinline)) int
value_differs(PyObject *v, PyObject *dflt, PyObject *cmp, const Py_ssize_t *cmp_slots, Py_ssize_t ncmp)
{
    if (v == dflt)
        return 0;
    if (dflt == Py_None)
        return 1;
    if (dflt == (PyObject *)&PyList_Type)
        return !(PyList_CheckExact(v) && PyList_GET_SIZE(v) == 0);
    if (cmp_slots == NULL)
        return PyObject_RichCompareBool(v, cmp != NULL ? cmp : dflt, Py_NE); /* -1: decline */
    if (Py_TYPE(v) != Py_TYPE(cmp))
        return 1;
    for (Py_ssize_t i = 0; i < ncmp; i++) {
        PyObject *a = SLOT(v, cmp_slots[i]);
        int d = a == NULL ? -1 : not_equal(a, SLOT(cmp, cmp_slots[i]));
        if (d != 0)
            return d;
    }
    return 0;
}

/* What most strings of a flexible version take, told without a call: an ASCII string under 127
 * bytes, or null, after its one-byte length; 0 for any other value (measure_value sizes it). */
static inline Py_ssize_t
short_text_size(const Field *f, PyObject *v)
{
    if (f->kind != 's' || !f->compact)
        return 0;
    if (PyUnicode_CheckExact(v) && PyUnicode_IS_COMPACT_ASCII(v) && PyUnicode_GET_LENGTH(v) < 127)
        return 1 + PyUnicode_GET_LENGTH(v);
    return v == Py_None && f->nullable;
}

/* The fields a version lacks hold their defaults (those it checks: the writer refuses others). */
static inline int
absent_unchanged(LayoutObject *L, PyObject *o)
{
    for (Py_ssize_t i = 0; i < L->nabsent; i++) {
        const Absent *a = &L->absent[i];
        PyObject *v = SLOT(o, a->offset);
        if (v == NULL || (a->checked && value_differs(v, a->value, a->cmp, a->cmp_slots, a->ncmp) != 0))
            return -1;
    }
    return 0;
}

/* The tagged section: its count, then tag, size and value of each field that differs from its
 * default and of each unknown one. */
static int
measure_tagged(LayoutObject *L, PyObject *o, PyObject **unknown, Py_ssize_t nunknown, Py_ssize_t *size)
{
    Py_ssize_t count = nunknown;
    for (Py_ssize_t i = 0; i < L->ntagged; i++) {
        const Field *f = &L->tagged[i];
        PyObject *v = SLOT(o, f->offset);
        if (v == NULL)
            return -1;
        int d = value_differs(v, f->dflt, f->cmp, f->cmp_slots, f->ncmp);
        if (d < 0)
            return -1;
        if (d) {
            Py_ssize_t t = 0;
            if (measure_value(f, v, &t) < 0)
                return -1;
            *size += uvarint_size(f->tag) + uvarint_size((uint64_t)t) + t;
            count++;
        }
    }
    for (Py_ssize_t i = 0; i < nunknown; i++) {
        uint32_t tag;
        const char *data;
        Py_ssize_t n;
        if (unknown_item(unknown[i], &tag, &data, &n) < 0 || (uint64_t)n > 0xFFFFFFFFULL)
            return -1;
        *size += uvarint_size(tag) + uvarint_size((uint64_t)n) + n;
    }
    *size += uvarint_size((uint64_t)count);
    return 0;
}

int
measure_struct(LayoutObject *L, PyObject *o, Py_ssize_t *size)
{
    if (absent_unchanged(L, o) < 0)
        return -1;
    PyObject **unknown;
    Py_ssize_t nunknown;
    if (unknown_fields(SLOT(o, L->unknown_offset), &unknown, &nunknown) < 0)
        return -1;
    if (!L->flexible && nunknown)
        return -1;
    *size += L->fixed_size;
    for (Py_ssize_t i = 0; i < L->nsteps; i++) {
        const Field *f = &L->steps[i];
        PyObject *v = SLOT(o, f->offset);
        if (v == NULL)
            return -1;
        if (f->width) {
            if (check_fixed(f->kind, v) < 0)
                return -1;
        } else {
            Py_ssize_t n = short_text_size(f, v);
            if (n > 0)
                *size += n;
            else if (measure_value(f, v, size) < 0)
                return -1;
        }
    }
    if (!L->flexible)
        return 0;
    if (L->ntagged == 0 && nunknown == 0) {
        *size += 1; /* the empty tagged section */
        return 0;
    }
    return measure_tagged(L, o, unknown, nunknown, size);
}
