/* JSON text in C: what ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` writes,
 * for the values Kafka's JSON form holds (None, bools, ints, floats, strings, lists, tuples and
 * dicts with string keys). Anything else declines, and the Python writer runs instead. */
#include "_codec.h"

#include <math.h>

PyObject *py_dumps = NULL; /* the Python JSON text writer (setup_json) */

typedef struct {
    char *p;
    Py_ssize_t len, cap;
    char local[2048];
} Text;

static int
reserve(Text *t, Py_ssize_t more)
{
    if (t->len + more <= t->cap)
        return 0;
    if (more > PY_SSIZE_T_MAX / 2 - t->len) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t cap = (t->len + more) * 2;
    char *p = t->p == t->local ? PyMem_Malloc(cap) : PyMem_Realloc(t->p, cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (t->p == t->local)
        memcpy(p, t->local, t->len);
    t->p = p;
    t->cap = cap;
    return 0;
}

static int
append(Text *t, const char *s, Py_ssize_t n)
{
    if (reserve(t, n) < 0)
        return -1;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    return 0;
}

/* A JSON string: UTF-8 as it is, with '"', '\\' and the control characters escaped as json
 * does (ensure_ascii=False). */
static int
text_string(Text *t, PyObject *s)
{
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n); /* fails on lone surrogates: declined */
    if (u == NULL || reserve(t, n * 6 + 2) < 0)
        return -1;
    char *o = t->p + t->len;
    *o++ = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)u[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            *o++ = (char)c;
            continue;
        }
        *o++ = '\\';
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\b': *o++ = 'b'; break;
        case '\f': *o++ = 'f'; break;
        case '\n': *o++ = 'n'; break;
        case '\r': *o++ = 'r'; break;
        case '\t': *o++ = 't'; break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = "0123456789abcdef"[c >> 4];
            *o++ = "0123456789abcdef"[c & 15];
        }
    }
    *o++ = '"';
    t->len = o - t->p;
    return 0;
}

static int
text_repr(Text *t, PyObject *v)
{
    PyObject *r = PyObject_Repr(v);
    if (r == NULL)
        return -1;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(r, &n);
    int rc = s == NULL ? -1 : append(t, s, n);
    Py_DECREF(r);
    return rc;
}
/* An int: digits written backwards (snprintf's format parsing cost a twentieth of the pipeline). */
static int
text_int(Text *t, PyObject *v)
{
    long long x;
    if (!small_int(v, &x)) {
        int overflow;
        x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow)
            return text_repr(t, v);
        if (x == -1 && PyErr_Occurred())
            return -1;
    }
    char digits[24], *end = digits + sizeof digits, *p = end;
    unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (x < 0)
        *--p = '-';
    return append(t, p, end - p);
}

/* A float as repr() writes it; NaN and the infinities as json writes them. */
static int
text_float(Text *t, PyObject *v)
{
    double x = PyFloat_AS_DOUBLE(v);
    if (isnan(x))
        return append(t, "NaN", 3);
    if (isinf(x))
        return x > 0 ? append(t, "Infinity", 8) : append(t, "-Infinity", 9);
    char *s = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (s == NULL)
        return -1;
    int rc = append(t, s, (Py_ssize_t)strlen(s));
    PyMem_Free(s);
    return rc;
}

static int text_value(Text *t, PyObject *v, int depth);

/* A list or tuple. */
static int
text_array(Text *t, PyObject *v, int depth)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
    if (append(t, "[", 1) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* a list can change under us only through Python code, which nothing here runs */
        if ((i > 0 && append(t, ",", 1) < 0) || text_value(t, PySequence_Fast_GET_ITEM(v, i), depth + 1) < 0)
            return -1;
    }
    return append(t, "]", 1);
}

/* A dict with string keys. */
static int
text_object(Text *t, PyObject *v, int depth)
{
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    if (append(t, "{", 1) < 0)
        return -1;
    while (PyDict_Next(v, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            PyErr_SetString(PyExc_TypeError, "a key that is not a str");
            return -1;
        }
        if ((i++ > 0 && append(t, ",", 1) < 0) || text_string(t, key) < 0 || append(t, ":", 1) < 0 ||
            text_value(t, value, depth + 1) < 0)
            return -1;
    }
    return append(t, "}", 1);
}

static int
text_value(Text *t, PyObject *v, int depth)
{
    if (depth > JSON_MAX_DEPTH * 4) {
        PyErr_SetString(PyExc_ValueError, "nested too deeply");
        return -1;
    }
    if (v == Py_None)
        return append(t, "null", 4);
    if (v == Py_True)
        return append(t, "true", 4);
    if (v == Py_False)
        return append(t, "false", 5);
    if (PyUnicode_CheckExact(v))
        return text_string(t, v);
    if (PyLong_CheckExact(v))
        return text_int(t, v);
    if (PyFloat_CheckExact(v))
        return text_float(t, v);
    if (PyList_CheckExact(v) || PyTuple_CheckExact(v))
        return text_array(t, v, depth);
    if (PyDict_CheckExact(v))
        return text_object(t, v, depth);
    PyErr_SetString(PyExc_TypeError, "a value json_text leaves to Python");
    return -1;
}

/* json_text(value): the JSON text json.dumps(value, ensure_ascii=False, separators=(",", ":"))
 * writes; the Python writer where the compiled one declines. */
static PyObject *
compiled_text(PyObject *value)
{
    Text t;
    t.p = t.local;
    t.len = 0;
    t.cap = sizeof t.local;
    PyObject *s = NULL;
    if (text_value(&t, value, 0) == 0)
        s = PyUnicode_DecodeUTF8(t.p, t.len, NULL);
    if (t.p != t.local)
        PyMem_Free(t.p);
    return s;
}

/* json_text_alone(value): the compiled JSON text, or None where it declines (for the tests). */
PyObject *
codec_json_text_alone(PyObject *module, PyObject *value)
{
    PyObject *s = compiled_text(value);
    if (s == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return s;
}

PyObject *
codec_json_text(PyObject *module, PyObject *value)
{
    PyObject *s = compiled_text(value);
    if (s != NULL)
        return s;
    PyErr_Clear();
    if (py_dumps == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_json() was not called");
        return NULL;
    }
    return PyObject_CallOneArg(py_dumps, value);
}

PyObject *
value_json_text(PyObject *value)
{
    return compiled_text(value);
}
