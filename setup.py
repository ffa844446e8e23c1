"""The optional compiled codec (src/kafka_meta_proto/_codec*.c): built where a C compiler is
present; without one the install goes on and the package runs its pure Python codec.

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


# KAFKA_META_PROTO_NO_EXTENSION=1 builds the pure Python package only.
extensions = []
if os.environ.get("KAFKA_META_PROTO_NO_EXTENSION", "") in ("", "0"):
    extensions.append(
        Extension(
            "kafka_meta_proto._codec",
            sources=[
                "src/kafka_meta_proto/_codec.c",
                "src/kafka_meta_proto/_codec_json.c",
                "src/kafka_meta_proto/_codec_arrow.c",
            ],
            depends=["src/kafka_meta_proto/_codec.h"],
            extra_compile_args=["-O3"] if os.name != "nt" else [],
            optional=True,
        )
    )

setup(ext_modules=extensions, cmdclass={"build_ext": OptionalBuildExt})
