"""``client.databases``: databases, their opaque setting and their API keys, and assigning an
entity its ID, for the synchronous and the asyncio client."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple

from . import _calls
from ._core import DEFAULT, Part
from ._entity import collection_name, entity_id
from .v1 import idnode_pb2 as pb

if TYPE_CHECKING:
    from . import aio, client

# What assigning an entity its ID takes, by the ID it has (see Databases.assign_id).
HILO, RESOLVE, VALIDATE = "hilo", "resolve", "validate"


def assigning(entity: Any, collection: Optional[str], separator: str) -> Tuple[str, str]:
    """The entity's ID and what assigning it takes: HILO (the ID is empty: take one of the
    collection, which is returned in its place), RESOLVE (the cluster makes the ID of a
    request string) or VALIDATE (the ID is kept once the cluster validated it)."""
    id = entity_id(entity)
    if not id:
        return collection or collection_name(type(entity)), HILO
    if id.endswith(("|", separator)):
        return id, RESOLVE
    return id, VALIDATE


class Databases(Part["client.Client"]):
    """Databases, their API keys and opaque collections (admin calls), and entities' IDs, as
    :attr:`idnode.Client.databases`. Creating and deleting databases and keys is tried on
    another node only when the first certainly did nothing."""

    def create(
        self, name: str, *, max_identities: int = 0, max_calls_per_second: float = 0.0, max_claims: int = 0,
        timeout: Optional[float] = DEFAULT,
    ) -> None:
        """Create a database with its limits, 0 for none (an admin call). A name that was
        deleted comes back with the counters it had."""
        self._client._run(_calls.create_database(name, max_identities, max_calls_per_second, max_claims), timeout)

    def delete(self, name: str, *, force: bool = False, timeout: Optional[float] = DEFAULT) -> None:
        """Delete a database (an admin call); without ``force`` refused while it has counters."""
        self._client._run(_calls.delete_database(name, force), timeout)

    def list(self, *, timeout: Optional[float] = DEFAULT) -> List[pb.DatabaseStatus]:
        """The databases, "default" among them, as the leader knows them."""
        return self._client._run(_calls.list_databases(), timeout)

    def make_opaque(
        self, database: str = "", collections: Sequence[str] = (), *, numeric: bool = False,
        timeout: Optional[float] = DEFAULT,
    ) -> pb.OpaqueStatus:
        """Turn ``collections`` of ``database`` ("" is "default") opaque, and with ``numeric`` its
        numeric IDs, for good (an admin call): ``generate("orders|")`` then answers forms such as
        ``orders/KC6HECSWE6SX7`` that hide the counter's values, and ``next_identity`` on them
        raises :class:`idnode.OpaqueCollection`. The answer is the database's whole setting: its
        opaque collections as stored (folded, sorted) and the key's fingerprint. Calling it
        again with the same or more collections only adds."""
        return self._client._run(_calls.make_opaque(database, collections, numeric), timeout)

    def create_key(self, database: str, role: str, *, timeout: Optional[float] = DEFAULT) -> Tuple[str, str]:
        """Make an API key for ``database`` with ``role`` ('reader', 'writer' or 'admin');
        returns its id and the key, shown only this once (an admin call)."""
        return self._client._run(_calls.create_key(database, role), timeout)

    def delete_key(self, id: str, *, timeout: Optional[float] = DEFAULT) -> None:
        """Delete an API key (an admin call)."""
        self._client._run(_calls.delete_key(id), timeout)

    def list_keys(self, *, timeout: Optional[float] = DEFAULT) -> List[pb.KeyStatus]:
        """The API keys, without their secrets (an admin call)."""
        return self._client._run(_calls.list_keys(), timeout)

    def assign_id(
        self, entity: Any, *, claim: bool = False, owner: str = "", collection: Optional[str] = None,
        timeout: Optional[float] = DEFAULT,
    ) -> str:
        """Fill in the ``id`` attribute of an entity, the way the seeds' conventions do on
        store, and return it: empty, a HiLo ID of the entity's collection (``collection``, or
        :func:`idnode.collection_name` of its class: ``Order`` → ``orders/1-A``); ending with
        the separator or ``|``, what the cluster resolves it to (a server-side ID or an
        identity, ``orders/1``); anything else is kept, once the cluster validated it (with
        ``claim``, claimed for ``owner`` in the same call)."""
        c = self._client
        id, how = assigning(entity, collection, c._opts.separator)
        if how == VALIDATE:
            c.generate(id, claim=claim, owner=owner, timeout=timeout)
            return id
        id = c.next_id(id) if how == HILO else c.generate(id, timeout=timeout)[0]
        entity.id = id
        return id


class AsyncDatabases(Part["aio.Client"]):
    """Databases, keys and entities' IDs, as :attr:`idnode.aio.Client.databases`; see
    :class:`idnode.Databases`."""

    async def create(
        self, name: str, *, max_identities: int = 0, max_calls_per_second: float = 0.0, max_claims: int = 0,
        timeout: Optional[float] = DEFAULT,
    ) -> None:
        """See :meth:`idnode.Databases.create`."""
        await self._client._run(_calls.create_database(name, max_identities, max_calls_per_second, max_claims), timeout)

    async def delete(self, name: str, *, force: bool = False, timeout: Optional[float] = DEFAULT) -> None:
        """See :meth:`idnode.Databases.delete`."""
        await self._client._run(_calls.delete_database(name, force), timeout)

    async def list(self, *, timeout: Optional[float] = DEFAULT) -> List[pb.DatabaseStatus]:
        """See :meth:`idnode.Databases.list`."""
        return await self._client._run(_calls.list_databases(), timeout)

    async def make_opaque(
        self, database: str = "", collections: Sequence[str] = (), *, numeric: bool = False,
        timeout: Optional[float] = DEFAULT,
    ) -> pb.OpaqueStatus:
        """See :meth:`idnode.Databases.make_opaque`."""
        return await self._client._run(_calls.make_opaque(database, collections, numeric), timeout)

    async def create_key(self, database: str, role: str, *, timeout: Optional[float] = DEFAULT) -> Tuple[str, str]:
        """See :meth:`idnode.Databases.create_key`."""
        return await self._client._run(_calls.create_key(database, role), timeout)

    async def delete_key(self, id: str, *, timeout: Optional[float] = DEFAULT) -> None:
        """See :meth:`idnode.Databases.delete_key`."""
        await self._client._run(_calls.delete_key(id), timeout)

    async def list_keys(self, *, timeout: Optional[float] = DEFAULT) -> List[pb.KeyStatus]:
        """See :meth:`idnode.Databases.list_keys`."""
        return await self._client._run(_calls.list_keys(), timeout)

    async def assign_id(
        self, entity: Any, *, claim: bool = False, owner: str = "", collection: Optional[str] = None,
        timeout: Optional[float] = DEFAULT,
    ) -> str:
        """See :meth:`idnode.Databases.assign_id`."""
        c = self._client
        id, how = assigning(entity, collection, c._opts.separator)
        if how == VALIDATE:
            await c.generate(id, claim=claim, owner=owner, timeout=timeout)
            return id
        id = await c.next_id(id) if how == HILO else (await c.generate(id, timeout=timeout))[0]
        entity.id = id
        return id
