"""Parser-based analysis of Cypher queries for the PIPE-Cypher gates and metrics.

All analysis runs in Rust (``kgbench._core.cypher.analyze_queries``), in parallel, on
the ``open-cypher`` parse tree — never on regular expressions.

:func:`query_features` returns one dict per query::

    {
      "syntax_valid": bool,             # the front end parses it (as Neo4j does)
      "syntax_error": str | None,
      "policy_error": str | None,       # PIPE-Cypher's G2 reserved-name policy
      "g2_valid": bool,                 # syntax_valid and no policy_error
      "read_only": bool, "write_clauses": [str],
      "normalized_cypher": str,          # whitespace collapsed, comments dropped
      "signature": str,                  # literals -> <str>/<num>, variables -> <var>, lower case
      "string_literals": [str],          # every string literal's value, in source order
      "structural_features": {
        "labels": [str], "relationship_types": [str], "properties": [str],
        "relationship_observations": [{"start_label", "relationship_type", "end_label",
                                       "direction"}],   # direction "out" after flipping "<-"
        "optional_match", "aggregation", "ordering", "limit", "skip", "negation",
        "path_pattern", "distinct", "union", "case", "call", "unwind", "exists": bool,
        "aggregates": [str],            # COUNT, SUM, AVG, MIN, MAX, COLLECT
        "predicates": [str],            # =, <>, <, <=, >, >=, IN, CONTAINS, STARTS WITH, ...
        "relationship_pattern_count", "node_pattern_count", "return_arity",
        "where_count": int,
        "primary_strategy": str,        # path > negation > order_rank > aggregation
                                        # > join_heavy > single_hop (spec §4)
      },
      "substructures": [str],           # sorted atoms: label:, rel:, triple:, op:, agg:,
                                        # pred:, prop:, strategy:, return_arity:, rel_count:
      "operator_combination": str,      # primary_strategy + "+" + flags, or "+plain"
      "difficulty": "easy" | "medium" | "hard",   # spec §4 six-feature count
      "category": str,                  # one of CATEGORIES, inferred from the structure
    }
"""

from collections.abc import Mapping, Sequence
from typing import Any

from kgbench._core import cypher as _cypher

#: The eight PIPE-Cypher categories (spec §4), in the spec's order.
CATEGORIES: tuple[str, ...] = tuple(_cypher.CATEGORIES)


def passes_g2(validation: Mapping[str, Any], default: bool) -> bool:
    """PIPE-Cypher's G2 (syntax) verdict of one ``validation`` dict (the module docstring's
    shape): ``g2_valid`` — the front end parses the query and no reserved-name policy
    error (spec pipe-cypher §3, G2) — else ``syntax_valid`` for rows written before
    ``g2_valid`` existed, else ``default`` (a row that was never validated)."""
    for key in ("g2_valid", "syntax_valid"):
        if key in validation:
            return validation[key] is not False and validation[key] is not None
    return default


def query_features(
    queries: Sequence[str],
    *,
    schema: Mapping[str, Any] | None = None,
    questions: Sequence[str] | None = None,
    entity_values: Sequence[Sequence[str]] | None = None,
    allowed_procedures: Sequence[str] = (),
    dialect: str = "5",
) -> list[dict[str, Any]]:
    """Analyse ``queries`` (one dict each, keys in the module docstring), in parallel, as a
    server speaking Cypher ``dialect`` (``"5"`` or ``"25"``) parses them. A query kgbench's
    Cypher front end cannot parse has ``syntax_valid`` false, ``syntax_error`` the front
    end's one line (``Cypher syntax error at byte N: ...``) and ``read_only`` false.

    With ``schema`` (a ``schema.json`` graph profile, spec §2) every dict also has
    ``schema_valid`` and ``issues`` (``[{level, code, message}]``) from the gates G3-G6;
    ``questions`` and ``entity_values`` (one entry per query) feed G5 (without
    ``entity_values``, the query's string literals found in the question are checked).
    ``allowed_procedures``: PIPE-Cypher's G1 allow-list (empty: every procedure call
    fails ``read_only``). ``string_literals`` entries are ``{value, start, end}`` (byte
    offsets into the query).

    Raises:
        InputError: ``schema`` is not a graph profile, or a per-query list has another
            length than ``queries``.
    """
    import json

    schema_json = None if schema is None else json.dumps(schema)
    return list(
        _cypher.analyze_queries(
            list(queries),
            schema_json,
            None if questions is None else list(questions),
            None if entity_values is None else [list(v) for v in entity_values],
            list(allowed_procedures),
            dialect=dialect,
        )
    )
