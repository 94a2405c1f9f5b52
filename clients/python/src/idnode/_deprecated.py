"""The clients' methods that moved to their parts (``client.admin``, ``client.series``,
``client.databases``, ``client.workers``), kept for one release as forwards that warn.
Delete this module, and the two classes' use in client.py and aio.py, when they go."""

from __future__ import annotations

import functools
import warnings
from typing import TYPE_CHECKING, Any, Callable, TypeVar, cast

from ._admin import Admin, AsyncAdmin
from ._databases import AsyncDatabases, Databases
from ._series import AsyncSeries, Series
from ._workers import AsyncWorkers, Workers

if TYPE_CHECKING:
    from typing_extensions import Concatenate, ParamSpec

    P = ParamSpec("P")
R = TypeVar("R")


class _Forward:
    """A client method that moved to ``client.<part>.<name>``: calling it warns, once per
    place that calls it (Python's default), and calls the new one."""

    def __init__(self, part: str, name: str) -> None:
        self.part, self.name = part, name
        self.old = ""  # the old name, given when the client's class is made

    def __set_name__(self, owner: type, name: str) -> None:
        self.old = name

    def __get__(self, client: Any, owner: Any = None) -> Any:
        if client is None:
            return self
        new = getattr(getattr(client, self.part), self.name)

        @functools.wraps(new)
        def moved(*args: Any, **kwargs: Any) -> Any:
            warnings.warn(
                f"idnode: {type(client).__name__}.{self.old} is deprecated and goes in the next release: "
                f"use client.{self.part}.{self.name}", DeprecationWarning, stacklevel=2,
            )
            return new(*args, **kwargs)

        return moved


def forward(part: str, new: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """The old method, typed as the one of the part it forwards to."""
    return cast("Callable[Concatenate[Any, P], R]", _Forward(part, new.__name__))


class ClientForwards:
    """The old methods of :class:`idnode.Client`."""

    status = forward("admin", Admin.status)
    whoami = forward("admin", Admin.whoami)
    cluster_version = forward("admin", Admin.cluster_version)
    set_cluster_version = forward("admin", Admin.set_cluster_version)
    add_node = forward("admin", Admin.add_node)
    remove_node = forward("admin", Admin.remove_node)
    transfer_leadership = forward("admin", Admin.transfer_leadership)
    backup = forward("admin", Admin.backup)
    restore = forward("admin", Admin.restore)
    release_owner = forward("admin", Admin.release_owner)
    create_series = forward("series", Series.create)
    list_series = forward("series", Series.list)
    issue = forward("series", Series.issue)
    void = forward("series", Series.void)
    verify_series = forward("series", Series.verify)
    journal = forward("series", Series.journal)
    create_database = forward("databases", Databases.create)
    delete_database = forward("databases", Databases.delete)
    list_databases = forward("databases", Databases.list)
    make_opaque = forward("databases", Databases.make_opaque)
    create_key = forward("databases", Databases.create_key)
    delete_key = forward("databases", Databases.delete_key)
    list_keys = forward("databases", Databases.list_keys)
    assign_id = forward("databases", Databases.assign_id)
    acquire_worker = forward("workers", Workers.acquire)
    renew_worker = forward("workers", Workers.renew)
    release_worker = forward("workers", Workers.release)
    list_workers = forward("workers", Workers.list)


class AsyncClientForwards:
    """The old methods of :class:`idnode.aio.Client`."""

    status = forward("admin", AsyncAdmin.status)
    whoami = forward("admin", AsyncAdmin.whoami)
    cluster_version = forward("admin", AsyncAdmin.cluster_version)
    set_cluster_version = forward("admin", AsyncAdmin.set_cluster_version)
    add_node = forward("admin", AsyncAdmin.add_node)
    remove_node = forward("admin", AsyncAdmin.remove_node)
    transfer_leadership = forward("admin", AsyncAdmin.transfer_leadership)
    backup = forward("admin", AsyncAdmin.backup)
    restore = forward("admin", AsyncAdmin.restore)
    release_owner = forward("admin", AsyncAdmin.release_owner)
    create_series = forward("series", AsyncSeries.create)
    list_series = forward("series", AsyncSeries.list)
    issue = forward("series", AsyncSeries.issue)
    void = forward("series", AsyncSeries.void)
    verify_series = forward("series", AsyncSeries.verify)
    journal = forward("series", AsyncSeries.journal)
    create_database = forward("databases", AsyncDatabases.create)
    delete_database = forward("databases", AsyncDatabases.delete)
    list_databases = forward("databases", AsyncDatabases.list)
    make_opaque = forward("databases", AsyncDatabases.make_opaque)
    create_key = forward("databases", AsyncDatabases.create_key)
    delete_key = forward("databases", AsyncDatabases.delete_key)
    list_keys = forward("databases", AsyncDatabases.list_keys)
    assign_id = forward("databases", AsyncDatabases.assign_id)
    acquire_worker = forward("workers", AsyncWorkers.acquire)
    renew_worker = forward("workers", AsyncWorkers.renew)
    release_worker = forward("workers", AsyncWorkers.release)
    list_workers = forward("workers", AsyncWorkers.list)
