#!/usr/bin/env bash
# Set up (first run only) and run the main job: `bash run.sh [ARGS...]` passes ARGS to it.
set -euo pipefail
cd "$(dirname "$0")"
bash tools/setup.sh
exec .venv/bin/kafka-meta-proto audit "$@"
