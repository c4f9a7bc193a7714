"""The largest peak RSS among a process's descendants (a build's worker processes), as they run.

``resource.getrusage(RUSAGE_CHILDREN)`` cannot give it: a ``spawn`` worker is forked and then
exec'd, and Linux keeps the forked copy's RSS (its parent's at that moment) as the new program's
peak, so a worker started by a large build process reports that process's size. Each descendant's
``VmHWM`` (``/proc/<pid>/status``, the high-water mark of its own memory since its exec) is read
every ``interval`` seconds by a daemon thread instead, once the descendant runs a program of its own
(its command line is not this process's); a worker's last growth before it exits may be missed by
up to one interval. Descendants that already ran when sampling started are not this run's workers
(a test's process may keep other children) and are left out.
"""

from __future__ import annotations

import glob
import os
import threading
import time


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (every thread's children, theirs in turn); ended ones are skipped."""
    found = []
    for path in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            with open(path) as listing:
                children = [int(child) for child in listing.read().split()]
        except OSError:  # the thread ended
            continue
        for child in children:
            found += [child, *descendants(child)]
    return found


def high_water_kb(pid: int) -> int:
    """``pid``'s VmHWM in kB (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


def _command(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read()
    except OSError:
        return None


class DescendantPeak:
    """Started, it samples this process's descendants until the process exits; ``mb`` is the largest
    VmHWM seen."""

    def __init__(self, interval: float = 0.5):
        self.interval = interval
        self.kb = 0
        self._earlier: set[int] = set()

    def start(self) -> DescendantPeak:
        self._earlier = set(descendants(os.getpid()))
        threading.Thread(target=self._watch, daemon=True).start()
        return self

    def sample(self) -> None:
        own = _command(os.getpid())
        for pid in descendants(os.getpid()):
            # Between its fork and its exec a worker is a copy of this process, with this process's
            # pages: its program is not running yet, and it is read once it is.
            if pid not in self._earlier and _command(pid) != own:
                self.kb = max(self.kb, high_water_kb(pid))

    @property
    def mb(self) -> float:
        return self.kb / 1024

    def _watch(self) -> None:
        while True:
            self.sample()
            time.sleep(self.interval)
