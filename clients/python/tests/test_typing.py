"""The package's type hints hold: `mypy --strict`, over what pyproject.toml names."""

from __future__ import annotations

import pathlib
import subprocess
import sys

PACKAGE = pathlib.Path(__file__).resolve().parents[1]


def test_mypy_strict_finds_nothing(tmp_path: pathlib.Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")],
        cwd=PACKAGE, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
