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
  ``q = 1 / (1 + e^(epsilon / K))`` (randomized response at ``epsilon / K``
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
=======================  ==========================================================
"""

from . import estimators, flips, projection_baseline, search, simhash
from .estimators import (
    chebyshev_radius,
    debiased_angle,
    debiased_angle_std,
    exact_delta,
    exact_output_log_probabilities,
    flipped_difference_probability,
    simulate_hamming,
)
from .flips import (
    SimRandRelease,
    check_alpha,
    flip_bits,
    flip_probability,
    sensitivity_bound,
    simrand,
)
from .projection_baseline import (
    GaussianRelease,
    gaussian_delta,
    gaussian_projection,
    gaussian_sigma_analytic,
    gaussian_sigma_classical,
    projection_sensitivity,
    squared_distance_estimate,
    unit_rows,
)
from .search import (
    exact_knn_angular,
    knn_euclidean,
    knn_hamming,
    recall_at,
    smallest_indices,
)
from .simhash import (
    angle_from_hamming,
    angles,
    check_rows,
    collision_probability,
    hamming,
    projection,
    simhash,
)

__all__ = [
    "projection",
    "simhash",
    "collision_probability",
    "hamming",
    "angle_from_hamming",
    "angles",
    "check_rows",
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
    "gaussian_delta",
    "gaussian_sigma_analytic",
    "projection_sensitivity",
    "GaussianRelease",
    "gaussian_projection",
    "squared_distance_estimate",
    "unit_rows",
    "knn_hamming",
    "knn_euclidean",
    "exact_knn_angular",
    "recall_at",
    "smallest_indices",
]
