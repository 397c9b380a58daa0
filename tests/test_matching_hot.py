"""The fast paths of the event matcher (issue 32, item 9) give the results of the general steps."""

import numpy as np
import pytest

from audeval._core.matching import lexicographic as _lexicographic
from audeval._core.matching import small as _small
from audeval._core.matching.order import canonical_order, onset_pairs


def _pairs(rng, n, width, density, other_share):
    """Pairs of a banded random graph sorted by (truth, prediction), with kinds."""
    t, p = [], []
    for i in range(n):
        for j in range(max(i - width, 0), min(i + width + 1, n)):
            if rng.uniform() < density:
                t.append(i), p.append(j)
    kind = np.where(rng.uniform(size=len(t)) < other_share, _small.OTHER, _small.SAME).astype(np.int8)
    return np.array(t, dtype=np.int64), np.array(p, dtype=np.int64), kind


@pytest.mark.parametrize("seed", range(12))
def test_lexicographic_sorted_with_and_without_the_tiny_table(seed, monkeypatch):
    # blocks up to 3 x 3 looked up: the same arrays as all blocks enumerated,
    # also where large components reach the flow and weighted solvers
    rng = np.random.default_rng(seed)
    n = 300
    width, density = [(1, 0.5), (2, 0.4), (3, 0.5), (6, 0.6)][seed % 4]
    t, p, kind = _pairs(rng, n, width, density, [0.0, 0.3, 0.7][seed % 3])
    got = _lexicographic.lexicographic_sorted(n, n, t, p, kind)
    with monkeypatch.context() as patch:
        patch.setattr(_lexicographic, "TINY", 0)  # no block is tiny
        expected = _lexicographic.lexicographic_sorted(n, n, t, p, kind)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    assert (got[0] >= 0).sum() > 0 and (got[1] >= 0).sum() > 0 or seed % 3 == 0


def test_tiny_table_is_the_enumeration():
    # every 3 x 3 block (and, padded, every smaller one) looked up as enumerated
    table = _small.tiny_table()
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3**9, 500)
    digits = (codes[:, None] // _small.POW3) % 3
    kinds = np.where(digits == 0, -1, digits).astype(np.int8).reshape(-1, 3, 3)
    chosen = _small.solve_blocks(kinds)
    cells = (table[codes][:, None] >> np.arange(9)) & 1
    expected = np.zeros((len(codes), 9), dtype=np.int64)
    rows, cols = np.nonzero(chosen >= 0)
    expected[rows, cols * 3 + chosen[rows, cols]] = 1
    np.testing.assert_array_equal(cells, expected)
    assert table[0] == 0  # no pairs: nothing taken
    assert not table.flags.writeable


@pytest.mark.parametrize("scale", [1, 2**20, 2**40])
def test_canonical_order_radix_path_with_cut_keys(scale):
    # 4,096 to 32,768 events: two radix passes of keys cut to 32 bits, the ties sorted again
    rng = np.random.default_rng(1)
    n = 6000
    key = rng.integers(0, 2**12, n) * scale + rng.integers(0, 2**12, n)
    end = rng.integers(0, 3, n)
    label = rng.integers(0, 3, n)
    position = np.arange(n)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # identical events: the duplicate warning
        order, sorted_key = canonical_order(key, end, label, position)
    expected = np.lexsort((position, label, end, key))
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(sorted_key, key[expected])



@pytest.mark.parametrize("bits", [8, 16, 17, 32, 48, 62])
def test_radix_order_is_a_stable_argsort(bits):
    from audeval._core.matching.order import _radix_order

    rng = np.random.default_rng(bits)
    key = rng.integers(0, 2**bits, 5000) // 3 * 3  # ties
    np.testing.assert_array_equal(_radix_order(key), np.argsort(key, kind="stable"))
