"""GPU workers forked from a parent kept between commands, so a bench does not wait for torch's import.

A GPU worker's start-up is mostly importing torch: 1.3 s with bytecode and 4.3 s without on the
lent H100 and H200, against 0.6 s for CUDA, CUPTI and the L2 sweep and 1.5 s for 21 measurements
(tests/perf/probe_cli_timeline.py). A resident parent imports torch, Triton and irscope's
measurement code once, never touching CUDA, and waits on a Unix socket; each GPU worker a command
asks for is a fork of it that starts CUDA on its own GPU and serves that command over the
connection exactly as a worker serves its pipes (``workers.WorkerPool``). The fork ends with the
connection, so no CUDA context, GPU memory or user's kernel module outlives the command: only the
parent stays, idle for ``IRSCOPE_KEEP_GPU_WORKERS`` seconds (default 600; 0: none is kept, and every
worker starts from scratch as before).

Who may connect: the socket lives in a folder only this user may use (``files.private_folder``), in
a chain of folders no other user can rename (``files.trusted_chain``: an ``XDG_RUNTIME_DIR`` that is
not this user's own, as after ``su`` without ``-`` or ``sudo -E``, keeps no parent), and the parent
forks only for a peer of its own uid (``SO_PEERCRED``); the client checks the parent's uid the same
way. The parent holds its folder open and makes every file in it (lock, status, keepers' locks)
through that handle, never through a link. Which parent: one per environment, named by a hash of the
interpreter, irscope's own files and those of what it preloads (a changed irscope, or a torch or
Triton installed again since, never runs old code) and every environment variable (torch and Triton
read some when imported), less the GPU (set in the fork before CUDA starts) and what differs per
command (irscope's private temporary folder, its markers, the shell's PWD). A parent stays while a
fork of it runs, so that fork's exit status is written for its client.

The CUDA driver kept started: a process's ``cuInit`` takes 0.22 s per H200 when no other process
has the GPU open and 0.05 s when one has (tests/perf/RESULTS.md), so the first fork for a GPU also
starts a keeper: a small process that calls ``cuInit`` on that GPU and waits until the parent and
its forks are gone. It makes no context: it holds no GPU memory, runs nothing, and `nvidia-smi`
lists no process for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from ..storage.files import open_private, private_folder, trusted_chain
from . import own_python
from .timeline import mark

KEEP_ENV = "IRSCOPE_KEEP_GPU_WORKERS"
DEFAULT_KEEP_S = 600.0
CONNECT_WAIT_S = 10.0  # how long a client waits for a parent it started to listen
# A client that lets go of its fork (``ResidentWorker.release``) leaves ``status/<pid>`` + RELEASED: the
# parent then writes no status for that fork, or removes the one it wrote. Every other status stays until
# its client reads it, so a dead fork is never taken for a live process that reuses its pid.
RELEASED = ".released"
# The driver keeper (run as ``python -I -S -c KEEPER LOCK FD``): one per GPU and parent (it holds LOCK);
# FD is the read end of a pipe whose write end the parent and its forks hold, so it reads EOF once
# they are all gone. cuInit only: no context, so no GPU memory and nothing nvidia-smi would list.
KEEPER = """
import ctypes, fcntl, os, stat, sys
try:
    lock = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    info = os.fstat(lock)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        sys.exit(0)
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    sys.exit(0)
try:
    ctypes.CDLL("libcuda.so.1").cuInit(0)
except (OSError, AttributeError):
    pass
while os.read(int(sys.argv[2]), 1):
    pass
"""
# Set in the parent for its forks: (the folder, its open handle, the parent's name, the read end of its lifeline).
_KEEPER_PLACE: tuple[Path, int, str, int] | None = None
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Not part of a parent's identity: they differ per command, and a fork takes the command's own.
PER_COMMAND = {
    "CUDA_VISIBLE_DEVICES",
    own_python.WORKER_ENV,
    "IRSCOPE_TIMELINE",
    "IRSCOPE_TIMELINE_T0",
    "TMPDIR",
    "TEMP",
    "TMP",
    "PWD",
    "OLDPWD",
    "_",
    "SHLVL",
    "COLUMNS",
    "LINES",
}
STARTED: list[int] = []  # pids of the parents this process started (bench says so once)
SERVE_NAME = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
MODULE_NAME = re.compile(r"^[A-Za-z_][\w.]*(:[A-Za-z_]\w*)?$")  # a module, or a module's function to call
_HEADER = struct.Struct("!I")
MAX_MESSAGE = 1 << 24
MAX_SOCKET_PATH = 104  # sun_path holds 108 bytes on Linux, 104 on macOS, with its NUL
REFUSED = 3  # a parent's exit status where its folder or a file in it is not this user's own: the client stops waiting


def keep_seconds() -> float:
    """How long an idle parent stays (``IRSCOPE_KEEP_GPU_WORKERS``, seconds); 0 where none is to be kept."""
    text = os.environ.get(KEEP_ENV, "").strip()
    if not text:
        return DEFAULT_KEEP_S
    try:
        return max(0.0, float(text))
    except ValueError:
        return 0.0  # a value irscope cannot read keeps nothing rather than guessing


def folder() -> Path | None:
    """Where this user's parents listen: ``$XDG_RUNTIME_DIR/irscope``, else ``/tmp/irscope-<uid>``; None where
    ``XDG_RUNTIME_DIR`` is not this user's own (another user could rename what is in it: no parent is kept)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        real = trusted_chain(Path(runtime))
        return None if real is None else real / "irscope"
    return Path("/tmp") / f"irscope-{os.getuid()}"  # not tempfile's: irscope's CLI runs in a private TMPDIR


def _usable(where: Path | None) -> bool:
    """``where`` is (made) a folder only this user may change, in a chain of folders only this user or root may."""
    return where is not None and private_folder(where) and trusted_chain(where) == where


def identity(env: dict[str, str], preload: tuple[str, ...]) -> str:
    """The hash that names the parent serving workers of this environment (that imported ``preload``)."""
    digest = hashlib.sha256()
    digest.update(f"{sys.executable}\0{sys.version}\0{os.getuid()}\0{','.join(preload)}\0".encode())
    for name in sorted(env):
        if name not in PER_COMMAND:
            digest.update(f"{name}={env[name]}\0".encode(errors="surrogateescape"))
    package = Path(__file__).resolve().parents[1]  # all of irscope, not this module's folder alone
    for path in _sources(str(package)):  # os.walk: 7 ms for irscope's 200 files where Path.rglob took 23
        info = os.stat(path)
        digest.update(f"{os.path.relpath(path, package)}:{info.st_mtime_ns}:{info.st_size}\0".encode())
    for top in sorted({entry.partition(":")[0].partition(".")[0] for entry in preload} - {package.name}):
        digest.update(f"{top}:{_installed(top)}\0".encode())
    return digest.hexdigest()[:24]


def _sources(root: str) -> list[str]:
    """Every ``.py`` file under ``root``, in a fixed order."""
    found: list[str] = []
    for folder, folders, files in os.walk(root):
        folders[:] = [f for f in folders if f != "__pycache__"]
        found.extend(os.path.join(folder, name) for name in files if name.endswith(".py"))
    return sorted(found)


def _installed(top: str) -> str:
    """Which installation of the package ``top`` an import would load now (its ``__init__``'s inode and times:
    a package installed again, an upgrade, is a new file), found without importing it."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(top)
        origin = getattr(spec, "origin", None)
        info = os.stat(origin) if origin else None
    except (ImportError, ValueError, OSError):
        return "-"
    return "-" if info is None else f"{origin}:{info.st_ino}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_size}"


class ResidentWorker:
    """A worker forked by a parent: what ``WorkerPool`` uses of a ``subprocess.Popen``, over a socket."""

    def __init__(self, sock: socket.socket, pid: int, status: Path) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._sock = sock
        self._status = status
        self.stdin = _Requests(sock)
        self.stdout = sock.makefile("rb")

    def poll(self) -> int | None:
        if self.returncode is None:
            code = _read_status(self._status)
            if code is not None:
                self.returncode = code
            elif not _alive(self.pid):
                # Reaped: its parent writes how it ended a moment later (or is gone itself, and cannot say).
                deadline = time.monotonic() + 1.0
                while code is None and time.monotonic() < deadline:
                    time.sleep(0.01)
                    code = _read_status(self._status)
                self.returncode = -signal.SIGKILL if code is None else code
        return self.returncode

    def running(self) -> bool:
        """Whether it runs, without waiting for its parent to say how it ended (``poll`` waits up to 1 s)."""
        return self.returncode is None and _alive(self.pid)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"resident worker {self.pid}", timeout or 0.0)
            time.sleep(0.02)
        self._sock.close()
        return self.returncode  # type: ignore[return-value]

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)  # the fork leads its own group: what it started goes too
        except (ProcessLookupError, PermissionError):
            pass

    def release(self) -> None:
        """Let go of a worker that was killed, without waiting for it to end: its parent reaps it.

        A GPU worker's end tears down its CUDA context (0.1-1 s on an H100); a pool being closed has no
        use for how it ended, and says so to the parent (RELEASED), which then keeps no status for it.
        """
        mark = open_private(self._status.with_name(self._status.name + RELEASED), os.O_WRONLY | os.O_CREAT)
        if mark is not None:
            os.close(mark)
        self.stdin.close()
        for stream in (self.stdout, self._sock):
            try:
                stream.close()
            except OSError:
                pass


class _Requests:
    """The request stream: closing it tells the worker no more jobs come (it then exits)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._file = sock.makefile("wb")

    def write(self, data: bytes) -> int:
        return self._file.write(data)

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        try:
            self._file.close()
            self._sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def connect(serve: str, env: dict[str, str], errors_fd: int, preload: tuple[str, ...]) -> ResidentWorker | None:
    """A worker running ``serve`` in ``env``, forked by the parent of that environment that imported the modules
    ``preload`` names (started if none listens).

    None where no parent is to be kept or none can be reached: the caller starts a worker of its own.
    ``errors_fd``: the worker's stderr (sent over the socket), read by the caller when it dies.
    """
    keep = keep_seconds()
    if keep <= 0 or not SERVE_NAME.match(serve) or not all(MODULE_NAME.match(m) for m in preload):
        return None
    where = folder()
    if where is None or not _usable(where):
        return None
    name = identity(env, preload)
    path = where / f"{name}.sock"
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        return None
    sock = _connect(path)
    if sock is None:
        parent = _start_parent(where, name, env, keep, preload)
        deadline = time.monotonic() + CONNECT_WAIT_S
        while parent is not None and sock is None and time.monotonic() < deadline:
            if parent.poll() == REFUSED:
                return None
            time.sleep(0.02)
            sock = _connect(path)
        if sock is None:
            return None
    try:
        socket.send_fds(sock, [b"E"], [errors_fd])
        hello = pickle.dumps({"serve": serve, "env": env, "cwd": os.getcwd()})
        sock.sendall(_HEADER.pack(len(hello)) + hello)
        pid = int.from_bytes(_read_exactly(sock, 8), "big")
    except (OSError, EOFError, ValueError):
        sock.close()
        return None
    mark(f"a resident parent forked worker {pid}")
    return ResidentWorker(sock, pid, where / "status" / str(pid))


def _connect(path: Path) -> socket.socket | None:
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
        if _peer_uid(sock) != os.getuid():
            raise PermissionError(f"{path} is served by another user")
    except OSError:
        sock.close()
        return None
    return sock


def _start_parent(
    where: Path, name: str, env: dict[str, str], keep: float, preload: tuple[str, ...]
) -> subprocess.Popen | None:
    """Start the parent (None where its log is not this user's own regular file: a link is never written through)."""
    parent_env = {k: v for k, v in env.items() if k not in PER_COMMAND - {own_python.WORKER_ENV}}
    parent_env[own_python.WORKER_ENV] = "resident"  # a worker, but one no command's exit ends
    log_fd = open_private(where / f"{name}.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    if log_fd is None:
        return None
    with os.fdopen(log_fd, "ab") as log:
        parent = subprocess.Popen(
            own_python.command(
                "from irscope.processes.resident import serve_parent; serve_parent()",
                name,
                str(keep),
                ",".join(preload),
            ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=parent_env,
            cwd="/",
            start_new_session=True,  # outlives the command that started it, and its Ctrl-C
        )
    STARTED.append(parent.pid)
    mark("a resident parent was started")
    return parent


def serve_parent() -> None:
    """The parent: listen, import what every GPU worker needs, fork one worker per connection; leave when idle.

    Every file it makes is made through its folder's open handle (``home``), so a folder renamed or
    swapped under it, or a link put where a file of its goes, never makes it write elsewhere.
    """
    import fcntl

    name, keep, preload = sys.argv[1], float(sys.argv[2]), [m for m in sys.argv[3].split(",") if m]
    if not re.fullmatch(r"[0-9a-f]{24}", name) or not all(MODULE_NAME.match(m) for m in preload):
        return
    where = folder()
    home = _open_private_folder(str(where)) if where is not None and _usable(where) else None
    if where is None or home is None:
        raise SystemExit(REFUSED)
    lock = open_private(f"{name}.lock", os.O_RDWR | os.O_CREAT, dir_fd=home)  # held for the parent's whole life
    if lock is None:
        raise SystemExit(REFUSED)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another parent of this environment is starting or serving
    with contextlib.suppress(FileExistsError):
        os.mkdir("status", 0o700, dir_fd=home)
    status = _open_private_folder("status", home)
    if status is None:
        raise SystemExit(REFUSED)
    global _KEEPER_PLACE
    lifeline, _held = os.pipe()  # the write end is never written: held until this parent (and each fork) ends
    _KEEPER_PLACE = (where, home, name, lifeline)
    sock_name = f"{name}.sock"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock_name, dir_fd=home)  # a dead parent's (the lock says none is alive)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        try:
            listener.bind(f"/proc/self/fd/{home}/{sock_name}")  # in the folder held open, wherever it is now
        except FileNotFoundError:  # no /proc: the folder's path, checked above
            listener.bind(str(where / sock_name))
    finally:
        os.umask(old_umask)
    listener.listen(64)
    inode = os.stat(sock_name, dir_fd=home, follow_symlinks=False).st_ino
    _preload(preload)
    live: set[int] = set()  # forks not yet reaped: the parent stays for them
    signal.signal(signal.SIGCHLD, lambda *_: _reap(status, live))
    listener.settimeout(1.0)
    idle_since = time.monotonic()
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            _forget_released_statuses(status)
            if live:
                idle_since = time.monotonic()  # a fork still serves its command: not idle
            ours = _same_file(home, sock_name, inode)
            if time.monotonic() - idle_since > keep or not ours:
                _leave(listener, home, name, ours, lock, live)
                return
            continue
        idle_since = time.monotonic()
        if _peer_uid(conn) != os.getuid():
            conn.close()
            continue
        # No reaping before the fork is counted live. A status left for an earlier process of the same pid
        # (one whose client let go of it) must not be read as this one's: the fork clears it itself, before
        # it tells its client its pid. Cleared here in the parent, after fork() returned, a parent held off
        # the CPU meanwhile let the client read the old status, or removed the client's new release mark.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
        try:
            pid = os.fork()
            if pid == 0:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
                listener.close()
                os.close(lock)  # the fork must not keep the parent's lock held once the parent is gone
                for stale in (str(os.getpid()), str(os.getpid()) + RELEASED):
                    with contextlib.suppress(OSError):
                        os.unlink(stale, dir_fd=status)
                os.close(status)
                _become_worker(conn)  # never returns
            live.add(pid)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        conn.close()


def _leave(listener: socket.socket, home: int, name: str, ours: bool, lock: int, live: set[int]) -> None:
    """Stop serving: take the socket (if still ours), and the keepers' locks if no newer parent came; then
    let a new parent start (the lock goes) and wait for the forks still running, to write how they end."""
    listener.close()
    sock_name = f"{name}.sock"
    if ours:  # still ours: take it; a newer parent's stays (and its keepers')
        with contextlib.suppress(FileNotFoundError):
            os.unlink(sock_name, dir_fd=home)
    if not _exists(sock_name, home):  # no newer parent: our keepers' locks go (they leave after us)
        with contextlib.suppress(OSError):
            for entry in os.listdir(home):
                if entry.startswith(f"{name}.driver-") and entry.endswith(".lock"):
                    os.unlink(entry, dir_fd=home)
    os.close(lock)
    while live:  # each fork ends with its command's connection
        time.sleep(0.05)


def _open_private_folder(path: str, dir_fd: int | None = None) -> int | None:
    """An open handle on this user's folder ``path`` that no one else may write to; None for anything else."""
    try:
        fd = os.open(path, _FOLDER_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    info = os.fstat(fd)
    if info.st_uid != os.getuid() or info.st_mode & 0o022:
        os.close(fd)
        return None
    return fd


def _exists(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return True


def _preload(modules: list[str]) -> None:
    """Import what a worker imports before its first job, and call the ``module:function`` entries (work
    whose result the module keeps, such as Triton's hash of its own sources), without starting CUDA."""
    import importlib

    for entry in modules:
        module, _, function = entry.partition(":")
        try:
            imported = importlib.import_module(module)
        except ImportError:  # another Triton without that module: the worker imports what it needs itself
            continue
        if function:
            try:
                getattr(imported, function)()
            except Exception:  # another Triton without that function: the worker just pays for it itself
                pass
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        raise SystemExit("irscope: CUDA was started while preloading; a fork of this process could not use it")
    mark(f"resident parent: {', '.join(modules)} imported")


def _become_worker(conn: socket.socket) -> None:
    """In the fork: take the command's environment, stderr and connection as its own, then serve it."""
    code = 0
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        conn.settimeout(10.0)
        _, fds, _, _ = socket.recv_fds(conn, 1, 1)
        size = _HEADER.unpack(_read_exactly(conn, _HEADER.size))[0]
        if not fds or size > MAX_MESSAGE:
            os._exit(2)
        hello = pickle.loads(_read_exactly(conn, size))
        serve = hello["serve"]
        if not SERVE_NAME.match(serve):
            os._exit(2)
        conn.settimeout(None)
        os.environ.clear()
        os.environ.update(hello["env"])
        os.environ[own_python.WORKER_ENV] = "resident"  # never starts workers; ends with its connection
        import tempfile

        tempfile.tempdir = None  # the command's TMPDIR, not the parent's
        os.chdir(hello["cwd"])
        os.dup2(fds[0], 2)
        os.close(fds[0])
        conn.sendall(os.getpid().to_bytes(8, "big"))
        os.dup2(conn.fileno(), 0)
        os.dup2(conn.fileno(), 1)
        conn.close()
        _end_with_the_connection()
        _keep_the_driver_started()
        module, function = serve.split(":")
        getattr(__import__(module, fromlist=[function]), function)()
    except BaseException:  # a fork must never return into the parent's accept loop
        import traceback

        traceback.print_exc()
        code = 70
    finally:
        sys.stderr.flush()
        os._exit(code)


def _keep_the_driver_started() -> None:
    """In a fork given one GPU: start that GPU's driver keeper (see KEEPER) unless it runs already."""
    import fcntl

    gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    if _KEEPER_PLACE is None or not re.fullmatch(r"[\w-]{1,100}", gpu):
        return
    where, home, name, lifeline = _KEEPER_PLACE
    lock = f"{name}.driver-{hashlib.sha256(gpu.encode()).hexdigest()[:12]}.lock"
    held = open_private(lock, os.O_WRONLY | os.O_APPEND | os.O_CREAT, dir_fd=home)
    if held is None:
        return  # not a file of this user's: no keeper (the fork starts CUDA on its own)
    try:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: no keeper (closing frees it again)
        finally:
            os.close(held)
        subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", KEEPER, str(where / lock), str(lifeline)],
            pass_fds=(lifeline,),
            cwd="/",  # holds no command's folder for the parent's life
            env={k: v for k, v in os.environ.items() if k.startswith(("CUDA_", "NVIDIA_")) or k == "LD_LIBRARY_PATH"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # not in the fork's group: the fork's end must not end it
        )
    except OSError:
        pass  # held by a keeper, or none could start: the fork starts CUDA on its own either way


def _end_with_the_connection() -> None:
    """Kill this worker's group once the command is gone (its end of the socket closed), even mid-job."""
    import select

    def watch() -> None:
        poller = select.poll()
        poller.register(0, select.POLLRDHUP)
        while True:
            for _, events in poller.poll():
                if events & (select.POLLRDHUP | select.POLLHUP | select.POLLERR):
                    time.sleep(0.5)  # a clean end (the requests closed) exits by itself first
                    os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, name="irscope-connection-watch", daemon=True).start()


def _reap(status: int, live: set[int]) -> None:
    """Write each ended fork's exit status (negative: the signal) where its client looks for it (``status``:
    the folder's open handle; a link there is never written through)."""
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        live.discard(pid)
        value = -os.WTERMSIG(code) if os.WIFSIGNALED(code) else os.WEXITSTATUS(code)
        try:
            if _exists(str(pid) + RELEASED, status):  # its client let go of it: nobody will read a status
                os.unlink(str(pid) + RELEASED, dir_fd=status)
                continue
            written = open_private(str(pid), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, dir_fd=status)
            if written is not None:
                with os.fdopen(written, "w") as out:
                    out.write(str(value))
        except OSError:
            pass


def _forget_released_statuses(status: int) -> None:
    """Remove the statuses written before their clients let go of them (``RELEASED``), with the marks."""
    try:
        for entry in os.listdir(status):
            if entry.endswith(RELEASED) and _exists(entry[: -len(RELEASED)], status):
                # reaped before the client let go: neither will be read
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry[: -len(RELEASED)], dir_fd=status)
                    os.unlink(entry, dir_fd=status)
    except OSError:
        pass


def _read_status(path: Path) -> int | None:
    fd = open_private(path, os.O_RDONLY)
    if fd is None:
        return None
    try:
        with os.fdopen(fd) as status:
            value = int(status.read(32))
    except (OSError, ValueError):
        return None
    path.unlink(missing_ok=True)
    return value


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie (ended, not yet reaped by its parent) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _same_file(home: int, name: str, inode: int) -> bool:
    """Is the socket ``name`` in the folder held open still the one this parent bound (not replaced, nor a link)?"""
    try:
        return os.stat(name, dir_fd=home, follow_symlinks=False).st_ino == inode
    except OSError:
        return False


def _peer_uid(sock: socket.socket) -> int:
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def _read_exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError("the connection closed")
        data += chunk
    return data
