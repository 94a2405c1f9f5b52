from __future__ import annotations

from typing import Iterator

import pytest

from cluster import Control
from postgres import Postgres, started


@pytest.fixture(scope="session")
def control() -> Iterator[Control]:
    """One idcluster for the whole run; it holds one cluster at a time."""
    cp = Control()
    yield cp
    cp.close()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """One private PostgreSQL server for the whole run, started on first use."""
    yield from started()


@pytest.fixture
def cluster(control: Control, request: pytest.FixtureRequest) -> Iterator[Control]:
    """A cluster of the topology the test's ``topology`` marker gives (default one node),
    torn down after the test."""
    marker = request.node.get_closest_marker("topology")
    control.start(marker.args[0] if marker else {})
    try:
        yield control
    finally:
        control.teardown()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "topology(dict): the idcluster topology of the test's cluster")
