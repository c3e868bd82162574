"""Every method of the companion on one page (notebook 13's synthesis): who holds the
data, who is protected from whom, the neighbouring relation, the unit of ε and the
accounting, with an empirical privacy audit of each mechanism
(:func:`companion.audit.binned_loss`) on one pair of neighbouring inputs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from companion import audit
from dpnn import baselines, cgp, local_mechanisms, lsrr, mechanisms
from dpnn.traversal import dptt
from dpnn.trees import build_tree

__all__ = [
    "SYNTHESIS_COLUMNS",
    "SYNTHESIS",
    "empirical_audits",
    "audit_table",
    "cgp_privacy_loss",
    "audit_verdict",
    "synthesis_table",
]


def _geo_audit(n, false_alarm, rng):
    """GEO on the line at ε = 1 per unit, two inputs one unit apart."""
    a, b = (
        baselines.perturb_location(np.full((n, 1), x), 1.0, rng)[:, 0]
        for x in (0.0, 1.0)
    )
    edges = np.linspace(-3, 4, 36)
    return audit.binned_loss(
        np.histogram(a, edges)[0], np.histogram(b, edges)[0], false_alarm
    )


def _dptt_audits(n, false_alarm, rng):
    """DP-TT-CMP and -DIS at step 1: the released leaf of a basic traversal of a
    16-point tree, for two queries at its opposite ends; claimed ε by basic
    composition."""
    small = build_tree(np.linspace(0.0, 1.0, 16))
    audits = {}
    for utility, sensitivity, step in (("cmp", None, 1.0), ("dis", 1.0, 1.0)):
        out = [
            dptt(small, np.full(n, x), step, utility, sensitivity, rng=rng).indices
            for x in (0.0, 1.0)
        ]
        result = dptt(small, np.zeros(1), step, utility, sensitivity, rng=rng)
        audits[f"DP-TT-{utility.upper()}"] = (
            result.accountant.epsilon(method="basic"),
            audit.binned_loss(
                *(np.bincount(o, minlength=16) for o in out), false_alarm
            ),
        )
    return audits


def _box_audits(n, false_alarm, rng):
    """SM and L-SRR (3 levels) on [0, 1]^2 at ε = 1, inputs (0.05, 0.05) and
    (0.95, 0.95), released points counted on a 5 x 5 grid."""
    box = np.array([[0.0, 1.0], [0.0, 1.0]])
    grid2 = [np.linspace(0, 1, 6)] * 2
    audits = {}
    for method, release in (
        ("SM", lambda x: local_mechanisms.square_mechanism(x, 1.0, box, rng)),
        ("L-SRR", lambda x: lsrr.lsrr(x, 1.0, box, rng, levels=3)),
    ):
        a, b = (release(np.full((n, 2), x)) for x in (0.05, 0.95))
        audits[method] = (
            1.0,
            audit.binned_loss(
                np.histogram2d(*a.T, grid2)[0],
                np.histogram2d(*b.T, grid2)[0],
                false_alarm,
            ),
        )
    return audits


def _curator_audits(n, false_alarm, rng):
    """At ε = 1: Gursoy et al.'s exponential mechanism over label counts (neighbours
    differ by one record), a PSD's Laplace count (by one point) and SimRand's
    randomized response of one hash bit."""
    counts_a, counts_b = np.array([[5.0, 3.0, 1.0]]), np.array([[4.0, 3.0, 1.0]])
    out = [
        mechanisms.exponential(np.repeat(c, n, axis=0), 1.0, 1.0, rng)
        for c in (counts_a, counts_b)
    ]
    audits = {
        "Gursoy r-N / k-NN": (
            1.0,
            audit.binned_loss(*(np.bincount(o, minlength=3) for o in out), false_alarm),
        )
    }
    out = [mechanisms.laplace(np.full(n, c), 1.0, 1.0, rng) for c in (10.0, 11.0)]
    edges = np.linspace(6, 15, 19)
    audits["PSD counts"] = (
        1.0,
        audit.binned_loss(*(np.histogram(o, edges)[0] for o in out), false_alarm),
    )
    out = [
        mechanisms.randomized_response(np.full(n, bit), 1.0, rng).astype(int)
        for bit in (True, False)
    ]
    audits["SimRand bit flips"] = (
        1.0,
        audit.binned_loss(*(np.bincount(o, minlength=2) for o in out), false_alarm),
    )
    return audits


def empirical_audits(n, false_alarm, rng) -> dict:
    """Each mechanism's empirical privacy audit (:func:`companion.audit.binned_loss`)
    from ``n`` samples per input: name -> ``(claimed ε, result)``, for GEO, DP-TT-CMP,
    DP-TT-DIS, SM, L-SRR, Gursoy et al.'s r-N / k-NN, PSD counts and SimRand's bit
    flips, in that order."""
    audits = {"GEO": (1.0, _geo_audit(n, false_alarm, rng))}
    audits |= _dptt_audits(n, false_alarm, rng)
    audits |= _box_audits(n, false_alarm, rng)
    return audits | _curator_audits(n, false_alarm, rng)


def audit_table(audits) -> pd.DataFrame:
    """One row per audit: claimed ε, estimate, lower bound and whether the lower
    bound stays within the claim."""
    return pd.DataFrame(
        {
            name: {
                "claimed epsilon": eps,
                "estimate": r.estimate,
                "lower bound": r.lower_bound,
                "passes": r.lower_bound <= eps,
            }
            for name, (eps, r) in audits.items()
        }
    ).T


def cgp_privacy_loss(n, rho, rng) -> np.ndarray:
    """``n`` samples of the privacy loss of CGP's Gaussian mechanism at ``rho``
    between inputs (0, 0) and (1, 0); its mean is ``rho``."""
    samples = cgp.gaussian_mechanism(np.zeros((n, 2)), rho, rng)
    return audit.gaussian_privacy_loss(
        samples, np.zeros(2), np.array([1.0, 0.0]), cgp.gaussian_sigma(rho)
    )


def audit_verdict(audits, name) -> str:
    """``'lower bound <= claim (estimate e)'`` of the audit ``name``, or
    ``'not audited here'``."""
    if name not in audits:
        return "not audited here"
    eps, result = audits[name]
    return f"{result.lower_bound:.2f} <= {eps:g} (estimate {result.estimate:.2f})"


SYNTHESIS_COLUMNS = [
    "method",
    "notebooks",
    "who holds the data",
    "who is protected, from whom",
    "neighbouring relation",
    "ε or ρ measured in",
    "accounting",
]

# each method of the companion, and the audit (a key of empirical_audits) that
# checks it; None where its row states its own check
SYNTHESIS = [
    (
        (
            "GEO",
            "03, 05-08",
            "each client its location",
            "client's location, from the server",
            "any two locations; loss at most ε times their distance",
            "per metre",
            "one release; ε*/D for the whole domain",
        ),
        "GEO",
    ),
    (
        (
            "DP-TT-CMP (and P, E, GS, N)",
            "05-08, 13",
            "server: the points; client: the query",
            "client's query, from the server",
            "any two queries",
            "per traversal, unitless",
            "PLD (here), Thm 2.13 (thesis), basic",
        ),
        "DP-TT-CMP",
    ),
    (
        (
            "DP-TT-DIS",
            "05-07",
            "server: the points; client: the query",
            "client's query, from the server",
            "queries within the sensitivity s",
            "per s metres",
            "Thm 2.13 / PLD of pure steps",
        ),
        "DP-TT-DIS",
    ),
    (
        (
            "SM",
            "13",
            "each client its location",
            "client's location, from the server",
            "any two locations of the box",
            "unitless (LDP)",
            "one release",
        ),
        "SM",
    ),
    (
        (
            "L-SRR",
            "13",
            "each client its location",
            "client's location, from the server",
            "any two locations of the box",
            "unitless (LDP)",
            "one release",
        ),
        "L-SRR",
    ),
    (
        (
            "Gursoy r-N / k-NN",
            "09",
            "a curator: labelled training data",
            "each training record, from the querier",
            "add or remove one record",
            "unitless",
            "ε split by the largest clique of overlapping query regions",
        ),
        "Gursoy r-N / k-NN",
    ),
    (
        (
            "PSDs (quad-, kd-, Hilbert trees)",
            "10",
            "a curator: the points",
            "each point, from whoever reads the release",
            "add or remove one point",
            "unitless",
            "sequential along a path, parallel across a level",
        ),
        "PSD counts",
    ),
    (
        (
            "CGP mechanisms (Gaussian, PNN, k-PNN, PCH)",
            "11",
            "a user: a tuple of locations",
            "the locations, from the recipient",
            "any two tuples, loss scaled by their distance squared",
            "ρ per square metre",
            "ρ adds up (zCDP-style)",
        ),
        None,
    ),
    (
        (
            "SimRand",
            "12",
            "a curator: the vectors",
            "each vector, from whoever reads the hashes",
            "two vectors at angle at most α",
            "unitless, (ε, δ)",
            "per vector: K differing bits at ε/K each",
        ),
        "SimRand bit flips",
    ),
]


def synthesis_table(audits, own_check) -> pd.DataFrame:
    """:data:`SYNTHESIS` with a last column: each row's audit verdict
    (:func:`audit_verdict`), and ``own_check`` for the row without an audit (CGP's)."""
    rows = [
        row + (audit_verdict(audits, key) if key else own_check,)
        for row, key in SYNTHESIS
    ]
    return pd.DataFrame(
        rows, columns=SYNTHESIS_COLUMNS + ["empirical audit: lower bound <= claim"]
    )
