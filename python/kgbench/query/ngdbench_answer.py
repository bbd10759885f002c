"""NGDBench answers normalised as the benchmark's code does (spec ``ngdbench.md`` §2): a
node → its id, one column → a list, one cell → a scalar. Used by the scoring
(:mod:`kgbench.evaluate.ngdbench`) and by the disposable database that runs management
batches (:mod:`kgbench.neo4j.disposable`), so it sits below both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def cell(value: Any) -> Any:
    """One answer cell: a node (a map with ``_node_id`` as the repo writes it, or
    ``to_plain``'s node form: its ``eid``, else its element id) → its id; lists and maps
    recursively; other values unchanged."""
    if isinstance(value, list):
        return [cell(v) for v in value]
    if isinstance(value, dict):
        if "_node_id" in value:
            return value["_node_id"]
        props = value.get("properties")
        if "element_id" in value and isinstance(props, dict):
            for key in ("eid", "rid", "_node_id"):
                if key in props:
                    return props[key]
            return value["element_id"]
        return {str(k): cell(v) for k, v in value.items()}
    return value


def clean_answer(value: Any) -> Any:
    """Normalise an answer as the repo's ``clean_normal_answer`` (spec §2): a node → its id;
    ``[{col: v}]`` → ``v``; ``[{col: v1}, {col: v2}, …]`` → ``[v1, v2, …]``; rows of several
    columns stay ``{col: v}`` rows (nodes → ids); a scalar or a list of values is kept (nodes
    → ids). Idempotent on cleaned answers, except a one-column list of maps."""
    if not isinstance(value, list):
        return cell(value)
    if not value:
        return []
    if all(isinstance(r, dict) and not is_node(r) for r in value):
        if all(len(r) == 1 for r in value):
            cells = [cell(next(iter(r.values()))) for r in value]
            return cells[0] if len(cells) == 1 else cells
        return [{str(k): cell(v) for k, v in r.items()} for r in value]
    return [cell(v) for v in value]


def is_node(value: dict[str, Any]) -> bool:
    """A node as the repo (``_node_id``) or ``to_plain`` (``element_id`` + ``properties``)
    writes it."""
    return "_node_id" in value or ("element_id" in value and "properties" in value)


def answer_from_rows(keys: Sequence[str], rows: Sequence[Sequence[Any]]) -> Any:
    """A query result (column names, rows of plain values) as a cleaned answer
    (:func:`clean_answer` of ``[{col: value}]``)."""
    return clean_answer([dict(zip(keys, row, strict=True)) for row in rows])


def neo4j_value(value: Any) -> Any:
    """A driver value as a plain answer cell: a node → its ``eid`` (else ``_node_id``, else
    its element id); a relationship → its ``rid`` (else element id); a path → its node ids;
    temporal values → ISO strings; lists and maps recursively."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [neo4j_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): neo4j_value(v) for k, v in value.items()}
    if hasattr(value, "nodes") and hasattr(value, "relationships"):
        return [neo4j_value(n) for n in value.nodes]
    if hasattr(value, "element_id") and hasattr(value, "get"):
        keys = ("rid",) if hasattr(value, "start_node") else ("eid", "_node_id")
        for key in keys:
            v = value.get(key)
            if v is not None:
                return v
        return value.element_id
    iso = getattr(value, "iso_format", None)
    if callable(iso):
        return str(iso())
    return str(value)
