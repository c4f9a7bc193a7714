"""The process pool of the build: :func:`ordered_map` runs independent tasks in worker processes
and hands their results back in task order, so what a step writes does not depend on how many
workers ran it (``Settings.workers``, env ``CLINVERSE_WORKERS``). The note NLP sections, derives
units and findings in it; ClinLab fits its labs' models in it."""

from __future__ import annotations

import atexit
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import chain, islice

IN_FLIGHT_PER_WORKER = 2  # tasks submitted ahead per worker: keeps workers busy, bounds memory


def ordered_map[T](fn: Callable[..., T], tasks: Iterable[tuple], workers: int,
                initializer: Callable[[], None] | None = None) -> Iterator[T]:
    """``fn(*task)`` for every task, yielded in task order.

    With ``workers > 1`` and more than one task, the calls run in a ``spawn`` process pool (the CLI
    runs a progress thread, so ``fork`` is unsafe), each worker running ``initializer`` once, with
    at most ``IN_FLIGHT_PER_WORKER * workers`` tasks submitted and not yet yielded: tasks are read
    lazily, never all at once. Otherwise they run here, in order. ``fn`` and ``initializer`` must be
    module-level functions and tasks and results picklable. The pool is kept for the next call with
    the same workers and initializer (a build's steps call it once per shard: its workers start once,
    not once per shard) until :func:`close_pools`.
    """
    tasks = iter(tasks)
    head = list(islice(tasks, 2))
    if workers <= 1 or len(head) < 2:
        for task in chain(head, tasks):
            yield fn(*task)
        return
    pool = _pool(workers, initializer)
    pending: deque[Future[T]] = deque()
    try:
        for task in chain(head, tasks):
            pending.append(pool.submit(fn, *task))
            if len(pending) >= IN_FLIGHT_PER_WORKER * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BrokenProcessPool:
        _POOLS.pop((workers, initializer), None)  # a worker died: the next call starts a new pool
        raise
    finally:
        for future in pending:
            future.cancel()


_POOLS: dict[tuple[int, Callable[[], None] | None], ProcessPoolExecutor] = {}


def _pool(workers: int, initializer: Callable[[], None] | None) -> ProcessPoolExecutor:
    key = (workers, initializer)
    if key not in _POOLS:
        _POOLS[key] = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                          initializer=initializer)
    return _POOLS[key]


def close_pools() -> None:
    """Shut down the pools :func:`ordered_map` kept (a build ends; the process exits)."""
    while _POOLS:
        _POOLS.popitem()[1].shutdown(wait=True, cancel_futures=True)


atexit.register(close_pools)
