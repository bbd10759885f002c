"""PIPE-Cypher's governed benchmark construction (seed pipe-cypher.txt;
``../shared/spec/pipe-cypher.md``): profile, plan, templates, reverse grounding, gates
G1-G11, the audit ledger, diversity selection, redaction and export."""
