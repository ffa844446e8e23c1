/* What the compiled codec offers other extensions of the package (pipeline/_rows.c): its readers
 * and JSON writers, as function pointers in a capsule, kafka_meta_proto._codec._C_API. An
 * extension takes them with codec_api_import() when it is imported; no import, no extension. */
#ifndef KAFKA_META_PROTO_CODEC_API_H
#define KAFKA_META_PROTO_CODEC_API_H

#include "_c_common.h"

#define CODEC_API_CAPSULE "kafka_meta_proto._codec._C_API"

typedef struct {
    /* read_record_value(module, (data, classes), 2): a KRaft metadata record value as (record
     * type, version, message), or None where it declines (kraft.decode_record_value reports). */
    PyObject *(*read_record_value)(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
    /* Kafka's JSON form of a message at a version; NULL (an error set or not) where it declines */
    PyObject *(*json_form)(PyObject *message, PyObject *version);
    /* the JSON text of a value as the package writes it; NULL where it declines */
    PyObject *(*json_text)(PyObject *value);
} CodecApi;

/* The codec's functions, or NULL with ImportError set (the extension is not built). */
static inline const CodecApi *
codec_api_import(void)
{
    return (const CodecApi *)PyCapsule_Import(CODEC_API_CAPSULE, 0);
}

#endif
