"""The key-less check of an opaque ID's form, against the cases every client shares
(test/conformance/opaque-forms.json), and the typed errors of an opaque collection."""

from __future__ import annotations

import json
import pathlib
from typing import Any, Dict, List

import grpc
import pytest

import idnode
from cluster import REPO

FORMS: Dict[str, List[Dict[str, Any]]] = json.loads(
    (REPO / "test" / "conformance" / "opaque-forms.json").read_text(encoding="utf-8")
)


def test_the_shared_cases_are_there() -> None:
    assert FORMS["valid"] and FORMS["invalid"]


@pytest.mark.parametrize("case", FORMS["valid"], ids=lambda c: c["id"])
def test_opaque_id_accepts_and_normalises(case: Dict[str, Any]) -> None:
    got = idnode.opaque_id(case["id"], case["collection"], case.get("separator", "/"))
    assert got == case["normalised"], case["why"]


@pytest.mark.parametrize("case", FORMS["invalid"], ids=lambda c: repr(c["id"]))
def test_opaque_id_refuses(case: Dict[str, Any]) -> None:
    assert idnode.opaque_id(case["id"], case["collection"], case.get("separator", "/")) is None, case["why"]


def test_opaque_id_refuses_what_is_not_a_string() -> None:
    assert idnode.opaque_id(None, "orders") is None  # type: ignore[arg-type]
    assert idnode.opaque_id(b"orders/KC6HECSWE6SX7", "orders") is None  # type: ignore[arg-type]


def test_an_opaque_collection_refusal_is_its_own_type() -> None:
    e = idnode.errors.make_error(grpc.StatusCode.FAILED_PRECONDITION, "collection orders is opaque", idnode.OPAQUE_COLLECTION)
    assert isinstance(e, idnode.OpaqueCollection) and isinstance(e, idnode.FailedPrecondition)
    assert e.reason == "OPAQUE_COLLECTION"
    e = idnode.errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, "not an opaque form", idnode.NOT_OPAQUE_FORM)
    assert isinstance(e, idnode.NotOpaqueForm) and isinstance(e, idnode.InvalidArgument)
    # The reason's class only with its own code: anything else keeps the code's class.
    e = idnode.errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, "odd", idnode.OPAQUE_COLLECTION)
    assert type(e) is idnode.InvalidArgument
