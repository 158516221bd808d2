"""The Ray executor: irscope's jobs on a Ray cluster (``RAY_ADDRESS``) or on a local instance it starts.

Ray is optional (``pip install irscope[ray]``) and imported only here. ``ray.init`` given an
address nobody answers retries for minutes, printing as it goes, so a ``host:port`` address is
tried first with one TCP connection: an unreachable one (or a host no resolver could name) is
one line, exit 2, at once. Workers are told they are irscope's (``own_python.WORKER_ENV``), so a
kernel file that calls irscope when it is imported cannot start pools inside them.

A local instance listens on the loopback address only: Ray on Linux takes the address a packet
to the outside would leave from as its node's, and binds its servers there (and one on every
interface), where anyone who can reach the host could submit work. ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``
is Ray's own switch for a node on 127.0.0.1 (what it does on macOS and Windows), read when Ray is
imported. A cluster's results come back as pickles: the cluster is trusted (docs/ray.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from typing import Any

from ...errors import INSTALL, NoGpu, UsageError, exception_line
from ..own_python import WORKER_ENV
from .base import Executor, Pool, Work

PROBE_SECONDS = 5.0  # how long the address may take to answer one TCP connection
LOCAL_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": a node on the loopback address (ray_constants)


def import_ray() -> Any:
    try:
        import ray
    except ImportError:  # a missing package, or one that does not import here
        raise UsageError(f"--executor ray needs Ray, which is not installed here: {INSTALL['ray']}") from None
    return ray


def connect() -> Any:
    """Ray, connected: to ``RAY_ADDRESS`` where it is set (Ray's own rule), else to a local instance on loopback."""
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if not address:
        os.environ.setdefault(LOCAL_ONLY_ENV, "0")  # before Ray is imported: its processes read it too
    ray = import_ray()
    if ray.is_initialized():  # a notebook that called ray.init itself, or an earlier sweep of this process
        return ray
    if address:
        probe(address)
    else:
        _loopback_only()
    quiet_token_auth_news()
    try:
        # Connecting, Ray's C++ core prints a line a second while it retries: kept back, and said only
        # if the connection is made after all (a failure is the one line below). A local instance is
        # started with stderr as it is: its daemons inherit it and outlive this call.
        with held_stderr(enabled=bool(address)):
            ray.init(
                logging_level=logging.WARNING,
                log_to_driver=False,  # workers' stderr stays in Ray's logs, as a local worker's stays in its file
                runtime_env={"env_vars": {WORKER_ENV: "ray"}},
            )
    except Exception as exc:
        where = f"the Ray cluster at RAY_ADDRESS={address}" if address else "a local Ray instance"
        raise UsageError(f"could not reach {where}: {exception_line(exc)}") from None
    return ray


# Ray 2.5x says on every ray.init whether its cluster uses token authentication ("Token authentication is
# enabled for this Ray cluster. Set RAY_AUTH_MODE=disabled to opt out ..."): a line of Ray's configuration in
# the middle of irscope's output, on every sweep. Ray's own setting says it (RAY_AUTH_MODE set: no line).
RAY_TOKEN_LOGGER = "ray._private.authentication.authentication_token_setup"


def _not_token_auth_news(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith("Token authentication is")


def quiet_token_auth_news() -> None:
    logger = logging.getLogger(RAY_TOKEN_LOGGER)
    if _not_token_auth_news not in logger.filters:
        logger.addFilter(_not_token_auth_news)


@contextlib.contextmanager
def held_stderr(enabled: bool) -> Iterator[None]:
    """File descriptor 2 into a temporary file while the block runs; written out if the block returns."""
    if not enabled:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        held.seek(0)
        sys.stderr.write(held.read().decode("utf-8", "replace"))


def _loopback_only() -> None:
    """Where Ray was imported before ``connect`` set its switch (a notebook, a test), set what it read from it."""
    constants: Any = sys.modules.get("ray._private.ray_constants")
    if constants is not None and os.environ.get(LOCAL_ONLY_ENV) == "0":
        constants.ENABLE_RAY_CLUSTER = False


def probe(address: str) -> None:
    """Refuse (exit 2) a ``host:port`` address (``ray://`` too) that takes no TCP connection."""
    rest = address.split("://", 1)[-1]
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        return  # "auto", "local": Ray's own words, which it resolves at once
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except OSError as exc:
        raise UsageError(f"cannot reach the Ray cluster at RAY_ADDRESS={address}: {exc.strerror or exc}") from None
    except (UnicodeError, ValueError, OverflowError) as exc:  # a host IDNA cannot encode (a..b, a 64-letter label)
        raise UsageError(f"RAY_ADDRESS={address} names no host and port a connection can be made to: {exc}") from None


class RayExecutor(Executor):
    """Compiles as CPU tasks anywhere in the cluster; measurements in actors holding one GPU each."""

    name = "ray"
    remote = True

    def __init__(self, gpu_type: str | None = None) -> None:
        super().__init__()
        self.gpu_type = gpu_type
        self.ray = connect()
        self._labels: dict[str, str] = {}

    def _pool(self, work: Work, size: int, timeout: float | None, env: dict, envs: list[dict]) -> Pool:
        """``env``/``envs`` are this host's: a Ray task gets the cluster's environment, and its GPU from Ray."""
        from .ray_pools import RayActors, RayTasks

        if env:
            raise UsageError("a private Triton (-c triton=X) compiles on this host only: use --executor local")
        if work.gpu:
            return RayActors(self, work, timeout, size)
        return RayTasks(self, work, timeout)

    def gpu_count(self, local: int) -> int:
        """The cluster's GPUs (of ``gpu_type``); none is NoGpu (exit 4)."""
        count = 0
        for node in self.ray.nodes():
            resources = node.get("Resources", {})
            if node.get("Alive") and (self.gpu_type is None or f"accelerator_type:{self.gpu_type}" in resources):
                count += int(resources.get("GPU", 0))
        if count == 0:
            kind = f" of type {self.gpu_type}" if self.gpu_type else ""
            raise NoGpu(f"the Ray cluster has no GPU{kind} to measure on")
        return count

    def gpu_options(self) -> dict[str, Any]:
        """Ray's placement of a measuring actor: one GPU, on a node of the type asked for."""
        return {"num_gpus": 1} | ({"accelerator_type": self.gpu_type} if self.gpu_type else {})

    def check_kernel(self, kernel: Any) -> None:
        if kernel.compiles_here:
            raise UsageError(
                f"{kernel.name} is defined in this process (a notebook cell or a script): no Ray worker can "
                "load it again; use the local executor"
            )

    def cpu_slots(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def node_label(self, node_id: str) -> str:
        """A node by its IP; by IP and id where one IP has several nodes (a cluster on one host).

        The cluster's node table is read again only when a result names a node it lacked: once a node.
        """
        if node_id not in self._labels:
            nodes = self.ray.nodes()
            ips = Counter(n.get("NodeManagerAddress") for n in nodes)
            self._labels = {
                n["NodeID"]: n["NodeManagerAddress"]
                + (f"/{n['NodeID'][:8]}" if ips[n.get("NodeManagerAddress")] > 1 else "")
                for n in nodes
            }
        return self._labels.setdefault(node_id, node_id[:8])
