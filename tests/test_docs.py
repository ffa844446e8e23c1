"""The reference documentation (docs/conf.py, docs/_ext/kmp_messages.py, tools/build_docs.sh)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

# The docs extra is part of dev (tools/setup.sh): without Sphinx these fail rather than skip.
from sphinx.pycode import ModuleAnalyzer  # noqa: E402

import kmp_messages  # noqa: E402
from kafka_meta_proto import DISKLESS_REGISTRY, REGISTRY  # noqa: E402

# Messages whose fields have descriptions, nested structs, tagged fields; one of diskless.
SAMPLE = [
    (REGISTRY, "FetchRequest"),
    (REGISTRY, "MetadataResponse"),
    (REGISTRY, "PartitionChangeRecord"),
    (REGISTRY, "RegisterBrokerRecord"),  # a coordinator value's fields have no descriptions
    (DISKLESS_REGISTRY, "CommitBatchesRequest"),
]


@pytest.mark.parametrize("registry,name", SAMPLE, ids=[name for _, name in SAMPLE])
def test_field_descriptions_match_sphinx_reading_of_the_source(registry, name):
    # The message pages read field docstrings with a pattern of the generator's layout (Sphinx's
    # analyzer is too slow for ~300 modules); a change of layout must not empty the descriptions.
    module = registry.message_class(name).__module__
    ours = kmp_messages.attribute_docs(module)
    theirs = {
        key: " ".join(" ".join(lines).split())
        for key, lines in ModuleAnalyzer.for_module(module).find_attr_docs().items()
    }
    assert ours == theirs
    assert ours, f"{name}: no field descriptions found"


def test_every_docs_page_is_in_the_index():
    # Sphinx warns about a page in no toctree; this says which, before a minute-long build.
    index = (ROOT / "docs" / "index.md").read_text()
    pages = sorted(p.stem for p in (ROOT / "docs").glob("*.md") if p.stem != "index")
    assert [p for p in pages if f"\n{p}\n" not in index] == []
