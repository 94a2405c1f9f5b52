"""Closing a client when no node answers: close returns within its bound, and the HiLo numbers
it could not give back are counted and logged as gaps, never raised. Against a fake node that
is stopped (connection refused) or holds every call."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Callable, Iterator, List, Tuple

import grpc
import pytest

import idnode
import idnode.aio
from fake import FakeNode, HiLoServer

WAIT = 10.0  # seconds a close may take before the test calls it hung
# The close timeout of the tests whose node holds the returns: long enough for the close's first
# return to reach the node on a loaded machine (0.2 s was not), so that the close gives up on a
# call the node holds (WAIT) and not on one still on its way.
HELD_CLOSE = 2.0


@pytest.fixture
def node() -> Iterator[FakeNode]:
    n = FakeNode()
    HiLoServer(32).install(n)
    yield n
    n.stop()


def gap_lines(caplog: pytest.LogCaptureFixture) -> List[str]:
    return [r.getMessage() for r in caplog.records if r.name == "idnode" and "gap" in r.getMessage()]


def holding_returns() -> Tuple[Callable[[Any, grpc.ServicerContext, FakeNode], Any], threading.Event, threading.Event]:
    """A ReturnHiLo handler that holds each return until released (or WAIT), then refuses it;
    with the event it sets when it holds one, and the one that releases it."""
    release = threading.Event()
    held = threading.Event()

    def hold(req: Any, ctx: grpc.ServicerContext, n: FakeNode) -> Any:
        held.set()
        release.wait(WAIT)
        ctx.abort(grpc.StatusCode.UNAVAILABLE, "let go")

    return hold, held, release


def closed_in_time(close: Callable[[], Any]) -> None:
    """Run close in a thread; fail when it raises, or when it has not returned within WAIT."""
    outcome: List[BaseException] = []

    def run() -> None:
        try:
            close()
        except BaseException as e:  # reported below, in the test's thread
            outcome.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(WAIT)
    assert not t.is_alive(), f"close did not return within {WAIT} s"
    assert not outcome, f"close raised {outcome[0]!r}"


def sync_client_holding_numbers(node: FakeNode, **kw: Any) -> idnode.Client:
    """A client holding 31 numbers of a range of its own generator of orders and 31 of one it
    made for the caller (kept on the client here: the client holds the ones it made weakly)."""
    c = idnode.Client([node.addr], **kw)
    assert c.next_id("orders") == "orders/1-A"
    c.invoices = c.hilo_generator("invoices")  # type: ignore[attr-defined]
    assert c.invoices.next_id() == "invoices/33-A"  # type: ignore[attr-defined]
    return c


def test_leaving_a_with_block_with_no_node_up_raises_nothing_and_counts_the_gaps(node: FakeNode, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="idnode")
    c = sync_client_holding_numbers(node)

    def leave() -> None:
        with c:
            node.stop()

    closed_in_time(leave)
    assert c.gaps == 62, "31 numbers of each range stayed out"
    lines = gap_lines(caplog)
    assert any("'orders'" in line and "2..32" in line for line in lines), lines
    assert any("'invoices'" in line and "34..64" in line for line in lines), lines


def test_close_gives_up_at_close_timeout_on_a_node_that_holds_the_returns(node: FakeNode) -> None:
    hold, held, release = holding_returns()
    c = sync_client_holding_numbers(node, close_timeout=HELD_CLOSE)
    node.handlers["ReturnHiLo"] = hold
    try:
        closed_in_time(c.close)
        assert held.is_set() and not release.is_set(), "close returned while the node still held a return"
    finally:
        release.set()
    assert c.gaps == 62


def test_an_asyncio_close_with_no_node_up_raises_nothing_and_counts_the_gaps(node: FakeNode, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="idnode")

    async def main() -> idnode.aio.Client:
        async with idnode.aio.Client([node.addr], close_timeout=0.5) as c:
            assert await c.next_id("orders") == "orders/1-A"
            invoices = c.hilo_generator("invoices")
            assert await invoices.next_id() == "invoices/33-A"
            node.stop()
        return c

    c: List[idnode.aio.Client] = []
    closed_in_time(lambda: c.append(asyncio.run(main())))
    assert c[0].gaps == 62
    assert len(gap_lines(caplog)) == 2, gap_lines(caplog)


def test_an_asyncio_close_gives_up_at_close_timeout_on_a_node_that_holds_the_returns(node: FakeNode) -> None:
    hold, held, release = holding_returns()
    async def main() -> int:
        c = idnode.aio.Client([node.addr])
        assert await c.next_id("orders") == "orders/1-A"
        node.handlers["ReturnHiLo"] = hold
        await c.close(timeout=HELD_CLOSE)
        assert held.is_set() and not release.is_set(), "close returned while the node still held a return"
        return c.gaps

    gaps: List[int] = []
    try:
        closed_in_time(lambda: gaps.append(asyncio.run(main())))
    finally:
        release.set()
    assert gaps == [31]


@pytest.mark.parametrize("timeout", [-1, 0, float("nan"), "2", float("inf")])
def test_a_bad_close_timeout_option_is_refused(timeout: Any) -> None:
    with pytest.raises(ValueError):
        idnode.Client(["127.0.0.1:1"], close_timeout=timeout)
