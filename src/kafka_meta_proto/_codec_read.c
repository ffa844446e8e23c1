/* The compiled codec: an interpreter of the layout programs the generator prints into every
 * message module (codegen/build_program.py describes their form).
 *
 * A Layout is one struct layout compiled from its program: the slot offset of every attribute,
 * the field steps in wire order, the tagged fields, the defaults. Called as reader(buf, pos) it
 * returns (object, next position), as the generated Python readers do.
 *
 * The C code only decides "this input decodes to this object" or "not here". Whenever it
 * declines (bad input, an unusual argument, an allocation failure), the same call goes to the
 * Python reader the Layout replaced, which raises the error with its field path and byte offset,
 * so both codecs fail alike. Lengths are checked against the bytes left before anything is
 * allocated for them.
 */
#include "_codec.h"

#include <stddef.h> /* offsetof */
#include <stdint.h>
#include <string.h>

/* -- Compiled layouts ------------------------------------------------------------------------ */

typedef struct LayoutObject LayoutObject;

typedef struct {
    Py_ssize_t offset;   /* the attribute's slot in the object */
    char kind;           /* see codegen/build_program.py: ?bhHiIqd u s y z S [ */
    char elem;           /* arrays: the element's kind */
    char compact;
    char nullable;
    char tagged;
    char width;          /* fixed-width kinds: their byte count, else 0 */
    uint32_t tag;
    LayoutObject *child; /* structs and arrays of structs (borrowed from LayoutObject.children) */
    PyObject *dflt;      /* tagged fields: the default (a type: call it for a fresh value) */
    PyObject *cmp;       /* tagged fields with a struct default: an instance to compare with */
    const Py_ssize_t *cmp_slots; /* and its fields' slots, to compare field by field (or NULL) */
    Py_ssize_t ncmp;
} Field;

typedef struct {
    Py_ssize_t offset;
    PyObject *value;     /* a type: call it for a fresh value */
    char checked;        /* encoding refuses another value */
    PyObject *cmp;       /* a struct default: an instance to compare with */
    const Py_ssize_t *cmp_slots; /* as in Field */
    Py_ssize_t ncmp;
} Absent;

struct LayoutObject {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyTypeObject *cls;
    int flexible;
    Py_ssize_t nsteps, ntagged, nabsent;
    Py_ssize_t fixed_size; /* the steps of fixed width together: what any value of them takes */
    Py_ssize_t plain_slots; /* > 0: objects of cls are that many slots after the header, made by
                               new_object (else by tp_alloc) */
    Field *steps;
    Field *tagged;       /* by tag */
    Absent *absent;
    Py_ssize_t unknown_offset; /* unknown_tagged_fields */
    PyObject *program;   /* what this was compiled from; keeps the defaults alive */
    PyObject *children;  /* what the tables point into: child Layouts, comparison defaults */
    PyObject *fallback;  /* the Python reader (message layouts), else None */
};

static PyTypeObject LayoutType;
static PyObject *layout_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);

/* Module state kept in statics: one interpreter, set up once from Python (codec.py). */
PyTypeObject *UuidType = NULL;
Py_ssize_t uuid_bytes_offset = -1;
static PyObject *compiled_cache = NULL; /* program tuple -> Layout */
static PyObject *empty_tuple = NULL;
static unsigned long long fallback_successes = 0;        /* decode */
static unsigned long long encode_fallback_successes = 0; /* encode and size */

static LayoutObject *compile_program(PyObject *program);
static int fixed_width(char kind);

static int
parse_kind(PyObject *kind, Field *f)
{
    Py_ssize_t n;
    const char *k = PyUnicode_AsUTF8AndSize(kind, &n);
    if (k == NULL)
        return -1;
    if (n < 1 || n > 2 || (n == 2 && k[0] != '[') || strchr("?bhHiIqdusyzS[", k[0]) == NULL ||
        (n == 2 && strchr("?bhHiIqdusyS", k[1]) == NULL)) {
        PyErr_Format(PyExc_ValueError, "unknown field kind %R", kind);
        return -1;
    }
    f->kind = k[0];
    f->elem = n == 2 ? k[1] : 0;
    f->width = (char)fixed_width(f->kind);
    return 0;
}

/* (attribute, kind, compact, nullable, child) at items[0..4] */
static int
compile_field(LayoutObject *L, PyObject *const *items, Field *f)
{
    f->offset = slot_offset(L->cls, items[0]);
    if (f->offset < 0 || parse_kind(items[1], f) < 0)
        return -1;
    f->compact = (char)PyObject_IsTrue(items[2]);
    f->nullable = (char)PyObject_IsTrue(items[3]);
    f->child = NULL;
    if (items[4] != Py_None) {
        LayoutObject *child = compile_program(items[4]);
        if (child == NULL)
            return -1;
        int r = PyList_Append(L->children, (PyObject *)child);
        Py_DECREF(child);
        if (r < 0)
            return -1;
        f->child = child;
    }
    if ((f->kind == 'S' || f->elem == 'S') && f->child == NULL) {
        PyErr_SetString(PyExc_ValueError, "a struct step without its program");
        return -1;
    }
    return 0;
}

/* The slots of the fields of `instance`, a struct default, in field order, as a bytes object of
 * offsets; None where the generated writer compares the whole struct instead of field by field
 * (a field holding a float or another struct: see codegen/values.py, differs). */
static PyObject *
field_slots(PyObject *instance)
{
    PyObject *dataclasses = PyImport_ImportModule("dataclasses");
    PyObject *fields = dataclasses ? PyObject_CallMethod(dataclasses, "fields", "O", instance) : NULL;
    Py_XDECREF(dataclasses);
    if (fields == NULL || !PyTuple_Check(fields)) {
        Py_XDECREF(fields);
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    PyObject *slots = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(Py_ssize_t));
    for (Py_ssize_t i = 0; slots != NULL && i < n; i++) {
        PyObject *name = PyObject_GetAttrString(PyTuple_GET_ITEM(fields, i), "name");
        Py_ssize_t off = name != NULL ? slot_offset(Py_TYPE(instance), name) : -1;
        Py_XDECREF(name);
        PyObject *value = off >= 0 ? SLOT(instance, off) : NULL;
        if (value == NULL || PyFloat_Check(value) || PyObject_HasAttrString((PyObject *)Py_TYPE(value), "__dataclass_fields__")) {
            PyErr_Clear();
            Py_SETREF(slots, Py_NewRef(Py_None));
            break;
        }
        ((Py_ssize_t *)PyBytes_AS_STRING(slots))[i] = off;
    }
    Py_DECREF(fields);
    return slots;
}

/* For a default that is a struct class: one instance to compare values with, and the slots to
 * compare (both kept by L). */
static int
comparison_default(LayoutObject *L, PyObject *dflt, PyObject **cmp, const Py_ssize_t **cmp_slots, Py_ssize_t *ncmp)
{
    *cmp = NULL;
    *cmp_slots = NULL;
    *ncmp = 0;
    if (!PyType_Check(dflt) || dflt == (PyObject *)&PyList_Type)
        return 0;
    PyObject *instance = PyObject_CallNoArgs(dflt);
    if (instance == NULL)
        return -1;
    int r = PyList_Append(L->children, instance);
    Py_DECREF(instance);
    *cmp = instance;
    PyObject *slots = r < 0 ? NULL : field_slots(instance);
    if (slots == NULL || PyList_Append(L->children, slots) < 0) {
        Py_XDECREF(slots);
        return -1;
    }
    Py_DECREF(slots);
    if (slots != Py_None) {
        *cmp_slots = (const Py_ssize_t *)PyBytes_AS_STRING(slots);
        *ncmp = PyBytes_GET_SIZE(slots) / (Py_ssize_t)sizeof(Py_ssize_t);
    }
    return 0;
}

static int
check_tuple(PyObject *t, Py_ssize_t n, const char *what)
{
    if (!PyTuple_Check(t) || (n >= 0 && PyTuple_GET_SIZE(t) != n)) {
        PyErr_Format(PyExc_ValueError, "malformed %s: %R", what, t);
        return -1;
    }
    return 0;
}

/* The slot count of a class whose instances are a header and slots alone (the generated
 * dataclasses: no __dict__, no weak references, the generic allocator), else 0. */
static Py_ssize_t
plain_slots(PyTypeObject *cls)
{
    unsigned long managed = 0;
#ifdef Py_TPFLAGS_MANAGED_DICT
    managed |= Py_TPFLAGS_MANAGED_DICT;
#endif
#ifdef Py_TPFLAGS_MANAGED_WEAKREF
    managed |= Py_TPFLAGS_MANAGED_WEAKREF;
#endif
    Py_ssize_t body = cls->tp_basicsize - (Py_ssize_t)sizeof(PyObject);
    if (cls->tp_alloc != PyType_GenericAlloc || !PyType_IS_GC(cls) || cls->tp_itemsize != 0 ||
        cls->tp_dictoffset != 0 || cls->tp_weaklistoffset != 0 || (cls->tp_flags & managed) || body <= 0 ||
        body % (Py_ssize_t)sizeof(PyObject *) != 0)
        return 0;
    return body / (Py_ssize_t)sizeof(PyObject *);
}

static LayoutObject *
compile_program(PyObject *program)
{
    PyObject *cached = PyDict_GetItemWithError(compiled_cache, program);
    if (cached != NULL) {
        Py_INCREF(cached);
        return (LayoutObject *)cached;
    }
    if (PyErr_Occurred() || check_tuple(program, 5, "program") < 0)
        return NULL;
    PyObject *cls = PyTuple_GET_ITEM(program, 0), *steps = PyTuple_GET_ITEM(program, 2),
             *tagged = PyTuple_GET_ITEM(program, 3), *absent = PyTuple_GET_ITEM(program, 4);
    if (!PyType_Check(cls) || check_tuple(steps, -1, "steps") < 0 ||
        check_tuple(tagged, -1, "tagged fields") < 0 || check_tuple(absent, -1, "absent fields") < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a program starts with its class");
        return NULL;
    }
    LayoutObject *L = PyObject_New(LayoutObject, &LayoutType);
    if (L == NULL)
        return NULL;
    L->vectorcall = layout_vectorcall;
    L->cls = (PyTypeObject *)Py_NewRef(cls);
    L->flexible = PyObject_IsTrue(PyTuple_GET_ITEM(program, 1));
    L->nsteps = PyTuple_GET_SIZE(steps);
    L->ntagged = PyTuple_GET_SIZE(tagged);
    L->nabsent = PyTuple_GET_SIZE(absent);
    L->steps = PyMem_Calloc(L->nsteps + 1, sizeof(Field));
    L->tagged = PyMem_Calloc(L->ntagged + 1, sizeof(Field));
    L->absent = PyMem_Calloc(L->nabsent + 1, sizeof(Absent));
    L->program = Py_NewRef(program);
    L->children = PyList_New(0);
    L->fallback = Py_NewRef(Py_None);
    L->unknown_offset = -1;
    L->fixed_size = 0;
    L->plain_slots = plain_slots(L->cls);
    if (L->steps == NULL || L->tagged == NULL || L->absent == NULL || L->children == NULL) {
        Py_DECREF(L);
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < L->nsteps; i++) {
        PyObject *s = PyTuple_GET_ITEM(steps, i);
        if (check_tuple(s, 5, "step") < 0 || compile_field(L, &PyTuple_GET_ITEM(s, 0), &L->steps[i]) < 0)
            goto fail;
        L->fixed_size += L->steps[i].width;
    }
    for (Py_ssize_t i = 0; i < L->ntagged; i++) {
        PyObject *s = PyTuple_GET_ITEM(tagged, i);
        Field *f = &L->tagged[i];
        if (check_tuple(s, 7, "tagged field") < 0 || compile_field(L, &PyTuple_GET_ITEM(s, 1), f) < 0)
            goto fail;
        unsigned long tag = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(s, 0));
        if (PyErr_Occurred())
            goto fail;
        if (tag > 0xFFFFFFFFUL || (i > 0 && tag <= L->tagged[i - 1].tag)) {
            PyErr_SetString(PyExc_ValueError, "tagged fields out of order");
            goto fail;
        }
        f->tag = (uint32_t)tag;
        f->tagged = 1;
        f->dflt = PyTuple_GET_ITEM(s, 6); /* borrowed: the program holds it */
        if (comparison_default(L, f->dflt, &f->cmp, &f->cmp_slots, &f->ncmp) < 0)
            goto fail;
    }
    for (Py_ssize_t i = 0; i < L->nabsent; i++) {
        PyObject *s = PyTuple_GET_ITEM(absent, i);
        if (check_tuple(s, 3, "absent field") < 0)
            goto fail;
        L->absent[i].offset = slot_offset(L->cls, PyTuple_GET_ITEM(s, 0));
        if (L->absent[i].offset < 0)
            goto fail;
        L->absent[i].value = PyTuple_GET_ITEM(s, 1);
        L->absent[i].checked = (char)PyObject_IsTrue(PyTuple_GET_ITEM(s, 2));
        if (comparison_default(L, L->absent[i].value, &L->absent[i].cmp, &L->absent[i].cmp_slots, &L->absent[i].ncmp) < 0)
            goto fail;
    }
    {
        PyObject *name = PyUnicode_FromString("unknown_tagged_fields");
        if (name == NULL)
            goto fail;
        L->unknown_offset = slot_offset(L->cls, name);
        Py_DECREF(name);
        if (L->unknown_offset < 0)
            goto fail;
    }
    if (PyDict_SetItem(compiled_cache, program, (PyObject *)L) < 0)
        goto fail;
    return L;
fail:
    Py_DECREF(L);
    return NULL;
}

static void
layout_dealloc(LayoutObject *L)
{
    PyMem_Free(L->steps);
    PyMem_Free(L->tagged);
    PyMem_Free(L->absent);
    Py_XDECREF(L->cls);
    Py_XDECREF(L->program);
    Py_XDECREF(L->children);
    Py_XDECREF(L->fallback);
    PyObject_Free(L);
}

/* -- Reading --------------------------------------------------------------------------------- */

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

static int
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

static PyObject *read_struct(Input *in, LayoutObject *L, Py_ssize_t *pos);

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

static PyObject *
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
static PyObject *
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

static PyObject *
layout_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *program, *fallback;
    if (!PyArg_ParseTuple(args, "OO:Layout", &program, &fallback))
        return NULL;
    if (UuidType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "kafka_meta_proto._codec.setup() was not called");
        return NULL;
    }
    LayoutObject *L = compile_program(program);
    if (L == NULL)
        return NULL;
    /* Versions sharing a layout share one compiled program and one Python reader (equal
       programs read alike, so whichever reader came first serves them all). */
    if (L->fallback == Py_None)
        Py_SETREF(L->fallback, Py_NewRef(fallback));
    return (PyObject *)L;
}


/* -- Encoding -------------------------------------------------------------------------------- */
/* Two passes over the object: measure (every check the Python writer makes, and the size), then
 * write into a bytes object of exactly that size. Measuring declines (-1) anything it is not
 * sure the Python writer encodes the same way: a value of an unusual type, out of range, a
 * struct of another class; the Python writer then encodes it or raises its EncodeError. */

static inline int
uvarint_size(uint64_t v)
{
    return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/* A value the Python writer packs with struct code `kind`, as an unsigned 64-bit pattern. */
static inline int
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
static inline int
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
static inline int
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
 * order until one differs, instead of the dataclass __eq__ (two tuples and Python code). */
static int
differs(PyObject *v, PyObject *dflt, PyObject *cmp, const Py_ssize_t *cmp_slots, Py_ssize_t ncmp)
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

static int measure_struct(LayoutObject *L, PyObject *o, Py_ssize_t *size);

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

/* Inlined into its three callers: a call per field was a tenth of measuring many small structs. */
static inline __attribute__((always_inline)) int
measure_value(const Field *f, PyObject *v, Py_ssize_t *size)
{
    const char *data;
    Py_ssize_t n;
    uint64_t bits;
    if (v == NULL)
        return -1;
    if (v == Py_None && f->kind != '?') {
        if (!f->nullable || f->width)
            return -1;
        *size += (f->compact || f->kind == 'S') ? 1 : f->kind == 's' ? 2 : 4;
        return 0;
    }
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
    default:
        if (fixed_bits(f->kind, v, &bits) < 0)
            return -1;
        *size += f->width;
        return 0;
    }
}

/* An unknown tagged field the writer takes: (tag, bytes). */
static int
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
static inline int
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

static int
measure_struct(LayoutObject *L, PyObject *o, Py_ssize_t *size)
{
    for (Py_ssize_t i = 0; i < L->nabsent; i++) {
        const Absent *a = &L->absent[i];
        PyObject *v = SLOT(o, a->offset);
        if (v == NULL || (a->checked && differs(v, a->value, a->cmp, a->cmp_slots, a->ncmp) != 0))
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
        int d = differs(v, f->dflt, f->cmp, f->cmp_slots, f->ncmp);
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

static int
put_length(Out *out, int compact, int width, Py_ssize_t n)
{
    return compact ? put_uvarint(out, (uint64_t)n + 1) : put_be(out, (uint64_t)n, width);
}

static int
put_fixed(Out *out, char kind, PyObject *v)
{
    uint64_t bits;
    if (fixed_bits(kind, v, &bits) < 0)
        return -1;
    if (kind == 'u')
        return put(out, PyBytes_AS_STRING(SLOT(v, uuid_bytes_offset)), 16);
    return put_be(out, bits, fixed_width(kind));
}

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
        int d = differs(SLOT(o, L->tagged[i].offset), L->tagged[i].dflt, L->tagged[i].cmp, L->tagged[i].cmp_slots,
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
            if (measure_value(f, v, &t) < 0 || put_uvarint(out, f->tag) < 0 || put_uvarint(out, (uint64_t)t) < 0 ||
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
static PyObject *
encode_object(LayoutObject *L, PyObject *o)
{
    Py_ssize_t size = 0;
    if (Py_TYPE(o) != L->cls || measure_struct(L, o, &size) < 0)
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

/* -- Message methods ------------------------------------------------------------------------- */
/* decode, encode and size of Message: the compiled layouts when the class has them, else (or when
 * they decline) the Python methods they replace. */

static PyObject *py_decode = NULL; /* Message.decode's function (cls, data, version) */
static PyObject *py_encode = NULL;
static PyObject *py_size = NULL;
static PyObject *layouts_name = NULL; /* "_LAYOUTS": {version: Layout} */

static LayoutObject *
layout_for(PyTypeObject *cls, PyObject *version)
{
    if (!PyLong_CheckExact(version))
        return NULL;
    PyObject *table = _PyType_Lookup(cls, layouts_name);
    if (table == NULL || !PyDict_CheckExact(table))
        return NULL;
    PyObject *L = PyDict_GetItemWithError(table, version);
    if (L == NULL || !Py_IS_TYPE(L, &LayoutType) || ((LayoutObject *)L)->cls != cls)
        return NULL;
    return (LayoutObject *)L;
}

static PyObject *
call_python(PyObject *fn, PyObject *first, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *stack[8];
    if (nargs + nkw + 1 > 8) {
        PyErr_SetString(PyExc_TypeError, "too many arguments");
        return NULL;
    }
    stack[0] = first;
    for (Py_ssize_t i = 0; i < nargs + nkw; i++)
        stack[i + 1] = args[i];
    return PyObject_Vectorcall(fn, stack, (size_t)(nargs + 1), kwnames);
}

/* The Python method, counting its successes where a compiled layout had declined. */
static PyObject *
python_after_decline(PyObject *fn, PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    int had_layout = nargs == 1 && kwnames == NULL && layout_for(Py_TYPE(self), args[0]) != NULL;
    PyErr_Clear();
    PyObject *result = call_python(fn, self, args, nargs, kwnames);
    if (result != NULL && had_layout)
        encode_fallback_successes++;
    return result;
}

static PyObject *
message_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs == 1 && kwnames == NULL) {
        LayoutObject *L = layout_for(Py_TYPE(self), args[0]);
        if (L != NULL) {
            PyObject *result = encode_object(L, self);
            if (result != NULL)
                return result;
        }
        PyErr_Clear();
    }
    return python_after_decline(py_encode, self, args, nargs, kwnames);
}

static PyObject *
message_size(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs == 1 && kwnames == NULL) {
        LayoutObject *L = layout_for(Py_TYPE(self), args[0]);
        Py_ssize_t size = 0;
        if (L != NULL && measure_struct(L, self, &size) == 0)
            return PyLong_FromSsize_t(size);
        PyErr_Clear();
    }
    return python_after_decline(py_size, self, args, nargs, kwnames);
}

/* The first lines ("name($self, version)" then "--") are the text signature inspect.signature reads:
 * the same parameters as the Python methods these replace. */
static PyMethodDef encode_def = {"encode", (PyCFunction)(void (*)(void))message_encode, METH_FASTCALL | METH_KEYWORDS,
                                 "encode($self, version)\n--\n\n"
                                 "The message body at ``version`` (no size prefix or header)."};
static PyMethodDef size_def = {"size", (PyCFunction)(void (*)(void))message_size, METH_FASTCALL | METH_KEYWORDS,
                               "size($self, version)\n--\n\n"
                               "``len(self.encode(version))``, computed without encoding."};

/* -- The compiled codec alone, for the differential tests ------------------------------------ */
/* Each returns None where the compiled codec declines, instead of asking the Python codec. */

static PyObject *
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

static PyObject *
layout_encode(LayoutObject *L, PyObject *o)
{
    PyObject *result = encode_object(L, o);
    if (result == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return result;
}

static PyObject *
layout_size(LayoutObject *L, PyObject *o)
{
    Py_ssize_t size = 0;
    if (Py_TYPE(o) != L->cls || measure_struct(L, o, &size) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return PyLong_FromSsize_t(size);
}

static PyMethodDef layout_methods[] = {
    {"read", (PyCFunction)(void (*)(void))layout_read, METH_FASTCALL,
     "read(buf, pos) -> (object, next position), or None where the compiled codec declines."},
    {"encode", (PyCFunction)layout_encode, METH_O, "encode(obj) -> bytes, or None where the compiled codec declines."},
    {"size", (PyCFunction)layout_size, METH_O, "size(obj) -> int, or None where the compiled codec declines."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef layout_members[] = {
    {"python_reader", Py_T_OBJECT_EX, offsetof(LayoutObject, fallback), Py_READONLY, "the Python reader it falls back on"},
    {"cls", Py_T_OBJECT_EX, offsetof(LayoutObject, cls), Py_READONLY, "the class of the objects"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject LayoutType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kafka_meta_proto._codec.Layout",
    .tp_doc = "Layout(program, python_reader): a struct layout compiled from its program; "
              "called as reader(buf, pos) -> (object, next position).",
    .tp_basicsize = sizeof(LayoutObject),
    .tp_dealloc = (destructor)layout_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(LayoutObject, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = layout_new,
    .tp_methods = layout_methods,
    .tp_members = layout_members,
};

/* -- KRaft record values (kraft/records.py) -------------------------------------------------------- */
/* read_record_value(data, classes): a metadata record value (uvarint frame version 1, record type,
 * record version, body) as (record type, version, message), the class of each record type taken
 * from the dict ``classes``; None for anything else (an unknown type, a bad frame, a body that
 * does not decode exactly), which kraft.decode_record_value then reads and reports. */

PyObject *
codec_read_record_value(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_CheckExact(args[0]) || !PyDict_CheckExact(args[1]))
        Py_RETURN_NONE;
    Input in = {(const unsigned char *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), args[0], NULL};
    Py_ssize_t pos = 0;
    uint64_t frame, type, version;
    if (read_uvarint(&in, &pos, &frame) < 0 || frame != 1 || read_uvarint(&in, &pos, &type) < 0 ||
        read_uvarint(&in, &pos, &version) < 0)
        Py_RETURN_NONE;
    PyObject *key = PyLong_FromUnsignedLongLong(type);
    if (key == NULL)
        return NULL;
    PyObject *cls = PyDict_GetItemWithError(args[1], key);
    Py_DECREF(key);
    if (cls == NULL || !PyType_Check(cls)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *v = PyLong_FromUnsignedLongLong(version);
    if (v == NULL)
        return NULL;
    LayoutObject *L = layout_for((PyTypeObject *)cls, v);
    if (L == NULL) {
        Py_DECREF(v);
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *message = read_struct(&in, L, &pos);
    Py_XDECREF(in.view);
    if (message == NULL || pos != in.len) {
        Py_XDECREF(message);
        Py_DECREF(v);
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(KNN)", (unsigned long long)type, v, message);
}

/* -- Decoder: a message class's decode ------------------------------------------------------- */
/* Set on each message class as its ``decode`` (a plain callable, so nothing is bound per call):
 * the compiled layout of the version, and Message.decode (Python) for whatever it declines,
 * which also raises every error. */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *cls;
    long lowest;
    PyObject *layouts; /* tuple: the Layout of version lowest + i, or None */
    PyObject *signature; /* inspect.signature's answer (set by codec.install), or NULL */
} DecoderObject;

static PyObject *
decoder_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    DecoderObject *D = (DecoderObject *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == 2 && kwnames == NULL && PyBytes_CheckExact(args[0]) && PyLong_CheckExact(args[1])) {
        long i = PyLong_AsLong(args[1]) - D->lowest;
        PyErr_Clear();
        if (i >= 0 && i < PyTuple_GET_SIZE(D->layouts) && Py_IS_TYPE(PyTuple_GET_ITEM(D->layouts, i), &LayoutType)) {
            Input in = {(const unsigned char *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), args[0], NULL};
            Py_ssize_t pos = 0;
            PyObject *o = read_struct(&in, (LayoutObject *)PyTuple_GET_ITEM(D->layouts, i), &pos);
            Py_XDECREF(in.view);
            if (o != NULL && pos == in.len)
                return o;
            Py_XDECREF(o);
            PyErr_Clear();
        }
    }
    if (py_decode == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "kafka_meta_proto._codec.setup() was not called");
        return NULL;
    }
    return call_python(py_decode, D->cls, args, nargs, kwnames);
}

static PyObject *
decoder_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *cls, *table;
    if (!PyArg_ParseTuple(args, "O!O!:Decoder", &PyType_Type, &cls, &PyDict_Type, &table))
        return NULL;
    long lowest = LONG_MAX, highest = LONG_MIN;
    PyObject *key, *value;
    Py_ssize_t it = 0;
    while (PyDict_Next(table, &it, &key, &value)) {
        long v = PyLong_AsLong(key);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        if (!Py_IS_TYPE(value, &LayoutType) || v < 0 || v > 0xFFFF) {
            PyErr_SetString(PyExc_ValueError, "Decoder takes {version: Layout}");
            return NULL;
        }
        lowest = v < lowest ? v : lowest;
        highest = v > highest ? v : highest;
    }
    Py_ssize_t n = lowest <= highest ? highest - lowest + 1 : 0;
    PyObject *layouts = PyTuple_New(n);
    if (layouts == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(layouts, i, Py_NewRef(Py_None));
    it = 0;
    while (PyDict_Next(table, &it, &key, &value)) {
        Py_ssize_t i = PyLong_AsLong(key) - lowest;
        Py_SETREF(PyTuple_GET_ITEM(layouts, i), Py_NewRef(value));
    }
    DecoderObject *D = PyObject_New(DecoderObject, type);
    if (D == NULL) {
        Py_DECREF(layouts);
        return NULL;
    }
    D->vectorcall = decoder_vectorcall;
    D->cls = Py_NewRef(cls);
    D->lowest = n ? lowest : 0;
    D->layouts = layouts;
    D->signature = NULL;
    return (PyObject *)D;
}

static void
decoder_dealloc(DecoderObject *D)
{
    Py_XDECREF(D->cls);
    Py_XDECREF(D->layouts);
    Py_XDECREF(D->signature);
    PyObject_Free(D);
}

/* A callable object has no signature inspect can find unless it carries one (a C type's
 * __text_signature__ describes its constructor, not its calls): codec.install gives each Decoder
 * Message.decode's, so inspect.signature(FetchRequest.decode) and help() work as under pure
 * Python. */
static PyMemberDef decoder_members[] = {
    {"__signature__", Py_T_OBJECT_EX, offsetof(DecoderObject, signature), 0, "the signature of decode"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject DecoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kafka_meta_proto._codec.Decoder",
    .tp_doc = "decode(data, version): decode exactly ``data`` (bytes-like) as a message of the class at "
              "``version``; trailing bytes are an error.",
    .tp_basicsize = sizeof(DecoderObject),
    .tp_dealloc = (destructor)decoder_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(DecoderObject, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = decoder_new,
    .tp_members = decoder_members,
};

/* setup(Uuid, Message) -> (encode, size): the class uuid fields decode to; the compiled encode
 * and size methods of Message (message.py puts them on the class), which keep Message's Python
 * ones for what they decline, as Decoders keep its decode. */
static PyObject *
codec_setup(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyType_Check(args[0]) || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "setup(Uuid, Message) takes the two classes");
        return NULL;
    }
    if (py_decode != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup() was already called");
        return NULL;
    }
    PyTypeObject *message = (PyTypeObject *)args[1];
    PyObject *name = PyUnicode_FromString("bytes");
    if (name == NULL)
        return NULL;
    Py_ssize_t off = slot_offset((PyTypeObject *)args[0], name);
    Py_DECREF(name);
    if (off < 0)
        return NULL;
    PyObject *dict = message->tp_dict;
    PyObject *decode = PyDict_GetItemString(dict, "decode"); /* a classmethod */
    PyObject *encode = PyDict_GetItemString(dict, "encode");
    PyObject *size = PyDict_GetItemString(dict, "size");
    if (decode == NULL || encode == NULL || size == NULL || !PyFunction_Check(encode) || !PyFunction_Check(size)) {
        PyErr_SetString(PyExc_TypeError, "Message lacks its Python decode, encode or size");
        return NULL;
    }
    PyObject *decode_fn = PyObject_GetAttrString(decode, "__func__");
    if (decode_fn == NULL)
        return NULL;
    PyObject *e = PyDescr_NewMethod(message, &encode_def);
    PyObject *z = PyDescr_NewMethod(message, &size_def);
    PyObject *methods = e == NULL || z == NULL ? NULL : PyTuple_Pack(2, e, z);
    Py_XDECREF(e);
    Py_XDECREF(z);
    if (methods == NULL) {
        Py_DECREF(decode_fn);
        return NULL;
    }
    /* hold the Python methods: the class lets go of them when message.py installs these */
    py_decode = decode_fn;
    py_encode = Py_NewRef(encode);
    py_size = Py_NewRef(size);
    UuidType = (PyTypeObject *)Py_NewRef(args[0]);
    uuid_bytes_offset = off;
    return methods;
}

static PyObject *
codec_stats(PyObject *module, PyObject *unused)
{
    return Py_BuildValue("{sKsK}", "fallback_successes", fallback_successes, "encode_fallback_successes",
                         encode_fallback_successes);
}

static PyMethodDef codec_methods[] = {
    {"setup", (PyCFunction)(void (*)(void))codec_setup, METH_FASTCALL, "setup(Uuid, Message) -> (encode, size): the uuid class; compiled Message.encode and size."},
    {"stats", codec_stats, METH_NOARGS, "Counters: fallback_successes (input declined that Python decoded)."},
    {"read_record_value", (PyCFunction)(void (*)(void))codec_read_record_value, METH_FASTCALL,
     "read_record_value(data, classes) -> (record type, version, message), or None."},
    {"setup_json", (PyCFunction)(void (*)(void))codec_setup_json, METH_FASTCALL,
     "setup_json(plan builder, unknown_to_json, dumps): the Python parts of json_form and json_text."},
    {"json_form", (PyCFunction)(void (*)(void))codec_json_form, METH_FASTCALL,
     "json_form(message, version) -> Kafka's JSON form as a dict (the values are not checked)."},
    {"json_text", codec_json_text, METH_O,
     "json_text(value) -> json.dumps(value, ensure_ascii=False, separators=(',', ':'))."},
    {"json_form_alone", (PyCFunction)(void (*)(void))codec_json_form_alone, METH_FASTCALL,
     "json_form_alone(message, version) -> the compiled JSON form, or None where it declines."},
    {"json_text_alone", codec_json_text_alone, METH_O,
     "json_text_alone(value) -> the compiled JSON text, or None where it declines."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef codec_module = {
    PyModuleDef_HEAD_INIT, "kafka_meta_proto._codec",
    "The compiled codec: an interpreter of the generated layout programs.", -1, codec_methods,
};

PyMODINIT_FUNC
PyInit__codec(void)
{
    if (PyType_Ready(&LayoutType) < 0 || PyType_Ready(&DecoderType) < 0 || codec_json_ready() < 0)
        return NULL;
    compiled_cache = PyDict_New();
    empty_tuple = PyTuple_New(0);
    layouts_name = PyUnicode_InternFromString("_LAYOUTS");
    if (compiled_cache == NULL || empty_tuple == NULL || layouts_name == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&codec_module);
    if (m == NULL)
        return NULL;
    static const CodecApi api = {codec_read_record_value, message_json_form, value_json_text};
    PyObject *capsule = PyCapsule_New((void *)&api, CODEC_API_CAPSULE, NULL);
    int failed = capsule == NULL || PyModule_AddObjectRef(m, "Layout", (PyObject *)&LayoutType) < 0 ||
                 PyModule_AddObjectRef(m, "Decoder", (PyObject *)&DecoderType) < 0 ||
                 PyModule_AddObjectRef(m, "_C_API", capsule) < 0;
    Py_XDECREF(capsule);
    if (failed) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
