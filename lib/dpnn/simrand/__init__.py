"""Privacy-preserving similarity search: SimHash, SimRand and a random-projection
baseline.

Source: the SimRand blog post, a post on the thesis "Privacy-preserving Similarity
Search" (Edvardsen), which gives the eight steps of SimRand but no formulas. The
formulas, the neighbouring relation and the proofs here are ours and are derived in
``notebooks/12_private_similarity_search.ipynb``.

* **SimHash** (Charikar, STOC 2002): ``R`` is a k x d matrix of i.i.d. N(0, 1)
  entries; a vector x is hashed to the k bits ``[R x >= 0]``. Two vectors at
  angle theta collide on each bit independently with probability
  ``1 - theta / pi`` (Goemans and Williamson 1995, Lemma 3.2.2).
* **SimRand**: each SimHash bit is flipped independently with probability
  ``p = 1 / (1 + e^(epsilon / K))`` (randomized response at ``epsilon / K``
  per bit), where K bounds how many bits two neighbouring rows can differ in,
  except with probability at most ``delta`` over ``R``.
* **Baseline**: the random-projection-plus-Gaussian-noise release compared
  against in the post (Dhaliwal et al., arXiv:1901.09858; analysis in the style
  of Kenthapadi et al., "Privacy via the Johnson-Lindenstrauss transform",
  J. Privacy and Confidentiality 2013), calibrated to the same neighbour
  relation.

Neighbouring relation (both methods): datasets X, X' with the same number of
rows that differ in one row, the two versions u, u' of that row making an angle
of at most ``alpha``. The baseline also needs bounded norms, so it releases the
rows scaled to unit length; SimHash is scale-free and needs no such step.

The projection R is drawn independently of the data and treated as public
(it is needed to hash queries), so every guarantee below holds for the pair
(R, Z) released together.

Mechanisms sample with floating point and are for research and teaching, not
for protecting real users without a vetted library.

The package is split by idea; every public name is importable from ``dpnn.simrand``
(the vectors of scikit-learn are loaded by :func:`dpnn.data.load_vectors`):

=======================  ==========================================================
``simhash``              SimHash: projections, bits, collisions, Hamming distances,
                         angles
``flips``                SimRand: the bound K, the flip probability and the release
``estimators``           debiased angles, their spread, the exact law and delta of
                         the flips
``projection_baseline``  the Gaussian random-projection baseline
``search``               k-NN search on the releases and recall (post-processing)
``studies``              notebook 12's experiments, clustered vectors, who wins where
=======================  ==========================================================
"""

from . import simhash, flips, estimators, projection_baseline, search, studies
from dpnn.data import load_vectors
from .simhash import (
    projection,
    simhash,
    collision_probability,
    hamming,
    angle_from_hamming,
    angles,
)
from .flips import (
    check_alpha,
    sensitivity_bound,
    flip_probability,
    flip_bits,
    SimRandRelease,
    simrand,
)
from .estimators import (
    flipped_difference_probability,
    debiased_angle,
    debiased_angle_std,
    chebyshev_radius,
    simulate_hamming,
    exact_output_log_probabilities,
    exact_delta,
)
from .projection_baseline import (
    gaussian_sigma_classical,
    gaussian_delta,
    gaussian_sigma_analytic,
    projection_sensitivity,
    GaussianRelease,
    gaussian_projection,
    squared_distance_estimate,
)
from .search import knn_hamming, knn_euclidean, exact_knn_angular, recall_at
from .studies import (
    estimator_study,
    recall_table,
    clustered_vectors,
    winners,
    epsilons_won,
    wins_by_setting,
    won_at,
    largest_win,
    wins_sentence,
    pi_text,
)

__all__ = [
    "estimator_study",
    "projection",
    "simhash",
    "collision_probability",
    "hamming",
    "angle_from_hamming",
    "angles",
    "check_alpha",
    "sensitivity_bound",
    "flip_probability",
    "flip_bits",
    "SimRandRelease",
    "simrand",
    "flipped_difference_probability",
    "debiased_angle",
    "debiased_angle_std",
    "chebyshev_radius",
    "simulate_hamming",
    "exact_output_log_probabilities",
    "exact_delta",
    "gaussian_sigma_classical",
    "gaussian_sigma_analytic",
    "gaussian_delta",
    "projection_sensitivity",
    "GaussianRelease",
    "gaussian_projection",
    "squared_distance_estimate",
    "knn_hamming",
    "knn_euclidean",
    "exact_knn_angular",
    "recall_at",
    "recall_table",
    "clustered_vectors",
    "load_vectors",
    "winners",
    "epsilons_won",
    "wins_by_setting",
    "won_at",
    "largest_win",
    "wins_sentence",
    "pi_text",
]
