"""kafka_meta_proto._strenum.StrEnum behaves as enum.StrEnum does (on 3.10 it is a stand-in)."""

from __future__ import annotations

import json
from enum import auto

from kafka_meta_proto._strenum import StrEnum
from kafka_meta_proto.log.names import FileKind
from kafka_meta_proto.log.scanning import DamageKind


class Colour(StrEnum):
    RED = "red light"
    DEEP_BLUE = auto()


def test_members_are_their_values_as_text():
    assert isinstance(Colour.RED, str)
    assert Colour.RED == "red light"
    assert str(Colour.RED) == "red light"
    assert f"{Colour.RED}|{Colour.RED:>10}|" == "red light| red light|"
    assert "%s" % Colour.RED == "red light"
    assert json.dumps({Colour.RED: Colour.RED}) == '{"red light": "red light"}'
    assert repr(Colour.RED) == "<Colour.RED: 'red light'>"


def test_lookup_by_value_and_auto_names():
    assert Colour("red light") is Colour.RED
    assert Colour.DEEP_BLUE == "deep_blue"  # auto() is the lower-cased name
    assert {"red light": 1}[Colour.RED] == 1  # hashes as its text


def test_the_package_enums_write_their_values():
    assert f"{DamageKind.TRUNCATED}" == "truncated tail"
    assert [str(k) for k in FileKind] == [k.value for k in FileKind]
