"""The error a call raises once no node served it, for the synchronous and the asyncio client
alike: the most telling refusal its attempts met, not merely the last. With two nodes down and
the third without a quorum, the last attempt is as likely to hit a dead node as the live one,
and "connection refused" would hide the live node's NO_QUORUM, the one thing the caller can act
on."""

from __future__ import annotations

from typing import Optional

from . import errors


def tells_more(new: errors.IdnodeError, old: Optional[errors.IdnodeError]) -> bool:
    """Whether ``new`` says more than ``old`` about why no node served the call. A refusal a
    node gave with a reason of idnode's (``NO_QUORUM``, ``NOT_CAUGHT_UP``, ``STORAGE_FULL`` …)
    says more than a failure with none (no connection, an attempt's timeout), which says only
    that the node was not there; of two of one kind the newer says more, as it is the cluster's
    state now."""
    if old is None:
        return True
    return _from_a_node(new) >= _from_a_node(old)


def _from_a_node(err: errors.IdnodeError) -> bool:
    return err.domain == errors.ERROR_DOMAIN


class Refusals:
    """What one call's failed attempts said, kept for the error that ends the call."""

    __slots__ = ("best",)

    def __init__(self) -> None:
        self.best: Optional[errors.IdnodeError] = None

    def note(self, err: errors.IdnodeError) -> None:
        """Take the failure of an attempt after which the call goes on."""
        if tells_more(err, self.best):
            self.best = err

    def late(self, message: str) -> errors.DeadlineExceeded:
        """The error of a caller whose deadline passed while it waited for the call these are
        the refusals of (a HiLo fetch, a folded identity batch): with the most telling of them
        inside, as the call's own deadline error has, or a plain DeadlineExceeded."""
        best = self.best
        if best is None:
            return errors.DeadlineExceeded(message, reason="DEADLINE_EXCEEDED")
        return errors.deadline_after(f"{message}; most telling refusal: {best.message}", best)

    def final(self, attempts: int, nodes: int, why: str, deadline: bool) -> errors.IdnodeError:
        """The error that ends the call after ``attempts`` over ``nodes`` nodes, at least one of
        which failed. When its attempts ran out it is the most telling refusal itself (its class,
        code, reason and metadata), as the node gave it. When the caller's deadline ended it
        (``deadline``), it is the :class:`errors.DeadlineExceeded` of :func:`errors.deadline_after`,
        with that refusal's reason inside."""
        best = self.best
        assert best is not None, "a call ends this way only after an attempt failed"
        message = f"no node answered ({attempts} attempts over {nodes} nodes; {why}); most telling refusal: {best.message}"
        if deadline:
            err: errors.IdnodeError = errors.deadline_after(message, best)
        else:
            err = errors.make_error(best.code, message, best.reason, best.metadata, best.domain)
        err.attempts = attempts
        return err
