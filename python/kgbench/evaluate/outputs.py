"""The one evaluation type: what every family's scorer returns and how it is written.

:class:`Evaluation` holds the scored task records (``result_with_metrics.json``) and the
aggregated metrics (``aggregated_metrics.json``); :meth:`Evaluation.write` writes both
atomically (a reader never sees half a file, an interrupted write leaves the previous file),
and :meth:`Evaluation.table` is the text ``kgbench evaluate`` prints. Every
``aggregated_metrics.json`` ends with ``"family"`` (the benchmark family that scored it, a
name of :mod:`kgbench.families.registry`) and ``"kgbench_version"``, which
``kgbench report`` reads instead of guessing the family from the file's keys
(issue 40; formats: ``kgbench/docs/formats.md`` §6).

Two JSON styles: ``"kgbench"`` (:func:`kgbench.fileio.write_json_atomic`: 2-space indent,
UTF-8, final newline) and ``"cypherbench"`` (CypherBench's ``json.dump(..., indent=2)``:
ASCII escapes, no final newline), the latter for the CypherBench evaluation whose files
match the original tool's byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

#: The scored task records of an evaluation.
RESULTS_FILE = "result_with_metrics.json"
#: The aggregated metrics of an evaluation.
AGGREGATED_FILE = "aggregated_metrics.json"


@dataclass
class Evaluation:
    """Scored ``records`` (one dict per task, in input order) and the ``aggregated``
    metrics of one family's evaluation; ``family`` is the family recorded in
    ``aggregated_metrics.json`` (each subclass names its own by default)."""

    records: list[dict[str, Any]]
    aggregated: dict[str, Any]
    family: str = field(default="", kw_only=True)

    #: ``"kgbench"`` or ``"cypherbench"`` (module docstring).
    JSON_STYLE: ClassVar[str] = "kgbench"

    def aggregated_output(self) -> dict[str, Any]:
        """The content of ``aggregated_metrics.json`` before the family and version fields
        (default: :attr:`aggregated`; a subclass adds what it keeps beside it)."""
        return dict(self.aggregated)

    def write(self, out_dir: str | Path) -> tuple[Path, Path]:
        """Write ``result_with_metrics.json`` and ``aggregated_metrics.json`` (with
        ``family`` and ``kgbench_version`` last) into ``out_dir`` (created if missing), each
        atomically; return their paths.

        Raises:
            InputError: the directory or a file cannot be written (names it; the previous
                file, if any, is left as it was)."""
        from kgbench import __version__

        out = Path(out_dir)
        aggregated = self.aggregated_output()
        aggregated["family"] = self.family
        aggregated["kgbench_version"] = __version__
        return (
            self._dump(out / RESULTS_FILE, self.records),
            self._dump(out / AGGREGATED_FILE, aggregated),
        )

    def _dump(self, path: Path, data: Any) -> Path:
        from kgbench.fileio import write_json_atomic, write_text_atomic

        if self.JSON_STYLE == "cypherbench":
            return write_text_atomic(path, json.dumps(data, indent=2))
        return write_json_atomic(path, data)

    def table(self) -> str:
        """The aggregated metrics as the text ``kgbench evaluate`` prints (each family's
        own layout)."""
        raise NotImplementedError(f"{type(self).__name__} has no table")
