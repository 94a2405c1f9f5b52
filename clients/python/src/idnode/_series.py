"""``client.series``: fiscal series, numbered without gaps and chained by hash (create, list,
issue, void, verify, the journal), for the synchronous and the asyncio client."""

from __future__ import annotations

from typing import TYPE_CHECKING, AsyncIterator, Iterator, List, Mapping, Optional

from . import _calls
from ._core import DEFAULT, Part
from .v1 import idnode_pb2 as pb

if TYPE_CHECKING:
    from . import aio, client


class Series(Part["client.Client"]):
    """The fiscal series of the client's database, as :attr:`idnode.Client.series`."""

    def create(self, name: str, format: str, *, period: str = "none", policy: str = "gapless", request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> pb.Series:
        """Create a fiscal series (``period`` 'none', 'year' or 'month'; ``policy`` 'gapless'
        or 'gaps_allowed_journaled')."""
        return self._client._run(_calls.create_series(name, format, period, policy, request_id), timeout)

    def list(self, *, timeout: Optional[float] = DEFAULT) -> List[pb.Series]:
        """The database's series and where each stands."""
        return self._client._run(_calls.list_series(), timeout)

    def issue(self, series: str, *, request_id: Optional[str] = None, document_hash: str = "", fields: Optional[Mapping[str, str]] = None, timeout: Optional[float] = DEFAULT) -> pb.SeriesEntry:
        """Assign the next number of a series to a document. Keep ``request_id`` with the
        document: calling again with it after a crash answers the same number."""
        return self._client._run(_calls.issue(series, request_id, document_hash, fields), timeout)

    def void(self, series: str, number: int, *, reason: str, period: str = "", correcting: str = "", request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> pb.SeriesEntry:
        """Record a number as void, with a reason."""
        return self._client._run(_calls.void(series, number, period, reason, correcting, request_id), timeout)

    def verify(self, series: str, *, timeout: Optional[float] = DEFAULT) -> pb.VerifySeriesResponse:
        """Recompute a series' hash chain and numbering; reports the first break."""
        return self._client._run(_calls.verify_series(series), timeout)

    def journal(self, series: str, *, from_seq: int = 0, to_seq: int = 0, timeout: Optional[float] = DEFAULT) -> Iterator[pb.SeriesEntry]:
        """A series' entries in order. A stream cut short resumes after the last entry yielded,
        on another node if need be, so each entry comes once."""
        return self._client._stream(_calls.journal(series, from_seq, to_seq), timeout)


class AsyncSeries(Part["aio.Client"]):
    """The fiscal series of the client's database, as :attr:`idnode.aio.Client.series`; see
    :class:`idnode.Series`."""

    async def create(self, name: str, format: str, *, period: str = "none", policy: str = "gapless", request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> pb.Series:
        """See :meth:`idnode.Series.create`."""
        return await self._client._run(_calls.create_series(name, format, period, policy, request_id), timeout)

    async def list(self, *, timeout: Optional[float] = DEFAULT) -> List[pb.Series]:
        """See :meth:`idnode.Series.list`."""
        return await self._client._run(_calls.list_series(), timeout)

    async def issue(self, series: str, *, request_id: Optional[str] = None, document_hash: str = "", fields: Optional[Mapping[str, str]] = None, timeout: Optional[float] = DEFAULT) -> pb.SeriesEntry:
        """See :meth:`idnode.Series.issue`."""
        return await self._client._run(_calls.issue(series, request_id, document_hash, fields), timeout)

    async def void(self, series: str, number: int, *, reason: str, period: str = "", correcting: str = "", request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> pb.SeriesEntry:
        """See :meth:`idnode.Series.void`."""
        return await self._client._run(_calls.void(series, number, period, reason, correcting, request_id), timeout)

    async def verify(self, series: str, *, timeout: Optional[float] = DEFAULT) -> pb.VerifySeriesResponse:
        """See :meth:`idnode.Series.verify`."""
        return await self._client._run(_calls.verify_series(series), timeout)

    def journal(self, series: str, *, from_seq: int = 0, to_seq: int = 0, timeout: Optional[float] = DEFAULT) -> AsyncIterator[pb.SeriesEntry]:
        """See :meth:`idnode.Series.journal`: iterate with ``async for``."""
        return self._client._stream(_calls.journal(series, from_seq, to_seq), timeout)
