"""gRPC client interceptors given to a client see every call it makes, each attempt of a retry
included: the sync client's through grpc.intercept_channel, the asyncio client's through
grpc.aio's channel."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Iterator, List

import grpc
import grpc.aio
import pytest

import idnode
import idnode.aio
from fake import FakeNode, HiLoServer, refuse
from idnode.v1 import idnode_pb2 as pb


class Recorder(grpc.UnaryUnaryClientInterceptor):
    """Notes the method of every unary call."""

    def __init__(self) -> None:
        self.methods: List[str] = []

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        self.methods.append(details.method)
        return continuation(details, request)


class AioRecorder(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self) -> None:
        self.methods: List[str] = []

    async def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        self.methods.append(details.method.decode() if isinstance(details.method, bytes) else details.method)
        return await continuation(details, request)


@pytest.fixture
def node() -> Iterator[FakeNode]:
    n = FakeNode()
    HiLoServer(32).install(n)
    refused = []

    def generate(req, ctx, node):
        if not refused:  # the first attempt fails: its retry is a call the interceptor sees too
            refused.append(True)
            refuse(ctx, grpc.StatusCode.UNAVAILABLE, "NO_QUORUM", "no leader")
        return pb.GenerateResponse(ids=["users/1"])
    n.handlers["Generate"] = generate
    yield n
    n.stop()


def sent(node: FakeNode) -> List[str]:
    """Every call the node received, as gRPC method paths."""
    with node.lock:
        return [f"/idnode.v1.IdService/{m}" for m, _ in node.requests]


def test_an_interceptor_sees_every_call_of_the_sync_client(node: FakeNode) -> None:
    rec = Recorder()
    with idnode.Client([node.addr], interceptors=[rec]) as c:
        assert c.generate("users/") == ["users/1"]
        assert c.next_id("orders") == "orders/1-A"
    # Generate twice (the retry), NextHiLo, and the ReturnHiLo of close.
    assert len(rec.methods) == 4 and rec.methods == sent(node), (rec.methods, sent(node))


def test_an_interceptor_sees_every_call_of_the_asyncio_client(node: FakeNode) -> None:
    rec = AioRecorder()

    async def run() -> None:
        async with idnode.aio.Client([node.addr], interceptors=[rec]) as c:
            assert await c.generate("users/") == ["users/1"]
            assert await c.next_id("orders") == "orders/1-A"
    asyncio.run(run())
    assert len(rec.methods) == 4 and rec.methods == sent(node), (rec.methods, sent(node))
