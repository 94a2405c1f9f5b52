"""What the ORM adapters' tests share: counting the client's calls, holding one of them while
the test looks at the database, and workers inserting batches in threads at once."""

from __future__ import annotations

import threading
from typing import Any, Callable, List, Sequence

import grpc


class Calls(grpc.UnaryUnaryClientInterceptor):
    """Counts the client's calls by method."""

    def __init__(self) -> None:
        self.methods: List[str] = []
        self._lock = threading.Lock()

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        with self._lock:
            self.methods.append(details.method.rsplit("/", 1)[-1])
        return continuation(details, request)

    def count(self, method: str) -> int:
        return self.methods.count(method)


class Gate(grpc.UnaryUnaryClientInterceptor):
    """Holds the client's calls of one method (``NextHiLo``, the HiLo range call) once shut,
    until opened: a wait for keys that lasts exactly as long as the test needs to look at what
    the application holds meanwhile."""

    HOLD_AT_MOST = 60.0

    def __init__(self, method: str) -> None:
        self.method = method
        self.held = threading.Event()
        self._open = threading.Event()
        self._open.set()

    def shut(self) -> None:
        self._open.clear()

    def open(self) -> None:
        self._open.set()

    def wait_held(self, timeout: float = 60.0) -> None:
        assert self.held.wait(timeout), f"no {self.method} call was held within {timeout} s: nothing waited for it"

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        if details.method.rsplit("/", 1)[-1] == self.method and not self._open.is_set():
            self.held.set()
            assert self._open.wait(self.HOLD_AT_MOST), f"the gate held a {self.method} call {self.HOLD_AT_MOST} s: the test never opened it"
        return continuation(details, request)


def in_threads(threads: int, batches: int, models: Sequence[Any], insert: Callable[[Any, int, List[int]], None],
               after: Callable[[], None] = lambda: None) -> None:
    """Run ``threads`` workers at once, each inserting ``batches`` batches of 7 rows by
    ``insert(model, worker, seqs)``, the model turning round ``models``; fails the test with
    the first error a worker raised. ``after`` runs in each worker as it ends."""
    failures: List[BaseException] = []
    start = threading.Barrier(threads)

    def work(w: int) -> None:
        try:
            start.wait(30)
            for b in range(batches):
                insert(models[(w + b) % len(models)], w, [b * 7 + i for i in range(7)])
        except BaseException as e:  # raised in the test below
            failures.append(e)
        finally:
            after()

    ts = [threading.Thread(target=work, args=(w,)) for w in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert not any(t.is_alive() for t in ts), "a worker did not finish"
    if failures:
        raise failures[0]
