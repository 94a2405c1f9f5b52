"""Where an ORM table's primary keys come from, shared by the SQLAlchemy and Django adapters.

A :class:`Keys` holds the application's one :class:`idnode.Client` and makes the key sources
of its tables: :meth:`Keys.hilo` (``orders/17-A``), :meth:`Keys.hilo_number` (17),
:meth:`Keys.identity` (cluster identities, through Raft) and :meth:`Keys.numeric` (64-bit IDs
minted in-process under a leased worker). A source hands out ``n`` keys in one take, so a
batch of rows costs one range (one identity block), not a call per row, and checks the keys
an application set itself. Whatever goes wrong raises an :class:`idnode.IdnodeError`; each
adapter turns it into its ORM's own error."""

from __future__ import annotations

import threading
from typing import Any, Dict, List, Optional, Sequence

import grpc

from .. import errors
from .._core import check_int
from ..client import MAX_BATCH, Client, NumericGenerator


class Keys:
    """The key sources of an application's tables, over one shared client. The client may be
    given later with :meth:`bind` (models are declared at import, clients made at startup).
    Closing the client gives back the HiLo numbers not handed out and releases the numeric
    worker; :class:`Keys` owns nothing else."""

    def __init__(self, client: Optional[Client] = None) -> None:
        self._client = client
        self._numeric: Optional[NumericGenerator] = None
        self._lock = threading.Lock()

    def bind(self, client: Client) -> None:
        """Use ``client`` from now on (a new one after the old one was closed, say)."""
        with self._lock:
            self._client = client
            self._numeric = None

    @property
    def client(self) -> Client:
        c = self._client
        if c is None:
            raise errors.make_error(grpc.StatusCode.FAILED_PRECONDITION, "no idnode client is bound to these keys: call bind(client) first", "NO_CLIENT")
        return c

    def numeric_generator(self) -> NumericGenerator:
        """The numeric generator of the bound client, leased on first use."""
        with self._lock:
            client = self.client
            if self._numeric is None:
                self._numeric = client.numeric_generator(holder="idnode-orm")
            return self._numeric

    def hilo(self, tag: str, *, claim: bool = False, owner: str = "") -> "KeySource":
        """String keys by the client's conventions: ``orders/17-A`` (HiLo, no round trip per
        key). A key the application set is validated by the cluster (and claimed for ``owner``
        with ``claim``); one ending with ``/`` or ``|`` is what the cluster resolves it to
        (``orders|`` → ``orders/1``, an identity)."""
        return HiLoIds(self, tag, claim, owner)

    def hilo_number(self, tag: str) -> "KeySource":
        """Integer keys: the numbers of the tag's HiLo IDs (17 for ``orders/17-A``)."""
        return HiLoNumbers(self, tag)

    def identity(self, name: str, *, claim: bool = False, owner: str = "") -> "KeySource":
        """Integer keys from the identity counter ``name``: a block per batch, through Raft.
        With ``claim``, a key the application set is claimed as ``name/N``, which the counter
        then skips."""
        return Identities(self, name, claim, owner)

    def numeric(self) -> "KeySource":
        """Numeric 64-bit keys (time | worker | sequence), minted with no network call."""
        return NumericIds(self)


class KeySource:
    """One table's keys: :meth:`take` makes ``n`` of them at once, :meth:`check` vets the keys
    an application set and returns what to store."""

    integer = True
    """Whether the keys are ints (else strs)."""

    def __init__(self, keys: Keys, name: str, claim: bool = False, owner: str = "") -> None:
        self.keys = keys
        self.name = name
        self.claim = claim
        self.owner = owner

    def take(self, n: int) -> List[Any]:
        raise NotImplementedError

    def check(self, values: Sequence[Any]) -> List[Any]:
        """Integer keys: ints from 1 to 2^63-1 (claimed as ``name/N`` with ``claim``)."""
        out = [check_int("primary key", v, lo=1) for v in values]
        if self.claim and out:
            self.keys.client.claim([f"{self.name}/{v}" for v in out], owner=self.owner)
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _count(n: int) -> int:
    return check_int("n", n, lo=1, hi=MAX_BATCH)


class HiLoIds(KeySource):
    integer = False

    def take(self, n: int) -> List[Any]:
        return list(self.keys.client.next_ids(self.name, _count(n)))

    def check(self, values: Sequence[Any]) -> List[Any]:
        client = self.keys.client
        sep = client._opts.separator
        out: List[Any] = []
        resolve: Dict[str, List[int]] = {}  # request string → the positions it fills
        keep: List[str] = []
        for i, v in enumerate(values):
            if not isinstance(v, str) or not v:
                raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"primary key must be a non-empty str, got {v!r}", "INVALID_INPUT")
            out.append(v)
            if v.endswith(("|", sep)):
                resolve.setdefault(v, []).append(i)
            else:
                keep.append(v)
        for request, at in resolve.items():
            for i, id in zip(at, client.generate(request, len(at))):
                out[i] = id
        if keep and self.claim:
            client.claim(keep, owner=self.owner)  # validates them too, all or nothing
        else:
            for v in keep:
                client.generate(v)
        return out


class HiLoNumbers(KeySource):
    def __init__(self, keys: Keys, tag: str) -> None:
        super().__init__(keys, tag)

    def take(self, n: int) -> List[Any]:
        return list(self.keys.client.next_numbers(self.name, _count(n)))


class Identities(KeySource):
    def take(self, n: int) -> List[Any]:
        n = _count(n)
        client = self.keys.client
        out: List[Any] = []
        while len(out) < n:  # values claimed as name/N are skipped: ask again for the rest
            out.extend(client.next_identity(self.name, n - len(out)))
        return out


class NumericIds(KeySource):
    def __init__(self, keys: Keys) -> None:
        super().__init__(keys, "numeric")

    def take(self, n: int) -> List[Any]:
        g = self.keys.numeric_generator()
        return [g.next() for _ in range(_count(n))]
