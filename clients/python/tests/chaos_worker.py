"""One process of the chaos test (test_chaos.py): a HiLo generator on a tag every process
shares, one on a tag of its own, and identity callers on threads, until told to stop.

stdin: ``mark`` -> answers ``ok`` once an identity call and HiLo IDs of both tags taken
after the mark succeeded (so the test knows the process got through a fault);
``stop`` -> closes the client (giving the unused HiLo numbers back) and prints its results
as one JSON line. argv: the node addresses (comma-separated) and the process's index."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, Dict

import idnode

IDENTITY_THREADS = 4
HILO_BATCH = 50
PACE = 0.01  # seconds between HiLo batches: enough IDs to cross many ranges, few to keep


def main() -> None:
    nodes, index = sys.argv[1].split(","), int(sys.argv[2])
    client = idnode.Client(nodes, timeout=30)
    shared = client.hilo_generator("chaos-shared")
    own_tag = f"chaos-own-{index}"
    own = client.hilo_generator(own_tag)
    stop = threading.Event()
    lock = threading.Lock()
    progress = threading.Condition(lock)
    out: Dict[str, Any] = {"identities": [], "shared": [], "own": [], "errors": []}
    done = {"identity": 0, "hilo": 0}

    def identities() -> None:
        while not stop.is_set():
            try:
                block = client.next_identity("chaos", 1 + len(out["identities"]) % 3)
            except idnode.IdnodeError as e:
                with lock:
                    out["errors"].append(repr(e))
                return
            with progress:
                out["identities"].extend(block)
                done["identity"] += 1
                progress.notify_all()

    def hilo() -> None:
        while not stop.is_set():
            try:
                s = [shared.next_id() for _ in range(HILO_BATCH)]
                o = [own.next_id() for _ in range(HILO_BATCH // 10)]
            except idnode.IdnodeError as e:
                with lock:
                    out["errors"].append(repr(e))
                return
            with progress:
                out["shared"].extend(s)
                out["own"].extend(o)
                done["hilo"] += 1
                progress.notify_all()
            stop.wait(PACE)

    threads = [threading.Thread(target=identities) for _ in range(IDENTITY_THREADS)] + [threading.Thread(target=hilo)]
    for t in threads:
        t.start()
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "mark":
            with progress:
                # Counted from the mark: a call in flight at the mark may have started before it.
                need = {k: v + 1 + (IDENTITY_THREADS if k == "identity" else 1) for k, v in done.items()}
                ok = progress.wait_for(lambda: all(done[k] >= need[k] for k in need) or bool(out["errors"]), timeout=60)
            print("ok" if ok and not out["errors"] else f"failed {out['errors']}", flush=True)
        elif cmd == "stop":
            break
    stop.set()
    for t in threads:
        t.join(60)
    try:
        shared.close()
        own.close()
        client.close()
    except idnode.IdnodeError as e:
        out["errors"].append(f"close: {e!r}")
    out["ownReturned"] = own.returned
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
