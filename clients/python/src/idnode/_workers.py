"""``client.workers``: the raw worker leases behind numeric IDs (acquire, renew, release, list),
for the synchronous and the asyncio client; ``numeric_generator`` leases and renews for you."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import _calls
from ._core import DEFAULT, Part
from .v1 import idnode_pb2 as pb

if TYPE_CHECKING:
    from . import aio, client


class Workers(Part["client.Client"]):
    """The worker leases of the client's database, as :attr:`idnode.Client.workers`."""

    def acquire(self, *, holder: str = "python-client", worker_bits: int = 10, lease: float = 30.0, request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> pb.WorkerLease:
        """Lease a worker ID for numeric IDs (raw; :meth:`idnode.Client.numeric_generator`
        does it for you)."""
        return self._client._run(_calls.acquire_worker(holder, worker_bits, lease, request_id), timeout)

    def renew(self, worker: int, epoch: int, *, lease: float = 30.0, timeout: Optional[float] = DEFAULT) -> pb.WorkerLease:
        """Extend a worker lease; :class:`idnode.FailedPrecondition` when it was lost."""
        return self._client._run(_calls.renew_worker(worker, epoch, lease), timeout)

    def release(self, worker: int, epoch: int, *, timeout: Optional[float] = DEFAULT) -> None:
        """End a worker lease now."""
        self._client._run(_calls.release_worker(worker, epoch), timeout)

    def list(self, *, page_size: int = 0, page_token: str = "", timeout: Optional[float] = DEFAULT) -> pb.ListWorkersResponse:
        """One page of the database's workers."""
        return self._client._run(_calls.list_workers(page_size, page_token), timeout)


class AsyncWorkers(Part["aio.Client"]):
    """The worker leases of the client's database, as :attr:`idnode.aio.Client.workers`; see
    :class:`idnode.Workers`."""

    async def acquire(self, *, holder: str = "python-client", worker_bits: int = 10, lease: float = 30.0, request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> pb.WorkerLease:
        """See :meth:`idnode.Workers.acquire`."""
        return await self._client._run(_calls.acquire_worker(holder, worker_bits, lease, request_id), timeout)

    async def renew(self, worker: int, epoch: int, *, lease: float = 30.0, timeout: Optional[float] = DEFAULT) -> pb.WorkerLease:
        """See :meth:`idnode.Workers.renew`."""
        return await self._client._run(_calls.renew_worker(worker, epoch, lease), timeout)

    async def release(self, worker: int, epoch: int, *, timeout: Optional[float] = DEFAULT) -> None:
        """See :meth:`idnode.Workers.release`."""
        await self._client._run(_calls.release_worker(worker, epoch), timeout)

    async def list(self, *, page_size: int = 0, page_token: str = "", timeout: Optional[float] = DEFAULT) -> pb.ListWorkersResponse:
        """See :meth:`idnode.Workers.list`."""
        return await self._client._run(_calls.list_workers(page_size, page_token), timeout)
