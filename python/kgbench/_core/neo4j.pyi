"""Type stubs of ``kgbench._core.neo4j`` (Rust; see rust/kgbench-py/src/neo4j.rs).

Validation of SimpleKG graphs (SPEC.md §2) with the Neo4j loader's checks and messages, and the
CSV files of Neo4j's import tool (rust/kgbench-core/src/neo4j/).
"""

MAX_PROBLEMS: int
#: Array delimiters of the import-tool CSV, tried in order.
ARRAY_DELIMITERS: list[str]
#: The CSV column naming a row's ``[]`` / ``[""]`` list properties (read by KgbenchImport).
EMPTY_LISTS_COLUMN: str
#: Import-tool column type per SPEC.md §2 datatype.
CSV_TYPES: dict[str, str]

class ArrayDelimiterError(ValueError):
    """Every array delimiter candidate occurs in some string list element."""

class GraphCheck:
    """What validation (and CSV writing) found."""

    @property
    def problems(self) -> list[str]:
        """The first ``MAX_PROBLEMS`` problem messages, in check order (empty: valid)."""
    @property
    def total(self) -> int:
        """How many problems there are in all."""
    @property
    def entity_properties(self) -> dict[str, dict[str, str]]:
        """``{label: {property: datatype}}`` declared in the schema (no loader-owned keys)."""
    @property
    def relation_properties(self) -> dict[tuple[str, str, str], dict[str, str]]:
        """``{(label, subj_label, obj_label): {property: datatype}}`` declared in the schema."""
    @property
    def nodes_by_label(self) -> dict[str, int]:
        """Entities per label (labels with entities; a valid graph only)."""
    @property
    def relationships_by_type(self) -> dict[str, int]:
        """Relations per relation label (a valid graph only)."""
    @property
    def entities(self) -> int:
        """Number of entities (0 when ``entities`` is not a list)."""
    @property
    def relations(self) -> int:
        """Number of relations (0 when ``relations`` is not a list)."""
    @property
    def tool_args(self) -> list[str] | None:
        """The import tool's arguments when CSV files were written, else None."""
    @property
    def timings(self) -> dict[str, float]:
        """Wall seconds of the parts: ``read_s``, ``parse_s``, ``validate_s``, ``csv_s``..."""

def validate(graph: bytes | str, *, source: str | None = None) -> GraphCheck:
    """Validate a graph given as JSON bytes or a ``graph.json`` path (read natively; must be an
    object with ``schema``, ``entities``, ``relations``). Raises ``kgbench.errors.InputError``
    when the file cannot be read or is not JSON (line and column)."""

def write_import_csv(
    graph: bytes | str,
    out_dir: str,
    *,
    id_type: str = "string",
    threads: int | None = None,
    source: str | None = None,
) -> GraphCheck:
    """Validate, then (valid graphs only) write the import tool's CSV files into ``out_dir``
    and set ``tool_args``. ``id_type``: ``"string"`` (``eid:ID``) or ``"actual"`` (``:ID`` =
    entity index, ``--id-type=ACTUAL``). Byte-identical files for any ``threads``. Raises
    ``InputError``, ``ArrayDelimiterError``, ``OSError``, ``ValueError`` (bad option)."""
