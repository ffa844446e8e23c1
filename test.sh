#!/usr/bin/env bash
# Set up (first run only) and run the test suite: `bash test.sh [PYTEST ARGS...]`.
# The default run skips tests marked slow; `bash test.sh -m slow` runs those.
set -euo pipefail
cd "$(dirname "$0")"
bash tools/setup.sh
exec .venv/bin/python -m pytest -m "not slow" "$@"
