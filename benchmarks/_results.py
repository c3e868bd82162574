"""Shared output of the benchmarks: write a JSON file under benchmarks/results and print
it."""

import json
import time
from pathlib import Path

RESULTS_DIR = Path(__file__).with_name("results")


def report(name: str, results: dict) -> dict:
    """Write ``results`` to ``benchmarks/results/<name>.json`` and print one line per
    figure."""
    RESULTS_DIR.mkdir(exist_ok=True)
    (RESULTS_DIR / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n")
    for key, value in results.items():
        print(f"{key:45s} {value if isinstance(value, str) else f'{value:,.4g}'}")
    return results


def best_time(call, repeats: int = 5) -> float:
    """The shortest wall time of ``repeats`` calls of ``call()``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)
