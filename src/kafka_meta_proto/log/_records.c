/* The compiled twin of log/records.py's record reader: the records of an uncompressed records
 * section as Record objects, read in one call. kafka_meta_proto.log._records, an extension of
 * its own; records.py uses it where it is built (and the pure Python switch is off).
 *
 * parse_records(data, pos, n): the next n records of an uncompressed records section as Record
 * objects, and the position after them; None where anything is not as it should be, and the
 * Python reader (iter_records) reads from there on and raises its LogFormatError.
 *
 * first_bad_record(data, pos, count): the twin of log/record_walk.py's Python walk, which checks
 * records in place (any buffer) without making them. */
#include "_records.h"

static PyTypeObject *RecordType = NULL;
static Py_ssize_t record_offsets[6]; /* attributes, timestamp_delta, offset_delta, key, value, headers */

/* key or value: -1 is null; anything else must fit before the record's end */
static PyObject *
record_bytes(const Input *in, Py_ssize_t *pos, Py_ssize_t end)
{
    int64_t size;
    if (READ_VARINT(in, pos, &size) < 0)
        return NULL;
    if (size < 0)
        return size == -1 ? Py_NewRef(Py_None) : NULL;
    if (size > end - *pos)
        return NULL;
    PyObject *b = PyBytes_FromStringAndSize((const char *)in->buf + *pos, (Py_ssize_t)size);
    *pos += (Py_ssize_t)size;
    return b;
}

static PyObject *
record_headers(const Input *in, Py_ssize_t *pos, Py_ssize_t end)
{
    if (*pos >= in->len)
        return NULL;
    if (in->buf[*pos] == 0) {
        (*pos)++;
        return PyList_New(0);
    }
    int64_t count;
    if (READ_VARINT(in, pos, &count) < 0 || count < 0)
        return NULL;
    Py_ssize_t left = end - *pos;
    Py_ssize_t half = left >= 0 ? left / 2 : -((-left + 1) / 2); /* Python's floor division */
    if (count > half)
        return NULL;
    PyObject *headers = PyList_New((Py_ssize_t)count);
    if (headers == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < (Py_ssize_t)count; i++) {
        int64_t size;
        if (READ_VARINT(in, pos, &size) < 0 || size < 0 || size > end - *pos)
            goto fail;
        PyObject *name = PyUnicode_DecodeUTF8((const char *)in->buf + *pos, (Py_ssize_t)size, "surrogateescape");
        if (name == NULL)
            goto fail;
        *pos += (Py_ssize_t)size;
        PyObject *value = record_bytes(in, pos, end);
        if (value == NULL) {
            Py_DECREF(name);
            goto fail;
        }
        PyObject *pair = PyTuple_New(2);
        if (pair == NULL) {
            Py_DECREF(name);
            Py_DECREF(value);
            goto fail;
        }
        PyTuple_SET_ITEM(pair, 0, name);
        PyTuple_SET_ITEM(pair, 1, value);
        PyList_SET_ITEM(headers, i, pair);
    }
    return headers;
fail:
    Py_DECREF(headers);
    return NULL;
}

static PyObject *
read_record(const Input *in, Py_ssize_t *pos)
{
    int64_t length, timestamp_delta, offset_delta;
    if (READ_VARINT(in, pos, &length) < 0 || length < RECORD_MIN_BODY || length > in->len - *pos)
        return NULL;
    Py_ssize_t end = *pos + (Py_ssize_t)length;
    int attributes = (int8_t)in->buf[(*pos)++];
    if (read_zigzag(in, pos, 10, 0xFFFFFFFFFFFFFFFFULL, &timestamp_delta) < 0 ||
        READ_VARINT(in, pos, &offset_delta) < 0)
        return NULL;
    PyObject *r = RecordType->tp_alloc(RecordType, 0);
    if (r == NULL)
        return NULL;
    PyObject *values[6] = {PyLong_FromLong(attributes), PyLong_FromLongLong(timestamp_delta),
                           PyLong_FromLongLong(offset_delta), NULL, NULL, NULL};
    for (int i = 0; i < 6; i++)
        SLOT(r, record_offsets[i]) = values[i];
    if (values[0] == NULL || values[1] == NULL || values[2] == NULL ||
        (SLOT(r, record_offsets[3]) = record_bytes(in, pos, end)) == NULL ||
        (SLOT(r, record_offsets[4]) = record_bytes(in, pos, end)) == NULL ||
        (SLOT(r, record_offsets[5]) = record_headers(in, pos, end)) == NULL || *pos != end) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

static PyObject *
records_parse_records(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (RecordType == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "setup_records(Record) was not called");
        return NULL;
    }
    if (nargs != 3 || !PyBytes_CheckExact(args[0]))
        Py_RETURN_NONE;
    Input in = {(const unsigned char *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), args[0], NULL};
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]), n = PyLong_AsSsize_t(args[2]);
    if (PyErr_Occurred() || pos < 0 || pos > in.len || n < 0 || n > in.len - pos) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *records = PyList_New(n);
    if (records == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *r = read_record(&in, &pos);
        if (r == NULL) {
            Py_DECREF(records);
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        PyList_SET_ITEM(records, i, r);
    }
    return Py_BuildValue("(Nn)", records, pos);
}

static PyObject *
records_setup_records(PyObject *module, PyObject *record)
{
    static const char *names[6] = {"attributes", "timestamp_delta", "offset_delta", "key", "value", "headers"};
    if (!PyType_Check(record)) {
        PyErr_SetString(PyExc_TypeError, "setup_records(Record) takes the Record class");
        return NULL;
    }
    Py_ssize_t offsets[6];
    for (int i = 0; i < 6; i++) {
        PyObject *name = PyUnicode_FromString(names[i]);
        if (name == NULL)
            return NULL;
        offsets[i] = slot_offset((PyTypeObject *)record, name);
        Py_DECREF(name);
        if (offsets[i] < 0)
            return NULL;
    }
    memcpy(record_offsets, offsets, sizeof(offsets));
    Py_XSETREF(RecordType, (PyTypeObject *)Py_NewRef(record));
    Py_RETURN_NONE;
}

/* The records from pos checked as scan_record reads them, offset delta i at index i: -1 when all
 * count are sound and end the data, else the first record that is not (count: bytes follow). */
static Py_ssize_t
walk_records(const Input *in, Py_ssize_t pos, Py_ssize_t count)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        int64_t timestamp_delta, offset_delta;
        Py_ssize_t value_start, value_size;
        if (scan_record(in, &pos, &timestamp_delta, &offset_delta, &value_start, &value_size) < 0 ||
            offset_delta != i)
            return i;
    }
    return pos == in->len ? -1 : count;
}

static PyObject *
records_first_bad_record(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "first_bad_record(data, pos, count) takes three arguments");
        return NULL;
    }
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]), count = PyLong_AsSsize_t(args[2]);
    if ((pos == -1 || count == -1) && PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t bad;
    if (pos < 0 || pos > view.len) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "position %zd is outside the %zd bytes", pos, view.len);
    }
    if (count < 0) {
        bad = 0;
    } else {
        Input in = {(const unsigned char *)view.buf, view.len, args[0], NULL};
        bad = walk_records(&in, pos, count);
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(bad);
}

static PyMethodDef records_methods[] = {
    {"setup_records", records_setup_records, METH_O, "setup_records(Record): the class parse_records makes."},
    {"parse_records", (PyCFunction)(void (*)(void))records_parse_records, METH_FASTCALL,
     "parse_records(data, pos, n) -> ([Record] * n, next position), or None where anything is amiss."},
    {"first_bad_record", (PyCFunction)(void (*)(void))records_first_bad_record, METH_FASTCALL,
     "first_bad_record(data, pos, count) -> -1 when the records are sound, else the first that is not."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef records_module = {
    PyModuleDef_HEAD_INIT, "kafka_meta_proto.log._records",
    "The compiled record reader of log/records.py.", -1, records_methods,
};

PyMODINIT_FUNC
PyInit__records(void)
{
    return PyModule_Create(&records_module);
}
