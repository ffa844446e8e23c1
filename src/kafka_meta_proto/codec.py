"""Which codec decodes messages: the compiled one (the C extension ``kafka_meta_proto._codec``,
built by the package's install where a C compiler is present) or the pure Python one.

Pure Python is the reference: the compiled codec gives the same objects, and whenever it meets
input it does not accept it hands the same call to the Python codec, which raises the error (so
every DecodeError carries the same path and offset whichever codec is active).

``KAFKA_META_PROTO_PURE_PYTHON=1`` in the environment forces pure Python (read at import), for
the message codec and the other C extensions alike (compiled_module).
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping
from typing import Any

PURE_PYTHON_ENV = "KAFKA_META_PROTO_PURE_PYTHON"

# The codec chosen, once, here: the compiled one (the extension module) or None for pure Python.
# message.py takes Message's encode and size from it (message_methods), generated modules give
# each class its compiled layouts and decode through install.
_native: Any = None
_why_pure = ""
# The JSON text the package writes for a JSON form: UTF-8 as it is, no spaces.
_python_json_text = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False
).encode
if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
    _why_pure = f"{PURE_PYTHON_ENV} is set"
else:
    try:
        # by name: the extension ships no stub, and may be absent
        _native = importlib.import_module(f"{__package__}._codec")
    except ImportError:
        _why_pure = "the C extension is not built"
    else:
        from . import json_plan
        from ._json import unknown_to_json

        _native.setup_json(json_plan.program, unknown_to_json, _python_json_text)


def compiled_module(name: str) -> Any:
    """The package's C extension ``name`` (``"log._records"``, ``"pipeline._rows"``: each the
    compiled twin of the Python module next to it), or None when it is not built or the pure
    Python switch is on (then its twin runs without it). They go with the message codec: none
    is used without it."""
    if _native is None:
        return None
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        return None


def active_codec() -> str:
    """``"compiled"`` when the C extension decodes messages, else ``"pure Python"``."""
    return "compiled" if _native is not None else "pure Python"


def why_pure_python() -> str:
    """Why the pure Python codec is active ("" when the compiled one is)."""
    return _why_pure


def message_methods(uuid_class: type, message_class: type) -> tuple[Any, Any] | None:
    """The compiled ``encode`` and ``size`` of ``message_class`` (Message, which message.py gives
    them): they run a class's compiled layouts (its ``_LAYOUTS``, see install) and call the
    class's Python methods, which they keep, for anything they decline. None under pure Python.
    ``uuid_class`` is the class uuid fields decode to."""
    if _native is None:
        return None
    methods: tuple[Any, Any] = _native.setup(uuid_class, message_class)
    return methods


def install(cls: Any, programs: Mapping[int, tuple[Any, ...]]) -> None:
    """Give the message class its compiled layouts, one per version (called by generated
    modules; does nothing under pure Python). Each is also the version's reader, falling back on
    the Python reader it replaces; ``cls.decode`` becomes a compiled decode holding them, which
    hands what it declines to Message.decode (same signature, same errors)."""
    if _native is None:
        return
    compiled: dict[int, Any] = {}  # versions sharing a layout share one compiled program
    readers = {}
    for version, python_reader in cls._READERS.items():
        program = programs[version]
        layout = compiled.get(id(program))
        if layout is None:
            layout = compiled[id(program)] = _native.Layout(program, python_reader)
        readers[version] = layout
    global _DECODE_SIGNATURE
    if _DECODE_SIGNATURE is None:  # Message.decode's, which every compiled decode shares
        import inspect  # here, not at the top: the package's import stays light (a class's first use loads it anyway)

        _DECODE_SIGNATURE = inspect.signature(cls.decode)
    cls._READERS = readers
    cls._LAYOUTS = readers  # the same objects: compiled layouts, callable as readers
    decoder = _native.Decoder(cls, readers)
    decoder.__signature__ = _DECODE_SIGNATURE
    cls.decode = decoder


_DECODE_SIGNATURE: Any = None


def fallback_successes() -> dict[str, int]:
    """How many times the compiled codec declined what the Python codec then handled without
    error ("decode"; "encode" counts encode and size): 0 for the values the compiled codec
    covers (the differential tests check it), more for unusual ones (an int subclass where an
    int is expected...), which the Python codec serves."""
    if _native is None:
        return {"decode": 0, "encode": 0}
    stats = _native.stats()
    return {
        "decode": int(stats["fallback_successes"]),
        "encode": int(stats["encode_fallback_successes"]),
    }


def compiled_record_value_reader() -> Any:
    """The compiled reader of KRaft metadata record values (``read_record_value(data,
    classes)``); None under pure Python (kraft/records.py)."""
    return None if _native is None else _native.read_record_value


def _python_json_form(message: Any, version: int) -> dict[str, Any]:
    form: dict[str, Any] = type(message)._TO_JSON(message, version)
    return form


# json_form(message, version): Kafka's JSON form of ``message`` at ``version`` without checking its
# values first (for messages just decoded; ``Message.to_json`` checks them).
# json_text(value): ``value`` as JSON text, UTF-8 as it is and no spaces, as
# ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` writes it.
# The compiled writers when the extension is built (they hand what they decline to these).
json_form: Any = _python_json_form if _native is None else _native.json_form
json_text: Any = _python_json_text if _native is None else _native.json_text
