"""Claims of the SimRand blog post (notebook 12): SimRand is (ε, δ)-differentially
private, and its distance (angle) estimate is unbiased.

``tables`` (besides those of :mod:`.similarity`): ``privacy`` (a mapping:
``epsilon``, ``delta``, ``exact_delta``, the exact δ(ε) of the release for two
neighbours at the largest angle α, computed over every number of differing hash
bits, and ``audit_lower``, the audit's one-sided lower confidence bound on the
privacy loss of the sampler's flips for two hashes differing in K bits) and
``estimator`` (:func:`companion.studies.simrand.estimator_study` rows: ``k``,
``epsilon``, the ``mean`` de-biased angle estimate over the trials, its standard
error ``se`` and the analytic standard deviation ``std_theory``) with ``theta``,
the true angle. Nothing private is read: the tables are computed from synthetic
pairs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .core import Claim, Verdict, combine, not_comparable
from .judges import exact_at_most
from .rules import band_pvalues, critical, outcomes, points, tally

__all__ = ["NOTEBOOK", "SOURCE", "NEGLIGIBLE", "CLAIMS"]

#: A table a run did not make (its claims are then not comparable).
_NONE = pd.DataFrame()

NOTEBOOK = "12_private_similarity_search"
SOURCE = "SimRand blog post (privacy-preserving similarity search)"
#: A bias is negligible when below this fraction of the estimator's standard
#: deviation.
NEGLIGIBLE = 0.05


def _private(t):
    p = t.get("privacy", {})
    if not p:
        return not_comparable("no privacy check in this run")
    return combine(
        {
            "exact δ(ε) at angle α within δ": exact_at_most(
                p["exact_delta"], p["delta"], "exact δ at ε"
            ),
            "audit's lower bound on the flips' loss within ε": exact_at_most(
                p["audit_lower"], p["epsilon"], "lower confidence bound on ε"
            ),
        }
    )


def _unbiased(t):
    table = t.get("estimator", _NONE)
    if table.empty:
        return not_comparable("no estimator study in this run")
    bias = (table["mean"] - t["theta"]).to_numpy(float)
    se = table["se"].to_numpy(float)
    bound = NEGLIGIBLE * table["std_theory"].to_numpy(float)
    hold, against = zip(
        *(band_pvalues([b], -h, h, [s]) for b, s, h in zip(bias, se, bound))
    )
    found = outcomes(np.ravel(hold), np.ravel(against))
    labels = [f"m {k:g} ε {e:g}" for k, e in zip(table["k"], table["epsilon"])]
    numbers = "; ".join(
        f"{k}: {b:+.4f} ± {s:.4f} (band ±{h:.3f})"
        for k, b, s, h in zip(labels, bias, se, bound)
    )
    why = "; ".join(
        f"{o} at {int(np.sum(found == o))} of {len(found)} settings"
        for o in ("holds", "opposite", "level")
        if np.any(found == o)
    )
    half = critical(None) * se
    evidence = points(
        [f"ε {e:g}" for e in table["epsilon"]],
        table["k"],
        bias,
        bias - half,
        bias + half,
        found,
        [(-h, h) for h in bound],
    )
    return Verdict(tally(found), why, numbers, evidence)


CLAIMS = (
    Claim(
        NOTEBOOK,
        SOURCE,
        "the post, design",
        "post: privacy",
        "'we do prove that our algorithm is (ε, δ)-differentially private'",
        "the exact δ(ε) of SimRand's release for two neighbours at angle α (notebook "
        "12 §3), and the empirical audit's lower confidence bound on the privacy "
        "loss of the sampler's bit flips for hashes differing in K bits",
        "exact computation: δ(ε) at most δ; the audit's lower bound (false-failure "
        "rate false_alarm) at most ε; agrees when both hold",
        _private,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "the post, design",
        "post: estimator",
        "'the mechanism is an unbiased estimator maintaining distances in expectation'",
        "mean de-biased angle estimate minus the true angle over estimator_trials "
        "independent releases (fresh projection and flips), at every m and ε of "
        "the estimator study",
        f"unbiased: the 90% interval of the bias inside ± {NEGLIGIBLE} times the "
        "estimator's standard deviation (equivalence test at 5%) at every setting; "
        "contradicted where it lies outside",
        _unbiased,
    ),
)
