"""The package installs into a fresh venv with pip (no index: Debian's grpcio and protobuf come
from the system site packages) and the README's examples run against a real node."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
from typing import List

import pytest

from cluster import Control

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
README_ADDR = "127.0.0.1:7070"


def python_blocks() -> List[str]:
    return re.findall(r"```python\n(.*?)```", (PACKAGE / "README.md").read_text(), re.S)


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    py = str(venv / "bin" / "python")
    subprocess.run(
        [py, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-index", str(PACKAGE)],
        check=True, timeout=300, cwd=venv,
    )
    return py


@pytest.mark.topology({"nodes": 1})
def test_the_readme_runs_from_an_installed_package(cluster: Control, venv_python: str, tmp_path: pathlib.Path) -> None:
    blocks = [b.replace(README_ADDR, cluster.addrs()[0]) for b in python_blocks()]
    assert README_ADDR not in "".join(blocks)

    def run(code: str) -> str:
        # Run outside the source tree, so that the installed package is the one imported.
        done = subprocess.run([venv_python, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout

    installed = run("import idnode, sys; print(idnode.__file__)")
    assert "site-packages" in installed and str(PACKAGE) not in installed
    assert re.fullmatch(r"orders/1-A\n", run(blocks[0])), "the first example prints an ID"
    out = run("\n".join(blocks))
    assert re.search(r"^INV-0001$", out, re.M), out
