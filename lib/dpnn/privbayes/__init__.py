"""PrivBayes synthetic data (Zhang, Cormode, Procopiuc, Srivastava and Xiao, SIGMOD
2014), through DataSynthesizer: the comparator of Gursoy et al.'s §5 (Figs. 7-14).

PrivBayes releases a synthetic copy of a dataset from a Bayesian network learned with
the exponential mechanism (epsilon/2) and noisy conditional tables (Laplace, epsilon/2):
the copy is epsilon-DP under replacing one record (the number of records is public),
and anything trained on it is post-processing. The maintained ``DataSynthesizer``
package implements it; this package runs it on public domains, with the caller's
generator and without touching global state.

- :mod:`dpnn.privbayes.synthetic`: :func:`privbayes_synthetic` (one copy) and
  :func:`privbayes_copies` (one per budget, in parallel), with the privacy accounting;
- :mod:`dpnn.privbayes.arrays`: three of DataSynthesizer's steps on numpy arrays, the
  same values and draws.
"""

from .synthetic import count_noise_scale, privbayes_copies, privbayes_synthetic

__all__ = ["privbayes_synthetic", "privbayes_copies", "count_noise_scale"]
