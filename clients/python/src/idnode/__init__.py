"""idnode: the Python client of idnode, a Raft-replicated cluster ID service.

::

    import idnode

    with idnode.Client(["127.0.0.1:7070"]) as client:
        print(client.next_id("orders"))        # orders/1-A

:class:`Client` is synchronous and thread-safe; :class:`idnode.aio.Client` is the same over
asyncio. A client makes IDs itself; administration, fiscal series, databases and worker leases
are its parts ``client.admin``, ``client.series``, ``client.databases`` and ``client.workers``. Refusals raise :class:`IdnodeError` subclasses (``Unavailable``, ``InvalidArgument``,
``OutOfRange`` …) carrying the gRPC code, the ErrorInfo reason and its metadata.
:func:`opaque_id` checks, without a key, that a string is an opaque collection's ID, and
:func:`opaque_numeric_id` that it is an opaque numeric ID.
"""

from ._admin import Admin
from ._calls import BackupInfo, Claim, HiLoRange, Identity, IdentityBlock, Margin, Page
from ._core import Backoff, TLS
from ._databases import Databases
from ._entity import collection_name
from ._numeric import Layout
from ._opaque import OPAQUE_ID_LENGTH, opaque_id, opaque_numeric_id
from ._series import Series
from ._workers import Workers
from .client import Client, HiLoGenerator, NumericGenerator
from . import aio  # noqa: E402  (idnode.aio.Client after a plain "import idnode")
from .errors import (
    Aborted, AlreadyExists, Cancelled, ClientClosed, DataLoss, DeadlineExceeded, FailedPrecondition,
    IdnodeError, Internal, InvalidArgument, LeaseError, MarginNotApplied, NotFound, NotOpaqueForm, OpaqueCollection, OutOfRange,
    PermissionDenied, ResourceExhausted, ResourceExhaustedTimeout, Unauthenticated, Unavailable, UnavailableTimeout,
    Unimplemented, Unknown, NOT_OPAQUE_FORM, OPAQUE_COLLECTION,
)

__version__ = "0.1.0"

__all__ = [
    "aio", "collection_name", "Client", "HiLoGenerator", "NumericGenerator", "Backoff", "TLS", "Layout",
    "Admin", "Series", "Databases", "Workers",
    "IdentityBlock", "HiLoRange", "Identity", "Claim", "Page", "Margin", "MarginNotApplied",
    "IdnodeError", "Aborted", "AlreadyExists", "Cancelled", "ClientClosed", "DataLoss", "DeadlineExceeded",
    "FailedPrecondition", "Internal", "InvalidArgument", "LeaseError", "NotFound", "OutOfRange",
    "PermissionDenied", "ResourceExhausted", "ResourceExhaustedTimeout", "Unauthenticated", "Unavailable",
    "UnavailableTimeout", "Unimplemented", "Unknown",
    "opaque_id", "opaque_numeric_id", "OPAQUE_ID_LENGTH", "OpaqueCollection", "NotOpaqueForm", "OPAQUE_COLLECTION", "NOT_OPAQUE_FORM",
]
