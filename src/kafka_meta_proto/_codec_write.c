/* The writing pass of encoding: the object measured (_codec_measure.c), its bytes written into a
 * bytes object of exactly that size. */
#include "_codec_fields.h"

static int write_struct(LayoutObject *L, PyObject *o, Out *out);

static int
write_value(const Field *f, PyObject *v, Out *out)
{
    const char *data;
    Py_ssize_t n;
    if (v == Py_None && f->kind != '?') {
        if (f->kind == 'S')
            return put(out, f->tagged ? "\x00" : "\xff", 1);
        if (f->compact)
            return put(out, "\x00", 1);
        return put(out, "\xff\xff\xff\xff", f->kind == 's' ? 2 : 4);
    }
    switch (f->kind) {
    case 's':
        if (text_view(v, &data, &n) < 0 || put_length(out, f->compact, 2, n) < 0)
            return -1;
        return put(out, data, n);
    case 'y': case 'z':
        if (byte_view(v, &data, &n) < 0 || put_length(out, f->compact, 4, n) < 0)
            return -1;
        return put(out, data, n);
    case 'S':
        if (f->nullable && put(out, "\x01", 1) < 0)
            return -1;
        return write_struct(f->child, v, out);
    case '[': {
        Py_ssize_t count = PySequence_Fast_GET_SIZE(v);
        PyObject **items = PySequence_Fast_ITEMS(v);
        if (put_length(out, f->compact, 4, count) < 0)
            return -1;
        char e = f->elem;
        for (Py_ssize_t i = 0; i < count; i++) {
            int r;
            if (fixed_width(e))
                r = put_fixed(out, e, items[i]);
            else if (e == 'S')
                r = Py_TYPE(items[i]) == f->child->cls ? write_struct(f->child, items[i], out) : -1;
            else if (e == 's')
                r = text_view(items[i], &data, &n) < 0 || put_length(out, f->compact, 2, n) < 0 ? -1 : put(out, data, n);
            else
                r = byte_view(items[i], &data, &n) < 0 || put_length(out, f->compact, 4, n) < 0 ? -1 : put(out, data, n);
            if (r < 0)
                return -1;
        }
        return 0;
    }
    default:
        return put_fixed(out, f->kind, v);
    }
}

/* Unknown tagged fields in the order the writer puts them: a stable sort by tag. */
static int
unknown_order(Py_ssize_t n, PyObject **items, Py_ssize_t *order, uint32_t *tags)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *data;
        Py_ssize_t len;
        if (unknown_item(items[i], &tags[i], &data, &len) < 0)
            return -1;
        Py_ssize_t j = i;
        while (j > 0 && tags[order[j - 1]] > tags[i]) { /* insertion sort: few, usually none */
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    return 0;
}

static int
write_tagged(LayoutObject *L, PyObject *o, PyObject **unknown, Py_ssize_t nunknown, Out *out)
{
    Py_ssize_t count = nunknown;
    char written[64];
    char *known = L->ntagged <= 64 ? written : PyMem_Malloc((size_t)L->ntagged);
    Py_ssize_t *order = nunknown ? PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)nunknown) : NULL;
    uint32_t *tags = nunknown ? PyMem_Malloc(sizeof(uint32_t) * (size_t)nunknown) : NULL;
    int r = -1;
    if (known == NULL || (nunknown && (order == NULL || tags == NULL)))
        goto done;
    for (Py_ssize_t i = 0; i < L->ntagged; i++) {
        int d = value_differs(SLOT(o, L->tagged[i].offset), L->tagged[i].dflt, L->tagged[i].cmp, L->tagged[i].cmp_slots,
                        L->tagged[i].ncmp);
        if (d < 0)
            goto done;
        known[i] = (char)d;
        count += d;
    }
    if (unknown_order(nunknown, unknown, order, tags) < 0 || put_uvarint(out, (uint64_t)count) < 0)
        goto done;
    /* merge: a known field goes before an unknown one with the same tag (the writer lists the
       known ones first, then sorts stably) */
    Py_ssize_t k = 0, u = 0;
    while (k < L->ntagged || u < nunknown) {
        if (k < L->ntagged && !known[k]) {
            k++;
            continue;
        }
        if (k < L->ntagged && (u >= nunknown || L->tagged[k].tag <= tags[order[u]])) {
            const Field *f = &L->tagged[k++];
            PyObject *v = SLOT(o, f->offset);
            Py_ssize_t t = 0;
            if (measure_field(f, v, &t) < 0 || put_uvarint(out, f->tag) < 0 || put_uvarint(out, (uint64_t)t) < 0 ||
                write_value(f, v, out) < 0)
                goto done;
        } else {
            uint32_t tag;
            const char *data;
            Py_ssize_t n;
            if (unknown_item(unknown[order[u++]], &tag, &data, &n) < 0 || put_uvarint(out, tag) < 0 ||
                put_uvarint(out, (uint64_t)n) < 0 || put(out, data, n) < 0)
                goto done;
        }
    }
    r = 0;
done:
    if (known != written)
        PyMem_Free(known);
    PyMem_Free(order);
    PyMem_Free(tags);
    if (r < 0 && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "tagged fields changed while encoding");
    return r;
}

static int
write_struct(LayoutObject *L, PyObject *o, Out *out)
{
    for (Py_ssize_t i = 0; i < L->nsteps; i++) {
        PyObject *v = SLOT(o, L->steps[i].offset);
        if (v == NULL || write_value(&L->steps[i], v, out) < 0)
            return -1;
    }
    if (!L->flexible)
        return 0;
    PyObject **unknown;
    Py_ssize_t nunknown;
    if (unknown_fields(SLOT(o, L->unknown_offset), &unknown, &nunknown) < 0)
        return -1;
    if (nunknown == 0 && L->ntagged == 0)
        return put(out, "\x00", 1);
    return write_tagged(L, o, unknown, nunknown, out);
}

/* The whole encoding of o (of L's class), or NULL to decline. */
PyObject *
encode_object(LayoutObject *L, PyObject *o)
{
    Py_ssize_t size = 0;
    if (Py_TYPE(o) != L->cls || measure_object(L, o, &size) < 0)
        return NULL;
    PyObject *result = PyBytes_FromStringAndSize(NULL, size);
    if (result == NULL)
        return NULL;
    Out out = {PyBytes_AS_STRING(result), PyBytes_AS_STRING(result) + size};
    if (write_struct(L, o, &out) < 0 || out.p != out.end) {
        Py_DECREF(result);
        return NULL;
    }
    return result;
}

/* -- The compiled codec alone, for the differential tests: None where it declines ----------- */

PyObject *
layout_encode(LayoutObject *L, PyObject *o)
{
    PyObject *result = encode_object(L, o);
    if (result == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return result;
}

PyObject *
layout_size(LayoutObject *L, PyObject *o)
{
    Py_ssize_t size = 0;
    if (Py_TYPE(o) != L->cls || measure_object(L, o, &size) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return PyLong_FromSsize_t(size);
}
