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
from idnode.v1 import idnode_pb2 as pb

TOKEN = "admin-token-of-the-test"
TOPOLOGY = {"nodes": 3, "adminToken": TOKEN}


def follower(c: idnode.Client) -> str:
    status = c.admin.status(consistent=True)
    return next(n.tag for n in status.nodes if n.tag != status.leader)


@pytest.mark.topology(TOPOLOGY)
def test_the_admin_calls_of_the_sync_client(cluster: Control) -> None:
    with idnode.Client(cluster.addrs()) as anyone:
        assert anyone.admin.whoami().admin == "", "loopback is no right on a node with an admin token"
        with pytest.raises(idnode.Unauthenticated):
            anyone.databases.create("refused")
    with idnode.Client(cluster.addrs(), admin_token=TOKEN) as c:
        assert c.admin.whoami().admin == "token"
        version = c.admin.cluster_version()
        assert version.finalised >= 1 and c.admin.set_cluster_version(version.finalised).finalised == version.finalised

        c.claim(["users/a", "users/b"], owner="signup")
        assert c.admin.release_owner("signup") == 2 and c.get_claims(["users/a"]).items == ()

        c.databases.create("tenant", max_identities=5)
        assert {d.name for d in c.databases.list()} == {"default", "tenant"}
        key_id, key = c.databases.create_key("tenant", "writer")
        assert [k.id for k in c.databases.list_keys()] == [key_id]
        with idnode.Client(cluster.addrs(), database="tenant", api_key=key) as tenant:
            assert tenant.admin.whoami().key.database == "tenant"
            assert tenant.generate("orders|") == ["orders/1"]
        c.databases.delete_key(key_id)
        assert c.databases.list_keys() == []
        c.databases.delete("tenant", force=True)
        assert {d.name for d in c.databases.list()} == {"default"}

        c.next_identity("backed-up", 7)
        out = io.BytesIO()
        info = c.admin.backup(out, database="default")  # a whole cluster's goes to another cluster
        assert info.bytes == len(out.getvalue()) > 0 and info.index > 0 and info.leader
        restored = c.admin.restore(io.BytesIO(out.getvalue()))
        assert restored.identities >= 1 and restored.identities_raised == 0
        assert not restored.HasField("ahead") and restored.identities_skipped_max == 0

        # A margin skips that far above the backup, and the answer says so; the backup's
        # opaque database is counted, and holds its key here already, so none is put back.
        c.databases.create("ledger")
        c.databases.make_opaque("ledger", ["invoices"])
        with idnode.Client(cluster.addrs(), database="ledger", admin_token=TOKEN) as ledger:
            ledger.next_identity("credits", 10)
            ledger.generate("invoices|", 2)
            out = io.BytesIO()
            c.admin.backup(out, database="ledger")
            ahead = c.admin.restore(io.BytesIO(out.getvalue()), ahead=idnode.Margin(identities_add=100))
            assert (ahead.ahead.identities.add, ahead.ahead.identities.percent, ahead.ahead.hilo.add) == (100, 0, 0), ahead
            assert (ahead.identities, ahead.identities_raised, ahead.identities_skipped_min, ahead.identities_skipped_max) == (2, 2, 100, 100), ahead
            assert (ahead.opaque_databases, ahead.opaque_restored) == (1, 0), ahead
            assert ledger.next_identity("credits").first == 111
        with pytest.raises(idnode.InvalidArgument):
            c.admin.restore(io.BytesIO(out.getvalue()), ahead=idnode.Margin(hilo_percent=-1))
        # By rates: the backup, taken by this build, recorded its cluster's rates, and the
        # answer says what the margin assumed; HiLo keeps the margin given.
        by_rates = c.admin.restore(io.BytesIO(out.getvalue()), ahead=idnode.Margin(hilo_add=64, by_rates=True))
        assert by_rates.HasField("rates") and by_rates.rates.recorded and by_rates.rates.factor == 2, by_rates
        assert not by_rates.ahead.HasField("identities") and by_rates.ahead.hilo.add == 64, by_rates

        leader = c.admin.status(consistent=True).leader
        new_leader = c.admin.transfer_leadership()
        assert new_leader != leader
        assert c.admin.add_node("127.0.0.1:1", "127.0.0.1:2", tag="Z", non_voter=True).node.tag == "Z"
        assert "Z" in {n.tag for n in c.admin.status(consistent=True).nodes}
        c.admin.remove_node("Z")
        gone = follower(c)
        c.admin.remove_node(gone)
        assert {n.tag for n in c.admin.status(consistent=True).nodes} == {"A", "B", "C"} - {gone}


@pytest.mark.topology(TOPOLOGY)
def test_the_admin_calls_of_the_asyncio_client(cluster: Control) -> None:
    async def main() -> Dict[str, Any]:
        async with idnode.aio.Client(cluster.addrs(), admin_token=TOKEN) as c:
            got: Dict[str, Any] = {"admin": (await c.admin.whoami()).admin}
            version = await c.admin.cluster_version()
            got["version"] = (await c.admin.set_cluster_version(version.finalised)).finalised == version.finalised
            await c.claim(["users/a"], owner="signup")
            got["released"] = await c.admin.release_owner("signup")
            await c.databases.create("tenant")
            key_id, key = await c.databases.create_key("tenant", "reader")
            got["keys"] = [k.id for k in await c.databases.list_keys()] == [key_id] and bool(key)
            await c.databases.delete_key(key_id)
            got["databases"] = sorted(d.name for d in await c.databases.list())
            await c.databases.delete("tenant")
            await c.next_identity("backed-up", 7)
            out = io.BytesIO()
            info = await c.admin.backup(out, database="default")
            got["backup"] = info.bytes == len(out.getvalue()) > 0
            got["restored"] = (await c.admin.restore(io.BytesIO(out.getvalue()))).identities >= 1
            ahead = await c.admin.restore(io.BytesIO(out.getvalue()), ahead=idnode.Margin(identities_add=5, identities_percent=10, hilo_add=64))
            got["margin"] = (ahead.ahead.identities.percent, ahead.ahead.hilo.add, ahead.identities_skipped_min >= 5)
            leader = (await c.admin.status(consistent=True)).leader
            got["moved"] = await c.admin.transfer_leadership() != leader
            await c.admin.add_node("127.0.0.1:1", "127.0.0.1:2", tag="Z", non_voter=True)
            got["added"] = "Z" in {n.tag for n in (await c.admin.status(consistent=True)).nodes}
            await c.admin.remove_node("Z")
            got["removed"] = "Z" not in {n.tag for n in (await c.admin.status(consistent=True)).nodes}
            return got

    assert asyncio.run(main()) == {
        "admin": "token", "version": True, "released": 1, "keys": True, "databases": ["default", "tenant"],
        "backup": True, "restored": True, "margin": (10, 64, True), "moved": True, "added": True, "removed": True,
    }


def test_a_restore_carries_its_margin_in_the_first_chunk_and_wants_it_echoed() -> None:
    call, margin = _calls.restore(idnode.Margin(hilo_percent=20))
    assert margin is not None and (margin.identities.add, margin.hilo.percent) == (0, 20)
    chunks = list(_calls.RestoreChunks(b"first", io.BytesIO(b"second"), margin))
    assert [c.data for c in chunks] == [b"first", b"second"]
    assert chunks[0].ahead == margin and not chunks[1].HasField("ahead")
    assert call.result(pb.RestoreResponse(ahead=margin, hilo_skipped_max=9)).hilo_skipped_max == 9
    # A node of an older build answers no margin: the counters are at the backup's values only.
    with pytest.raises(idnode.MarginNotApplied) as older:
        call.result(pb.RestoreResponse(identities=3))
    assert isinstance(older.value, idnode.FailedPrecondition) and older.value.reason == "MARGIN_NOT_APPLIED"
    assert older.value.response.identities == 3 and "HiLo 0+20%" in older.value.message
    # No margin, or one of zeros, is none: the first chunk carries nothing, and nothing is wanted back.
    for ahead in (None, idnode.Margin()):
        call, margin = _calls.restore(ahead)
        assert margin is None and call.result(pb.RestoreResponse()).identities == 0
    # By rates: only the kinds given a part are set, and an answer without rates did not take them.
    call, margin = _calls.restore(idnode.Margin(hilo_add=64, by_rates=True))
    assert margin is not None and margin.by_rates and not margin.HasField("identities") and margin.hilo.add == 64
    assert call.result(pb.RestoreResponse(ahead=margin, rates=pb.RatesMargin(recorded=True))).rates.recorded
    with pytest.raises(idnode.MarginNotApplied) as no_rates:
        call.result(pb.RestoreResponse(ahead=margin))
    assert "the rest by rates" in no_rates.value.message
    call, margin = _calls.restore(idnode.Margin(by_rates=True))
    assert margin == pb.RestoreMargin(by_rates=True)
    for bad in (idnode.Margin(identities_add=-1), idnode.Margin(hilo_add=True), idnode.Margin(by_rates=1), "5000"):  # type: ignore[arg-type]
        with pytest.raises(idnode.InvalidArgument):
            _calls.restore(bad)  # type: ignore[arg-type]


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
