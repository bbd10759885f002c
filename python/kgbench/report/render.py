"""The HTML of ``kgbench report``: one self-contained page (no network access: plotly.js, the
styles, the data and the table-sorting script are inlined, and a Content-Security-Policy
forbids every request) built from :class:`kgbench.report.inputs.ReportInputs`.

Charts are Plotly figures (the ``plotly`` package builds and validates them; its bundled
plotly.js draws them in the browser). The same inputs give byte-identical HTML: chart ids are
numbered, no time or random id is written, and every group order comes from the inputs or a
sort.
"""

from __future__ import annotations

import html
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from kgbench.report.inputs import (
    CORRECT,
    DIMENSIONS,
    PARTIAL,
    WRONG,
    AgentConversation,
    Generation,
    IsoTypes,
    Metric,
    Noise,
    ReportInputs,
    Run,
    TaskRow,
    run_family,
)

#: Run colours (Plotly's qualitative palette), by the run's position.
PALETTE = (
    "#636efa",
    "#ef553b",
    "#00cc96",
    "#ab63fa",
    "#ffa15a",
    "#19d3f3",
    "#ff6692",
    "#b6e880",
    "#ff97ff",
    "#fecb52",
)

#: The page's Content-Security-Policy: inline scripts and styles, data: images, nothing else.
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; font-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'"
)

_CSS = """
:root { --fg: #1f2430; --muted: #5f6b7a; --line: #d8dde4; --bg-alt: #f5f7fa; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  margin: 0; line-height: 1.4; }
header { padding: 1.2rem 2rem .6rem; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 .3rem; font-size: 1.6rem; }
nav a { margin-right: 1rem; color: #2d5bd8; text-decoration: none; font-size: .95rem; }
main { padding: 0 2rem 3rem; max-width: 1500px; }
section { margin-top: 2rem; }
h2 { font-size: 1.3rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
p.note { color: var(--muted); margin: .2rem 0; font-size: .92rem; }
.chart { width: 100%; min-height: 300px; margin: .5rem 0 1rem; }
.charts-2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr));
  gap: 0 1.5rem; }
table { border-collapse: collapse; font-size: .88rem; margin: .4rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; vertical-align: top;
  text-align: left; }
th { background: var(--bg-alt); position: sticky; top: 0; z-index: 1; }
table.sortable th { cursor: pointer; user-select: none; white-space: nowrap; }
table.sortable th::after { content: " \\2195"; color: #9aa5b1; }
table.sortable th[aria-sort="ascending"]::after { content: " \\2191"; color: var(--fg); }
table.sortable th[aria-sort="descending"]::after { content: " \\2193"; color: var(--fg); }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.clip { max-height: 7.5em; min-width: 14rem; max-width: 32rem; overflow: auto;
  white-space: pre-wrap; word-break: break-word; }
.code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: .82rem; }
.v-correct { color: #0a7d3b; font-weight: 600; }
.v-wrong { color: #b3261e; font-weight: 600; }
.v-partial { color: #a15c00; font-weight: 600; }
.v-error { color: #6b3fa0; font-weight: 600; }
.better { color: #0a7d3b; } .worse { color: #b3261e; }
.table-wrap { max-height: 80vh; max-width: 100%; overflow: auto; margin: .4rem 0 1rem;
  display: inline-block; }
.table-wrap table { margin: 0; }
input[type=search] { padding: .3rem .5rem; width: 24rem; max-width: 100%; margin: .3rem 0; }
footer { color: var(--muted); font-size: .8rem; padding: 1rem 2rem; }
details.traj { min-width: 16rem; max-width: 40rem; font-size: .82rem; }
details.traj summary { cursor: pointer; white-space: nowrap; }
details.traj ol { margin: .2rem 0; padding-left: 1.4rem; }
details.traj .r { color: var(--muted); white-space: pre-wrap; word-break: break-word; }
"""

_SCRIPT = """
(function () {
  "use strict";
  function cellKey(cell, numeric) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null) { raw = cell.textContent; }
    if (!numeric) { return raw.toLowerCase(); }
    var x = parseFloat(raw);
    return isNaN(x) ? null : x;
  }
  function sortBy(table, col, th) {
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
    th.setAttribute("aria-sort", dir);
    var numeric = th.getAttribute("data-type") === "number";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (r, i) { return [cellKey(r.cells[col], numeric), i, r]; });
    keyed.sort(function (a, b) {
      var x = a[0], y = b[0], c;
      if (x === null || y === null) {
        c = x === y ? 0 : (x === null ? 1 : -1);
        return c !== 0 ? c : a[1] - b[1];
      }
      c = numeric ? x - y : x.localeCompare(y, undefined, {numeric: true});
      if (dir === "descending") { c = -c; }
      return c !== 0 ? c : a[1] - b[1];
    });
    keyed.forEach(function (k) { body.appendChild(k[2]); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.addEventListener("click", function () { sortBy(table, col, th); });
    });
  });
  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    var counter = document.getElementById(input.getAttribute("data-counter"));
    input.addEventListener("input", function () {
      var q = input.value.toLowerCase(), shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        var hit = q === "" || r.textContent.toLowerCase().indexOf(q) >= 0;
        r.style.display = hit ? "" : "none";
        if (hit) { shown++; }
      });
      if (counter) { counter.textContent = String(shown); }
    });
  });
  var specs = JSON.parse(document.getElementById("kgbench-charts").textContent);
  var config = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["sendDataToCloud"]};
  specs.forEach(function (spec) {
    Plotly.newPlot(spec.id, spec.figure.data, spec.figure.layout, config);
  });
  document.body.setAttribute("data-charts-rendered", String(specs.length));
})();
"""


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _script_json(value: str) -> str:
    """JSON text made safe inside ``<script>``: ``<``, ``>`` and ``&`` as ``\\u`` escapes (they
    occur only inside JSON strings, where the escapes mean the same characters)."""
    return value.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _summarise(values: Sequence[float], metric: Metric) -> float | None:
    if not values:
        return None
    value = statistics.median(values) if metric.agg == "median" else sum(values) / len(values)
    return round(value, 4)


def _verdict_class(verdict: str) -> str:
    if verdict == CORRECT:
        return "v-correct"
    if verdict == WRONG:
        return "v-wrong"
    if verdict == PARTIAL:
        return "v-partial"
    return "v-error"


class _Page:
    """Accumulates the body's HTML and the chart specifications."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.charts: list[str] = []
        self.nav: list[tuple[str, str]] = []

    def add(self, text: str) -> None:
        self.parts.append(text)

    def section(self, anchor: str, title: str) -> None:
        if self.nav:
            self.add("</section>")
        self.nav.append((anchor, title))
        self.add(f'<section id="{anchor}"><h2>{_esc(title)}</h2>')

    def chart(self, figure: Any, *, height: int) -> None:
        """Add a Plotly figure (a ``plotly.graph_objects.Figure``) as a chart div."""
        import plotly.io as pio

        number = len(self.charts) + 1
        chart_id = f"chart-{number}"
        figure.update_layout(height=height)
        spec = pio.to_json(figure, validate=False, engine="json")
        self.charts.append(f'{{"id": "{chart_id}", "figure": {spec}}}')
        self.add(f'<div class="chart" id="{chart_id}" style="height:{height}px"></div>')


def _base_layout(title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "template": "none",
        "title": {"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 15}},
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 12},
        "margin": {"l": 60, "r": 20, "t": 70, "b": 40},
        "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        "barmode": "group",
        "hovermode": "closest",
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
    }
    layout.update(extra)
    return layout


def _axis(kind: str = "linear", **extra: Any) -> dict[str, Any]:
    axis: dict[str, Any] = {
        "type": kind,
        "automargin": True,
        "gridcolor": "#e5e9ef",
        "linecolor": "#9aa5b1",
        "zerolinecolor": "#9aa5b1",
    }
    axis.update(extra)
    return axis


def _bar_chart(
    page: _Page,
    title: str,
    series: Sequence[tuple[str, Sequence[str], Sequence[float | int | None], str]],
    *,
    y_title: str = "",
    y_range: Sequence[float] | None = None,
    horizontal: bool = False,
    height: int = 380,
) -> None:
    """Bars of one or more series ``(name, categories, values, colour)``."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, cats, values, colour in series:
        integers = all(isinstance(v, int) for v in values)
        common: dict[str, Any] = {
            "name": name,
            "marker": {"color": colour},
            "showlegend": len(series) > 1,
            "texttemplate": ("%{x}" if horizontal else "%{y}")
            if integers
            else ("%{x:.3~f}" if horizontal else "%{y:.3~f}"),
            "textposition": "outside",
            "cliponaxis": False,
            "textfont": {"size": 10},
        }
        if horizontal:
            fig.add_trace(go.Bar(x=list(values), y=list(cats), orientation="h", **common))
        else:
            fig.add_trace(go.Bar(x=list(cats), y=list(values), **common))
    value_axis = _axis("linear", title={"text": y_title}, rangemode="tozero")
    if y_range is not None:
        value_axis["range"] = list(y_range)
    numbers = [v for _, _, values, _ in series for v in values if v is not None]
    if numbers and all(isinstance(v, int) for v in numbers) and max(numbers) <= 10:
        value_axis["dtick"] = 1
    cat_axis = _axis("category")
    if horizontal:
        cat_axis["autorange"] = "reversed"
        layout = _base_layout(title, xaxis=value_axis, yaxis=cat_axis)
    else:
        layout = _base_layout(title, xaxis=cat_axis, yaxis=value_axis)
    fig.update_layout(**layout)
    page.chart(fig, height=height)


def _table(
    headers: Sequence[tuple[str, str]],
    rows: Iterable[Sequence[tuple[str, str | None, str]]],
    *,
    table_id: str | None = None,
    sortable: bool = True,
) -> str:
    """A table: ``headers`` are ``(label, "number"|"text")``; each cell is ``(html, sort key or
    None, css class)``."""
    attrs = f' id="{table_id}"' if table_id else ""
    cls = ' class="sortable"' if sortable else ""
    out = [f'<div class="table-wrap"><table{attrs}{cls}><thead><tr>']
    for label, kind in headers:
        out.append(f'<th data-type="{kind}">{_esc(label)}</th>')
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>")
        for content, key, css in row:
            key_attr = f' data-sort="{_esc(key)}"' if key is not None else ""
            css_attr = f' class="{css}"' if css else ""
            out.append(f"<td{css_attr}{key_attr}>{content}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _num_cell(value: float | int | None, digits: int = 4) -> tuple[str, str | None, str]:
    if value is None:
        return ("", "", "num")
    text = str(value) if isinstance(value, int) else _fmt(value, digits)
    return (text, repr(value), "num")


def _text_cell(text: str, *, code: bool = False) -> tuple[str, str | None, str]:
    if not text:
        return ("", None, "")
    cls = "clip code" if code else "clip"
    return (f'<div class="{cls}">{_esc(text)}</div>', None, "")


def _plain_cell(text: str, css: str = "") -> tuple[str, str | None, str]:
    return (_esc(text), None, css)


# --------------------------------------------------------------------------------------------
# sections


def _metric_order(runs: Sequence[Run]) -> list[Metric]:
    seen: dict[str, Metric] = {}
    for run in runs:
        for m in run.metrics:
            seen.setdefault(m.key, m)
    return list(seen.values())


def _inputs_section(page: _Page, inputs: ReportInputs) -> None:
    page.section("inputs", "Inputs")
    rows = []
    for run in inputs.runs:
        rows.append((run.label, run.kind, str(run.path), f"{len(run.rows)} tasks"))
    for gen in inputs.generations:
        rows.append((gen.label, gen.generator, str(gen.path), ""))
    for iso in inputs.isos:
        rows.append((iso.label, "iso", str(iso.path), f"{iso.total} records"))
    for noise in inputs.noises:
        rows.append((noise.label, "noise", str(noise.path), f"seed {noise.seed}"))
    page.add(
        _table(
            [("input", "text"), ("kind", "text"), ("path", "text"), ("size", "text")],
            ([_plain_cell(c) for c in r] for r in rows),
        )
    )


def _overall_section(page: _Page, runs: Sequence[Run]) -> None:
    page.section("overall", "Overall metrics")
    metrics = _metric_order(runs)
    for group, title in (
        ([m for m in metrics if m.bounded], "Overall metrics (higher is better)"),
        # unbounded counts (GTSQA's # triples) are in the table only
        (
            [m for m in metrics if not m.bounded and not m.higher_is_better],
            "Overall errors (lower is better)",
        ),
    ):
        if not group or not any(run.overall.get(m.key) is not None for run in runs for m in group):
            continue
        series = []
        for i, run in enumerate(runs):
            cats = [m.label for m in group if run.overall.get(m.key) is not None]
            values = [run.overall[m.key] for m in group if run.overall.get(m.key) is not None]
            if cats:
                series.append((run.label, cats, values, PALETTE[i % len(PALETTE)]))
        _bar_chart(
            page,
            title,
            series,
            y_range=[0, 1.08] if group[0].bounded else None,
            y_title="score" if group[0].bounded else "error",
        )
    shown = [m for m in metrics if any(run.overall.get(m.key) is not None for run in runs)]
    headers = [("run", "text"), ("kind", "text"), ("tasks", "number")]
    headers += [(m.label, "number") for m in shown]
    rows = []
    for run in runs:
        cells = [_plain_cell(run.label), _plain_cell(run.kind), _num_cell(len(run.rows))]
        cells += [_num_cell(run.overall.get(m.key)) for m in shown]
        rows.append(cells)
    page.add(_table(headers, rows))
    for run in runs:
        for note in run.notes:
            page.add(f'<p class="note">{_esc(run.label)}: {_esc(note)}</p>')


def comparable_groups(runs: Sequence[Run]) -> list[list[Run]]:
    """The runs the report compares: per benchmark family (:func:`run_family`, in the order
    the families first appear), the family's first run and, after it, each later run of the
    family that shares at least one task (qid) with it. Families left with one run are
    dropped, so runs of different families, or with no task in common, are never paired."""
    families: dict[str, list[Run]] = {}
    for run in runs:
        families.setdefault(run_family(run), []).append(run)
    groups = []
    for members in families.values():
        base_qids = {row.qid for row in members[0].rows}
        paired = [run for run in members[1:] if any(row.qid in base_qids for row in run.rows)]
        if paired:
            groups.append([members[0], *paired])
    return groups


def _compare_section(page: _Page, runs: Sequence[Run]) -> None:
    """Per family (:func:`comparable_groups`): the deltas of every run against the family's
    first and the tasks on which their verdicts differ."""
    page.section("compare", "Differences between runs")
    page.add(
        '<p class="note">Only runs of one benchmark family over common tasks are compared; '
        "runs of different families, or with no task in common, are never paired.</p>"
    )
    groups = comparable_groups(runs)
    if not groups:
        page.add('<p class="note">No two runs here are of one family with a common task.</p>')
    for i, group in enumerate(groups):
        if len(groups) > 1:
            page.add(f"<h3>{_esc(run_family(group[0]))}</h3>")
        _compare_group(page, group, table_id="diff-table" if i == 0 else f"diff-table-{i + 1}")


def _compare_group(page: _Page, runs: Sequence[Run], *, table_id: str) -> None:
    """Deltas of every run of ``runs`` (one family) against the first, and the tasks on which
    their verdicts differ."""
    base = runs[0]
    metrics = [
        m
        for m in _metric_order(runs)
        if base.overall.get(m.key) is not None
        and any(run.overall.get(m.key) is not None for run in runs[1:])
    ]
    page.add(
        f'<p class="note">Each run against the first, <b>{_esc(base.label)}</b>: overall '
        "metric differences (run minus baseline) and per-task verdicts on the tasks both "
        "have (matched by qid).</p>"
    )
    series = []
    for i, run in enumerate(runs[1:], start=1):
        cats, deltas = [], []
        for m in metrics:
            a, b = base.overall.get(m.key), run.overall.get(m.key)
            if a is not None and b is not None and m.bounded:
                cats.append(m.label)
                deltas.append(round(b - a, 4))
        if cats:
            series.append((f"{run.label} − {base.label}", cats, deltas, PALETTE[i % len(PALETTE)]))
    if series:
        _bar_chart(page, f"Overall difference against {base.label}", series, y_title="Δ score")
    headers = [("run", "text")] + [(f"Δ {m.label}", "number") for m in metrics]
    headers += [
        ("common tasks", "number"),
        ("both correct", "number"),
        ("only this run correct", "number"),
        ("only baseline correct", "number"),
        ("neither", "number"),
    ]
    base_rows = {r.qid: r for r in reversed(base.rows)}
    table_rows = []
    for run in runs[1:]:
        cells = [_plain_cell(run.label)]
        for m in metrics:
            a, b = base.overall.get(m.key), run.overall.get(m.key)
            if a is None or b is None:
                cells.append(_num_cell(None))
                continue
            delta = round(b - a, 4)
            better = delta > 0 if m.higher_is_better else delta < 0
            css = "num better" if better else "num worse" if delta != 0 else "num"
            cells.append((f"{delta:+.4f}", repr(delta), css))
        counts = [0, 0, 0, 0, 0]
        for row in run.rows:
            other = base_rows.get(row.qid)
            if other is None:
                continue
            counts[0] += 1
            a_ok, b_ok = other.verdict == CORRECT, row.verdict == CORRECT
            counts[1 if a_ok and b_ok else 2 if b_ok else 3 if a_ok else 4] += 1
        cells += [_num_cell(c) for c in counts]
        table_rows.append(cells)
    page.add(_table(headers, table_rows))
    # tasks whose verdicts differ between the runs that have them
    by_run = [{r.qid: r for r in reversed(run.rows)} for run in runs]
    order: list[str] = []
    seen: set[str] = set()
    for run in runs:
        for row in run.rows:
            if row.qid not in seen:
                seen.add(row.qid)
                order.append(row.qid)
    differing = []
    for qid in order:
        present = [rows[qid] for rows in by_run if qid in rows]
        if len(present) >= 2 and len({r.verdict for r in present}) > 1:
            differing.append(qid)
    page.add(f"<h3>Tasks with different verdicts ({len(differing)})</h3>")
    if not differing:
        page.add('<p class="note">The runs agree on every common task.</p>')
        return
    headers = [("qid", "text"), ("question", "text")] + [(run.label, "text") for run in runs]
    rows = []
    for qid in differing:
        question = next((r[qid].question for r in by_run if qid in r and r[qid].question), "")
        cells = [_plain_cell(qid), _text_cell(question)]
        for rows_of in by_run:
            found = rows_of.get(qid)
            cells.append(
                _plain_cell(found.verdict, _verdict_class(found.verdict)) if found else ("", "", "")
            )
        rows.append(cells)
    page.add(_table(headers, rows, table_id=table_id))


def _dimension_section(page: _Page, runs: Sequence[Run]) -> None:
    """For every grouping dimension some run has: one figure, a row of bars per metric, a
    bar per (group, run)."""
    from plotly.subplots import make_subplots

    dims = [d for d in DIMENSIONS if any(d in row.groups for run in runs for row in run.rows)]
    if not dims:
        return
    page.section("breakdown", "Metrics by category")
    page.add(
        '<p class="note">Means over the tasks of each group (Agg MdRE: the median); the bar\'s '
        "hover shows the number of tasks. RETURN templates are grouped as CypherBench's "
        "aggregation does (n_prop, n_name_prop, n_prop_distinct and n_prop_array_distinct "
        "as n_prop_combined; the special categories' own templates are left out).</p>"
    )
    metrics = _metric_order(runs)
    for dim in dims:
        groups: list[str] = []
        for run in runs:
            for row in run.rows:
                value = row.groups.get(dim)
                if value is not None and value not in groups:
                    groups.append(value)
        if dim == "hardness":
            rank = {h: i for i, h in enumerate(("easy", "medium", "hard", "extra", "unknown"))}
            groups.sort(key=lambda g: (rank.get(g, 99), g))
        else:
            groups.sort()
        used = [
            m
            for m in metrics
            if any(dim in r.groups and m.key in r.metrics for run in runs for r in run.rows)
        ]
        if not used:
            continue
        fig = make_subplots(
            rows=len(used),
            cols=1,
            shared_xaxes=True,
            vertical_spacing=0.28 / max(len(used), 1),
            subplot_titles=[m.label for m in used],
        )
        for i, run in enumerate(runs):
            colour = PALETTE[i % len(PALETTE)]
            for j, m in enumerate(used, start=1):
                cats, values, ns = [], [], []
                for g in groups:
                    vals = [
                        r.metrics[m.key]
                        for r in run.rows
                        if r.groups.get(dim) == g and m.key in r.metrics
                    ]
                    if vals:
                        cats.append(g)
                        values.append(_summarise(vals, m))
                        ns.append(len(vals))
                if not cats:
                    continue
                fig.add_bar(
                    x=cats,
                    y=values,
                    customdata=ns,
                    texttemplate="%{y:.2f}",
                    textposition="outside",
                    cliponaxis=False,
                    textfont={"size": 10},
                    name=run.label,
                    legendgroup=run.label,
                    showlegend=j == 1 and len(runs) > 1,
                    marker={"color": colour},
                    hovertemplate="%{x}<br>"
                    + _esc(m.label)
                    + " %{y:.4f}<br>n = %{customdata}<extra>"
                    + _esc(run.label)
                    + "</extra>",
                    row=j,
                    col=1,
                )
        fig.update_layout(**_base_layout(f"By {dim}"))
        for j, m in enumerate(used, start=1):
            y_axis = _axis("linear", rangemode="tozero")
            if m.bounded:
                y_axis["range"] = [0, 1.15]
            fig.update_yaxes(y_axis, row=j, col=1)
            fig.update_xaxes(
                _axis("category", categoryorder="array", categoryarray=groups), row=j, col=1
            )
        page.chart(fig, height=140 + 190 * len(used))


def _errors_section(page: _Page, runs: Sequence[Run]) -> None:
    if not any(run.error_classes for run in runs):
        return
    page.section("errors", "Error classes")
    page.add(
        '<p class="note">Tasks whose prediction failed, by error class (a task counts once '
        "per class), with the first task of each class.</p>"
    )
    classes: list[str] = []
    for run in runs:
        for cls in run.error_classes:
            if cls not in classes:
                classes.append(cls)
    series = []
    for i, run in enumerate(runs):
        cats = [c for c in classes if c in run.error_classes]
        if cats:
            series.append(
                (run.label, cats, [run.error_classes[c] for c in cats], PALETTE[i % len(PALETTE)])
            )
    _bar_chart(page, "Tasks per error class", series, y_title="tasks")
    headers = [
        ("run", "text"),
        ("error class", "text"),
        ("tasks", "number"),
        ("example qid", "text"),
        ("question", "text"),
        ("prediction", "text"),
        ("message", "text"),
    ]
    rows = []
    for run in runs:
        for cls, count in run.error_classes.items():
            ex = run.error_examples[cls]
            message = ex.errors.get(cls) or (ex.error if ex.error_class == cls else "")
            rows.append(
                [
                    _plain_cell(run.label),
                    _plain_cell(cls, "v-error"),
                    _num_cell(count),
                    _plain_cell(ex.qid),
                    _text_cell(ex.question),
                    _text_cell(ex.prediction, code=True),
                    _text_cell(message or "", code=True),
                ]
            )
    page.add(_table(headers, rows))


#: Rows of the flagged-gold table per run; the rest are counted in a note (the audit.json and
#: result_with_metrics.json list them all).
FLAGGED_ROWS = 300


def _flagged_section(page: _Page, runs: Sequence[Run]) -> None:
    """The gold flags of the runs evaluated with ``--audit``: EX (and the run's other metrics)
    on the unflagged tasks beside all tasks, then one row per flag (qid, flag, reason,
    details abbreviated)."""
    audited = [run for run in runs if run.gold_audit is not None]
    if not audited:
        return
    page.section("flagged-golds", "Flagged golds")
    page.add(
        '<p class="note">Gold queries <code>kgbench audit</code> flagged (nondeterministic, '
        "slow, uninformative, large, duplicate question, gold error, version sensitive): the "
        "metrics on the tasks without a flag beside those on all tasks.</p>"
    )
    keys = [
        m
        for m in _metric_order(audited)
        if any(
            run.gold_audit is not None and run.gold_audit.unflagged.get(m.key) is not None
            for run in audited
        )
    ]
    headers = [("run", "text"), ("tasks", "number"), ("unflagged tasks", "number")]
    headers += [("flagged tasks", "number")]
    for m in keys:
        headers += [(f"{m.label} (all)", "number"), (f"{m.label} (unflagged)", "number")]
    summary = []
    for run in audited:
        ga = run.gold_audit
        assert ga is not None
        cells = [
            _plain_cell(run.label),
            _num_cell(len(run.rows)),
            _num_cell(ga.unflagged_tasks),
            _num_cell(ga.flagged_tasks),
        ]
        for m in keys:
            cells += [_num_cell(run.overall.get(m.key)), _num_cell(ga.unflagged.get(m.key))]
        summary.append(cells)
    page.add(_table(headers, summary))
    rows = []
    left = 0
    for run in audited:
        ga = run.gold_audit
        assert ga is not None
        left += max(0, len(ga.flagged) - FLAGGED_ROWS)
        for f in ga.flagged[:FLAGGED_ROWS]:
            rows.append(
                [
                    _plain_cell(run.label),
                    _plain_cell(f.qid),
                    _plain_cell(f.flag, "v-error"),
                    _plain_cell(f.reason),
                    _text_cell(f.details),
                ]
            )
    if rows:
        page.add(
            _table(
                [
                    ("run", "text"),
                    ("qid", "text"),
                    ("flag", "text"),
                    ("reason", "text"),
                    ("details", "text"),
                ],
                rows,
                table_id="flagged-golds-table",
            )
        )
    if left:
        page.add(
            f'<p class="note">{left} more flag(s) not shown (first {FLAGGED_ROWS} per run); '
            "the evaluation's result_with_metrics.json lists every one.</p>"
        )


def _generation_section(page: _Page, gens: Sequence[Generation]) -> None:
    import plotly.graph_objects as go

    page.section("generation", "Benchmark generation")
    for gen in gens:
        page.add(f"<h3>{_esc(gen.label)} — {_esc(gen.generator)}</h3>")
        facts = ", ".join(f"{k}: {v}" for k, v in gen.facts)
        page.add(f'<p class="note">{_esc(facts)} ({_esc(gen.path)})</p>')
        page.add('<div class="charts-2">')
        for title, stages in gen.funnels:
            fig = go.Figure(
                go.Funnel(
                    y=[s for s, _ in stages],
                    x=[n for _, n in stages],
                    textinfo="value+percent initial",
                    marker={"color": PALETTE[0]},
                )
            )
            fig.update_layout(
                **_base_layout(f"Funnel: {title}", yaxis=_axis("category"), showlegend=False)
            )
            page.chart(fig, height=120 + 60 * len(stages))
        if gen.rejections:
            reasons = list(gen.rejections)
            _bar_chart(
                page,
                "Rejections per reason",
                [("rejections", reasons, [gen.rejections[r] for r in reasons], PALETTE[1])],
                horizontal=True,
                y_title="candidates",
                height=120 + 28 * len(reasons),
            )
        for title, counts in gen.balance:
            if not counts:
                continue
            cats = list(counts)
            _bar_chart(
                page,
                f"Balance: {title}",
                [(title, cats, [counts[c] for c in cats], PALETTE[2])],
                y_title="count",
            )
        page.add("</div>")
        if gen.examples:
            rows = [
                [_plain_cell(reason, "v-error"), _text_cell("\n".join(texts), code=True)]
                for reason, texts in gen.examples.items()
            ]
            page.add(_table([("rejection", "text"), ("first example", "text")], rows))


def _iso_section(page: _Page, isos: Sequence[IsoTypes]) -> None:
    from kgbench.iso import grailqa_name

    page.section("isomorphism", "Isomorphism types")
    for iso in isos:
        cats = []
        for kind in iso.counts:
            name = grailqa_name(kind)
            cats.append(f"{kind} ({name})" if name else kind)
        _bar_chart(
            page,
            f"{iso.label}: answer subgraphs per isomorphism type",
            [(iso.label, cats, list(iso.counts.values()), PALETTE[3])],
            y_title="records",
        )
        page.add(
            f'<p class="note">{iso.total} records, {iso.total - iso.invalid} valid answer trees '
            f"of {len(iso.counts)} types, {iso.invalid} invalid ({_esc(iso.path)})</p>"
        )


def _noise_section(page: _Page, noises: Sequence[Noise]) -> None:
    page.section("noise", "Noise injection")
    for noise in noises:
        page.add(f"<h3>{_esc(noise.label)} — seed {_esc(noise.seed)}</h3>")
        sizes = "; ".join(
            f"{k.replace('_', ' ')}: "
            + ", ".join(f"{kk} {vv}" for kk, vv in v.items() if not isinstance(vv, (dict, list)))
            for k, v in noise.sizes.items()
        )
        if sizes:
            page.add(f'<p class="note">{_esc(sizes)}</p>')
        names = [t[0] for t in noise.types]
        page.add('<div class="charts-2">')
        _bar_chart(
            page,
            "Targets and changes per noise type",
            [
                ("target", names, [t[2] for t in noise.types], PALETTE[0]),
                ("changed", names, [t[3] for t in noise.types], PALETTE[1]),
            ],
            y_title="elements",
        )
        methods = sorted({m for per in noise.methods.values() for m in per})
        if methods:
            import plotly.graph_objects as go

            fig = go.Figure()
            for i, method in enumerate(methods):
                fig.add_trace(
                    go.Bar(
                        x=names,
                        y=[noise.methods.get(n, {}).get(method, 0) for n in names],
                        name=method,
                        marker={"color": PALETTE[i % len(PALETTE)]},
                    )
                )
            fig.update_layout(
                **_base_layout(
                    "Changes per modification method",
                    barmode="stack",
                    xaxis=_axis("category"),
                    yaxis=_axis("linear", title={"text": "changes"}),
                )
            )
            page.chart(fig, height=380)
        page.add("</div>")
        rate_rows = [
            [_plain_cell(n), _num_cell(rate, 2), _num_cell(target), _num_cell(changed)]
            for n, rate, target, changed in noise.types
        ]
        page.add(
            _table(
                [
                    ("noise type", "text"),
                    ("rate", "number"),
                    ("target", "number"),
                    ("changed", "number"),
                ],
                rate_rows,
            )
        )
        if noise.examples:
            rows = [
                [
                    _plain_cell(c.noise_type),
                    _plain_cell(c.element),
                    _plain_cell(c.field),
                    _text_cell(c.original, code=True),
                    _text_cell(c.new, code=True),
                    _plain_cell(c.method),
                ]
                for c in noise.examples
            ]
            page.add(
                _table(
                    [
                        ("noise type", "text"),
                        ("element", "text"),
                        ("field", "text"),
                        ("before", "text"),
                        ("after", "text"),
                        ("method", "text"),
                    ],
                    rows,
                )
            )


def _agent_section(page: _Page, runs: Sequence[Run]) -> None:
    """The agent runs' statistics (``run.json`` ``agent``) and the main metric by number
    of turns and by ending (``aggregated_metrics.json`` ``by_turns`` / ``by_ending``)."""
    agents = [run for run in runs if run.agent is not None]
    if not agents:
        return
    page.section("agent", "Agent runs")
    page.add(
        '<p class="note">Conversations of <code>kgbench predict --agent</code>: one turn is '
        "one request; the trajectory of each task is in the Tasks table beside its "
        "verdict.</p>"
    )
    totals = (
        ("conversations", "conversations"),
        ("turns", "turns"),
        ("tool calls", "tool_calls"),
        ("queries executed", "queries_executed"),
        ("malformed calls", "malformed_tool_calls"),
        ("refused writes", "refused_writes"),
        ("max turns", "max_turns"),
    )
    headers = [("run", "text")] + [(label, "number") for label, _ in totals]
    headers += [("turns / conversation", "number"), ("endings", "text")]
    rows = []
    for run in agents:
        stats = run.agent.stats
        cells = [_plain_cell(run.label)]
        cells += [_num_cell(_int_or_none(stats.get(key))) for _, key in totals]
        n, turns = stats.get("conversations"), stats.get("turns")
        mean = turns / n if isinstance(n, int) and n and isinstance(turns, int) else None
        cells.append(_num_cell(mean, 2))
        endings = stats.get("endings")
        text = (
            ", ".join(f"{k} {v}" for k, v in endings.items()) if isinstance(endings, dict) else ""
        )
        cells.append(_plain_cell(text))
        rows.append(cells)
    page.add(_table(headers, rows, table_id="agent-table"))
    for section, label in (("by_turns", "turns"), ("by_ending", "ending")):
        rows = []
        metrics: list[str] = []
        for run in agents:
            metric = run.agent.metric
            if metric and metric not in metrics:
                metrics.append(metric)
        for run in agents:
            for key, group in getattr(run.agent, section).items():
                cells = [_plain_cell(run.label), _plain_cell(key), _num_cell(group.get("n"))]
                cells += [_num_cell(group.get(m)) for m in metrics]
                rows.append(cells)
        if not rows:
            continue
        page.add(f"<h3>By {label}</h3>")
        headers = [("run", "text"), (label, "number" if label == "turns" else "text")]
        headers += [("tasks", "number")] + [(m, "number") for m in metrics]
        page.add(_table(headers, rows, table_id=f"agent-{section.replace('_', '-')}"))


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _trajectory_cell(convo: AgentConversation | None) -> tuple[str, str | None, str]:
    """A collapsed ``<details>``: per turn the reply's text and each tool call (its query,
    the result cut short, the error class), then the ending and the final answer."""
    if convo is None:
        return ("", None, "")
    out = [
        f'<details class="traj"><summary>{convo.turns} turn{"s" if convo.turns != 1 else ""}'
        f", {convo.queries} quer{'ies' if convo.queries != 1 else 'y'} · "
        f"{_esc(convo.ending)}</summary><ol>"
    ]
    for content, calls in convo.steps:
        out.append("<li>")
        if content:
            out.append(f'<div class="r">{_esc(content)}</div>')
        for call in calls:
            err = f" <b>[{_esc(call.error)}]</b>" if call.error else ""
            out.append(f"<div><b>{_esc(call.name)}</b>{err}")
            if call.query:
                out.append(f' <code class="code">{_esc(call.query)}</code>')
            if call.result:
                out.append(f'<div class="r">→ {_esc(call.result)}</div>')
            out.append("</div>")
        out.append("</li>")
    out.append("</ol>")
    if convo.turns > len(convo.steps):
        out.append(f"<div>… {convo.turns - len(convo.steps)} more turns</div>")
    answered = [c.query for _, calls in convo.steps for c in calls if c.name == "final_answer"]
    # the post-processed answer, when it is not the final_answer call's query as shown
    shown = convo.answer and (not answered or answered[-1] != convo.answer)
    answer = f': <code class="code">{_esc(convo.answer)}</code>' if shown else ""
    out.append(f"<div>ending <b>{_esc(convo.ending)}</b>{answer}</div></details>")
    return ("".join(out), f"{convo.turns:04d} {convo.ending}", "")


def _tasks_section(page: _Page, runs: Sequence[Run]) -> None:
    page.section("tasks", "Tasks")
    metrics = _metric_order(runs)
    metrics = [m for m in metrics if any(m.key in r.metrics for run in runs for r in run.rows)]
    dims = [d for d in DIMENSIONS if any(d in r.groups for run in runs for r in run.rows)]
    total = sum(len(run.rows) for run in runs)
    page.add(
        '<p class="note">Click a column header to sort (again to reverse); the box filters '
        f'the rows by their text. Rows shown: <span id="tasks-count">{total}</span>.</p>'
        '<input type="search" placeholder="filter tasks" data-filter="tasks-table" '
        'data-counter="tasks-count" aria-label="filter tasks">'
    )
    agent = any(run.agent is not None for run in runs)
    headers = [("run", "text"), ("qid", "text"), ("verdict", "text")]
    if agent:
        headers.append(("trajectory", "text"))
    headers += [(m.label, "number") for m in metrics] + [(d, "text") for d in dims]
    headers += [("question", "text"), ("gold", "text"), ("prediction", "text")]
    headers += [("error", "text")]

    def cells(run: Run, row: TaskRow) -> list[tuple[str, str | None, str]]:
        out = [
            _plain_cell(run.label),
            _plain_cell(row.qid),
            _plain_cell(row.verdict, _verdict_class(row.verdict)),
        ]
        if agent:
            convos = run.agent.conversations if run.agent is not None else {}
            out.append(_trajectory_cell(convos.get(row.qid)))
        out += [_num_cell(row.metrics.get(m.key)) for m in metrics]
        out += [_plain_cell(row.groups.get(d, "")) for d in dims]
        out += [
            _text_cell(row.question),
            _text_cell(row.gold, code=True),
            _text_cell(row.prediction, code=True),
            _text_cell(row.error or "", code=True),
        ]
        return out

    page.add(
        _table(
            headers, (cells(run, row) for run in runs for row in run.rows), table_id="tasks-table"
        )
    )


# --------------------------------------------------------------------------------------------
# the page


def render_html(inputs: ReportInputs, *, title: str | None = None) -> str:
    """The report page for ``inputs`` (see :mod:`kgbench.report`): UTF-8 HTML text with
    plotly.js inlined. Deterministic for the same inputs and the same installed plotly."""
    import plotly
    import plotly.offline

    from kgbench import __version__

    heading = title or "kgbench report"
    page = _Page()
    _inputs_section(page, inputs)
    runs = inputs.runs
    if runs:
        _overall_section(page, runs)
        if len(runs) > 1:
            _compare_section(page, runs)
        _dimension_section(page, runs)
        _errors_section(page, runs)
        _flagged_section(page, runs)
        _agent_section(page, runs)
    if inputs.generations:
        _generation_section(page, inputs.generations)
    if inputs.isos:
        _iso_section(page, inputs.isos)
    if inputs.noises:
        _noise_section(page, inputs.noises)
    if runs:
        _tasks_section(page, runs)
    page.add("</section>")
    nav = "".join(f'<a href="#{a}">{_esc(t)}</a>' for a, t in page.nav)
    charts = _script_json("[" + ",\n".join(page.charts) + "]")
    plotly_js = plotly.offline.get_plotlyjs().replace("</script", "<\\/script")
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            '<link rel="icon" href="data:,">\n',
            f"<title>{_esc(heading)}</title>\n<style>{_CSS}</style>\n",
            f"<script>{plotly_js}</script>\n</head>\n<body>\n",
            f"<header><h1>{_esc(heading)}</h1><nav>{nav}</nav></header>\n<main>\n",
            "\n".join(page.parts),
            "\n</main>\n",
            f"<footer>kgbench {_esc(__version__)} · plotly.js {_esc(_plotlyjs_version())} "
            f"(plotly {_esc(plotly.__version__)}) · {len(page.charts)} charts</footer>\n",
            f'<script type="application/json" id="kgbench-charts">{charts}</script>\n',
            f"<script>{_SCRIPT}</script>\n</body></html>\n",
        ]
    )


def _plotlyjs_version() -> str:
    import plotly.offline

    head = plotly.offline.get_plotlyjs()[:200]
    marker = "plotly.js v"
    at = head.find(marker)
    if at < 0:
        return "?"
    return head[at + len(marker) :].split()[0]


def chart_count(text: str) -> int:
    """The number of charts of a rendered page (the ``chart-N`` divs)."""
    return text.count('<div class="chart" id="chart-')


__all__ = ["CSP", "PALETTE", "chart_count", "render_html"]
