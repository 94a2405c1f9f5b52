"""What a call's routing costs on its own, without a network: the Attempts a call makes, its
first node taken and that node's answer noted, which every call pays around its RPC; and, for
a client with ``--region``, the same with its nodes split over two regions.

    /usr/bin/python3 bench/routing.py                       # this checkout's src
    /usr/bin/python3 bench/routing.py --src /tmp/old/src    # another's (git archive REV src)

It prints one line: the best of seven timeit runs, in µs a call. Time two versions in turns,
one run of each after the other, since the machine's load moves a run's figure more than
the difference being looked for. Run it from clients/python.
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--src", default=os.path.join(HERE, "..", "src"), help="the idnode package's parent directory")
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--region", action="store_true", help="a client in a region holding the first node")
    p.add_argument("--number", type=int, default=200_000, help="calls a timeit run")
    a = p.parse_args()
    sys.path.insert(0, a.src)
    from idnode._core import Attempts, Call, Nodes, Options

    addrs = [f"127.0.0.1:{5000 + i}" for i in range(a.nodes)]
    kw = {"region": "west", "node_regions": {addrs[0]: "west"}} if a.region else {}
    opts = Options.make(addrs, **kw)
    nodes = Nodes(addrs, True, opts.local_nodes()) if a.region else Nodes(addrs, True)
    call = Call("ids", "Generate", None, lambda r: r, leader=False)

    def one_call() -> None:
        att = Attempts(nodes, opts, call, None)
        node, _, _ = att.next()
        att.succeeded(node, None)

    best = min(timeit.Timer(one_call).repeat(repeat=7, number=a.number))
    print(f"{'region' if a.region else 'no region'}, {a.nodes} nodes: {best / a.number * 1e6:.3f} µs a call")


if __name__ == "__main__":
    main()
