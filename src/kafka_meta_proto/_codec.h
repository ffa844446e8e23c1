/* What the message codec's files share: the compiled layout's types, the module's state and the
 * entry points each file offers the others (called once per message, never per field).
 *
 *   _codec_layout.c     compiling a layout program into a Layout; the Layout type
 *   _codec_read.c       reading a struct from bytes (the Layout's call)
 *   _codec_decode.c     the Decoder (a message class's decode) and read_record_value
 *   _codec_measure.c    the measuring pass of encoding: every check, and the size
 *   _codec_write.c      the writing pass of encoding
 *   _codec.c            the module: setup, stats, Message's encode and size
 *   _codec_json_form.c  Kafka's JSON form of a message (compiled JSON plans)
 *   _codec_json_text.c  JSON text
 *   _codec_fields.h     the per-field helpers measuring and writing share, inline */
#ifndef KAFKA_META_PROTO_CODEC_H
#define KAFKA_META_PROTO_CODEC_H

#include "_c_common.h"
#include "_codec_api.h"

/* The names below are the extension's own: hidden from other shared objects, so that a call
 * between the codec's files is a direct call (not through the PLT, as a name another object
 * could interpose would be) and the compiler may treat each function as the one called. Only
 * PyInit__codec is exported (PyMODINIT_FUNC says so). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

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

/* _codec_layout.c: the Layout type, and its start-up (the compiled programs' cache). */
extern PyTypeObject LayoutType;
int codec_layout_ready(void);

/* -- Module state: one interpreter, set up once from Python (codec.py) ----------------------- */

/* Set by setup(): the Uuid class and where its 16 bytes are held. */
extern PyTypeObject *UuidType;
extern Py_ssize_t uuid_bytes_offset;
extern PyObject *empty_tuple;        /* () */
extern PyObject *py_decode;          /* Message.decode's function (cls, data, version) */
extern unsigned long long fallback_successes;        /* decode */
extern unsigned long long encode_fallback_successes; /* encode and size */

/* -- Entry points ---------------------------------------------------------------------------- */

/* _codec_read.c: the struct of layout L at *pos, *pos moved past it; NULL to decline (an error
 * set or not). The Layout's own call, reader(buf, pos), and Layout.read. */
PyObject *read_struct(Input *in, LayoutObject *L, Py_ssize_t *pos);
PyObject *layout_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);
PyObject *layout_read(LayoutObject *L, PyObject *const *args, Py_ssize_t nargs);

/* _codec_measure.c: adds the encoded size of o (of L's class), or of one field's value v, to
 * *size; -1 declines. */
int measure_object(LayoutObject *L, PyObject *o, Py_ssize_t *size);
int measure_field(const Field *f, PyObject *v, Py_ssize_t *size);
/* v differs from the default of a tagged or absent field: 1, 0, or -1 to decline. */
int value_differs(PyObject *v, PyObject *dflt, PyObject *cmp, const Py_ssize_t *cmp_slots, Py_ssize_t ncmp);

/* _codec_write.c: the whole encoding of o, or NULL to decline; Layout.encode and Layout.size. */
PyObject *encode_object(LayoutObject *L, PyObject *o);
PyObject *layout_encode(LayoutObject *L, PyObject *o);
PyObject *layout_size(LayoutObject *L, PyObject *o);

/* _codec.c: the Layout of cls at version (borrowed), or NULL; a Python function called as
 * fn(first, *args). */
LayoutObject *layout_for(PyTypeObject *cls, PyObject *version);
PyObject *call_python(PyObject *fn, PyObject *first, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* _codec_decode.c: the Decoder type, and read_record_value(data, classes) -> (record type,
 * version, message), or None. */
extern PyTypeObject DecoderType;
PyObject *codec_read_record_value(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* How deep the JSON form and JSON text go before declining. */
#define JSON_MAX_DEPTH 64

/* _codec_json_form.c: the module functions it adds, and its start-up. */
PyObject *codec_setup_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_json_form(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_json_form_alone(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int codec_json_ready(void);
/* _codec_json_text.c: json_text, json_text_alone; the Python writer it falls back on (set by
 * setup_json). */
extern PyObject *py_dumps;
PyObject *codec_json_text(PyObject *module, PyObject *value);
PyObject *codec_json_text_alone(PyObject *module, PyObject *value);
/* For other extensions (CodecApi): the compiled JSON form of a message and the compiled JSON
 * text of a value, NULL (an error set or not) where they decline. */
PyObject *message_json_form(PyObject *message, PyObject *version);
PyObject *value_json_text(PyObject *value);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
