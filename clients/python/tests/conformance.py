"""The Python runner of the conformance suite (test/conformance/README.md): each scenario's
steps mapped onto the synchronous or the asyncio client. Operations are written once, as
coroutines; on the synchronous client a call returns its value and ``_v`` passes it through,
on the asyncio client it returns an awaitable that ``_v`` awaits."""

from __future__ import annotations

import asyncio
import inspect
import json
import pathlib
import re
import threading
import time
import uuid
from typing import Any, Callable, Dict, List, Optional

import idnode
import idnode.aio

from cluster import Control

DEFAULT_DEADLINE_MS = 10_000


class StepFailed(AssertionError):
    pass


async def _v(x: Any) -> Any:
    return await x if inspect.isawaitable(x) else x


def load(path: pathlib.Path) -> Dict[str, Any]:
    with open(path) as f:
        return json.load(f)


class Run:
    def __init__(self, cp: Control, scenario: Dict[str, Any], asyncio_client: bool) -> None:
        self.cp = cp
        self.sc = scenario
        self.aio = asyncio_client
        self.clients: Dict[str, Any] = {}
        self.numeric: Dict[str, Any] = {}
        self.saved: Dict[str, Any] = {}

    async def run(self) -> None:
        self.cp.start(self.sc.get("topology", {}))
        try:
            await self.open("c", {})
            for i, step in enumerate(self.sc["steps"], 1):
                try:
                    await self.step(step)
                except StepFailed as e:
                    raise StepFailed(f"step {i} {json.dumps(step)}: {e}") from None
        finally:
            try:
                for name in list(self.clients):
                    await self.close(name)
            finally:
                self.cp.teardown()

    async def open(self, name: str, args: Dict[str, Any]) -> None:
        if name in self.clients:
            raise StepFailed(f"client {name} is open already")
        cluster = self.cp.cluster or {}
        kw: Dict[str, Any] = {"nodes_in_order": True}
        if args.get("database"):
            kw["database"] = args["database"]
        key = args.get("apiKey")
        if isinstance(key, str):
            if key not in cluster.get("keys", {}):
                raise StepFailed(f"open: apiKey {key!r} is no key name of the topology")
            kw["api_key"] = cluster["keys"][key]
        elif isinstance(key, dict):
            kw["api_key"] = key["secret"]
        if args.get("tls") or args.get("clientCert"):
            files = cluster.get("tls")
            if not files:
                raise StepFailed("open: tls asked of a cluster without TLS")
            cert = args.get("clientCert")
            kw["tls"] = idnode.TLS(ca_file=files["ca"], cert_file=files["clientCert"] if cert else None, key_file=files["clientKey"] if cert else None)
        addrs = self.cp.addrs(args.get("nodes"))
        if "region" in args:
            kw["region"] = args["region"]
            kw["node_regions"] = {n["grpc"]: n["region"] for n in cluster.get("nodes", []) if n["grpc"] in addrs and "region" in n}
        make = idnode.aio.Client if self.aio else idnode.Client
        self.clients[name] = make(addrs, **kw)

    async def close(self, name: str) -> None:
        c = self.clients.pop(name)
        await _v(c.close())

    async def step(self, step: Dict[str, Any]) -> None:
        if "fault" in step:
            answer = self.cp.send({"cmd": step["fault"], "node": step.get("node")})
            self.check(step.get("expect"), answer, None)
            if step.get("save"):
                self.saved[step["save"]] = answer
            return
        args = self.resolve(step.get("args") or {})
        name = step.get("client", "c")
        op = step["op"]
        result: Any = None
        error: Optional[idnode.IdnodeError] = None
        began = time.monotonic()
        try:
            if op == "open":
                await self.open(name, args)
                result = {}
            elif op == "close":
                await self.close(name)
                result = {}
            else:
                if op not in OPS:
                    raise StepFailed(f"unknown op {op!r} (README: Operations)")
                if name not in self.clients:
                    raise StepFailed(f"no client {name!r} open")
                timeout = step.get("deadlineMs", DEFAULT_DEADLINE_MS) / 1000
                result = await OPS[op](self, name, Args(args), timeout)
        except idnode.IdnodeError as e:
            error = e
        took = time.monotonic() - began
        within = step.get("withinMs")
        if within is not None and took * 1000 > within:
            outcome = f"{error.code.name}/{error.reason}" if error is not None else "success"
            raise StepFailed(f"took {took * 1000:.0f} ms, more than withinMs {within} (outcome: {outcome})")
        self.check(step.get("expect"), result, error)
        if error is None and step.get("save"):
            self.saved[step["save"]] = result

    def check(self, expect: Optional[Dict[str, Any]], result: Any, error: Optional[idnode.IdnodeError]) -> None:
        want_err = (expect or {}).get("error")
        if want_err is not None:
            if error is None:
                raise StepFailed(f"want error {want_err}, got result {result!r}")
            if want_err.get("code", error.code.name) != error.code.name or want_err.get("reason", error.reason) != error.reason:
                raise StepFailed(f"want error {want_err}, got {error.code.name}/{error.reason}: {error}")
            return
        if error is not None:
            raise StepFailed(f"failed: {error.code.name}/{error.reason}: {error}")
        if expect and "result" in expect:
            problem = self.match(expect["result"], result, "result")
            if problem:
                raise StepFailed(problem)

    # $ref and the matchers

    def ref(self, path: str) -> Any:
        parts = path.split(".")
        if parts[0] not in self.saved:
            raise StepFailed(f"$ref {path!r}: nothing saved as {parts[0]!r}")
        v = self.saved[parts[0]]
        for p in parts[1:]:
            if isinstance(v, dict) and p in v:
                v = v[p]
            elif isinstance(v, list) and p.isdigit() and int(p) < len(v):
                v = v[int(p)]
            else:
                raise StepFailed(f"$ref {path!r}: no {p!r} in {v!r}")
        return v

    def resolve(self, v: Any) -> Any:
        if isinstance(v, dict):
            if set(v) == {"$ref"}:
                return self.ref(v["$ref"])
            return {k: self.resolve(e) for k, e in v.items()}
        if isinstance(v, list):
            return [self.resolve(e) for e in v]
        return v

    def match(self, want: Any, actual: Any, at: str) -> Optional[str]:
        """None when actual matches want, else what differs."""
        if isinstance(want, dict):
            if want and all(k.startswith("$") for k in want):
                for op, arg in want.items():
                    problem = self.condition(op, arg, actual, at)
                    if problem:
                        return problem
                return None
            if not isinstance(actual, dict):
                return f"{at}: want an object, got {actual!r}"
            for k, w in want.items():
                if k not in actual:
                    return f"{at}.{k}: missing (got {actual!r})"
                problem = self.match(w, actual[k], f"{at}.{k}")
                if problem:
                    return problem
            return None
        if isinstance(want, list):
            if not isinstance(actual, list) or len(actual) != len(want):
                return f"{at}: want {len(want)} elements, got {actual!r}"
            for i, (w, a) in enumerate(zip(want, actual)):
                problem = self.match(w, a, f"{at}[{i}]")
                if problem:
                    return problem
            return None
        # A bool is no integer and an integer no string, whatever Python's == says.
        if type(want) is not type(actual) or want != actual:
            return f"{at}: want {want!r}, got {actual!r}"
        return None

    def condition(self, op: str, arg: Any, actual: Any, at: str) -> Optional[str]:
        if op == "$ref":
            return self.match(self.ref(arg), actual, at)
        if op == "$regex":
            ok = isinstance(actual, str) and re.search(arg, actual) is not None
            return None if ok else f"{at}: want a string matching {arg}, got {actual!r}"
        if op == "$len":
            ok = isinstance(actual, (list, str)) and len(actual) == arg
            return None if ok else f"{at}: want length {arg}, got {actual!r}"
        if op == "$distinct":
            if not isinstance(actual, list):
                return f"{at}: $distinct of {actual!r}"
            seen: Dict[str, int] = {}
            for i, e in enumerate(actual):
                key = json.dumps(e, sort_keys=True)
                if key in seen:
                    return f"{at}: elements {seen[key]} and {i} are both {key}"
                seen[key] = i
            return None
        if op == "$each":
            if not isinstance(actual, list):
                return f"{at}: $each of {actual!r}"
            for i, e in enumerate(actual):
                problem = self.match(arg, e, f"{at}[{i}]")
                if problem:
                    return problem
            return None
        if op == "$not":
            return f"{at}: want anything but {arg!r}, got {actual!r}" if self.match(arg, actual, at) is None else None
        if op in ("$gt", "$gte", "$lt", "$lte"):
            a, b = _integer(actual), _integer(self.resolve(arg))
            if a is None or b is None:
                return f"{at}: {op} {arg!r} of {actual!r}: both must be integers"
            ok = {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]
            return None if ok else f"{at}: want {op} {b}, got {a}"
        return f"{at}: unknown matcher {op}"


def _integer(v: Any) -> Optional[int]:
    """Integers, and decimal strings (numeric IDs), compared by value."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and re.fullmatch(r"-?[0-9]+", v):
        return int(v)
    return None


class Args:
    """A step's arguments in camelCase; one left out takes the client's default."""

    def __init__(self, m: Dict[str, Any]) -> None:
        self.m = m

    def get(self, key: str, default: Any = None) -> Any:
        return self.m.get(key, default)


def _entry(e: Any) -> Dict[str, Any]:
    kind = {1: "issued", 2: "voided"}.get(e.kind, "")
    return {"seq": e.seq, "kind": kind, "period": e.period, "number": e.number, "id": e.id, "hash": e.hash, "prevHash": e.prev_hash}


async def _parallel(run: Run, name: str, tag: str, workers: int, each: int, timeout: float) -> List[str]:
    if not 1 <= workers <= 256 or not 1 <= each <= 100_000:
        raise StepFailed(f"hiloIdsParallel: workers 1..256 and each 1..100000, got {workers} and {each}")
    c = run.clients[name]
    if run.aio:
        start = asyncio.Event()

        async def task() -> List[str]:
            await start.wait()
            return [await c.next_id(tag) for _ in range(each)]

        tasks = [asyncio.ensure_future(task()) for _ in range(workers)]
        await asyncio.sleep(0)  # every task waits at the start line
        start.set()
        return [i for chunk in await asyncio.wait_for(asyncio.gather(*tasks), timeout) for i in chunk]
    barrier = threading.Barrier(workers)
    out: List[List[str]] = []
    errors: List[BaseException] = []

    def worker() -> None:
        try:
            barrier.wait(timeout)
            mine = [c.next_id(tag) for _ in range(each)]
            out.append(mine)
        except BaseException as e:  # reported below, in the step
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    if errors:
        raise errors[0]
    if any(t.is_alive() for t in threads) or len(out) != workers:
        raise StepFailed(f"hiloIdsParallel: {workers - len(out)} workers did not finish within {timeout} s")
    return [i for chunk in out for i in chunk]


async def _numeric(run: Run, name: str, a: Args, t: float) -> Dict[str, Any]:
    if name not in run.numeric:
        run.numeric[name] = await _v(run.clients[name].numeric_generator(holder="conformance"))
    g = run.numeric[name]
    ids = [str(g.next()) for _ in range(a.get("count", 1))]
    return {"ids": ids, "worker": g.worker, "epoch": g.epoch}


async def _opaque_forms(run: Run, name: str, a: Args, t: float) -> Dict[str, Any]:
    collection = a.get("collection")
    forms = []
    for id in a.get("ids", []):
        form = idnode.opaque_id(id, collection) if collection else idnode.opaque_numeric_id(id)
        if form is None:
            kind = f"an opaque ID of {collection}" if collection else "an opaque numeric ID"
            raise StepFailed(f"opaqueForms: {id!r} is not {kind}")
        forms.append(form)
    return {"ids": forms}


async def _list_identities(run: Run, name: str, a: Args, t: float) -> Dict[str, Any]:
    c = run.clients[name]
    out, token = [], ""
    while True:
        page = await _v(c.list_identities(a.get("prefix", ""), page_token=token, timeout=t))
        out += [{"name": i.name, "value": i.value} for i in page.items]
        if not page.next_page_token or page.next_page_token == token or not page.items:
            return {"identities": out}
        token = page.next_page_token


class _Entity:
    """The entity of the assignId operation: an ``id`` attribute, as an application's."""

    def __init__(self, id: str) -> None:
        self.id = id


async def _assign_id(run: Run, name: str, a: Args, t: float) -> Dict[str, Any]:
    entity = _Entity(a.get("id", ""))
    got = await _v(run.clients[name].databases.assign_id(entity, timeout=t))
    if got != entity.id:
        raise StepFailed(f"assign_id returned {got!r} but left the entity's id {entity.id!r}")
    return {"id": entity.id}


_POLICY = {"gapless": "gapless", "gapsAllowedJournaled": "gaps_allowed_journaled"}

Op = Callable[[Run, str, Args, float], Any]

OPS: Dict[str, Op] = {
    "generate": lambda r, n, a, t: _then(r.clients[n].generate(
        a.get("id", ""), a.get("count", 0), guid_version=a.get("guidVersion"), request_id=a.get("requestId"),
        claim=a.get("claim", False), owner=a.get("owner", ""), numeric=a.get("numeric", False), timeout=t,
    ), lambda ids: {"ids": ids}),
    "nextIdentity": lambda r, n, a, t: _then(r.clients[n].next_identity(
        a.get("name", ""), a.get("count", 0), request_id=a.get("requestId"), timeout=t,
    ), lambda b: {"first": b.first, "last": b.last, "skipped": list(b.skipped)}),
    "seedIdentity": lambda r, n, a, t: _then(r.clients[n].seed_identity(
        a.get("name", ""), a.get("value", 0), force=a.get("force", False), timeout=t), lambda v: {"value": v}),
    "listIdentities": _list_identities,
    "claim": lambda r, n, a, t: _then(r.clients[n].claim(
        a.get("ids", []), owner=a.get("owner", ""), request_id=a.get("requestId"), timeout=t), lambda _: {}),
    "release": lambda r, n, a, t: _then(r.clients[n].release(
        a.get("ids", []), owner=a.get("owner", ""), request_id=a.get("requestId"), timeout=t), lambda k: {"released": k}),
    "getClaims": lambda r, n, a, t: _then(r.clients[n].get_claims(a.get("ids", []), timeout=t),
        lambda p: {"claims": [{"id": c.id, "owner": c.owner} for c in p.items]}),
    "nextHiLo": lambda r, n, a, t: _then(r.clients[n].next_hilo(
        a.get("tag", ""), last_batch_size=a.get("lastBatchSize", 0), last_max=a.get("lastMax", 0),
        request_id=a.get("requestId"), timeout=t,
    ), lambda h: {"prefix": h.prefix, "low": h.low, "high": h.high, "lastSize": h.last_size, "serverTag": h.server_tag, "grantId": h.grant_id}),
    "returnHiLo": lambda r, n, a, t: _then(r.clients[n].return_hilo(
        a.get("tag", ""), a.get("end", 0), a.get("last", 0), a.get("grantId", ""), timeout=t), lambda ok: {"returned": ok}),
    "seedHiLo": lambda r, n, a, t: _then(r.clients[n].seed_hilo(a.get("tag", ""), a.get("max", 0), timeout=t), lambda m: {"max": m}),
    "explain": lambda r, n, a, t: _then(r.clients[n].explain(a.get("id", ""), timeout=t), lambda e: {
        "kind": e.kind, "encoding": e.encoding, "value": str(e.value), "worker": e.worker, "sequence": e.sequence,
        "prefix": e.prefix, "number": e.number, "nodeTag": e.node_tag, "guidVersion": e.guid_version, "opaque": e.opaque}),
    "assignId": _assign_id,
    "hiloIds": lambda r, n, a, t: _hilo_ids(r, n, a.get("tag", ""), a.get("count", 1), t),
    "hiloIdsParallel": lambda r, n, a, t: _then(_parallel(r, n, a.get("tag", ""), a.get("workers", 1), a.get("each", 1), t), lambda ids: {"ids": ids}),
    "numericIds": _numeric,
    "opaqueForms": _opaque_forms,
    "createSeries": lambda r, n, a, t: _then(r.clients[n].series.create(
        a.get("name", ""), a.get("format", ""), period=a.get("period", "none"),
        policy=_POLICY.get(a.get("policy", "gapless"), a.get("policy")), timeout=t), lambda s: {"name": s.name, "format": s.format}),
    "issue": lambda r, n, a, t: _then(r.clients[n].series.issue(
        a.get("series", ""), request_id=a.get("requestId") or str(uuid.uuid4()), document_hash=a.get("documentHash", ""),
        fields=dict(sorted((a.get("fields") or {}).items())), timeout=t), _entry),
    "void": lambda r, n, a, t: _then(r.clients[n].series.void(
        a.get("series", ""), a.get("number", 0), period=a.get("period", ""), reason=a.get("reason", ""),
        correcting=a.get("correcting", ""), timeout=t), _entry),
    "verifySeries": lambda r, n, a, t: _then(r.clients[n].series.verify(a.get("series", ""), timeout=t), lambda v: {
        "ok": v.ok, "entries": v.entries, "issued": v.issued, "voided": v.voided, "breakSeq": v.break_seq}),
}


async def _then(x: Any, shape: Callable[[Any], Any]) -> Any:
    return shape(await _v(x))


async def _hilo_ids(run: Run, name: str, tag: str, count: int, timeout: float) -> Dict[str, Any]:
    c = run.clients[name]
    return {"ids": [await _v(c.next_id(tag, timeout=timeout)) for _ in range(count)]}
