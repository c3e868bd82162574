"""Figure helpers and the one style of the companion.

Every helper draws on an ``ax`` it is given (or a new one), returns the Figure,
and touches no global state: no ``plt.show()``, no ``rcParams`` changes. The
style is applied once per notebook by :func:`use_style`, and figures are
written one way, by :func:`save`.

The package is split by family; every helper is importable from ``companion.plots``:

==================  ==================================================================
``style``           the seaborn theme and matplotlib style, ``save`` and ``figures_dir``
``methods``         one colour, marker and line style per method; readable text sizes
``common``          ``figure_and_axes``, ``curves``, ``theory_vs_simulation``: shared
``primitives``      mechanisms, privacy loss and planar noise (notebooks 01-03)
``dptt``            k-d trees, DP-TT paths, protocols and accuracy (notebooks 04-06)
``evaluation``      the thesis's evaluation panels (notebooks 07-08)
``classification``  Gursoy et al. (notebook 09)
``psd``             Cormode et al. (notebook 10)
``cgp``             Liang and Yi (notebook 11)
``simrand``         SimRand (notebook 12)
``followup``        after the thesis: every mechanism side by side (notebook 13)
``adversary``       what the server learns (notebook 14)
``verdicts``        the evidence behind each notebook's verdicts (07-14)
==================  ==================================================================
"""

from . import (
    adversary,
    cgp,
    classification,
    common,
    dptt,
    evaluation,
    followup,
    methods,
    primitives,
    psd,
    simrand,
    style,
    verdicts,
)
from .adversary import (
    actual_against_accounted,
    error_against_rmse,
    inference_error_panel,
)
from .cgp import (
    hull_jaccard_panels,
    hull_release_map,
    identity_error_panels,
    knn_error_panels,
    quantile_curves,
)
from .classification import overlap_picture, summary_panels
from .common import curves, figure_and_axes, theory_vs_simulation
from .dptt import (
    accuracy_curves,
    cmp_accuracy_panels,
    dis_against_geo_panels,
    kd_partition,
    labelled_scatter,
    protocol_sequence,
    protocol_with_draws,
    tree_diagram,
)
from .evaluation import (
    cmp_composed_axes,
    cmp_real_specs,
    cmp_variant_specs,
    communication_panel,
    delta_moves_panels,
    dis_figure_specs,
    panel_figures,
    pld_comparison_panels,
    variant_accuracy_panels,
    variant_panels,
    variant_walks_panels,
)
from .followup import (
    audit_bars,
    equal_mse_panels,
    equal_privacy_panels,
    schedule_panels,
)
from .methods import METHODS, method_style, min_font_size
from .primitives import (
    composition_bounds,
    ecdf_against_cdf,
    geo_query_map,
    log_ratio_bins,
    noise_cloud,
    output_histograms,
    selection_probabilities,
)
from .psd import error_bars_by_shape, psd_tree
from .simrand import (
    exact_privacy_check,
    pi_fraction,
    recall_panel_data,
    recall_panels,
)
from .style import figures_dir, legible, save, use_style
from .verdicts import verdict_evidence

__all__ = [
    "verdict_evidence",
    "use_style",
    "legible",
    "figures_dir",
    "save",
    "METHODS",
    "method_style",
    "min_font_size",
    "curves",
    "figure_and_axes",
    "theory_vs_simulation",
    "output_histograms",
    "log_ratio_bins",
    "selection_probabilities",
    "noise_cloud",
    "ecdf_against_cdf",
    "geo_query_map",
    "composition_bounds",
    "kd_partition",
    "tree_diagram",
    "accuracy_curves",
    "protocol_sequence",
    "labelled_scatter",
    "protocol_with_draws",
    "dis_against_geo_panels",
    "cmp_accuracy_panels",
    "variant_panels",
    "variant_walks_panels",
    "variant_accuracy_panels",
    "cmp_composed_axes",
    "panel_figures",
    "communication_panel",
    "delta_moves_panels",
    "cmp_variant_specs",
    "cmp_real_specs",
    "dis_figure_specs",
    "pld_comparison_panels",
    "summary_panels",
    "overlap_picture",
    "psd_tree",
    "error_bars_by_shape",
    "quantile_curves",
    "hull_release_map",
    "identity_error_panels",
    "knn_error_panels",
    "equal_privacy_panels",
    "equal_mse_panels",
    "schedule_panels",
    "audit_bars",
    "hull_jaccard_panels",
    "pi_fraction",
    "recall_panel_data",
    "recall_panels",
    "exact_privacy_check",
    "inference_error_panel",
    "actual_against_accounted",
    "error_against_rmse",
]
