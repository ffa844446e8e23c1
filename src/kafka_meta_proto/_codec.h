/* What the compiled codec's parts share: _codec.c (the wire codec, the module) and _codec_json.c
 * (Kafka's JSON form and JSON text). */
#ifndef KAFKA_META_PROTO_CODEC_H
#define KAFKA_META_PROTO_CODEC_H

#include "_c_common.h"
#include "_codec_api.h"

/* Set by setup(): the Uuid class and where its 16 bytes are held. */
extern PyTypeObject *UuidType;
extern Py_ssize_t uuid_bytes_offset;

/* _codec.c: read_record_value(data, classes) -> (record type, version, message), or None. */
PyObject *codec_read_record_value(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* _codec_json.c: the module functions it adds, and its start-up. */
PyObject *codec_setup_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_json_form(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_json_text(PyObject *module, PyObject *value);
PyObject *codec_json_form_alone(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *codec_json_text_alone(PyObject *module, PyObject *value);
int codec_json_ready(void);
/* _codec_json.c, for other extensions (CodecApi): the compiled JSON form of a message and the
 * compiled JSON text of a value, NULL (an error set or not) where they decline. */
PyObject *message_json_form(PyObject *message, PyObject *version);
PyObject *value_json_text(PyObject *value);

#endif
