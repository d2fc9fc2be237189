"""Every public name has a docstring, in both faces; and the stubs of the native module, which
the API reference is generated from, carry the native module's own docstrings."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from types import ModuleType

import leaseq
import leaseq.aio
import pytest
from leaseq import _native


def public_members(module: ModuleType) -> list[tuple[str, object]]:
    found = []
    for name in module.__all__:
        obj = getattr(module, name)
        found.append((f"{module.__name__}.{name}", obj))
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, value in vars(obj).items():
                if not attr.startswith("_"):
                    found.append((f"{module.__name__}.{name}.{attr}", value))
    return found


MEMBERS = public_members(leaseq) + public_members(leaseq.aio)


@pytest.mark.parametrize(("name", "obj"), MEMBERS, ids=[name for name, _ in MEMBERS])
def test_has_docstring(name: str, obj: object) -> None:
    doc = (
        obj.__doc__
        if not isinstance(obj, (staticmethod, classmethod))
        else obj.__func__.__doc__
    )
    assert doc and doc.strip(), name


def test_both_faces_export_the_same_names() -> None:
    assert sorted(leaseq.__all__) == sorted(leaseq.aio.__all__)
    sync_methods = {m for m in vars(leaseq.Queue) if not m.startswith("_")}
    async_methods = {m for m in vars(leaseq.aio.Queue) if not m.startswith("_")}
    assert sync_methods == async_methods
    sync_client = {m for m in vars(leaseq.Client) if not m.startswith("_")}
    async_client = {m for m in vars(leaseq.aio.Client) if not m.startswith("_")}
    assert sync_client == {
        "cluster",
        "queue",
        "close",
        "is_cluster",
        "warnings",
        "create_partitioned",
        "partitioned",
    }
    # The asyncio client connects off the event loop: ``async with`` or ``connect()``.
    assert async_client == sync_client | {"connect"}
    # lease_from_parts sends nothing: a plain method on both faces.
    assert not inspect.iscoroutinefunction(leaseq.aio.Queue.lease_from_parts)
    for name in sync_methods - {"prefix", "lease_from_parts"}:
        assert inspect.iscoroutinefunction(getattr(leaseq.aio.Queue, name)), name
    # A partitioned queue: the same methods on both faces; those that send nothing (its
    # properties, and partition, partition_of and queue_of) are plain on the asyncio face.
    sync_p = {m for m in vars(leaseq.PartitionedQueue) if not m.startswith("_")}
    async_p = {m for m in vars(leaseq.aio.PartitionedQueue) if not m.startswith("_")}
    assert async_p == sync_p
    plain = {"base", "partitions", "partition", "partition_of", "queue_of"}
    for name in async_p:
        method = getattr(leaseq.aio.PartitionedQueue, name)
        assert inspect.iscoroutinefunction(method) == (name not in plain), name


STUBS = Path(leaseq.__file__).with_name("_native.pyi")


def stub_docstrings() -> list[tuple[str, str | None]]:
    """Every public class, method, property and function of ``_native.pyi`` (names without a
    leading underscore; dunders are left out) with its docstring, or ``None``."""
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    found: list[tuple[str, str | None]] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            found.append((node.name, ast.get_docstring(node)))
            found.extend(
                (f"{node.name}.{member.name}", ast.get_docstring(member))
                for member in node.body
                if isinstance(member, ast.FunctionDef)
                and not member.name.startswith("_")
            )
        elif isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            found.append((node.name, ast.get_docstring(node)))
    return found


STUB_DOCS = stub_docstrings()


def words(text: str) -> list[str]:
    """The text's words: line breaks and indentation are the stub's layout, not its content."""
    return text.split()


def test_the_stubs_are_read() -> None:
    names = {name for name, _ in STUB_DOCS}
    assert {"Client", "Queue", "Queue.lease", "Lease.token", "operations"} <= names
    assert not {name for name in names if name.rsplit(".", 1)[-1].startswith("_")}


@pytest.mark.parametrize(
    ("name", "stub_doc"), STUB_DOCS, ids=[name for name, _ in STUB_DOCS]
)
def test_stub_docstring_is_the_native_one(name: str, stub_doc: str | None) -> None:
    """The API reference (mkdocstrings) reads the stubs, ``help()`` reads the native module's
    ``__doc__`` (pyo3's, from the ``///`` comments of py/src): both must say the same, word for
    word. Where they differ, copy the Rust doc comment (``help(leaseq._native.X.y)``) into the
    stub."""
    obj: object = _native
    for part in name.split("."):
        obj = getattr(obj, part)
    native_doc = obj.__doc__
    assert stub_doc and stub_doc.strip(), f"{name}: no docstring in _native.pyi"
    assert native_doc and native_doc.strip(), f"{name}: no doc comment in py/src"
    assert words(stub_doc) == words(native_doc), (
        f"{name}: the docstring of _native.pyi differs from the doc comment in py/src:\n"
        f"{inspect.cleandoc(native_doc)}"
    )
