"""Record values into what a RECORD row holds: ``(type, version, type name, payload JSON)``,
followed by the JSON form as a dict (the typed tables are built from it, see typed.py).

A ``RecordDecoder`` keeps what it learns: the message class and type name of each record type,
and the rows of small values it has decoded (NoOps, ISR changes and registrations recur, and
decoding one is most of a record's cost). Each decoder has its own; one lives as long as the
units it decodes (a Spark task's, or one process's), so nothing is kept between unrelated runs.
"""

from __future__ import annotations

import functools
import struct

from .. import kraft, registries
from ..codec import compiled_module, json_form, json_text
from ..errors import KafkaProtocolError
from ..kraft.records import read_record_value
from ..log.control import decode_control_record
from ..log.errors import LogFormatError
from ..messages import REGISTRY
from ..registries import RegistryLike

CACHE_LIMIT = (
    30_000  # values remembered before the decoder starts over (each row holds its JSON dict too)
)
CACHE_VALUE_BYTES = 256  # only values this small are remembered: the large ones seldom recur
# What a value or control record that does not decode raises.
DECODE_ERRORS = (KafkaProtocolError, LogFormatError, ValueError, struct.error)
# The C twin of the row making (pipeline/_rows.c; None under pure Python): the whole row in C for
# the values it reads, decode_row for the rest.
_compiled = compiled_module("pipeline._rows")
_record_row = None if _compiled is None else _compiled.record_row
_batch_rows = None if _compiled is None else _compiled.batch_rows
_batch_walk = None if _compiled is None else _compiled.walk_batches


class RecordDecoder:
    """Decodes metadata record values and control records with the generated classes."""

    def __init__(self, registry: RegistryLike = REGISTRY):
        self._registry = registries.resolve(registry)
        self._classes: dict[int, type] = {}
        self._type_names: dict[int, str] = {}
        self._rows: dict[bytes, tuple] = {}
        self.remembered = self._rows.get  # the row of a value decoded before, or None
        # compiled_rows(data, pos, count, base_offset, timestamp_base, fixed_time, budget, columns):
        # the rows of up to ``count`` records of an uncompressed batch's ``data`` from ``pos``, made by
        # the compiled codec with this decoder's remembered rows and classes (and ``learn`` for the
        # values it does not decode itself), appended to ``columns`` (offsets, timestamps, types,
        # type names, versions, payloads, JSON forms). It stops once the payloads reach ``budget``
        # characters, or before a record that does not parse or whose value ``learn`` refuses,
        # which the Python loop then reports. Returns (records read, position, payload characters,
        # offsets in order). None under pure Python.
        self.compiled_rows = None if _batch_rows is None else functools.partial(
            _batch_rows, self._rows, CACHE_LIMIT, CACHE_VALUE_BYTES, self._classes, self._type_names, self.learn
        )  # fmt: skip
        # compiled_walk(buffer, pos, end, crc32c, batch_rows, row_bytes, size, records, batches,
        # issues): the same rows, for whole plain batches walked in C (UnitRows.walk_plain_batches says more).
        self.compiled_walk = None if _batch_walk is None else functools.partial(
            _batch_walk, self._rows, CACHE_LIMIT, CACHE_VALUE_BYTES, self._classes, self._type_names, self.learn
        )  # fmt: skip

    def record_class(self, record_type: int):
        cls = self._classes.get(record_type)
        if cls is None:
            cls = self._classes[record_type] = self._registry.record_class(record_type)
            self._type_names[record_type] = kraft.record_type_name(cls.NAME)
        return cls

    def learn(self, value) -> tuple[int, int, str, str, dict]:
        """The row of a metadata record value not remembered yet, with its JSON form as a dict
        last; remembered if it is small."""
        row = None
        if _record_row is not None and type(value) is bytes:
            row = _record_row(value, self._classes, self._type_names)
        if row is None:
            row = self.decode_row(value)
        if len(value) <= CACHE_VALUE_BYTES:
            if len(self._rows) >= CACHE_LIMIT:
                self._rows.clear()
            self._rows[value] = row
        return row

    def decode_value(self, value) -> tuple[int, int, str, str]:
        """``(record type, version, type name, payload JSON)`` of a metadata record value."""
        return self.decode_row(value)[:4]

    def decode_row(self, value) -> tuple[int, int, str, str, dict]:
        """``(record type, version, type name, payload JSON, JSON form)`` of a metadata record value,
        read by ``kraft.records.read_record_value`` with the classes this decoder remembers."""
        if value is None:
            raise KafkaProtocolError("a metadata record with a null value")
        record_type, version, message = read_record_value(value, self._registry, self.record_class)
        data = json_form(message, version)  # just decoded, so its values need no check
        return record_type, version, self._type_names[record_type], json_text(data), data

    def control(self, key, value) -> tuple[int, int, str, str, dict]:
        """``(control type, version, type name, payload JSON, JSON form)`` of a control record:
        the JSON form log/control.py gives, a marker's with its version beside the coordinator
        epoch."""
        record = decode_control_record(key, value, self._registry.message_class)
        data = record.to_json()
        if record.message is None:
            data = {"version": record.marker_version, **data}
        return record.control_type, record.json_version, record.type_name, json_text(data), data


class Decoders(dict):
    """One ``RecordDecoder`` per shipped registry name, made on first use: the units of one task
    share them, each unit read with the registry its cluster's marker names."""

    def __missing__(self, name: str) -> RecordDecoder:
        decoder = self[name] = RecordDecoder(registries.named(name))
        return decoder

    def for_unit(self, unit: dict) -> RecordDecoder:
        return self[unit.get("registry") or registries.KAFKA]
