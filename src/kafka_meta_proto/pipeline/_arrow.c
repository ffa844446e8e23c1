/* Python lists into Arrow's buffers: the pipeline's columns (offsets, timestamps, record types,
 * JSON texts...) become Arrow arrays through pyarrow.Array.from_buffers, without pyarrow
 * looking at each Python object (pipeline/arrays.py). A list it is not sure of (a value of
 * another type, out of range, a column too large) is declined, and pyarrow converts it. */
#include "_arrow.h"

/* The validity bitmap (bit i set: row i is not null), made at the first null: NULL until then. */
typedef struct {
    PyObject *bytes;
    Py_ssize_t rows;
} Validity;

static int
mark_null(Validity *v, Py_ssize_t i)
{
    if (v->bytes == NULL) {
        v->bytes = PyBytes_FromStringAndSize(NULL, (v->rows + 7) / 8);
        if (v->bytes == NULL)
            return -1;
        memset(PyBytes_AS_STRING(v->bytes), 0xFF, (size_t)PyBytes_GET_SIZE(v->bytes));
    }
    unsigned char *bits = (unsigned char *)PyBytes_AS_STRING(v->bytes);
    bits[i >> 3] &= (unsigned char)~(1u << (i & 7));
    return 0;
}

/* An exact int within [low, high], or -1 (no error set). */
static inline int
int_value(PyObject *v, long long low, long long high, long long *out)
{
    if (!PyLong_CheckExact(v))
        return -1;
    long long x;
    if (!small_int(v, &x)) {
        int overflow;
        x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return -1;
        }
    }
    if (x < low || x > high)
        return -1;
    *out = x;
    return 0;
}

/* (validity or None, values) of a list of ints and Nones, `width` bytes each, little-endian. */
static PyObject *
int_buffers(PyObject *list, int width)
{
    static const long long LOW[] = {0, INT8_MIN, INT16_MIN, 0, INT32_MIN, 0, 0, 0, INT64_MIN};
    static const long long HIGH[] = {0, INT8_MAX, INT16_MAX, 0, INT32_MAX, 0, 0, 0, INT64_MAX};
    Py_ssize_t n = PyList_GET_SIZE(list);
    if (n > PY_SSIZE_T_MAX / 8)
        return NULL;
    PyObject *data = PyBytes_FromStringAndSize(NULL, n * width);
    if (data == NULL)
        return NULL;
    char *out = PyBytes_AS_STRING(data);
    Validity validity = {NULL, n};
    for (Py_ssize_t i = 0; i < n; i++, out += width) {
        PyObject *v = PyList_GET_ITEM(list, i);
        long long x = 0;
        if (v == Py_None) {
            if (mark_null(&validity, i) < 0)
                goto fail;
        } else if (int_value(v, LOW[width], HIGH[width], &x) < 0) {
            goto fail;
        }
        switch (width) { /* the machine's order, which pipeline/arrays.py checks is little-endian */
        case 1: { int8_t y = (int8_t)x; memcpy(out, &y, 1); break; }
        case 2: { int16_t y = (int16_t)x; memcpy(out, &y, 2); break; }
        case 4: { int32_t y = (int32_t)x; memcpy(out, &y, 4); break; }
        default: { int64_t y = (int64_t)x; memcpy(out, &y, 8); break; }
        }
    }
    PyObject *result = PyTuple_Pack(2, validity.bytes != NULL ? validity.bytes : Py_None, data);
    Py_XDECREF(validity.bytes);
    Py_DECREF(data);
    return result;
fail:
    Py_XDECREF(validity.bytes);
    Py_DECREF(data);
    return NULL;
}

/* The size of a list's item i (not None) where an Arrow column of variable width holds it, or
 * -1 to decline (no error set). */
typedef Py_ssize_t (*Measure)(PyObject *item, Py_ssize_t i, void *state);

/* Arrow's int32 offsets of a list of items and Nones (n + 1 of them, from 0; a null adds
 * nothing), the nulls marked in `validity`; NULL where `measure` declines or past 2 GiB. */
static PyObject *
offsets_of(PyObject *list, Measure measure, void *state, Validity *validity)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    if (n >= INT32_MAX)
        return NULL;
    PyObject *offsets = PyBytes_FromStringAndSize(NULL, (n + 1) * 4);
    if (offsets == NULL)
        return NULL;
    int32_t *ends = (int32_t *)PyBytes_AS_STRING(offsets);
    int64_t total = 0;
    ends[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyList_GET_ITEM(list, i);
        Py_ssize_t size = 0;
        if (v == Py_None ? mark_null(validity, i) < 0 : (size = measure(v, i, state)) < 0)
            goto fail;
        total += size;
        if (total >= INT32_MAX) /* Arrow's column holds 2 GiB: a larger one is pyarrow's to split */
            goto fail;
        ends[i + 1] = (int32_t)total;
    }
    return offsets;
fail:
    Py_DECREF(offsets);
    return NULL;
}

/* A str's UTF-8 size, its start noted in the state (an array of n pointers). */
static Py_ssize_t
measure_text(PyObject *v, Py_ssize_t i, void *state)
{
    const char **starts = state;
    Py_ssize_t size;
    if (PyUnicode_CheckExact(v) && PyUnicode_IS_COMPACT_ASCII(v)) {
        starts[i] = (const char *)(((PyASCIIObject *)v) + 1);
        return PyUnicode_GET_LENGTH(v);
    }
    if (!PyUnicode_CheckExact(v) || (starts[i] = PyUnicode_AsUTF8AndSize(v, &size)) == NULL) {
        PyErr_Clear(); /* (a lone surrogate is not UTF-8) */
        return -1;
    }
    return size;
}

/* (validity or None, int32 offsets, UTF-8 data) of a list of strs and Nones: Arrow's string. */
static PyObject *
string_buffers(PyObject *list)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    const char **starts = PyMem_Calloc((size_t)(n ? n : 1), sizeof(char *));
    Validity validity = {NULL, n};
    PyObject *offsets = NULL, *data = NULL, *result = NULL;
    /* first the offsets, and where each string's UTF-8 is; then one copy of each */
    if (starts == NULL || (offsets = offsets_of(list, measure_text, starts, &validity)) == NULL)
        goto done;
    const int32_t *ends = (const int32_t *)PyBytes_AS_STRING(offsets);
    if ((data = PyBytes_FromStringAndSize(NULL, ends[n])) == NULL)
        goto done;
    char *out = PyBytes_AS_STRING(data);
    for (Py_ssize_t i = 0; i < n; i++) {
        size_t size = (size_t)(ends[i + 1] - ends[i]);
        if (size)
            memcpy(out + ends[i], starts[i], size);
    }
    result = PyTuple_Pack(3, validity.bytes != NULL ? validity.bytes : Py_None, offsets, data);
done:
    PyMem_Free(starts);
    Py_XDECREF(validity.bytes);
    Py_XDECREF(offsets);
    Py_XDECREF(data);
    return result;
}

static PyObject *buffers_of(PyObject *list, const char *kind);

/* A list's or tuple's length. */
static Py_ssize_t
measure_sequence(PyObject *v, Py_ssize_t i, void *state)
{
    return PyList_CheckExact(v) || PyTuple_CheckExact(v) ? PySequence_Fast_GET_SIZE(v) : -1;
}

/* (validity or None, int32 offsets, the elements' buffers) of a list of lists and Nones:
 * Arrow's list, its elements (of `element` kind, no nulls among them) as one flat column. */
static PyObject *
list_buffers(PyObject *list, const char *element)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    Validity validity = {NULL, n};
    PyObject *offsets = NULL, *flat = NULL, *elements = NULL, *result = NULL;
    if ((offsets = offsets_of(list, measure_sequence, NULL, &validity)) == NULL)
        goto done;
    Py_ssize_t total = ((const int32_t *)PyBytes_AS_STRING(offsets))[n];
    if ((flat = PyList_New(total)) == NULL)
        goto done;
    for (Py_ssize_t i = 0, k = 0; i < n; i++) {
        PyObject *v = PyList_GET_ITEM(list, i);
        if (v == Py_None)
            continue;
        PyObject **items = PySequence_Fast_ITEMS(v);
        for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(v); j++, k++) {
            if (items[j] == Py_None) /* a null element: pyarrow's to convert */
                goto done;
            PyList_SET_ITEM(flat, k, Py_NewRef(items[j]));
        }
    }
    if ((elements = buffers_of(flat, element)) == NULL)
        goto done;
    result = PyTuple_Pack(3, validity.bytes != NULL ? validity.bytes : Py_None, offsets, elements);
done:
    Py_XDECREF(validity.bytes);
    Py_XDECREF(offsets);
    Py_XDECREF(flat);
    Py_XDECREF(elements);
    return result;
}

/* The buffers of `list` as an Arrow array of `kind`, or NULL (declined, an error set or not). */
static PyObject *
buffers_of(PyObject *list, const char *kind)
{
    if (strcmp(kind, "b") == 0)
        return int_buffers(list, 1);
    if (strcmp(kind, "h") == 0)
        return int_buffers(list, 2);
    if (strcmp(kind, "i") == 0)
        return int_buffers(list, 4);
    if (strcmp(kind, "q") == 0)
        return int_buffers(list, 8);
    if (strcmp(kind, "s") == 0)
        return string_buffers(list);
    if (kind[0] == '[') /* (the kind was checked: one '[' and an element kind) */
        return list_buffers(list, kind + 1);
    return NULL;
}

/* arrow_buffers(values, kind) -> the buffers of an Arrow array of `values` (a list), or None.
 * kind "b", "h", "i", "q": ints of 1, 2, 4, 8 bytes -> (validity or None, values);
 * kind "s": strs -> (validity or None, int32 offsets, UTF-8 data);
 * kind "[" and one of those: lists of them -> (validity or None, int32 offsets, the elements'). */
PyObject *
arrow_buffers(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    const char *kind;
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyUnicode_Check(args[1]) ||
        (kind = PyUnicode_AsUTF8(args[1])) == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "arrow_buffers(list, kind)");
        return NULL;
    }
    if (strspn(kind, "[") > 1 || strlen(kind) != strspn(kind, "[") + 1 || strchr("bhiqs", kind[strlen(kind) - 1]) == NULL) {
        PyErr_Format(PyExc_ValueError, "arrow_buffers: unknown kind %R", args[1]);
        return NULL;
    }
    PyObject *result = buffers_of(args[0], kind);
    if (result == NULL && PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_MemoryError))
        return NULL;
    PyErr_Clear();
    if (result == NULL)
        Py_RETURN_NONE;
    return result;
}
