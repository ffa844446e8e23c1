"""The generated modules read like careful hand-written code: no branch whose outcome the version
range already decides, no unused import, no null test where the value cannot be null, no table
emitted twice, no one-part list joined; the compiled codec's programs are grouped as the Python
codecs are (one per distinct layout, the same children, the same program for each version)."""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "src" / "kafka_meta_proto" / "messages"
MODULES = sorted(p for p in PACKAGE.glob("*.py") if p.name != "__init__.py")


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.name}:{node.lineno}"


def constant_tests(tree: ast.Module) -> list[ast.AST]:
    """``if True:``, ``if False:``, ``while True and x`` and the like: a test (or part of an
    and/or) that is a constant."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            parts = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
            if any(isinstance(p, ast.Constant) for p in parts):
                found.append(node)
    return found


def unused_imports(tree: ast.Module) -> list[str]:
    imported = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "annotations":  # from __future__ import annotations
                    imported[alias.asname or alias.name.split(".")[0]] = node
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return sorted(name for name in imported if name not in loaded)


def _tests_none(test: ast.AST, var: str, ops: tuple) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == var
        and len(test.ops) == 1
        and isinstance(test.ops[0], ops)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def dead_null_tests(tree: ast.Module) -> list[ast.AST]:
    """``if _v is None`` (or ``x if _v is None else y``) inside ``if ... _v != None`` /
    ``_v is not None`` (alone or and-ed with other tests): the value cannot be None there."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        guarded = {
            p.left.id
            for p in parts
            if isinstance(p, ast.Compare) and isinstance(p.left, ast.Name) and _tests_none(p, p.left.id, (ast.IsNot, ast.NotEq))
        }
        for var in guarded:
            for inner in (n for stmt in node.body for n in ast.walk(stmt)):
                if isinstance(inner, (ast.If, ast.IfExp)) and _tests_none(inner.test, var, (ast.Is, ast.Eq)):
                    found.append(inner)
                if isinstance(inner, ast.IfExp) and isinstance(inner.test, ast.BoolOp):
                    if any(_tests_none(v, var, (ast.Is, ast.Eq)) for v in inner.test.values):
                        found.append(inner)
    return found


def raise_then_else(tree: ast.Module) -> list[ast.AST]:
    """``if x: raise ... else: ...``: the ``else`` is pointless after a raise. (Not counted: a
    raise in the middle of an if/elif/else chain, and an ``elif`` after the raise.)"""
    elifs = {
        id(node.orelse[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and id(node) not in elifs
        and len(node.body) == 1
        and isinstance(node.body[0], ast.Raise)
        and node.orelse
        and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If))
    ]


def duplicate_constants(tree: ast.Module) -> list[tuple[str, str]]:
    """Module-level tables and Structs (``_S0 = ...``, ``_R0 = {...}``) with the same value."""
    seen: dict[str, str] = {}
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if not name.startswith(("_S", "_R", "_A")):
                continue
            key = ast.dump(node.value)
            if key in seen:
                found.append((seen[key], name))
            seen.setdefault(key, name)
    return found


def joined_single_parts(tree: ast.Module) -> list[ast.AST]:
    """``_t = []; _t.append(x); ... b"".join(_t)``: one part needs no list."""
    found = []
    for node in ast.walk(tree):
        for body in (getattr(node, "body", None), getattr(node, "orelse", None)):
            if not isinstance(body, list):
                continue
            for i, stmt in enumerate(body[:-2]):
                if (
                    isinstance(stmt, ast.Assign)
                    and isinstance(stmt.value, ast.List)
                    and not stmt.value.elts
                    and isinstance(stmt.targets[0], ast.Name)
                ):
                    name = stmt.targets[0].id
                    one, then = body[i + 1], body[i + 2]
                    appends_once = (
                        isinstance(one, ast.Expr)
                        and isinstance(one.value, ast.Call)
                        and isinstance(one.value.func, ast.Attribute)
                        and one.value.func.attr == "append"
                        and isinstance(one.value.func.value, ast.Name)
                        and one.value.func.value.id == name
                    )
                    joins = any(
                        isinstance(n, ast.Call)
                        and isinstance(n.func, ast.Attribute)
                        and n.func.attr == "join"
                        and any(isinstance(a, ast.Name) and a.id == name for a in n.args)
                        for n in ast.walk(then)
                    )
                    if appends_once and joins:
                        found.append(stmt)
    return found


def _module_assigns(tree: ast.Module, prefix: str) -> dict[str, ast.expr]:
    return {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id.startswith(prefix)
    }


def _suffix(name: str) -> str:
    """``_read_Topic_v3``, ``_readn_Topic_v3``, ``_P_Topic_v3`` -> ``Topic_v3``."""
    return name.split("_", 2)[2]


def duplicate_programs(tree: ast.Module) -> list[tuple[str, str]]:
    """Programs equal to an earlier one once each child is named by the first program equal to
    it (so two parents whose children differ only by name count as equal too)."""
    first: dict[str, str] = {}  # program name -> the first program with the same value
    seen: dict[str, str] = {}
    found = []
    for name, value in _module_assigns(tree, "_P_").items():
        value = copy.deepcopy(value)
        for node in ast.walk(value):
            if isinstance(node, ast.Name) and node.id in first:
                node.id = first[node.id]
        key = ast.dump(value)
        if key in seen:
            found.append((seen[key], name))
        first[name] = seen.setdefault(key, name)
    return found


def _version_table(node: ast.expr) -> dict[int, str]:
    assert isinstance(node, ast.Dict)
    return {k.value: _suffix(v.id) for k, v in zip(node.keys, node.values)}  # type: ignore[union-attr]


def program_mismatches(tree: ast.Module) -> list[str]:
    """Where the programs and the Python readers disagree: a layout with one and not the other,
    a program whose children are not the ones its reader calls, a version given another layout."""
    readers = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith(("_read_", "_readn_"))
    }
    reader_children: dict[str, set[str]] = {}
    for name, fn in readers.items():
        calls = {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        reader_children.setdefault(_suffix(name), set()).update(_suffix(c) for c in calls & readers.keys())
    programs = _module_assigns(tree, "_P_")
    layouts = {_suffix(p) for p in programs}
    found = [f"{s}: a program and no reader" for s in sorted(layouts - reader_children.keys())]
    found += [f"{s}: a reader and no program" for s in sorted(reader_children.keys() - layouts)]
    for name, value in programs.items():
        children = {_suffix(n.id) for n in ast.walk(value) if isinstance(n, ast.Name) and n.id.startswith("_P_")}
        calls = reader_children.get(_suffix(name), children)
        if children != calls:
            found.append(f"{_suffix(name)}: program children {sorted(children)}, reader's {sorted(calls)}")
    installed = {
        node.value.args[0].id: _version_table(node.value.args[1])  # type: ignore[attr-defined]
        for node in tree.body
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and getattr(node.value.func, "id", "") == "_install"
    }
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Attribute)
            and node.targets[0].attr == "_READERS"
            and isinstance(node.targets[0].value, ast.Name)
        ):
            cls = node.targets[0].value.id
            if installed.get(cls) != _version_table(node.value):
                found.append(f"{cls}: programs by version {installed.get(cls)}, readers {_version_table(node.value)}")
    return found


def test_the_package_is_checked():
    assert len(MODULES) > 250


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_generated_module_style(path):
    tree = _tree(path)
    problems = [f"{_where(path, n)}: constant test" for n in constant_tests(tree)]
    problems += [f"{path.name}: unused import {name}" for name in unused_imports(tree)]
    problems += [f"{_where(path, n)}: null test where the value is not None" for n in dead_null_tests(tree)]
    problems += [f"{_where(path, n)}: else after raise" for n in raise_then_else(tree)]
    problems += [f"{path.name}: {b} repeats {a}" for a, b in duplicate_constants(tree)]
    problems += [f"{_where(path, n)}: a one-part list joined" for n in joined_single_parts(tree)]
    problems += [f"{path.name}: program {b} repeats {a}" for a, b in duplicate_programs(tree)]
    problems += [f"{path.name}: {m}" for m in program_mismatches(tree)]
    assert not problems, "\n".join(problems)


# The checks themselves, on code that has each fault.
FAULTY = '''
from struct import pack as _pack
from struct import Struct as _Struct

_S0 = _Struct(">i")
_S1 = _Struct(">i")


def f(o, out, version):
    if True:
        out.append(1)
    if version >= 1 and True:
        out.append(2)
    _v = o.x
    if _v != None:
        if _v is None:
            out.append(b"\\x00")
    if version >= 2 and _v is not None:
        out.append(None if _v is None else _v)
    if _v is None:
        raise ValueError("x")
    else:
        out.append(3)
    _t = []
    _t.append(_S0.pack(_v))
    out.append((1, b"".join(_t)))
'''


def test_the_checks_find_each_fault():
    tree = ast.parse(FAULTY)
    assert len(constant_tests(tree)) == 2
    assert unused_imports(tree) == ["_pack"]
    assert len(dead_null_tests(tree)) == 2
    assert len(raise_then_else(tree)) == 1
    assert duplicate_constants(tree) == [("_S0", "_S1")]
    assert len(joined_single_parts(tree)) == 1


FAULTY_PROGRAMS = """
def _readn_A_v0(buf, pos, n):
    pass
def _readn_A_v1(buf, pos, n):
    pass
def _read_B_v0(buf, pos):
    return _readn_A_v0(buf, pos, 1)
def _read_B_v1(buf, pos):
    return _readn_A_v0(buf, pos, 1)
def _read_D_v0(buf, pos):
    pass
B._READERS = {0: _read_B_v0, 1: _read_B_v1}
_P_A_v0 = (A, False, (("x", "i", False, False, None),), (), ())
_P_A_v1 = (A, False, (("x", "i", False, False, None),), (), ())
_P_B_v0 = (B, False, (("a", "[S", False, False, _P_A_v0),), (), ())
_P_B_v1 = (B, False, (("a", "[S", False, False, _P_A_v1),), (), ())
_P_C_v0 = (C, False, (), (), ())
_install(B, {0: _P_B_v0, 1: _P_B_v0})
"""


def test_the_program_checks_find_each_fault():
    tree = ast.parse(FAULTY_PROGRAMS)
    # A_v1 repeats A_v0; B_v1 differs from B_v0 only by naming that repeat
    assert duplicate_programs(tree) == [("_P_A_v0", "_P_A_v1"), ("_P_B_v0", "_P_B_v1")]
    assert program_mismatches(tree) == [
        "C_v0: a program and no reader",
        "D_v0: a reader and no program",
        "B_v1: program children ['A_v1'], reader's ['A_v0']",
        "B: programs by version {0: 'B_v0', 1: 'B_v0'}, readers {0: 'B_v0', 1: 'B_v1'}",
    ]


def test_the_program_checks_pass_a_real_module():
    tree = _tree(PACKAGE / "create_topics_request.py")
    # eight versions, three layouts of the message; two of each struct it holds
    assert len(_module_assigns(tree, "_P_")) == 9
    assert duplicate_programs(tree) == [] and program_mismatches(tree) == []
