"""The key-less check of an opaque ID's form, against the cases every client shares
(test/conformance/opaque-forms.json), and the typed errors of an opaque collection."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, Dict, List

import grpc
import pytest

import idnode
import idnode.aio
from cluster import REPO, Control

FORMS: Dict[str, Any] = json.loads(
    (REPO / "test" / "conformance" / "opaque-forms.json").read_text(encoding="utf-8")
)


NUMERIC: Dict[str, List[Dict[str, Any]]] = FORMS["numeric"]


def test_the_shared_cases_are_there() -> None:
    assert FORMS["valid"] and FORMS["invalid"]
    assert NUMERIC["valid"] and NUMERIC["invalid"]


@pytest.mark.parametrize("case", FORMS["valid"], ids=lambda c: c["id"])
def test_opaque_id_accepts_and_normalises(case: Dict[str, Any]) -> None:
    got = idnode.opaque_id(case["id"], case["collection"], case.get("separator", "/"))
    assert got == case["normalised"], case["why"]


@pytest.mark.parametrize("case", FORMS["invalid"], ids=lambda c: repr(c["id"]))
def test_opaque_id_refuses(case: Dict[str, Any]) -> None:
    assert idnode.opaque_id(case["id"], case["collection"], case.get("separator", "/")) is None, case["why"]


@pytest.mark.parametrize("case", NUMERIC["valid"], ids=lambda c: c["id"])
def test_opaque_numeric_id_accepts_and_normalises(case: Dict[str, Any]) -> None:
    assert idnode.opaque_numeric_id(case["id"]) == case["normalised"], case["why"]


@pytest.mark.parametrize("case", NUMERIC["invalid"], ids=lambda c: repr(c["id"]))
def test_opaque_numeric_id_refuses(case: Dict[str, Any]) -> None:
    assert idnode.opaque_numeric_id(case["id"]) is None, case["why"]


def test_opaque_id_refuses_what_is_not_a_string() -> None:
    assert idnode.opaque_id(None, "orders") is None  # type: ignore[arg-type]
    assert idnode.opaque_id(b"orders/KC6HECSWE6SX7", "orders") is None  # type: ignore[arg-type]
    assert idnode.opaque_numeric_id(b"KC6HECSWE6SX7") is None  # type: ignore[arg-type]


def test_opaque_id_takes_one_character_as_separator() -> None:
    for bad in ("", "//", None):
        with pytest.raises(ValueError):
            idnode.opaque_id("orders/KC6HECSWE6SX7", "orders", bad)  # type: ignore[arg-type]


def test_an_opaque_collection_refusal_is_its_own_type() -> None:
    e = idnode.errors.make_error(grpc.StatusCode.FAILED_PRECONDITION, "collection orders is opaque", idnode.OPAQUE_COLLECTION)
    assert isinstance(e, idnode.OpaqueCollection) and isinstance(e, idnode.FailedPrecondition)
    assert e.reason == "OPAQUE_COLLECTION"
    e = idnode.errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, "not an opaque form", idnode.NOT_OPAQUE_FORM)
    assert isinstance(e, idnode.NotOpaqueForm) and isinstance(e, idnode.InvalidArgument)
    # The reason's class only with its own code: anything else keeps the code's class.
    e = idnode.errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, "odd", idnode.OPAQUE_COLLECTION)
    assert type(e) is idnode.InvalidArgument


TOKEN = "admin-token-of-the-opaque-test"


class Order:
    def __init__(self, id: str = "") -> None:
        self.id = id


@pytest.mark.topology({"nodes": 1, "databases": ["shop"], "adminToken": TOKEN})
def test_an_opaque_collection_against_a_real_node(cluster: Control) -> None:
    with idnode.Client(cluster.addrs(), admin_token=TOKEN) as admin:
        status = admin.databases.make_opaque("shop", ["Orders"])
        assert (status.database, list(status.collections)) == ("shop", ["orders"])
        assert re.fullmatch("[0-9a-f]{16}", status.key_fingerprint)
        again = admin.databases.make_opaque("shop", ["orders", "invoices"])
        assert list(again.collections) == ["invoices", "orders"] and again.key_fingerprint == status.key_fingerprint
        with idnode.Client(cluster.addrs(), database="shop") as shop:
            ids = shop.generate("orders|", 5)
            assert len(set(ids)) == 5 and [idnode.opaque_id(i, "orders") for i in ids] == ids
            with pytest.raises(idnode.OpaqueCollection) as refused:
                shop.next_identity("orders")
            assert refused.value.reason == idnode.OPAQUE_COLLECTION
            order = Order("orders|")
            assert shop.databases.assign_id(order) == order.id and idnode.opaque_id(order.id, "orders") == order.id
            assert order.id not in ids
            # Without the admin role Explain says opaque and nothing more; with it, the value.
            seen = shop.explain(ids[0])
            assert (seen.kind, seen.opaque, seen.value, seen.number) == ("identity", True, 0, "")
            told = admin.explain(ids[0], database="shop")
            assert told.opaque and told.number == "1", told
            with pytest.raises(idnode.NotOpaqueForm):
                shop.explain("orders/KC6HECSWE6SX")
        assert [d.opaque_collections for d in admin.databases.list() if d.name == "shop"] == [["invoices", "orders"]]


@pytest.mark.topology({"nodes": 1, "adminToken": TOKEN})
def test_an_opaque_collection_through_asyncio(cluster: Control) -> None:
    async def run() -> None:
        async with idnode.aio.Client(cluster.addrs(), admin_token=TOKEN) as admin:
            status = await admin.databases.make_opaque("", ["orders"])
            assert status.database == "default" and list(status.collections) == ["orders"]
            ids = await admin.generate("orders|", 3)
            assert len(set(ids)) == 3 and all(idnode.opaque_id(i, "orders") == i for i in ids)
            with pytest.raises(idnode.OpaqueCollection):
                await admin.next_identity("orders")
            assert (await admin.explain(ids[2])).number == "3"
    asyncio.run(run())
