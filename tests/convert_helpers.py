"""Helpers shared by the ``kgbench convert`` tests (tests/test_convert*.py).

- :func:`person_schema` — a conversion schema (SPEC.md §1) with one ``Person`` entity (items
  of class Q5, subclasses not followed) and the given properties; the property dicts below are
  the Q42 facts the tests read (tests/data/wikidata/Q42.ttl, see its NOTICE).
- :func:`run_kgbench` / :func:`write_schema` — ``python -m kgbench ARGS`` in a subprocess (used
  by every CLI test), and a schema written to a file for its ``--schema`` option.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

DATE_OF_BIRTH: dict[str, Any] = {"label": "date_of_birth", "wd_source": "P569", "datatype": "date"}
BORN: dict[str, Any] = {"label": "born", "wd_source": "P569", "datatype": "str"}
#: P2048 read in centimetres (Q42's height is given in metres: converted).
HEIGHT_CM: dict[str, Any] = {
    "label": "height",
    "wd_source": "P2048",
    "datatype": "float",
    "quantity_unit": "centimetre",
    "quantity_convert_unit": True,
}
MALE: dict[str, Any] = {
    "label": "male",
    "wd_source": "$LINKED_TO(P21,Q6581097)",
    "datatype": "bool",
}


def person_schema(*properties: dict[str, Any], name: str = "people") -> dict[str, Any]:
    """A schema named ``name`` with the entity ``Person`` (``wd_source`` Q5, no subclasses)
    holding ``properties`` in that order, and no relations. A new dict each call (tests may
    extend it)."""
    return {
        "name": name,
        "entities": [
            {
                "label": "Person",
                "wd_source": "Q5",
                "wd_include_subclasses": False,
                "properties": [dict(p) for p in properties],
            }
        ],
        "relations": [],
    }


def write_schema(path: Path, schema: dict[str, Any]) -> Path:
    """``schema`` as JSON in the file ``path`` (UTF-8); returns ``path``."""
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def run_kgbench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m kgbench ARGS`` with this interpreter (and ``env`` as the whole environment
    when given); stdout and stderr captured as text, the exit status not checked. Every CLI
    test runs the CLI through this."""
    return subprocess.run(
        [sys.executable, "-m", "kgbench", *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


#: The IRI prefixes of the Wikibase RDF test fixtures (tests/data/wikidata/wikibase-format and
#: wikibase-pairs, RdfBuilderTest's ``acme.test``): keyword arguments of ``convert``.
ACME = {"entity_prefix": "http://acme.test/", "prop_prefix": "http://acme.test/prop/"}


def acme_schema(
    *properties: dict[str, Any], relations: tuple[dict[str, Any], ...] = ()
) -> dict[str, Any]:
    """The schema of the Wikibase fixture items (class Q100 ``Thing`` with ``properties``,
    class Q200 ``Target``): the relations ``best`` (P2, best rank) and ``any`` (P2, every
    non-deprecated statement) from Thing to Target, then ``relations``."""
    return {
        "name": "acme",
        "entities": [
            {"label": "Thing", "wd_source": "Q100", "properties": list(properties)},
            {"label": "Target", "wd_source": "Q200"},
        ],
        "relations": [
            {"label": "best", "wd_source": "P2", "subj_label": "Thing", "obj_label": "Target"},
            {
                "label": "any",
                "wd_source": "P2",
                "subj_label": "Thing",
                "obj_label": "Target",
                "wd_rank_filter": "non_deprecated",
            },
            *relations,
        ],
    }
