"""The Python binding against the core's operation table (``leaseq._native.operations()``, the
table of core/src/operations.rs): a missing, extra or misnamed operation or argument fails here.

The rules the Python binding follows, each checked below for ``leaseq.Queue``,
``leaseq._native.AsyncQueue``, ``leaseq.aio.Queue`` and the stubs (``_native.pyi``):

1. Every operation is a method of the operation's name.
2. Its parameters are the table's arguments that Python has (``only`` is ``None`` or
   ``"python"``), in the table's order, by the same names.
3. A required argument has no default. An optional one defaults to ``None`` (the table's
   default applies), except where the table's default is a number: then that number (``list``:
   ``start=0``, ``count=100``); and except the few of ``PYTHON_SPELLINGS``, where Python spells
   the table's default as a value of the argument's own type.
4. An argument for Python only is keyword-only (``lease``'s ``block``); the shared ones are
   positional-or-keyword.
5. An argument of kind ``Config`` is spread as keyword-only parameters, one per field of
   ``QueueConfig``, each defaulting to ``None``.
6. The asyncio methods are awaitable (``leaseq.aio.Queue``: coroutine functions; the native
   ``AsyncQueue``'s stubs: ``asyncio.Future``), except an operation that sends nothing
   (``round_trips`` 0), which is a plain method everywhere.
7. No public method exists that the table lacks, but those of ``NON_OPERATIONS``.

And the runner's events: ``Worker.on`` takes exactly the table's events, and says so.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any, Callable, NamedTuple

import leaseq
import leaseq.aio
import pytest
from leaseq import _native

OPERATIONS = _native.operations()
STUBS = Path(leaseq.__file__).with_name("_native.pyi")

#: Public attributes of a queue that are not operations.
NON_OPERATIONS = {"prefix"}

#: (operation, argument) -> the default Python shows for a default the table words: the value
#: of the argument's own type that means it.
PYTHON_SPELLINGS: dict[tuple[str, str], object] = {
    # `retry` takes True (the backoff), False (dead now) or a delay: True is the table's
    # "the item's backoff while attempts remain".
    ("fail", "retry"): True,
}

#: A parameter without a default.
REQUIRED = "<required>"


class Param(NamedTuple):
    name: str
    keyword_only: bool
    default: object


def number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def config_fields() -> list[str]:
    """The fields of ``QueueConfig``, in the stubs' order."""
    tree = ast.parse(STUBS.read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "QueueConfig":
            return [
                f.name
                for f in node.body
                if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")
            ]
    raise AssertionError("the stubs lack QueueConfig")


def expected(op: dict[str, Any]) -> list[Param]:
    """The parameters the rules above give an operation."""
    params = []
    for arg in op["args"]:
        if arg["only"] not in (None, "python"):
            continue
        if arg["kind"] == "Config":
            params += [Param(f, True, None) for f in config_fields()]
            continue
        if arg["required"]:
            default: object = REQUIRED
        elif (op["name"], arg["name"]) in PYTHON_SPELLINGS:
            default = PYTHON_SPELLINGS[op["name"], arg["name"]]
        else:
            n = number(arg["default"])
            default = None if n is None else n
        params.append(Param(arg["name"], arg["only"] == "python", default))
    return params


def actual(method: Callable[..., Any]) -> list[Param]:
    """A method's parameters, ``self`` left out (pyo3 methods: from ``__text_signature__``)."""
    out = []
    for p in list(inspect.signature(method).parameters.values())[1:]:
        assert p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY), (
            f"{method.__qualname__}: `{p.name}` is {p.kind.description}"
        )
        default = REQUIRED if p.default is p.empty else p.default
        out.append(Param(p.name, p.kind == p.KEYWORD_ONLY, default))
    return out


def stub_methods(class_name: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(STUBS.read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
    raise AssertionError(f"the stubs lack {class_name}")


def stub_params(f: ast.FunctionDef) -> list[Param]:
    a = f.args
    positional = a.args[1:]  # self
    defaults: list[object] = [REQUIRED] * (len(positional) - len(a.defaults))
    defaults += [ast.literal_eval(d) for d in a.defaults]
    out = [Param(p.arg, False, d) for p, d in zip(positional, defaults)]
    out += [
        Param(p.arg, True, REQUIRED if d is None else ast.literal_eval(d))
        for p, d in zip(a.kwonlyargs, a.kw_defaults)
    ]
    return out


# The faces: (name, class, whether its methods are awaitable).
FACES: list[tuple[str, type, str]] = [
    ("leaseq.Queue", leaseq.Queue, "sync"),
    ("leaseq._native.AsyncQueue", _native.AsyncQueue, "future"),
    ("leaseq.aio.Queue", leaseq.aio.Queue, "coroutine"),
]

CASES = [
    pytest.param(face, op, id=f"{face[0]}.{op['name']}")
    for face in FACES
    for op in OPERATIONS
]


def test_the_table_is_the_cores() -> None:
    names = [op["name"] for op in OPERATIONS]
    assert len(names) == len(set(names)) and "complete_batch" in names
    lease = next(op for op in OPERATIONS if op["name"] == "lease")
    assert [a["name"] for a in lease["args"]] == ["ttl", "timeout", "block"]
    assert lease["args"][2]["only"] == "python"
    assert {op["round_trips"] for op in OPERATIONS} == {0, 1}
    assert _native.events()[0] == "completed"


@pytest.mark.parametrize(("face", "op"), CASES)
def test_each_operation_is_a_method_with_the_tables_arguments(
    face: tuple[str, type, str], op: dict[str, Any]
) -> None:
    label, cls, awaitable = face
    name = op["name"]
    method = getattr(cls, name, None)
    assert method is not None, (
        f"{label} lacks `{name}`, an operation of the core's table "
        f"(core/src/operations.rs): {op['summary']}"
    )
    assert actual(method) == expected(op), (
        f"{label}.{name}: parameters differ from the table's arguments\n"
        f"  has:      {actual(method)}\n  expected: {expected(op)}"
    )
    if awaitable == "coroutine":
        assert inspect.iscoroutinefunction(method) == (op["round_trips"] > 0), (
            f"{label}.{name} must be {'async' if op['round_trips'] else 'plain'}"
        )


@pytest.mark.parametrize("class_name", ["Queue", "AsyncQueue"])
@pytest.mark.parametrize("op", OPERATIONS, ids=[op["name"] for op in OPERATIONS])
def test_the_stubs_declare_each_operation(class_name: str, op: dict[str, Any]) -> None:
    methods = stub_methods(class_name)
    f = methods.get(op["name"])
    assert f is not None, f"_native.pyi: {class_name} lacks `{op['name']}`"
    assert stub_params(f) == expected(op), (
        f"_native.pyi: {class_name}.{op['name']}: parameters differ from the table's\n"
        f"  has:      {stub_params(f)}\n  expected: {expected(op)}"
    )
    returns = ast.unparse(f.returns) if f.returns else ""
    if class_name == "AsyncQueue":
        assert returns.startswith("asyncio.Future[") == (op["round_trips"] > 0), (
            f"_native.pyi: AsyncQueue.{op['name']} returns {returns}"
        )


PUBLIC = [
    pytest.param(label, [n for n in dir(cls) if not n.startswith("_")], id=label)
    for label, cls, _ in FACES
] + [
    pytest.param(
        f"_native.pyi {c}",
        [n for n in stub_methods(c) if not n.startswith("_")],
        id=f"_native.pyi {c}",
    )
    for c in ("Queue", "AsyncQueue")
]


@pytest.mark.parametrize(("label", "names"), PUBLIC)
def test_nothing_public_is_missing_from_the_table(label: str, names: list[str]) -> None:
    table = {op["name"] for op in OPERATIONS}
    extra = sorted(set(names) - table - NON_OPERATIONS)
    assert not extra, f"{label} has methods the core's table lacks: {extra}"


def test_the_rule_catches_a_missing_or_different_operation() -> None:
    """The checks above fail for a queue class that lacks an operation or names an argument
    differently (so a passing run means something)."""
    complete = next(op for op in OPERATIONS if op["name"] == "complete")

    class Lacking:
        pass

    class Misnamed:
        def complete(
            self, lease: object, result: object = None, keep_for: object = None
        ) -> None: ...

    class Positional:
        def lease(
            self, ttl: object = None, timeout: object = None, block: object = None
        ) -> None: ...

    with pytest.raises(AssertionError, match="lacks `complete`"):
        test_each_operation_is_a_method_with_the_tables_arguments(
            ("Lacking", Lacking, "sync"), complete
        )
    with pytest.raises(AssertionError, match="parameters differ"):
        test_each_operation_is_a_method_with_the_tables_arguments(
            ("Misnamed", Misnamed, "sync"), complete
        )
    lease = next(op for op in OPERATIONS if op["name"] == "lease")
    with pytest.raises(AssertionError, match="parameters differ"):
        test_each_operation_is_a_method_with_the_tables_arguments(
            ("Positional", Positional, "sync"), lease
        )
    with pytest.raises(AssertionError, match=r"\['extra'\]"):
        test_nothing_public_is_missing_from_the_table("Extra", ["complete", "extra"])


def test_list_and_fail_show_their_defaults() -> None:
    """The rule's exceptions are what a user sees."""
    sig = inspect.signature(leaseq.Queue.list)
    assert (sig.parameters["start"].default, sig.parameters["count"].default) == (
        0,
        100,
    )
    assert inspect.signature(leaseq.Queue.fail).parameters["retry"].default is True


def test_worker_events_are_the_tables() -> None:
    """``Worker.on`` documents and takes exactly the core's events (and ``"*"``)."""
    events = _native.events()
    doc = leaseq.Worker.on.__doc__ or ""
    listed = re.findall(r"``(\w+)``", doc.split("``event``:")[-1].split("(``id``")[0])
    assert listed == events, f"Worker.on's docstring lists {listed}, the core {events}"
    worker = leaseq.Worker(object(), lambda _job: None)
    for name in [*events, "*"]:
        worker.on(name, lambda *_: None)
    with pytest.raises(leaseq.InvalidArgumentError) as refused:
        worker.on("leaseLost", lambda *_: None)
    assert refused.value.argument == "event"
    # The events the Python layer names itself (to skip building `completed` ones) are the core's.
    special = re.findall(
        r'(?:name == |_listeners\.get\()"(\w+)"', inspect.getsource(leaseq.Worker)
    )
    assert special and set(special) <= set(events)
