"""The tests' access to real nodes: the binaries (IDNODE_BIN, IDNODE_CLUSTER_BIN, or built with
``go build`` from the repository root), and the control program idcluster, which starts and
breaks clusters (test/conformance/README.md: its JSON-lines protocol)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import threading
from typing import Any, Dict, List, Optional

REPO = pathlib.Path(__file__).resolve().parents[3]
ANSWER_TIMEOUT = 90.0
"""Seconds idcluster may take to answer one request (a start waits for an election)."""


def scenarios_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("IDNODE_CONFORMANCE_DIR") or REPO / "test" / "conformance" / "scenarios")


_built: Dict[str, str] = {}
_build_lock = threading.Lock()


def binary(env: str, name: str, pkg: str) -> str:
    """The binary the environment names, or one built once per test run."""
    given = os.environ.get(env)
    if given:
        return given
    with _build_lock:
        if name not in _built:
            if shutil.which("go") is None:
                raise RuntimeError(f"{env} is not set and there is no go toolchain to build {pkg} with")
            out = os.path.join(tempfile.mkdtemp(prefix="idnode-py-bin-"), name)
            subprocess.run(["go", "build", "-o", out, pkg], cwd=REPO, check=True, timeout=300)
            _built[name] = out
        return _built[name]


def idnode_bin() -> str:
    return binary("IDNODE_BIN", "idnode", "./cmd/idnode")


def idcluster_bin() -> str:
    return binary("IDNODE_CLUSTER_BIN", "idcluster", "./test/conformance/idcluster")


class ControlError(RuntimeError):
    pass


class Control:
    """One idcluster process: requests in, answers out, one at a time."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [idcluster_bin(), "--idnode", idnode_bin()],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self._lock = threading.Lock()
        self.cluster: Optional[Dict[str, Any]] = None

    def send(self, request: Dict[str, Any]) -> Dict[str, Any]:
        with self._lock:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            line = _readline(self._proc.stdout, ANSWER_TIMEOUT)
        if not line:
            raise ControlError(f"idcluster exited (code {self._proc.poll()}) while answering {request}")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise ControlError(f"idcluster refused {request}: {answer.get('error')}")
        return answer

    def start(self, topology: Dict[str, Any]) -> Dict[str, Any]:
        self.cluster = self.send({"cmd": "start", "topology": topology})["cluster"]
        return self.cluster

    def addrs(self, selectors: Optional[List[str]] = None) -> List[str]:
        """gRPC addresses of the nodes the selectors name (README: The control program), in the
        order given: a tag, "leader", "follower" (the first by tag), "followers" or "all";
        every node without selectors."""
        assert self.cluster is not None
        by_tag = {n["tag"]: n["grpc"] for n in self.cluster["nodes"]}
        out = []
        for sel in selectors or ["all"]:
            tags = [sel]
            if sel not in by_tag:
                leader = self.send({"cmd": "leader"})["leader"] if sel in ("leader", "follower", "followers") else ""
                followers = [t for t in by_tag if t != leader]
                choices = {"all": list(by_tag), "leader": [leader], "follower": followers[:1], "followers": followers}
                if sel not in choices:
                    raise ControlError(f"open: node {sel!r}: a tag of {sorted(by_tag)}, 'leader', 'follower', 'followers' or 'all'")
                tags = choices[sel]
            out += [by_tag[t] for t in tags]
        return out

    def teardown(self) -> None:
        self.send({"cmd": "teardown"})
        self.cluster = None

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()  # idcluster kills its nodes and exits when its input closes
        try:
            self._proc.wait(30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def _readline(stream: Any, timeout: float) -> str:
    """A line from stream, or '' when none came within timeout (a hung idcluster must not hang
    the tests)."""
    result: List[str] = []
    t = threading.Thread(target=lambda: result.append(stream.readline()), daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise ControlError(f"idcluster did not answer within {timeout} s")
    return result[0]
