"""The optimal geo-indistinguishable mechanism (Bordenabe, Chatzikokolakis and
Palamidessi, CCS 2014): the mechanism of least expected quality loss on a finite set
of locations, a linear program.

- :mod:`dpnn.optimal_geo.program`: the program, the spanner, the repair that makes
  a solution exactly geo-indistinguishable, and the mechanism's matrix;
- :mod:`dpnn.optimal_geo.columns`: the program by column generation;
- :mod:`dpnn.optimal_geo.outputs`: the program by output generation;
- :mod:`dpnn.optimal_geo.warm`: the program at several rates, warm-started.
"""

from .program import (
    METHODS,
    QUALITY_LOSSES,
    OptimalMechanism,
    actual_epsilon,
    expected_loss,
    greedy_spanner,
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
