"""The explorers of notebooks 01-03: Laplace output densities (01), composition
bounds against k (02) and a planar Laplace cloud (03).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from companion import plots
from dpnn import accounting, mechanisms
from dpnn._validation import positive_finite

from .controls import explore, live_front_end, readout, slider

__all__ = [
    "laplace_figure",
    "explore_laplace",
    "composition_bounds",
    "composition_figure",
    "explore_composition",
    "planar_laplace_figure",
    "explore_planar_laplace",
]


def laplace_figure(epsilon: float = 1.0, sensitivity: float = 1.0, count: float = 10.0):
    """Laplace output densities on two neighbouring datasets (true answers ``count`` and
    ``count - sensitivity``) and their log-ratio, which stays within
    ``[-epsilon, epsilon]``."""
    epsilon = positive_finite(epsilon, "epsilon")
    sensitivity = positive_finite(sensitivity, "sensitivity")
    scale = sensitivity / epsilon
    neighbour = count - sensitivity
    z = np.linspace(
        neighbour - 6 * scale - sensitivity, count + 6 * scale + sensitivity, 801
    )
    density = np.exp(-np.abs(z - count) / scale) / (2 * scale)
    density_neighbour = np.exp(-np.abs(z - neighbour) / scale) / (2 * scale)
    # log p_D(z) - log p_D'(z), exactly
    loss = (np.abs(z - neighbour) - np.abs(z - count)) / scale
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    axes[0].plot(z, density, label=f"M(D), f(D) = {count:g}")
    axes[0].plot(z, density_neighbour, ls="--", label=f"M(D'), f(D') = {neighbour:g}")
    title = (
        f"Laplace, ε = {readout(epsilon, '.2f')}, Δf = {readout(sensitivity, '.1f')}"
    )
    axes[0].set(xlabel="released value", ylabel="density", title=title)
    axes[0].legend(fontsize="small")
    axes[1].plot(z, loss, color="C2", label="log p_D(z) / p_D'(z)")
    for bound in (epsilon, -epsilon):
        axes[1].axhline(bound, color="0.4", ls=":")
    axes[1].set(
        xlabel="released value", ylabel="privacy loss", title="log-ratio, within ±ε"
    )
    axes[1].set_ylim(-1.3 * epsilon, 1.3 * epsilon)
    return fig


def explore_laplace(epsilon: float = 1.0, sensitivity: float = 1.0, *, live=None):
    """Explorer (notebook 01): move epsilon and watch the two densities merge or
    separate."""
    controls = {}
    if live or (live is None and live_front_end()):
        controls = {
            "epsilon": slider("FloatLogSlider", "ε", ".2f", min=-2, max=1, step=0.05),
            "sensitivity": slider("FloatSlider", "Δf", ".1f", min=0.5, max=5, step=0.5),
        }
    return explore(
        laplace_figure, controls, {"epsilon": epsilon, "sensitivity": sensitivity}, live
    )


def composition_bounds(epsilon: float, delta: float, ks) -> dict:
    """Total epsilon after k steps of per-step ``epsilon`` by each bound
    (dpnn.accounting), per k."""
    ks = [int(k) for k in ks]
    return {
        "basic (Thm 2.9)": np.array(
            [accounting.basic_composition([epsilon] * k) for k in ks]
        ),
        "advanced (Thm 2.10)": np.array(
            [accounting.advanced_composition(epsilon, k, delta) for k in ks]
        ),
        "zCDP (ρ = kε²/2)": np.array(
            [
                accounting.dp_from_zcdp(k * accounting.zcdp_from_pure(epsilon), delta)
                for k in ks
            ]
        ),
        "bounded range (Thm 2.13), ε-BR steps": np.array(
            [accounting.br_composition([epsilon] * k, delta) for k in ks]
        ),
        "optimal for ε-DP (KOV)": np.array(
            [accounting.optimal_pure_composition_epsilon(epsilon, k, delta) for k in ks]
        ),
    }


def composition_figure(epsilon: float = 0.1, delta: float = 1e-6, k_max: int = 1000):
    """Composition bounds against the number of steps k, for per-step ``epsilon`` at
    ``delta``."""
    epsilon = positive_finite(epsilon, "epsilon")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if int(k_max) < 1:
        raise ValueError(f"k_max must be an integer >= 1, got {k_max!r}")
    ks = np.unique(np.round(np.logspace(0, np.log10(int(k_max)), 25)).astype(int))
    fig = plots.curves(
        ks,
        composition_bounds(epsilon, delta, ks),
        xlabel="compositions k",
        ylabel="total ε",
        logx=True,
        logy=True,
        marker=None,
    )
    fig.axes[0].set_title(
        f"per-step ε = {readout(epsilon, '.3f')}, δ = {readout(delta, '.0e')}, "
        f"k up to {readout(k_max, 'd')}"
    )
    fig.axes[0].legend(fontsize="x-small")
    return fig


def explore_composition(
    epsilon: float = 0.1, delta: float = 1e-6, k_max: int = 1000, *, live=None
):
    """Explorer (notebook 02): per-step epsilon and delta against the composition
    bounds."""
    controls = {}
    if live or (live is None and live_front_end()):
        controls = {
            "epsilon": slider(
                "FloatLogSlider", "ε per step", ".3f", min=-3, max=1, step=0.1
            ),
            "delta": slider("FloatLogSlider", "δ", ".0e", min=-12, max=-2, step=1),
            "k_max": slider("IntSlider", "k max", "d", min=10, max=10_000, step=10),
        }
    return explore(
        composition_figure,
        controls,
        {"epsilon": epsilon, "delta": delta, "k_max": k_max},
        live,
    )


def planar_laplace_figure(
    epsilon_star: float = 1.0, radius_m: float = 200.0, n: int = 2000, seed: int = 0
):
    """``n`` planar Laplace reports around one location at
    ``epsilon = epsilon_star / radius_m`` per metre, with the privacy radius, the mean
    displacement ``2 / epsilon`` and the 95% radius drawn as circles."""
    epsilon = positive_finite(epsilon_star, "epsilon_star") / positive_finite(
        radius_m, "radius_m"
    )
    cloud = mechanisms.planar_laplace(
        np.zeros((int(n), 2)), epsilon, np.random.default_rng(seed)
    )
    fig, ax = plt.subplots(figsize=(5.6, 6.4))
    ax.scatter(
        cloud[:, 0], cloud[:, 1], s=2, alpha=0.4, color="C0", label="reported locations"
    )
    ax.plot(0, 0, marker="*", ms=14, color="C3", ls="", label="true location")
    circles = {
        f"privacy radius r = {radius_m:.4g} m": (radius_m, "C3"),
        f"mean displacement 2/ε = {2 / epsilon:,.0f} m": (2 / epsilon, "C2"),
        f"95% within {mechanisms.planar_laplace_radius([0.95], epsilon)[0]:,.0f} m": (
            float(mechanisms.planar_laplace_radius([0.95], epsilon)[0]),
            "0.3",
        ),
    }
    angle = np.linspace(0, 2 * np.pi, 200)
    for label, (r, colour) in circles.items():
        ax.plot(r * np.cos(angle), r * np.sin(angle), color=colour, lw=1.5, label=label)
    reach = 1.05 * max(r for r, _ in circles.values())
    ax.set(
        xlim=(-reach, reach),
        ylim=(-reach, reach),
        aspect="equal",
        xlabel="x (m)",
        ylabel="y (m)",
        title=f"ε* = {readout(epsilon_star, '.2f')} within "
        f"{readout(radius_m, '.0f')} m: ε = {epsilon:.3g} per metre",
    )
    ax.legend(
        fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2
    )
    return fig


def explore_planar_laplace(
    epsilon_star: float = 1.0, radius_m: float = 200.0, *, live=None
):
    """Explorer (notebook 03): the privacy level and radius against the spread of the
    reports."""
    controls = {}
    if live or (live is None and live_front_end()):
        controls = {
            "epsilon_star": slider(
                "FloatLogSlider", "ε*", ".2f", min=-1, max=2, step=0.05
            ),
            "radius_m": slider(
                "FloatSlider", "r (m)", ".0f", min=10, max=5000, step=10
            ),
        }
    return explore(
        planar_laplace_figure,
        controls,
        {"epsilon_star": epsilon_star, "radius_m": radius_m},
        live,
    )
