"""kgbench.commands — the commands that dispatch on a benchmark family, above
:mod:`kgbench.families`: ``kgbench predict`` (:mod:`~kgbench.commands.predict`), ``kgbench
evaluate`` (:mod:`~kgbench.commands.evaluate`) and ``kgbench run``
(:mod:`~kgbench.commands.run`), and the option handling evaluate and run share
(:mod:`~kgbench.commands.options`). Each reaches the family's stage code only through
:func:`kgbench.families.get`."""
