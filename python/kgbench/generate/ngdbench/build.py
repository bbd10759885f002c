"""``kgbench generate ngdbench``: build an NGDBench benchmark from a clean graph and the
output of ``kgbench noise`` (spec ngdbench.md §1, §4; seed ngdbench.txt §3).

:func:`generate_ngdbench` checks that the noisy directory was made from this clean graph (the
SHA-256 of the files against the noise log), starts two local Neo4j servers (kgbench's own:
the clean graph G* in a disposable database, the noisy graph G̃ in another), builds the
analytic and Boolean tasks around the perturbed elements
(:mod:`kgbench.generate.ngdbench.analytic`), the management batches in rolled-back
transactions on the disposable copy of G* (:mod:`kgbench.generate.ngdbench.management`), and
writes ``OUT/tasks.json`` (every task, the format ``kgbench evaluate --family ngdbench``
reads) and ``OUT/report.json``. ``report.json`` is written last: a directory holding it is
complete.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from kgbench.errors import InputError
from kgbench.fileio import write_json_atomic
from kgbench.noise import graph_file

__all__ = ["generate_ngdbench", "read_noisy_dir"]


def read_noisy_dir(
    noisy: str | os.PathLike[str], clean_path: Path
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The clean graph, the noisy graph (``graph.json`` of a ``kgbench noise`` output
    directory) and its noise log (spec ngdbench.md §2), as ``(clean, noisy, log)``: each graph
    file is read once, and the SHA-256 of the bytes parsed is checked against the log's.

    Raises:
        InputError: no ``noise_log.json`` / ``graph.json`` in the directory, a log that is not
            JSON, or SHA-256 sums that do not match the log's ``clean_sha256`` /
            ``noisy_sha256`` (the message says which file and what to pass instead — with
            ``--opaque-ids`` the clean graph is ``DIR/clean_graph.json``), or a graph file
            that cannot be read or is not a SimpleKG graph.
    """
    from kgbench.neo4j.loader import read_graph_json_sha256

    d = Path(noisy)
    log_path = d / "noise_log.json"
    graph_path = d / "graph.json"
    if not log_path.is_file() or not graph_path.is_file():
        raise InputError(
            f"--noisy {d}: expected the output directory of `kgbench noise` "
            "(graph.json and noise_log.json)"
        )
    try:
        log = json.loads(log_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(f"{log_path}: not JSON ({exc})") from exc
    if not isinstance(log, dict):
        raise InputError(f"{log_path}: not a noise log (spec ngdbench.md §2)")
    clean_graph, clean_sha = read_graph_json_sha256(clean_path)
    want_clean = log.get("clean_sha256")
    if want_clean and clean_sha != want_clean:
        hint = (
            f" (the noise was run with --opaque-ids: pass --clean {d / 'clean_graph.json'})"
            if log.get("opaque_ids")
            else ""
        )
        raise InputError(
            f"--clean {clean_path}: this is not the clean graph the noise log {log_path} was "
            f"made from (SHA-256 differs from its clean_sha256){hint}"
        )
    noisy_graph, noisy_sha = read_graph_json_sha256(graph_path)
    want_noisy = log.get("noisy_sha256")
    if want_noisy and noisy_sha != want_noisy:
        raise InputError(
            f"{graph_path}: the noisy graph was changed after `kgbench noise` wrote it "
            "(SHA-256 differs from the log's noisy_sha256)"
        )
    return clean_graph, noisy_graph, log


def generate_ngdbench(
    clean: str | os.PathLike[str],
    noisy: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    seed: int = 42,
    templates: str | os.PathLike[str] | None = None,
    max_anchors: int | None = None,
    max_answers: int | None = None,
    compat_repo: bool = False,
    management: bool = True,
    management_batches: int | None = None,
    timeout_s: float = 300.0,
    workers: int = 4,
    noisy_uri: str | None = None,
    clean_db: Any = None,
    user: str | None = None,
    password: str | None = None,
    llm: Any = None,
    progress: bool | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Build an NGDBench benchmark (module docstring) and return its report.

    Args:
        clean: the clean graph G* (``graph.json`` or a directory holding one; with a noise run
            made with ``--opaque-ids``, that run's ``clean_graph.json``).
        noisy: the output directory of ``kgbench noise`` on ``clean``.
        out: the output directory (created).
        seed: every choice draws from streams seeded by it (same inputs + seed = identical
            ``tasks.json``).
        templates: an analytic template library (default: kgbench's own).
        max_anchors: keep a seeded sample of this many noisy anchors (default: all).
        max_answers: NoAgg results with more distinct rows are dropped (default 32, spec §7;
            ``compat_repo``: 20).
        compat_repo: the repo's rules: 20 answers, ``same_as_cleangraph`` compares in order.
        management: build management batches (default True).
        management_batches: batches per operator (default: the management module's).
        timeout_s: per-query timeout on both graphs (spec §4: 300 s).
        workers: concurrent read sessions per server.
        noisy_uri: a running Neo4j that already holds the noisy graph, queried read-only
            (``user`` / ``password``; none: no authentication), instead of a second local
            server loaded by kgbench.
        clean_db: a running :class:`~kgbench.neo4j.disposable.DisposableNeo4j` loaded with
            ``clean`` (checked: :meth:`~kgbench.neo4j.disposable.DisposableNeo4j.
            require_graph`), used and left running, e.g. to share one across runs (None: one
            is started and stopped).
        llm: an optional :class:`kgbench.llm.LLMClient`; it rewrites each ``nlp`` from the
            template's NL text (the text is kept in ``nlp_template``).
        progress: query progress bars (None: only on a terminal).
        log: where progress lines go (default: stderr).

    Returns:
        The report written to ``OUT/report.json``: inputs and their SHA-256, ``anchors``,
        ``analytic`` (candidates, kept, rejections by reason, per template,
        ``same_as_cleangraph``), ``management``, ``tasks`` per family, ``seconds``.

    Raises:
        InputError: bad inputs (see :func:`read_noisy_dir`, :func:`load_templates`).
        kgbench.neo4j.Neo4jServerError: a local server cannot start.
    """
    from kgbench.generate.ngdbench.analytic import (
        COMPAT_REPO_MAX_ANSWERS,
        DEFAULT_MAX_ANSWERS,
        CleanIndex,
        build_analytic_tasks,
        collect_anchors,
        load_templates,
    )
    from kgbench.neo4j import LocalNeo4j, QueryExecutor, connect, load_graph
    from kgbench.neo4j.disposable import DisposableNeo4j

    say = log or (lambda m: print(m, file=sys.stderr, flush=True))
    t0 = time.perf_counter()
    clean_path = graph_file(clean)
    clean_graph, noisy_graph, noise_log = read_noisy_dir(noisy, clean_path)
    if clean_db is not None:
        clean_db.require_graph(clean_graph)  # before anything is written
    noisy_path = Path(noisy) / "graph.json"
    lib = load_templates(templates)
    if max_answers is None:
        max_answers = COMPAT_REPO_MAX_ANSWERS if compat_repo else DEFAULT_MAX_ANSWERS
    if max_answers < 1:
        raise InputError(f"--max-answers must be >= 1, got {max_answers}")
    if max_anchors is not None and max_anchors < 1:
        raise InputError(f"--max-anchors must be >= 1, got {max_anchors}")
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("report.json", "tasks.json"):
        (out_dir / stale).unlink(missing_ok=True)

    index = CleanIndex.of(clean_graph)
    anchors, anchor_counts = collect_anchors(noise_log, index, seed=seed, max_anchors=max_anchors)
    say(
        f"ngdbench: {anchor_counts['noisy_nodes']:,} noisy nodes, "
        f"{anchor_counts['noisy_edges']:,} noisy edges, "
        f"{anchor_counts['clean_nodes'] + anchor_counts['clean_edges']:,} clean anchors"
    )

    if clean_db is None or noisy_uri is None:
        say("ngdbench: starting local servers (the clean graph in a disposable database)")
    with ExitStack() as stack:
        if clean_db is None:
            clean_db = stack.enter_context(DisposableNeo4j(clean_graph))
        clean_driver = clean_db.server.driver()
        stack.callback(clean_driver.close)
        if noisy_uri is None:
            noisy_server = stack.enter_context(LocalNeo4j())
            noisy_driver = noisy_server.driver()
            stack.callback(noisy_driver.close)
            load_graph(noisy_graph, noisy_driver, wipe=True, progress=False)
        else:
            noisy_driver = connect(noisy_uri, user, password)
            stack.callback(noisy_driver.close)
        clean_exec = QueryExecutor(clean_driver, timeout_s=timeout_s, workers=workers)
        noisy_exec = QueryExecutor(noisy_driver, timeout_s=timeout_s, workers=workers)

        def run_clean(qs: Sequence[str]) -> Sequence[Any]:
            return clean_exec.run_many(qs, progress=progress is not False)

        def run_noisy(qs: Sequence[str]) -> Sequence[Any]:
            return noisy_exec.run_many(qs, progress=progress is not False)

        records, analytic_report = build_analytic_tasks(
            lib,
            anchors,
            index,
            run_clean,
            run_noisy,
            seed=seed,
            max_answers=max_answers,
            compat_repo=compat_repo,
            log=say,
        )
        mgmt_records: list[dict[str, Any]] = []
        mgmt_report: dict[str, Any] = {"skipped": "--no-management"}
        if management:
            from kgbench.generate.ngdbench.management import generate_management

            say("ngdbench: management batches (one rolled-back transaction each)")
            kwargs: dict[str, Any] = {"seed": seed}
            if management_batches is not None:
                kwargs["batches_per_operation"] = management_batches
            mgmt_records, mgmt_report = generate_management(clean_graph, clean_db, **kwargs)

    for i, rec in enumerate(mgmt_records, start=1):
        rec.setdefault("qid", f"ngd-management-{i:05d}")
    records += mgmt_records
    if llm is not None:
        _rewrite_nl(llm, records, progress=progress is not False)

    families: dict[str, int] = {}
    for rec in records:
        fam = str(rec.get("family", "management"))
        families[fam] = families.get(fam, 0) + 1
    report = {
        "clean": str(clean_path),
        "noisy": str(noisy_path),
        "clean_sha256": noise_log.get("clean_sha256"),
        "noisy_sha256": noise_log.get("noisy_sha256"),
        "seed": seed,
        "max_answers": max_answers,
        "compat_repo": compat_repo,
        "templates": str(templates) if templates is not None else "kgbench",
        "anchors": anchor_counts,
        "analytic": analytic_report,
        "management": mgmt_report,
        "tasks": families,
        "llm": getattr(llm, "model", None),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    write_json_atomic(out_dir / "tasks.json", records)
    write_json_atomic(out_dir / "report.json", report)
    return report


def _rewrite_nl(llm: Any, records: list[dict[str, Any]], *, progress: bool) -> None:
    """Rewrite each analytic / Boolean ``nlp`` with the LLM (spec §6 step 1); the template
    text is kept as ``nlp_template``."""
    from kgbench.generate.llm_steps import rewrite_questions

    todo = [r for r in records if isinstance(r.get("nlp"), str)]
    samples = [
        {
            "qid": r.get("qid"),
            "gold_cypher": r.get("query") or r.get("template_query"),
            "nl_question_raw": r["nlp"],
        }
        for r in todo
    ]
    for rec, text in zip(todo, rewrite_questions(llm, samples, progress=progress), strict=True):
        rec["nlp_template"] = rec["nlp"]
        rec["nlp"] = text
