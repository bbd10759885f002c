"""Wikidata RDF → CypherBench property graph conversion (SPEC.md §1–§2, §6).

The conversion itself runs in Rust (``kgbench._core.convert``): one streaming pass
over N-Triples or Turtle input (plain, ``.gz`` or ``.bz2``; files or stdin), with
the original CypherBench engine's semantics (seed cypherbench.txt §3.2 and
Appendix B.6). This module adds the Python API, the output files and the Parquet
form of the graph.

Output directory layout (:func:`convert` with ``out_dir``):

- ``graph.json`` — the SimpleKG JSON (SPEC.md §2), byte-for-byte deterministic,
  written as Python's ``json.dump(indent=2)`` writes it;
- ``entities.parquet`` / ``relations.parquet`` — the same graph as typed tables
  (see :func:`write_parquet`);
- ``report.json`` — triples read, entities and relations kept, relations dropped
  for out-of-scope ends, every dropped value counted by reason.

Deliberate differences from the original engine (documented, SPEC.md §1 "keep a
compatible default"):

- ``$RAW_SPARQL`` constraints are rejected (no SPARQL endpoint).
- Units are keyed by QID (:func:`unit_table`); a unit's label is the English label
  of the unit item in the input, else the table's. Conversion multiplies by the
  ratio of SI factors (pint may differ in the last bit); temperatures convert
  affinely.
- Relation properties get the same unit handling as entity properties; the
  original never bound the unit label of relation properties (a variable-name
  bug), so it dropped every unit quantity there.
- "Some value" (blank node / genid) values are dropped and counted; the original
  turned them into opaque strings.
- Quantity amounts are written without the dump's leading ``+`` (as WDQS does).
- ``max_entities_per_root`` breaks ties of the pseudo-random id by QID (the
  endpoint's order was arbitrary).
- ``wd_source_suffix`` supports ``wdt:P<n>`` steps joined by ``/`` with ``* + ?``.
- Statements and value nodes are identified by a 128-bit hash of their IRI.
"""

from __future__ import annotations

import datetime
import gc
import importlib
import io
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, overload

from kgbench._core import convert as _native
from kgbench.errors import InputError

__all__ = [
    "GRAPH_FILE",
    "REPORT_FILE",
    "convert",
    "explain_empty_entities",
    "parse_graph_json",
    "read_graph",
    "unit_table",
    "validate_schema",
    "write_parquet",
]

GRAPH_FILE = "graph.json"
REPORT_FILE = "report.json"
ENTITIES_PARQUET = "entities.parquet"
RELATIONS_PARQUET = "relations.parquet"
_SCHEMA_META_KEY = "kgbench.simplekg_schema"

SchemaLike = str | os.PathLike[str] | dict[str, Any]


def _schema_text(schema: SchemaLike) -> str:
    if isinstance(schema, dict):
        return json.dumps(schema)
    text = os.fspath(schema)
    if text.lstrip().startswith("{"):
        return text
    try:
        return Path(text).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read schema {text}: {exc.strerror or exc}") from exc


def validate_schema(schema: SchemaLike) -> list[str]:
    """Return every problem of a CypherBench conversion schema (SPEC.md §1) as
    ``"<json path>: <message>"`` strings; an empty list means valid.

    ``schema`` is a path, JSON text or a dict.
    """
    return list(_native.validate_schema(_schema_text(schema)))


def unit_table() -> list[tuple[str, str, str, float, float]]:
    """The unit table keyed by Wikidata QID: ``(qid, English label, dimension,
    factor to SI, offset)``; ``si = value * factor + offset``."""
    return list(_native.unit_table())


@overload
def convert(
    schema: SchemaLike,
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    max_entities_per_root: int | None = None,
    threads: int | None = None,
    skip_invalid: bool = False,
    format: str | None = None,
    progress: bool | None = None,
    parquet: bool = True,
    entity_prefix: str = "http://www.wikidata.org/entity/",
    prop_prefix: str = "http://www.wikidata.org/prop/",
    return_graph: Literal[True] = ...,
) -> tuple[dict[str, Any], dict[str, Any]]: ...


@overload
def convert(
    schema: SchemaLike,
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    max_entities_per_root: int | None = None,
    threads: int | None = None,
    skip_invalid: bool = False,
    format: str | None = None,
    progress: bool | None = None,
    parquet: bool = True,
    entity_prefix: str = "http://www.wikidata.org/entity/",
    prop_prefix: str = "http://www.wikidata.org/prop/",
    return_graph: Literal[False],
) -> tuple[None, dict[str, Any]]: ...


def convert(
    schema: SchemaLike,
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    max_entities_per_root: int | None = None,
    threads: int | None = None,
    skip_invalid: bool = False,
    format: str | None = None,
    progress: bool | None = None,
    parquet: bool = True,
    entity_prefix: str = "http://www.wikidata.org/entity/",
    prop_prefix: str = "http://www.wikidata.org/prop/",
    return_graph: bool = True,
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """Convert Wikidata RDF or Wikidata entity JSON to a CypherBench SimpleKG graph.

    Args:
        schema: the conversion schema (CypherBench ``WDNeo4jSchema``, SPEC.md §1) as a
            path, JSON text or dict.
        inputs: one path or a list of paths; ``"-"`` reads stdin. N-Triples, Turtle or
            Wikidata entity JSON (the ``latest-all.json`` dump layout, JSON lines,
            ``Special:EntityData`` / ``wbgetentities`` output), optionally ``.gz`` /
            ``.bz2``; format and compression are detected from the bytes (formats.md §5).
        out_dir: when given, write ``graph.json``, ``report.json`` and (with
            ``parquet``) ``entities.parquet`` / ``relations.parquet`` there. A previous
            run's files of those names are removed first (a run that fails, or is
            killed, leaves none that looks complete); the new ones are written in a
            directory beside ``out_dir`` and moved in at the end, ``report.json`` last.
            With ``parquet=False`` no Parquet file is left in ``out_dir``. Other files
            there are left alone.
        max_entities_per_root: keep at most this many entities per root class, the
            original's reproducible sample (``floor(qid / 307)`` without its first
            digit, ties by QID).
        threads: parser threads (default: all cores). The output does not depend on it.
        skip_invalid: count and skip malformed input instead of failing, by the smallest
            unit: an N-Triples line, one triple of a Turtle statement, one JSON entity line.
        format: ``"nt"``, ``"ttl"``, ``"json"`` or ``None`` (detected from the content).
        progress: progress bar on stderr (default: when stderr is a terminal).
        parquet: also write the Parquet pair when ``out_dir`` is given.
        entity_prefix: IRI namespace of the Wikibase instance's entities.
        prop_prefix: IRI namespace of its properties (``p:``; ``wdt:`` and the other
            property namespaces are below it).
        return_graph: build the Python graph dict (the default). ``False`` skips it
            and returns ``None`` in its place — for callers that only want the files
            in ``out_dir`` (the ``kgbench convert`` CLI does this): parsing the graph
            back into Python objects costs about as much as the conversion itself
            on large graphs (see BENCHMARKS.md).

    Returns:
        ``(graph, report)``: the SimpleKG dict (SPEC.md §2), or ``None`` when
        ``return_graph`` is false, and the report dict.

    Raises:
        InputError: invalid schema (every problem with its JSON path), malformed RDF or
            entity JSON (file, line, byte offset, excerpt), unreadable or truncated input
            (file and compressed byte offset).
    """
    if isinstance(inputs, str | os.PathLike):
        inputs = [inputs]
    paths = [os.fspath(p) for p in inputs]
    if max_entities_per_root is not None and max_entities_per_root <= 0:
        max_entities_per_root = None  # the original treats <= 0 as "no limit"
    if progress is None:
        progress = sys.stderr.isatty()
    schema_text = _schema_text(schema)
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        # Before anything else: a run that fails (or is killed) must not leave a
        # previous run's complete-looking files behind.
        _remove_outputs(out)
    want_tables = out is not None and parquet
    polars_import = None
    if want_tables and "polars" not in sys.modules:
        # The Parquet writer needs polars (~0.15 s to import): import it on a thread while
        # the native conversion runs without the GIL.
        polars_import = threading.Thread(target=importlib.import_module, args=("polars",))
        polars_import.start()
    try:
        graph_json, report_text, schema_block, entity_rows, relation_rows = _native.convert(
            schema_text,
            paths,
            max_entities_per_root=max_entities_per_root,
            skip_invalid=skip_invalid,
            format=format,
            progress=progress,
            threads=threads,
            entity_prefix=entity_prefix,
            prop_prefix=prop_prefix,
            tables=want_tables,
        )
    except ValueError as exc:
        raise InputError(str(exc)) from None
    finally:
        if polars_import is not None:
            polars_import.join()
    report = json.loads(report_text)
    if out is None:
        return (_load_graph(graph_json) if return_graph else None), report
    graph: dict[str, Any] | None = None
    stage = _staging_dir(out)
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            parquet_done: Future[None] | None = None
            if parquet:
                if entity_rows is not None and relation_rows is not None:
                    # Rows made in Rust, no Python graph needed; polars works without
                    # the GIL, so this overlaps with writing graph.json below.
                    parquet_done = pool.submit(
                        _write_parquet_rows,
                        json.loads(schema_block),
                        entity_rows,
                        relation_rows,
                        stage,
                    )
                else:  # a value JSON numbers cannot carry (e.g. inf): from the graph
                    graph = _load_graph(graph_json)
                    write_parquet(graph, stage)
            (stage / GRAPH_FILE).write_bytes(graph_json)
            if return_graph and graph is None:
                graph = _load_graph(graph_json)
            if parquet_done is not None:
                parquet_done.result()
        (stage / REPORT_FILE).write_bytes((report_text + "\n").encode())
        _publish(stage, out)
    except BaseException:
        _remove_outputs(out)
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return (graph if return_graph else None), report


#: The files :func:`convert` writes in ``out_dir``; ``report.json`` is moved in last.
OUTPUT_FILES = (GRAPH_FILE, ENTITIES_PARQUET, RELATIONS_PARQUET, REPORT_FILE)


def _remove_outputs(out: Path) -> None:
    """Remove the files a conversion writes from ``out`` (other files are left alone)."""
    for name in OUTPUT_FILES:
        try:
            (out / name).unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise InputError(f"cannot remove the previous {out / name}: {exc}") from None


def _staging_dir(out: Path) -> Path:
    """A fresh directory beside ``out`` (same file system, so moving files from it is a
    rename), or inside ``out`` when its parent is not writable."""
    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    try:
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.kgbench-", dir=parent))
    except OSError:
        out.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".kgbench-", dir=out))


def _publish(stage: Path, out: Path) -> None:
    """Move the staged outputs into ``out``: the whole directory at once when ``out``
    does not exist yet, else file by file, ``report.json`` last; an output this run did
    not write (the Parquet pair with ``parquet=False``) is removed from ``out``."""
    for name in OUTPUT_FILES:
        if (stage / name).exists():
            os.chmod(stage / name, 0o644)
    if not out.exists():
        os.chmod(stage, 0o755)
        try:
            os.rename(stage, out)
            return
        except OSError:
            pass  # e.g. created meanwhile: file by file below
    out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUT_FILES:
        if (stage / name).exists():
            os.replace(stage / name, out / name)
        else:
            (out / name).unlink(missing_ok=True)


def _load_graph(graph_json: bytes) -> dict[str, Any]:
    # The graph is one big tree of fresh containers: the cyclic GC has nothing to
    # collect in it, and its passes while building it cost ~10% of a conversion.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        graph: dict[str, Any] = json.loads(graph_json)
    finally:
        if gc_was_enabled:
            gc.enable()
    return graph


# ---------------------------------------------------------------- why nothing was kept


def explain_empty_entities(
    schema: SchemaLike,
    report: dict[str, Any],
    *,
    prop_prefix: str = "http://www.wikidata.org/prop/",
    top: int = 5,
) -> list[str]:
    """Why a conversion kept no entity of some schema entity labels: one sentence per label
    that kept 0 entities (an empty list when every label kept some).

    ``report`` is the report dict of :func:`convert` on ``schema`` (with the same
    ``prop_prefix``); the inputs are not read again. Its counts tell whether items matched
    the class but lacked an English label, or matched the class pattern but none passed the
    constraints; when no item matched, its ``empty_entity_classes`` (the converter's class
    facts, formats.md §3) give the ``top`` most frequent classes of the input (at most the
    10 the converter lists: ``wdt:P31`` objects, or ``wdt:P279`` ones for a
    ``wd_is_instance: false`` label) with their English labels and item counts, e.g. ``no
    item matched class Q7318358 for Article (wdt:P31 Q7318358, or a subclass of it by
    wdt:P279*); the most frequent wdt:P31 classes in the input were: Q13442814 (scholarly
    article, 1,234 items), ...``.

    Raises :class:`InputError` when the schema cannot be read.
    """
    entities = [e for e in _schema_entities(schema) if not e.get("disable")]
    kept = report.get("entities", {})
    candidates = report.get("entity_candidates", {})
    no_label = report.get("entities_dropped_no_english_label", {})
    classes = report.get("empty_entity_classes") or {}
    out = []
    for ent in entities:
        label = str(ent.get("label"))
        if kept.get(label, 0) != 0:
            continue
        qid = str(ent.get("wd_source"))
        is_instance = bool(ent.get("wd_is_instance", True))
        subclasses = bool(ent.get("wd_include_subclasses", True))
        pred = "wdt:P31" if is_instance else "wdt:P279"
        pattern = f"{pred} {qid}" + (", or a subclass of it by wdt:P279*" if subclasses else "")
        constraints = [str(c) for c in ent.get("wd_constraints") or []]
        n_cand = int(candidates.get(label, 0))
        if n_cand:
            n_unnamed = int(no_label.get(label, 0))
            if n_unnamed >= n_cand:
                out.append(
                    f"{_items(n_cand)} matched class {qid} for {label}, but none has an English "
                    "label (rdfs:label with @en), which every entity needs"
                )
            else:
                out.append(f"{_items(n_cand)} matched class {qid} for {label}, none was kept")
            continue
        n_json = int(report.get("entities_read", 0) or 0)
        if n_json:
            out.append(
                f"no item matched class {qid} for {label} ({pattern}) among the {_items(n_json)} "
                "of the JSON input (class membership is read from their best-rank "
                f"{pred.split(':')[1]} statements)"
            )
            continue
        if int(report.get("triples_read", 0) or 0) == 0:
            out.append(f"no item matched class {qid} for {label}: the input holds no triples")
            continue
        facts = classes.get(label) or {}
        members = int(facts.get("class_members", 0))
        if members:
            why = (
                f"its wd_constraints {', '.join(constraints)}"
                if constraints
                else "the schema's other rules"
            )
            out.append(
                f"{_items(members)} of the input matched class {qid} for {label} ({pattern}), "
                f"but none passed {why}"
            )
            continue
        frequent = facts.get("frequent_classes") or []
        if not frequent:
            iri = f"{prop_prefix}direct/{pred.split(':')[1]}"
            out.append(
                f"no item matched class {qid} for {label}: the input has no {pred} triples "
                f"(<{iri}>); class membership is read from these truthy statements"
            )
            continue
        listed = ", ".join(
            f"{q} ({name}, {_items(n)})" if name else f"{q} ({_items(n)})"
            for q, name, n in frequent[:top]
        )
        kind = "classes" if is_instance else "superclasses"
        out.append(
            f"no item matched class {qid} for {label} ({pattern}); the most frequent {pred} "
            f"{kind} in the input were: {listed}"
        )
    return out


def _items(n: int) -> str:
    return f"{n:,} item" if n == 1 else f"{n:,} items"


def _schema_entities(schema: SchemaLike) -> list[dict[str, Any]]:
    try:
        data = json.loads(_schema_text(schema))
    except ValueError as exc:
        raise InputError(f"schema: not JSON: {exc}") from exc
    ents = data.get("entities") if isinstance(data, dict) else None
    return [e for e in ents or [] if isinstance(e, dict)]


# ---------------------------------------------------------------- Parquet form


def _polars_type(datatype: str) -> Any:
    import polars as pl

    base = {"str": pl.String, "int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean}
    base["date"] = pl.Date
    if datatype.startswith("list[") and datatype.endswith("]"):
        return pl.List(base[datatype[5:-1]])
    return base[datatype]


def _to_column(value: Any, datatype: str) -> Any:
    if value is None:
        return None
    if datatype == "date":
        return datetime.date.fromisoformat(value)
    if datatype == "list[date]":
        return [datetime.date.fromisoformat(v) for v in value]
    return value


def _from_column(value: Any, datatype: str) -> Any:
    if datatype == "date":
        return value.isoformat()
    if datatype == "list[date]":
        return [v.isoformat() for v in value]
    if datatype.startswith("list["):
        return list(value)
    return value


def _rel_key(label: str, subj: str, obj: str) -> str:
    return f"{label}({subj}->{obj})"


def write_parquet(graph: dict[str, Any], out_dir: str | os.PathLike[str]) -> None:
    """Write a SimpleKG graph as ``entities.parquet`` and ``relations.parquet``.

    Columns: entities ``eid, label, name, aliases (list[str]), description,
    provenance (list[str])`` then one typed column per schema property,
    ``prop.<Label>.<property>`` (null where the entity has no value); relations
    ``rid, label, subj_id, obj_id, provenance`` then
    ``prop.<label>(<subj_label>-><obj_label>).<property>``. Dates are Parquet dates.
    The SimpleKG schema block is stored as JSON in the file metadata under
    ``kgbench.simplekg_schema`` so that :func:`read_graph` restores the exact graph.
    """
    import polars as pl

    out = Path(out_dir)
    schema = graph["schema"]
    eid2label = {e["eid"]: e["label"] for e in graph["entities"]}
    ent_types, ent_props, rel_types, rel_props = _table_types(schema)
    ent_cols: dict[str, list[Any]] = {k: [] for k in ent_types}
    for e in graph["entities"]:
        for k in ("eid", "label", "name", "aliases", "description", "provenance"):
            ent_cols[k].append(e.get(k))
        for col, label, prop, dt in ent_props:
            v = e["properties"].get(prop) if e["label"] == label else None
            ent_cols[col].append(_to_column(v, dt))
    rel_cols: dict[str, list[Any]] = {k: [] for k in rel_types}
    for r in graph["relations"]:
        for k in ("rid", "label", "subj_id", "obj_id", "provenance"):
            rel_cols[k].append(r.get(k, []) if k == "provenance" else r[k])
        key = _rel_key(
            r["label"],
            eid2label.get(r["subj_id"], r["subj_id"].split("#")[0]),
            eid2label.get(r["obj_id"], r["obj_id"].split("#")[0]),
        )
        for col, k2, prop, dt in rel_props:
            v = r["properties"].get(prop) if k2 == key else None
            rel_cols[col].append(_to_column(v, dt))
    meta = {_SCHEMA_META_KEY: json.dumps(schema)}
    pl.DataFrame(ent_cols, schema=ent_types).write_parquet(out / ENTITIES_PARQUET, metadata=meta)
    pl.DataFrame(rel_cols, schema=rel_types).write_parquet(out / RELATIONS_PARQUET, metadata=meta)


_PropColumns = list[tuple[str, str, str, str]]  # (column, owner, property, datatype)


def _table_types(
    schema: dict[str, Any],
) -> tuple[dict[str, Any], _PropColumns, dict[str, Any], _PropColumns]:
    """Column types (polars) and property columns of the two tables of a SimpleKG
    schema block: ``(entity types, entity property columns, relation types,
    relation property columns)``."""
    import polars as pl

    ent_types: dict[str, Any] = {
        "eid": pl.String,
        "label": pl.String,
        "name": pl.String,
        "aliases": pl.List(pl.String),
        "description": pl.String,
        "provenance": pl.List(pl.String),
    }
    ent_props: _PropColumns = []
    for es in schema["entities"]:
        for prop, dt in es["properties"].items():
            col = f"prop.{es['label']}.{prop}"
            ent_props.append((col, es["label"], prop, dt))
            ent_types[col] = _polars_type(dt)
    rel_types: dict[str, Any] = {
        "rid": pl.String,
        "label": pl.String,
        "subj_id": pl.String,
        "obj_id": pl.String,
        "provenance": pl.List(pl.String),
    }
    rel_props: _PropColumns = []
    for rs in schema["relations"]:
        key = _rel_key(rs["label"], rs["subj_label"], rs["obj_label"])
        for prop, dt in rs["properties"].items():
            col = f"prop.{key}.{prop}"
            rel_props.append((col, key, prop, dt))
            rel_types[col] = _polars_type(dt)
    return ent_types, ent_props, rel_types, rel_props


def _write_parquet_rows(
    schema: dict[str, Any], entity_rows: bytes, relation_rows: bytes, out: Path
) -> None:
    """Write the Parquet pair of :func:`write_parquet` from the CSV tables the native
    converter makes (a header line with the same columns as :func:`write_parquet`, one
    row per entity / relation, lists as JSON text, dates as ``YYYY-MM-DD`` strings;
    see ``kgbench_core::convert::tables``): polars parses them with the tables' column
    types (lists decoded from their JSON text, dates cast from strings), no Python graph
    involved."""
    import polars as pl

    ent_types, ent_props, rel_types, rel_props = _table_types(schema)
    meta = {_SCHEMA_META_KEY: json.dumps(schema)}
    for rows, types, props, name in (
        (entity_rows, ent_types, ent_props, ENTITIES_PARQUET),
        (relation_rows, rel_types, rel_props, RELATIONS_PARQUET),
    ):
        dates = {col: dt for col, _, _, dt in props if dt in ("date", "list[date]")}
        # Column types as read: lists as their JSON text, dates as strings.
        read_types = {
            col: pl.String if col in dates or isinstance(t, pl.List) else t
            for col, t in types.items()
        }
        frame = pl.read_csv(io.BytesIO(rows), schema_overrides=read_types, infer_schema_length=0)
        if frame.columns != list(types):
            raise RuntimeError(
                f"kgbench internal error: the native {name} columns {frame.columns} are "
                f"not the schema's {list(types)}"
            )
        casts = []
        for col, t in types.items():
            if dates.get(col) == "list[date]":
                casts.append(
                    pl.col(col)
                    .str.json_decode(pl.List(pl.String))
                    .list.eval(pl.element().str.to_date("%Y-%m-%d"))
                )
            elif col in dates:
                casts.append(pl.col(col).str.to_date("%Y-%m-%d"))
            elif isinstance(t, pl.List):
                casts.append(pl.col(col).str.json_decode(t))
        if casts:
            frame = frame.with_columns(casts)
        frame.write_parquet(out / name, metadata=meta)


def read_graph(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a SimpleKG graph (SPEC.md §2) from a ``graph.json`` file, or from a
    directory holding ``graph.json`` or the Parquet pair written by
    :func:`write_parquet` (``graph.json`` is preferred when both exist).

    Returns the SimpleKG dict (dates as ``YYYY-MM-DD`` strings).

    Raises:
        InputError: the path holds neither form, or the files are malformed.
    """
    p = Path(path)
    if p.is_dir():
        if (p / GRAPH_FILE).is_file():
            p = p / GRAPH_FILE
        elif (p / ENTITIES_PARQUET).is_file() and (p / RELATIONS_PARQUET).is_file():
            return _read_parquet(p)
        else:
            raise InputError(
                f"{p}: no {GRAPH_FILE} and no {ENTITIES_PARQUET}/{RELATIONS_PARQUET} pair"
            )
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot read graph: {exc.strerror or exc}") from exc
    return parse_graph_json(data, p)


def parse_graph_json(data: bytes, path: str | os.PathLike[str]) -> dict[str, Any]:
    """The SimpleKG graph (SPEC.md §2) of a ``graph.json`` file's bytes (``path`` names the
    file in errors).

    Raises:
        InputError: the bytes are not UTF-8 JSON, or not a JSON object with ``schema``,
            ``entities`` and ``relations`` (naming the file, byte offset or line and column).
    """
    try:
        graph = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text at byte offset {exc.start}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    if not isinstance(graph, dict) or not {"schema", "entities", "relations"} <= graph.keys():
        raise InputError(f"{path}: not a SimpleKG graph (needs schema, entities, relations)")
    return graph


def _read_parquet(d: Path) -> dict[str, Any]:
    import polars as pl

    try:
        meta = pl.read_parquet_metadata(d / ENTITIES_PARQUET)
        schema = json.loads(meta[_SCHEMA_META_KEY])
        ents = pl.read_parquet(d / ENTITIES_PARQUET)
        rels = pl.read_parquet(d / RELATIONS_PARQUET)
    except (OSError, KeyError, ValueError, pl.exceptions.PolarsError) as exc:
        raise InputError(f"{d}: cannot read the Parquet graph: {exc}") from exc
    ent_props = {
        es["label"]: [(f"prop.{es['label']}.{k}", k, dt) for k, dt in es["properties"].items()]
        for es in schema["entities"]
    }
    entities = []
    for row in ents.iter_rows(named=True):
        props = {}
        for col, k, dt in ent_props.get(row["label"], []):
            if row[col] is not None:
                props[k] = _from_column(row[col], dt)
        entities.append(
            {
                "eid": row["eid"],
                "label": row["label"],
                "name": row["name"],
                "aliases": list(row["aliases"] or []),
                "description": row["description"],
                "properties": props,
                "provenance": list(row["provenance"] or []),
            }
        )
    eid2label = {e["eid"]: e["label"] for e in entities}
    rel_props = {
        _rel_key(rs["label"], rs["subj_label"], rs["obj_label"]): [
            (f"prop.{_rel_key(rs['label'], rs['subj_label'], rs['obj_label'])}.{k}", k, dt)
            for k, dt in rs["properties"].items()
        ]
        for rs in schema["relations"]
    }
    relations = []
    for row in rels.iter_rows(named=True):
        key = _rel_key(
            row["label"],
            eid2label.get(row["subj_id"], row["subj_id"].split("#")[0]),
            eid2label.get(row["obj_id"], row["obj_id"].split("#")[0]),
        )
        props = {}
        for col, k, dt in rel_props.get(key, []):
            if row[col] is not None:
                props[k] = _from_column(row[col], dt)
        relations.append(
            {
                "rid": row["rid"],
                "label": row["label"],
                "subj_id": row["subj_id"],
                "obj_id": row["obj_id"],
                "properties": props,
                "provenance": list(row["provenance"] or []),
            }
        )
    return {"schema": schema, "entities": entities, "relations": relations}
