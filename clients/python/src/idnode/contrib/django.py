"""idnode keys for Django models (3.2 to 5.x).

::

    class Order(models.Model):
        id = HiLoIdField("orders", primary_key=True)      # orders/17-A
        objects = KeyManager()                            # bulk_create: one take per batch

The fields fill an empty key when a new row is saved (``save``, ``create``, ``bulk_create``),
from the client :func:`bind` gave or, without one, a client made from
``settings.IDNODE = {"nodes": [...], ...}`` (the keywords of :class:`idnode.Client`). A key
the application set is checked (and with ``claim`` claimed). :class:`KeyManager`'s
``bulk_create`` takes the keys of all its rows in one go. Whatever idnode refuses comes as
:class:`IdnodeKeyError`, a ``django.db.DatabaseError`` whose cause is the
:class:`idnode.IdnodeError`; no row is written."""

from __future__ import annotations

import threading
from typing import Any, Dict, Iterable, List, Set, Tuple

from django.db import DatabaseError, models

from ..client import Client
from ..errors import IdnodeError
from .keys import KeySource, Keys

__all__ = [
    "HiLoIdField", "HiLoNumberField", "IdentityField", "IdnodeKeyError", "KeyManager", "KeyQuerySet",
    "NumericIdField", "bind", "keys",
]


class IdnodeKeyError(DatabaseError):  # type: ignore[misc]
    """idnode could not give (or refused) a key; nothing was written. ``orig`` and
    ``__cause__`` are the :class:`idnode.IdnodeError`, ``reason`` its reason."""

    def __init__(self, source: KeySource, cause: IdnodeError) -> None:
        super().__init__(f"idnode could not give keys of {source!r}: {cause}")
        self.orig = cause
        self.reason = cause.reason
        self.source = source


class _SettingsKeys(Keys):
    """Keys over the bound client, or one made from ``settings.IDNODE`` on first use."""

    def __init__(self) -> None:
        super().__init__()
        self._made_lock = threading.Lock()

    @property
    def client(self) -> Client:
        if self._client is None:
            from django.conf import settings

            options = dict(getattr(settings, "IDNODE", None) or {})
            if options:
                with self._made_lock:
                    if self._client is None:
                        self._client = Client(options.pop("nodes"), **options)
        return super().client


keys: Keys = _SettingsKeys()
"""The key sources of every field here."""


def bind(client: Client) -> None:
    """Fill keys from ``client`` (else from a client made of ``settings.IDNODE``)."""
    keys.bind(client)


_FILLED = "_idnode_keys"  # an instance's attribute: the attnames of keys filled or checked


def _done(instance: Any) -> Set[str]:
    done: Set[str] = instance.__dict__.setdefault(_FILLED, set())
    return done


def _no_key_yet() -> None:
    """The fields' default: no key until the row is saved. A primary key with a default makes
    Django insert a new object's row at once, without trying an UPDATE first."""
    return None


class KeyField:
    """What the four fields share: the source of their keys and the hooks that fill them."""

    attname: str
    name: str
    _options: Dict[str, Any]

    def source(self) -> KeySource:
        raise NotImplementedError

    def _init(self, options: Dict[str, Any], kwargs: Dict[str, Any]) -> None:
        self._options = options
        kwargs.setdefault("default", _no_key_yet)

    def _deconstructed(self, kwargs: Dict[str, Any]) -> None:
        if kwargs.get("default") is _no_key_yet:
            del kwargs["default"]
        kwargs.update({k: v for k, v in self._options.items() if v})

    @staticmethod
    def empty(value: Any) -> bool:
        return value is None or value == ""

    def get_pk_value_on_save(self, instance: Any) -> Any:
        """A new object's key, for ``save`` and ``bulk_create``, when it has none."""
        (value,) = fill(self, [instance], take_only=True)
        return value

    def pre_save(self, model_instance: Any, add: bool) -> Any:
        if add and self.attname not in _done(model_instance):
            fill(self, [model_instance])
        return getattr(model_instance, self.attname)


def fill(field: KeyField, instances: List[Any], take_only: bool = False) -> List[Any]:
    """Fill the empty keys of ``instances`` with one take and check the ones set (unless
    ``take_only``: then every instance is taken a key for); their keys, in order."""
    source = field.source()
    empty = [i for i in instances if take_only or field.empty(getattr(i, field.attname))]
    given = [i for i in instances if not take_only and not field.empty(getattr(i, field.attname))]
    try:
        checked = source.check([getattr(i, field.attname) for i in given]) if given else []
        taken = source.take(len(empty)) if empty else []
    except IdnodeError as e:
        raise IdnodeKeyError(source, e) from e
    for batch, values in ((given, checked), (empty, taken)):
        for i, v in zip(batch, values):
            setattr(i, field.attname, v)
            _done(i).add(field.attname)
    return [getattr(i, field.attname) for i in instances]


class HiLoIdField(KeyField, models.CharField):  # type: ignore[misc]
    """Text keys by the client's conventions (``orders/17-A``); a key set by hand is validated
    by the cluster (and claimed for ``owner`` with ``claim``), and one ending with ``/`` or
    ``|`` becomes what the cluster resolves it to."""

    empty_strings_allowed = False  # a new object's key is None, not "", until it is saved

    def __init__(self, tag: str, *args: Any, claim: bool = False, owner: str = "", **kwargs: Any) -> None:
        self._init({"claim": claim, "owner": owner}, kwargs)
        kwargs.setdefault("max_length", 255)
        self.tag = tag
        super().__init__(*args, **kwargs)

    def source(self) -> KeySource:
        return keys.hilo(self.tag, claim=self._options["claim"], owner=self._options["owner"])

    def deconstruct(self) -> Tuple[Any, ...]:
        name, path, args, kwargs = super().deconstruct()
        self._deconstructed(kwargs)
        return name, path, [self.tag, *args], kwargs


class HiLoNumberField(KeyField, models.BigIntegerField):  # type: ignore[misc]
    """Integer keys: the numbers of the tag's HiLo IDs."""

    def __init__(self, tag: str, *args: Any, **kwargs: Any) -> None:
        self._init({}, kwargs)
        self.tag = tag
        super().__init__(*args, **kwargs)

    def source(self) -> KeySource:
        return keys.hilo_number(self.tag)

    def deconstruct(self) -> Tuple[Any, ...]:
        name, path, args, kwargs = super().deconstruct()
        self._deconstructed(kwargs)
        return name, path, [self.tag, *args], kwargs


class IdentityField(KeyField, models.BigIntegerField):  # type: ignore[misc]
    """Integer keys from the identity counter ``name``; with ``claim`` a key set by hand is
    claimed as ``name/N``, which the counter then skips."""

    def __init__(self, name: str, *args: Any, claim: bool = False, owner: str = "", **kwargs: Any) -> None:
        self._init({"claim": claim, "owner": owner}, kwargs)
        self.counter = name
        super().__init__(*args, **kwargs)

    def source(self) -> KeySource:
        return keys.identity(self.counter, claim=self._options["claim"], owner=self._options["owner"])

    def deconstruct(self) -> Tuple[Any, ...]:
        name, path, args, kwargs = super().deconstruct()
        self._deconstructed(kwargs)
        return name, path, [self.counter, *args], kwargs


class NumericIdField(KeyField, models.BigIntegerField):  # type: ignore[misc]
    """Numeric 64-bit keys minted in-process under a leased worker."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._init({}, kwargs)
        super().__init__(*args, **kwargs)

    def source(self) -> KeySource:
        return keys.numeric()

    def deconstruct(self) -> Tuple[Any, ...]:
        name, path, args, kwargs = super().deconstruct()
        self._deconstructed(kwargs)
        return name, path, args, kwargs


class KeyQuerySet(models.QuerySet):  # type: ignore[misc]
    """A QuerySet whose ``bulk_create`` fills the keys of all its objects in one take per
    field, and checks the keys set by hand in one batch, before any row is written."""

    def bulk_create(self, objs: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
        objs = list(objs)
        for field in self.model._meta.concrete_fields:
            if isinstance(field, KeyField):
                fill(field, [o for o in objs if field.attname not in _done(o)])
        return super().bulk_create(objs, *args, **kwargs)


KeyManager = models.Manager.from_queryset(KeyQuerySet)
"""The manager of :class:`KeyQuerySet`: ``objects = KeyManager()``."""
