"""PrivBayes synthetic data (Zhang, Cormode, Procopiuc, Srivastava and Xiao, SIGMOD
2014), through DataSynthesizer: the comparator of Gursoy et al.'s §5 (Figs. 7-14).

PrivBayes releases a synthetic copy of a dataset drawn from a Bayesian network that is
learned with the exponential mechanism (epsilon/2) and filled with Laplace-noised
conditional tables (epsilon/2): the copy is epsilon-DP under replacing one record (the
number of records is public), and a classifier trained on it is post-processing. The
maintained ``DataSynthesizer`` package implements it (Ping, Stoyanovich and Howe 2017);
this package runs it on public domains, from the caller's generator, leaving the
process's global state as it was: every change to DataSynthesizer and to the global
random generators is made, and undone, by one context manager,
:func:`dpnn.privbayes.patching.datasynthesizer_patched`.

- :mod:`dpnn.privbayes.synthetic`: :func:`privbayes_synthetic` (one copy) and
  :func:`privbayes_copies` (one per budget, over several processes);
- :mod:`dpnn.privbayes.patching`: the context manager, its replacements and
  :func:`count_noise_scale`;
- :mod:`dpnn.privbayes.arrays`: three of DataSynthesizer's steps on numpy arrays, the
  same values and draws.

Research and teaching code, not for protecting real users.
"""

from .patching import count_noise_scale
from .synthetic import privbayes_copies, privbayes_synthetic

__all__ = ["privbayes_synthetic", "privbayes_copies", "count_noise_scale"]
