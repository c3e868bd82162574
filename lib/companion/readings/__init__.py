"""The readings of a run: paragraphs of a notebook's summary written from its tables,
so that every number in them is the run's, one module per notebook family:
:mod:`.cormode` (10), :mod:`.followup` (13), :mod:`.leakage` (14) and
:mod:`.best_mechanisms` (15). They read results and compute no privacy; what a
claim's verdict is stays with :mod:`companion.claims`."""

__all__ = []
