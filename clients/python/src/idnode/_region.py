"""A client's region (docs/regions.md): which of its nodes are in it, checked once when the
client is made, and how long a node whose attempt just failed waits behind the others."""

from __future__ import annotations

import string
from typing import Any, FrozenSet, Mapping, Optional, Sequence

MAX_REGION = 64
"""A region label's length at most, as a node's ``--region`` takes it."""

_REGION_CHARS = frozenset(string.ascii_letters + string.digits + "-_.")

SKIP_FAILED = 1.0
"""Seconds a node whose attempt failed because of the node itself (no connection, busy, too
slow) comes after the nodes that did not fail, in a client with a region, after its first
failure. A local node that went down would otherwise cost every call a failed attempt before
the call fails over to a node of another region, which answers it; once the time is up the
node is tried first again, and calls come back to it when it answers."""

SKIP_FAILED_MAX = 30.0
"""Seconds the skip of a node that keeps failing grows to at most (see :func:`next_skip`). A
node that hangs rather than refuses (paused, or its network blackholed) costs a whole attempt
timeout each time its skip ends, so a fixed second would be a latency spike a second for as
long as it hangs. But a skipped node is tried first again only when its skip ends, so the skip
is also how long calls keep crossing to other regions after the node is back: 30 s keeps that
to half a minute while a node that never answers costs one attempt timeout every 30 s."""


def next_skip(skip: float, until: float, now: float) -> float:
    """The seconds a node that failed at ``now`` is skipped for, given its current skip
    (``skip`` seconds, ending at ``until``; 0 since it last answered): :data:`SKIP_FAILED` at
    first, twice the last skip when it failed again after that skip ended, up to
    :data:`SKIP_FAILED_MAX`. A failure within the skip (another call's attempt, or one that
    found every other node failing too) starts the same skip again."""
    if skip == 0:
        return SKIP_FAILED
    if now >= until:
        return min(2 * skip, SKIP_FAILED_MAX)
    return skip


def _check_label(label: object, where: str = "") -> str:
    if not isinstance(label, str):
        raise ValueError(f"{where}region must be a str, got {label!r}")
    if not label:
        raise ValueError(f"{where}region '' is empty: give a region label such as 'eu-west-1'")
    if len(label) > MAX_REGION or not set(label) <= _REGION_CHARS:
        raise ValueError(f"{where}region {label!r}: at most {MAX_REGION} letters, digits, '-', '_' or '.', as a node's --region takes it")
    return label


def local_nodes(nodes: Sequence[str], region: Optional[str], node_regions: Optional[Mapping[str, str]]) -> Optional[FrozenSet[int]]:
    """The indexes of the nodes in the client's ``region`` by ``node_regions`` (which maps a
    node address to its region; a node it leaves out is in another region), or None for a
    client without a region. Raises ValueError for a configuration that cannot be meant: an
    empty or malformed label, an address that is none of the client's nodes, a region that
    no node of the client is in, or node regions without the client's own."""
    if region is None:
        if node_regions is not None:
            raise ValueError("node_regions without region: give the client's own region too, or neither")
        return None
    _check_label(region)
    regions: Mapping[Any, Any] = {} if node_regions is None else node_regions
    if not isinstance(regions, Mapping):
        raise ValueError(f"node_regions must be a mapping of node address to region, got {type(regions).__name__}")
    for addr, label in regions.items():
        if addr not in nodes:
            raise ValueError(f"node_regions names {addr!r}, which is not one of the client's nodes {list(nodes)!r}")
        _check_label(label, f"node_regions[{addr!r}]: ")
    local = frozenset(i for i, addr in enumerate(nodes) if regions.get(addr) == region)
    if not local:
        raise ValueError(
            f"no node of the client is in region {region!r} (node_regions: {dict(regions)!r}): "
            "give the region of each node, with at least one in the client's"
        )
    return local
