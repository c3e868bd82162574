"""Claims as code: every verdict against a source computed by a stated rule.

``Claim`` and ``Verdict`` (:mod:`.core`), the rules (:mod:`.rules`), the tests for
dependent samples (:mod:`.inference`), the claims of each source by notebook
(:mod:`.thesis_distance`, :mod:`.thesis_comparison`) and the registry, judging and
ledger files (:mod:`.ledger`). Judging reads aggregate result tables only.
"""

from .core import (
    AGREES,
    DIFFERS,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    PARTLY,
    VERDICTS,
    Claim,
    Verdict,
    combine,
    not_comparable,
)
from .display import verdict_table
from .inference import (
    clustered_mean,
    corrected_resampled_ttest,
    crossed_mean,
    holm,
    matched_epsilon,
    matched_epsilon_interval,
    median_gap,
    outcome_at,
)
from .judges import (
    above,
    cv_better,
    difference_within,
    overtakes,
    ratio_within,
    value_within,
)
from .ledger import (
    REGISTRY,
    changed,
    claims_of,
    counts,
    departures,
    gather,
    judge,
    ledger_dir,
    page,
    summary,
    view,
    write_ledger,
)
from .rules import ALPHA, CEILING, FLOOR, MARGIN, Curve, curve, informative

__all__ = [
    "AGREES",
    "DIFFERS",
    "INCONCLUSIVE",
    "NOT_COMPARABLE",
    "PARTLY",
    "VERDICTS",
    "Claim",
    "Verdict",
    "combine",
    "not_comparable",
    "verdict_table",
    "clustered_mean",
    "corrected_resampled_ttest",
    "crossed_mean",
    "cv_better",
    "holm",
    "matched_epsilon",
    "matched_epsilon_interval",
    "median_gap",
    "outcome_at",
    "REGISTRY",
    "changed",
    "claims_of",
    "counts",
    "departures",
    "gather",
    "judge",
    "ledger_dir",
    "page",
    "summary",
    "view",
    "write_ledger",
    "ALPHA",
    "CEILING",
    "FLOOR",
    "MARGIN",
    "Curve",
    "above",
    "curve",
    "difference_within",
    "informative",
    "overtakes",
    "ratio_within",
    "value_within",
]
