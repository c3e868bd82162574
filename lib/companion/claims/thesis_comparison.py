"""The thesis's claims on DP-TT-CMP (§6.1, §6.2.2, §6.2.3; notebook 08).

``tables``: ``sweep`` (the notebook's grid table without the Fig. 6.1 points),
``geo_global`` (GEO with the global sensitivity at the sweep's composed budgets, with
a ``d`` column), ``communication`` (the Fig. 6.1 points with ``sent_share``) and
``n_main``. Curves are read against the composed budget epsilon* of one query (the
thesis's x-axis for CMP); how each is read is in
:mod:`companion.claims.thesis_comparison_measures`.
"""

from __future__ import annotations

import numpy as np

from .core import Claim, combine
from .judges import above, difference_within
from .sweeps import THESIS, per_metric
from .thesis_comparison_measures import (
    communication_linear,
    dimensions_alike,
    dptt_above_global_geo,
    early_best,
    maximum_at,
    metrics_comparable,
    neighbourhood_gains,
    plateau_at,
    raw_half,
    real_regions,
    smaller_database_above,
    value_at_budget,
    variant_pair,
    variants_in_order,
)

__all__ = ["NOTEBOOK", "EXISTS", "NO_BENEFIT", "CLAIMS"]

NOTEBOOK = "08_experiments_comparison"
#: The variants that spend their budget on one thread, and those that spend more.
_ONE_THREAD, _MORE_THREADS = ("E8", "basic", "N20"), ("GS", "GS-N20", "P8")


def _one_thread_best(t):
    return combine(
        {
            f"{d}-D {a} above {b}": variant_pair(t, a, b, d, above)
            for d in (1, 2)
            for a in _ONE_THREAD
            for b in _MORE_THREADS
        }
    )


def _parallel_worse(t):
    return combine(
        {
            f"{d}-D basic above {p}": variant_pair(t, "basic", p, d, above)
            for d in (1, 2)
            for p in ("P4", "P8")
        }
    )


def _claim(figure, section, quote, measured, rule, judge):
    return Claim(NOTEBOOK, THESIS, section, figure, quote, measured, rule, judge)


EXISTS = "exists across the informative range (module companion.claims.rules)"
NO_BENEFIT = "value: 'no benefit' is P8 − basic at most 0"
CLAIMS = (
    _claim(
        "6.1",
        "§6.1",
        "'the relationship between the percentage of data points and the size of "
        "the database is near linear'",
        "basic: share of the tree sent per query against N (Fig. 6.1 sizes)",
        "'near linear': R² of a straight line in N at least 0.95 (exact counts, no "
        "sampling error)",
        communication_linear,
    ),
    _claim(
        "6.17",
        "§6.2.2",
        "GEO 'performs much worse due to the fact "
        "that it is used with global sensitivity'",
        "basic DP-TT-CMP against GEO at Δ = 1e9, both run at the same ε*, 1-D and "
        "2-D, both metrics",
        "DP-TT-CMP above GEO: " + EXISTS,
        dptt_above_global_geo,
    ),
    _claim(
        "6.18",
        "§6.2.2",
        "'The 2-dimensional search does not achieve "
        "100% accuracy and plateaus at 80% accuracy'",
        "2-D basic top-5 on its plateau (the largest budgets within 0.05 of the "
        "value at the largest)",
        "value: 'at 80%' is 0.75-0.85 at every budget of the plateau",
        lambda t: plateau_at(t, "basic", "top5", 2, 0.75, 0.85),
    ),
    _claim(
        "6.18",
        "§6.2.2",
        "'The raw metric is half as accurate as the top 5 metric' (basic)",
        "2-D basic: the share of top-5 hits that are raw hits (raw / top-5, a "
        "proportion of the same queries) at each ε*",
        "value: 'half' is 0.425-0.575, across the informative range",
        lambda t: raw_half(t, "basic", 2),
    ),
    _claim(
        "6.18",
        "§6.2.2",
        "'accuracy degrades as the size of the database increases'",
        "basic top-5, smallest against largest N, on ε*",
        "the smaller database above the larger: " + EXISTS,
        smaller_database_above,
    ),
    _claim(
        "6.19",
        "§6.2.2",
        "1-D: 'parallel traversal does not provide any benefits'",
        "P8 − basic in 1-D, both metrics, on ε*",
        NO_BENEFIT,
        lambda t: variant_pair(
            t, "P8", "basic", 1, difference_within, lo=-np.inf, hi=0
        ),
    ),
    _claim(
        "6.20",
        "§6.2.2",
        "2-D: 'parallel traversal does not provide any benefits'",
        "P8 − basic in 2-D, both metrics, on ε*",
        NO_BENEFIT,
        lambda t: variant_pair(
            t, "P8", "basic", 2, difference_within, lo=-np.inf, hi=0
        ),
    ),
    _claim(
        "6.21",
        "§6.2.3",
        "1-D: 'early stopping, achieves a 95% accuracy for a database of size 100k "
        "at a privacy budget of ϵ = 50'",
        "E8 in 1-D at ε* = 50, both metrics",
        "value: 'a 95% accuracy' is at least 0.90 (accuracy is at most 1)",
        lambda t: per_metric(lambda m: value_at_budget(t, "E8", m, 1, 50, 0.9, np.inf)),
    ),
    _claim(
        "6.22",
        "§6.2.2",
        "2-D: 'stopping 8 levels early allows the traversal to achieve 100% "
        "accuracy for a final ϵ = 100'",
        "E8 in 2-D at ε* = 100, both metrics",
        "value: '100%' is at least 0.95 (accuracy is at most 1)",
        lambda t: per_metric(
            lambda m: value_at_budget(t, "E8", m, 2, 100, 0.95, np.inf)
        ),
    ),
    _claim(
        "6.21-6.22",
        "§6.2.2",
        "'the earlier the thread stops and splits, the higher the accuracy'",
        "E8, E4, E2 in 1-D and 2-D, both metrics, on ε*",
        "each earlier stop above the later: " + EXISTS,
        lambda t: variants_in_order(t, ["E8", "E4", "E2"]),
    ),
    _claim(
        "6.23",
        "§6.2.2",
        "GS: 'the 1-dimension mechanism achieves high accuracy while the "
        "2-dimension mechanism achieves a maximum of 40% top 5 accuracy'",
        "GS top-5: in 1-D on its plateau (the largest budgets within 0.05 of the "
        "value at the largest); in 2-D at every ε*",
        "value: 'high' is at least 0.9 on the plateau; 'a maximum of 40%' is at most "
        "0.45 "
        "at every ε* and 0.35-0.45 at some ε* (Holm)",
        lambda t: combine(
            {
                "1-D high": plateau_at(t, "GS", "top5", 1, 0.9, np.inf),
                "2-D at most 40%": maximum_at(t, "GS", "top5", 2, 0.35, 0.45),
            }
        ),
    ),
    _claim(
        "6.24",
        "§6.2.2",
        "1-D: 'the size of the neighborhood makes little to no difference'",
        "N20 − N5 in 1-D, both metrics, on ε*",
        "value: 'little to no difference' is within ±0.05",
        lambda t: variant_pair(t, "N20", "N5", 1, difference_within, lo=-0.05, hi=0.05),
    ),
    _claim(
        "6.25",
        "§6.2.2",
        "2-D: 'the size of the neighborhood improves the raw accuracy but has a "
        "less important impact when it comes to top 5 accuracy'",
        "N20 against N5 in 2-D, on ε*",
        "raw gain: " + EXISTS + "; top-5 change within ±0.05",
        lambda t: neighbourhood_gains(t, "N20", "N5", 2),
    ),
    _claim(
        "6.26",
        "§6.2.2",
        "1-D: 'adding neighborhoods to splitting at every level does not change "
        "the accuracy based on neighborhood size'",
        "GS-N20 − GS-N5 in 1-D, both metrics, on ε*",
        "value: 'does not change' is within ±0.05",
        lambda t: variant_pair(
            t, "GS-N20", "GS-N5", 1, difference_within, lo=-0.05, hi=0.05
        ),
    ),
    _claim(
        "6.27",
        "§6.2.2",
        "2-D: 'the size of the neighborhood improves the raw accuracy but has a "
        "less important impact when it comes to top 5 accuracy'",
        "GS-N20 against GS-N5 in 2-D, on ε*",
        "raw gain: " + EXISTS + "; top-5 change within ±0.05",
        lambda t: neighbourhood_gains(t, "GS-N20", "GS-N5", 2),
    ),
    _claim(
        "6.28",
        "§6.2.2",
        "1-D: 'early stopping provides the most benefit for the smallest privacy "
        "budget'; 'all other methods have comparable top 5 and raw accuracies'",
        "E8 against the others in 1-D (lower half of the informative range); top-5 "
        "− raw of E8, GS, N20, GS-N20 (the share of the same queries found in the "
        "top five but not first)",
        "E8 above: " + EXISTS + "; 'comparable' is within ±0.05",
        lambda t: combine(
            {
                "E best at small ε*": early_best(t, 1),
                "others' raw ≈ top-5": metrics_comparable(t, 1),
            }
        ),
    ),
    _claim(
        "6.28",
        "§6.2.2",
        "1-D: 'The raw accuracy for basic DP-TT-CMP is about half as accurate as "
        "the top 5 metric'",
        "1-D basic: the share of top-5 hits that are raw hits (raw / top-5, a "
        "proportion of the same queries) at each ε*",
        "value: 'about half' is 0.425-0.575, across the informative range",
        lambda t: raw_half(t, "basic", 1),
    ),
    _claim(
        "6.29",
        "§6.2.2",
        "2-D: 'early stopping provides the most benefit for the smallest privacy "
        "budget for both dimensions'",
        "E8 against the others in 2-D, lower half of the informative range",
        "E8 above: " + EXISTS,
        lambda t: early_best(t, 2),
    ),
    _claim(
        "6.29",
        "§6.2.2",
        "2-D: 'all other methods have comparable top 5 and raw accuracies'",
        "top-5 − raw of E8, GS, N20, GS-N20 in 2-D (the share of the same queries "
        "found in the top five but not first) at each ε*",
        "value: 'comparable' is within ±0.05, across the informative range",
        lambda t: metrics_comparable(t, 2),
    ),
    _claim(
        "6.30-6.31",
        "§6.2.2",
        "real data: 'the early stopping and neighborhood methods perform best'",
        "E8 and N20 against the others on each real region, on ε*",
        "not comparable where a compared variant releases over 5% of the region (a "
        "release-size effect); else E8 and N20 above the others: " + EXISTS,
        lambda t: real_regions(t, ("E8", "N20"), ("basic", "GS", "GS-N20", "P8")),
    ),
    _claim(
        "§6.2.3",
        "§6.2.3",
        "'Unlike with the distance metric, there is no difference between which "
        "variant works best for 1-dimension versus 2-dimensions'",
        "each compared variant's gap over basic, 1-D minus 2-D, both metrics, at "
        "each ε* both dimensions ran",
        "value: 'no difference' is a difference of gaps within ±0.05 (equivalence "
        "test), across the informative range",
        dimensions_alike,
    ),
    _claim(
        "§6.2.3",
        "§6.2.3",
        "'the methods that spend all their privacy budget on one thread (early "
        "stopping, basic, and neighborhoods) perform the best compared to the "
        "methods that spend more on overall'",
        "E8, basic, N20 against GS, GS-N20, P8, 1-D and 2-D, both metrics, on ε*",
        "each one-thread method above each other: " + EXISTS,
        _one_thread_best,
    ),
    _claim(
        "§6.2.3",
        "§6.2.3",
        "'For both metrics, the parallel traversal method performs worse than "
        "basic DP-TT' (CMP; DIS in notebook 07)",
        "basic against P4 and P8, 1-D and 2-D, both accuracies, on ε*",
        "basic above P: " + EXISTS,
        _parallel_worse,
    ),
)
