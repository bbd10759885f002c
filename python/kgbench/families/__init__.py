"""kgbench.families — one module per benchmark family and the registry of them.

:mod:`kgbench.families.base` holds the protocol (:class:`Family`) and the typed evaluation
options (:class:`EvaluateOptions`); :mod:`kgbench.families.registry` the one table name ->
family (:func:`get`, :func:`names`, :func:`family_of`). The families:
:mod:`~kgbench.families.cypherbench`, :mod:`~kgbench.families.spider4sparql`,
:mod:`~kgbench.families.text2cypher`, :mod:`~kgbench.families.gtsqa` and
:mod:`~kgbench.families.ngdbench`. :func:`predict` is :func:`kgbench.predict.predict` by the
family's name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgbench.families.base import EvaluateOptions, Family
from kgbench.families.registry import family_of, get, names, register, unregister


def predict(family: str, tasks: str | Path, **options: Any) -> Any:
    """:func:`kgbench.predict.predict` on the tasks of the family named ``family``
    (``options``: its keyword arguments); returns its :class:`kgbench.predict.PredictResult`.

    Raises:
        InputError: an unknown family (listing the registered ones), or as ``predict``.
        PredictError: as ``predict``."""
    from kgbench.predict import predict as run_predict

    return run_predict(get(family), tasks, **options)


__all__ = [
    "EvaluateOptions",
    "Family",
    "family_of",
    "get",
    "names",
    "predict",
    "register",
    "unregister",
]
