/* Reading the records of a record batch v2 (log/records.py has the format and the Python
 * reader): shared by log/_records.c, which makes Record objects, and pipeline/_rows.c, which reads
 * records in place to make rows. Every function returns -1 to decline; the caller does not look
 * at why, and leaves the input to the Python reader, which reports it. */
#ifndef KAFKA_META_PROTO_LOG_RECORDS_H
#define KAFKA_META_PROTO_LOG_RECORDS_H

#include "../_c_common.h"

#define RECORD_MIN_BODY 6 /* attributes, timestampDelta, offsetDelta, keyLength, valueLength, headerCount */

/* A zigzag varint of at most max_bytes whose raw value is at most limit (wire.py's read_varint, read_varlong). */
static inline int
read_zigzag(const Input *in, Py_ssize_t *pos, int max_bytes, uint64_t limit, int64_t *out)
{
    Py_ssize_t p = *pos;
    uint64_t raw = 0;
    for (int i = 0; i < max_bytes; i++) {
        if (p >= in->len)
            return -1;
        unsigned char b = in->buf[p++];
        uint64_t bits = b & 0x7F;
        if (i == 9 && bits > 1) /* past 64 bits: out of range */
            return -1;
        raw |= bits << (7 * i);
        if (b < 0x80) {
            if (raw > limit)
                return -1;
            *out = (int64_t)(raw >> 1) ^ -(int64_t)(raw & 1);
            *pos = p;
            return 0;
        }
    }
    return -1;
}

#define READ_VARINT(in, pos, out) read_zigzag((in), (pos), 5, 0xFFFFFFFFULL, (out))

/* A key, a value or a header value: -1 is null, anything else must fit before the record's end. */
static inline int
skip_record_bytes(const Input *in, Py_ssize_t *pos, Py_ssize_t end, Py_ssize_t *start, Py_ssize_t *size)
{
    int64_t n;
    if (READ_VARINT(in, pos, &n) < 0 || n < -1 || n > end - *pos)
        return -1;
    *start = *pos;
    *size = (Py_ssize_t)n;
    if (n > 0)
        *pos += (Py_ssize_t)n;
    return 0;
}

/* One record read as read_record reads it, without making it: its offset and timestamp deltas
 * and where its value is (size -1: null). -1 where read_record would decline. */
static inline int
scan_record(const Input *in, Py_ssize_t *pos, int64_t *timestamp_delta, int64_t *offset_delta,
            Py_ssize_t *value_start, Py_ssize_t *value_size)
{
    int64_t length, count;
    Py_ssize_t start, size;
    if (READ_VARINT(in, pos, &length) < 0 || length < RECORD_MIN_BODY || length > in->len - *pos)
        return -1;
    Py_ssize_t end = *pos + (Py_ssize_t)length;
    (*pos)++; /* attributes */
    if (read_zigzag(in, pos, 10, 0xFFFFFFFFFFFFFFFFULL, timestamp_delta) < 0 || READ_VARINT(in, pos, offset_delta) < 0 ||
        skip_record_bytes(in, pos, end, &start, &size) < 0 ||
        skip_record_bytes(in, pos, end, value_start, value_size) < 0 || *pos >= in->len)
        return -1;
    if (READ_VARINT(in, pos, &count) < 0 || count < 0)
        return -1;
    Py_ssize_t left = end - *pos;
    if (count > (left >= 0 ? left / 2 : -((-left + 1) / 2)))
        return -1;
    for (int64_t i = 0; i < count; i++) {
        int64_t name;
        if (READ_VARINT(in, pos, &name) < 0 || name < 0 || name > end - *pos)
            return -1;
        *pos += (Py_ssize_t)name;
        if (skip_record_bytes(in, pos, end, &start, &size) < 0)
            return -1;
    }
    return *pos == end ? 0 : -1;
}

#endif
