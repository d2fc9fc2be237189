"""Every public name has a docstring, in both faces."""

from __future__ import annotations

import inspect
from types import ModuleType

import leaseq
import leaseq.aio
import pytest


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
    assert sync_client == {"cluster", "queue", "close", "is_cluster", "warnings"}
    # The asyncio client connects off the event loop: ``async with`` or ``connect()``.
    assert async_client == sync_client | {"connect"}
    # lease_from_parts sends nothing: a plain method on both faces.
    assert not inspect.iscoroutinefunction(leaseq.aio.Queue.lease_from_parts)
    for name in sync_methods - {"prefix", "lease_from_parts"}:
        assert inspect.iscoroutinefunction(getattr(leaseq.aio.Queue, name)), name
