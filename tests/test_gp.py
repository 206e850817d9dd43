"""Tests of kmlib.gp: evidence, gradient, prediction, optimisation, scikit-learn agreement."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.utils.estimator_checks import check_estimator

from kmlib import kernels
from kmlib.gp import GaussianProcessRegressor


def regression_data(n=40, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d))
    t = np.sin(3 * X[:, 0]) + 0.5 * X[:, -1] ** 2 + 0.1 * rng.standard_normal(n)
    return X, t, rng.uniform(-1.2, 1.2, (25, d))


def central_difference(f, theta, h=1e-6):
    return np.array([(f(theta + e) - f(theta - e)) / (2 * h) for e in h * np.eye(theta.size)])


KERNELS = {
    "rbf": kernels.RBF(0.7, 1.3),
    "ard": kernels.RBF([0.5, 2.0], 0.8),
    "matern": kernels.Matern(0.6, 1.1, nu=1.5),
    "prml": kernels.PRMLKernel(1.0, 4.0, 0.5, 0.3),
    "sum": kernels.RBF(0.5) + kernels.Linear(0.2),
    "product": kernels.Periodic(0.8, 1.0, 1.5) * kernels.RBF(2.0),
}


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("fixed_noise", [False, True])
def test_evidence_gradient_matches_central_differences(name, fixed_noise):
    X, t, _ = regression_data()
    bounds = "fixed" if fixed_noise else (1e-6, 10.0)
    gp = GaussianProcessRegressor(
        KERNELS[name], noise_variance=0.05, noise_variance_bounds=bounds, optimize=False
    ).fit(X, t)
    value, gradient = gp.log_marginal_likelihood(gp.theta_, eval_gradient=True)
    assert value == pytest.approx(gp.log_marginal_likelihood_, rel=1e-14)
    numeric = central_difference(gp.log_marginal_likelihood, gp.theta_)
    # central differences with h = 1e-6 carry O(h^2) truncation and ~1e-10 round-off
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-6)
    assert len(gp.theta_names_) == gp.theta_.size


def test_evidence_equals_the_gaussian_density_of_the_targets():
    from scipy.stats import multivariate_normal

    X, t, _ = regression_data(n=15)
    k = kernels.RBF(0.6, 1.4)
    gp = GaussianProcessRegressor(k, noise_variance=0.1, optimize=False).fit(X, t)
    C = k(X) + 0.1 * np.eye(len(t))  # PRML (6.61)-(6.62)
    expected = multivariate_normal(np.zeros(len(t)), C).logpdf(t)
    assert gp.log_marginal_likelihood_ == pytest.approx(expected, rel=1e-12)


def test_prediction_matches_partitioned_gaussian_conditioning():
    X, t, Xs = regression_data(n=20)
    k = kernels.RBF(0.5, 2.0)
    gp = GaussianProcessRegressor(k, noise_variance=0.04, optimize=False).fit(X, t)
    # condition the joint Gaussian of (t, y*) with a linear solve, independently of kmlib
    C = k(X) + 0.04 * np.eye(len(t))
    Ks = k(X, Xs)
    mean = Ks.T @ np.linalg.solve(C, t)
    cov = k(Xs) - Ks.T @ np.linalg.solve(C, Ks)
    m, s = gp.predict(Xs, return_std=True)
    m2, cov2 = gp.predict(Xs, return_cov=True)
    _, s_noisy = gp.predict(Xs, return_std=True, include_noise=True)
    np.testing.assert_allclose(m, mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m2, mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s**2, np.diag(cov), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(cov2, cov, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(s_noisy**2, np.diag(cov) + 0.04, rtol=1e-10)  # PRML (6.67)


@pytest.mark.parametrize("ard", [False, True])
def test_agrees_with_scikit_learn_at_equal_hyperparameters(ard):
    X, t, Xs = regression_data(n=60)
    lengthscale = [0.4, 1.5] if ard else 0.6
    gp = GaussianProcessRegressor(
        kernels.RBF(lengthscale, 1.7), noise_variance=0.03, optimize=False
    ).fit(X, t)
    sk = SkGPR(ConstantKernel(1.7, "fixed") * SkRBF(lengthscale), alpha=0.03, optimizer=None).fit(
        X, t
    )
    m, s = gp.predict(Xs, return_std=True)
    m_sk, s_sk = sk.predict(Xs, return_std=True)
    assert gp.log_marginal_likelihood_ == pytest.approx(sk.log_marginal_likelihood_value_, rel=1e-8)
    np.testing.assert_allclose(m, m_sk, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(s, s_sk, rtol=1e-8)


def test_optimum_at_least_as_high_as_scikit_learn_from_the_same_start():
    X, t, _ = regression_data(n=50, seed=3)
    start = dict(lengthscale=[1.0, 1.0], variance=1.0, noise=0.5)
    gp = GaussianProcessRegressor(
        kernels.RBF(start["lengthscale"], start["variance"]),
        noise_variance=start["noise"],
        noise_variance_bounds=(1e-5, 1e5),
    ).fit(X, t)
    sk = SkGPR(
        ConstantKernel(start["variance"]) * SkRBF(start["lengthscale"])
        + WhiteKernel(start["noise"]),
        alpha=0.0,
    ).fit(X, t)
    assert gp.log_marginal_likelihood_ >= sk.log_marginal_likelihood_value_ - 1e-7
    # and it is a stationary point: the gradient vanishes at interior optima
    _, gradient = gp.log_marginal_likelihood(gp.theta_, eval_gradient=True)
    assert np.max(np.abs(gradient)) < 1e-3


def test_restarts_are_seeded_and_never_worse():
    X, t, _ = regression_data(n=30, seed=5)
    kernel = kernels.RBF(5.0, 0.1)
    one = GaussianProcessRegressor(kernel, noise_variance=1.0).fit(X, t)
    many = [
        GaussianProcessRegressor(kernel, noise_variance=1.0, n_restarts=4, random_state=7).fit(X, t)
        for _ in range(2)
    ]
    assert many[0].log_marginal_likelihood_ >= one.log_marginal_likelihood_ - 1e-9
    np.testing.assert_array_equal(many[0].theta_, many[1].theta_)
    assert kernel.lengthscale == 5.0, "fit must not modify the kernel it was given"


def test_ard_switches_off_an_irrelevant_input():
    rng = np.random.default_rng(11)
    X = rng.uniform(-1, 1, (80, 2))
    t = np.sin(3 * X[:, 0]) + 0.05 * rng.standard_normal(80)  # the second input is noise
    gp = GaussianProcessRegressor(kernels.RBF([1.0, 1.0]), noise_variance=0.1).fit(X, t)
    relevant, irrelevant = gp.kernel_.lengthscale
    assert irrelevant > 10 * relevant


def test_samples_have_the_right_covariance():
    X, t, Xs = regression_data(n=10)
    gp = GaussianProcessRegressor(kernels.RBF(0.5), noise_variance=0.01, optimize=False)
    prior = gp.sample_prior(Xs[:4], n_samples=40000, random_state=0)
    # Monte Carlo: the standard error of a sample covariance entry is about 1/sqrt(S) = 0.005
    np.testing.assert_allclose(np.cov(prior), kernels.RBF(0.5)(Xs[:4]), atol=0.03)
    gp.fit(X, t)
    post = gp.sample_posterior(Xs[:4], n_samples=40000, random_state=1)
    mean, cov = gp.predict(Xs[:4], return_cov=True)
    np.testing.assert_allclose(post.mean(axis=1), mean, atol=0.03)
    np.testing.assert_allclose(np.cov(post), cov, atol=0.03)


def test_nan_targets_are_rejected():
    X, t, _ = regression_data()
    t[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        GaussianProcessRegressor(optimize=False).fit(X, t)


def test_indefinite_kernel_matrix_is_a_clear_error():
    X, t, _ = regression_data(n=30)
    sigmoid = kernels.Sigmoid(scale=3.0, bias=-2.0)  # not positive semi-definite
    gp = GaussianProcessRegressor(sigmoid, noise_variance=1e-6, optimize=False)
    # numpy's LinAlgError is a ValueError, so callers can catch either
    with pytest.raises(ValueError, match="not positive definite"):
        gp.fit(X, t)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(noise_variance=-1.0), "noise_variance"),
        (dict(noise_variance_bounds=(1.0, 0.1)), "noise_variance_bounds"),
        (dict(kernel="rbf"), "kmlib kernel"),
        (dict(n_restarts=-1), "n_restarts"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, t, _ = regression_data()
    with pytest.raises(ValueError, match=message):
        GaussianProcessRegressor(**params).fit(X, t)


def test_optimiser_iteration_limit_warns():
    X, t, _ = regression_data()
    with pytest.warns(ConvergenceWarning, match="iteration limit"):
        GaussianProcessRegressor(kernels.RBF(30.0, 0.01), optimizer_max_iter=1).fit(X, t)


def test_fixed_hyperparameters_stay_fixed():
    X, t, _ = regression_data()
    kernel = kernels.RBF(0.5, 2.0, limits={"variance": "fixed"})
    gp = GaussianProcessRegressor(kernel, noise_variance=0.2, noise_variance_bounds="fixed")
    gp.fit(X, t)
    assert gp.kernel_.variance == 2.0 and gp.noise_variance_ == 0.2
    assert gp.theta_names_ == ["lengthscale"]


def test_scikit_learn_estimator_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_estimator(GaussianProcessRegressor())


def test_inputs_far_below_the_length_scale_warn_instead_of_fitting_silently():
    """On X * 1e-8 the optimiser starts where the evidence is flat in the length-scale, so it
    stays far above the inputs' scale, the Gram matrix is constant, and the GP fits a constant
    (R^2 about 0): the fit says so."""
    X, t, _ = regression_data(n=30, d=1)
    with pytest.warns(UserWarning, match="cannot tell them apart"):
        model = GaussianProcessRegressor(noise_variance=0.1).fit(X * 1e-8, t)
    assert model.score(X * 1e-8, t) < 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same data at their own scale warn about nothing
        assert GaussianProcessRegressor(noise_variance=0.1).fit(X, t).score(X, t) > 0.5


def test_an_optimum_on_a_bound_warns_and_names_the_hyperparameter():
    """With the length-scale boxed above the data's own (about 0.56 here), the evidence rises
    towards the box's lower edge and stops there."""
    X, t, _ = regression_data(n=30, d=1)
    kernel = kernels.RBF(2.0, limits={"lengthscale": (1.0, 10.0)})
    with pytest.warns(ConvergenceWarning, match="lower bound of lengthscale"):
        model = GaussianProcessRegressor(kernel, noise_variance=0.1).fit(X, t)
    assert model.kernel_.lengthscale == pytest.approx(1.0)
