"""The generated modules read like careful hand-written code: no branch whose outcome the version
range already decides, no unused import, no null test where the value cannot be null, no table
emitted twice, no one-part list joined. (The compiled codec's programs are derived at run time:
tests/test_layouts.py.)"""

from __future__ import annotations

import ast
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
