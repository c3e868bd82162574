"""Experiment loops run in parallel, cached on disk and resumable.

Generic machinery for the studies of every source: :func:`run_cases` runs seeded cases
over processes (joblib) or a Dask cluster with an optional on-disk cache keyed by the
case and :func:`code_version`; :func:`resumable` keeps a sequential study's calls with
the generator state they leave. Neither changes a result: a cached or resumed run gives
what an uncached one gives. No privacy is spent here.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from dpnn._validation import positive_int

__all__ = ["READERS", "run_cases", "resumable", "code_version", "default_cache_dir"]


def default_cache_dir():
    """``build/cache`` of the checkout: where notebooks cache grid results."""
    from pathlib import Path

    return Path(__file__).resolve().parents[2] / "build" / "cache"


#: Folders of ``companion`` whose code reads results but never computes one: the
#: claims (but for :mod:`companion.claims.inference`, which studies call) and the
#: figures. An edit there leaves every cached result valid.
READERS = ("companion/claims/", "companion/plots/", "companion/readings/")


@lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of every source file of the ``dpnn`` and ``companion`` packages that
    can change a result (all but :data:`READERS`).

    Part of every on-disk cache key (:func:`companion.studies.thesis.run_grid`,
    :func:`run_cases`): joblib's cache notices a change of the cached function's own
    code, not of the code it calls, so without this a result computed by older library
    code could be read back after an edit.
    """
    import hashlib
    from pathlib import Path

    lib = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for package in ("dpnn", "companion"):
        for path in sorted((lib / package).rglob("*.py")):
            name = path.relative_to(lib).as_posix()
            if name.startswith(READERS) and name != "companion/claims/inference.py":
                continue
            digest.update(name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _versioned(function, version, *args):
    """``function(*args)``; ``version`` (:func:`code_version`) only enters the cache
    key."""
    return function(*args)


def run_cases(
    function,
    cases,
    *,
    n_jobs: int = 1,
    cache_dir=None,
    desc: str = "cases",
    backend: str | None = None,
    scheduler=None,
) -> list:
    """``[function(*case) for case in cases]``, over ``n_jobs`` processes (joblib), in
    the order of ``cases``.

    For the experiment loops of notebooks 09-12: each case carries its own seed, so the
    results do not depend on ``n_jobs`` or on where they run. With ``cache_dir`` every
    case's result is kept on disk, keyed by ``function``, the case and
    :func:`code_version`: an interrupted run resumes with the cases it finished, and no
    result of older code is ever read back. ``function`` must be a module-level function
    (the workers import it by name). Under the runner a progress bar is shown
    (:mod:`companion.progress`).

    ``backend=None`` (the default) is ``"dask"`` when ``$DPNN_DASK_SCHEDULER`` is set
    and ``"joblib"`` otherwise, as for :func:`companion.studies.thesis.run_grid`, so the
    notebooks' studies run on a cluster unchanged. ``backend="dask"`` sends the cases to
    a Dask distributed cluster (``distributed.Client.map``; ``n_jobs`` is then unused):
    ``scheduler`` is its address, a ``distributed.Client``, or ``None`` for
    ``$DPNN_DASK_SCHEDULER``. The workers need this package installed; with
    ``cache_dir`` they read and write the cache there (give a directory they all see).
    """
    import os

    from joblib import Memory, Parallel, delayed

    from companion.progress import progress

    if backend is None:
        backend = "dask" if os.environ.get("DPNN_DASK_SCHEDULER") else "joblib"
    if backend not in ("joblib", "dask"):
        raise ValueError(f"backend must be 'joblib' or 'dask', got {backend!r}")
    n_jobs = positive_int(n_jobs, "n_jobs") if n_jobs != -1 else -1
    cases = list(cases)
    if cache_dir is not None:
        cached = Memory(str(cache_dir), verbose=0).cache(_versioned)
        version = code_version()
        calls = [(cached, (function, version, *case)) for case in cases]
    else:
        calls = [(function, tuple(case)) for case in cases]
    if backend == "dask":
        return _run_on_dask(calls, scheduler, desc)
    results = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(f)(*args) for f, args in calls
    )
    # the bar counts finished cases, in order
    return list(progress(results, total=len(cases), desc=desc))


def _run_on_dask(calls, scheduler, desc) -> list:
    """``function(*args)`` for every ``(function, args)`` on a Dask cluster, in
    order."""
    import os

    from distributed import Client, as_completed

    from companion.progress import progress

    if scheduler is None:
        scheduler = os.environ.get("DPNN_DASK_SCHEDULER") or None
    if scheduler is None:
        raise ValueError(
            "scheduler must be a Dask scheduler address or a distributed.Client when "
            "backend='dask' (or set DPNN_DASK_SCHEDULER), got None"
        )
    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        # pure=False: two equal cases are still two tasks, as with joblib; seeds come
        # from the cases
        futures = [
            client.submit(function, *args, pure=False) for function, args in calls
        ]
        for _ in progress(
            as_completed(futures), total=len(futures), desc=f"{desc} (dask)"
        ):
            pass
        return client.gather(futures)
    finally:
        if own:
            client.close()


def resumable(function, cache_dir):
    """``function`` with its calls kept on disk, for a notebook's long sequential
    studies.

    The studies of notebooks 09, 10 and 12 share one random generator in sequence, so a
    call's result depends on the generator's state when it starts. A call of the
    returned function with exactly one ``numpy.random.Generator`` among its arguments is
    looked up under (``function``, the other arguments, that generator's state,
    :func:`code_version`). On a hit the stored result is returned and the generator is
    set to the state the call left it in; otherwise the call runs and both are stored.
    Either way the result and every later draw are what an uncached run gives, so an
    interrupted thesis run resumes where it stopped with the same outputs.
    ``cache_dir=None`` returns ``function`` itself.
    """
    import functools
    import os
    import pickle
    from pathlib import Path

    import joblib

    if cache_dir is None:
        return function
    folder = Path(cache_dir) / "resumable"

    @functools.wraps(function)
    def call(*args, **kwargs):
        generators = [
            value
            for value in (*args, *kwargs.values())
            if isinstance(value, np.random.Generator)
        ]
        if len(generators) != 1:
            raise ValueError(
                "a resumable call needs exactly one "
                "numpy Generator among its arguments, "
                f"got {len(generators)}"
            )
        rng = generators[0]
        plain = lambda value: "<rng>" if value is rng else value  # noqa: E731
        key = joblib.hash(
            (
                function.__module__,
                function.__qualname__,
                [plain(a) for a in args],
                {k: plain(v) for k, v in sorted(kwargs.items())},
                rng.bit_generator.state,
                code_version(),
            )
        )
        path = folder / f"{function.__qualname__}-{key}.pkl"
        if path.exists():
            with open(path, "rb") as handle:
                result, state = pickle.load(handle)
            rng.bit_generator.state = state
            return result
        result = function(*args, **kwargs)
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        with open(partial, "wb") as handle:
            pickle.dump((result, rng.bit_generator.state), handle)
        os.replace(partial, path)
        return result

    return call
