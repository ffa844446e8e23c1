/* Decoding whole messages: the Decoder (a message class's decode) and read_record_value (a KRaft
 * record value), each reading its message's struct by the version's Layout (_codec_read.c). */
#include "_codec.h"

#include <stddef.h> /* offsetof */

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

PyTypeObject DecoderType = {
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
