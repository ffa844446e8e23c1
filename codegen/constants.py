"""Module constants of a generated module, each made once however many functions use it."""

from __future__ import annotations

_CODE_NAMES = {"?": "bool"}  # struct codes in constant names (_A_bool...)


class Constants:
    """Names handed out on request: precompiled Structs by format, array Struct tables by length
    prefix and element code, retry tables by content, shared empty structs by class."""

    def __init__(self) -> None:
        self._structs: dict[str, str] = {}
        self._arrays: dict[tuple[str, str], str] = {}
        self._retries: dict[str, str] = {}
        self._empty: set[str] = set()

    def struct(self, fmt: str) -> str:
        """``_S<n> = _Struct(fmt)``."""
        return self._structs.setdefault(fmt, f"_S{len(self._structs)}")

    def array(self, prefix: str, code: str) -> str:
        """Structs for arrays shorter than wire.SMALL_ARRAY: prefix "" for reading, "B" (one compact
        length byte) or "i" (a legacy count) for writing."""
        return self._arrays.setdefault((prefix, code), f"_A{prefix}_{_CODE_NAMES.get(code, code)}")

    def retry(self, table: str) -> str:
        """A table of fixed-width arrays to read again carefully after a low-level error."""
        return self._retries.setdefault(table, f"_R{len(self._retries)}")

    def empty(self, cls: str) -> None:
        """Note that the code compares with ``_EMPTY_<cls>``."""
        self._empty.add(cls)

    def items(self, class_order: list[str]) -> list[tuple[str, str]]:
        """(name, value) in printing order."""
        out = [(f"_EMPTY_{c}", f"{c}()  # compared against, never handed out") for c in class_order if c in self._empty]
        out += [(name, f'_Struct("{fmt}")') for fmt, name in self._structs.items()]
        out += [(name, f'_w.array_structs("{p}", "{c}")') for (p, c), name in sorted(self._arrays.items())]
        out += [(name, table) for table, name in self._retries.items()]
        return out
