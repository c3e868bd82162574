"""The cabspotting taxi traces, Liang and Yi's real data: reading, cleaning as in
their §5, and the Mercator projection to metres.

The files are the reader's own (CRAWDAD epfl/mobility); nothing is downloaded.
"""

from __future__ import annotations

import os

import numpy as np

from dpnn._validation import finite_array, generator, positive_finite, positive_int

__all__ = [
    "mercator",
    "clean_fixes",
    "cabspotting_files",
    "load_cabspotting",
    "CABSPOTTING_PAPER_FILTER",
    "BAY_AREA",
    "MAX_TAXI_SPEED",
    "MERCATOR_RADIUS_M",
]

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
