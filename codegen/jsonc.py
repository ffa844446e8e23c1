"""Load Kafka's schema files: JSON with `//` and `/* */` comments."""

from __future__ import annotations

import json
from pathlib import Path


def strip_comments(text: str) -> str:
    """Blank out comments outside string literals, keeping line numbers for error messages."""
    out = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueError("unterminated /* comment")
            out.append("".join(ch if ch == "\n" else " " for ch in text[i : end + 2]))
            i = end + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def load(path: Path) -> dict:
    """Parse one schema file; errors name the file and line."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        return json.loads(strip_comments(text))
    except (json.JSONDecodeError, ValueError) as e:
        raise ValueError(f"not valid JSON: {e}") from None
