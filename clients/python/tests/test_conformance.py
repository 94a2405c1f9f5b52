"""Every scenario of the conformance suite, for the synchronous and the asyncio client."""

from __future__ import annotations

import asyncio

import pytest

from cluster import Control, scenarios_dir
from conformance import Run, load

CAPABILITIES = {"tls", "mtls", "grpc"}

SCENARIOS = sorted(scenarios_dir().glob("*.json"))


def test_the_suite_is_there() -> None:
    assert SCENARIOS, f"no scenarios in {scenarios_dir()} (IDNODE_CONFORMANCE_DIR)"


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(control: Control, path, flavour: str) -> None:
    scenario = load(path)
    missing = set(scenario.get("requires", [])) - CAPABILITIES
    if missing:
        pytest.skip(f"the Python client lacks {sorted(missing)}")
    asyncio.run(Run(control, scenario, asyncio_client=flavour == "asyncio").run())
