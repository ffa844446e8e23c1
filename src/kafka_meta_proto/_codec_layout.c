/* Compiled layouts: a layout program (codegen/build_program.py describes its form) compiled into
 * a Layout, one struct layout: the slot offset of every attribute, the field steps in wire order,
 * the tagged fields, the defaults. Reading (_codec_read.c) and encoding (_codec_measure.c,
 * _codec_write.c) interpret it. */
#include "_codec_fields.h"

#include <stddef.h> /* offsetof */

static PyObject *compiled_cache = NULL; /* program tuple -> Layout */

static LayoutObject *compile_program(PyObject *program);

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

/* A Layout of class cls from program, its tables allocated for the counts given and empty. */
static LayoutObject *
new_layout(PyObject *program, PyObject *cls, Py_ssize_t nsteps, Py_ssize_t ntagged, Py_ssize_t nabsent)
{
    LayoutObject *L = PyObject_New(LayoutObject, &LayoutType);
    if (L == NULL)
        return NULL;
    L->vectorcall = layout_vectorcall;
    L->cls = (PyTypeObject *)Py_NewRef(cls);
    L->flexible = PyObject_IsTrue(PyTuple_GET_ITEM(program, 1));
    L->nsteps = nsteps;
    L->ntagged = ntagged;
    L->nabsent = nabsent;
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
    return L;
}

/* The steps: (attribute, kind, compact, nullable, child) each. */
static int
compile_steps(LayoutObject *L, PyObject *steps)
{
    for (Py_ssize_t i = 0; i < L->nsteps; i++) {
        PyObject *s = PyTuple_GET_ITEM(steps, i);
        if (check_tuple(s, 5, "step") < 0 || compile_field(L, &PyTuple_GET_ITEM(s, 0), &L->steps[i]) < 0)
            return -1;
        L->fixed_size += L->steps[i].width;
    }
    return 0;
}

/* The tagged fields, by tag: (tag, the five of a step, default) each. */
static int
compile_tagged(LayoutObject *L, PyObject *tagged)
{
    for (Py_ssize_t i = 0; i < L->ntagged; i++) {
        PyObject *s = PyTuple_GET_ITEM(tagged, i);
        Field *f = &L->tagged[i];
        if (check_tuple(s, 7, "tagged field") < 0 || compile_field(L, &PyTuple_GET_ITEM(s, 1), f) < 0)
            return -1;
        unsigned long tag = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(s, 0));
        if (PyErr_Occurred())
            return -1;
        if (tag > 0xFFFFFFFFUL || (i > 0 && tag <= L->tagged[i - 1].tag)) {
            PyErr_SetString(PyExc_ValueError, "tagged fields out of order");
            return -1;
        }
        f->tag = (uint32_t)tag;
        f->tagged = 1;
        f->dflt = PyTuple_GET_ITEM(s, 6); /* borrowed: the program holds it */
        if (comparison_default(L, f->dflt, &f->cmp, &f->cmp_slots, &f->ncmp) < 0)
            return -1;
    }
    return 0;
}

/* The fields the version lacks: (attribute, default, checked) each. */
static int
compile_absent(LayoutObject *L, PyObject *absent)
{
    for (Py_ssize_t i = 0; i < L->nabsent; i++) {
        PyObject *s = PyTuple_GET_ITEM(absent, i);
        Absent *a = &L->absent[i];
        if (check_tuple(s, 3, "absent field") < 0)
            return -1;
        a->offset = slot_offset(L->cls, PyTuple_GET_ITEM(s, 0));
        if (a->offset < 0)
            return -1;
        a->value = PyTuple_GET_ITEM(s, 1);
        a->checked = (char)PyObject_IsTrue(PyTuple_GET_ITEM(s, 2));
        if (comparison_default(L, a->value, &a->cmp, &a->cmp_slots, &a->ncmp) < 0)
            return -1;
    }
    return 0;
}

static int
find_unknown_slot(LayoutObject *L)
{
    PyObject *name = PyUnicode_FromString("unknown_tagged_fields");
    if (name == NULL)
        return -1;
    L->unknown_offset = slot_offset(L->cls, name);
    Py_DECREF(name);
    return L->unknown_offset < 0 ? -1 : 0;
}

/* (class, flexible, steps, tagged fields, absent fields) compiled, once per equal program. */
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
    LayoutObject *L =
        new_layout(program, cls, PyTuple_GET_SIZE(steps), PyTuple_GET_SIZE(tagged), PyTuple_GET_SIZE(absent));
    if (L == NULL)
        return NULL;
    if (compile_steps(L, steps) < 0 || compile_tagged(L, tagged) < 0 || compile_absent(L, absent) < 0 ||
        find_unknown_slot(L) < 0 || PyDict_SetItem(compiled_cache, program, (PyObject *)L) < 0) {
        Py_DECREF(L);
        return NULL;
    }
    return L;
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

/* Made ready once, by the module's start-up. */
int
codec_layout_ready(void)
{
    compiled_cache = PyDict_New();
    return compiled_cache == NULL ? -1 : PyType_Ready(&LayoutType);
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

PyTypeObject LayoutType = {
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
