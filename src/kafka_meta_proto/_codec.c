/* The compiled codec's module, kafka_meta_proto._codec: its set-up from Python (codec.py), its
 * counters, Message's compiled encode and size, and the capsule other extensions take its
 * functions from. The codec's jobs live in files of their own (_codec.h lists them). */
#include "_codec.h"

/* Module state kept in statics: one interpreter, set up once from Python (codec.py). */
PyTypeObject *UuidType = NULL;
Py_ssize_t uuid_bytes_offset = -1;
PyObject *empty_tuple = NULL;
PyObject *py_decode = NULL; /* Message.decode's function (cls, data, version) */
unsigned long long fallback_successes = 0;
unsigned long long encode_fallback_successes = 0;

/* -- Message methods ------------------------------------------------------------------------- */
/* decode, encode and size of Message: the compiled layouts when the class has them, else (or when
 * they decline) the Python methods they replace. */

static PyObject *py_encode = NULL;
static PyObject *py_size = NULL;
static PyObject *layouts_name = NULL; /* "_LAYOUTS": {version: Layout} */

LayoutObject *
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

PyObject *
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
        if (L != NULL && measure_object(L, self, &size) == 0)
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
    if (codec_layout_ready() < 0 || PyType_Ready(&DecoderType) < 0 || codec_json_ready() < 0)
        return NULL;
    empty_tuple = PyTuple_New(0);
    layouts_name = PyUnicode_InternFromString("_LAYOUTS");
    if (empty_tuple == NULL || layouts_name == NULL)
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
