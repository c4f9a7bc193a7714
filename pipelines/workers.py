"""The process pool of the build: :func:`ordered_map` runs independent tasks in worker processes
and hands their results back in task order, so what a step writes does not depend on how many
workers ran it (``Settings.workers``, env ``CLINVERSE_WORKERS``). The note NLP sections, derives
units and findings in it; ClinLab fits its labs' models in it."""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from itertools import chain, islice

IN_FLIGHT_PER_WORKER = 2  # tasks submitted ahead per worker: keeps workers busy, bounds memory


def ordered_map[T](fn: Callable[..., T], tasks: Iterable[tuple], workers: int,
                initializer: Callable[[], None] | None = None) -> Iterator[T]:
    """``fn(*task)`` for every task, yielded in task order.

    With ``workers > 1`` and more than one task, the calls run in a ``spawn`` process pool (the CLI
    runs a progress thread, so ``fork`` is unsafe), each worker running ``initializer`` once, with
    at most ``IN_FLIGHT_PER_WORKER * workers`` tasks submitted and not yet yielded: tasks are read
    lazily, never all at once. Otherwise they run here, in order. ``fn`` and ``initializer`` must be
    module-level functions and tasks and results picklable. The pool is shut down when the call ends,
    or inside :func:`kept_pools`, when that block does.
    """
    tasks = iter(tasks)
    head = list(islice(tasks, 2))
    if workers <= 1 or len(head) < 2:
        for task in chain(head, tasks):
            yield fn(*task)
        return
    kept = _KEPT is not None
    pool = _pool(workers, initializer) if kept else _new_pool(workers, initializer)
    pending: deque[Future[T]] = deque()
    try:
        for task in chain(head, tasks):
            pending.append(pool.submit(fn, *task))
            if len(pending) >= IN_FLIGHT_PER_WORKER * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BrokenProcessPool:
        if kept:
            _KEPT.pop((workers, initializer), None)  # a worker died: the next call starts a new pool
        raise
    finally:
        for future in pending:
            future.cancel()
        if not kept:
            pool.shutdown(wait=True, cancel_futures=True)


# Inside kept_pools(): the pools ordered_map keeps between its calls, by workers and initializer.
_KEPT: dict[tuple[int, Callable[[], None] | None], ProcessPoolExecutor] | None = None


@contextmanager
def kept_pools() -> Iterator[None]:
    """Within the block, :func:`ordered_map` keeps each pool for its next call with the same workers and
    initializer (an in-process run starts its workers once, not once per step; a step of the
    multiprocess executor, once for all its shards); at the end of the block they are shut down, so
    none outlives the run or step that started it (a pool kept for the life of a step process hung
    that process at exit)."""
    global _KEPT
    if _KEPT is not None:  # an outer block keeps them already
        yield
        return
    _KEPT = {}
    try:
        yield
    finally:
        pools, _KEPT = _KEPT, None
        for pool in pools.values():
            pool.shutdown(wait=True, cancel_futures=True)


def _new_pool(workers: int, initializer: Callable[[], None] | None) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=initializer)


def _pool(workers: int, initializer: Callable[[], None] | None) -> ProcessPoolExecutor:
    key = (workers, initializer)
    if key not in _KEPT:
        _KEPT[key] = _new_pool(workers, initializer)
    return _KEPT[key]
