#!/usr/bin/env bash
# Build the sdist and the wheel (the wheel from the sdist, as pip would), check their metadata with
# twine, and try the wheel in a fresh virtualenv outside the checkout: without extras it imports,
# encodes and decodes, runs its compiled codec and its command line, and has no top-level
# `codegen`; with the codegen extra, `kafka-meta-proto codegen` makes a package from a schema
# folder of its own and refuses the forms that need the repository, writing nothing into the
# install. Quiet when all is well; otherwise the reason and exit 1. Needs .venv (tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=$root/.venv/bin/python
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log

fail() {
  echo "check_wheel: $*" >&2
  if [ -s "$log" ]; then echo "--- output of the last step:" >&2; tail -n 30 "$log" >&2; fi
  exit 1
}
step() {  # step WHAT COMMAND...: run it with its output in $log, fail naming WHAT
  local what=$1
  shift
  "$@" >"$log" 2>&1 || fail "$what failed (exit $?)"
}

step "python -m build" "$py" -m build --outdir "$tmp/dist" "$root"
sdist=$(ls "$tmp"/dist/*.tar.gz)
wheel=$(ls "$tmp"/dist/*.whl)
step "twine check" "$py" -m twine check --strict "$sdist" "$wheel"

# What the wheel holds: the generator and its templates under kafka_meta_proto, the compiled codec,
# no C source, nothing at the top level but the package and its metadata.
"$py" - "$wheel" >"$log" 2>&1 <<'PY' || fail "the wheel's contents: $(tail -n 1 "$log")"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
tops = {n.split("/")[0] for n in names}
extra = {t for t in tops if t != "kafka_meta_proto" and not t.endswith(".dist-info")}
assert not extra, f"top-level entries besides kafka_meta_proto: {sorted(extra)}"
for want in ("kafka_meta_proto/codegen/__main__.py", "kafka_meta_proto/codegen/templates/module.j2",
             "kafka_meta_proto/commands/codegen.py", "kafka_meta_proto/py.typed"):
    assert want in names, f"{want} is missing"
for extension in ("kafka_meta_proto/_codec.", "kafka_meta_proto/log/_records.", "kafka_meta_proto/pipeline/_rows."):
    assert any(n.startswith(extension) and n.endswith((".so", ".pyd")) for n in names), f"no {extension}* extension"
assert not [n for n in names if n.endswith((".c", ".h"))], "C source in the wheel"
assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "no LICENSE"
PY

step "a fresh virtualenv" "$py" -m venv "$tmp/venv"
venv=$tmp/venv
step "installing the wheel without extras" "$venv/bin/python" -m pip install -q --no-index "$wheel"
cd "$tmp"  # away from the checkout: nothing of it is importable from here

"$venv/bin/python" - >"$log" 2>&1 <<'PY' || fail "the installed package: $(tail -n 1 "$log")"
import importlib.util, sysconfig
import kafka_meta_proto
from kafka_meta_proto import active_codec, message_class, protocol
assert kafka_meta_proto.__file__.startswith(sysconfig.get_paths()["purelib"]) or \
    kafka_meta_proto.__file__.startswith(sysconfig.get_paths()["platlib"]), kafka_meta_proto.__file__
assert active_codec() == "compiled", f"active codec: {active_codec()}"
from kafka_meta_proto.codec import compiled_module
assert compiled_module("log._records") is not None and compiled_module("pipeline._rows") is not None
Fetch = message_class("FetchRequest")
req = Fetch(replica_id=-1, max_wait_ms=500, min_bytes=1, topics=[Fetch.FetchTopic(topic="t", partitions=[Fetch.FetchPartition(partition=0, fetch_offset=42)])])
body = req.encode(12)
assert Fetch.decode(body, 12) == req and req.size(12) == len(body)
assert protocol.decode_request(protocol.encode_request(req, 12, correlation_id=1)).body == req
assert importlib.util.find_spec("codegen") is None, "a top-level codegen is importable"
PY
out=$("$venv/bin/kafka-meta-proto" --version 2>&1) || fail "kafka-meta-proto --version: $out"
case $out in *"(compiled codec;"*) ;; *) fail "--version does not name the compiled codec: $out" ;; esac
step "kafka-meta-proto random-uuid" "$venv/bin/kafka-meta-proto" random-uuid
step "kafka-meta-proto demo" "$venv/bin/kafka-meta-proto" demo

# A tiny schema folder of the user's, and what the generator says without its extra.
mkdir "$tmp/schemas"
cp "$root"/examples/schemas/*.json "$tmp/schemas/"
if out=$("$venv/bin/kafka-meta-proto" codegen --schemas schemas --out gen --package echo 2>&1); then
  fail "kafka-meta-proto codegen ran without the codegen extra: $out"
fi
case $out in *"'codegen' extra"*) ;; *) fail "codegen without its extra does not name it: $out" ;; esac

step "installing the codegen extra" "$venv/bin/python" -m pip install -q "$wheel[codegen]"
site=$("$venv/bin/python" -c 'import kafka_meta_proto, os; print(os.path.dirname(kafka_meta_proto.__file__))')
before=$(find "$site" -not -path '*/__pycache__*' | sort | sha1sum)
refuses() {  # refuses WHAT ARGS...: exit 2 with one line naming WHAT
  local what=$1
  shift
  local out status=0
  out=$("$@" 2>&1) || status=$?
  [ "$status" = 2 ] || fail "$* exited $status, not 2: $out"
  [ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] || fail "$* said more than one line: $out"
  case $out in *"$what"*) ;; *) fail "$* did not say '$what': $out" ;; esac
}
refuses "an installed copy lacks" "$venv/bin/kafka-meta-proto" codegen
refuses "an installed copy lacks" "$venv/bin/kafka-meta-proto" codegen --check
refuses "in a checkout of the repository only" "$venv/bin/python" -m kafka_meta_proto.codegen.maintenance.refresh --dry-run
out=$("$venv/bin/kafka-meta-proto" codegen --schemas schemas --out "$site" --package echo 2>&1) && fail "codegen wrote into $site"
case $out in *"inside the installed kafka_meta_proto"*) ;; *) fail "codegen --out into the install: $out" ;; esac
[ "$(find "$site" -not -path '*/__pycache__*' | sort | sha1sum)" = "$before" ] || fail "the install changed under $site"

step "kafka-meta-proto codegen --schemas" "$venv/bin/kafka-meta-proto" codegen --schemas schemas --out gen --package echo --base kafka_meta_proto.messages
"$venv/bin/python" - >"$log" 2>&1 <<'PY' || fail "the generated package: $(tail -n 1 "$log")"
import sys
sys.path.insert(0, "gen")
import echo
from kafka_meta_proto import protocol
Echo = echo.message_class("EchoRequest")
frame = protocol.encode_request(Echo(message="hi", repeat=3), 1, correlation_id=5, registry=echo.REGISTRY)
got = protocol.decode_request(frame, registry=echo.REGISTRY)
assert got.body == Echo(message="hi", repeat=3) and got.header.correlation_id == 5
assert echo.REGISTRY.message_class("FetchRequest").__module__ == "kafka_meta_proto.messages.fetch_request"
PY
step "kafka-meta-proto-compat" "$venv/bin/kafka-meta-proto-compat" schemas schemas
