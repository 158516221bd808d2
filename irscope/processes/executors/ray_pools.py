"""Ray pools: compiles as tasks, measurements in actors that each hold one GPU.

Both answer like ``workers.WorkerPool``: ``submit(tag, job)``, then ``(tag, result)`` in
completion order, streamed back with ``ray.wait``. Where a job's worker or node died, Ray
retries a task itself (``max_retries``); a job that still comes back with a system error is
submitted again by irscope, ``RESUBMITS`` times, before it becomes the job's failure. A job
whose own code raised, or that answered something other than ``Work.result``, is its job's
failure at once: it would fail the same way anywhere.

A job runs past its time counted from when it was handed out. Compiles are handed out only
as many at a time as the cluster has CPUs and a measurement only to an idle actor, so that
time is the job's own, not its wait in a queue. Past it, the task is cancelled (its worker
killed) or the actor killed and replaced.

Measurements go to actors, not tasks: Ray gives a GPU task a fresh process each time
(``max_calls=1``), and a GPU worker's start-up (CUDA, CUPTI, the copy rate) costs seconds.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...errors import exception_line
from .base import Work, accepted

MAX_RETRIES = 2  # Ray's own retries of a task whose worker or node died
RESUBMITS = 2  # irscope's, of a job that still came back with a system error
SLOTS_FRESH_SECONDS = 1.0  # how old the cluster's CPU count may be when more compiles are handed out


def run_task(work: Work, job: tuple) -> tuple[str, Any]:
    """A Ray task: ``(the node it ran on, the job's answer)``."""
    import ray

    return ray.get_runtime_context().get_node_id(), work.run(work.new_state(), *job)


class Slot:
    """A Ray actor that runs ``work``'s jobs one at a time, keeping its state (a GPU's) between them."""

    def __init__(self, work: Work) -> None:
        import ray

        self.work = work
        self.state = work.new_state()
        self.node = ray.get_runtime_context().get_node_id()

    def call(self, job: tuple) -> tuple[str, Any, bool]:
        """``(node, answer, unusable)``: after a fatal error (a CUDA fault) the driver replaces this actor."""
        try:
            return self.node, self.work.run(self.state, *job), False
        except Exception as exc:
            if not self.work.fatal(exc):
                raise
            return self.node, self.work.failure("crashed", f"the GPU's context is gone: {exception_line(exc)}"), True


@dataclass
class Job:
    tag: Any
    job: tuple
    attempt: int = 1
    deadline: float | None = None
    actor: Any = None


class _RayPool:
    def __init__(self, executor: Any, work: Work, timeout: float | None) -> None:
        self._executor = executor
        self._ray = executor.ray
        self._work = work
        self._timeout = timeout
        self._waiting: deque[Job] = deque()
        self._running: dict[Any, Job] = {}  # ObjectRef -> its job
        self._answered: deque[tuple[Any, Any]] = deque()
        self._outstanding = 0

    @property
    def outstanding(self) -> int:
        return self._outstanding

    def submit(self, tag: Any, job: tuple) -> None:
        self._outstanding += 1
        self._waiting.append(Job(tag, job))
        self._hand_out()

    def results(self, timeout: float) -> Iterator[tuple[Any, Any]]:
        """Answers that are in, waiting at most ``timeout`` for the first one."""
        self._expire()
        if not self._answered and self._running:
            done, _ = self._ray.wait(list(self._running), num_returns=1, timeout=timeout)
            if done:  # and every other one in by now
                done, _ = self._ray.wait(list(self._running), num_returns=len(self._running), timeout=0)
            for ref in done:
                self._settle(ref, self._running.pop(ref))
        elif not self._answered:
            time.sleep(timeout)
        self._hand_out()
        while self._answered:
            self._outstanding -= 1
            yield self._answered.popleft()

    def _settle(self, ref: Any, job: Job) -> None:
        exceptions = self._ray.exceptions
        try:
            value = self._ray.get(ref)
        except exceptions.TaskCancelledError:
            return  # cancelled for its time: already answered
        except exceptions.RayTaskError as exc:  # the job's own code raised: it would anywhere
            self._finished(job)
            self._answer(job, self._work.failure("crashed", f"the job raised {exception_line(exc.cause or exc)}"))
            return
        except exceptions.RayError as exc:  # its worker, actor or node is gone: run it again
            self._lost(job)
            if job.attempt > RESUBMITS:
                self._answer(job, self._work.failure("crashed", f"lost {job.attempt} times: {exception_line(exc)}"))
            else:
                self._waiting.appendleft(Job(job.tag, job.job, job.attempt + 1))
            return
        node, answer = self._unpack(value, job)
        if node is not None:
            self._executor.counted(self._executor.node_label(node), job.tag)
        self._answer(job, answer)

    def _unpack(self, value: Any, job: Job) -> tuple[str | None, Any]:
        """The node and the answer; junk (not a ``Work.result``) is the job's failure."""
        if isinstance(value, tuple) and len(value) in (2, 3) and isinstance(value[0], str):
            unusable = len(value) == 3 and value[2] is True
            self._finished(job, unusable)
            answer = accepted(self._work, value[1])
            return (value[0] if answer is value[1] else None), answer
        self._finished(job)
        return None, accepted(self._work, value)

    def _answer(self, job: Job, answer: Any) -> None:
        self._answered.append((job.tag, answer))

    def _expire(self) -> None:
        now = time.monotonic()
        for ref, job in list(self._running.items()):
            if job.deadline is not None and now > job.deadline:
                del self._running[ref]
                self._stop(ref, job)
                self._answer(job, self._work.failure("timeout", f"no result after {self._timeout:.0f} s; stopped"))

    def _deadline(self) -> float | None:
        return None if self._timeout is None else time.monotonic() + self._timeout

    # What differs between tasks and actors.
    def _hand_out(self) -> None:
        raise NotImplementedError

    def _stop(self, ref: Any, job: Job) -> None:
        raise NotImplementedError

    def _finished(self, job: Job, unusable: bool = False) -> None:
        """``job``'s worker answered (``unusable``: and must not run another)."""

    def _lost(self, job: Job) -> None:
        """``job``'s worker is gone."""

    def close(self) -> None:
        raise NotImplementedError


class RayTasks(_RayPool):
    """Compiles: one Ray task per job (``num_cpus=1``), wherever the cluster has a CPU free."""

    def __init__(self, executor: Any, work: Work, timeout: float | None) -> None:
        super().__init__(executor, work, timeout)
        self._task = self._ray.remote(run_task).options(num_cpus=1, max_retries=MAX_RETRIES)
        self._slots, self._counted_at = 1, 0.0

    def _hand_out(self) -> None:
        if self._waiting and time.monotonic() - self._counted_at > SLOTS_FRESH_SECONDS:
            self._slots, self._counted_at = self._executor.cpu_slots(), time.monotonic()
        while self._waiting and len(self._running) < self._slots:
            job = self._waiting.popleft()
            job.deadline = self._deadline()
            self._running[self._task.remote(self._work, job.job)] = job

    def _stop(self, ref: Any, job: Job) -> None:
        self._ray.cancel(ref, force=True)  # kills the worker running it; Ray starts another

    def close(self) -> None:
        for ref in self._running:
            self._ray.cancel(ref, force=True)
        self._running.clear()
        self._waiting.clear()


class RayActors(_RayPool):
    """Measurements: ``size`` actors, each holding one GPU (and its start-up) for the whole bench."""

    def __init__(self, executor: Any, work: Work, timeout: float | None, size: int) -> None:
        super().__init__(executor, work, timeout)
        self._actor = self._ray.remote(Slot).options(num_cpus=0, **executor.gpu_options())
        self._idle = [self._actor.remote(work) for _ in range(size)]

    def _hand_out(self) -> None:
        while self._waiting and self._idle:
            job = self._waiting.popleft()
            job.actor, job.deadline = self._idle.pop(), self._deadline()
            self._running[job.actor.call.remote(job.job)] = job

    def _finished(self, job: Job, unusable: bool = False) -> None:
        if unusable:
            self._replace(job.actor)
        else:
            self._idle.append(job.actor)

    def _lost(self, job: Job) -> None:
        self._replace(job.actor)

    def _stop(self, ref: Any, job: Job) -> None:
        self._replace(job.actor)

    def _replace(self, actor: Any) -> None:
        """Kill ``actor`` and start another, which Ray places on whichever node has a GPU free."""
        self._ray.kill(actor, no_restart=True)
        self._idle.append(self._actor.remote(self._work))

    def close(self) -> None:
        for actor in [*self._idle, *(job.actor for job in self._running.values())]:
            self._ray.kill(actor, no_restart=True)
        self._idle.clear()
        self._running.clear()
        self._waiting.clear()
