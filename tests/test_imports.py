"""Every module of the kgbench package imports — here, and with ``fcntl`` absent as on
Windows (a module-level POSIX import would make the Windows wheel unimportable; issue "The
pip user's kgbench"). The wheels workflow runs the same import on each platform."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import kgbench

_IMPORT_ALL = """
import importlib, pkgutil, kgbench
names = [m.name for m in pkgutil.walk_packages(kgbench.__path__, "kgbench.")
         if not m.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
print(len(names))
"""


def test_every_module_imports() -> None:
    names = [
        m.name
        for m in pkgutil.walk_packages(kgbench.__path__, "kgbench.")
        if not m.name.endswith("__main__")  # runs the CLI
    ]
    assert "kgbench.neo4j.server" in names and "kgbench.rdb.convert" in names
    for name in names:
        importlib.import_module(name)


def test_every_module_imports_without_fcntl() -> None:
    code = "import sys; sys.modules['fcntl'] = None\n" + _IMPORT_ALL
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert int(proc.stdout.split()[-1]) > 50
