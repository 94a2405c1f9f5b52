"""The key-less check of an opaque ID's form (docs/opaque-ids.md).

A collection an admin made opaque answers ``Generate("orders|")`` with ``orders/`` and 13
Crockford base-32 symbols in place of the counter's value. The key that reads a form back
stays in the cluster; what any application can check alone is the shape, which is what
:func:`opaque_id` does. The cases every client agrees on are data, in the conformance suite's
``test/conformance/opaque-forms.json``. A database whose numeric IDs are opaque answers them
as the 13 symbols alone, which :func:`opaque_numeric_id` checks.
"""

from __future__ import annotations

from typing import Dict, Optional

OPAQUE_ID_LENGTH = 13
"""The number of Crockford base-32 symbols of every opaque ID, after the collection and separator."""

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _symbols() -> Dict[str, str]:
    """Each character Crockford reads, to its canonical symbol: both cases, I and L as 1, O as 0."""
    table = {c: c for c in _ALPHABET}
    table.update({c.lower(): c for c in _ALPHABET})
    table.update({"I": "1", "i": "1", "L": "1", "l": "1", "O": "0", "o": "0"})
    return table


_CANONICAL = _symbols()


def _lower_ascii(s: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def opaque_id(id: str, collection: str, separator: str = "/") -> Optional[str]:
    """The opaque form of an ID of ``collection``, normalised, or ``None`` when ``id`` is not one.

    The form is the collection, the cluster's ``separator``, then 13 Crockford base-32 symbols.
    The symbols are read in either case with I and L as 1 and O as 0, and come back in their
    canonical upper-case spelling; hyphens are refused (the length is fixed, and a separator may
    itself be a hyphen). The collection's ASCII letters match in either case, as the cluster
    folds names (other letters must be spelt alike); the ID's own spelling of it is kept.

    No key is needed and no call is made: the shape is right or not. A form of the right shape
    may still be refused by the cluster (``NOT_OPAQUE_FORM``): three in four of them decode
    outside any counter, which only the key tells.

    >>> opaque_id("orders/kc6hecswe6sx7", "orders")
    'orders/KC6HECSWE6SX7'
    >>> opaque_id("orders/1", "orders") is None
    True
    """
    if not isinstance(separator, str) or len(separator) != 1:
        raise ValueError(f"separator {separator!r}: one character, the cluster's")
    if not isinstance(id, str) or not isinstance(collection, str) or not collection:
        return None
    prefix = collection + separator
    if len(id) != len(prefix) + OPAQUE_ID_LENGTH or _lower_ascii(id[: len(prefix)]) != _lower_ascii(prefix):
        return None
    symbols = _canonical_symbols(id[len(prefix):])
    return None if symbols is None else id[: len(prefix)] + symbols


def opaque_numeric_id(id: str) -> Optional[str]:
    """The opaque form of a numeric ID, normalised, or ``None`` when ``id`` is not one.

    A database whose numeric IDs an admin made opaque answers ``generate(numeric=True)`` with
    13 Crockford base-32 symbols and nothing else, since a numeric ID has no collection. The
    symbols are read as :func:`opaque_id` reads them. No key is needed and no call is made, so a
    form of the right shape may still be none the database's key decodes.

    >>> opaque_numeric_id("kc6hecswe6sx7")
    'KC6HECSWE6SX7'
    >>> opaque_numeric_id("1234567890123456789") is None
    True
    """
    if not isinstance(id, str):
        return None
    return _canonical_symbols(id)


def _canonical_symbols(s: str) -> Optional[str]:
    """The 13 symbols of ``s`` in their canonical spelling, or ``None`` when ``s`` is not 13 symbols."""
    if len(s) != OPAQUE_ID_LENGTH:
        return None
    symbols = [_CANONICAL.get(c) for c in s]
    if None in symbols:
        return None
    return "".join(c for c in symbols if c is not None)
