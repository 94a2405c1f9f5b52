"""The administration calls of both clients against real nodes: who the caller is, cluster
versions, databases and keys, leadership, membership, backup and restore, and releasing an
owner's claims."""

from __future__ import annotations

import asyncio
import io
from typing import Any, Dict, Tuple

import grpc
import pytest

import idnode
import idnode.aio
from cluster import Control
from idnode import _calls
from idnode._core import Attempts, Nodes, Options
from idnode._private import rpc_status_pb2

TOKEN = "admin-token-of-the-test"
TOPOLOGY = {"nodes": 3, "adminToken": TOKEN}


def follower(c: idnode.Client) -> str:
    status = c.status(consistent=True)
    return next(n.tag for n in status.nodes if n.tag != status.leader)


@pytest.mark.topology(TOPOLOGY)
def test_the_admin_calls_of_the_sync_client(cluster: Control) -> None:
    with idnode.Client(cluster.addrs()) as anyone:
        assert anyone.whoami().admin == "", "loopback is no right on a node with an admin token"
        with pytest.raises(idnode.Unauthenticated):
            anyone.create_database("refused")
    with idnode.Client(cluster.addrs(), admin_token=TOKEN) as c:
        assert c.whoami().admin == "token"
        version = c.cluster_version()
        assert version.finalised >= 1 and c.set_cluster_version(version.finalised).finalised == version.finalised

        c.claim(["users/a", "users/b"], owner="signup")
        assert c.release_owner("signup") == 2 and c.get_claims(["users/a"]).items == ()

        c.create_database("tenant", max_identities=5)
        assert {d.name for d in c.list_databases()} == {"default", "tenant"}
        key_id, key = c.create_key("tenant", "writer")
        assert [k.id for k in c.list_keys()] == [key_id]
        with idnode.Client(cluster.addrs(), database="tenant", api_key=key) as tenant:
            assert tenant.whoami().key.database == "tenant"
            assert tenant.generate("orders|") == ["orders/1"]
        c.delete_key(key_id)
        assert c.list_keys() == []
        c.delete_database("tenant", force=True)
        assert {d.name for d in c.list_databases()} == {"default"}

        c.next_identity("backed-up", 7)
        out = io.BytesIO()
        info = c.backup(out, database="default")  # a whole cluster's goes to another cluster
        assert info.bytes == len(out.getvalue()) > 0 and info.index > 0 and info.leader
        restored = c.restore(io.BytesIO(out.getvalue()))
        assert restored.identities >= 1 and restored.identities_raised == 0

        leader = c.status(consistent=True).leader
        new_leader = c.transfer_leadership()
        assert new_leader != leader
        assert c.add_node("127.0.0.1:1", "127.0.0.1:2", tag="Z", non_voter=True).node.tag == "Z"
        assert "Z" in {n.tag for n in c.status(consistent=True).nodes}
        c.remove_node("Z")
        gone = follower(c)
        c.remove_node(gone)
        assert {n.tag for n in c.status(consistent=True).nodes} == {"A", "B", "C"} - {gone}


@pytest.mark.topology(TOPOLOGY)
def test_the_admin_calls_of_the_asyncio_client(cluster: Control) -> None:
    async def main() -> Dict[str, Any]:
        async with idnode.aio.Client(cluster.addrs(), admin_token=TOKEN) as c:
            got: Dict[str, Any] = {"admin": (await c.whoami()).admin}
            version = await c.cluster_version()
            got["version"] = (await c.set_cluster_version(version.finalised)).finalised == version.finalised
            await c.claim(["users/a"], owner="signup")
            got["released"] = await c.release_owner("signup")
            await c.create_database("tenant")
            key_id, key = await c.create_key("tenant", "reader")
            got["keys"] = [k.id for k in await c.list_keys()] == [key_id] and bool(key)
            await c.delete_key(key_id)
            got["databases"] = sorted(d.name for d in await c.list_databases())
            await c.delete_database("tenant")
            await c.next_identity("backed-up", 7)
            out = io.BytesIO()
            info = await c.backup(out, database="default")
            got["backup"] = info.bytes == len(out.getvalue()) > 0
            got["restored"] = (await c.restore(io.BytesIO(out.getvalue()))).identities >= 1
            leader = (await c.status(consistent=True)).leader
            got["moved"] = await c.transfer_leadership() != leader
            await c.add_node("127.0.0.1:1", "127.0.0.1:2", tag="Z", non_voter=True)
            got["added"] = "Z" in {n.tag for n in (await c.status(consistent=True)).nodes}
            await c.remove_node("Z")
            got["removed"] = "Z" not in {n.tag for n in (await c.status(consistent=True)).nodes}
            return got

    assert asyncio.run(main()) == {
        "admin": "token", "version": True, "released": 1, "keys": True, "databases": ["default", "tenant"],
        "backup": True, "restored": True, "moved": True, "added": True, "removed": True,
    }


class Failed(grpc.RpcError):
    """A failed attempt as grpc reports it, with the reason an idnode node gives."""

    def __init__(self, code: grpc.StatusCode, details: str, reason: str = "") -> None:
        self._code, self._details, self._reason = code, details, reason

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def initial_metadata(self) -> Tuple[()]:
        return ()

    def trailing_metadata(self) -> Tuple[Tuple[str, bytes], ...]:
        if not self._reason:
            return ()
        status = rpc_status_pb2.Status(code=self._code.value[0], message=self._details)
        detail = status.details.add()
        detail.type_url = "type.googleapis.com/google.rpc.ErrorInfo"
        detail.value = rpc_status_pb2.ErrorInfo(reason=self._reason, domain="idnode.dev").SerializeToString()
        return (("grpc-status-details-bin", status.SerializeToString()),)


@pytest.mark.parametrize("failure, goes_on", [
    (Failed(grpc.StatusCode.UNAVAILABLE, "the answer was lost", "OUTCOME_UNKNOWN"), False),
    (Failed(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"), False),
    (Failed(grpc.StatusCode.UNAVAILABLE, "no quorum", "NO_QUORUM"), True),
    (Failed(grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses; Connection refused"), True),
])
def test_a_cluster_change_goes_to_another_node_only_when_the_first_did_nothing(failure: Failed, goes_on: bool) -> None:
    opts = Options.make(["127.0.0.1:1", "127.0.0.1:2"])
    att = Attempts(Nodes(opts.nodes, True), opts, _calls.remove_node("B"), 30.0)
    node, _, _ = att.next()
    if goes_on:
        att.failed(node, failure)
        assert att.next()[0] != node
    else:
        with pytest.raises(idnode.IdnodeError):
            att.failed(node, failure)
