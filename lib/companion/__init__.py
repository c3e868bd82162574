"""companion: what runs, judges, draws and publishes the algorithms of :mod:`dpnn`.

The layer above the library: it imports :mod:`dpnn`, never the other way round.

- :mod:`companion.studies`: each source's evaluation as seeded, cached grids
  (:mod:`~companion.studies.thesis`, :mod:`~companion.studies.gursoy`,
  :mod:`~companion.studies.cormode`, :mod:`~companion.studies.liang_yi`,
  :mod:`~companion.studies.simrand`);
- :mod:`companion.cached_loops` and :mod:`companion.progress`: loops over cases run in
  parallel, cached on disk and resumable, and their progress bars;
- :mod:`companion.metrics` and :mod:`companion.audit`: accuracy of released answers,
  empirical privacy-loss estimates from samples;
- :mod:`companion.claims`: every verdict against a source, computed by a stated rule;
- :mod:`companion.plots` and :mod:`companion.explorers`: the figures and the
  interactive explorers;
- :mod:`companion.run` (``.venv/bin/python -m companion.run``), with
  :mod:`~companion.parameters`, :mod:`~companion.catalog` and
  :mod:`~companion.run_together`: papermill over the notebooks with a parameter
  profile;
- :mod:`companion.book`, :mod:`companion.lab`, :mod:`companion.student`: the offline
  book, the reader's JupyterLab copies, the seminar's student edition.
"""

__all__ = []
