"""What the server really learns: the Bayes-optimal adversary and the exact privacy
of DP-TT transcripts.

===============  ================================================================
``grid``         the domain as a grid of cells; uniform and empirical priors
``turns``        DP-TT's turn probabilities at any location; the law of a path
``likelihoods``  each mechanism's release and its likelihood on the grid
``estimate``     posterior, Bayes-optimal guess, the adversary's expected error
``transcript``   the exact privacy curve of a whole basic DP-TT transcript
``certified``    a bound on every pair's loss through DP-TT, and calibration to it
``profiles``     each mechanism's actual worst-case epsilon by distance, one delta
``search``       the search for the pair of queries that loses the most
===============  ================================================================
"""

from .certified import calibrated_epsilon, certified_epsilon, turn_loss_bounds
from .estimate import (
    LOSSES,
    AdversaryError,
    adversary_error,
    bayes_estimate,
    geometric_median,
    posterior,
    prior_only,
)
from .grid import (
    Grid,
    check_prior,
    domain_grid,
    empirical_prior,
    uniform_prior,
)
from .likelihoods import (
    DPTT,
    LSRR,
    Geo,
    SquareMechanism,
    mechanisms_at,
)
from .profiles import (
    actual_mechanisms_at,
    calibrated_geo_rate,
    geo_delta,
    geo_epsilon,
    lsrr_epsilon,
    square_epsilon,
)
from .search import worst_pair_at_distance
from .transcript import (
    ACCOUNTING_METHODS,
    accounted_epsilon,
    corner_pair,
    exact_epsilon,
    exact_epsilons,
    hockey_stick,
    pair_delta,
    pair_epsilon,
    pair_laws,
)
from .turns import (
    parents,
    path_log_law,
    path_nodes,
    schedule_of,
    stop_height_of,
    turn_log_probabilities,
)

__all__ = [
    "LOSSES",
    "posterior",
    "geometric_median",
    "bayes_estimate",
    "prior_only",
    "AdversaryError",
    "adversary_error",
    "Grid",
    "domain_grid",
    "uniform_prior",
    "empirical_prior",
    "check_prior",
    "Geo",
    "SquareMechanism",
    "LSRR",
    "DPTT",
    "mechanisms_at",
    "ACCOUNTING_METHODS",
    "hockey_stick",
    "exact_epsilon",
    "exact_epsilons",
    "pair_laws",
    "pair_epsilon",
    "pair_delta",
    "accounted_epsilon",
    "corner_pair",
    "worst_pair_at_distance",
    "turn_loss_bounds",
    "certified_epsilon",
    "calibrated_epsilon",
    "geo_delta",
    "geo_epsilon",
    "square_epsilon",
    "lsrr_epsilon",
    "calibrated_geo_rate",
    "actual_mechanisms_at",
    "schedule_of",
    "parents",
    "turn_log_probabilities",
    "path_nodes",
    "path_log_law",
    "stop_height_of",
]
