"""The clients' methods that moved to their parts stay one release as forwards: each warns with
a DeprecationWarning that names its replacement, at the caller's line, and hands its arguments
to the replacement and its result back."""

from __future__ import annotations

import asyncio
import io
from typing import Any, Dict, List, Tuple

import pytest

import idnode
import idnode.aio
from cluster import Control
from idnode._deprecated import AsyncClientForwards, ClientForwards, _Forward

# Every forward: the replacement, and the arguments a call of it is checked with.
MOVED: Dict[str, Tuple[str, Tuple[Any, ...], Dict[str, Any]]] = {
    "status": ("admin.status", (), {"consistent": True}),
    "whoami": ("admin.whoami", (), {"timeout": 5}),
    "cluster_version": ("admin.cluster_version", (), {}),
    "set_cluster_version": ("admin.set_cluster_version", (2,), {}),
    "add_node": ("admin.add_node", ("127.0.0.1:1", "127.0.0.1:2"), {"tag": "Z", "non_voter": True}),
    "remove_node": ("admin.remove_node", ("Z",), {}),
    "transfer_leadership": ("admin.transfer_leadership", ("B",), {}),
    "backup": ("admin.backup", (io.BytesIO(),), {"database": "default"}),
    "restore": ("admin.restore", (io.BytesIO(b"backup"),), {"ahead": idnode.Margin(hilo_add=1)}),
    "release_owner": ("admin.release_owner", ("signup",), {}),
    "create_series": ("series.create", ("INV", "INV-{n}"), {"period": "year"}),
    "list_series": ("series.list", (), {}),
    "issue": ("series.issue", ("INV",), {"request_id": "r1"}),
    "void": ("series.void", ("INV", 1), {"reason": "typo"}),
    "verify_series": ("series.verify", ("INV",), {}),
    "journal": ("series.journal", ("INV",), {"from_seq": 2}),
    "create_database": ("databases.create", ("tenant",), {"max_claims": 3}),
    "delete_database": ("databases.delete", ("tenant",), {"force": True}),
    "list_databases": ("databases.list", (), {}),
    "make_opaque": ("databases.make_opaque", ("tenant", ["orders"]), {}),
    "create_key": ("databases.create_key", ("tenant", "reader"), {}),
    "delete_key": ("databases.delete_key", ("k1",), {}),
    "list_keys": ("databases.list_keys", (), {}),
    "assign_id": ("databases.assign_id", (object(),), {"collection": "orders"}),
    "acquire_worker": ("workers.acquire", (), {"holder": "h", "lease": 5}),
    "renew_worker": ("workers.renew", (3, 1), {"lease": 5}),
    "release_worker": ("workers.release", (3, 1), {}),
    "list_workers": ("workers.list", (), {"page_size": 10}),
}


class Recorder:
    """A part that records the calls it gets and answers each with an object of its own."""

    def __init__(self, calls: List[Tuple[str, Tuple[Any, ...], Dict[str, Any], object]]) -> None:
        self.calls = calls

    def __getattr__(self, name: str) -> Any:
        def method(*args: Any, **kwargs: Any) -> object:
            answer = object()
            self.calls.append((name, args, kwargs, answer))
            return answer
        return method


def forwards(cls: type) -> List[str]:
    return sorted(name for name, v in vars(cls).items() if isinstance(v, _Forward))


def test_every_forward_is_checked_here() -> None:
    assert forwards(ClientForwards) == sorted(MOVED)
    assert forwards(AsyncClientForwards) == sorted(MOVED)


@pytest.mark.parametrize("asyncio_client", [False, True], ids=["sync", "asyncio"])
@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_forward_warns_naming_its_replacement_and_calls_it(old: str, asyncio_client: bool) -> None:
    async def check() -> None:
        make = idnode.aio.Client if asyncio_client else idnode.Client
        c: Any = make(["127.0.0.1:1"])
        calls: List[Tuple[str, Tuple[Any, ...], Dict[str, Any], object]] = []
        new, args, kwargs = MOVED[old]
        part, name = new.split(".")
        c.__dict__[part] = Recorder(calls)  # in place of the cached part
        with pytest.warns(DeprecationWarning, match=rf"^idnode: Client\.{old} is deprecated .*: use client\.{part}\.{name}$") as warned:
            got = getattr(c, old)(*args, **kwargs)
        assert [w.filename for w in warned] == [__file__], "the warning points at the caller"
        assert calls == [(name, args, kwargs, got)]
        del c.__dict__[part]
        await c.close() if asyncio_client else c.close()

    asyncio.run(check())


@pytest.mark.topology({"nodes": 1})
def test_the_forwards_still_work_against_a_node(cluster: Control) -> None:
    with idnode.Client(cluster.addrs()) as c:
        with pytest.warns(DeprecationWarning):
            c.create_series("F", "F-{n}")
            assert c.issue("F").id == "F-1"
            assert [e.id for e in c.journal("F")] == ["F-1"]
            assert c.whoami().admin == "loopback"
            assert "default" in {d.name for d in c.list_databases()}
        assert c.series.verify("F").ok

    async def run() -> List[Any]:
        async with idnode.aio.Client(cluster.addrs()) as c:
            with pytest.warns(DeprecationWarning):
                entry = await c.issue("F")
                journal = [e.id async for e in c.journal("F")]
                lease = await c.acquire_worker(holder="forward", lease=5)
                await c.release_worker(lease.worker, lease.epoch)
                return [entry.id, journal, (await c.status()).leader != ""]

    assert asyncio.run(run()) == ["F-2", ["F-1", "F-2"], True]
