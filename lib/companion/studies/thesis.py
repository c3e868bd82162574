"""The thesis's evaluation (§6) as a grid of experiments run in parallel, seeded and
cached.

A *grid point* is a dict: ``dataset`` (``"uniform"``, ``"gaussian"``, a key of
``dpnn.data.GEONAMES_REGIONS``, or ``"checkins:<path>:<box>"``), ``n`` and ``d``
(synthetic only), ``utility`` (``"dis"`` / ``"cmp"``), ``variant`` (a thesis name:
``basic``, ``P4``, ``E8``, ``GS``, ``N20``, ``GS-N20``), ``epsilon`` (per step),
``sensitivity`` (DIS) and ``n_queries``. :func:`evaluate` runs DP-TT and GEO on
the same queries and returns one row; :func:`run_grid` runs a list of points
with joblib, caches rows on disk keyed by the parameters, and seeds every point
from ``(seed, its parameters)`` so results never depend on ``n_jobs``.

GEO is run by the thesis's fairness rules (§6.2): once with one neighbour
(basic); as many independent times as DP-TT releases values (P, GS); once,
releasing as many nearest neighbours as DP-TT releases values (E, N); as many
times as GS releases leaves, each with the neighbourhood (GS-N). Its privacy
level per unit of distance is ``epsilon* / sensitivity`` with ``epsilon*`` the
DP-TT composition by Theorem 2.13 at delta = 1/N (§6.1; the thesis's archived
code uses N^-1.1, hence ``delta_exponent``), split evenly over its runs so that
both methods spend the same total budget.
"""

from __future__ import annotations

import itertools
import zlib
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from companion import cached_loops, metrics
from dpnn import data
from dpnn._validation import positive_finite, positive_int
from dpnn.baselines import geo_nn
from dpnn.traversal import dptt, parse_variant
from dpnn.trees import build_tree

__all__ = [
    "grid",
    "evaluate",
    "run_grid",
    "geo_plan",
    "geo_sweep",
    "at_level",
    "DEFAULTS",
    "levels_table",
    "value_at",
    "variant_names",
]

DEFAULTS = {
    "dataset": "uniform",
    "n": 100_000,
    "d": 1,
    "utility": "dis",
    "variant": "basic",
    "epsilon": 1.0,
    "sensitivity": 1e9,
    "n_queries": 1000,
}


def grid(**axes) -> list[dict]:
    """All combinations of the given values (lists are axes, scalars are fixed), over
    :data:`DEFAULTS`."""
    names = list(axes)
    values = [v if isinstance(v, (list, tuple)) else [v] for v in axes.values()]
    return [
        {**DEFAULTS, **dict(zip(names, combo))} for combo in itertools.product(*values)
    ]


def variant_names(p_splits, e_splits, neighbourhoods, gsn_neighbourhoods) -> list:
    """The swept variants in the thesis's order: basic, P with each split count, E
    with each, GS, N with each neighbourhood size, GS-N with each."""
    return (
        ["basic"]
        + [f"P{s}" for s in p_splits]
        + [f"E{s}" for s in e_splits]
        + ["GS"]
        + [f"N{b}" for b in neighbourhoods]
        + [f"GS-N{b}" for b in gsn_neighbourhoods]
    )


def _point_seed(point: dict, seed: int) -> np.random.SeedSequence:
    key = repr(sorted((k, str(v)) for k, v in point.items())).encode()
    return np.random.SeedSequence([int(seed), zlib.crc32(key)])


@lru_cache(maxsize=4)
def _database(dataset: str, n: int, d: int, seed: int):
    """The points and their leaf-only tree (cached per process: shared by every grid
    point)."""
    rng = np.random.default_rng(
        np.random.SeedSequence([int(seed), zlib.crc32(f"{dataset}/{n}/{d}".encode())])
    )
    if dataset == "uniform":
        points = data.uniform_points(n, d, rng)
    elif dataset == "gaussian":
        points = data.gaussian_points(n, d, rng)
    elif dataset in data.GEONAMES_REGIONS:
        points = data.real_dataset(dataset)
    elif dataset.startswith("checkins:"):
        _, path, box = dataset.split(":", 2)
        points = data.load_checkins(path, box)
    else:
        raise ValueError(
            f"dataset must be uniform, gaussian, {sorted(data.GEONAMES_REGIONS)} or "
            f"checkins:<path>:<box>, got {dataset!r}"
        )
    return points, build_tree(points), cKDTree(points.reshape(len(points), -1))


def _queries(dataset, points, n_queries, rng):
    """Synthetic data: queries from the data's own law. Real data: uniform in the
    bounding box."""
    d = 1 if points.ndim == 1 else points.shape[1]
    if dataset == "uniform":
        return data.uniform_points(n_queries, d, rng)
    if dataset == "gaussian":
        return data.gaussian_points(n_queries, d, rng)
    low, high = points.min(axis=0), points.max(axis=0)
    return rng.uniform(low, high, size=(n_queries, d))


def geo_plan(variant: str, tree_height: int) -> tuple[int, int]:
    """(GEO runs, neighbours released per run) for a DP-TT variant, by the rules of
    §6.2."""
    spec = parse_variant(variant)
    leaves = {
        "basic": 1,
        "parallel": 2 ** spec["splits"],
        "early": 1,
        "greedy": tree_height + 1,
    }[spec["variant"]]
    per_run = 2 ** spec["splits"] if spec["variant"] == "early" else 1
    return leaves, max(per_run, spec["neighborhood"], 1)


def evaluate(point: dict, seed: int = 0, delta_exponent: float = 1.0) -> dict:
    """One grid point: DP-TT and (for DIS) GEO on the same queries; one row of results.

    The composed budgets are given at ``delta = N ** -delta_exponent`` (1: the
    thesis's text, §6.1; 1.1: its archived code). The draws do not depend on
    ``delta_exponent``; for DIS, GEO's budget does.
    """
    delta_exponent = positive_finite(delta_exponent, "delta_exponent")
    point = {**DEFAULTS, **point}
    rng = np.random.default_rng(_point_seed(point, seed))
    points, tree, index = _database(
        point["dataset"], int(point["n"]), int(point["d"]), seed
    )
    n = len(points)
    queries = _queries(point["dataset"], points, int(point["n_queries"]), rng)
    truth = index.query(queries.reshape(len(queries), -1), k=min(5, n))[1].reshape(
        len(queries), -1
    )
    spec = parse_variant(point["variant"])
    if spec["splits"] > tree.tree_height:
        raise ValueError(
            f"variant {point['variant']} splits more than the tree height "
            f"{tree.tree_height}"
        )
    sensitivity = float(point["sensitivity"]) if point["utility"] == "dis" else None
    result = dptt(
        tree,
        queries,
        float(point["epsilon"]),
        point["utility"],
        sensitivity,
        rng=rng,
        **spec,
    )
    delta = 1 / n if delta_exponent == 1 else 1 / float(n) ** delta_exponent
    raw, top5 = (
        metrics.raw_accuracy(result, truth[:, 0]),
        metrics.topk_accuracy(result, truth),
    )
    row = {
        **point,
        "N": n,
        "delta": delta,
        "tree_height": tree.tree_height,
        "raw": raw.mean(),
        "raw_se": metrics.standard_error(raw),
        "top5": top5.mean(),
        "top5_se": metrics.standard_error(top5),
        "released": result.released_counts.mean(),
        "em_calls": result.em_calls.mean(),
        "sent_fraction": metrics.fraction_sent(result.sent, n).mean(),
        "epsilon_thesis": result.accountant.epsilon(delta, "thesis"),
        "epsilon_br": result.accountant.epsilon(delta, "br"),
        "epsilon_pld": result.accountant.epsilon(delta, "pld"),
    }
    # GEO gets the composed budget as the thesis computes it (§6.2.1)
    if point["utility"] == "dis":
        runs, k = geo_plan(point["variant"], tree.tree_height)
        epsilon_geo = row["epsilon_thesis"] / runs / float(point["sensitivity"])
        answers = geo_nn(
            points, np.repeat(queries, runs, axis=0), epsilon_geo, min(k, n), rng
        )
        answers = answers.reshape(len(queries), runs * min(k, n))
        geo_raw, geo_top5 = (
            metrics.raw_accuracy(answers, truth[:, 0]),
            metrics.topk_accuracy(answers, truth),
        )
        row.update(
            {
                "geo_runs": runs,
                "geo_k": k,
                "geo_epsilon": epsilon_geo,
                "geo_released": runs * min(k, n),
                "geo_raw": geo_raw.mean(),
                "geo_raw_se": metrics.standard_error(geo_raw),
                "geo_top5": geo_top5.mean(),
                "geo_top5_se": metrics.standard_error(geo_top5),
            }
        )
    return row


def geo_sweep(
    dataset, n, d, epsilon_star, sensitivities, n_queries, seed=0, k: int = 1
) -> pd.DataFrame:
    """GEO alone at level ``epsilon_star`` per radius ``sensitivity`` (thesis Fig.
    6.17's top axis).

    ``k`` neighbours of the perturbed location are released (thesis Fig. 6.21:
    GEO with as many neighbours as DP-TT E releases); ``k = 1`` draws exactly
    as before the argument existed.
    """
    k = positive_int(k, "k")
    points, _, index = _database(dataset, int(n), int(d), seed)
    rows = []
    for sensitivity in sensitivities:
        rng = np.random.default_rng(
            _point_seed(
                {
                    "geo": dataset,
                    "n": n,
                    "d": d,
                    "s": sensitivity,
                    "e": epsilon_star,
                    **({"k": k} if k > 1 else {}),
                },
                seed,
            )
        )
        queries = _queries(dataset, points, int(n_queries), rng)
        truth = index.query(queries.reshape(len(queries), -1), k=5)[1]
        answers = geo_nn(
            points, queries, epsilon_star / sensitivity, min(k, len(points)), rng
        )
        raw, top5 = (
            metrics.raw_accuracy(answers, truth[:, 0]),
            metrics.topk_accuracy(answers, truth),
        )
        rows.append(
            {
                "dataset": dataset,
                "N": len(points),
                "d": d,
                "k": k,
                "sensitivity": sensitivity,
                "geo_epsilon": epsilon_star / sensitivity,
                "geo_raw": raw.mean(),
                "geo_raw_se": metrics.standard_error(raw),
                "geo_top5": top5.mean(),
                "geo_top5_se": metrics.standard_error(top5),
            }
        )
    return pd.DataFrame(rows)


def at_level(table: pd.DataFrame, x: str, value: str, level: float) -> float:
    """``value`` at ``x = level`` by linear interpolation in log10(x) between a curve's
    grid points.

    For comparing curves whose grids differ (e.g. accuracy against the composed
    budget per unit distance, epsilon*/Delta, when each variant has its own
    epsilon*). NaN outside the curve's range: no extrapolation.
    """
    level = positive_finite(level, "level")
    part = table[[x, value]].dropna().sort_values(x)
    xs = np.log10(part[x].to_numpy(dtype=float))
    if len(xs) == 0 or not xs[0] <= np.log10(level) <= xs[-1]:
        return float("nan")
    return float(np.interp(np.log10(level), xs, part[value].to_numpy(dtype=float)))


def levels_table(
    table: pd.DataFrame,
    variants,
    levels,
    *,
    x: str = "ε*/Δ",
    value: str = "top5",
    by: str = "variant",
) -> pd.DataFrame:
    """``value`` of each variant (rows) at each level of ``x`` (columns "x = level").

    Each entry is :func:`at_level` on the variant's curve (rows of ``table`` whose
    column ``by`` equals it): curves with different grids compared at equal ``x``.
    """
    variants = list(variants)
    return pd.DataFrame(
        {
            f"{x} = {level:g}": [
                at_level(table[table[by] == v], x, value, level) for v in variants
            ]
            for level in levels
        },
        index=variants,
    )


def value_at(table: pd.DataFrame, value: str, **where) -> float:
    """``value`` in the one row of ``table`` whose columns equal ``where``; NaN if none.

    ``value_at(table, "top5", d=2, variant="P8", Δ=1e5)``. More than one matching
    row is a ``ValueError``: the selection must name a single grid point.
    """
    rows = table
    for column, wanted in where.items():
        rows = rows[rows[column] == wanted]
    if len(rows) > 1:
        raise ValueError(
            f"where must select at most one row, {len(rows)} match {where}"
        )
    return float(rows[value].iloc[0]) if len(rows) else float("nan")


def _evaluate_versioned(point, seed, delta_exponent, version):
    """:func:`evaluate`; ``version`` (:func:`companion.cached_loops.code_version`) only
    enters the cache
    key."""
    return evaluate(point, seed, delta_exponent)


def run_grid(
    points: list[dict],
    *,
    seed: int = 0,
    n_jobs: int = -1,
    cache_dir=None,
    progress: bool = True,
    delta_exponent: float = 1.0,
    backend: str | None = None,
    scheduler=None,
) -> pd.DataFrame:
    """Evaluate every grid point in parallel with a progress bar; cached on disk if
    ``cache_dir``.

    ``delta_exponent`` x composes each query's budget at delta = N^-x (1 in the
    thesis's text, 1.1 in its archived code); it changes the accounting only.

    Each point is seeded from ``(seed, its parameters)``, so the table is the same for
    any ``n_jobs``, any order and any backend, and a cached row equals a fresh one.

    ``backend="joblib"`` runs ``n_jobs`` local processes. ``backend=None`` (the
    default) is ``"dask"`` when ``$DPNN_DASK_SCHEDULER`` is set and ``"joblib"``
    otherwise, so notebooks that call ``run_grid`` run on a cluster unchanged.
    ``backend="dask"`` sends the points to a Dask distributed cluster
    (``dask.distributed.Client.map``; ``n_jobs`` is then unused): ``scheduler``
    is its address (``"tcp://host:8786"``), a ``distributed.Client``, or ``None``
    for ``$DPNN_DASK_SCHEDULER``. The workers need this package installed; with
    ``cache_dir`` they read and write the joblib cache there, so give a directory
    every worker sees (a shared file system), or leave it ``None``.
    """
    import os

    from joblib import Memory, Parallel, delayed

    if backend is None:
        backend = "dask" if os.environ.get("DPNN_DASK_SCHEDULER") else "joblib"
    if backend not in ("joblib", "dask"):
        raise ValueError(f"backend must be 'joblib' or 'dask', got {backend!r}")
    if cache_dir:
        cached = Memory(str(cache_dir), verbose=0).cache(_evaluate_versioned)
        version = cached_loops.code_version()

        def function(point, seed, delta_exponent):
            return cached(point, seed, delta_exponent, version)
    else:
        function = evaluate
    if backend == "dask":
        # on the cluster the bar is the runner's (``progress`` is unused)
        cases = [(point, seed, delta_exponent) for point in points]
        return pd.DataFrame(
            cached_loops.run_cases(
                function, cases, desc="grid points", backend="dask", scheduler=scheduler
            )
        )
    # tqdm.auto warns at import in a kernel without ipywidgets; import it only for a bar
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(points, desc="grid points")
    # no bar in the notebook; under the runner, one on the terminal (companion.progress)
    else:
        from companion.progress import progress as runner_progress

        iterator = runner_progress(points, total=len(points), desc="grid points")
    rows = Parallel(n_jobs=n_jobs)(
        delayed(function)(p, seed, delta_exponent) for p in iterator
    )
    return pd.DataFrame(rows)
