"""``python -m pipelines.demo OUT [--admissions N] [--seed S]``"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import generate_demo


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pipelines.demo", description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--admissions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if not args.quiet:
            print(f"\r{done}/{total} admissions ({time.perf_counter() - t0:.1f}s)", end="", file=sys.stderr)

    counts = generate_demo(args.out, args.admissions, args.seed, progress)
    if not args.quiet:
        print(file=sys.stderr)
        for name, n in counts.items():
            print(f"{n:>12,}  {name}")
        print(f"done in {time.perf_counter() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
