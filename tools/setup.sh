#!/usr/bin/env bash
# Set up this checkout on a fresh machine: a virtualenv (.venv) holding the package with its
# generator, log, test and docs dependencies (and its compiled codec, built in place where a C
# compiler is present), and a Java runtime for PySpark when `java` is absent.
# Safe to run again: it reinstalls only when pyproject.toml, setup.py or the C source changed.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
# pyproject.toml, setup.py and the C extensions' sources: a change to any reinstalls (rebuilds)
stamp=".venv/.installed-$(cat pyproject.toml setup.py src/kafka_meta_proto/_c*.[ch] src/kafka_meta_proto/log/_*.[ch] src/kafka_meta_proto/pipeline/_*.[ch] | sha1sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "setup: installing the package and its dependencies into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' >&2 || true
  # setuptools' notes about how an editable install works are not problems: keep them out
  PYTHONWARNINGS="ignore::UserWarning" .venv/bin/python -m pip install -q -e '.[dev]' 2>&1 | grep -v '^WARNING: Location' >&2 || true
  .venv/bin/python -c "import kafka_meta_proto, jinja2, black, hypothesis, pytest, sphinx, myst_parser" # fails loudly if the install did
  rm -f .venv/.installed-*
  touch "$stamp"
fi
if ! command -v java >/dev/null 2>&1; then
  echo "setup: no java on PATH; installing Debian's openjdk-17-jre-headless for PySpark" >&2
  if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q openjdk-17-jre-headless >&2
fi
# Apache Kafka's jars (its serializer, broker and tools) for the tests that hold us against Kafka.
bash tools/kafka_setup.sh
