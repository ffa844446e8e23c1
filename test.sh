#!/usr/bin/env bash
# Set up (first run only) and run the test suite: `bash test.sh [PYTEST ARGS...]`.
# The default run leaves out the tests marked slow, on a worker per core (pytest-xdist);
# `bash test.sh -m slow` runs those, `bash test.sh -m ""` everything, `-n 0` in one process.
set -euo pipefail
cd "$(dirname "$0")"
bash tools/setup.sh
# The suite starts hundreds of Python processes (workers, commands, Spark's workers): with
# bytecode caching switched off in the environment, each compiled the package from source again,
# and pytest rewrote every test module's asserts anew (collecting took a worker 19.5 s, 7.8 s
# with the caches).
export PYTHONDONTWRITEBYTECODE=
status=0
.venv/bin/python -m pytest -m "not slow" -n auto --dist worksteal "$@" || status=$?
if [ "$status" -eq 0 ] && [[ " $* " != *" -m "* ]]; then
  echo "test.sh: the slow tests were left out: bash test.sh -m slow (.ci/run runs everything)" >&2
fi
exit "$status"
