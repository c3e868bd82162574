"""The optimal geo-indistinguishable mechanism (Bordenabe, Chatzikokolakis and
Palamidessi, CCS 2014): the mechanism of least expected quality loss on a finite set
of locations, a linear program.

- :mod:`dpnn.optimal_geo.lp`: the program's data: locations, prior, quality loss,
  the constrained pairs (every pair or a greedy spanner's edges), the constraints;
- :mod:`dpnn.optimal_geo.program`: the optimal mechanism, the spanner's privacy,
  the repair that makes a solution exactly geo-indistinguishable, the matrix;
- :mod:`dpnn.optimal_geo.columns`: the program by column generation;
- :mod:`dpnn.optimal_geo.outputs`: the program by output generation;
- :mod:`dpnn.optimal_geo.warm`: the program at several rates, warm-started.
"""

from .lp import QUALITY_LOSSES, greedy_spanner
from .program import (
    METHODS,
    OptimalMechanism,
    actual_epsilon,
    expected_loss,
    laplace_matrix,
    optimal_mechanism,
    repair,
    sample_matrix,
)

__all__ = [
    "METHODS",
    "QUALITY_LOSSES",
    "OptimalMechanism",
    "actual_epsilon",
    "expected_loss",
    "greedy_spanner",
    "laplace_matrix",
    "optimal_mechanism",
    "repair",
    "sample_matrix",
]
