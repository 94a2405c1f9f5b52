"""The collection names assign_id gives entities, against the tables and cases every client
shares (test/conformance/collection-names.json), and assign_id against a real node."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import pytest

import idnode
import idnode.aio
from cluster import REPO, Control
from idnode._entity import _IRREGULAR, _O_ES, _UNCOUNTABLE, plural


# The plural tables and cases every client shares (test/conformance/collection-names.json).
NAMES: Dict[str, Any] = json.loads(
    (REPO / "test" / "conformance" / "collection-names.json").read_text(encoding="utf-8")
)


def test_plural_tables_match_the_shared_file() -> None:
    assert _UNCOUNTABLE == frozenset(NAMES["uncountable"])
    assert _IRREGULAR == NAMES["irregular"]
    assert _O_ES == frozenset(NAMES["esAfterO"])


@pytest.mark.parametrize("word, want", list(NAMES["plurals"].items()))
def test_plural(word: str, want: str) -> None:
    assert plural(word) == want


@pytest.mark.parametrize("name, want", list(NAMES["collections"].items()))
def test_collection_names(name: str, want: str) -> None:
    assert idnode.collection_name(type(name, (), {})) == want


class Order:
    def __init__(self, id: str = "") -> None:
        self.id = id


class Customer:
    def __init__(self, id: str = "") -> None:
        self.id = id


@pytest.mark.topology({"nodes": 1})
def test_assign_id_fills_in_an_entitys_id(cluster: Control) -> None:
    with idnode.Client(cluster.addrs()) as c:
        order = Order()
        assert c.databases.assign_id(order) == order.id == "orders/1-A"
        assert c.databases.assign_id(Order("orders/")).startswith("orders/0")
        counted = Order("orders|")
        assert c.databases.assign_id(counted) == counted.id == "orders/1"
        kept = Customer("customers/ayende")
        assert c.databases.assign_id(kept, claim=True, owner="signup") == "customers/ayende"
        assert c.get_claims(["customers/ayende"]).items[0].owner == "signup"
        with pytest.raises(idnode.AlreadyExists):
            c.databases.assign_id(Customer("Customers/Ayende"), claim=True, owner="mallory")
        with pytest.raises(idnode.InvalidArgument):
            c.databases.assign_id(Customer("customers/a\tb"))
        assert c.databases.assign_id(Customer(), collection="people") == "people/1-A"
        with pytest.raises(TypeError):
            c.databases.assign_id(object())


@pytest.mark.topology({"nodes": 1})
def test_assign_id_of_the_asyncio_client(cluster: Control) -> None:
    async def main() -> List[str]:
        async with idnode.aio.Client(cluster.addrs()) as c:
            entities = [Order(), Order("orders|"), Customer("customers/ayende")]
            return [await c.databases.assign_id(e, claim=True) for e in entities] + [e.id for e in entities]

    assert asyncio.run(main()) == ["orders/1-A", "orders/1", "customers/ayende"] * 2
