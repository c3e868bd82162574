"""The seminar's mathematics, recomputed independently: the numbers the exercises and
the prose state, checked with mpmath or in closed form, and the statements tied to
them in the notebooks."""

import math

import mpmath as mp
import nbformat
import pytest
from scipy import optimize

from companion import catalog, student
from dpnn import mechanisms, psd, simrand

ROOT = catalog.repository_root()


def _notebook(prefix):
    (path,) = (ROOT / "notebooks").glob(f"{prefix}_*.ipynb")
    return nbformat.read(path, as_version=4)


def _exercise_text(prefix, number):
    """The statement and the solution's prose of exercise ``number`` ("12.1")."""
    nb = _notebook(prefix)
    (block,) = [b for b in student.exercises(nb) if b.number == number]
    statement = nb.cells[block.statement].source
    solution = "\n".join(
        nb.cells[i].source
        for i in block.solution
        if nb.cells[i].cell_type == "markdown"
    )
    return statement, solution


# --- Exercise 12.1: the flip probability the proof needs, and the one that works ----

EPSILON, DELTA, ALPHA_FRACTION = 4.0, 1e-5, mp.mpf(1) / 8


def _exact_delta_mp(q, k):
    """§3's exact delta of one pair at angle alpha and flip probability q, in mpmath:
    sum over the differing bits h ~ Bin(k, alpha/pi) and the j of them kept."""
    q, a, bound = mp.mpf(q), ALPHA_FRACTION, mp.e**EPSILON
    total = mp.mpf(0)
    for h in range(1, k + 1):
        weight = mp.binomial(k, h) * a**h * (1 - a) ** (k - h)
        for j in range(h + 1):
            under_u = mp.binomial(h, j) * (1 - q) ** j * q ** (h - j)
            under_v = mp.binomial(h, j) * q**j * (1 - q) ** (h - j)
            total += weight * max(under_u - bound * under_v, 0)
    return total


def _smallest_flip_mp(k, upper):
    """The smallest q with exact delta at most DELTA, by bisection in mpmath (the
    exact delta decreases in q on (0, 1/2))."""
    low, high = mp.mpf("0.01"), mp.mpf(upper)
    for _ in range(40):
        middle = (low + high) / 2
        if _exact_delta_mp(middle, k) > DELTA:
            low = middle
        else:
            high = middle
    return float(high)


# k: (the proof's q, the exact delta at 0.95 q, the smallest q that works)
FLIPS = {
    10: (0.3609, 9.17e-7, 0.3309),
    16: (0.3907, 1.60e-6, 0.3583),
    64: (0.4525, 9.76e-7, 0.4224),
}


@pytest.mark.parametrize("k", sorted(FLIPS))
def test_smaller_flip_probabilities_than_the_proofs_still_meet_delta(k):
    alpha = float(ALPHA_FRACTION) * math.pi
    proof_q = simrand.flip_probability(
        EPSILON, simrand.sensitivity_bound(k, alpha, DELTA)
    )
    q, at_95, smallest = FLIPS[k]
    assert proof_q == pytest.approx(q, abs=5e-5)
    assert float(_exact_delta_mp(0.95 * proof_q, k)) == pytest.approx(at_95, rel=5e-3)
    assert at_95 < DELTA
    assert _smallest_flip_mp(k, proof_q) == pytest.approx(smallest, abs=5e-5)

    # the notebook's way: exact_delta with sensitivity 1 sets the flip probability
    def library(v):
        return simrand.exact_delta(math.log((1 - v) / v), k, alpha, 1, EPSILON)

    assert library(0.95 * proof_q) == pytest.approx(at_95, rel=5e-3)
    root = optimize.brentq(lambda v: library(v) - DELTA, 1e-3, proof_q, xtol=1e-9)
    assert root == pytest.approx(smallest, abs=5e-5)


def test_exercise_12_1_separates_the_proof_from_the_mechanism():
    statement, solution = _exercise_text("12", "12.1")
    title = statement.splitlines()[0]
    assert "smallest that works" not in title
    assert "proof" in title and "mechanism" in title
    for _, (q, _, smallest) in FLIPS.items():
        assert f"{smallest:.3f}" in solution and f"{q:.3f}" in solution
    assert "9.2" in solution and "1.6" in solution and "9.8" in solution


# --- Exercise 10.3: the worst case is a ratio of variances ---------------------------


def test_the_worst_case_ratio_on_the_error_scale_at_height_6():
    h = 6
    geometric_sum = mp.fsum(mp.mpf(2) ** (mp.mpf(i) / 3) for i in range(h + 1))
    variance_ratio = (h + 1) ** 2 * (2 ** (h + 1) - 1) / geometric_sum**3
    library = psd.worst_case_error(psd.uniform_budget(1.0, h)) / psd.worst_case_error(
        psd.geometric_budget(1.0, h)
    )
    assert library == pytest.approx(float(variance_ratio), rel=1e-12)
    assert float(variance_ratio) == pytest.approx(1.658, abs=5e-4)
    assert float(mp.sqrt(variance_ratio)) == pytest.approx(1.287, abs=5e-4)
    leaves = (h + 1) * mp.mpf(2) ** (mp.mpf(h) / 3) / geometric_sum
    assert psd.geometric_budget(1.0, h)[0] / psd.uniform_budget(1.0, h)[
        0
    ] == pytest.approx(float(leaves), rel=1e-12)
    assert float(leaves) == pytest.approx(1.80, abs=5e-3)
    statement, solution = _exercise_text("10", "10.3")
    assert "variance" in statement and "square root" in statement
    assert "1.287" in solution and "1.80" in solution


# --- the neighbouring relation of notebook 01 -----------------------------------------


def test_the_laplace_docstring_does_not_restate_notebook_01s_relation_differently():
    doc = mechanisms.laplace.__doc__
    assert "replaced" in doc and "notebook 01" in doc
    assert "the notebooks use add/remove" not in doc
    first = _notebook("01").cells[3].source
    assert "**replaced**" in first
