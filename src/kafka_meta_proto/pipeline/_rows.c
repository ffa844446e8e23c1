/* The compiled twin of the pipeline's row making (pipeline/rows.py, record_decoder.py, typed.py,
 * arrays.py): a metadata log's plain batches and records straight into the row buffers' columns,
 * the JSON forms as columns, Python lists as Arrow buffers. kafka_meta_proto.pipeline._rows, an
 * extension of its own: it reads records with log/_records.h and decodes values with the
 * compiled codec's functions (its capsule, _codec_api.h), so it loads only where that does.
 *
 * As everywhere in the compiled code, a function either gives the result or declines, and the
 * Python code it stands in for runs instead. */
#include "../_codec_api.h"
#include "../log/_records.h"
#include "_arrow.h"

static const CodecApi *codec = NULL; /* set when the module is imported */

/* -- A record's row ------------------------------------------------------------------------------ */

/* The pipeline's row of a KRaft metadata record value, (record type, version, type name, JSON
 * text, JSON form), the class and name of each record type taken from the dicts; NULL (an error
 * set or not) for anything read_record_value or the JSON writers decline. */
static PyObject *
record_row_of(PyObject *value, PyObject *classes, PyObject *names)
{
    if (!PyDict_CheckExact(names))
        return NULL;
    PyObject *args[2] = {value, classes};
    PyObject *read = codec->read_record_value(NULL, args, 2);
    if (read == NULL)
        return NULL;
    if (read == Py_None) {
        Py_DECREF(read);
        return NULL;
    }
    PyObject *type = PyTuple_GET_ITEM(read, 0), *version = PyTuple_GET_ITEM(read, 1);
    PyObject *name = PyDict_GetItemWithError(names, type);
    PyObject *form = name == NULL ? NULL : codec->json_form(PyTuple_GET_ITEM(read, 2), version);
    PyObject *text = form == NULL ? NULL : codec->json_text(form);
    PyObject *row = text == NULL ? NULL : PyTuple_Pack(5, type, version, name, text, form);
    Py_DECREF(read);
    Py_XDECREF(form);
    Py_XDECREF(text);
    return row;
}

/* record_row(value, classes, names): record_row_of, None where it declines. */
static PyObject *
rows_record_row(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "record_row(value, classes, names)");
        return NULL;
    }
    PyObject *row = record_row_of(args[0], args[1], args[2]);
    if (row == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return row;
}

/* -- Columns of the JSON forms -------------------------------------------------------------- */

/* dict_columns(dicts, keys): the JSON forms' values column by column, [[d.get(key) for d in
 * dicts] for key in keys], for the typed tables (pipeline/typed.py). */
static PyObject *
rows_dict_columns(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "dict_columns(list of dicts, tuple of keys)");
        return NULL;
    }
    PyObject *dicts = args[0], *keys = args[1];
    Py_ssize_t rows = PyList_GET_SIZE(dicts), width = PyTuple_GET_SIZE(keys);
    for (Py_ssize_t r = 0; r < rows; r++)
        if (!PyDict_CheckExact(PyList_GET_ITEM(dicts, r))) {
            PyErr_SetString(PyExc_TypeError, "dict_columns: a row is not a dict");
            return NULL;
        }
    PyObject *out = PyList_New(width);
    for (Py_ssize_t k = 0; out != NULL && k < width; k++) {
        PyObject *key = PyTuple_GET_ITEM(keys, k), *column = PyList_New(rows);
        if (column == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, k, column);
        for (Py_ssize_t r = 0; r < rows; r++) {
            PyObject *v = PyDict_GetItemWithError(PyList_GET_ITEM(dicts, r), key);
            if (v == NULL && PyErr_Occurred()) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(column, r, Py_NewRef(v != NULL ? v : Py_None));
        }
    }
    return out;
}

/* -- A metadata batch's rows (pipeline/rows.py) ------------------------------------------------ */

static int
append_new(PyObject *list, PyObject *item)
{
    if (item == NULL)
        return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

/* What a RecordDecoder hands the row makers: its cache of rows by value (emptied at `cache_limit`
 * rows, holding values at most `cache_value_bytes` long), its classes and type names by record
 * type, and `learn`, the Python decoder for the values record_row_of declines. */
typedef struct {
    PyObject *cache, *classes, *names, *learn;
    Py_ssize_t cache_limit, cache_value_bytes;
} RowDecoder;

static int
row_decoder(PyObject *const *args, RowDecoder *d)
{
    if (!PyDict_CheckExact(args[0]))
        return -1;
    d->cache = args[0];
    d->cache_limit = PyLong_AsSsize_t(args[1]);
    d->cache_value_bytes = PyLong_AsSsize_t(args[2]);
    d->classes = args[3];
    d->names = args[4];
    d->learn = args[5];
    return PyErr_Occurred() ? -1 : 0;
}

/* The rows of up to `count` records of an uncompressed metadata batch from `pos`, appended to
 * the seven lists of `columns` (offsets, timestamps, types, type names, versions, payloads,
 * JSON forms), as rows.py's loop makes them: each value's row from the cache or from
 * record_row_of, then remembered; a value record_row_of declines goes to `learn`, which
 * remembers it. Stops after `count` records, once the payloads reach `budget` characters, or
 * before a record that does not parse, has a null value or that `learn` refuses, which the
 * Python loop then reads from where it stopped. Sets *read, *pos, *size (payload characters)
 * and *in_order (offset deltas 0, 1, 2...); -1 with an exception on a failure that leaves the
 * lists out of step. */
static int
append_record_rows(const RowDecoder *d, const Input *in, Py_ssize_t *pos, Py_ssize_t count, long long base_offset,
                   long long timestamp_base, int fixed_time, Py_ssize_t budget, PyObject *const *columns,
                   Py_ssize_t *read_out, Py_ssize_t *size_out, int *in_order)
{
    Py_ssize_t read = 0, size = 0;
    *in_order = 1;
    while (read < count && size < budget) {
        Py_ssize_t p = *pos, value_start, value_size;
        int64_t timestamp_delta, offset_delta;
        long long offset, timestamp;
        if (scan_record(in, &p, &timestamp_delta, &offset_delta, &value_start, &value_size) < 0 || value_size < 0 ||
            __builtin_add_overflow(base_offset, (long long)offset_delta, &offset) ||
            (fixed_time ? (timestamp = timestamp_base, 0)
                        : __builtin_add_overflow(timestamp_base, (long long)timestamp_delta, &timestamp)))
            break;
        PyObject *value = PyBytes_FromStringAndSize((const char *)in->buf + value_start, value_size);
        if (value == NULL)
            return -1;
        PyObject *row = PyDict_GetItemWithError(d->cache, value);
        if (row != NULL) {
            Py_INCREF(row);
        } else if (PyErr_Occurred()) {
            Py_DECREF(value);
            return -1;
        } else if ((row = record_row_of(value, d->classes, d->names)) == NULL) {
            /* the Python decoder's, remembered by it; a value it refuses is left to the loop */
            if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_MemoryError)) {
                Py_DECREF(value);
                return -1;
            }
            PyErr_Clear();
            row = PyObject_CallOneArg(d->learn, value);
            Py_DECREF(value);
            if (row == NULL) {
                PyErr_Clear();
                break;
            }
            value = NULL;
        } else if (value_size <= d->cache_value_bytes) {
            if (PyDict_GET_SIZE(d->cache) >= d->cache_limit)
                PyDict_Clear(d->cache);
            if (PyDict_SetItem(d->cache, value, row) < 0) {
                Py_DECREF(value);
                Py_DECREF(row);
                return -1;
            }
        }
        Py_XDECREF(value);
        if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != 5 || !PyUnicode_Check(PyTuple_GET_ITEM(row, 3))) {
            Py_DECREF(row);
            PyErr_SetString(PyExc_TypeError, "batch_rows: a cached row is not a row");
            return -1;
        }
        PyObject *const *r = &PyTuple_GET_ITEM(row, 0); /* type, version, name, text, form */
        int failed = append_new(columns[0], PyLong_FromLongLong(offset)) < 0 ||
                     append_new(columns[1], PyLong_FromLongLong(timestamp)) < 0 || PyList_Append(columns[2], r[0]) < 0 ||
                     PyList_Append(columns[3], r[2]) < 0 || PyList_Append(columns[4], r[1]) < 0 ||
                     PyList_Append(columns[5], r[3]) < 0 || PyList_Append(columns[6], r[4]) < 0;
        size += PyUnicode_GET_LENGTH(r[3]);
        Py_DECREF(row);
        if (failed) /* the lists stay in step only if all went in: give up on the whole job */
            return -1;
        if (offset_delta != read)
            *in_order = 0;
        read++;
        *pos = p;
    }
    *read_out = read;
    *size_out = size;
    return 0;
}

static int
all_lists(PyObject *tuple, Py_ssize_t n)
{
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != n)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyList_CheckExact(PyTuple_GET_ITEM(tuple, i)))
            return 0;
    return 1;
}

/* batch_rows(cache, cache_limit, cache_value_bytes, classes, names, learn,
 *            data, pos, count, base_offset, timestamp_base, fixed_time, budget, columns)
 * (the decoder's part first, for a functools.partial to hold)
 * append_record_rows over `data` (bytes, a batch) from `pos`.
 * Returns (records read, position, payload characters, offsets in order). */
static PyObject *
rows_batch_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    RowDecoder d;
    if (nargs != 14 || !PyBytes_CheckExact(args[6]) || !all_lists(args[13], 7) || row_decoder(args, &d) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "batch_rows: bad arguments");
        return NULL;
    }
    Input in = {(const unsigned char *)PyBytes_AS_STRING(args[6]), PyBytes_GET_SIZE(args[6]), args[6], NULL};
    Py_ssize_t pos = PyLong_AsSsize_t(args[7]), count = PyLong_AsSsize_t(args[8]);
    long long base_offset = PyLong_AsLongLong(args[9]), timestamp_base = PyLong_AsLongLong(args[10]);
    int fixed_time = PyObject_IsTrue(args[11]);
    Py_ssize_t budget = PyLong_AsSsize_t(args[12]);
    if (PyErr_Occurred())
        return NULL;
    if (pos < 0 || pos > in.len) {
        PyErr_SetString(PyExc_ValueError, "batch_rows: position out of the data");
        return NULL;
    }
    Py_ssize_t read, size;
    int in_order;
    if (append_record_rows(&d, &in, &pos, count, base_offset, timestamp_base, fixed_time, budget,
                           &PyTuple_GET_ITEM(args[13], 0), &read, &size, &in_order) < 0)
        return NULL;
    return Py_BuildValue("(nnnO)", read, pos, size, in_order ? Py_True : Py_False);
}

/* -- The walk over a log's plain batches (pipeline/rows.py) ------------------------------------ */

/* record batch v2's header (log/header.py): field offsets, sizes */
#define BATCH_LENGTH_AT 8
#define BATCH_LEADER_EPOCH_AT 12
#define BATCH_MAGIC_AT 16
#define BATCH_CRC_AT 17
#define BATCH_CRC_START 21 /* attributes: the first byte the CRC covers */
#define BATCH_LAST_OFFSET_DELTA_AT 23
#define BATCH_BASE_TIMESTAMP_AT 27
#define BATCH_MAX_TIMESTAMP_AT 35
#define BATCH_COUNT_AT 57
#define BATCH_HEADER_SIZE 61
#define BATCH_LOG_OVERHEAD 12
#define BATCH_MIN_LENGTH (BATCH_HEADER_SIZE - BATCH_LOG_OVERHEAD)
#define BATCH_MIN_RECORD_SIZE 7
#define BATCH_NOT_PLAIN 0x27 /* compression, control */
#define RECORD_COLUMN_COUNT 10 /* RECORD_COLUMNS (9) and the JSON forms */
#define BATCH_COLUMN_COUNT 11

static int
truncate_lists(PyObject *const *lists, Py_ssize_t n, const Py_ssize_t *marks)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyList_SetSlice(lists[i], marks[i], PY_SSIZE_T_MAX, NULL) < 0)
            return -1;
    return 0;
}

static int
append_repeated(PyObject *list, PyObject *item, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyList_Append(list, item) < 0)
            return -1;
    return 0;
}

/* walk_batches(cache, cache_limit, cache_value_bytes, classes, names, learn,
 *              buffer, pos, end, crc32c, batch_rows, row_bytes, size, records, batches, issues)
 * The rows of the sound plain batches (uncompressed, not control, CRC matching) that start at
 * `pos` and follow it in `buffer` (a whole log file), before `end`: what scan() then
 * UnitRows.add_batch would make of them, appended to `records` (the RECORD buffer's nine lists
 * and the JSON forms) and `batches` (the BATCH buffer's eleven lists). It stops at the first
 * batch that is anything else, or that would not fit the buffers whole (`batch_rows` rows,
 * `row_bytes` payload characters, `size` of them waiting), leaving it to the Python walk, and
 * after a batch that fills a buffer. `issues` (the ISSUE buffer's first list) only counts: a
 * full one stops the walk too. Returns (position, payload characters waiting). */
static PyObject *
rows_walk_batches(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    RowDecoder d;
    if (nargs != 16 || !all_lists(args[13], RECORD_COLUMN_COUNT) || !all_lists(args[14], BATCH_COLUMN_COUNT) ||
        !PyList_CheckExact(args[15]) || row_decoder(args, &d) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "walk_batches: bad arguments");
        return NULL;
    }
    PyObject *crc32c = args[9], *const *records = &PyTuple_GET_ITEM(args[13], 0),
             *const *batches = &PyTuple_GET_ITEM(args[14], 0), *issues = args[15];
    PyObject *const rows7[7] = {records[2], records[3], records[4], records[6], records[7], records[8], records[9]};
    Py_ssize_t pos = PyLong_AsSsize_t(args[7]), end = PyLong_AsSsize_t(args[8]), batch_rows = PyLong_AsSsize_t(args[10]),
               row_bytes = PyLong_AsSsize_t(args[11]), size = PyLong_AsSsize_t(args[12]);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[6], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *file = view.buf;
    Py_ssize_t file_size = view.len;
    if (end > file_size)
        end = file_size;
    PyObject *result = NULL;
    while (pos >= 0 && pos < end && file_size - pos >= BATCH_HEADER_SIZE) {
        if (PyList_GET_SIZE(records[0]) >= batch_rows || size >= row_bytes ||
            PyList_GET_SIZE(batches[0]) >= batch_rows || PyList_GET_SIZE(issues) >= batch_rows)
            break; /* a full buffer: the Python walk hands it on */
        const unsigned char *h = file + pos;
        long long length = load_signed(h + BATCH_LENGTH_AT, 4), count = load_signed(h + BATCH_COUNT_AT, 4);
        int attributes = (int)load_signed(h + BATCH_CRC_START, 2);
        Py_ssize_t batch_size = BATCH_LOG_OVERHEAD + (Py_ssize_t)length;
        if (h[BATCH_MAGIC_AT] != 2 || length < BATCH_MIN_LENGTH || batch_size > file_size - pos || (attributes & BATCH_NOT_PLAIN) ||
            count < 0 || count > (batch_size - BATCH_HEADER_SIZE) / BATCH_MIN_RECORD_SIZE ||
            PyList_GET_SIZE(records[0]) + count > batch_rows)
            break;
        PyObject *window = PyMemoryView_FromMemory((char *)h + BATCH_CRC_START, batch_size - BATCH_CRC_START, PyBUF_READ);
        if (window == NULL)
            goto done;
        PyObject *crc = PyObject_CallOneArg(crc32c, window);
        Py_DECREF(window);
        if (crc == NULL)
            goto done;
        unsigned long long computed = PyLong_AsUnsignedLongLong(crc);
        Py_DECREF(crc);
        if (computed == (unsigned long long)-1 && PyErr_Occurred())
            goto done;
        if (computed != load_unsigned(h + BATCH_CRC_AT, 4))
            break; /* the Python walk reports it */
        long long base_offset = load_signed(h, 8), max_timestamp = load_signed(h + BATCH_MAX_TIMESTAMP_AT, 8);
        int fixed_time = (attributes & 0x08) != 0;
        Py_ssize_t marks[RECORD_COLUMN_COUNT], read, payload, p = BATCH_HEADER_SIZE;
        int in_order;
        for (int i = 0; i < RECORD_COLUMN_COUNT; i++)
            marks[i] = PyList_GET_SIZE(records[i]);
        Input in = {h, batch_size, NULL, NULL};
        if (append_record_rows(&d, &in, &p, (Py_ssize_t)count, base_offset,
                               fixed_time ? max_timestamp : load_signed(h + BATCH_BASE_TIMESTAMP_AT, 8), fixed_time, row_bytes - size, rows7,
                               &read, &payload, &in_order) < 0)
            goto done;
        if (read != count || p != batch_size) { /* the Python walk reads it, rows and issues alike */
            if (truncate_lists(records, RECORD_COLUMN_COUNT, marks) < 0)
                goto done;
            break;
        }
        long long last_offset_delta = load_signed(h + BATCH_LAST_OFFSET_DELTA_AT, 4);
        int offsets_ok = in_order && (last_offset_delta == count - 1 || (count == 0 && last_offset_delta == 0));
        PyObject *values[BATCH_COLUMN_COUNT] = {
            PyLong_FromSsize_t(pos), PyLong_FromLongLong(base_offset), PyLong_FromLongLong(max_timestamp),
            PyLong_FromLongLong(load_signed(h + BATCH_LEADER_EPOCH_AT, 4)), PyLong_FromLongLong(last_offset_delta),
            PyLong_FromLongLong(count), PyLong_FromLongLong(length), PyLong_FromLong(attributes),
            Py_NewRef(Py_True), Py_NewRef(offsets_ok ? Py_True : Py_False), Py_NewRef(Py_None)};
        int failed = 0;
        for (int i = 0; i < BATCH_COLUMN_COUNT; i++)
            failed |= values[i] == NULL;
        /* the RECORD columns that are the same for every record of the batch */
        failed = failed || append_repeated(records[0], values[0], read) < 0 ||
                 append_repeated(records[1], values[1], read) < 0 || append_repeated(records[5], Py_None, read) < 0;
        for (int i = 0; i < BATCH_COLUMN_COUNT; i++) {
            failed = failed || PyList_Append(batches[i], values[i]) < 0;
            Py_XDECREF(values[i]);
        }
        if (failed)
            goto done;
        size += payload;
        pos += batch_size;
    }
    result = Py_BuildValue("(nn)", pos, size);
done:
    PyBuffer_Release(&view);
    return result;
}


static PyMethodDef rows_methods[] = {
    {"record_row", (PyCFunction)(void (*)(void))rows_record_row, METH_FASTCALL,
     "record_row(value, classes, names) -> (type, version, name, JSON text, JSON form), or None."},
    {"batch_rows", (PyCFunction)(void (*)(void))rows_batch_rows, METH_FASTCALL,
     "batch_rows(decoder's cache..., data, pos, count, ...) -> (records read, position, payload characters, offsets in order)."},
    {"walk_batches", (PyCFunction)(void (*)(void))rows_walk_batches, METH_FASTCALL,
     "walk_batches(decoder's cache..., buffer, pos, end, crc32c, ...) -> (position, payload characters waiting)."},
    {"dict_columns", (PyCFunction)(void (*)(void))rows_dict_columns, METH_FASTCALL,
     "dict_columns(dicts, keys) -> [[d.get(key) for d in dicts] for key in keys]."},
    {"arrow_buffers", (PyCFunction)(void (*)(void))arrow_buffers, METH_FASTCALL,
     "arrow_buffers(values, kind) -> the buffers of an Arrow array of the list, or None where it declines."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef rows_module = {
    PyModuleDef_HEAD_INIT, "kafka_meta_proto.pipeline._rows",
    "The compiled row making of the pipeline.", -1, rows_methods,
};

PyMODINIT_FUNC
PyInit__rows(void)
{
    codec = codec_api_import();
    if (codec == NULL)
        return NULL;
    return PyModule_Create(&rows_module);
}
