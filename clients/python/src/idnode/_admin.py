"""``client.admin``: the cluster's administration (members, leadership, backup and restore, the
cluster version, releasing an owner's claims, status and credentials), for the synchronous and
the asyncio client."""

from __future__ import annotations

from typing import TYPE_CHECKING, BinaryIO, Optional

from . import _calls
from ._calls import BackupInfo, Margin
from ._core import DEFAULT, Part
from .v1 import idnode_pb2 as pb

if TYPE_CHECKING:
    from . import aio, client


class Admin(Part["client.Client"]):
    """The administration of the cluster, as :attr:`idnode.Client.admin`. The changes (members,
    leadership, a restore) are tried on another node only when the first certainly did nothing:
    repeated after a lost answer, they would not find the cluster as the first attempt left it."""

    def status(self, *, consistent: bool = False, timeout: Optional[float] = DEFAULT) -> pb.StatusResponse:
        """The cluster's leader, term and nodes, as one node sees them (``consistent``: confirmed
        with a quorum first)."""
        return self._client._run(_calls.status(consistent), timeout)

    def whoami(self, *, timeout: Optional[float] = DEFAULT) -> pb.WhoAmIResponse:
        """What the node makes of this client's credentials: whether it may make admin calls
        and by what right, and the API key it sent."""
        return self._client._run(_calls.whoami(), timeout)

    def cluster_version(self, *, timeout: Optional[float] = DEFAULT) -> pb.ClusterVersionResponse:
        """The cluster version from the leader: the one finalised, the highest the members'
        builds support, and the lowest a downgrade may go to."""
        return self._client._run(_calls.cluster_version(), timeout)

    def set_cluster_version(self, version: int, *, timeout: Optional[float] = DEFAULT) -> pb.ClusterVersionResponse:
        """Finalise a higher cluster version or lower it (an admin call)."""
        return self._client._run(_calls.set_cluster_version(version), timeout)

    def add_node(
        self, raft_address: str, grpc_address: str, *, tag: str = "", id: str = "", non_voter: bool = False,
        timeout: Optional[float] = DEFAULT,
    ) -> pb.AddNodeResponse:
        """Register a node and make it a Raft member (an admin call); without ``tag`` the
        cluster assigns the next free one, which the answer names."""
        return self._client._run(_calls.add_node(tag, raft_address, grpc_address, id, non_voter), timeout)

    def remove_node(self, tag: str, *, timeout: Optional[float] = DEFAULT) -> None:
        """Take the node ``tag`` out of the cluster and retire its tag for ever (an admin call)."""
        self._client._run(_calls.remove_node(tag), timeout)

    def transfer_leadership(self, tag: str = "", *, timeout: Optional[float] = DEFAULT) -> str:
        """Hand leadership to the node ``tag``, or to any up-to-date voter without one; returns
        the new leader's tag (an admin call)."""
        return self._client._run(_calls.transfer_leadership(tag), timeout)

    def backup(self, out: BinaryIO, *, database: str = "", timeout: Optional[float] = DEFAULT) -> BackupInfo:
        """Write a consistent backup of the cluster (or of one ``database``) to the binary
        file ``out`` (an admin call); :meth:`restore` reads it. Tried on another node only
        until the first bytes arrive: after that ``out`` holds part of a backup."""
        call, progress = _calls.backup(database)
        for data in self._client._stream(call, timeout):
            out.write(data)
        return progress.info or BackupInfo("", 0, 0)

    def restore(self, src: BinaryIO, *, ahead: Optional[Margin] = None, timeout: Optional[float] = DEFAULT) -> pb.RestoreResponse:
        """Raise the cluster's counters and HiLo maxima to at least those of the backup read
        from the binary file ``src`` (plus the margin ``ahead``, an :class:`idnode.Margin`),
        and put its claims, series and workers back (an admin call; running it again is safe,
        it never lowers anything). Tried on another node only when the first certainly did
        nothing, and never once more than the first chunk was read. An error reading ``src``
        is raised as it is, and the cluster keeps nothing of that restore. The answer says what
        the backup held and what was raised, the margin applied (``ahead``) and the numbers it
        skipped (``identities_skipped_min`` …), and the backup's opaque databases
        (``opaque_databases``, ``opaque_restored``); a margin it does not echo raises
        :class:`idnode.MarginNotApplied`, which carries it."""
        call, _ = _calls.restore(ahead, src)
        return self._client._run(call, timeout)

    def release_owner(self, owner: str, *, timeout: Optional[float] = DEFAULT) -> int:
        """Release every ID ``owner`` claimed in the client's database; returns how many."""
        return self._client._run(_calls.release_owner(owner), timeout)


class AsyncAdmin(Part["aio.Client"]):
    """The administration of the cluster, as :attr:`idnode.aio.Client.admin`; see
    :class:`idnode.Admin`."""

    async def status(self, *, consistent: bool = False, timeout: Optional[float] = DEFAULT) -> pb.StatusResponse:
        """See :meth:`idnode.Admin.status`."""
        return await self._client._run(_calls.status(consistent), timeout)

    async def whoami(self, *, timeout: Optional[float] = DEFAULT) -> pb.WhoAmIResponse:
        """See :meth:`idnode.Admin.whoami`."""
        return await self._client._run(_calls.whoami(), timeout)

    async def cluster_version(self, *, timeout: Optional[float] = DEFAULT) -> pb.ClusterVersionResponse:
        """See :meth:`idnode.Admin.cluster_version`."""
        return await self._client._run(_calls.cluster_version(), timeout)

    async def set_cluster_version(self, version: int, *, timeout: Optional[float] = DEFAULT) -> pb.ClusterVersionResponse:
        """See :meth:`idnode.Admin.set_cluster_version`."""
        return await self._client._run(_calls.set_cluster_version(version), timeout)

    async def add_node(
        self, raft_address: str, grpc_address: str, *, tag: str = "", id: str = "", non_voter: bool = False,
        timeout: Optional[float] = DEFAULT,
    ) -> pb.AddNodeResponse:
        """See :meth:`idnode.Admin.add_node`."""
        return await self._client._run(_calls.add_node(tag, raft_address, grpc_address, id, non_voter), timeout)

    async def remove_node(self, tag: str, *, timeout: Optional[float] = DEFAULT) -> None:
        """See :meth:`idnode.Admin.remove_node`."""
        await self._client._run(_calls.remove_node(tag), timeout)

    async def transfer_leadership(self, tag: str = "", *, timeout: Optional[float] = DEFAULT) -> str:
        """See :meth:`idnode.Admin.transfer_leadership`."""
        return await self._client._run(_calls.transfer_leadership(tag), timeout)

    async def backup(self, out: BinaryIO, *, database: str = "", timeout: Optional[float] = DEFAULT) -> BackupInfo:
        """See :meth:`idnode.Admin.backup`."""
        call, progress = _calls.backup(database)
        async for data in self._client._stream(call, timeout):
            out.write(data)
        return progress.info or BackupInfo("", 0, 0)

    async def restore(self, src: BinaryIO, *, ahead: Optional[Margin] = None, timeout: Optional[float] = DEFAULT) -> pb.RestoreResponse:
        """See :meth:`idnode.Admin.restore`; ``src`` is read on the loop's thread."""
        call, _ = _calls.restore(ahead, src)
        return await self._client._run(call, timeout)

    async def release_owner(self, owner: str, *, timeout: Optional[float] = DEFAULT) -> int:
        """See :meth:`idnode.Admin.release_owner`."""
        return await self._client._run(_calls.release_owner(owner), timeout)
