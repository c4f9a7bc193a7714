"""The bench's peak RSS of worker processes (benchmarks/process_peaks.py)."""

import multiprocessing
import os
import resource
import time

from benchmarks.process_peaks import DescendantPeak, descendants, high_water_kb


def _hold(megabytes: int, seconds: float) -> None:
    block = bytearray(megabytes << 20)  # zero-filled: every page touched
    time.sleep(seconds)
    del block


def test_a_spawned_worker_s_own_peak_not_its_large_parent_s_nor_an_earlier_child_s():
    spawn = multiprocessing.get_context("spawn")
    earlier = spawn.Process(target=_hold, args=(400, 4.0))  # a child that ran before the measurement
    earlier.start()
    deadline = time.monotonic() + 30
    while high_water_kb(earlier.pid) < 400 << 10:  # its 400 MB are touched
        assert time.monotonic() < deadline
        time.sleep(0.05)
    ballast = bytearray(300 << 20)  # the parent is large when it starts the worker, as a build is
    peak = DescendantPeak(interval=0.005).start()  # often: a sample may fall between fork and exec
    worker = spawn.Process(target=_hold, args=(60, 1.5))
    worker.start()
    time.sleep(1.0)
    assert worker.pid in descendants(os.getpid())
    worker.join()
    del ballast
    assert 60 <= peak.mb < 250  # the worker's own pages, an interpreter and the 60 MB
    inflated = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert inflated >= 300  # what RUSAGE_CHILDREN says of the same worker
    assert high_water_kb(worker.pid) == 0  # ended: nothing to read
    earlier.join()
