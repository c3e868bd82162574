"""Time the four studies of notebook 09 (Gursoy et al.) at the thesis profile's sizes.

Writes benchmarks/results/gursoy_studies.json (or ``--out NAME``). Each study runs on
every dataset of the thesis profile with its parameters (5 folds, 20 repeats, the
profile's budgets, test counts and k), folds over ``--jobs`` processes as in the
notebook (each with one BLAS thread), one call per study; the wall time per study and
the load average are recorded. ``--studies`` picks a subset (rn, conversion, knn,
other).

To time the code before a change in the same sitting, run this script twice with
``PYTHONPATH`` pointing at each version's ``lib`` and ``--label before|after``: the
results of both runs land in one JSON file.

The r-N and k-NN studies spend most of their time in PrivBayes (DataSynthesizer's
network search and sampling), which ``dpnn.privbayes`` runs with the same values and
draws on numpy arrays (tests/test_fast_paths.py checks it against DataSynthesizer's own
functions).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from _results import RESULTS_DIR  # noqa: E402

DATASETS = ["moons", "iris", "wine", "breast_cancer", "digits"]
THESIS = {
    "epsilons": [0.5, 1.0, 2.0],
    "test_counts": [10, 25, 50, 100, 200, 400],
    "repeats": 20,
    "conversion_budgets": [0.01, 0.05, 0.1, 0.5, 1.0, 2.0],
    "ks": [1, 5, 10, 20, 30, 50],
    "privbayes_degrees": {"moons": 2, "iris": 2, "wine": 2, "breast_cancer": 1},
    "comparison_epsilons": [0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0],
    "n_folds": 5,
    "n_test": 100,
    "conversion_k": 30,
    "comparison_k": 20,
}


def study_calls(jobs, repeats):
    """{study: function(name, points, labels, rng)} with the thesis profile's
    parameters."""
    from companion.studies import gursoy as cls

    p = THESIS

    def privbayes(name):
        return (
            {"degree": p["privbayes_degrees"][name]}
            if name in p["privbayes_degrees"]
            else None
        )

    def labels_of(labels):
        return int(labels.max() + 1)

    return {
        "rn": lambda name, x, y, rng: cls.rn_study(
            x,
            y,
            labels_of(y),
            p["epsilons"],
            p["test_counts"],
            p["n_folds"],
            repeats,
            rng,
            neighbours=10,
            privbayes=privbayes(name),
            n_jobs=jobs,
        ),
        "conversion": lambda name, x, y, rng: cls.conversion_study(
            x,
            p["conversion_budgets"],
            p["conversion_k"],
            p["n_test"],
            p["n_folds"],
            repeats,
            rng,
            n_jobs=jobs,
        ),
        "knn": lambda name, x, y, rng: cls.knn_study(
            x,
            y,
            labels_of(y),
            p["epsilons"],
            [k for k in p["ks"] if k <= 0.8 * x.shape[0]],
            p["n_test"],
            p["n_folds"],
            repeats,
            rng,
            privbayes=privbayes(name),
            n_jobs=jobs,
        ),
        "other": lambda name, x, y, rng: cls.other_classifiers_study(
            x,
            y,
            labels_of(y),
            p["comparison_epsilons"],
            p["comparison_k"],
            p["n_test"],
            p["n_folds"],
            repeats,
            rng,
            n_jobs=jobs,
        ),
    }


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", default="rn,conversion,knn,other")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=THESIS["repeats"])
    parser.add_argument("--label", default="after")
    parser.add_argument("--out", default="gursoy_studies")
    args = parser.parse_args()
    import dpnn
    from dpnn import data

    loaded = {name: data.classification_dataset(name, seed=7) for name in DATASETS}
    calls = study_calls(args.jobs, args.repeats)
    path = RESULTS_DIR / f"{args.out}.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    results["machine"] = (
        f"{platform.machine()}, {platform.python_version()}, {os.cpu_count()} cores"
    )
    for study in args.studies.split(","):
        load = os.getloadavg()[0]
        start = time.perf_counter()
        for index, name in enumerate(DATASETS):
            calls[study](name, *loaded[name], np.random.default_rng([7, index]))
        seconds = time.perf_counter() - start
        results[f"{study} study, {args.label} (s)"] = round(seconds, 1)
        results[f"{study} study, {args.label}, load average at start"] = round(load, 2)
        results[f"{study} study, {args.label}, library"] = os.path.dirname(
            dpnn.__file__
        )
        print(
            f"{study:12s} {args.label:8s} {seconds:8.1f} s  (load {load:.2f})",
            flush=True,
        )
        RESULTS_DIR.mkdir(exist_ok=True)
        path.write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    main()
