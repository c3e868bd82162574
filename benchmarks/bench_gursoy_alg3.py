"""Time the hot spots of notebook 09 (Gursoy et al.) before and after their speed-ups,
in one run.

Writes benchmarks/results/gursoy_alg3.json. Each "before" is the code before the change,
kept in dpnn as a private reference (tests/test_fast_paths.py checks that both give the
same values); each pair is timed on the same inputs in the same run:

* Alg. 3 over a batch of |X| = 400 (digits, 64-D, and moons, 2-D) at the radius the
  notebook tunes: the MCS of every component of the region overlap graph, networkx's
  max_weight_clique on a subgraph view before, a bitset branch and bound after;
* Alg. 7's grid mass in 2-D (moons, |X| = 100, the non-interactive conversion's inner
  loop): one ``_box_mass`` per query before, all queries at once after;
* the k-NN label counts (Def. 11) of |X| = 100 instances: a full lexsort of every
  distance row before, a partition and the ties by record order after.

The one-call memo of the counts (a batch's counts are read once per method and budget)
is not timed here: the memo's lookups are bypassed (``__wrapped__``).
"""

from __future__ import annotations

import platform

import networkx as nx
import numpy as np
from _results import best_time, report

from companion.studies import gursoy
from dpnn import classification as c
from dpnn import data


def components_before(graph):
    return [
        (sorted(nodes), c.overlap._max_clique_size_networkx(graph.subgraph(nodes)))
        for nodes in nx.connected_components(graph)
    ]


def main() -> dict:
    results = {"machine": f"{platform.machine()}, {platform.python_version()}"}
    rng = np.random.default_rng(0)
    for name in ("digits", "moons"):
        points, labels = data.classification_dataset(name)
        n_train = int(0.8 * len(points))
        train, test = points[:n_train], points[n_train:]
        radius = gursoy.tuned_radius(train, test, 10)
        queries = test[rng.choice(len(test), min(400, len(test)), replace=False)]
        graph = c.region_overlap_graph(queries, np.full(len(queries), radius))
        assert components_before(graph) == c.overlap_components(graph)
        before = best_time(lambda: components_before(graph), repeats=1)
        after = best_time(lambda: c.overlap_components(graph), repeats=3)
        results |= {
            f"Alg. 3 MCS, {name} |X|={len(queries)}: networkx (s)": before,
            f"Alg. 3 MCS, {name} |X|={len(queries)}: bitset (s)": after,
            f"Alg. 3 MCS, {name}: speed-up": before / after,
        }
        knn_queries = queries[:100]
        n_labels = int(labels.max() + 1)
        old = c.knn._knn_counts_lexsort(
            train, labels[:n_train], knn_queries, 20, n_labels
        )
        assert np.array_equal(
            old,
            c.knn._knn_counts.__wrapped__(
                train, labels[:n_train], knn_queries, 20, n_labels
            ),
        )
        before = best_time(
            lambda: c.knn._knn_counts_lexsort(
                train, labels[:n_train], knn_queries, 20, n_labels
            ),
            3,
        )
        after = best_time(
            lambda: c.knn._knn_counts.__wrapped__(
                train, labels[:n_train], knn_queries, 20, n_labels
            ),
            3,
        )
        results |= {
            f"k-NN counts, {name} |X|=100 k=20: lexsort (s)": before,
            f"k-NN counts, {name} |X|=100 k=20: partition (s)": after,
            f"k-NN counts, {name}: speed-up": before / after,
        }
    points, _ = data.classification_dataset("moons")
    grid = c.private_uniform_grid(points[:800], 1.0, rng)
    density, m = grid.densities(), grid.m
    queries, radii = points[800:900], rng.uniform(0.01, 0.5, 100)
    old = np.array(
        [c.uniform_grid._box_mass(density, m, q, r) for q, r in zip(queries, radii)]
    )
    assert np.array_equal(old, c.uniform_grid._disc_masses(density, m, queries, radii))
    before = best_time(
        lambda: [
            c.uniform_grid._box_mass(density, m, q, r) for q, r in zip(queries, radii)
        ],
        3,
    )
    after = best_time(
        lambda: c.uniform_grid._disc_masses(density, m, queries, radii), 3
    )
    results |= {
        f"Alg. 7 grid mass, moons m={m} |X|=100: per query (s)": before,
        "Alg. 7 grid mass: all queries at once (s)": after,
        "Alg. 7 grid mass: speed-up": before / after,
    }
    return report("gursoy_alg3", results)


if __name__ == "__main__":
    main()
