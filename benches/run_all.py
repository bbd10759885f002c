"""Run every kgbench benchmark script (``benches/bench_*.py``) in turn.

Each script prints its own figures and the ratio against its named baseline.
Usage: ``python benches/run_all.py [NAME ...]`` (e.g. ``iso score``) to run a subset.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parent
    scripts = sorted(here.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in argv]
    failed = 0
    for script in scripts:
        print(f"=== {script.name} ===", flush=True)
        failed += subprocess.call([sys.executable, str(script)]) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
