"""dpnn: the shared library of the companion to *Differential Privacy for Nearest
Neighbor Queries*.

Modules and packages, one idea each (the layers are drawn in the README's Layout):

- :mod:`dpnn.cases`: experiment loops run in parallel, cached and resumable;
- :mod:`dpnn.mechanisms`: Laplace, exponential, randomized response, planar and
  d-dimensional Laplace, Gaussian;
- :mod:`dpnn.accounting`: composition bounds, PLD accounting, the Accountant ledger;
- :mod:`dpnn.audit`: empirical privacy-loss estimates from samples (used by tests and
  notebooks);
- :mod:`dpnn.trees`: balanced k-d trees as flat arrays, NN search with backtracking;
- :mod:`dpnn.traversal`: DP-TT and its variants;
- :mod:`dpnn.metrics`: accuracy and communication of released answers;
- :mod:`dpnn.experiments`: the thesis's evaluation as parallel, seeded, cached grids;
- :mod:`dpnn.classification`: private r-N and k-NN classification (Gursoy et al. 2017):
  region overlap graph, k-NN to r-N conversion, the private uniform grid, studies;
- :mod:`dpnn.psd`: private spatial decompositions (Cormode et al. 2012): quadtrees,
  kd/hybrid/Hilbert R-trees, budgets, OLS post-processing, private medians, studies;
- :mod:`dpnn.cgp`: concentrated geo-privacy (Liang and Yi 2023): Gaussian mechanism,
  SVT under GP, PNN / k-PNN, private convex hull, studies;
- :mod:`dpnn.simrand`: SimHash with randomized-response bit flips (SimRand) and its
  Gaussian baseline;
- :mod:`dpnn.baselines`: GEO, geo-indistinguishable nearest neighbours;
- :mod:`dpnn.data`: the datasets and every loader of real data;
- :mod:`dpnn.plots`: the figure style and helpers, one module per family of figures;
- :mod:`dpnn.run`: ``.venv/bin/python -m dpnn.run``, papermill over the notebooks with a
  parameter profile.
"""

__version__ = "0.1.0"
