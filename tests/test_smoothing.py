"""Tests of kmlib.smoothing.NadarayaWatson against direct evaluation of PRML 6.3.1."""

import warnings

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
    model = LOWESS(frac=1.0, iterations=1).fit(x[:, None], y)
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
    robust = LOWESS(frac=0.5, iterations=4).fit(x[:, None], y).predict(x[:, None])
    clean = np.arange(30) != 15
    assert np.max(np.abs(robust - 2 * x)[clean]) < 0.1 * np.max(np.abs(plain - 2 * x)[clean])


def test_smoothing_bad_input():
    with pytest.raises(ValueError, match="kernel"):
        KernelDensity(kernel="cosine").fit(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="bandwidth"):
        KernelDensity(bandwidth="wide").fit(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="frac"):
        LOWESS(frac=1.5).fit(np.zeros((3, 1)), np.zeros(3))
    with pytest.raises(ValueError, match="iterations"):
        LOWESS(iterations=0).fit(np.zeros((3, 1)), np.zeros(3))


@parametrize_with_checks([KernelDensity(), LOWESS()])
def test_kernel_density_estimator_checks(estimator, check):
    check(estimator)


def whitened(n, d, seed, scale, shift):
    """n points in d dimensions whose sample covariance (ddof = 1) is exactly scale**2 I."""
    Z = np.random.default_rng(seed).normal(size=(n, d))
    Z -= Z.mean(axis=0)
    L = np.linalg.cholesky(np.cov(Z, rowvar=False))
    return scale * np.linalg.solve(L, Z.T).T + shift


@pytest.mark.parametrize("bandwidth", [0.6, "scott", "silverman"])
def test_kde_matches_scipy_gaussian_kde_in_two_dimensions(bandwidth):
    """gaussian_kde's kernel covariance is factor**2 times the data covariance: with data whose
    covariance is s**2 I, the factor h / s gives the isotropic h**2 I of our estimate, and the
    rules' factors times s are our rules' bandwidths."""
    s = 1.7
    X = whitened(60, 2, seed=8, scale=s, shift=np.array([3.0, -1.0]))
    ours = KernelDensity(bandwidth=bandwidth).fit(X)
    factor = bandwidth / s if isinstance(bandwidth, float) else bandwidth
    theirs = stats.gaussian_kde(X.T, bw_method=factor)
    np.testing.assert_allclose(
        theirs.covariance, ours.bandwidth_**2 * np.eye(2), rtol=1e-10, atol=1e-15
    )
    if bandwidth == "scott":
        assert ours.bandwidth_ == pytest.approx(s * 60 ** (-1 / 6), rel=1e-12)
    if bandwidth == "silverman":
        assert ours.bandwidth_ == pytest.approx(s * (60 * 4 / 4) ** (-1 / 6), rel=1e-12)
    Q = np.random.default_rng(9).normal([3.0, -1.0], 2.0, size=(25, 2))
    np.testing.assert_allclose(np.exp(ours.score_samples(Q)), theirs(Q.T), rtol=1e-10)


def test_kde_sample_takes_a_legacy_random_state():
    model = KernelDensity(bandwidth=0.5).fit(np.zeros((4, 2)))
    draws = model.sample(5, random_state=np.random.RandomState(0))
    assert draws.shape == (5, 2)
    np.testing.assert_array_equal(draws, model.sample(5, random_state=np.random.RandomState(0)))


def test_lowess_in_two_dimensions_is_a_weighted_least_squares_plane():
    rng = np.random.default_rng(10)
    X = rng.uniform(-1, 1, size=(30, 2))
    y = np.cos(2 * X[:, 0]) * X[:, 1] + 0.05 * rng.normal(size=30)
    query = np.array([0.2, -0.3])
    model = LOWESS(frac=0.5).fit(X, y)
    distance = np.sqrt(((X - query) ** 2).sum(axis=1))
    reach = np.sort(distance)[14]  # the k = 15th nearest
    w = np.clip(1 - (distance / reach) ** 3, 0, None) ** 3
    B = np.column_stack([np.ones(30), X])  # phi(x) = (1, x) of MLAPP (14.94)
    beta = np.linalg.lstsq(B * np.sqrt(w)[:, None], y * np.sqrt(w), rcond=None)[0]  # (14.95)
    assert model.predict(query[None, :])[0] == pytest.approx(beta @ [1.0, *query], rel=1e-10)
    # the equivalent kernel sums to one and reproduces any plane
    L = model.equivalent_kernel(rng.uniform(-1, 1, size=(6, 2)))
    np.testing.assert_allclose(L.sum(axis=1), 1.0, atol=1e-12)
    queries = rng.uniform(-1, 1, size=(6, 2))
    plane = lambda Z: 0.5 - 2.0 * Z[:, 0] + 3.0 * Z[:, 1]  # noqa: E731
    np.testing.assert_allclose(
        model.equivalent_kernel(queries) @ plane(X), plane(queries), atol=1e-10
    )


def test_lowess_on_inputs_along_a_line_reduces_to_the_one_dimensional_fit():
    """A singular weighted scatter: the pseudo-inverse fits no slope across the line."""
    rng = np.random.default_rng(11)
    t = rng.uniform(0, 1, 20)
    y = np.sin(4 * t)
    along = np.column_stack([t, 2 * t])  # distances are sqrt(5) times those along t
    query = np.array([0.15, 0.5, 0.8])
    flat = LOWESS(frac=0.4).fit(t[:, None], y).predict(query[:, None])
    lifted = LOWESS(frac=0.4).fit(along, y).predict(np.column_stack([query, 2 * query]))
    np.testing.assert_allclose(lifted, flat, rtol=1e-10)


def test_lowess_where_the_nearest_points_coincide_uses_their_mean():
    X = np.array([[0.0], [0.0], [0.0], [5.0], [6.0]])
    y = np.array([1.0, 2.0, 6.0, 0.0, 0.0])
    model = LOWESS(frac=0.6).fit(X, y)  # k = 3: the three copies of 0, all at distance 0
    assert model.predict([[0.0]])[0] == pytest.approx(3.0)
    assert np.all(np.isfinite(model.predict([[2.0], [5.5]])))


def test_lowess_robustness_weights():
    x = np.linspace(0, 1, 30)
    y = 2 * x + 0.05 * np.random.default_rng(12).normal(size=30)
    y[7] -= 5.0
    plain = LOWESS(frac=0.5, iterations=1).fit(x[:, None], y)
    np.testing.assert_array_equal(plain.robustness_weights_, 1.0)
    robust = LOWESS(frac=0.5, iterations=3).fit(x[:, None], y)
    assert robust.robustness_weights_[7] == 0.0  # the outlier is switched off
    assert np.all((robust.robustness_weights_ >= 0) & (robust.robustness_weights_ <= 1))


def test_lowess_on_identical_inputs_predicts_the_mean_of_the_targets():
    """All inputs equal: no slope can be fitted, and the rounding noise of their weighted mean
    must not pass for one (it gave predictions near 1e15)."""
    y = np.random.default_rng(13).normal(size=30)
    for X in (np.full((30, 1), 3.0), np.full((30, 2), 3.0)):
        model = LOWESS().fit(X, y)
        queries = np.array([[3.0, 3.0], [2.0, 1.0], [50.0, -7.0]])[:, : X.shape[1]]
        np.testing.assert_allclose(model.predict(queries), y.mean(), rtol=1e-12)


def test_lowess_with_a_constant_input_column_is_the_fit_without_it():
    rng = np.random.default_rng(14)
    x = rng.normal(size=30)
    y = np.sin(x) + 0.1 * rng.normal(size=30)
    query = np.array([-1.0, 0.0, 1.0])
    without = LOWESS().fit(x[:, None], y).predict(query[:, None])
    constant = np.column_stack([np.full(30, 0.1), x])
    with_it = LOWESS().fit(constant, y).predict(np.column_stack([np.full(3, 0.1), query]))
    np.testing.assert_allclose(with_it, without, rtol=1e-10)


def test_lowess_stops_its_passes_once_the_robustness_weights_settle():
    """A million passes allowed: the fit stops when no weight moves by more than
    ROBUSTNESS_SETTLED, and equals the fit that asks for exactly that many passes."""
    rng = np.random.default_rng(15)
    x = rng.normal(size=30)
    y = np.sin(x) + 0.5 * rng.standard_t(2, size=30)
    many = LOWESS(iterations=10**6).fit(x[:, None], y)
    assert 3 < many.n_iter_ < 1000
    exact = LOWESS(iterations=many.n_iter_).fit(x[:, None], y)
    assert exact.n_iter_ == many.n_iter_
    np.testing.assert_array_equal(exact.robustness_weights_, many.robustness_weights_)
    assert LOWESS(iterations=3).fit(x[:, None], y).n_iter_ == 3


def test_lowess_keeps_dataframe_column_names_without_warnings():
    import pandas as pd  # a test dependency (pyproject.toml)
    rng = np.random.default_rng(16)
    X = pd.DataFrame(rng.normal(size=(20, 2)), columns=["u", "v"])
    y = X["u"].to_numpy() ** 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "X does not have valid feature names" was raised
        model = LOWESS(iterations=2).fit(X, y)
        prediction = model.predict(X)
    assert list(model.feature_names_in_) == ["u", "v"]
    on_arrays = LOWESS(iterations=2).fit(X.to_numpy(), y).predict(X.to_numpy())
    np.testing.assert_array_equal(prediction, on_arrays)


# ------------------------------------- MLAPP 14.7.3-14.7.4: KNN densities and the bandwidth rule
from scipy.special import logsumexp  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402

from kmlib.smoothing import KNeighborsDensityClassifier, normal_reference_bandwidth  # noqa: E402


def test_normal_reference_bandwidth_is_mlapp_14_89_with_the_mad_scale():
    x = np.random.default_rng(13).standard_t(3, size=150)
    sigma = stats.median_abs_deviation(x, scale="normal")  # MAD / Phi^{-1}(3/4)
    assert normal_reference_bandwidth(x) == pytest.approx((4 / 450) ** 0.2 * sigma, rel=1e-12)
    assert sigma == pytest.approx(1.4826 * np.median(np.abs(x - np.median(x))), rel=1e-5)
    # with the standard deviation it is Silverman's rule of KernelDensity in one dimension
    silverman = KernelDensity(bandwidth="silverman").fit(x[:, None]).bandwidth_
    assert normal_reference_bandwidth(x, robust=False) == pytest.approx(silverman, rel=1e-12)


def test_normal_reference_bandwidth_resists_an_outlier_that_the_standard_deviation_does_not():
    x = np.random.default_rng(14).normal(size=100)
    spoiled = x.copy()
    spoiled[0] = 1e3
    assert normal_reference_bandwidth(spoiled) < 1.1 * normal_reference_bandwidth(x)
    assert normal_reference_bandwidth(spoiled, robust=False) > 10 * normal_reference_bandwidth(
        x, robust=False
    )


def test_normal_reference_bandwidth_bad_input():
    with pytest.raises(ValueError, match="one-dimensional"):
        normal_reference_bandwidth(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="at least 2"):
        normal_reference_bandwidth([1.0])
    with pytest.raises(ValueError, match="NaN"):
        normal_reference_bandwidth([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="more than half"):
        normal_reference_bandwidth([0.0, 0.0, 0.0, 1.0])


def three_classes(n=90, seed=15):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [1.5, 0.5], [0.0, 1.8]])
    y = rng.integers(0, 3, n)
    return centres[y] + rng.normal(size=(n, 2)), np.array(["a", "b", "c"])[y]


@pytest.mark.parametrize("k", [1, 4, 7])
def test_knn_density_classifier_is_k_nearest_neighbour_voting(k):
    X, y = three_classes()
    Q = np.random.default_rng(16).normal(0.5, 1.5, size=(60, 2))
    ours = KNeighborsDensityClassifier(n_neighbors=k).fit(X, y)
    theirs = KNeighborsClassifier(n_neighbors=k).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(Q), theirs.predict_proba(Q), atol=1e-15)
    np.testing.assert_array_equal(ours.predict(Q), theirs.predict(Q))


def test_knn_class_densities_give_the_votes_by_bayes_rule():
    X, y = three_classes()
    Q = np.random.default_rng(17).normal(0.5, 1.5, size=(40, 2))
    model = KNeighborsDensityClassifier(n_neighbors=6).fit(X, y)
    log_joint = model.log_class_densities(Q) + np.log(model.class_count_ / 90)  # (14.79)-(14.80)
    posterior = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))  # (14.81)
    np.testing.assert_allclose(posterior, model.predict_proba(Q), atol=1e-12)
    # the class-weighted densities add up to the unconditional K / (N V(x))
    np.testing.assert_allclose(logsumexp(log_joint, axis=1), model.score_samples(Q), rtol=1e-12)


def test_knn_density_is_k_over_n_times_the_ball_volume():
    x = np.random.default_rng(18).normal(size=25)
    q = np.array([-3.0, 0.1, 0.7, 4.0])
    model = KNeighborsDensityClassifier(n_neighbors=5).fit(x[:, None], x > 0)
    radius = np.sort(np.abs(q[:, None] - x[None, :]), axis=1)[:, 4]  # the 5th nearest
    np.testing.assert_allclose(np.exp(model.score_samples(q[:, None])), 5 / (25 * 2 * radius))
    X, y = three_classes(30)
    Q = np.array([[0.3, 0.2], [2.0, -1.0]])
    model = KNeighborsDensityClassifier(n_neighbors=3).fit(X, y)
    radius = np.sort(np.linalg.norm(Q[:, None, :] - X[None, :, :], axis=2), axis=1)[:, 2]
    np.testing.assert_allclose(
        np.exp(model.score_samples(Q)), 3 / (30 * np.pi * radius**2), rtol=1e-12
    )


def test_knn_density_classifier_bad_input_and_large_k():
    X, y = three_classes(12)
    with pytest.raises(ValueError, match="n_neighbors"):
        KNeighborsDensityClassifier(n_neighbors=0).fit(X, y)
    model = KNeighborsDensityClassifier(n_neighbors=50).fit(X, y)  # uses all 12 points
    counts = np.array([np.sum(y == c) for c in model.classes_])
    np.testing.assert_allclose(model.predict_proba(X[:2]), np.tile(counts / 12, (2, 1)))


@parametrize_with_checks([KNeighborsDensityClassifier()])
def test_knn_density_classifier_estimator_checks(estimator, check):
    check(estimator)


def test_lowess_span_is_not_spoiled_by_rounding():
    """0.55 * 100 is 55.00000000000001 in floating point; the span must still be 55 points,
    of which the 55th nearest gets weight zero."""
    x = np.random.default_rng(19).uniform(size=100)
    model = LOWESS(frac=0.55).fit(x[:, None], np.sin(x))
    L = model.equivalent_kernel(np.array([0.3, 0.5]))
    np.testing.assert_array_equal(np.count_nonzero(L, axis=1), [54, 54])
