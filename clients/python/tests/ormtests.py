"""What the ORM adapters' tests share: counting the client's calls, and workers inserting
batches in threads at once."""

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
