/* Kafka's JSON form of a message, in C: what the generated ``_to_json_*`` functions build. The
 * pipeline's decode stage makes it for every record, then its JSON text (_codec_json_text.c).
 *
 * A plan is one struct at one version: its fields in declaration order (the order of the
 * JSON keys), each with its JSON name, its slot, how its value converts and whether it is
 * written only when it differs from its default (a tagged field at that version). json_plan.py
 * builds the plans from the classes' field tables; they are compiled here once per class and
 * version, and kept.
 *
 * As in the wire codec, the C code only says "this is the result" or declines: on anything
 * unusual (a value of an unexpected type, a non-string key...) the Python function it replaces
 * runs instead, and gives the result or raises the error.
 */
#include "_codec.h"

#include <stdint.h>
#include <string.h>

/* -- Plans ------------------------------------------------------------------------------------ */

typedef struct PlanObject PlanObject;

typedef struct {
    PyObject *key;       /* the JSON name */
    Py_ssize_t offset;   /* the attribute's slot */
    char kind;           /* 'v' the value itself, 'u' a uuid's text, 'y' base64, 'S' a struct, '[' an array */
    char elem;           /* arrays: the element's kind */
    char when_differs;   /* written only when the value differs from dflt */
    PyObject *dflt;      /* borrowed from the plan's program */
    PlanObject *child;   /* structs and arrays of structs (borrowed from children) */
} JField;

struct PlanObject {
    PyObject_HEAD
    PyTypeObject *cls;
    Py_ssize_t n;
    JField *fields;
    Py_ssize_t unknown_offset; /* unknown_tagged_fields */
    PyObject *program;         /* what it was compiled from: keeps keys and defaults alive */
    PyObject *children;
};

static void
plan_dealloc(PlanObject *P)
{
    PyMem_Free(P->fields);
    Py_XDECREF(P->cls);
    Py_XDECREF(P->program);
    Py_XDECREF(P->children);
    PyObject_Free(P);
}

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kafka_meta_proto._codec.JsonPlan",
    .tp_basicsize = sizeof(PlanObject),
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One struct's JSON form at one version, compiled.",
};

static PyObject *plans = NULL;          /* {class: {version: Plan}} */
static PyObject *plan_builder = NULL;   /* json_plan.program(cls, version) -> program */
static PyObject *unknown_to_json = NULL; /* _json.unknown_to_json */
static PyObject *to_json_name = NULL;   /* "_TO_JSON" */

static PlanObject *compile_plan(PyObject *program, int depth);

/* One field of a plan: (key, attribute, kind, when_differs, default, child program or None). */
static int
compile_plan_field(PlanObject *P, PyObject *s, JField *f, int depth)
{
    Py_ssize_t n;
    const char *kind;
    if (!PyTuple_Check(s) || PyTuple_GET_SIZE(s) != 6 || !PyUnicode_Check(PyTuple_GET_ITEM(s, 0)) ||
        (kind = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(s, 2), &n)) == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "malformed JSON plan field: %R", s);
        return -1;
    }
    if (n < 1 || n > 2 || strchr("vuyS[", kind[0]) == NULL || (kind[0] == '[') != (n == 2) ||
        (n == 2 && strchr("vuyS", kind[1]) == NULL)) {
        PyErr_Format(PyExc_ValueError, "unknown JSON plan kind %R", PyTuple_GET_ITEM(s, 2));
        return -1;
    }
    f->key = PyTuple_GET_ITEM(s, 0);
    f->offset = slot_offset(P->cls, PyTuple_GET_ITEM(s, 1));
    if (f->offset < 0)
        return -1;
    f->kind = kind[0];
    f->elem = n == 2 ? kind[1] : 0;
    f->when_differs = (char)PyObject_IsTrue(PyTuple_GET_ITEM(s, 3));
    f->dflt = PyTuple_GET_ITEM(s, 4);
    if ((f->kind == 'S' || f->elem == 'S') != (PyTuple_GET_ITEM(s, 5) != Py_None)) {
        PyErr_Format(PyExc_ValueError, "a JSON plan names a child for structs alone: %R", s);
        return -1;
    }
    if (PyTuple_GET_ITEM(s, 5) == Py_None)
        return 0;
    PlanObject *child = compile_plan(PyTuple_GET_ITEM(s, 5), depth + 1);
    if (child == NULL)
        return -1;
    int r = PyList_Append(P->children, (PyObject *)child);
    Py_DECREF(child);
    f->child = child;
    return r;
}

/* (cls, (field, ...)) compiled: the fields as compile_plan_field takes them. */
static PlanObject *
compile_plan(PyObject *program, int depth)
{
    if (depth > JSON_MAX_DEPTH || !PyTuple_Check(program) || PyTuple_GET_SIZE(program) != 2 ||
        !PyType_Check(PyTuple_GET_ITEM(program, 0)) || !PyTuple_Check(PyTuple_GET_ITEM(program, 1))) {
        PyErr_Format(PyExc_ValueError, "malformed JSON plan: %R", program);
        return NULL;
    }
    PyObject *fields = PyTuple_GET_ITEM(program, 1);
    PlanObject *P = PyObject_New(PlanObject, &PlanType);
    if (P == NULL)
        return NULL;
    P->cls = (PyTypeObject *)Py_NewRef(PyTuple_GET_ITEM(program, 0));
    P->n = PyTuple_GET_SIZE(fields);
    P->fields = PyMem_Calloc(P->n + 1, sizeof(JField));
    P->program = Py_NewRef(program);
    P->children = PyList_New(0);
    P->unknown_offset = -1;
    if (P->fields == NULL || P->children == NULL) {
        Py_DECREF(P);
        return (PlanObject *)PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < P->n; i++)
        if (compile_plan_field(P, PyTuple_GET_ITEM(fields, i), &P->fields[i], depth) < 0)
            goto fail;
    PyObject *name = PyUnicode_FromString("unknown_tagged_fields");
    if (name == NULL)
        goto fail;
    P->unknown_offset = slot_offset(P->cls, name);
    Py_DECREF(name);
    if (P->unknown_offset < 0)
        goto fail;
    return P;
fail:
    Py_DECREF(P);
    return NULL;
}

/* The plan of cls at version, built and compiled the first time it is asked for. */
static PlanObject *
plan_for(PyTypeObject *cls, PyObject *version)
{
    PyObject *by_version = PyDict_GetItemWithError(plans, (PyObject *)cls);
    if (by_version == NULL) {
        if (PyErr_Occurred() || (by_version = PyDict_New()) == NULL)
            return NULL;
        int r = PyDict_SetItem(plans, (PyObject *)cls, by_version);
        Py_DECREF(by_version); /* plans holds it */
        if (r < 0)
            return NULL;
    }
    PyObject *plan = PyDict_GetItemWithError(by_version, version);
    if (plan != NULL || PyErr_Occurred())
        return (PlanObject *)plan;
    PyObject *program = PyObject_CallFunctionObjArgs(plan_builder, (PyObject *)cls, version, NULL);
    if (program == NULL)
        return NULL;
    plan = (PyObject *)compile_plan(program, 0);
    Py_DECREF(program);
    if (plan == NULL)
        return NULL;
    int r = PyDict_SetItem(by_version, version, plan);
    Py_DECREF(plan); /* by_version holds it */
    return r < 0 ? NULL : (PlanObject *)plan;
}

/* -- The JSON form ---------------------------------------------------------------------------- */

static const char STANDARD64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char URLSAFE64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Base64 of n bytes into out (4 * ceil(n / 3) characters, or without the padding); its length. */
static Py_ssize_t
base64_into(const unsigned char *in, Py_ssize_t n, const char *alphabet, int pad, Py_UCS1 *out)
{
    Py_UCS1 *o = out;
    Py_ssize_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        if (i + 1 < n)
            *o++ = alphabet[(v >> 6) & 63];
        else if (pad)
            *o++ = '=';
        if (pad)
            *o++ = '=';
    }
    return o - out;
}

/* str(uuid) of a Uuid: its 16 bytes in URL-safe base64 without padding (22 characters). */
static PyObject *
uuid_text(PyObject *v)
{
    if (Py_TYPE(v) != UuidType)
        return PyObject_Str(v);
    PyObject *raw = SLOT(v, uuid_bytes_offset);
    if (raw == NULL || !PyBytes_CheckExact(raw) || PyBytes_GET_SIZE(raw) != 16)
        return PyObject_Str(v);
    PyObject *s = PyUnicode_New(22, 127);
    if (s != NULL)
        base64_into((const unsigned char *)PyBytes_AS_STRING(raw), 16, URLSAFE64, 0, PyUnicode_1BYTE_DATA(s));
    return s;
}

/* _json.b64 of bytes-like: standard base64 with padding. */
static PyObject *
base64_text(PyObject *v)
{
    Py_buffer b;
    if (PyObject_GetBuffer(v, &b, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *s = NULL;
    if (b.len <= (PY_SSIZE_T_MAX / 4 - 1) * 3) {
        s = PyUnicode_New((b.len + 2) / 3 * 4, 127);
        if (s != NULL)
            base64_into(b.buf, b.len, STANDARD64, 1, PyUnicode_1BYTE_DATA(s));
    } else {
        PyErr_NoMemory();
    }
    PyBuffer_Release(&b);
    return s;
}

static PyObject *form_struct(PlanObject *P, PyObject *o, int depth);

/* One value (not None) of kind `kind`, as the generated to_json converts it. */
static PyObject *
convert(char kind, PlanObject *child, PyObject *v, int depth)
{
    switch (kind) {
    case 'v':
        return Py_NewRef(v);
    case 'u':
        return uuid_text(v);
    case 'y':
        return base64_text(v);
    default: /* 'S' */
        return form_struct(child, v, depth + 1);
    }
}

static PyObject *
convert_array(const JField *f, PyObject *v, int depth)
{
    if (f->elem == 'v')
        return PySequence_List(v);
    PyObject *seq = PySequence_Fast(v, "an array field holds a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *list = PyList_New(n);
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        PyObject *e = PySequence_Fast_GET_ITEM(seq, i);
        /* no element is null in a valid message: let Python say what to do with one */
        PyObject *item = e == Py_None ? NULL : convert(f->elem, f->child, e, depth);
        if (item == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a null array element");
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    Py_DECREF(seq);
    return list;
}

/* A tagged field is written when its value differs from the default (the generated test). */
static int
differs(PyObject *v, PyObject *dflt)
{
    if (dflt == Py_None)
        return v != Py_None;
    if (PyList_CheckExact(dflt) && PyList_GET_SIZE(dflt) == 0)
        return !PyList_CheckExact(v) || PyList_GET_SIZE(v) != 0;
    return python_ne(v, dflt); /* not RichCompareBool, whose identity shortcut differs on a NaN */
}

/* The JSON value of one field's value v; NULL with an error set to decline. */
static PyObject *
form_field(const JField *f, PyObject *v, int depth)
{
    if (v != Py_None)
        return f->kind == '[' ? convert_array(f, v, depth) : convert(f->kind, f->child, v, depth);
    if (f->kind == 'u') { /* str(None) in Python: not a value a valid message holds */
        PyErr_SetString(PyExc_ValueError, "a null uuid");
        return NULL;
    }
    return Py_NewRef(Py_None);
}

/* The unknown tagged fields of o, where it has any, as "_unknownTaggedFields" of d. */
static int
form_unknown(PlanObject *P, PyObject *o, PyObject *d)
{
    PyObject *unknown = SLOT(o, P->unknown_offset);
    int any = unknown == NULL ? -1 : PyObject_IsTrue(unknown);
    if (any < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_AttributeError, "unknown_tagged_fields is not set");
        return -1;
    }
    if (!any)
        return 0;
    PyObject *item = PyObject_CallOneArg(unknown_to_json, unknown);
    if (item == NULL)
        return -1;
    int r = PyDict_SetItemString(d, "_unknownTaggedFields", item);
    Py_DECREF(item);
    return r;
}

static PyObject *
form_struct(PlanObject *P, PyObject *o, int depth)
{
    if (Py_TYPE(o) != P->cls || depth > JSON_MAX_DEPTH) {
        PyErr_SetString(PyExc_TypeError, "not the plan's class");
        return NULL;
    }
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < P->n; i++) {
        const JField *f = &P->fields[i];
        PyObject *v = SLOT(o, f->offset);
        if (v == NULL) {
            PyErr_SetString(PyExc_AttributeError, "an attribute is not set");
            goto fail;
        }
        if (f->when_differs) {
            int w = differs(v, f->dflt);
            if (w < 0)
                goto fail;
            if (!w)
                continue;
        }
        PyObject *item = form_field(f, v, depth);
        if (item == NULL)
            goto fail;
        int r = PyDict_SetItem(d, f->key, item);
        Py_DECREF(item);
        if (r < 0)
            goto fail;
    }
    if (form_unknown(P, o, d) < 0)
        goto fail;
    return d;
fail:
    Py_DECREF(d);
    return NULL;
}

/* json_form(message, version): Kafka's JSON form as a dict, without checking the values first
 * (Message.to_json checks them); the generated function where the compiled one declines. */
static int
json_args(const char *name, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s(message, version)", name);
        return -1;
    }
    if (plan_builder == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_json() was not called");
        return -1;
    }
    return 0;
}

/* The compiled JSON form, or NULL (an error set) where it declines. */
static PyObject *
compiled_form(PyObject *message, PyObject *version)
{
    if (!PyLong_CheckExact(version)) {
        PyErr_SetString(PyExc_TypeError, "the version is an int");
        return NULL;
    }
    PlanObject *P = plan_for(Py_TYPE(message), version);
    return P == NULL ? NULL : form_struct(P, message, 0);
}

PyObject *
codec_json_form(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (json_args("json_form", nargs) < 0)
        return NULL;
    PyObject *d = compiled_form(args[0], args[1]);
    if (d != NULL)
        return d;
    PyErr_Clear();
    PyObject *fn = PyObject_GetAttr((PyObject *)Py_TYPE(args[0]), to_json_name);
    if (fn == NULL)
        return NULL;
    d = PyObject_CallFunctionObjArgs(fn, args[0], args[1], NULL);
    Py_DECREF(fn);
    return d;
}

/* json_form_alone(message, version): the compiled JSON form, or None where it declines (for the
 * differential tests). */
PyObject *
codec_json_form_alone(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (json_args("json_form_alone", nargs) < 0)
        return NULL;
    PyObject *d = compiled_form(args[0], args[1]);
    if (d == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return d;
}

PyObject *
message_json_form(PyObject *message, PyObject *version)
{
    return plan_builder == NULL ? NULL : compiled_form(message, version);
}

/* setup_json(plan builder, unknown_to_json, dumps): the Python parts the JSON functions use. */
PyObject *
codec_setup_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyCallable_Check(args[0]) || !PyCallable_Check(args[1]) || !PyCallable_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "setup_json(plan builder, unknown_to_json, dumps) takes three callables");
        return NULL;
    }
    Py_XSETREF(plan_builder, Py_NewRef(args[0]));
    Py_XSETREF(unknown_to_json, Py_NewRef(args[1]));
    Py_XSETREF(py_dumps, Py_NewRef(args[2]));
    PyDict_Clear(plans); /* plans built by another builder go */
    Py_RETURN_NONE;
}

int
codec_json_ready(void)
{
    if (PyType_Ready(&PlanType) < 0)
        return -1;
    plans = PyDict_New();
    to_json_name = PyUnicode_InternFromString("_TO_JSON");
    return plans == NULL || to_json_name == NULL ? -1 : 0;
}
