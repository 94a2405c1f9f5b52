"""Giving back at interpreter exit what a program forgot to close: the HiLo numbers its
generators did not hand out (so the next range starts right after the last ID) and its numeric
workers. Objects are held weakly; what was closed or collected is skipped."""

from __future__ import annotations

import atexit
import threading
import weakref
from typing import Any

from ._core import log
from ._hilo import HiLoState

EXIT_TIMEOUT = 5.0
"""Seconds each close may take at exit: a cluster that cannot be reached must not hang it."""

_live: "weakref.WeakSet[Any]" = weakref.WeakSet()
_lock = threading.Lock()


def register(obj: Any) -> None:
    """Close obj (its ``close_at_exit``, else ``close(timeout)``) at interpreter exit."""
    with _lock:
        _live.add(obj)


@atexit.register
def _close_all() -> None:
    with _lock:
        objs = list(_live)
    # Generators first: a client's close would also close them, but one made apart from its
    # client's next_id (hilo_generator) is closed here on its own.
    objs.sort(key=lambda o: not isinstance(o, HiLoState))
    for obj in objs:
        try:
            closer = getattr(obj, "close_at_exit", None)
            if closer is not None:
                closer(EXIT_TIMEOUT)
            else:
                obj.close(EXIT_TIMEOUT)
        except Exception as e:  # exit goes on: what could not come back stays a gap
            log.warning("at exit, giving back what %r held failed: %s; it stays a gap", obj, e)
