/* pipeline/_arrow.c, part of the kafka_meta_proto.pipeline._rows extension. */
#ifndef KAFKA_META_PROTO_PIPELINE_ARROW_H
#define KAFKA_META_PROTO_PIPELINE_ARROW_H

#include "../_c_common.h"

/* arrow_buffers(values, kind) -> the buffers of an Arrow array of the list, or None. */
PyObject *arrow_buffers(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
