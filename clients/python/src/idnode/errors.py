"""The exceptions of the idnode client.

Every refusal of an idnode node is a gRPC status with a ``google.rpc.ErrorInfo`` detail whose
reason callers branch on (``NO_QUORUM``, ``OUTCOME_UNKNOWN``, ``INVALID_INPUT`` …, listed in
``proto/idnode/v1/idnode.proto``). The client raises them as :class:`IdnodeError`, one subclass
per gRPC code, never as a bare :class:`grpc.RpcError`::

    try:
        client.next_identity("orders")
    except idnode.Unavailable as e:
        if e.reason == "NO_QUORUM": ...
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Protocol, Tuple, cast

import grpc

from ._private import rpc_status_pb2

ERROR_DOMAIN = "idnode.dev"
"""The ErrorInfo domain of idnode's refusals."""

_ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
_STATUS_TRAILER = "grpc-status-details-bin"


class IdnodeError(Exception):
    """A call refused by the cluster, or one no node answered.

    ``code`` is the gRPC status code, ``reason`` the ErrorInfo reason (the code's name when the
    refusal carried none), ``metadata`` the ErrorInfo's fields (for ``CLAIMED``, say, the ID
    and its owner), ``domain`` the ErrorInfo's domain.
    """

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN
    attempts: int = 1
    """How many attempts the call made (over every node) before it ended."""

    def __init__(
        self,
        message: str,
        *,
        code: Optional[grpc.StatusCode] = None,
        reason: str = "",
        metadata: Optional[Mapping[str, str]] = None,
        domain: str = "",
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.reason = reason or self.code.name
        self.metadata: Mapping[str, str] = dict(metadata or {})
        self.domain = domain

    def __str__(self) -> str:
        return f"{self.code.name} ({self.reason}): {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code.name}, reason={self.reason!r}, message={self.message!r})"


class Cancelled(IdnodeError):
    code = grpc.StatusCode.CANCELLED


class Unknown(IdnodeError):
    code = grpc.StatusCode.UNKNOWN


class InvalidArgument(IdnodeError, ValueError):
    """Bad input (``INVALID_INPUT``), or a request id reused for another request."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class DeadlineExceeded(IdnodeError, TimeoutError):
    """The call's deadline (its ``timeout``) passed before a node served it. When nodes refused
    it before that, ``reason`` and ``metadata`` are those of the most telling refusal
    (``NO_QUORUM`` from a live node rather than a dead node's connection refusal) and
    ``refusal`` is that refusal itself, also the ``__cause__``; otherwise ``reason`` is
    ``DEADLINE_EXCEEDED`` and ``refusal`` None."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED
    refusal: Optional[IdnodeError] = None


class NotFound(IdnodeError):
    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(IdnodeError):
    """A claimed ID (``CLAIMED``), or a tag, address or name in use (``IN_USE``)."""

    code = grpc.StatusCode.ALREADY_EXISTS


class PermissionDenied(IdnodeError):
    code = grpc.StatusCode.PERMISSION_DENIED


class ResourceExhausted(IdnodeError):
    """A bound was reached: ``NODE_BUSY`` (retry elsewhere), a database's limits, every worker leased."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class FailedPrecondition(IdnodeError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class Aborted(IdnodeError):
    code = grpc.StatusCode.ABORTED


class OutOfRange(IdnodeError, ValueError):
    """A number whose result would leave the int64 range (``COUNTER_OVERFLOW`` …)."""

    code = grpc.StatusCode.OUT_OF_RANGE


class Unimplemented(IdnodeError):
    code = grpc.StatusCode.UNIMPLEMENTED


class Internal(IdnodeError):
    code = grpc.StatusCode.INTERNAL


class Unavailable(IdnodeError):
    """No node could serve the call: ``NO_QUORUM``, ``OUTCOME_UNKNOWN``, nodes down … Safe to
    retry; a call that carries a request id answers the first attempt's values."""

    code = grpc.StatusCode.UNAVAILABLE


class DataLoss(IdnodeError):
    code = grpc.StatusCode.DATA_LOSS


class Unauthenticated(IdnodeError):
    code = grpc.StatusCode.UNAUTHENTICATED


class ClientClosed(IdnodeError):
    """The client (or generator) was closed; make a new one."""

    code = grpc.StatusCode.CANCELLED

    def __init__(self, what: str = "the idnode client") -> None:
        super().__init__(f"{what} is closed", reason="CLIENT_CLOSED")


class OpaqueCollection(FailedPrecondition):
    """The collection is opaque (reason ``OPAQUE_COLLECTION``): its values are not published,
    so ``next_identity`` is refused; ``generate("orders|", count)`` gives its IDs, each an
    opaque form (:func:`idnode.opaque_id` checks one)."""

    reason_name = "OPAQUE_COLLECTION"


class NotOpaqueForm(InvalidArgument):
    """A string under an opaque collection that is not one of its IDs (reason
    ``NOT_OPAQUE_FORM``): the wrong length, a character outside Crockford's base 32, or a form
    made under another database's key; the message says which."""

    reason_name = "NOT_OPAQUE_FORM"


OPAQUE_COLLECTION = OpaqueCollection.reason_name
"""The reason of a call the cluster refuses because its collection is opaque."""
NOT_OPAQUE_FORM = NotOpaqueForm.reason_name
"""The reason of a string refused because it is not an opaque form of its collection."""


class MarginNotApplied(FailedPrecondition):
    """A restore whose answer does not echo the margin asked (reason ``MARGIN_NOT_APPLIED``): a
    node on the way runs a build that knows no margins, so the counters are at the backup's
    values only. Upgrade it, then restore again with the margin; a restore only raises, so
    repeating it is safe. ``response`` is the restore's answer."""

    def __init__(self, asked: Tuple[int, int, int, int], applied: Tuple[int, int, int, int], response: Any, *, by_rates: bool = False) -> None:
        rates = ", the rest by rates" if by_rates else ""
        super().__init__(
            f"the restore did not apply the margin asked (identities {asked[0]}+{asked[1]}%, HiLo {asked[2]}+{asked[3]}%{rates}; "
            f"applied identities {applied[0]}+{applied[1]}%, HiLo {applied[2]}+{applied[3]}%): the counters are at the "
            "backup's values only; upgrade the nodes, then restore again with the margin",
            reason="MARGIN_NOT_APPLIED",
        )
        self.response = response


class LeaseError(IdnodeError):
    """The numeric generator may not mint now: its worker lease lapsed or was lost
    (``reason`` ``LEASE_EXPIRED`` or ``LEASE_LOST``), or the clock stepped back
    (``CLOCK_BEHIND``). Retry shortly: the generator is renewing or acquiring a lease."""

    code = grpc.StatusCode.UNAVAILABLE


class UnavailableTimeout(DeadlineExceeded, Unavailable):
    """The deadline passed while the nodes refused the call as unavailable (``NO_QUORUM``, a
    node down …): a :class:`DeadlineExceeded`, and so a ``TimeoutError``, that
    ``except idnode.Unavailable`` catches too."""


class ResourceExhaustedTimeout(DeadlineExceeded, ResourceExhausted):
    """The deadline passed while the nodes refused the call as busy (``NODE_BUSY``): a
    :class:`DeadlineExceeded` that ``except idnode.ResourceExhausted`` catches too."""


def deadline_after(message: str, refusal: IdnodeError) -> DeadlineExceeded:
    """The error of a call whose deadline passed after its attempts met ``refusal``: a
    :class:`DeadlineExceeded` with the refusal's reason and metadata, the refusal as its
    ``refusal`` and ``__cause__``, and also of the refusal's class where that is one a call
    retries (:class:`Unavailable`, :class:`ResourceExhausted`)."""
    cls: type[DeadlineExceeded] = DeadlineExceeded
    if isinstance(refusal, Unavailable):
        cls = UnavailableTimeout
    elif isinstance(refusal, ResourceExhausted):
        cls = ResourceExhaustedTimeout
    err = cls(message, reason=refusal.reason, metadata=refusal.metadata, domain=refusal.domain)
    err.refusal = refusal
    err.__cause__ = refusal  # as `raise err from refusal` would, wherever err is raised
    err.__suppress_context__ = True
    return err


_BY_CODE = {
    cls.code: cls
    for cls in (
        Cancelled, Unknown, InvalidArgument, DeadlineExceeded, NotFound, AlreadyExists,
        PermissionDenied, ResourceExhausted, FailedPrecondition, Aborted, OutOfRange,
        Unimplemented, Internal, Unavailable, DataLoss, Unauthenticated,
    )
}


_BY_REASON: Mapping[str, type[IdnodeError]] = {OPAQUE_COLLECTION: OpaqueCollection, NOT_OPAQUE_FORM: NotOpaqueForm}


def error_class(code: grpc.StatusCode, reason: str = "") -> type[IdnodeError]:
    """The IdnodeError subclass for a gRPC status code, or for a reason that has one of its own
    (``OPAQUE_COLLECTION``, ``NOT_OPAQUE_FORM``) when it comes with its code."""
    by_reason = _BY_REASON.get(reason)
    if by_reason is not None and by_reason.code == code:
        return by_reason
    return _BY_CODE.get(code, IdnodeError)


def make_error(
    code: grpc.StatusCode, message: str, reason: str = "", metadata: Optional[Mapping[str, str]] = None, domain: str = ""
) -> IdnodeError:
    """An error of code's class; the client uses it for refusals it makes itself, with the
    code and reason the server would give, and for a node's refusal it passes on."""
    return error_class(code, reason)(message, code=code, reason=reason, metadata=metadata, domain=domain)


class FailedCall(Protocol):
    """What a failed call of grpc or grpc.aio is besides a grpc.RpcError: the error of a
    synchronous call is also its grpc.Call, and grpc.aio's AioRpcError has the same methods."""

    def code(self) -> grpc.StatusCode: ...

    def details(self) -> Optional[str]: ...

    def initial_metadata(self) -> Any: ...

    def trailing_metadata(self) -> Any: ...


def from_rpc_error(err: grpc.RpcError) -> IdnodeError:
    """Translate a failed gRPC call (sync or aio) into an IdnodeError with its ErrorInfo."""
    call = cast(FailedCall, err)
    code = call.code()
    details = call.details() or ""
    reason, metadata, domain = "", {}, ""
    info = _error_info(call.trailing_metadata())
    if info is not None:
        reason, metadata, domain = info.reason, dict(info.metadata), info.domain
    return error_class(code, reason)(details or code.name, code=code, reason=reason, metadata=metadata, domain=domain)


def _error_info(trailers: object) -> Optional[rpc_status_pb2.ErrorInfo]:
    if not trailers:
        return None
    for key, value in trailers:  # type: ignore[attr-defined]
        if key != _STATUS_TRAILER or not isinstance(value, bytes):
            continue
        status = rpc_status_pb2.Status()
        try:
            status.ParseFromString(value)
        except Exception:  # a malformed trailer must not hide the status code itself
            return None
        for detail in status.details:
            if detail.type_url == _ERROR_INFO_TYPE:
                info = rpc_status_pb2.ErrorInfo()
                info.ParseFromString(detail.value)
                return info
    return None
