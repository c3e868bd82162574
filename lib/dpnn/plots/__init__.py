"""Figure helpers and the one style of the companion.

Every helper draws on an ``ax`` it is given (or a new one), returns the Figure,
and touches no global state: no ``plt.show()``, no ``rcParams`` changes. The
style is applied once per notebook by :func:`use_style`, and figures are
written one way, by :func:`save`.

The package is split by family; every helper is importable from ``dpnn.plots``:

==================  ==================================================================
``style``           the seaborn theme and matplotlib style, ``save`` and ``figures_dir``
``common``          ``curves`` and ``theory_vs_simulation``, used by several chapters
``primitives``      mechanisms, privacy loss and planar noise (notebooks 01-03)
``dptt``            k-d trees, DP-TT paths, protocols and accuracy (notebooks 04-06)
``evaluation``      the thesis's evaluation panels (notebooks 07-08)
``classification``  Gursoy et al. (notebook 09)
``psd``             Cormode et al. (notebook 10)
``cgp``             Liang and Yi (notebook 11)
``simrand``         SimRand (notebook 12)
``adversary``       what the server learns (notebook 14)
==================  ==================================================================
"""

from . import (
    style,
    common,
    primitives,
    dptt,
    evaluation,
    classification,
    psd,
    cgp,
    simrand,
    adversary,
)
from .style import use_style, figures_dir, save
from .common import curves, theory_vs_simulation
from .primitives import (
    output_histograms,
    log_ratio_bins,
    selection_probabilities,
    noise_cloud,
    ecdf_against_cdf,
    geo_query_map,
)
from .dptt import (
    kd_partition,
    tree_diagram,
    accuracy_curves,
    protocol_sequence,
    labelled_scatter,
)
from .evaluation import variant_panels
from .classification import summary_panels, overlap_picture
from .psd import psd_tree, error_bars_by_shape
from .cgp import quantile_curves, hull_release_map
from .simrand import pi_fraction, recall_panel_data, recall_panels
from .adversary import (
    inference_error_panel,
    actual_against_accounted,
    error_against_rmse,
)

__all__ = [
    "inference_error_panel",
    "actual_against_accounted",
    "error_against_rmse",
    "use_style",
    "figures_dir",
    "save",
    "output_histograms",
    "log_ratio_bins",
    "selection_probabilities",
    "noise_cloud",
    "ecdf_against_cdf",
    "geo_query_map",
    "curves",
    "kd_partition",
    "tree_diagram",
    "accuracy_curves",
    "protocol_sequence",
    "labelled_scatter",
    "variant_panels",
    "theory_vs_simulation",
    "recall_panels",
]
