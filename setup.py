"""The optional C extensions (src/kafka_meta_proto/_codec*.c, log/_records.c, pipeline/_rows.c):
built where a C compiler is present; without one the install goes on and the package runs its
pure Python code.

Everything else about the package is in pyproject.toml.
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that turns a failed compile into one note instead of a failed install."""

    def run(self):
        try:
            super().run()
        except Exception as e:  # no compiler, no Python headers...
            self._skipped(e)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:
            self._skipped(e)

    def _skipped(self, e):
        if not getattr(self, "_noted", False):
            self._noted = True
            sys.stderr.write(
                f"kafka-meta-proto: the compiled codec was not built ({type(e).__name__}: {e}); "
                "the package uses its pure Python codec\n"
            )


# The C extensions, one per layer, each the compiled twin of Python code that runs without it:
# the message codec, the record reader of log/ and the row making of pipeline/ (which calls the
# message codec through its capsule), the codec in one file per job (_codec.h names them). Their
# headers: _c_common.h (shared inline helpers), _codec.h and _codec_fields.h (the codec's own),
# _codec_api.h, log/_records.h. KAFKA_META_PROTO_NO_EXTENSION=1 builds the pure Python package.
PACKAGE = "src/kafka_meta_proto/"
EXTENSIONS = {
    "kafka_meta_proto._codec": [
        "_codec.c",
        "_codec_layout.c",
        "_codec_read.c",
        "_codec_decode.c",
        "_codec_measure.c",
        "_codec_write.c",
        "_codec_json_form.c",
        "_codec_json_text.c",
    ],
    "kafka_meta_proto.log._records": ["log/_records.c"],
    "kafka_meta_proto.pipeline._rows": ["pipeline/_rows.c", "pipeline/_arrow.c"],
}
HEADERS = ["_c_common.h", "_codec.h", "_codec_fields.h", "_codec_api.h", "log/_records.h", "pipeline/_arrow.h"]
extensions = []
if os.environ.get("KAFKA_META_PROTO_NO_EXTENSION", "") in ("", "0"):
    for name, sources in EXTENSIONS.items():
        extensions.append(
            Extension(
                name,
                sources=[PACKAGE + source for source in sources],
                depends=[PACKAGE + header for header in HEADERS],
                extra_compile_args=["-O3"] if os.name != "nt" else [],
                optional=True,
            )
        )

setup(ext_modules=extensions, cmdclass={"build_ext": OptionalBuildExt})
