"""Tests of kmlib.smoothing.NadarayaWatson against direct evaluation of PRML 6.3.1."""

import numpy as np
import pytest
from scipy import integrate
from sklearn.utils.estimator_checks import check_estimator

from kmlib.datasets import sinusoid
from kmlib.smoothing import NadarayaWatson


@pytest.fixture
def fitted():
    x, t = sinusoid(12, random_state=3)
    return NadarayaWatson(bandwidth=0.1, target_bandwidth=0.2).fit(x[:, None], t), x, t


def test_weights_are_normalised_gaussians(fitted):
    model, x, _ = fitted
    queries = np.array([[0.05], [0.5], [0.93]])
    g = np.exp(-0.5 * (queries - x[None, :]) ** 2 / 0.1**2)  # (6.47) for a Gaussian f
    np.testing.assert_allclose(model.weights(queries), g / g.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(model.weights(queries).sum(axis=1), 1.0, rtol=1e-14)


def test_density_mean_and_variance_by_quadrature(fitted):
    """Exercise 6.18: integrate p(t | x) of (6.48) numerically and compare the moments."""
    model, _, _ = fitted
    queries = np.array([[0.2], [0.71]])
    mean, std = model.predict(queries, return_std=True)
    for q, m, s in zip(queries, mean, std):
        density = lambda t: model.conditional_density(q[None, :], [t])[0, 0]
        moments = [
            integrate.quad(lambda t: t**p * density(t), -6, 6, epsabs=1e-13)[0] for p in range(3)
        ]
        assert moments[0] == pytest.approx(1.0, abs=1e-9)
        assert moments[1] == pytest.approx(m, abs=1e-9)
        assert moments[2] - moments[1] ** 2 == pytest.approx(s**2, abs=1e-9)


def test_far_from_the_data_weights_do_not_underflow(fitted):
    model, x, t = fitted
    far = np.array([[50.0]])  # every g underflows in linear space
    np.testing.assert_allclose(model.predict(far), t[np.argmax(x)], rtol=1e-12)


def test_bad_bandwidth():
    with pytest.raises(ValueError, match="bandwidth"):
        NadarayaWatson(bandwidth=0.0).fit(np.zeros((3, 1)), np.zeros(3))


def test_scikit_learn_estimator_checks():
    check_estimator(NadarayaWatson(bandwidth=1.0))


def test_predictions_do_not_change_when_everything_is_shifted(fitted):
    model, x, t = fitted
    queries = np.array([[0.3], [0.55]])
    shifted = NadarayaWatson(bandwidth=0.1, target_bandwidth=0.2).fit(x[:, None] + 1e4, t)
    # the weights depend on differences only; cdist forms them without cancellation
    np.testing.assert_allclose(shifted.predict(queries + 1e4), model.predict(queries), rtol=1e-9)


# ------------------------------------------------------------------ MLAPP 14.7 additions
from scipy import stats  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from kmlib.smoothing import LOWESS, SMOOTHING_KERNELS, KernelDensity  # noqa: E402


@pytest.mark.parametrize("name", sorted(SMOOTHING_KERNELS))
def test_smoothing_kernel_moments_by_quadrature(name):
    kernel = SMOOTHING_KERNELS[name]
    edge = 12.0 if np.isinf(kernel.support) else kernel.support
    moments = [
        integrate.quad(lambda u: u**p * kernel(u), -edge, edge, epsabs=1e-13, epsrel=1e-12)[0]
        for p in range(3)
    ]
    assert moments[0] == pytest.approx(1.0, abs=1e-10)  # MLAPP (14.69)
    assert moments[1] == pytest.approx(0.0, abs=1e-12)
    assert moments[2] == pytest.approx(kernel.second_moment, rel=1e-10)
    assert kernel(0.0) == pytest.approx(kernel.peak)


@pytest.mark.parametrize("rule", ["scott", "silverman"])
def test_kde_matches_scipy_gaussian_kde_in_one_dimension(rule):
    x = np.random.default_rng(0).gamma(2.0, size=80)
    ours = KernelDensity(bandwidth=rule).fit(x[:, None])
    theirs = stats.gaussian_kde(x, bw_method=rule)
    # scipy's kernel standard deviation is its factor times the sample standard deviation
    assert ours.bandwidth_ == pytest.approx(np.sqrt(theirs.covariance[0, 0]), rel=1e-12)
    grid = np.linspace(-1, 10, 50)
    np.testing.assert_allclose(np.exp(ours.score_samples(grid[:, None])), theirs(grid), rtol=1e-10)


def test_silverman_rule_is_the_mlapp_formula_in_one_dimension():
    x = np.random.default_rng(1).normal(size=200)
    h = KernelDensity(bandwidth="silverman").fit(x[:, None]).bandwidth_
    assert h == pytest.approx((4 / (3 * 200)) ** 0.2 * np.std(x, ddof=1), rel=1e-12)  # (14.89)


def test_kde_in_two_dimensions_is_the_isotropic_gaussian_mixture():
    rng = np.random.default_rng(2)
    X, Q = rng.normal(size=(30, 2)), rng.normal(size=(7, 2))
    model = KernelDensity(bandwidth=0.4).fit(X)
    brute = np.mean([stats.multivariate_normal(x, 0.16 * np.eye(2)).pdf(Q) for x in X], axis=0)
    np.testing.assert_allclose(np.exp(model.score_samples(Q)), brute, rtol=1e-10)


@pytest.mark.parametrize("name", sorted(SMOOTHING_KERNELS))
def test_kde_integrates_to_one_for_every_kernel(name):
    x = np.array([-1.0, 0.2, 0.25, 2.0])
    model = KernelDensity(bandwidth=0.5, kernel=name).fit(x[:, None])
    density = lambda t: np.exp(model.score_samples(np.array([[t]])))[0]  # noqa: E731
    breaks = sorted(set(np.concatenate([x - 0.5, x + 0.5])))
    total = integrate.quad(density, -8, 10, points=breaks, limit=200, epsabs=1e-12)[0]
    assert total == pytest.approx(1.0, abs=1e-8)


@pytest.mark.parametrize("name", sorted(SMOOTHING_KERNELS))
def test_kde_samples_have_the_mixture_mean_and_variance(name):
    x = np.random.default_rng(3).normal(size=(40, 1))
    model = KernelDensity(bandwidth=0.7, kernel=name).fit(x)
    draws = model.sample(200_000, random_state=4)
    kernel = SMOOTHING_KERNELS[name]
    variance = x.var() + 0.49 * kernel.second_moment  # mixture variance
    # tolerances of about five standard errors
    assert draws.mean() == pytest.approx(x.mean(), abs=5 * np.sqrt(variance / 200_000))
    assert draws.var() == pytest.approx(variance, rel=5 * np.sqrt(2 / 200_000) * 2)


def test_lowess_with_every_point_in_reach_is_one_weighted_least_squares_line():
    rng = np.random.default_rng(5)
    x = np.sort(rng.uniform(0, 1, 25))
    y = np.sin(3 * x) + 0.1 * rng.normal(size=25)
    model = LOWESS(frac=1.0).fit(x[:, None], y)
    query = 0.4
    reach = np.max(np.abs(x - query))  # the 25th nearest point: all of them
    weights = np.clip(1 - np.abs((x - query) / reach) ** 3, 0, None) ** 3
    slope, intercept = np.polyfit(x, y, 1, w=np.sqrt(weights))  # independent WLS
    assert model.predict([[query]])[0] == pytest.approx(slope * query + intercept, rel=1e-10)


def test_lowess_equivalent_kernel_sums_to_one_and_reproduces_lines():
    x = np.random.default_rng(6).uniform(-2, 2, 40)
    model = LOWESS(frac=0.3).fit(x[:, None], np.zeros(40))
    query = np.linspace(-1.8, 1.8, 9)
    L = model.equivalent_kernel(query)
    np.testing.assert_allclose(L.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(L @ (3.0 - 2.0 * x), 3.0 - 2.0 * query, atol=1e-11)
    assert np.all(
        L[:, np.argsort(np.abs(x - query[0]))[13:]][0] == 0
    )  # nothing beyond the k = 12 nearest


def test_lowess_robustness_passes_resist_an_outlier():
    x = np.linspace(0, 1, 30)
    y = 2 * x + 0.05 * np.random.default_rng(7).normal(size=30)
    y[15] += 10.0
    plain = LOWESS(frac=0.5).fit(x[:, None], y).predict(x[:, None])
    robust = LOWESS(frac=0.5, robust_iterations=3).fit(x[:, None], y).predict(x[:, None])
    clean = np.arange(30) != 15
    assert np.max(np.abs(robust - 2 * x)[clean]) < 0.1 * np.max(np.abs(plain - 2 * x)[clean])


def test_smoothing_bad_input():
    with pytest.raises(ValueError, match="kernel"):
        KernelDensity(kernel="cosine").fit(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="bandwidth"):
        KernelDensity(bandwidth="wide").fit(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="frac"):
        LOWESS(frac=1.5).fit(np.zeros((3, 1)), np.zeros(3))
    with pytest.raises(ValueError, match="one input"):
        LOWESS().fit(np.zeros((3, 2)), np.zeros(3))


@parametrize_with_checks([KernelDensity()])
def test_kernel_density_estimator_checks(estimator, check):
    check(estimator)
