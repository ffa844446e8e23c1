/* Reading: a struct from bytes by its compiled Layout (_codec_layout.c), the interpreter of the
 * layout programs the generator prints into every message module (codegen/build_program.py
 * describes their form). Called as reader(buf, pos) a Layout returns (object, next position), as
 * the generated Python readers do.
 *
 * The C code only decides "this input decodes to this object" or "not here". Whenever it
 * declines (bad input, an unusual argument, an allocation failure), the same call goes to the
 * Python reader the Layout replaced, which raises the error with its field path and byte offset,
 * so both codecs fail alike. Lengths are checked against the bytes left before anything is
 * allocated for them.
 */
#include "_codec_fields.h"

/* A length prefix: compact (unsigned varint, minus one) or legacy (int16 or int32). */
static inline int
read_length(const Input *in, Py_ssize_t *pos, int compact, int width, int64_t *n)
{
    Py_ssize_t p = *pos;
    if (compact) {
        if (p < in->len && in->buf[p] < 0x80) {
            *n = (int64_t)in->buf[p] - 1;
            *pos = p + 1;
            return 0;
        }
        uint64_t v;
        if (read_uvarint(in, pos, &v) < 0)
            return -1;
        *n = (int64_t)v - 1;
        return 0;
    }
    if (p + width > in->len)
        return -1;
    *n = width == 2 ? load_signed(in->buf + p, 2) : load_signed(in->buf + p, 4);
    *pos = p + width;
    return 0;
}

static PyObject *
make_uuid(const unsigned char *p)
{
    PyObject *raw = PyBytes_FromStringAndSize((const char *)p, 16);
    if (raw == NULL)
        return NULL;
    PyObject *u = UuidType->tp_alloc(UuidType, 0);
    if (u == NULL) {
        Py_DECREF(raw);
        return NULL;
    }
    SLOT(u, uuid_bytes_offset) = raw;
    return u;
}

/* One fixed-width value at p (the caller checked its bytes are there). */
static PyObject *
fixed_value(char kind, const unsigned char *p)
{
    switch (kind) {
    case '?':
        return Py_NewRef(p[0] ? Py_True : Py_False);
    case 'b':
        return PyLong_FromLong((int8_t)p[0]);
    case 'h':
        return PyLong_FromLong((long)load_signed(p, 2));
    case 'H':
        return PyLong_FromLong((long)load_unsigned(p, 2));
    case 'i':
        return PyLong_FromLong((long)load_signed(p, 4));
    case 'I':
        return PyLong_FromUnsignedLong((unsigned long)load_unsigned(p, 4));
    case 'q':
        return PyLong_FromLongLong(load_signed(p, 8));
    case 'd':
        {
            double d = PyFloat_Unpack8((const char *)p, 0);
            if (d == -1.0 && PyErr_Occurred())
                return NULL;
            return PyFloat_FromDouble(d);
        }
    case 'u':
        return make_uuid(p);
    }
    return NULL;
}

/* A string or bytes value after its length n; kind s, y or z. */
/* memoryview(buf)[p:p+n], as the Python reader makes it: a view sharing the input's buffer
 * export. Made as memoryview slicing makes one (CPython's mbuf_add_view: a copy of the whole
 * view's fields, sharing its managed buffer, then narrowed), without a slice object or the
 * general shape and flag computations for each field; a one-dimensional byte view stays one. */
static PyObject *
slice_view(Input *in, Py_ssize_t p, Py_ssize_t n)
{
    if (in->view == NULL && (in->view = PyMemoryView_FromObject(in->bytes)) == NULL)
        return NULL;
    PyMemoryViewObject *whole = (PyMemoryViewObject *)in->view;
    PyMemoryViewObject *v = PyObject_GC_NewVar(PyMemoryViewObject, &PyMemoryView_Type, 3);
    if (v == NULL)
        return NULL;
    v->mbuf = (_PyManagedBufferObject *)Py_NewRef(whole->mbuf);
    whole->mbuf->exports++;
    v->hash = -1;
    v->flags = whole->flags;
    v->exports = 0;
    v->view = whole->view; /* obj is not a new reference: the managed buffer holds the input */
    v->view.buf = (char *)whole->view.buf + p;
    v->view.len = n;
    v->view.shape = v->ob_array;
    v->view.strides = v->ob_array + 1;
    v->view.suboffsets = NULL;
    v->ob_array[0] = n;
    v->ob_array[1] = 1;
    v->weakreflist = NULL;
    PyObject_GC_Track(v);
    return (PyObject *)v;
}

static PyObject *
read_text(Input *in, Py_ssize_t *pos, int64_t n, char kind)
{
    Py_ssize_t p = *pos;
    if (n > in->len - p)
        return NULL;
    if (kind == 's') {
        if (n > 0x7FFF)
            return NULL;
        PyObject *s = PyUnicode_DecodeUTF8((const char *)in->buf + p, (Py_ssize_t)n, NULL);
        if (s != NULL)
            *pos = p + (Py_ssize_t)n;
        return s;
    }
    if (kind == 'z') {
        PyObject *v = slice_view(in, p, (Py_ssize_t)n);
        if (v != NULL)
            *pos = p + (Py_ssize_t)n;
        return v;
    }
    PyObject *b = PyBytes_FromStringAndSize((const char *)in->buf + p, (Py_ssize_t)n);
    if (b != NULL)
        *pos = p + (Py_ssize_t)n;
    return b;
}

static PyObject *
read_array(Input *in, const Field *f, Py_ssize_t *pos, int64_t n)
{
    Py_ssize_t left = in->len - *pos;
    char e = f->elem;
    int width = fixed_width(e);
    if (width ? n * width > left : n > left)
        return NULL;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < (Py_ssize_t)n; i++) {
        PyObject *item;
        if (width) {
            item = fixed_value(e, in->buf + *pos);
            *pos += width;
        } else if (e == 'S') {
            item = read_struct(in, f->child, pos);
        } else {
            int64_t k;
            if (read_length(in, pos, f->compact, e == 's' ? 2 : 4, &k) < 0 || k < 0)
                item = NULL;
            else
                item = read_text(in, pos, k, e);
        }
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/* A fixed-width field (f->width > 0): most fields, read by read_struct without a call. */
static inline PyObject *
read_fixed(const Input *in, const Field *f, Py_ssize_t *pos)
{
    if (f->width > in->len - *pos)
        return NULL;
    PyObject *v = fixed_value(f->kind, in->buf + *pos);
    *pos += f->width;
    return v;
}

static PyObject *
read_field(Input *in, const Field *f, Py_ssize_t *pos)
{
    int64_t n;
    switch (f->kind) {
    case 's': case 'y': case 'z':
    case '[':
        if (read_length(in, pos, f->compact, f->kind == 's' ? 2 : 4, &n) < 0)
            return NULL;
        if (n < 0) {
            if (!f->nullable || n != -1)
                return NULL;
            Py_RETURN_NONE;
        }
        if (f->kind == '[')
            return read_array(in, f, pos, n);
        return read_text(in, pos, n, f->kind);
    case 'S':
        if (f->nullable && f->tagged) {
            uint64_t m;
            Py_ssize_t p = *pos;
            if (read_uvarint(in, &p, &m) < 0)
                return NULL;
            *pos = p;
            if (m == 0 || m > 0x7FFFFFFF)
                Py_RETURN_NONE;
        } else if (f->nullable) {
            if (*pos >= in->len)
                return NULL;
            if (in->buf[(*pos)++] >= 0x80)
                Py_RETURN_NONE;
        }
        return read_struct(in, f->child, pos);
    default:
        return f->width ? read_fixed(in, f, pos) : NULL;
    }
}

static inline PyObject *
fresh(PyObject *dflt)
{
    if (dflt == (PyObject *)&PyList_Type)
        return PyList_New(0);
    if (PyType_Check(dflt))
        return PyObject_CallNoArgs(dflt);
    return Py_NewRef(dflt);
}

static int
tag_order(const void *a, const void *b)
{
    uint32_t x = ((const Field *)a)->tag, y = ((const Field *)b)->tag;
    return x < y ? -1 : x > y;
}

/* The tagged section of o: count, then (tag, size, value) each; unknown tags are kept. */
static int
read_tagged(Input *in, LayoutObject *L, PyObject *o, Py_ssize_t *pos)
{
    uint64_t count;
    if (read_uvarint(in, pos, &count) < 0 || count > (uint64_t)(in->len - *pos))
        return -1;
    PyObject *unknown = NULL;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t tag, size;
        if (read_uvarint(in, pos, &tag) < 0 || read_uvarint(in, pos, &size) < 0 ||
            size > (uint64_t)(in->len - *pos))
            goto fail;
        Py_ssize_t end = *pos + (Py_ssize_t)size;
        Field key;
        key.tag = (uint32_t)tag;
        const Field *f = L->ntagged ? bsearch(&key, L->tagged, L->ntagged, sizeof(Field), tag_order) : NULL;
        if (f != NULL) {
            PyObject *v = read_field(in, f, pos);
            if (v == NULL)
                goto fail;
            Py_XSETREF(SLOT(o, f->offset), v);
            if (*pos != end)
                goto fail;
        } else {
            if (unknown == NULL && (unknown = PyList_New(0)) == NULL)
                goto fail;
            PyObject *item = Py_BuildValue("(ky#)", (unsigned long)tag, (const char *)in->buf + *pos, (Py_ssize_t)size);
            if (item == NULL || PyList_Append(unknown, item) < 0) {
                Py_XDECREF(item);
                goto fail;
            }
            Py_DECREF(item);
            *pos = end;
        }
    }
    if (unknown != NULL) {
        if (PyList_Sort(unknown) < 0)
            goto fail;
        PyObject *t = PyList_AsTuple(unknown);
        Py_DECREF(unknown);
        if (t == NULL)
            return -1;
        Py_XSETREF(SLOT(o, L->unknown_offset), t);
    }
    return 0;
fail:
    Py_XDECREF(unknown);
    return -1;
}

/* A fresh object of L's class, its slots empty. A plain one is tracked by the collector only
 * once filled (track_object): what tp_alloc does, without its memset call for a few slots. */
static inline PyObject *
new_object(LayoutObject *L)
{
    if (L->plain_slots == 0)
        return L->cls->tp_alloc(L->cls, 0);
    PyObject *o = PyObject_GC_New(PyObject, L->cls);
    if (o != NULL) {
        PyObject **slots = (PyObject **)(o + 1);
        for (Py_ssize_t i = 0; i < L->plain_slots; i++)
            slots[i] = NULL;
    }
    return o;
}

static inline void
track_object(LayoutObject *L, PyObject *o)
{
    if (L->plain_slots)
        PyObject_GC_Track(o);
}

PyObject *
read_struct(Input *in, LayoutObject *L, Py_ssize_t *pos)
{
    PyObject *o = new_object(L);
    if (o == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < L->nabsent; i++) {
        PyObject *v = fresh(L->absent[i].value);
        if (v == NULL)
            goto fail;
        SLOT(o, L->absent[i].offset) = v;
    }
    for (Py_ssize_t i = 0; i < L->ntagged; i++) {
        PyObject *v = fresh(L->tagged[i].dflt);
        if (v == NULL)
            goto fail;
        SLOT(o, L->tagged[i].offset) = v;
    }
    for (Py_ssize_t i = 0; i < L->nsteps; i++) {
        const Field *f = &L->steps[i];
        PyObject *v = f->width ? read_fixed(in, f, pos) : read_field(in, f, pos);
        if (v == NULL)
            goto fail;
        SLOT(o, f->offset) = v;
    }
    SLOT(o, L->unknown_offset) = Py_NewRef(empty_tuple);
    if (L->flexible) {
        if (*pos >= in->len)
            goto fail;
        if (in->buf[*pos] == 0)
            (*pos)++;
        else if (read_tagged(in, L, o, pos) < 0)
            goto fail;
    }
    track_object(L, o);
    return o;
fail:
    Py_DECREF(o); /* subtype_dealloc untracks only a tracked object */
    return NULL;
}

/* reader(buf, pos) -> (object, next position); the Python reader for whatever it declines. */
PyObject *
layout_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    LayoutObject *L = (LayoutObject *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == 2 && kwnames == NULL && PyBytes_CheckExact(args[0]) && PyLong_CheckExact(args[1])) {
        Input in = {(const unsigned char *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), args[0], NULL};
        Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
        if (pos >= 0 && pos <= in.len) {
            PyObject *o = read_struct(&in, L, &pos);
            Py_XDECREF(in.view);
            if (o != NULL) {
                PyObject *end = PyLong_FromSsize_t(pos);
                if (end != NULL) {
                    PyObject *result = PyTuple_New(2);
                    if (result != NULL) {
                        PyTuple_SET_ITEM(result, 0, o);
                        PyTuple_SET_ITEM(result, 1, end);
                        return result;
                    }
                    Py_DECREF(end);
                }
                Py_DECREF(o);
            }
        }
        PyErr_Clear();
    }
    if (L->fallback == Py_None) {
        PyErr_SetString(PyExc_TypeError, "this layout has no Python reader to fall back on");
        return NULL;
    }
    PyObject *result = PyObject_Vectorcall(L->fallback, args, nargsf, kwnames);
    if (result != NULL)
        fallback_successes++;
    return result;
}

/* Layout.read, for the differential tests: None where the compiled codec declines, instead of
 * asking the Python reader. */
PyObject *
layout_read(LayoutObject *L, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_CheckExact(args[0]) || !PyLong_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "read(buf: bytes, pos: int)");
        return NULL;
    }
    Input in = {(const unsigned char *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), args[0], NULL};
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    if (pos < 0 || pos > in.len) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *o = read_struct(&in, L, &pos);
    Py_XDECREF(in.view);
    if (o == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(Nn)", o, pos);
}
