"""Composition bounds and a privacy ledger (thesis §2.1.3 and §5.2), by idea.

- :mod:`~dpnn.accounting.composition`: closed-form bounds for pure-DP steps (basic,
  advanced, bounded-range, the thesis's §5.2 bound) and the optimal composition of
  Kairouz, Oh and Viswanath;
- :mod:`~dpnn.accounting.zcdp`: the zCDP route (conversions to and from pure DP);
- :mod:`~dpnn.accounting.loss_distributions`: tight numerical composition through
  privacy loss distributions (PLD) from Google's ``dp_accounting``;
- :mod:`~dpnn.accounting.ledger`: the :class:`Accountant`, which collects what
  mechanisms spend and answers the composed epsilon by any of these methods;
- :mod:`~dpnn.accounting.concentrated_geo`: composition and conversions of concentrated
  geo-privacy (Liang and Yi).

Neighbouring relation: whatever the composed mechanisms share (the thesis's: one record
replaced, or for DP-TT the client's query changed). Every bound here holds for
*adaptive* composition. Every public name is importable from ``dpnn.accounting``.
"""

from .composition import (
    MAX_EXPONENT,
    advanced_composition,
    basic_composition,
    br_composition,
    check_epsilons,
    heterogeneous_advanced_composition,
    optimal_pure_composition_delta,
    optimal_pure_composition_epsilon,
    thesis_s5_2_bound,
)
from .concentrated_geo import (
    cgp_composition,
    cgp_from_gp,
    gp_epsilon_for_cgp,
    gp_from_cgp,
)
from .ledger import SPEND_KINDS, Accountant
from .loss_distributions import EVENT_KINDS, pld_delta, pld_discretisation, pld_epsilon
from .zcdp import (
    dp_from_zcdp,
    dp_from_zcdp_bun_steinke,
    zcdp_from_bounded_range,
    zcdp_from_pure,
)

__all__ = [
    "MAX_EXPONENT",
    "advanced_composition",
    "basic_composition",
    "br_composition",
    "check_epsilons",
    "heterogeneous_advanced_composition",
    "optimal_pure_composition_delta",
    "optimal_pure_composition_epsilon",
    "thesis_s5_2_bound",
    "cgp_composition",
    "cgp_from_gp",
    "gp_epsilon_for_cgp",
    "gp_from_cgp",
    "SPEND_KINDS",
    "Accountant",
    "EVENT_KINDS",
    "pld_delta",
    "pld_discretisation",
    "pld_epsilon",
    "dp_from_zcdp",
    "dp_from_zcdp_bun_steinke",
    "zcdp_from_bounded_range",
    "zcdp_from_pure",
]
