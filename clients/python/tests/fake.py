"""In-process fake nodes for the client's unit tests: a gRPC server per node whose IdService
answers from a script, records every request it got, and can name a leader in its header or
refuse with an ErrorInfo the way idnode does."""

from __future__ import annotations

import threading
from concurrent import futures
from typing import Any, Callable, Dict, List, Optional, Tuple

import grpc

from idnode._private import rpc_status_pb2
from idnode.v1 import idnode_pb2 as pb
from idnode.v1 import idnode_pb2_grpc as pb_grpc


def refuse(context: grpc.ServicerContext, code: grpc.StatusCode, reason: str, message: str = "refused", **metadata: str) -> None:
    """Abort the call as an idnode node does: the status and a google.rpc.ErrorInfo in the
    grpc-status-details-bin trailer."""
    info = rpc_status_pb2.ErrorInfo(reason=reason, domain="idnode.dev", metadata=metadata)
    status = rpc_status_pb2.Status(code=code.value[0], message=message)
    detail = status.details.add()
    detail.type_url = "type.googleapis.com/google.rpc.ErrorInfo"
    detail.value = info.SerializeToString()
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
    context.abort(code, message)


Handler = Callable[[Any, grpc.ServicerContext, "FakeNode"], Any]


class FakeNode(pb_grpc.IdServiceServicer):
    """One fake node. ``handlers`` maps a method name to a function of (request, context, node);
    ``leader`` (an address) is sent in the idnode-leader header of every answer."""

    def __init__(self) -> None:
        self.handlers: Dict[str, Handler] = {}
        self.requests: List[Tuple[str, Any]] = []
        self.leader: Optional[str] = None
        self.lock = threading.Lock()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
        pb_grpc.add_IdServiceServicer_to_server(self, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.addr = f"127.0.0.1:{self.port}"
        self.server.start()

    def calls(self, method: str) -> List[Any]:
        with self.lock:
            return [r for m, r in self.requests if m == method]

    def _serve(self, method: str, request: Any, context: grpc.ServicerContext) -> Any:
        with self.lock:
            self.requests.append((method, request))
        if self.leader is not None:
            context.send_initial_metadata((("idnode-leader", self.leader),))
        handler = self.handlers.get(method)
        if handler is None:
            refuse(context, grpc.StatusCode.UNIMPLEMENTED, "UNIMPLEMENTED", f"{method} is not scripted")
        return handler(request, context, self)

    def stop(self) -> None:
        self.server.stop(None)


def _method(name: str) -> Callable[..., Any]:
    def serve(self: FakeNode, request: Any, context: grpc.ServicerContext) -> Any:
        return self._serve(name, request, context)
    serve.__name__ = name
    return serve


for _name in pb.DESCRIPTOR.services_by_name["IdService"].methods_by_name:
    setattr(FakeNode, _name, _method(_name))


class HiLoServer:
    """A HiLo range source with the cluster's rules: ranges never overlap; a return takes back
    the tail of the newest range only, once, with its grant id. Thread-safe."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self.max = 0
        self.grants: Dict[str, Tuple[int, int]] = {}
        self.order: List[str] = []  # grant ids, oldest first; the last is the newest range
        self.returns: List[Tuple[int, int, str]] = []
        self.lock = threading.Lock()
        self.before_answer: Callable[[Any], None] = lambda req: None

    def next_hilo(self, req: Any, context: grpc.ServicerContext, node: FakeNode) -> Any:
        with self.lock:
            if req.request_id in self.grants:
                low, high = self.grants[req.request_id]
            else:
                low, high = self.max + 1, self.max + self.size
                self.max = high
                self.grants[req.request_id] = (low, high)
                self.order.append(req.request_id)
        self.before_answer(req)
        return pb.NextHiLoResponse(prefix=req.tag + "/", low=low, high=high, last_size=high - low + 1,
                                   server_tag="A", last_range_at=1, grant_id=req.request_id)

    def return_hilo(self, req: Any, context: grpc.ServicerContext, node: FakeNode) -> Any:
        with self.lock:
            self.returns.append((req.last, req.end, req.grant_id))
            ok = bool(self.order) and self.order[-1] == req.grant_id and self.max == req.end and req.last <= req.end
            if ok:
                self.max = req.last
                low, _ = self.grants[self.order.pop()]
                if req.last >= low:
                    self.order.clear()  # a tail came back: nothing below it can
        return pb.ReturnHiLoResponse(returned=ok)

    def install(self, node: FakeNode) -> None:
        node.handlers["NextHiLo"] = self.next_hilo
        node.handlers["ReturnHiLo"] = self.return_hilo
