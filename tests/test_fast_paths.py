"""The fast paths of the experiment hot spots give exactly what the plain code gave.

Each fast path keeps its reference (the code before the change) as a private function;
these tests compare the two with ``==`` (same floats, same indices), not with a
tolerance, on inputs including the degenerate ones, and on the sizes the notebooks use.
DP-TT's batched traversal is compared with its outputs frozen in
``tests/data/dptt_frozen.npz.xz`` instead.
"""

import io
import lzma
from pathlib import Path

import numpy as np
import pytest

from companion.studies import gursoy
from dpnn import cgp

# --- hull_jaccard: shapely sees only the points on or near each hull ------------------


def _hull_inputs():
    rng = np.random.default_rng(22)
    path = cgp.taxi_trajectories(1, rng, min_length=20000, max_length=20000)[0]
    # many collinear hull points
    grid = np.stack(np.meshgrid(np.arange(30.0), np.arange(30.0)), -1).reshape(-1, 2)
    # every point a vertex
    circle = np.column_stack(
        [np.cos(np.arange(500) * 0.7), np.sin(np.arange(500) * 0.7)]
    )
    yield "trajectory vs CGP Basic", path, cgp.cgp_basic(path, 5e-4, rng)
    yield "trajectory vs GP Basic", path, cgp.gp_basic(path, 0.01, rng)
    yield (
        "trajectory vs few points",
        path,
        path[rng.choice(len(path), 40, replace=False)] + 100,
    )
    yield (
        "Mercator-sized coordinates",
        path + [-1.36e7, 4.5e6],
        rng.normal([-1.36e7, 4.5e6], 3e3, (300, 2)),
    )
    yield "grid", grid, grid[::7] + 0.5
    yield "grid with duplicates", np.concatenate([grid, grid]), grid + [3, 0]
    yield "points on a circle", circle, 0.999 * circle[::-1]
    yield (
        "nearly collinear",
        np.column_stack([np.arange(100.0), 1e-12 * rng.random(100)]),
        grid,
    )
    yield (
        "small sets",
        np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]]),
        rng.normal(0, 1, (15, 2)),
    )
    yield (
        "collinear (qhull fails)",
        np.column_stack([np.arange(50.0), np.arange(50.0)]),
        grid,
    )


@pytest.mark.parametrize(
    "name, points, released", list(_hull_inputs()), ids=[c[0] for c in _hull_inputs()]
)
def test_hull_jaccard_equals_shapely_on_all_points(name, points, released):
    assert cgp.hull_jaccard(points, released) == cgp.hull._hull_jaccard_all_points(
        points, released
    )
    assert cgp.hull_jaccard(released, points) == cgp.hull._hull_jaccard_all_points(
        released, points
    )


def test_hull_candidates_keep_every_hull_vertex_and_drop_the_interior():
    from shapely.geometry import MultiPoint

    rng = np.random.default_rng(3)
    points = rng.normal(0, 1000, (20000, 2))
    kept = cgp.hull._hull_candidates(points)
    vertices = np.asarray(MultiPoint(points).convex_hull.exterior.coords)
    assert {tuple(v) for v in vertices} <= {tuple(p) for p in kept}
    assert len(kept) < 100  # a Gaussian cloud of 20000 has about 20 hull vertices
    order = np.flatnonzero(np.isin(points[:, 0], kept[:, 0]))
    np.testing.assert_array_equal(points[order], kept)  # input order kept


def test_hull_jaccard_zero_area_still_an_error():
    with pytest.raises(ValueError, match="zero area"):
        cgp.hull_jaccard(np.zeros((30, 2)), np.ones((30, 2)))


# --- max_clique_size: bitset branch and bound instead of networkx's -------------------


def _overlap_graphs():
    from dpnn import classification as c
    from dpnn import data

    rng = np.random.default_rng(9)
    for name, sizes in (
        ("digits", (50, 200, 400)),
        ("moons", (100, 400)),
        ("wine", (35,)),
    ):
        points, _ = data.classification_dataset(name)
        train, test = points[: int(0.8 * len(points))], points[int(0.8 * len(points)) :]
        radius = gursoy.tuned_radius(train, test, 10)
        for n in sizes:
            chosen = test[rng.choice(len(test), min(n, len(test)), replace=False)]
            for scale in (0.5, 1.0, 2.0):
                yield (
                    f"{name} |X|={len(chosen)} r*{scale}",
                    c.region_overlap_graph(
                        chosen, np.full(len(chosen), scale * radius)
                    ),
                )


def test_overlap_components_equal_the_networkx_path_on_the_notebook_graphs():
    import networkx as nx

    from dpnn import classification as c

    for name, graph in _overlap_graphs():
        expected = [
            (sorted(nodes), c.overlap._max_clique_size_networkx(graph.subgraph(nodes)))
            for nodes in nx.connected_components(graph)
        ]
        assert c.overlap_components(graph) == expected, name
        assert c.max_clique_size(graph) == max(size for _, size in expected), name


def test_max_clique_size_on_views_self_loops_and_odd_labels():
    import networkx as nx

    from dpnn import classification as c

    graph = nx.Graph([("a", "b"), ("b", "c"), ("a", "c"), ("c", "d"), ("d", "d")])
    assert c.max_clique_size(graph) == 3
    assert c.max_clique_size(graph.subgraph(["c", "d"])) == 2
    assert c.max_clique_size(nx.complete_graph(7)) == 7
    assert c.max_clique_size(nx.empty_graph(5)) == 1
    deep = nx.complete_graph(1500)
    deep.remove_edge(0, 1)  # not complete: the search goes 1499 levels deep
    assert c.max_clique_size(deep) == 1499


# --- grid_mass in 2-D: all queries' disc-cell areas in one pass -----------------------


@pytest.mark.parametrize("m", [1, 7, 64, 200])
def test_disc_masses_equal_the_per_query_box_mass(m):
    from dpnn import classification as c

    rng = np.random.default_rng(m)
    density = np.maximum(rng.normal(1.0, 2.0, (m, m)), 0.0)
    queries = np.concatenate(
        [rng.random((100, 2)), [[0.0, 0.0], [1.0, 1.0], [0.5, 1.0], [1.0, 0.0]]]
    )
    radii = np.concatenate([rng.uniform(0, 1.5, 100) ** 3, [1e-12, 2.0, 0.3, 1 / m]])
    expected = np.array(
        [c.uniform_grid._box_mass(density, m, q, r) for q, r in zip(queries, radii)]
    )
    np.testing.assert_array_equal(
        c.uniform_grid._disc_masses(density, m, queries, radii), expected
    )
    # many blocks
    np.testing.assert_array_equal(
        c.uniform_grid._disc_masses(density, m, queries, radii, cells=50), expected
    )


def test_noninteractive_conversion_on_moons_unchanged():
    from dpnn import classification as c
    from dpnn import data

    points, _ = data.classification_dataset("moons")
    train, queries = points[:800], points[800:900]
    grid = c.private_uniform_grid(train, 1.0, np.random.default_rng(1))
    density, m = grid.densities(), grid.m
    for gamma in (1e-3 * np.sqrt(2), 0.05):
        for k in (1, 30, 200):
            radii = c.convert_noninteractive(
                grid, queries, k, gamma, np.random.default_rng(2)
            )
            masses = np.array(
                [
                    c.uniform_grid._box_mass(density, m, q, r)
                    for q, r in zip(queries, radii)
                ]
            )
            np.testing.assert_array_equal(c.grid_mass(grid, queries, radii), masses)
            below = radii - gamma / 2
            reference = np.array(
                [
                    c.uniform_grid._box_mass(density, m, q, r)
                    for q, r in zip(queries, below)
                ]
            )
            np.testing.assert_array_equal(c.grid_mass(grid, queries, below), reference)


# --- k-NN label counts: a partition and the tied records by rank instead of a full
# lexsort ---------


@pytest.mark.parametrize("name", ["moons", "iris", "wine", "breast_cancer", "digits"])
def test_knn_counts_equal_the_lexsort_path(name):
    from dpnn import classification as c
    from dpnn import data

    points, labels = data.classification_dataset(name)
    n_labels = int(labels.max() + 1)
    train, queries = points[:-60], points[-60:]
    for k in (1, 5, 30, len(train) - 1, len(train), len(train) + 5):
        np.testing.assert_array_equal(
            c.knn._knn_counts(points[:-60], labels[:-60], queries, k, n_labels),
            c.knn._knn_counts_lexsort(train, labels[:-60], queries, k, n_labels),
        )


def test_knn_counts_break_many_ties_by_record_order():
    from dpnn import classification as c

    rng = np.random.default_rng(5)
    # 16 locations: ties everywhere, duplicates too
    points = rng.integers(0, 4, (400, 2)).astype(float)
    labels = rng.integers(0, 3, 400)
    queries = np.concatenate(
        [rng.integers(0, 4, (50, 2)).astype(float), rng.random((50, 2)) * 3]
    )
    for k in (1, 2, 7, 25, 26, 100, 399):
        for chunk in (1 << 22, 900):
            np.testing.assert_array_equal(
                c.knn._knn_counts(points, labels, queries, k, 3, chunk=chunk),
                c.knn._knn_counts_lexsort(points, labels, queries, k, 3, chunk=chunk),
            )
    assert c.knn._knn_counts(points[:0], labels[:0], queries, 5, 3).sum() == 0


# --- the one-call memo of exact counts ------------------------------------------------


def test_remembered_counts_are_the_computed_ones_and_not_shared():
    from dpnn import classification as c
    from dpnn import data

    points, labels = data.classification_dataset("wine")
    queries, radii = points[:30], np.full(30, 0.4)
    first = c.rn.label_counts_unchecked(points, labels, 3, queries, radii)
    np.testing.assert_array_equal(
        first,
        c.rn.label_counts_unchecked.__wrapped__(points, labels, 3, queries, radii),
    )
    first[:] = -1  # the caller's copy, not the memory
    again = c.rn.label_counts_unchecked(
        points.copy(), labels.copy(), 3, queries.copy(), radii.copy()
    )
    np.testing.assert_array_equal(
        again,
        c.rn.label_counts_unchecked.__wrapped__(points, labels, 3, queries, radii),
    )
    moved = queries.copy()
    moved[0, 0] = np.nextafter(moved[0, 0], 2.0)  # one ulp: a different call
    assert c.inputs._same(moved, moved.copy()) and not c.inputs._same(moved, queries)
    assert not c.inputs._same(np.array([0.0]), np.array([-0.0])) and not c.inputs._same(
        np.array([1]), np.array([1.0])
    )
    np.testing.assert_array_equal(
        c.rn.label_counts_unchecked(points, labels, 3, moved, radii),
        c.rn.label_counts_unchecked.__wrapped__(points, labels, 3, moved, radii),
    )
    np.testing.assert_array_equal(
        c.knn._knn_counts(points, labels, queries, 5, 3, chunk=100),
        c.knn._knn_counts_lexsort(points, labels, queries, 5, 3, chunk=100),
    )
    components = c.overlap._batch_components(queries, radii)
    components[0][0].append(999)
    assert c.overlap._batch_components(queries, radii) == c.overlap_components(
        c.region_overlap_graph(queries, radii)
    )


@pytest.mark.parametrize(
    "budget", [{"rho": 5e-8}, {"rho": 5e-4}, {"epsilon": 0.01}, {"epsilon": 1.0}]
)
@pytest.mark.parametrize("split", [None, cgp.PCH_SCRIPTS_SPLIT])
def test_pch_error_bound_in_arrays_equals_the_loop_over_k(budget, split):
    # Remark 2's k: the array version of the bound against one pnn_bound / Basic bound
    # per k, over radii from 1 m to 1000 km; the chosen k must be the same and the
    # values equal up to rounding.
    ks = np.arange(1, 1025)
    for radius in np.geomspace(1.0, 1e6, 40):
        for n in (1000, 20000):
            fast = cgp.pch_error_bound(ks, n, radius, 0.1, split=split, **budget)
            loop = cgp.hull._pch_error_bound_loop(
                ks, n, radius, 0.1, split=split, **budget
            )
            np.testing.assert_allclose(fast, loop, rtol=1e-13)
            assert np.argmin(fast) == np.argmin(loop)
            assert (
                cgp.choose_anchor_count(
                    n, radius, 0.1, split=split, k_range=(1, 1024), **budget
                )
                == ks[np.argmin(loop)]
            )


def test_nearest_distances_in_2d_equal_numpy_norm():
    rng = np.random.default_rng(8)
    points = rng.normal(0, 1e4, size=(5000, 2))
    query = rng.normal(0, 1e4, size=2)
    np.testing.assert_array_equal(
        cgp.svt.query_distances(points, query),
        np.linalg.norm(points - query, axis=1),
    )
    points3 = rng.normal(size=(50, 3))
    np.testing.assert_array_equal(
        cgp.svt.query_distances(points3, points3[0]),
        np.linalg.norm(points3 - points3[0], axis=1),
    )


def test_grid_mass_of_a_one_cell_grid_equals_the_general_cell_lookup():
    # In high d a small budget gives a grid of one cell (m = 1); grid_mass then reads
    # that cell's density for every sample inside the domain instead of computing cell
    # indices. The general lookup, written out here, must give the same floats.
    from dpnn import classification as c

    rng = np.random.default_rng(4)
    points = rng.random((300, 10))
    grid = c.private_uniform_grid(points, 0.5, np.random.default_rng(5))
    assert grid.m == 1
    queries, radii = rng.random((40, 10)), np.linspace(0.05, 2.0, 40)
    samples = c.uniform_grid._ball_directions(10, 256, np.random.default_rng(6))
    locations = queries[:, None, :] + radii[:, None, None] * samples[None]
    inside = np.all((locations >= 0) & (locations <= 1), axis=2)
    cells = np.minimum((np.clip(locations, 0, 1) * grid.m).astype(np.intp), grid.m - 1)
    flat = cells @ (grid.m ** np.arange(9, -1, -1, dtype=np.int64))
    volume = np.pi**5 / 120 * radii**10  # the unit ball in 10-D has volume pi^5 / 5!
    general = volume * np.mean(
        np.where(inside, grid.densities().ravel()[flat], 0.0), axis=1
    )
    np.testing.assert_allclose(
        c.grid_mass(grid, queries, radii, samples=samples), general, rtol=1e-13
    )
    assert np.array_equal(
        c.grid_mass(grid, queries, radii, samples=samples) > 0, general > 0
    )


@pytest.mark.parametrize(
    "dimension, n, scale",
    [(2, 60, 0.08), (2, 200, 0.02), (8, 100, 0.9), (64, 100, 2.0), (3, 40, 1e-6)],
)
def test_batch_components_equal_the_networkx_graph_path(dimension, n, scale):
    # Alg. 3's components and MCS from the edge array against overlap_components on
    # networkx's graph: the same vertex lists in the same order and the same MCS, from
    # sparse to almost complete graphs.
    from dpnn import classification as c

    rng = np.random.default_rng(dimension * 1000 + n)
    queries = rng.random((n, dimension))
    radii = scale * (0.5 + rng.random(n))
    fast = c.overlap._batch_components(queries, radii)
    reference = c.overlap_components(c.region_overlap_graph(queries, radii))
    assert fast == reference


@pytest.mark.parametrize("name", ["digits", "breast_cancer", "wine"])
def test_one_cell_masses_by_reach_equal_evaluating_every_location(name):
    # grid_mass on a one-cell grid decides "sample inside" by the threshold radius of
    # each sample (_sample_reach) and evaluates exactly near it; against evaluating
    # every location, including radii exactly at a threshold and one unit in the last
    # place on either side.
    from dpnn import classification as c
    from dpnn import data

    points, _ = data.classification_dataset(name, seed=7)
    rng = np.random.default_rng(9)
    queries = points[rng.integers(0, len(points), 80)]
    grid = c.private_uniform_grid(points, 0.05, np.random.default_rng(1))
    assert grid.m == 1
    samples = c.uniform_grid._ball_directions(
        points.shape[1], 256, np.random.default_rng(2)
    )
    reach = c.uniform_grid._sample_reach(queries, samples)
    picked = reach[np.arange(80), rng.integers(0, 256, 80)]
    for radii in (
        np.linspace(0.01, 3.0, 80),
        picked,
        np.nextafter(picked, np.inf),
        np.nextafter(picked, 0),
    ):
        radii = np.minimum(radii, 5.0)
        fast = c.grid_mass(grid, queries, radii, samples=samples, reach=reach)
        every = c.grid_mass(grid, queries, radii, samples=samples)
        np.testing.assert_array_equal(fast, every)
    # and the whole conversion, which uses it
    k = 10
    converted = c.convert_noninteractive(
        grid, queries, k, 1e-3, np.random.default_rng(3)
    )
    assert np.all((converted > 0) & (converted <= np.sqrt(points.shape[1])))


# --- DP-TT: the batched traversal gives the outputs frozen in tests/data --------------

#: The outputs of every case below, frozen when they were computed by the first batched
#: implementation of DP-TT (one global sort per run, neighbours looked up anew): an npz
#: file compressed with xz. Run this file as a script to write them again from
#: ``dptt``, after a change that is meant to change them.
DPTT_FROZEN = Path(__file__).parent / "data" / "dptt_frozen.npz.xz"

DPTT_VARIANTS = [
    "basic",
    "P1",
    "P3",
    "E1",
    "E4",
    "GS",
    "N1",
    "N5",
    "GS-N1",
    "GS-N5",
    "E3-N4",
    "P2-N3",
]


def _variant(name):
    from dpnn.traversal import parse_variant

    if "-N" in name and not name.startswith("GS"):  # E and P with neighbourhoods (§5.4)
        head, b = name.split("-N")
        return {**parse_variant(head), "neighborhood": int(b)}
    return parse_variant(name)


def _dptt_trees():
    """Trees of the sizes and shapes the traversal meets, ties and duplicates
    included."""
    from dpnn.trees import build_tree

    rng = np.random.default_rng(31)
    yield "one point 1-D", build_tree(np.array([4.0]))
    yield "two points 2-D", build_tree(np.array([[0.0, 1.0], [1.0, 0.0]]))
    yield "7 points 1-D", build_tree(rng.uniform(0, 10, 7))
    yield "64 equal points 2-D", build_tree(np.ones((64, 2)))
    integers = rng.integers(0, 6, (300, 2)).astype(float)  # many ties on both axes
    yield "300 integer points 2-D", build_tree(integers)
    doubled = rng.uniform(0, 100, 500)
    yield "1000 points 1-D, each twice", build_tree(np.concatenate([doubled, doubled]))
    yield "1000 points 3-D", build_tree(rng.normal(0, 1e3, (1000, 3)))
    yield "4097 uniform points 2-D", build_tree(rng.uniform(0, 1e9, (4097, 2)))


def _dptt_cases(key):
    """The frozen runs of one key, ``"<utility> <variant>"`` or ``"axes <variant>"``:
    a list of ``(args, keywords)`` for ``dptt(*args, **keywords)``.

    ``"<utility> <variant>"``: every tree of :func:`_dptt_trees` the variant fits, 150
    queries (20 of them on data points: ties), three scalar budgets and one per-level
    schedule, one seed each. ``"axes <variant>"``: a hand-made tree whose axes do not
    cycle by depth (the descent then looks each thread's axis up), CMP.
    """
    group, name = key.split(" ")
    spec = _variant(name)
    if group == "axes":
        import dataclasses

        from dpnn.trees import build_tree

        rng = np.random.default_rng(8)
        tree = build_tree(rng.uniform(0, 1, (200, 2)))
        tree = dataclasses.replace(tree, axis=rng.integers(0, 2, tree.n_nodes))
        queries = rng.random((300, 2))
        return [
            ((tree, queries, 0.5, "cmp"), {"rng": np.random.default_rng(1), **spec})
        ]
    utility, cases = group, []
    sensitivity = 50.0 if utility == "dis" else None
    for _, tree in _dptt_trees():
        if spec["splits"] > tree.tree_height or spec["neighborhood"] > len(tree.points):
            continue
        rng = np.random.default_rng(7)
        span = np.ptp(tree.points, axis=0) + 1
        queries = (
            tree.points.min(axis=0)
            - span / 4
            + 1.5 * span * rng.random((150, tree.dimension))
        )
        # on data points: ties
        queries[:20] = tree.points[rng.integers(0, len(tree.points), 20)]
        schedules = [0.7, 1e-3, 40.0] + (
            [np.linspace(2.0, 0.1, tree.tree_height)] if tree.tree_height else []
        )
        for seed, epsilon in zip((0, 1, 2, 3), schedules):
            args = (
                tree,
                queries if tree.dimension > 1 else queries[:, 0],
                epsilon,
                utility,
                sensitivity,
            )
            cases.append((args, {"rng": np.random.default_rng(seed), **spec}))
    return cases


DPTT_KEYS = [f"{u} {name}" for u in ("cmp", "dis") for name in DPTT_VARIANTS] + [
    f"axes {name}" for name in ("basic", "GS", "P2")
]


DPTT_FIELDS = ("indices", "counts", "em_calls", "sent", "epsilons", "ledger")
DPTT_ARRAYS = ("indices", "offsets", "em_calls", "sent", "epsilons")


def _dptt_record(results):
    """The runs of one key as one flat array per field, run after run: each query's
    released indices as differences from the one before (the first from 0, they are
    sorted), the released counts (the offsets follow), calls, sent values, per-step
    budgets, and the ledger's basic composition."""
    indices = [np.diff(r.indices, prepend=0) for r in results]
    for deltas, r in zip(indices, results):
        deltas[r.offsets[:-1][r.released_counts > 0]] = r.indices[
            r.offsets[:-1][r.released_counts > 0]
        ]
    return {
        "indices": np.concatenate(indices),
        "counts": np.concatenate([r.released_counts for r in results]),
        "em_calls": np.concatenate([r.em_calls for r in results]),
        "sent": np.concatenate([r.sent for r in results]),
        "epsilons": np.concatenate([r.epsilons for r in results]),
        "ledger": np.array([r.accountant.epsilon(None, "basic") for r in results]),
    }


def _dptt_dtypes(results):
    """The dtype of each array of the results, the same in every run."""
    dtypes = [{str(getattr(r, f).dtype) for r in results} for f in DPTT_ARRAYS]
    assert all(len(kinds) == 1 for kinds in dtypes), dtypes
    return [kinds.pop() for kinds in dtypes]


def freeze_dptt_outputs(path=DPTT_FROZEN):
    """Write the outputs of ``dptt`` on every case of :data:`DPTT_KEYS` to ``path``.

    One array per field holds all keys, one after another (``sizes[k, f]`` entries of
    key k in field f); integers in the narrowest type that holds them, the dtypes of
    the results in ``dtypes[k]``. The npz file is compressed with xz, which finds the
    repeats zip's small window misses (N1 releases what basic does).
    """
    from dpnn.traversal import dptt

    records, dtypes = [], []
    for key in DPTT_KEYS:
        results = [dptt(*args, **keywords) for args, keywords in _dptt_cases(key)]
        records.append(_dptt_record(results))
        dtypes.append(_dptt_dtypes(results))
    arrays = {
        "sizes": np.array([[len(r[f]) for f in DPTT_FIELDS] for r in records]),
        "dtypes": np.array(dtypes),
    }
    for field in DPTT_FIELDS:
        values = np.concatenate([r[field] for r in records])
        if values.dtype.kind == "i":
            values = values.astype(np.min_scalar_type(max(values.max(), 1)))
        arrays[field] = values
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(lzma.compress(buffer.getvalue(), preset=9 | lzma.PRESET_EXTREME))


def _frozen_dptt_outputs():
    return np.load(io.BytesIO(lzma.decompress(DPTT_FROZEN.read_bytes())))


@pytest.mark.parametrize("key", DPTT_KEYS)
def test_dptt_gives_the_frozen_outputs(key):
    """Every variant, both utilities, 1-3 dimensions, four seeds, scalar and per-level
    budgets, and a tree whose axes do not cycle by depth: the same indices, offsets,
    calls, sent values, per-step budgets and ledger, bit for bit, as when frozen."""
    from dpnn.traversal import dptt

    results = [dptt(*args, **keywords) for args, keywords in _dptt_cases(key)]
    k = DPTT_KEYS.index(key)
    with _frozen_dptt_outputs() as frozen:
        ends = np.cumsum(frozen["sizes"], axis=0)
        for f, (field, got) in enumerate(_dptt_record(results).items()):
            expected = frozen[field][ends[k, f] - frozen["sizes"][k, f] : ends[k, f]]
            np.testing.assert_array_equal(got, expected, err_msg=field)
        assert _dptt_dtypes(results) == frozen["dtypes"][k].tolist()


def _assert_same_result(new, old):
    for field in ("indices", "offsets", "em_calls", "sent", "epsilons"):
        expected, got = getattr(old, field), getattr(new, field)
        assert got.dtype == expected.dtype, field
        np.testing.assert_array_equal(got, expected, err_msg=field)
    assert new.accountant.epsilon(None, "basic") == old.accountant.epsilon(
        None, "basic"
    )


def test_dptt_tables_are_reused_and_give_the_same_results_on_a_fresh_tree():
    """A tree's cached tables (neighbour rows filled by earlier calls) never change a
    result."""
    import pickle

    from dpnn.traversal import dptt
    from dpnn.trees import build_tree

    rng = np.random.default_rng(5)
    tree = build_tree(rng.uniform(0, 1, (3000, 2)))
    names = ["N5", "GS-N5", "E4", "E4-N5", "GS"]
    queries = [rng.random((100, 2)) for _ in names]

    def run(on, order):
        return {
            i: dptt(
                on,
                queries[i],
                1.0,
                "cmp",
                rng=np.random.default_rng(i),
                **_variant(names[i]),
            )
            for i in order
        }

    first = run(tree, range(len(names)))
    assert ("neighbours", 5) in tree.cache and ("stop_order", 4) in tree.cache
    # rows now filled by other queries' leaves
    warm = run(tree, reversed(range(len(names))))
    copy = pickle.loads(pickle.dumps(tree))
    assert copy.cache == {}  # derived tables are not shipped to workers
    cold = run(copy, reversed(range(len(names))))
    for i in range(len(names)):
        _assert_same_result(warm[i], first[i])
        _assert_same_result(cold[i], first[i])


# --- DP-TT: the batched traversal is the one-query reference --------------------------

#: Variants of the equality tests: every algorithm of §5.4 and their combinations.
REFERENCE_VARIANTS = ["basic", "P1", "P2", "E1", "E2", "GS", "N1", "N4", "GS-N3"]
REFERENCE_VARIANTS += ["E2-N3", "P1-N2"]


def _random_dptt_problems(seed, neighbourhoods):
    """Eight random trees (1, 2, 3, then 4-299 points; 1-3 dimensions), each with up
    to 30 distinct queries (10 drawn among the data points: ties with the splits), a
    budget per step log-uniform in [1e-3, 50] and a DIS sensitivity of 0.01 to 10
    times the data's span. Without ``neighbourhoods`` half the trees have integer
    coordinates (ties and duplicates); with them the coordinates are continuous, since
    among equidistant points the reference and cKDTree may pick different, equally
    near neighbours.
    """
    from dpnn.trees import build_tree

    rng = np.random.default_rng(seed)
    for t in range(8):
        n = (1, 2, 3)[t] if t < 3 else int(rng.integers(4, 300))
        d = int(rng.integers(1, 4))
        if neighbourhoods or t % 2:
            points = rng.normal(0, 100, (n, d))
        else:
            points = rng.integers(0, 5, (n, d)).astype(float)
        span = np.ptp(points, axis=0) + 1
        queries = np.concatenate(
            [
                points.min(axis=0) - span / 4 + 1.5 * span * rng.random((20, d)),
                points[rng.integers(0, n, 10)],
            ]
        )
        _, first = np.unique(queries, axis=0, return_index=True)
        queries = queries[np.sort(first)]
        yield (
            build_tree(points[:, 0] if d == 1 else points),
            queries[:, 0] if d == 1 else queries,
            float(10 ** rng.uniform(-3, np.log10(50))),
            float(span.max() * 10 ** rng.uniform(-2, 1)),
        )


def _fits(spec, tree):
    """Whether the tree has the levels and points the variant asks for."""
    enough_levels = spec["splits"] <= tree.tree_height
    return enough_levels and spec["neighborhood"] <= len(tree.points)


@pytest.mark.parametrize("utility", ["cmp", "dis"])
@pytest.mark.parametrize("name", ["basic", "E1", "E2", "N1", "N4", "E2-N3"])
def test_dptt_on_one_query_is_the_reference_for_the_same_seed(name, utility):
    """Variants with one thread per query (basic, E, N): run on one query, ``dptt``
    draws one uniform per level as the reference does, in the same order, and both
    turn right iff it is below the same probability (DIS: ``exponential_binary``'s
    ``expit(epsilon (u_R - u_L) / (2 sensitivity))``, the distances summed axis after
    axis; CMP: randomized response at ``epsilon / 2`` on the side of the split the
    query is on). So for the same seed they release the same points after the same
    calls, bit for bit."""
    from dpnn.traversal import dptt, dptt_reference

    spec = _variant(name)
    for p, (tree, queries, epsilon, span) in enumerate(
        _random_dptt_problems(
            100 + REFERENCE_VARIANTS.index(name), spec["neighborhood"] > 0
        )
    ):
        if not _fits(spec, tree):
            continue
        sensitivity = span if utility == "dis" else None
        for i, query in enumerate(queries):
            seed = [p, i]
            fast = dptt(
                tree,
                queries[i : i + 1],
                epsilon,
                utility,
                sensitivity,
                rng=np.random.default_rng(seed),
                **spec,
            )
            found, calls = dptt_reference(
                tree,
                query,
                epsilon,
                utility,
                sensitivity,
                rng=np.random.default_rng(seed),
                **spec,
            )
            np.testing.assert_array_equal(fast.indices, found, err_msg=f"{p} {i}")
            assert fast.em_calls[0] == calls, (p, i)


class _Recorder(np.random.Generator):
    """A seeded generator that keeps every uniform it draws, in order."""

    def __init__(self, seed):
        super().__init__(np.random.PCG64(seed))
        self.drawn = []

    def random(self, size=None):
        out = super().random(size)
        self.drawn.extend(np.atleast_1d(out))
        return out


class _Given:
    """Stands for the generator in ``dptt``'s turns: returns given uniforms."""

    def __init__(self, uniforms):
        self.uniforms = np.asarray(uniforms, dtype=float)

    def random(self, size):
        assert size == len(self.uniforms)
        return self.uniforms


@pytest.mark.parametrize("utility", ["cmp", "dis"])
@pytest.mark.parametrize("name", REFERENCE_VARIANTS)
def test_dptt_is_the_reference_given_the_same_uniform_at_each_node(
    name, utility, monkeypatch
):
    """Every variant, a batch of queries: each turn of either implementation is decided
    by one uniform number; here both get the same one at the same (query, node).

    A query's traversal meets every node at most once (P's and GS's threads walk
    disjoint subtrees), so the reference is run first with a seeded generator and the
    uniform it drew at each node is recorded; then ``dptt``'s turns
    (``walk._turns``, the only place it draws) receive, for each walking thread, the
    uniform recorded at its query and node, and nothing else changes in it. The two
    must then release the same points with the same calls, and ``dptt`` must turn at
    exactly the nodes the reference turned at (every recorded uniform used, none
    missing). Both draw their turns from independent uniforms, one per node visited,
    in whatever order; so equal outputs under this coupling for any uniforms mean
    equal laws, and the random seeds sample it. A shared seed alone would not couple
    them for P and GS: the reference draws in depth-first order, ``dptt`` level by
    level for all threads at once (for one query of basic, E and N it does: the test
    above). Turns beyond the floor of :func:`dpnn.exact_sampling.turns_beyond_floor`
    are drawn exactly from further integers in both, by that one function (its law is
    tested in test_float_laws), and the reference's randomized response beyond its
    safe budget by :func:`dpnn.exact_sampling.weighted_pair`; here both switches are
    lifted so that every turn is the float comparison the coupling needs.
    """
    from dpnn import exact_sampling, float_laws
    from dpnn.traversal import dptt, dptt_reference, walk

    monkeypatch.setattr(exact_sampling, "TURN_Z_FLOOR", np.inf)
    monkeypatch.setattr(walk, "_Z_FLOOR", np.inf)
    monkeypatch.setattr(float_laws, "LOSS_SLACK", np.inf)
    spec = _variant(name)
    turns = walk._turns
    for p, (tree, queries, epsilon, span) in enumerate(
        _random_dptt_problems(
            200 + REFERENCE_VARIANTS.index(name), spec["neighborhood"] > 0
        )
    ):
        if not _fits(spec, tree):
            continue
        sensitivity = span if utility == "dis" else None
        rows = queries.reshape(len(queries), -1)
        uniforms, expected = {}, []
        for i, query in enumerate(queries):
            trace, recorder = [], _Recorder([p, i])
            expected.append(
                dptt_reference(
                    tree,
                    query,
                    epsilon,
                    utility,
                    sensitivity,
                    rng=recorder,
                    trace=trace,
                    **spec,
                )
            )
            nodes = [s["node"] for s in trace if s["action"] == "em"]
            assert len(nodes) == len(recorder.drawn) == len(set(nodes))
            uniforms.update({(i, n): u for n, u in zip(nodes, recorder.drawn)})
        query_of = {tuple(row): i for i, row in enumerate(rows)}
        used = set()

        def keyed_turns(
            tree, values, nodes, child, level, scale, utility, rng, stopped
        ):
            walking = slice(None) if stopped is None else ~stopped
            keys = [
                (query_of[tuple(row)], int(node))
                for row, node in zip(np.column_stack(values)[walking], nodes[walking])
            ]
            missing = [k for k in keys if k not in uniforms]
            assert not missing, f"dptt turns where the reference did not: {missing}"
            used.update(keys)
            given = _Given([uniforms[k] for k in keys])
            return turns(
                tree, values, nodes, child, level, scale, utility, given, stopped
            )

        monkeypatch.setattr(walk, "_turns", keyed_turns)
        fast = dptt(
            tree,
            queries,
            epsilon,
            utility,
            sensitivity,
            rng=np.random.default_rng(0),
            **spec,
        )
        monkeypatch.setattr(walk, "_turns", turns)
        assert used == set(uniforms), "the reference turned where dptt did not"
        for i, (found, calls) in enumerate(expected):
            np.testing.assert_array_equal(fast.released[i], found, err_msg=f"{p} {i}")
            assert fast.em_calls[i] == calls, (p, i)


def test_dptt_refuses_a_tree_whose_siblings_are_apart():
    """Also after ``dataclasses.replace``: the new tree starts without the old one's
    tables."""
    import dataclasses

    from dpnn.traversal import dptt
    from dpnn.trees import build_tree

    tree = build_tree(np.arange(8.0))
    dptt(tree, [1.0], 1.0, "cmp", rng=np.random.default_rng(0))  # its tables are cached
    right = tree.right.copy()
    right[0], right[1] = tree.right[1], tree.right[0]  # not left + 1 any more
    with pytest.raises(ValueError, match="siblings side by side"):
        dptt(
            dataclasses.replace(tree, right=right),
            [1.0],
            1.0,
            "cmp",
            rng=np.random.default_rng(0),
        )


def test_remembered_counts_are_right_when_threads_share_the_memo():
    """A Dask worker runs cases in threads of one process: each call still gets its own
    counts."""
    import sys
    import threading

    from dpnn import classification as c

    rng = np.random.default_rng(2)
    points, labels = rng.random((300, 2)), rng.integers(0, 3, 300)
    batches = [(rng.random((40, 2)), np.full(40, 0.1 + 0.05 * i)) for i in range(2)]
    expected = [
        c.rn.label_counts_unchecked.__wrapped__(points, labels, 3, q, r)
        for q, r in batches
    ]
    wrong = []

    def worker(i):
        for _ in range(300):
            got = c.rn.label_counts_unchecked(points, labels, 3, *batches[i])
            if not np.array_equal(got, expected[i]):
                wrong.append(i)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often: a race shows at once
    try:
        threads = [threading.Thread(target=worker, args=(i,)) for i in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not wrong, f"{len(wrong)} calls got another batch's counts"


if __name__ == "__main__":
    freeze_dptt_outputs()
