"""idnode keys for SQLAlchemy models (1.4 and 2.x, through the 2.0-style API).

::

    keys = Keys(client)
    class Order(Base):
        __tablename__ = "orders"
        id = Column(String, primary_key=True, default=key(keys.hilo("orders")))

    install()                          # every Session: fill the keys of a flush in one take

:func:`key` is a column default: a Core ``insert`` of many rows takes their keys in one go.
:func:`install` adds a ``before_flush`` hook that fills the empty keys of every new object of
a flush, one take per key source, before any row is written, and checks (and with ``claim``
claims) the keys the application set. Whatever idnode refuses comes as
:class:`IdnodeKeyError`, an ``sqlalchemy.exc.SQLAlchemyError`` whose cause is the
:class:`idnode.IdnodeError`."""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any, Dict, List, Optional, Tuple

import sqlalchemy.exc
from sqlalchemy import event, inspect
from sqlalchemy.orm import Mapper, Session

from ..errors import IdnodeError
from .keys import KeySource, Keys

__all__ = ["IdnodeKeyError", "KeyDefault", "Keys", "install", "key", "uninstall"]


class IdnodeKeyError(sqlalchemy.exc.DontWrapMixin, sqlalchemy.exc.SQLAlchemyError):  # type: ignore[misc]
    """idnode could not give (or refused) a primary key; nothing of the flush or statement was
    written. ``orig`` and ``__cause__`` are the :class:`idnode.IdnodeError`, ``reason`` its
    reason (``NO_QUORUM``, ``CLIENT_CLOSED``, ``CLAIMED`` …). It passes through SQLAlchemy's
    statement execution as it is (``DontWrapMixin``), so a failed column default raises it
    too."""

    def __init__(self, source: KeySource, cause: IdnodeError) -> None:
        super().__init__(f"idnode could not give keys of {source!r}: {cause}")
        self.orig = cause
        self.reason = cause.reason
        self.source = source

    # SQLAlchemy re-raises an error it does not wrap "from" itself; that would hide the idnode
    # error, so a cause of itself reads as the idnode error.
    @property
    def __cause__(self) -> Optional[BaseException]:
        cause = _base_cause.__get__(self)
        return self.orig if cause is self else cause

    @__cause__.setter
    def __cause__(self, cause: Optional[BaseException]) -> None:
        _base_cause.__set__(self, cause)


_base_cause: Any = BaseException.__dict__["__cause__"]


def _wrap(source: KeySource, e: IdnodeError) -> IdnodeKeyError:
    err = IdnodeKeyError(source, e)
    err.__cause__ = e
    return err


_CACHE = "_idnode_keys"  # the execution context's attribute holding the keys taken for it


class KeyDefault:
    """A column default taking keys from a :class:`KeySource`. Called by SQLAlchemy once per
    row with the execution context, it takes the keys of every row of the statement on the
    first call and hands them out in order."""

    def __init__(self, source: KeySource) -> None:
        self.source = source

    def __call__(self, context: Any) -> Any:
        cache: Optional[Dict[KeyDefault, List[Any]]] = getattr(context, _CACHE, None)
        if cache is None:
            cache = {}
            if context is not None:
                setattr(context, _CACHE, cache)
        left = cache.get(self)
        if not left:
            rows = getattr(context, "compiled_parameters", None) or [None]
            left = cache[self] = self.take(len(rows))[::-1]
        return left.pop()

    def take(self, n: int) -> List[Any]:
        try:
            return self.source.take(n)
        except IdnodeError as e:
            raise _wrap(self.source, e) from e

    def check(self, values: List[Any]) -> List[Any]:
        try:
            return self.source.check(values)
        except IdnodeError as e:
            raise _wrap(self.source, e) from e

    def __repr__(self) -> str:
        return f"key({self.source!r})"


def key(source: KeySource) -> KeyDefault:
    """The column default for keys of ``source``: ``Column(..., default=key(keys.hilo("orders")))``."""
    return KeyDefault(source)


_attrs_lock = threading.Lock()
_attrs: Dict[Mapper, List[Tuple[str, KeyDefault]]] = {}


def _key_attrs(mapper: Mapper) -> List[Tuple[str, KeyDefault]]:
    """The attributes of a mapper's primary key that idnode fills, with their defaults."""
    found = _attrs.get(mapper)
    if found is None:
        found = []
        for col in mapper.primary_key:
            d = getattr(col.default, "arg", None)
            if isinstance(d, KeyDefault):
                found.append((mapper.get_property_by_column(col).key, d))
        with _attrs_lock:
            _attrs[mapper] = found
    return found


def fill_keys(session: Session, flush_context: Any = None, instances: Any = None) -> None:
    """The ``before_flush`` hook: the empty keys of the flush's new objects, one take per key
    source, and the keys the application set, checked. Raises :class:`IdnodeKeyError` before
    any row is written."""
    empty: Dict[KeyDefault, List[Tuple[Any, str]]] = defaultdict(list)
    given: Dict[KeyDefault, List[Tuple[Any, str]]] = defaultdict(list)
    for obj in session.new:
        for attr, d in _key_attrs(inspect(obj).mapper):
            (given if getattr(obj, attr, None) is not None else empty)[d].append((obj, attr))
    for d, at in given.items():
        for (obj, attr), v in zip(at, d.check([getattr(obj, attr) for obj, attr in at])):
            setattr(obj, attr, v)
    for d, at in empty.items():
        for (obj, attr), v in zip(at, d.take(len(at))):
            setattr(obj, attr, v)


def install(target: Any = Session) -> None:
    """Fill keys on every flush of ``target``: a Session class (every session, the default), a
    sessionmaker or a session."""
    if not event.contains(target, "before_flush", fill_keys):
        event.listen(target, "before_flush", fill_keys)


def uninstall(target: Any = Session) -> None:
    """Undo :func:`install`."""
    if event.contains(target, "before_flush", fill_keys):
        event.remove(target, "before_flush", fill_keys)
