/* The measuring pass of encoding: every check the Python writer makes, and the size. Encoding
 * makes two passes over the object: measure, then write (_codec_write.c) into a bytes object of
 * exactly that size. */
#include "_codec_fields.h"

static int measure_struct(LayoutObject *L, PyObject *o, Py_ssize_t *size);

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

static int
measure_length(int compact, int width, Py_ssize_t n, Py_ssize_t *size)
{
    if (compact) {
        if ((uint64_t)n + 1 > 0xFFFFFFFFULL)
            return -1;
        *size += uvarint_size((uint64_t)n + 1);
    } else {
        if (n > (width == 2 ? 0x7FFF : INT32_MAX))
            return -1;
        *size += width;
    }
    return 0;
}

/* A null value: its length (or marker) alone. */
static inline __attribute__((always_inline)) int
measure_null(const Field *f, Py_ssize_t *size)
{
    if (!f->nullable || f->width)
        return -1;
    *size += (f->compact || f->kind == 'S') ? 1 : f->kind == 's' ? 2 : 4;
    return 0;
}

/* Inlined into its callers: a call per field was a tenth of measuring many small structs. The
 * caller has checked that v is set. */
static inline __attribute__((always_inline)) int
measure_value(const Field *f, PyObject *v, Py_ssize_t *size)
{
    const char *data;
    Py_ssize_t n;
    if (v == Py_None && f->kind != '?')
        return measure_null(f, size);
    switch (f->kind) {
    case 's':
        if (text_view(v, &data, &n) < 0)
            return -1;
        *size += n;
        return measure_length(f->compact, 2, n, size);
    case 'y': case 'z':
        if (byte_view(v, &data, &n) < 0)
            return -1;
        *size += n;
        return measure_length(f->compact, 4, n, size);
    case 'S':
        if (Py_TYPE(v) != f->child->cls)
            return -1;
        *size += f->nullable;
        return measure_struct(f->child, v, size);
    case '[': {
        if (!PyList_CheckExact(v) && !PyTuple_CheckExact(v))
            return -1;
        Py_ssize_t count = PySequence_Fast_GET_SIZE(v);
        PyObject **items = PySequence_Fast_ITEMS(v);
        if (measure_length(f->compact, 4, count, size) < 0)
            return -1;
        char e = f->elem;
        int width = fixed_width(e);
        if (width) {
            for (Py_ssize_t i = 0; i < count; i++)
                if (check_fixed(e, items[i]) < 0)
                    return -1;
            *size += (Py_ssize_t)width * count;
            return 0;
        }
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *item = items[i];
            if (e == 'S') {
                if (Py_TYPE(item) != f->child->cls || measure_struct(f->child, item, size) < 0)
                    return -1;
            } else {
                if (e == 's' ? text_view(item, &data, &n) < 0 : byte_view(item, &data, &n) < 0)
                    return -1;
                *size += n;
                if (measure_length(f->compact, e == 's' ? 2 : 4, n, size) < 0)
                    return -1;
            }
        }
        return 0;
    }
    default: /* a tagged field of fixed width (steps of fixed width are checked by measure_struct) */
        if (check_fixed(f->kind, v) < 0)
            return -1;
        *size += f->width;
        return 0;
    }
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

/* The unknown tagged fields: tag, size and bytes of each. */
static int
measure_unknown(PyObject **unknown, Py_ssize_t nunknown, Py_ssize_t *size)
{
    for (Py_ssize_t i = 0; i < nunknown; i++) {
        uint32_t tag;
        const char *data;
        Py_ssize_t n;
        if (unknown_item(unknown[i], &tag, &data, &n) < 0 || (uint64_t)n > 0xFFFFFFFFULL)
            return -1;
        *size += uvarint_size(tag) + uvarint_size((uint64_t)n) + n;
    }
    return 0;
}

/* Adds the size of o, a struct of L's class, to *size: its steps, then its tagged section. */
static int
measure_struct(LayoutObject *L, PyObject *o, Py_ssize_t *size)
{
    for (Py_ssize_t i = 0; i < L->nabsent; i++) {
        const Absent *a = &L->absent[i];
        PyObject *v = SLOT(o, a->offset);
        if (v == NULL || (a->checked && value_differs(v, a->value, a->cmp, a->cmp_slots, a->ncmp) != 0))
            return -1;
    }
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
    if (measure_unknown(unknown, nunknown, size) < 0)
        return -1;
    *size += uvarint_size((uint64_t)count);
    return 0;
}

/* The entry point of the other files: measure_struct stays static, all its calls in this file. */
int
measure_object(LayoutObject *L, PyObject *o, Py_ssize_t *size)
{
    return measure_struct(L, o, size);
}

/* The size of one tagged field's value, for the writer's tagged section. */
int
measure_field(const Field *f, PyObject *v, Py_ssize_t *size)
{
    return v == NULL ? -1 : measure_value(f, v, size);
}
