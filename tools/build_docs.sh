#!/usr/bin/env bash
# Build the reference documentation (Sphinx, docs/conf.py) into docs/_build/html: the pages of
# docs/, the API reference from the code and one page per generated message. Any warning fails
# the build (-W; --keep-going lists them all first; -n also checks every cross-reference).
# `bash tools/build_docs.sh [SPHINX ARGS...]`; CI runs it from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
# -E: a fresh environment each time, since the message pages come from the code, which Sphinx
# does not watch; a full build takes about half a minute.
exec .venv/bin/python -m sphinx -b html -E -W --keep-going -n -q \
  -d docs/_build/doctrees docs docs/_build/html "$@"
