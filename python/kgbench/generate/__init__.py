"""kgbench.generate — text-to-Cypher task generation (CypherBench §4; not implemented yet).

Reserved for the generator that instantiates MATCH/RETURN templates
(``nl2cypher_generator_config.json``) on a loaded graph. Nothing is exported yet.
"""
