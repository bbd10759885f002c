"""The one table of benchmark families: name -> :class:`kgbench.families.base.Family`.

``kgbench predict``, ``evaluate``, ``run``, ``report`` and the demo reach a family only
through :func:`get` (and the report through :func:`family_of`). Adding a family is one
module implementing :class:`~kgbench.families.base.Family` and one entry in
:data:`FAMILIES` (``docs/development.md``, "Adding a benchmark family");
:func:`register` adds one at run time (tests, plug-ins).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kgbench.errors import InputError
from kgbench.families.base import Family
from kgbench.families.cypherbench import CypherBench
from kgbench.families.gtsqa import Gtsqa
from kgbench.families.ngdbench import Ngdbench
from kgbench.families.spider4sparql import Spider4Sparql
from kgbench.families.text2cypher import Text2Cypher

#: Every family, by name, in the order ``kgbench predict --help`` lists them.
FAMILIES: dict[str, Family] = {
    f.name: f for f in (CypherBench(), Spider4Sparql(), Text2Cypher(), Gtsqa(), Ngdbench())
}

#: The order in which files written before ``aggregated_metrics.json`` recorded its family
#: are recognised by their keys (:meth:`Family.written_by`); CypherBench is the fallback.
_LEGACY_ORDER = ("spider4sparql", "ngdbench", "gtsqa", "text2cypher")


def names() -> tuple[str, ...]:
    """The registered families' names, in table order."""
    return tuple(FAMILIES)


def get(name: str) -> Family:
    """The family called ``name``.

    Raises:
        InputError: no such family (the message lists the registered ones)."""
    family = FAMILIES.get(name)
    if family is None:
        raise InputError(f"unknown family {name!r} (one of {', '.join(FAMILIES)})")
    return family


def register(family: Family) -> Family:
    """Add ``family`` to the table under its name (replacing one of that name); returns it."""
    FAMILIES[family.name] = family
    return family


def unregister(name: str) -> None:
    """Remove the family ``name`` from the table (nothing when it is not there)."""
    FAMILIES.pop(name, None)


def family_of(aggregated: Mapping[str, Any], where: str = "aggregated_metrics.json") -> Family:
    """The family that wrote an ``aggregated_metrics.json`` (``where`` names it in errors):
    its ``family`` field, or for a file written before the field existed the family its
    keys tell (``by_hardness``: spider4sparql, ``counts`` + ``oracle``: ngdbench, ``kg`` +
    ``overall.hits``: gtsqa, ``overall.google_bleu``: text2cypher, else cypherbench).

    Raises:
        InputError: a ``family`` field that is not a registered family's name."""
    name = aggregated.get("family")
    if name is not None:
        family = FAMILIES.get(name) if isinstance(name, str) else None
        if family is None:
            raise InputError(
                f"{where}: family {name!r} is not a known family (one of {', '.join(FAMILIES)})"
            )
        return family
    for legacy in _LEGACY_ORDER:
        if FAMILIES[legacy].written_by(aggregated):
            return FAMILIES[legacy]
    return FAMILIES["cypherbench"]
