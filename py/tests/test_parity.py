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

A partitioned queue against the core's table of its operations
(``leaseq._native.partitioned_operations()``, ``PARTITIONED`` in core/src/operations.rs), for
``leaseq.PartitionedQueue``, ``leaseq._native.AsyncPartitionedQueue``,
``leaseq.aio.PartitionedQueue`` and their stubs:

1. Every operation is a method of the operation's name.
2. One that shares its name with a queue operation has the parameters of the matching queue
   class's method (names, order, kinds, defaults): the sync class ``leaseq.Queue``'s, the
   native async one ``AsyncQueue``'s, the asyncio one ``leaseq.aio.Queue``'s, each stub its
   queue stub's. The partitioned queue's own (``partition``, ``partition_of``, ``queue_of``)
   take the one parameter of ``OWN_PARAMETERS``.
3. It is awaitable where the queue's method is; the partitioned queue's own send nothing and
   are plain methods everywhere.
4. No public method exists that the table lacks, but those of ``PARTITIONED_NON_OPERATIONS``.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Mapping
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


# A partitioned queue (see the module's docstring).

PARTITIONED = _native.partitioned_operations()

#: Public attributes of a partitioned queue that are not operations: properties that describe
#: it (the base naming the logical queue, the partitions' prefixes), send nothing and have no
#: counterpart in the other languages' tables.
PARTITIONED_NON_OPERATIONS = {"base", "partitions"}

#: The parameters of the partitioned queue's own operations (the table gives no arguments for
#: them): the same on every face.
OWN_PARAMETERS = {
    "partition": [Param("i", False, REQUIRED)],
    "partition_of": [Param("item", False, REQUIRED)],
    "queue_of": [Param("lease", False, REQUIRED)],
}

# The faces: (name, class, whether its methods are awaitable, the queue class it matches).
PARTITIONED_FACES: list[tuple[str, type, str, type]] = [
    ("leaseq.PartitionedQueue", leaseq.PartitionedQueue, "sync", leaseq.Queue),
    (
        "leaseq._native.AsyncPartitionedQueue",
        _native.AsyncPartitionedQueue,
        "future",
        _native.AsyncQueue,
    ),
    (
        "leaseq.aio.PartitionedQueue",
        leaseq.aio.PartitionedQueue,
        "coroutine",
        leaseq.aio.Queue,
    ),
]

#: The stub classes: (partitioned queue, the queue class it matches).
PARTITIONED_STUBS = [
    ("PartitionedQueue", "Queue"),
    ("AsyncPartitionedQueue", "AsyncQueue"),
]


def test_the_partitioned_table_is_the_cores() -> None:
    names = [op["name"] for op in PARTITIONED]
    assert len(names) == len(set(names)) and names[0] == "add"
    queue_ops = {op["name"] for op in OPERATIONS}
    for op in PARTITIONED:
        assert op["queue"] == (op["name"] in queue_ops), op["name"]
        assert op["rust"] and op["route"], op["name"]
    # The partitioned queue's own are exactly those of OWN_PARAMETERS.
    assert {op["name"] for op in PARTITIONED if not op["queue"]} == set(OWN_PARAMETERS)
    fail = next(op for op in PARTITIONED if op["name"] == "fail")
    assert fail["rust"] == ["fail", "fail_with_trace"]


@pytest.mark.parametrize(
    ("face", "op"),
    [
        pytest.param(face, op, id=f"{face[0]}.{op['name']}")
        for face in PARTITIONED_FACES
        for op in PARTITIONED
    ],
)
def test_each_partitioned_operation_is_a_method_like_the_queues(
    face: tuple[str, type, str, type], op: dict[str, Any]
) -> None:
    label, cls, awaitable, queue_cls = face
    name = op["name"]
    method = getattr(cls, name, None)
    assert method is not None, (
        f"{label} lacks `{name}`, an operation of the core's partitioned table "
        f"(core/src/operations.rs, PARTITIONED): {op['route']}"
    )
    if op["queue"]:
        queue_method = getattr(queue_cls, name)
        assert actual(method) == actual(queue_method), (
            f"{label}.{name}: parameters differ from {queue_cls.__qualname__}.{name}'s\n"
            f"  has:      {actual(method)}\n  expected: {actual(queue_method)}"
        )
        plain = not inspect.iscoroutinefunction(queue_method)
    else:
        assert actual(method) == OWN_PARAMETERS[name], (
            f"{label}.{name}: parameters {actual(method)}, "
            f"expected {OWN_PARAMETERS[name]}"
        )
        plain = True
    if awaitable in ("sync", "coroutine"):
        assert inspect.iscoroutinefunction(method) == (not plain), (
            f"{label}.{name} must be {'plain' if plain else 'async'}"
        )


@pytest.mark.parametrize(("class_name", "queue_class"), PARTITIONED_STUBS)
@pytest.mark.parametrize("op", PARTITIONED, ids=[op["name"] for op in PARTITIONED])
def test_the_stubs_declare_each_partitioned_operation(
    class_name: str, queue_class: str, op: dict[str, Any]
) -> None:
    f = stub_methods(class_name).get(op["name"])
    assert f is not None, f"_native.pyi: {class_name} lacks `{op['name']}`"
    if op["queue"]:
        q = stub_methods(queue_class)[op["name"]]
        assert stub_params(f) == stub_params(q), (
            f"_native.pyi: {class_name}.{op['name']}: parameters differ from "
            f"{queue_class}.{op['name']}'s\n"
            f"  has:      {stub_params(f)}\n  expected: {stub_params(q)}"
        )
        queue_returns = ast.unparse(q.returns) if q.returns else ""
        awaitable = queue_returns.startswith("asyncio.Future[")
    else:
        assert stub_params(f) == OWN_PARAMETERS[op["name"]], (
            f"_native.pyi: {class_name}.{op['name']}: parameters {stub_params(f)}"
        )
        awaitable = False
    returns = ast.unparse(f.returns) if f.returns else ""
    assert returns.startswith("asyncio.Future[") == awaitable, (
        f"_native.pyi: {class_name}.{op['name']} returns {returns}"
    )


PARTITIONED_PUBLIC = [
    pytest.param(label, [n for n in dir(cls) if not n.startswith("_")], id=label)
    for label, cls, _, _ in PARTITIONED_FACES
] + [
    pytest.param(
        f"_native.pyi {c}",
        [n for n in stub_methods(c) if not n.startswith("_")],
        id=f"_native.pyi {c}",
    )
    for c, _ in PARTITIONED_STUBS
]


@pytest.mark.parametrize(("label", "names"), PARTITIONED_PUBLIC)
def test_nothing_public_is_missing_from_the_partitioned_table(
    label: str, names: list[str]
) -> None:
    table = {op["name"] for op in PARTITIONED}
    extra = sorted(set(names) - table - PARTITIONED_NON_OPERATIONS)
    assert not extra, f"{label} has methods the core's partitioned table lacks: {extra}"


def test_the_partitioned_rule_catches_a_missing_or_different_operation() -> None:
    """The checks above fail for a partitioned queue class that lacks an operation, takes a
    queue operation's arguments differently, or is async where it sends nothing."""
    fail = next(op for op in PARTITIONED if op["name"] == "fail")
    partition_of = next(op for op in PARTITIONED if op["name"] == "partition_of")

    class Lacking:
        pass

    class Different:
        def fail(self, lease: object, error: object, retry: object = True) -> None: ...

    class Awaitable:
        async def partition_of(self, item: object) -> None: ...

    def check(cls: type, op: Mapping[str, Any], awaitable: str = "sync") -> None:
        test_each_partitioned_operation_is_a_method_like_the_queues(
            ("Test", cls, awaitable, leaseq.aio.Queue), dict(op)
        )

    with pytest.raises(AssertionError, match="lacks `fail`"):
        check(Lacking, fail)
    with pytest.raises(AssertionError, match="parameters differ"):
        check(Different, fail)
    with pytest.raises(AssertionError, match="must be plain"):
        check(Awaitable, partition_of, "coroutine")
    with pytest.raises(AssertionError, match=r"\['extra'\]"):
        test_nothing_public_is_missing_from_the_partitioned_table(
            "Extra", ["fail", "base", "extra"]
        )
