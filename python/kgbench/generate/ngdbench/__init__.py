"""NGDBench benchmark construction (spec ngdbench.md §4; seed ngdbench.txt §3–4, App. B–D).

- :mod:`kgbench.generate.ngdbench.analytic` — analytic (NoAgg, Agg) tasks and Boolean pairs
  sampled around the perturbed elements of a noise log, gold on the clean graph and
  ``noise_answer`` on the noisy one.
- :mod:`kgbench.generate.ngdbench.management` — management (write) batches replayed in one
  rolled-back transaction on a disposable local database.
"""
