"""Claims of Gursoy et al. on private r-N and k-NN classification (§5; notebook 09).

``tables``: ``rn_table``, ``conversion_table``, ``knn_table`` and ``other_table`` (the
per-fold rows of :mod:`companion.studies.gursoy`, each with a ``dataset`` column),
``chance`` (dataset to one over its number of labels) and ``dimensions`` (dataset to
its number of features).

Cross-validation folds share most of their training data, so a comparison of two
methods over folds uses Nadeau and Bengio's corrected resampled t-test
(:func:`.inference.cv_better`): a method's per-fold value is its mean over the fold's
batches, and ``n_test / n_train = 1 / (k - 1)``, the fold sizes of ``k``-fold
cross-validation. The p-values of every setting (dataset, budget, batch size, k) one
finding covers are Holm-adjusted together. A setting where both methods are at the
floor (accuracy at most 0.05) or the ceiling (at least 0.95) is left out. A value
claim is judged with the same corrected standard error. The paper gives 95% margins
for a few settings only, so its own sampling error is not used. The claims read
accuracy tables only: no privacy is spent.
"""

from __future__ import annotations

from .core import Claim, not_comparable
from .gursoy_measures import (
    HIGH_DIMENSION,
    POOR,
    _avre_at_one,
    _baseline_poor,
    _beats_privbayes,
    _comparable,
    _conversion_family,
    _loss,
    _outperforms,
    _superlinear,
)

__all__ = ["NOTEBOOK", "SOURCE", "CV", "CLAIMS"]


NOTEBOOK = "09_dp_knn_classification"
SOURCE = "Gursoy et al. 2017 (private k-NN classification)"


CV = (
    "Nadeau and Bengio's corrected resampled t-test over the folds "
    "(n_test / n_train = 1 / (k - 1)), Holm "
    "across every setting the claim covers, at 5%"
)


CLAIMS = (
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.2",
        "Figs. 7-9",
        "'the proposed solution clearly outperforms "
        "the baseline solution and PrivBayes'",
        "r-N accuracy, proposed minus baseline "
        "and proposed minus PrivBayes, per fold, "
        "at every dataset and ε, at the dataset's "
        "largest |X| (the budget divided most)",
        "better at a setting where the difference is positive with " + CV + "; agrees "
        "when better at every setting, differs at none, partly otherwise",
        _outperforms,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.2",
        "Figs. 7-9",
        "'With ε = 1.0, on the average we obtain 5-10% accuracy loss … Using the "
        "baseline solution or PrivBayes, this amount is usually doubled or tripled'",
        "per dataset at ε = 1 and the largest "
        "|X|: non-private minus proposed accuracy, "
        "and the ratio of the baseline's (PrivBayes's) loss to the proposed one's",
        "a loss in 0.05-0.10 and a ratio in 2-3 hold within two corrected standard "
        "errors over the folds (delta method for the ratio); agrees on half the "
        "datasets or more with none outside by two errors",
        _loss,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Fig. 10",
        "'If data dimensionality is not high, for realistic ε̂ = 0.5, 1.0, 2.0, the "
        "non-interactive algorithm is the better choice'",
        f"AvRE in r, interactive minus non-interactive, per fold, on the datasets of "
        f"fewer than {HIGH_DIMENSION} features at ε̂ = 0.5, 1, 2",
        "lower AvRE with " + CV + "; agrees when lower at every setting",
        lambda t: _conversion_family(t, False, "non-interactive", "interactive"),
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Fig. 10",
        "'it suffers from the curse of dimensionality especially for the "
        "non-interactive algorithm'",
        f"AvRE in r, non-interactive minus interactive, per fold, on the datasets of "
        f"{HIGH_DIMENSION} features or more at ε̂ = 0.5, 1, 2",
        "the interactive conversion's AvRE lower with " + CV,
        lambda t: _conversion_family(t, True, "interactive", "non-interactive"),
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Fig. 10",
        "'With ε̂ = 1 we achieve AvRE as low as 10–20%'",
        f"AvRE in r at ε̂ = 1 of the better conversion, per dataset of fewer than "
        f"{HIGH_DIMENSION} features (the paper names thyroid the exception)",
        "at most 20% (a lower AvRE is better than the words) within two corrected "
        "standard errors; agrees on half the datasets or more with none above by two",
        _avre_at_one,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Fig. 11",
        "'the super-linear increase in RMSE becomes apparent with ε ≤ 0.05'",
        "slope of log RMSE in k against log(1/ε̂) on each step of the sweep, per "
        "dataset and conversion (steps where the "
        "radius is the diameter at both ends left out)",
        "super-linear where the slope exceeds 1 by two corrected standard errors: it "
        "should hold on the steps reaching ε̂ ≤ 0.05 and not above (each part agrees "
        "on half its steps or more, none opposite)",
        _superlinear,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.3",
        "Figs. 10-11",
        "'Both of our algorithms are often better than PrivBayes'",
        "the conversions' AvRE against a PrivBayes copy's",
        "not judged: the conversion study runs no PrivBayes",
        lambda t: not_comparable(
            "the conversion study here runs no PrivBayes copy: "
            "Figs. 10-11 of this notebook "
            "have no PrivBayes curve"
        ),
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.4",
        "Figs. 12-14",
        "'The baseline approach performs poorly on all datasets'",
        "baseline k-NN accuracy minus chance (one over "
        "the labels), per dataset, at every ε and k",
        f"'poorly': within {POOR} of chance (this notebook's reading) within two "
        "corrected standard errors, at half the settings or more and none above by "
        "two; the datasets combined",
        _baseline_poor,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "§5.4",
        "Figs. 12-14",
        "'when ε = 1.0 or 2.0, at least one of private-INT or private-NONINT "
        "significantly outperforms PrivBayes'",
        "k-NN accuracy, private-INT and private-NONINT "
        "each minus PrivBayes, per fold, "
        "at ε = 1, 2 and every k, on the datasets given PrivBayes",
        "a setting holds when either is better with " + CV + " (both tests of every "
        "setting in one Holm family); agrees when every setting holds",
        _beats_privbayes,
    ),
    Claim(
        NOTEBOOK,
        SOURCE,
        "abstract",
        "Fig. 15",
        "'the accuracy of our proposed k-NN classifiers are at least comparable to, "
        "and in many cases better than, the other differentially private machine "
        "learning techniques'",
        "accuracy, private k-NN minus each "
        "diffprivlib classifier, per "
        "fold, at every dataset and ε",
        "with " + CV + ": 'at least comparable' agrees when ours is worse at no "
        "setting; 'in many cases better' agrees when ours is better at half the "
        "settings or more, partly at fewer, differs at none",
        _comparable,
    ),
)
