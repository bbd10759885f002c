"""Type stubs of the native module ``kgbench._core`` (Rust, pyo3; rust/kgbench-py).

Only stubs live in this folder; the compiled ``kgbench/_core.abi3.so`` is the
module itself. One stub per native submodule.
"""

from kgbench._core import convert as convert
from kgbench._core import cypher as cypher
from kgbench._core import evaluate as evaluate
from kgbench._core import iso as iso
from kgbench._core import neo4j as neo4j
from kgbench._core import noise as noise
from kgbench._core import rdb as rdb
from kgbench._core import sample as sample
from kgbench._core import select as select
from kgbench._core import synth as synth

__version__: str
