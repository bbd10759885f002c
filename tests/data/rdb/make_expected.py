"""Write the expected ``kgbench rdb`` outputs that tests/test_rdb_convert.py compares against
(see NOTICE): each case's database converted with each option set of ``OPTIONS``.

Usage: ``python tests/data/rdb/make_expected.py`` (from the checkout, kgbench built). The
files were generated once, after both of kgbench's former engines (Rust and pure Python) were
checked to write the same bytes on every case; run it again only after a deliberate change of
the conversion, and review the diff.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
sys.path.insert(0, str(TESTS))

from kgbench.rdb.convert import convert_rdb, output_paths  # noqa: E402
from rdb_fixtures import CASE_IDS, OPTIONS, expected_dir, make_case  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASE_IDS:
            made = make_case(case, Path(tmp))
            if made is None:
                print(f"{case}: its database is absent, skipped")
                continue
            db, tables, db_id = made
            for opt_id, options in OPTIONS.items():
                out = Path(tmp) / "out" / case / opt_id
                report = convert_rdb(db, tables, db_id, out, **options)
                target = expected_dir(case, opt_id)
                if target.exists():
                    shutil.rmtree(target)
                target.mkdir(parents=True)
                paths = output_paths(out, db_id)
                for key in ("nt", "ontology_ttl", "ontology_json", "graph"):
                    shutil.copyfile(paths[key], target / paths[key].name)
                for key in ("seconds", "files", "database", "tables_json"):
                    report.pop(key)  # the time and the paths of this run
                (target / "report.json").write_text(
                    json.dumps(report, indent=1, ensure_ascii=False, sort_keys=True) + "\n",
                    encoding="utf-8",
                )
                print(f"{case} {opt_id}: {report['triples']} triples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
