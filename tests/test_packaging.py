"""What the wheel is made of: pyproject.toml names its packages one by one (the generator is mapped
from codegen/ to kafka_meta_proto.codegen), so a new package folder must be named there too.
tools/check_wheel.sh builds the wheel and tries it in a fresh virtualenv."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_folder_is_listed_and_mapped():
    config = PYPROJECT["tool"]["setuptools"]
    assert config["package-dir"] == {"": "src", "kafka_meta_proto.codegen": "codegen"}
    in_tree = {
        ".".join(p.parent.relative_to(ROOT / "src").parts)
        for p in (ROOT / "src").rglob("__init__.py")
    }
    generator = {
        ".".join(("kafka_meta_proto",) + p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "codegen").rglob("__init__.py")
    }
    assert "kafka_meta_proto.codegen" in generator
    assert sorted(config["packages"]) == sorted(in_tree | generator)


def test_the_scripts_point_into_the_package():
    for script, target in PYPROJECT["project"]["scripts"].items():
        assert target.startswith("kafka_meta_proto."), (script, target)
