"""The package as it is published: a wheel and an sdist built by ``python3 -m build`` (the wheel
from the sdist, so the sdist is known to be complete), the wheel installed with pip into a fresh
venv (no index: Debian's grpcio and protobuf come from the system site packages), and the
README's examples run from that install against a real node."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from typing import Dict, List

import pytest
from packaging.requirements import Requirement

from cluster import Control
from postgres import Postgres, importable, need

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
README_ADDR = "127.0.0.1:7070"

# The newest releases when the bounds were last set: the package must admit them, not only
# the Debian versions CI runs on.
NEWEST = {"grpcio": "1.85.1", "protobuf": "7.36.2"}
# The extras of the ORM adapters: extra → (distribution, Debian's release, the newest release).
ORMS = {"sqlalchemy": ("SQLAlchemy", "1.4.46", "2.0.44"), "django": ("Django", "3.2.25", "5.2.8")}


README_DSN = "postgresql+psycopg2://app@127.0.0.1:5432/app"
ORMS_HEADING = "## ORMs"


def python_blocks(section: str = "") -> List[str]:
    """The README's Python examples: of the ``### section`` of the ORMs given one, else of
    everything but the ORMs (whose examples need a database and their extras)."""
    text = (PACKAGE / "README.md").read_text()
    start = text.index("\n" + ORMS_HEADING)
    end = text.index("\n## ", start + 1)
    if section:
        start = text.index(f"\n### {section}\n", start, end)
        following = text.find("\n### ", start + 1)
        if 0 <= following < end:
            end = following
        text = text[start:end]
    else:
        text = text[:start] + text[end:]
    return re.findall(r"```python\n(.*?)```", text, re.S)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, pathlib.Path]:
    """The sdist and the wheel, built from a copy of the package so that the build leaves
    nothing in the source folder."""
    src = tmp_path_factory.mktemp("src") / "idnode"
    shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("tests", "bench", "build", "dist", "*.egg-info", "__pycache__", ".*"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)],
                   check=True, timeout=300, capture_output=True)
    (sdist,) = out.glob("idnode-*.tar.gz")
    (wheel,) = out.glob("idnode-*-py3-none-any.whl")
    return {"sdist": sdist, "wheel": wheel}


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory, dist: Dict[str, pathlib.Path]) -> str:
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    py = str(venv / "bin" / "python")
    subprocess.run(
        [py, "-m", "pip", "install", "--quiet", "--no-index", str(dist["wheel"])],
        check=True, timeout=300, cwd=venv,
    )
    return py


def test_the_artefacts_carry_the_type_hints_and_the_licence(dist: Dict[str, pathlib.Path]) -> None:
    wheel = set(zipfile.ZipFile(dist["wheel"]).namelist())
    for name in ("idnode/py.typed", "idnode/v1/idnode_pb2.pyi", "idnode/_private/rpc_status_pb2.pyi", "idnode/aio.py"):
        assert name in wheel, f"{name} is not in the wheel"
    assert any(n.endswith(".dist-info/LICENSE") for n in wheel), "the wheel carries no LICENSE"
    with tarfile.open(dist["sdist"]) as t:
        sdist = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for name in ("LICENSE", "README.md", "pyproject.toml", "src/idnode/py.typed", "src/idnode/_private/rpc_status.proto"):
        assert name in sdist, f"{name} is not in the sdist"


def test_the_dependency_bounds_admit_the_newest_releases(dist: Dict[str, pathlib.Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        requires = [Requirement(line.split(":", 1)[1].strip()) for line in z.read(meta).decode().splitlines() if line.startswith("Requires-Dist:")]
    by_name = {r.name: r for r in requires if r.marker is None}
    assert set(by_name) == set(NEWEST), requires
    for name, version in NEWEST.items():
        assert version in by_name[name].specifier, f"{by_name[name]} refuses {name} {version}"
    import google.protobuf
    import grpc
    assert grpc.__version__ in by_name["grpcio"].specifier and google.protobuf.__version__ in by_name["protobuf"].specifier
    # The ORM adapters' extras, each naming its ORM alone, from Debian's release to the newest.
    extras = {r.name: r for r in requires if r.marker is not None}
    for extra, (name, debian, newest) in ORMS.items():
        assert extras[name].marker is not None and extras[name].marker.evaluate({"extra": extra}), extras[name]
        assert debian in extras[name].specifier and newest in extras[name].specifier, extras[name]
    assert set(extras) == {name for name, _, _ in ORMS.values()}, requires


def test_the_readme_installs_each_extra_from_the_wheel() -> None:
    # What CI does (run_orm_section) is what an application does: the built wheel with an extra.
    with open(PACKAGE / "pyproject.toml", "rb") as f:
        extras = set(tomllib.load(f)["project"]["optional-dependencies"])
    assert extras == set(ORMS), extras
    shell = "".join(re.findall(r"```sh\n(.*?)```", (PACKAGE / "README.md").read_text(), re.S))
    shown = set(re.findall(r"pip install [^\n]*dist/idnode-[0-9.]+-py3-none-any\.whl\[(\w+)\]", shell))
    assert shown == extras, f"the README installs {sorted(shown)} from the wheel, pyproject.toml has {sorted(extras)}"


@pytest.mark.topology({"nodes": 1})
def test_the_readme_runs_from_the_installed_wheel(cluster: Control, venv_python: str, tmp_path: pathlib.Path) -> None:
    blocks = [b.replace(README_ADDR, cluster.addrs()[0]) for b in python_blocks()]
    assert README_ADDR not in "".join(blocks)

    def run(code: str) -> str:
        # Run outside the source tree, so that the installed package is the one imported; a
        # method kept one release as a forward fails the run: the tour shows the new calls.
        done = subprocess.run([venv_python, "-W", "error:idnode:DeprecationWarning", "-c", code],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout

    installed = run("import idnode, sys; print(idnode.__file__)")
    assert "site-packages" in installed and str(PACKAGE) not in installed
    assert re.fullmatch(r"orders/1-A\n", run(blocks[0])), "the first example prints an ID"
    out = run("\n".join(blocks))
    assert re.search(r"^INV-0001$", out, re.M), out


@pytest.mark.topology({"nodes": 1})
def test_the_sqlalchemy_section_runs_from_the_wheel_installed_with_its_extra(
    cluster: Control, postgres: Postgres, venv_python: str, dist: Dict[str, pathlib.Path], tmp_path: pathlib.Path,
) -> None:
    need("python3-sqlalchemy (apt)", importable("sqlalchemy"))
    out = run_orm_section(venv_python, dist, "sqlalchemy", "SQLAlchemy", cluster, postgres, tmp_path)
    assert out == "['orders/1-A', 'orders/2-A', 'orders/3-A']\n[1, 1000]\nCLIENT_CLOSED ClientClosed\n", out


@pytest.mark.topology({"nodes": 1})
def test_the_django_section_runs_from_the_wheel_installed_with_its_extra(
    cluster: Control, postgres: Postgres, venv_python: str, dist: Dict[str, pathlib.Path], tmp_path: pathlib.Path,
) -> None:
    need("python3-django (apt)", importable("django"))
    out = run_orm_section(venv_python, dist, "django", "Django", cluster, postgres, tmp_path)
    assert out == "orders/1-A\n[1, 2, 3]\nCLIENT_CLOSED ClientClosed\n", out


def run_orm_section(venv_python: str, dist: Dict[str, pathlib.Path], extra: str, section: str,
                    cluster: Control, postgres: Postgres, tmp_path: pathlib.Path) -> str:
    """Install the wheel with an ORM's extra (no index: Debian's ORM satisfies it) and run the
    README section of that ORM in a fresh database; its output."""
    subprocess.run([venv_python, "-m", "pip", "install", "--quiet", "--no-index", f"{dist['wheel']}[{extra}]"],
                   check=True, timeout=300, cwd=tmp_path)
    dsn = postgres.database(f"readme_{extra}").replace("postgres://", "postgresql+psycopg2://", 1)
    # The Django settings name the database as the DSN's parts.
    parts = {README_DSN: dsn, '"NAME": "app"': f'"NAME": "readme_{extra}"', '"PORT": "5432"': f'"PORT": "{postgres.port}"',
             '"USER": "app"': '"USER": "idnode"', README_ADDR: cluster.addrs()[0]}
    blocks = python_blocks(section)
    for readme, real in parts.items():
        blocks = [b.replace(readme, real) for b in blocks]
    assert blocks and not any(readme in b for readme in parts for b in blocks)
    done = subprocess.run([venv_python, "-c", "\n".join(blocks)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout
