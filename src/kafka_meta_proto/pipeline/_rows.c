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

/* The lists the row makers fill, named: the RECORD rows' columns they make (rows.py's
 * COMPILED_ROW_COLUMNS, in that order) then the JSON forms. */
enum { ROW_OFFSET, ROW_TIMESTAMP, ROW_RECORD_TYPE, ROW_TYPE_NAME, ROW_VERSION, ROW_PAYLOAD, ROW_JSON_FORM, ROW_COLUMN_COUNT };
static const char *const row_column_names[] = {"offset", "timestamp", "record_type", "type_name", "version", "payload", NULL};
/* A row of record_row_of or `learn`: (record type, version, type name, JSON text, JSON form). */
enum { ROW_IS_TYPE, ROW_IS_VERSION, ROW_IS_NAME, ROW_IS_TEXT, ROW_IS_FORM, ROW_SIZE };

/* The row of a record value (bytes): from the cache, else from record_row_of (then cached when
 * small), else from `learn`, which caches it itself. NULL with *refused set where `learn`
 * refuses the value (the Python loop reports it), NULL with an exception on a failure. */
static inline PyObject *
row_of_value(const RowDecoder *d, PyObject *value, Py_ssize_t value_size, int *refused)
{
    PyObject *row = PyDict_GetItemWithError(d->cache, value);
    if (row != NULL)
        return Py_NewRef(row);
    if (PyErr_Occurred())
        return NULL;
    row = record_row_of(value, d->classes, d->names);
    if (row == NULL) {
        if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_MemoryError))
            return NULL;
        PyErr_Clear();
        row = PyObject_CallOneArg(d->learn, value);
        if (row == NULL) {
            PyErr_Clear();
            *refused = 1;
        }
        return row;
    }
    if (value_size <= d->cache_value_bytes) {
        if (PyDict_GET_SIZE(d->cache) >= d->cache_limit)
            PyDict_Clear(d->cache);
        if (PyDict_SetItem(d->cache, value, row) < 0)
            Py_CLEAR(row);
    }
    return row;
}

/* One record's row appended to the row makers' lists; its payload characters added to *size.
 * -1 with an exception: the lists stay in step only if all went in, so the job gives up. */
static inline int
append_row(PyObject *const *columns, long long offset, long long timestamp, PyObject *row, Py_ssize_t *size)
{
    if (!PyTuple_CheckExact(row) || PyTuple_GET_SIZE(row) != ROW_SIZE || !PyUnicode_Check(PyTuple_GET_ITEM(row, ROW_IS_TEXT))) {
        PyErr_SetString(PyExc_TypeError, "batch_rows: a cached row is not a row");
        return -1;
    }
    PyObject *const *r = &PyTuple_GET_ITEM(row, 0);
    *size += PyUnicode_GET_LENGTH(r[ROW_IS_TEXT]);
    return append_new(columns[ROW_OFFSET], PyLong_FromLongLong(offset)) < 0 ||
                   append_new(columns[ROW_TIMESTAMP], PyLong_FromLongLong(timestamp)) < 0 ||
                   PyList_Append(columns[ROW_RECORD_TYPE], r[ROW_IS_TYPE]) < 0 ||
                   PyList_Append(columns[ROW_TYPE_NAME], r[ROW_IS_NAME]) < 0 ||
                   PyList_Append(columns[ROW_VERSION], r[ROW_IS_VERSION]) < 0 ||
                   PyList_Append(columns[ROW_PAYLOAD], r[ROW_IS_TEXT]) < 0 ||
                   PyList_Append(columns[ROW_JSON_FORM], r[ROW_IS_FORM]) < 0
               ? -1
               : 0;
}

/* The rows of up to `count` records of an uncompressed metadata batch from `pos`, appended to
 * the row makers' lists `columns` (ROW_*), as rows.py's loop makes them (row_of_value). Stops
 * after `count` records, once the payloads reach `budget` characters, or before a record that
 * does not parse, has a null value or that `learn` refuses, which the Python loop then reads
 * from where it stopped. Sets *read, *pos, *size (payload characters) and *in_order (offset
 * deltas 0, 1, 2...); -1 with an exception on a failure that leaves the lists out of step. */
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
        int refused = 0;
        PyObject *row = row_of_value(d, value, value_size, &refused);
        Py_DECREF(value);
        if (row == NULL) {
            if (refused)
                break;
            return -1;
        }
        int failed = append_row(columns, offset, timestamp, row, &size);
        Py_DECREF(row);
        if (failed)
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
    if (nargs != 14 || !PyBytes_CheckExact(args[6]) || !all_lists(args[13], ROW_COLUMN_COUNT) || row_decoder(args, &d) < 0) {
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

/* The RECORD buffer's lists (columns.py's RECORD_COLUMNS, then the JSON forms) and the BATCH
 * buffer's (BATCH_COLUMNS), named in their order. */
enum { R_POSITION, R_BATCH_OFFSET, R_OFFSET, R_TIMESTAMP, R_RECORD_TYPE, R_CONTROL_TYPE, R_TYPE_NAME, R_VERSION, R_PAYLOAD,
       R_JSON_FORM, RECORD_COLUMN_COUNT };
static const char *const record_column_names[] = {"position", "batch_offset", "offset", "timestamp", "record_type",
                                                  "control_type", "type_name", "version", "payload", NULL};
enum { B_POSITION, B_BATCH_OFFSET, B_TIMESTAMP, B_LEADER_EPOCH, B_LAST_OFFSET_DELTA, B_RECORDS_COUNT, B_BATCH_LENGTH,
       B_ATTRIBUTES, B_CRC_OK, B_OFFSETS_OK, B_CONTROL_TYPES, BATCH_COLUMN_COUNT };
static const char *const batch_column_names[] = {"position", "batch_offset", "timestamp", "leader_epoch",
                                                 "last_offset_delta", "records_count", "batch_length", "attributes",
                                                 "crc_ok", "offsets_ok", "control_types", NULL};

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

/* A plain batch in the file: where its header is and what the walk reads of it. */
typedef struct {
    const unsigned char *h;
    Py_ssize_t pos, size;
    long long length, count;
    int attributes;
} PlainBatch;

/* 1 where a plain batch whose `count` records fit `room` rows starts at `pos` (magic 2, its
 * length within the file, uncompressed, not control, a plausible count), filling *b; else 0. */
static inline int
plain_batch_at(const unsigned char *file, Py_ssize_t file_size, Py_ssize_t pos, Py_ssize_t room, PlainBatch *b)
{
    const unsigned char *h = file + pos;
    b->h = h;
    b->pos = pos;
    b->length = load_signed(h + BATCH_LENGTH_AT, 4);
    b->count = load_signed(h + BATCH_COUNT_AT, 4);
    b->attributes = (int)load_signed(h + BATCH_CRC_START, 2);
    b->size = BATCH_LOG_OVERHEAD + (Py_ssize_t)b->length;
    return h[BATCH_MAGIC_AT] == 2 && b->length >= BATCH_MIN_LENGTH && b->size <= file_size - pos &&
           !(b->attributes & BATCH_NOT_PLAIN) && b->count >= 0 &&
           b->count <= (b->size - BATCH_HEADER_SIZE) / BATCH_MIN_RECORD_SIZE && b->count <= room;
}

/* 1 where the batch's stored CRC is the one `crc32c` computes, 0 where not, -1 on an error. */
static int
crc_matches(PyObject *crc32c, const PlainBatch *b)
{
    PyObject *window = PyMemoryView_FromMemory((char *)b->h + BATCH_CRC_START, b->size - BATCH_CRC_START, PyBUF_READ);
    if (window == NULL)
        return -1;
    PyObject *crc = PyObject_CallOneArg(crc32c, window);
    Py_DECREF(window);
    if (crc == NULL)
        return -1;
    unsigned long long computed = PyLong_AsUnsignedLongLong(crc);
    Py_DECREF(crc);
    if (computed == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    return computed == load_unsigned(b->h + BATCH_CRC_AT, 4);
}

/* The RECORD rows of the batch's records (row makers' lists first, then the columns the same for
 * every record): 1 when all were read, 0 when the batch is left to the Python walk (its rows
 * taken back), -1 on an error. Sets *payload and *offsets_ok (the BATCH row's). */
static int
batch_record_rows(const RowDecoder *d, PyObject *const *records, const PlainBatch *b, Py_ssize_t budget,
                  Py_ssize_t *payload, int *offsets_ok)
{
    PyObject *const row_lists[ROW_COLUMN_COUNT] = {records[R_OFFSET],    records[R_TIMESTAMP], records[R_RECORD_TYPE],
                                                   records[R_TYPE_NAME], records[R_VERSION],   records[R_PAYLOAD],
                                                   records[R_JSON_FORM]};
    Py_ssize_t marks[RECORD_COLUMN_COUNT], read, p = BATCH_HEADER_SIZE;
    for (int i = 0; i < RECORD_COLUMN_COUNT; i++)
        marks[i] = PyList_GET_SIZE(records[i]);
    int fixed_time = (b->attributes & 0x08) != 0, in_order;
    long long timestamp_base = load_signed(b->h + (fixed_time ? BATCH_MAX_TIMESTAMP_AT : BATCH_BASE_TIMESTAMP_AT), 8);
    Input in = {b->h, b->size, NULL, NULL};
    if (append_record_rows(d, &in, &p, (Py_ssize_t)b->count, load_signed(b->h, 8), timestamp_base, fixed_time, budget,
                           row_lists, &read, payload, &in_order) < 0)
        return -1;
    if (read != b->count || p != b->size) /* the Python walk reads it, rows and issues alike */
        return truncate_lists(records, RECORD_COLUMN_COUNT, marks) < 0 ? -1 : 0;
    long long last_offset_delta = load_signed(b->h + BATCH_LAST_OFFSET_DELTA_AT, 4);
    *offsets_ok = in_order && (last_offset_delta == b->count - 1 || (b->count == 0 && last_offset_delta == 0));
    return 1;
}

/* The BATCH row of a batch walked whole, and the RECORD columns the same for its records. */
static int
append_batch_row(PyObject *const *records, PyObject *const *batches, const PlainBatch *b, int offsets_ok)
{
    const unsigned char *h = b->h;
    PyObject *values[BATCH_COLUMN_COUNT] = {
        [B_POSITION] = PyLong_FromSsize_t(b->pos),
        [B_BATCH_OFFSET] = PyLong_FromLongLong(load_signed(h, 8)),
        [B_TIMESTAMP] = PyLong_FromLongLong(load_signed(h + BATCH_MAX_TIMESTAMP_AT, 8)),
        [B_LEADER_EPOCH] = PyLong_FromLongLong(load_signed(h + BATCH_LEADER_EPOCH_AT, 4)),
        [B_LAST_OFFSET_DELTA] = PyLong_FromLongLong(load_signed(h + BATCH_LAST_OFFSET_DELTA_AT, 4)),
        [B_RECORDS_COUNT] = PyLong_FromLongLong(b->count),
        [B_BATCH_LENGTH] = PyLong_FromLongLong(b->length),
        [B_ATTRIBUTES] = PyLong_FromLong(b->attributes),
        [B_CRC_OK] = Py_NewRef(Py_True),
        [B_OFFSETS_OK] = Py_NewRef(offsets_ok ? Py_True : Py_False),
        [B_CONTROL_TYPES] = Py_NewRef(Py_None)};
    int failed = 0;
    for (int i = 0; i < BATCH_COLUMN_COUNT; i++)
        failed |= values[i] == NULL;
    Py_ssize_t n = (Py_ssize_t)b->count;
    failed = failed || append_repeated(records[R_POSITION], values[B_POSITION], n) < 0 ||
             append_repeated(records[R_BATCH_OFFSET], values[B_BATCH_OFFSET], n) < 0 ||
             append_repeated(records[R_CONTROL_TYPE], Py_None, n) < 0;
    for (int i = 0; i < BATCH_COLUMN_COUNT; i++) {
        failed = failed || PyList_Append(batches[i], values[i]) < 0;
        Py_XDECREF(values[i]);
    }
    return failed ? -1 : 0;
}

/* walk_batches(cache, cache_limit, cache_value_bytes, classes, names, learn,
 *              buffer, pos, end, crc32c, batch_rows, row_bytes, size, records, batches, issues)
 * The rows of the sound plain batches (uncompressed, not control, CRC matching) that start at
 * `pos` and follow it in `buffer` (a whole log file), before `end`: what scan_step then
 * UnitRows.add_batch would make of them, appended to `records` (the RECORD buffer's lists, R_*)
 * and `batches` (the BATCH buffer's, B_*). It stops at the first batch that is anything else, or
 * that would not fit the buffers whole (`batch_rows` rows, `row_bytes` payload characters,
 * `size` of them waiting), leaving it to the Python walk, and after a batch that fills a buffer.
 * `issues` (the ISSUE buffer's first list) only counts: a full one stops the walk too. Returns
 * (position, payload characters waiting). */
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
    Py_ssize_t pos = PyLong_AsSsize_t(args[7]), end = PyLong_AsSsize_t(args[8]), batch_rows = PyLong_AsSsize_t(args[10]),
               row_bytes = PyLong_AsSsize_t(args[11]), size = PyLong_AsSsize_t(args[12]);
    Py_buffer view;
    if (PyErr_Occurred() || PyObject_GetBuffer(args[6], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t file_size = view.len;
    end = end > file_size ? file_size : end;
    int status = 0;
    while (pos >= 0 && pos < end && file_size - pos >= BATCH_HEADER_SIZE) {
        Py_ssize_t rows = PyList_GET_SIZE(records[R_POSITION]), payload;
        if (rows >= batch_rows || size >= row_bytes || PyList_GET_SIZE(batches[B_POSITION]) >= batch_rows ||
            PyList_GET_SIZE(issues) >= batch_rows)
            break; /* a full buffer: the Python walk hands it on */
        PlainBatch b;
        int offsets_ok;
        if (!plain_batch_at(view.buf, file_size, pos, batch_rows - rows, &b) || (status = crc_matches(crc32c, &b)) <= 0 ||
            (status = batch_record_rows(&d, records, &b, row_bytes - size, &payload, &offsets_ok)) <= 0 ||
            (status = append_batch_row(records, batches, &b, offsets_ok)) < 0)
            break; /* an error, or a batch the Python walk reads and reports */
        size += payload;
        pos += b.size;
    }
    PyBuffer_Release(&view);
    return status < 0 ? NULL : Py_BuildValue("(nn)", pos, size);
}

static PyObject *
column_names(const char *const *names)
{
    PyObject *t = PyTuple_New(0);
    for (int i = 0; t != NULL && names[i] != NULL; i++) {
        PyObject *name = PyUnicode_FromString(names[i]);
        if (name == NULL || _PyTuple_Resize(&t, i + 1) < 0) {
            Py_XDECREF(name);
            Py_XDECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, name);
    }
    return t;
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
    PyObject *m = PyModule_Create(&rows_module);
    /* the lists' order the C code names, for rows.py to check against its columns */
    PyObject *orders[3] = {column_names(record_column_names), column_names(batch_column_names),
                           column_names(row_column_names)};
    int failed = m == NULL || orders[0] == NULL || orders[1] == NULL || orders[2] == NULL ||
                 PyModule_AddObjectRef(m, "RECORD_LISTS", orders[0]) < 0 ||
                 PyModule_AddObjectRef(m, "BATCH_LISTS", orders[1]) < 0 || PyModule_AddObjectRef(m, "ROW_LISTS", orders[2]) < 0;
    for (int i = 0; i < 3; i++)
        Py_XDECREF(orders[i]);
    if (failed) {
        Py_XDECREF(m);
        return NULL;
    }
    return m;
}
