"""dpnn: the algorithms of *Differential Privacy for Nearest Neighbor Queries* and of
four related works, as a library a researcher imports.

This package holds the mechanisms and what they are built from; it never imports the
companion (:mod:`companion`: the studies, claims, figures and tools that run,
judge, draw and publish the notebooks). One idea a module or package:

- :mod:`dpnn.mechanisms`: Laplace, exponential, randomized response, planar and
  d-dimensional Laplace, Gaussian;
- :mod:`dpnn.accounting`: composition bounds, PLD accounting, the Accountant ledger;
- :mod:`dpnn.trees`: balanced k-d trees as flat arrays, NN search with backtracking;
- :mod:`dpnn.traversal`: DP-TT and its variants (thesis §5);
- :mod:`dpnn.baselines`: GEO, geo-indistinguishable nearest neighbours (thesis §6);
- :mod:`dpnn.local_mechanisms`: the follow-up's square mechanism and L-SRR;
- :mod:`dpnn.optimal_geo`: the optimal geo-indistinguishable mechanism (Bordenabe
  et al. 2014), a linear program on a grid, solved whole, by column or by output
  generation on large grids, and at several rates with warm starts;
- :mod:`dpnn.remapping`: Bayesian remapping of any location release (Chatzikokolakis
  et al. 2017);
- :mod:`dpnn.adversary`: the Bayes-optimal adversary and the exact privacy of DP-TT
  transcripts;
- :mod:`dpnn.classification`: private r-N and k-NN classification (Gursoy et al.
  2017);
- :mod:`dpnn.psd`: private spatial decompositions (Cormode et al. 2012);
- :mod:`dpnn.cgp`: concentrated geo-privacy (Liang and Yi 2023);
- :mod:`dpnn.simrand`: SimHash with randomized-response bit flips (SimRand) and its
  Gaussian baseline;
- :mod:`dpnn.privbayes`: the PrivBayes comparator of Gursoy et al.'s §5, through
  DataSynthesizer;
- :mod:`dpnn.data` and :mod:`dpnn.cabspotting`: the datasets and every loader of real
  data.
"""

__version__ = "0.1.0"

__all__ = []
