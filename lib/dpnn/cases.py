"""Experiment loops run in parallel, cached on disk and resumable.

Generic machinery for the studies of every source: :func:`run_cases` runs seeded cases
over processes (joblib) with an optional on-disk cache keyed by the case and
:func:`code_version`; :func:`resumable` keeps a sequential study's calls with the
generator state they leave. Neither changes a result: a cached or resumed run gives
what an uncached one gives. No privacy is spent here.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from dpnn._validation import positive_int

__all__ = ["run_cases", "resumable", "code_version", "default_cache_dir"]


def default_cache_dir():
    """``build/cache`` of the checkout: where notebooks cache grid results."""
    from pathlib import Path

    return Path(__file__).resolve().parents[2] / "build" / "cache"


@lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of every source file of the ``dpnn`` package.

    Part of every on-disk cache key (:func:`dpnn.experiments.run_grid`, :func:`run_cases`): joblib's cache
    notices a change of the cached function's own code, not of the code it calls, so without
    this a result computed by older library code could be read back after an edit.
    """
    import hashlib
    from pathlib import Path

    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _versioned(function, version, *args):
    """``function(*args)``; ``version`` (:func:`code_version`) only enters the cache key."""
    return function(*args)


def run_cases(function, cases, *, n_jobs: int = 1, cache_dir=None, desc: str = "cases") -> list:
    """``[function(*case) for case in cases]``, over ``n_jobs`` processes (joblib), in the order of ``cases``.

    For the experiment loops of notebooks 09-12: each case carries its own seed, so the
    results do not depend on ``n_jobs``. With ``cache_dir`` every case's result is kept on
    disk, keyed by ``function``, the case and :func:`code_version`: an interrupted run
    resumes with the cases it finished, and no result of older code is ever read back.
    ``function`` must be a module-level function (the workers import it by name).
    Under the runner a progress bar is shown (:mod:`dpnn.progress`).
    """
    from joblib import Memory, Parallel, delayed

    from dpnn.progress import progress

    cases = list(cases)
    if cache_dir is not None:
        cached = Memory(str(cache_dir), verbose=0).cache(_versioned)
        version = code_version()
        calls = (delayed(cached)(function, version, *case) for case in cases)
    else:
        calls = (delayed(function)(*case) for case in cases)
    results = Parallel(n_jobs=positive_int(n_jobs, "n_jobs") if n_jobs != -1 else -1, return_as="generator")(calls)
    return list(progress(results, total=len(cases), desc=desc))  # the bar counts finished cases, in order


def resumable(function, cache_dir):
    """``function`` with its calls kept on disk, for a notebook's long sequential studies.

    The studies of notebooks 09, 10 and 12 share one random generator in sequence, so a
    call's result depends on the generator's state when it starts. A call of the returned
    function with exactly one ``numpy.random.Generator`` among its arguments is looked up
    under (``function``, the other arguments, that generator's state, :func:`code_version`).
    On a hit the stored result is returned and the generator is set to the state the call
    left it in; otherwise the call runs and both are stored. Either way the result and
    every later draw are what an uncached run gives, so an interrupted thesis run resumes
    where it stopped with the same outputs. ``cache_dir=None`` returns ``function`` itself.
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
        generators = [value for value in (*args, *kwargs.values()) if isinstance(value, np.random.Generator)]
        if len(generators) != 1:
            raise ValueError(f"a resumable call needs exactly one numpy Generator among its arguments, "
                             f"got {len(generators)}")
        rng = generators[0]
        plain = lambda value: "<rng>" if value is rng else value  # noqa: E731
        key = joblib.hash((function.__module__, function.__qualname__, [plain(a) for a in args],
                           {k: plain(v) for k, v in sorted(kwargs.items())}, rng.bit_generator.state,
                           code_version()))
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
