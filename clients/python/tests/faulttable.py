"""What the fault-table tests share: the situations of docs/fault-table.md played on one
three-node cluster, a row per call made in them, and the page's section of a client or adapter
checked against those rows (or, with IDNODE_WRITE_FAULT_TABLE=1, rewritten from them). The
error types, codes and reasons must be the committed ones; the times are shown as measured
and never compared."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

import idnode
from cluster import REPO, Control

PAGE = REPO / "docs" / "fault-table.md"

LEADER_DEADLINE = 10.0
NO_QUORUM_DEADLINE = 4.0
HILO_DEADLINE = 1.0
ALL_DOWN_DEADLINE = 2.0
"""Seconds each situation's call may take, as the Go client's table has them."""


@dataclass
class Row:
    """What an application saw in one situation: the error raised, or what came instead."""

    situation: str
    took: float
    error: Optional[BaseException]
    note: str = ""


def measure(situation: str, call: Callable[[], object], note: str = "") -> Row:
    """The row of call: how long it took and what it raised (None when it returned)."""
    began = time.monotonic()
    try:
        call()
        error: Optional[BaseException] = None
    except Exception as e:  # what the application meets is the row's content
        error = e
    return Row(situation, time.monotonic() - began, error, note)


@dataclass
class Situations:
    """The calls of one client or adapter, a function per situation; each is given its
    deadline in seconds and makes its call (or save) within it."""

    leader_killed: Callable[[float], object]
    no_quorum: Callable[[float], object]
    hilo_deadline: Callable[[float], object]
    all_down: Callable[[float], object]
    close: Callable[[], Optional[str]]
    """The client's close holding a HiLo range, every node down; it returns the row's note, or
    None when the table shows no row for it (an adapter's, whose rows are saves)."""
    after_close: Callable[[], object]
    learn_leader: Optional[Callable[[], object]] = None
    """Called once the new leader answers, before the followers are killed: clients made for
    the later situations learn which node leads, as the application's client has."""


def play(cluster: Control, what: str, hilo: str, s: Situations) -> List[Row]:
    """The rows of s's calls, breaking the cluster on the way: the leader killed, then the
    followers (no quorum), then every node. what names the call in the rows ("an identity",
    "a commit of rows keyed by identities"), hilo the one that waits for a HiLo range."""
    rows = []
    cluster.send({"cmd": "kill", "node": "leader"})
    r = measure(f"leader killed: {what} right after ({LEADER_DEADLINE:.0f} s deadline)",
                lambda: s.leader_killed(LEADER_DEADLINE), "none: the new leader answers")
    assert r.error is None, f"{what} after the leader's kill: {r.error!r}"
    rows.append(r)
    if s.learn_leader is not None:
        s.learn_leader()

    cluster.send({"cmd": "kill", "node": "followers"})
    rows.append(measure(f"no quorum: {what} from the leader left alone ({NO_QUORUM_DEADLINE:.0f} s deadline)",
                        lambda: s.no_quorum(NO_QUORUM_DEADLINE)))
    rows.append(measure(f"caller's deadline: {hilo} waiting for its first range under no quorum "
                        f"({HILO_DEADLINE:.0f} s deadline)", lambda: s.hilo_deadline(HILO_DEADLINE)))

    cluster.send({"cmd": "kill", "node": "all"})
    rows.append(measure(f"all nodes down: {what} ({ALL_DOWN_DEADLINE:.0f} s deadline)", lambda: s.all_down(ALL_DOWN_DEADLINE)))
    notes: List[Optional[str]] = []
    r = measure("client closed: close holding a HiLo range, every node down (no deadline)", lambda: notes.append(s.close()))
    if notes != [None]:
        r.note = notes[0] or ""
        rows.append(r)
    rows.append(measure(f"client closed: {what} after close", s.after_close))
    return rows


def adapter_situations(cluster: Control, bind: Callable[[idnode.Client], None], identity_save: Callable[[], object],
                       hilo_save: Callable[[], object], new_hilo_save: Callable[[], object]) -> Situations:
    """The situations of an ORM adapter whose keys bind(client) sets the client of: saves of
    rows keyed by identities (identity_save), by HiLo IDs of a tag the application uses from
    the start (hilo_save), and by HiLo IDs of a tag not used before (new_hilo_save: a node
    left without a quorum may still grant ranges of a tag it served, from a pool it holds). A
    save's deadline is the timeout of the client bound for it: the application's client, which
    knows the leader and holds a HiLo range, for the leader's kill and after the close; one of
    its own for each other situation."""
    app = idnode.Client(cluster.addrs(), timeout=LEADER_DEADLINE)
    bind(app)
    hilo_save()  # a HiLo range held, to be given back at close
    identity_save()  # the leader known

    # Made before the cluster breaks, so that a save's time is that of the save alone; they
    # learn the new leader after the first kill, and are closed with the application's client.
    others = [idnode.Client(cluster.addrs(), timeout=d) for d in (NO_QUORUM_DEADLINE, HILO_DEADLINE, ALL_DOWN_DEADLINE)]

    def on(client: idnode.Client, save: Callable[[], object]) -> Callable[[float], object]:
        def run(deadline: float) -> None:
            bind(client)
            save()
        return run

    def learn_leader() -> None:
        for c in others:
            c.next_identity("fault-table-warm-up")

    def close() -> None:
        for c in [app] + others:
            c.close()

    def after_close() -> None:
        bind(app)
        identity_save()

    return Situations(
        leader_killed=on(app, identity_save),
        no_quorum=on(others[0], identity_save),
        hilo_deadline=on(others[1], new_hilo_save),
        all_down=on(others[2], identity_save),
        close=close,
        after_close=after_close,
        learn_leader=learn_leader,
    )


def render(rows: List[Row], adapter: bool) -> str:
    """The section's table. An adapter's rows show the exception the ORM raises and the idnode
    error inside it; the code and reason are the idnode error's."""
    head = ["situation", "time to answer", "error"] + (["idnode error inside"] if adapter else []) + ["gRPC code", "reason"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        inner = r.error.__cause__ if adapter and r.error is not None else r.error
        if r.error is None:
            cells = [r.note or "none"] + (["—"] if adapter else []) + ["—", "—"]
        elif not isinstance(inner, idnode.IdnodeError):
            cells = [type_name(r.error)] + (["—"] if adapter else []) + ["—", "—"]
        else:
            cells = [type_name(r.error)] + ([type_name(inner)] if adapter else []) + [inner.code.name, inner.reason]
        lines.append("| " + " | ".join([r.situation, shown_time(r.took)] + cells) + " |")
    return "\n".join(lines) + "\n"


def type_name(e: BaseException) -> str:
    """The name an application catches e by: idnode's errors as idnode exports them."""
    cls = type(e)
    if getattr(idnode, cls.__name__, None) is cls:
        return f"`idnode.{cls.__name__}`"
    return f"`{cls.__module__}.{cls.__qualname__}`"


def shown_time(seconds: float) -> str:
    if seconds < 0.001:
        return "< 1 ms"
    if seconds < 0.1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.1f} s"


def without_times(table: str) -> str:
    """table with its time column blanked: measured, not compared."""
    lines = table.strip().split("\n")
    for i, line in enumerate(lines[2:], 2):
        cells = line.split("|")
        if len(cells) > 3:
            cells[2] = " "
            lines[i] = "|".join(cells)
    return "\n".join(lines)


def check_section(name: str, test: str, rows: List[Row], adapter: bool = False) -> None:
    """Compare the page's section name (between ``<!-- begin name: written by test -->`` and
    ``<!-- end name -->``) with rows, or with IDNODE_WRITE_FAULT_TABLE=1 rewrite it; the rest
    of the page is left as it is."""
    begin, end = f"<!-- begin {name}: written by {test} -->\n", f"<!-- end {name} -->"
    text = PAGE.read_text()
    before, found_begin, rest = text.partition(begin)
    committed, found_end, after = rest.partition(end)
    assert found_begin and found_end, f"{PAGE} has no section between {begin.strip()!r} and {end!r}"
    measured = render(rows, adapter)
    if os.environ.get("IDNODE_WRITE_FAULT_TABLE") == "1":
        PAGE.write_text(before + begin + measured + end + after)
        return
    assert without_times(measured) == without_times(committed), (
        f"docs/fault-table.md's {name} table differs from what the client does now "
        f"(IDNODE_WRITE_FAULT_TABLE=1 rewrites it); measured:\n{measured}\ncommitted:\n{committed}")
