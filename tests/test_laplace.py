"""Tests of kmlib.laplace: Newton mode, evidence, corrected gradient, scikit-learn agreement."""

import warnings

import numpy as np
import pytest
from scipy import integrate
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel
from sklearn.utils.estimator_checks import check_estimator

from kmlib import kernels
from kmlib.datasets import two_class
from kmlib.laplace import (
    GaussianProcessClassifier,
    evidence_gradient,
    find_mode,
    probit_probability,
)


def classification_data(n=50, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    t = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, t, rng.normal(size=(20, 2))


def central_difference(f, theta, h=1e-5):
    return np.array([(f(theta + e) - f(theta - e)) / (2 * h) for e in h * np.eye(theta.size)])


def test_mode_is_a_stationary_point_of_psi():
    X, t, _ = classification_data()
    C = kernels.RBF(0.8, 3.0)(X) + 1e-3 * np.eye(len(t))
    mode = find_mode(C, t.astype(float))
    # PRML (6.81): grad Psi = t - sigma - C^-1 a = 0, and (6.84) a* = C (t - sigma).
    # find_mode stops once |grad Psi| < 1e-10, so a* - C (t - sigma) = -C grad Psi is bounded
    # by max row sum of |C| times 1e-10.
    np.testing.assert_allclose(mode.b, t - mode.sigma, rtol=0, atol=1e-10)
    bound = np.abs(C).sum(axis=1).max() * 1e-10
    np.testing.assert_allclose(mode.a, C @ (t - expit(mode.a)), rtol=0, atol=bound)
    assert np.all((mode.W_sqrt**2 > 0) & (mode.W_sqrt**2 < 0.25))  # W in (0, 1/4)


def test_evidence_equals_the_definition_of_6_90():
    X, t, _ = classification_data(n=20)
    C = kernels.RBF(0.8, 3.0)(X) + 1e-3 * np.eye(len(t))
    mode = find_mode(C, t.astype(float))
    a = mode.a
    n = len(t)
    W = np.diag(mode.sigma * (1 - mode.sigma))
    # (6.80) and (6.90) term by term, with explicit log-determinants and solves
    psi = (
        -0.5 * a @ np.linalg.solve(C, a)
        - 0.5 * n * np.log(2 * np.pi)
        - 0.5 * np.linalg.slogdet(C)[1]
        + t @ a
        - np.sum(np.logaddexp(0, a))
    )
    H = W + np.linalg.solve(C, np.eye(n))  # (6.85)
    expected = psi - 0.5 * np.linalg.slogdet(H)[1] + 0.5 * n * np.log(2 * np.pi)
    assert mode.log_evidence == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize(
    "kernel",
    [
        kernels.RBF(0.8, 3.0),
        kernels.RBF([0.6, 1.5], 2.0),
        kernels.RBF(1.0) + kernels.Linear(0.3),
    ],
    ids=["rbf", "ard", "rbf+linear"],
)
def test_evidence_gradient_matches_central_differences(kernel):
    X, t, _ = classification_data()
    gpc = GaussianProcessClassifier(kernel, jitter=1e-3, optimize=False).fit(X, t)
    value, gradient = gpc.log_marginal_likelihood(gpc.theta_, eval_gradient=True)
    assert value == pytest.approx(gpc.log_marginal_likelihood_, rel=1e-12)
    numeric = central_difference(gpc.log_marginal_likelihood, gpc.theta_)
    # h = 1e-5: truncation O(h^2) ~ 1e-10 relative, Newton solved to 1e-10 in Psi
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-6)


def test_printed_gradient_forms_fail_and_corrected_forms_pass():
    """PRML (6.91) and (6.94) as printed put (I + C W)^-1 and (I + W C)^-1 the wrong way round."""
    X, t, _ = classification_data(n=12, seed=4)
    t = t.astype(float)
    kernel = kernels.RBF(0.9, 4.0)
    n = len(t)

    def mode_at(theta):
        k = kernels.RBF(0.9, 4.0)
        k.theta = theta
        return find_mode(k(X) + 1e-3 * np.eye(n), t)

    theta = kernel.theta
    K, dK = kernel(X, eval_gradient=True)
    C = K + 1e-3 * np.eye(n)
    mode = find_mode(C, t)
    W = np.diag(mode.sigma * (1 - mode.sigma))
    I = np.eye(n)
    dC = dK[:, :, 0]
    # finite differences of the mode and of the evidence, re-solving Newton at theta +- h
    h = 1e-5
    step = np.array([h, 0.0])
    da_numeric = (mode_at(theta + step).a - mode_at(theta - step).a) / (2 * h)
    dlog_numeric = (mode_at(theta + step).log_evidence - mode_at(theta - step).log_evidence) / (
        2 * h
    )
    residual = t - mode.sigma
    da_corrected = np.linalg.solve(I + C @ W, dC @ residual)
    da_printed = np.linalg.solve(I + W @ C, dC @ residual)
    np.testing.assert_allclose(da_corrected, da_numeric, atol=1e-7)
    assert np.max(np.abs(da_printed - da_numeric)) > 1e-3

    b = np.linalg.solve(C, mode.a)
    quadratic = 0.5 * b @ dC @ b
    trace_corrected = -0.5 * np.trace(np.linalg.solve(I + W @ C, W @ dC))
    trace_printed = -0.5 * np.trace(np.linalg.solve(I + C @ W, W @ dC))
    posterior_var = np.diag(np.linalg.solve(np.linalg.solve(C, I) + W, I))
    implicit = -0.5 * np.sum(
        posterior_var * mode.sigma * (1 - mode.sigma) * (1 - 2 * mode.sigma) * da_corrected
    )
    corrected = quadratic + trace_corrected + implicit
    assert corrected == pytest.approx(dlog_numeric, abs=1e-7)
    assert abs(quadratic + trace_printed + implicit - dlog_numeric) > 1e-5
    assert abs(quadratic + trace_corrected - dlog_numeric) > 1e-5  # the implicit term matters
    assert evidence_gradient(C, dK, t, mode)[0] == pytest.approx(corrected, rel=1e-9)


def test_agrees_with_scikit_learn_at_equal_hyperparameters():
    X, t, Xs = classification_data(n=80)
    gpc = GaussianProcessClassifier(kernels.RBF([0.8, 1.2], 4.0), optimize=False).fit(X, t)
    sk = SkGPC(ConstantKernel(4.0, "fixed") * SkRBF([0.8, 1.2]), optimizer=None).fit(X, t)
    sk_mode = sk.base_estimator_.f_cached
    np.testing.assert_allclose(gpc.latent_mode_, sk_mode, rtol=1e-8, atol=1e-9)
    assert gpc.log_marginal_likelihood_ == pytest.approx(
        sk.log_marginal_likelihood_value_, rel=1e-8
    )
    # scikit-learn's gradient with the variance fixed covers the two length-scales
    _, sk_gradient = sk.log_marginal_likelihood(sk.kernel_.theta, eval_gradient=True)
    _, ours = gpc.log_marginal_likelihood(gpc.theta_, eval_gradient=True)
    np.testing.assert_allclose(ours[:2], sk_gradient, rtol=1e-7)
    np.testing.assert_array_equal(gpc.predict(Xs), sk.predict(Xs))


def test_optimum_at_least_as_high_as_scikit_learn_from_the_same_start():
    X, t, _ = classification_data(n=60, seed=2)
    gpc = GaussianProcessClassifier(kernels.RBF([1.0, 1.0], 1.0)).fit(X, t)
    sk = SkGPC(ConstantKernel(1.0) * SkRBF([1.0, 1.0])).fit(X, t)
    assert gpc.log_marginal_likelihood_ >= sk.log_marginal_likelihood_value_ - 1e-7


def test_predictive_moments_by_monte_carlo_and_probit_by_quadrature():
    X, t, Xs = classification_data(n=30)
    gpc = GaussianProcessClassifier(kernels.RBF(0.8, 3.0), jitter=1e-6, optimize=False).fit(X, t)
    mean, var = gpc.latent_mean_and_variance(Xs[:3])
    # sample a_N from q (6.86), then a_{N+1} from (6.78)
    k = gpc.kernel_
    C = k(X) + 1e-6 * np.eye(len(t))
    n = len(t)
    H = np.diag(gpc.mode_.sigma * (1 - gpc.mode_.sigma)) + np.linalg.solve(C, np.eye(n))
    rng = np.random.default_rng(0)
    S = 200_000
    a_N = rng.multivariate_normal(gpc.latent_mode_, np.linalg.solve(H, np.eye(n)), size=S)
    Ks = k(X, Xs[:3])
    cond_mean = a_N @ np.linalg.solve(C, Ks)
    cond_var = k.diag(Xs[:3]) + 1e-6 - np.einsum("ij,ij->j", Ks, np.linalg.solve(C, Ks))
    draws = cond_mean + np.sqrt(cond_var) * rng.standard_normal((S, 3))
    stderr = draws.std(axis=0) / np.sqrt(S)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * stderr)
    assert np.all(np.abs(draws.var(axis=0) / var - 1) < 5 * np.sqrt(2 / S))
    # the probit approximation is within 0.02 of the exact logistic-Gaussian integral
    for m, v in zip(mean, var):
        exact = integrate.quad(
            lambda a: expit(a) * np.exp(-0.5 * (a - m) ** 2 / v) / np.sqrt(2 * np.pi * v),
            m - 12 * np.sqrt(v),
            m + 12 * np.sqrt(v),
        )[0]
        assert probit_probability(np.array([m]), np.array([v]))[0] == pytest.approx(exact, abs=0.02)


def test_beats_chance_and_approaches_bayes_on_the_appendix_a_data():
    X, t = two_class(200, random_state=0)
    Xt, tt = two_class(2000, random_state=1)
    gpc = GaussianProcessClassifier(kernels.RBF(1.0, 1.0)).fit(X, t)
    assert np.mean(gpc.predict(Xt) != tt) < 0.1
    proba = gpc.predict_proba(Xt)
    assert proba.shape == (2000, 2) and np.allclose(proba.sum(axis=1), 1)


def test_string_labels_and_classes_order():
    X, t, Xs = classification_data()
    labels = np.array(["no", "yes"])[t]
    gpc = GaussianProcessClassifier(kernels.RBF(1.0, 2.0), optimize=False).fit(X, labels)
    assert list(gpc.classes_) == ["no", "yes"]
    assert set(gpc.predict(Xs)) <= {"no", "yes"}


def test_more_or_fewer_than_two_classes_is_an_error():
    X, t, _ = classification_data()
    with pytest.raises(ValueError, match="exactly two classes"):
        GaussianProcessClassifier(optimize=False).fit(X, np.arange(len(t)) % 3)
    with pytest.raises(ValueError, match="exactly two classes"):
        GaussianProcessClassifier(optimize=False).fit(X, np.zeros(len(t)))


def test_indefinite_kernel_matrix_is_a_clear_error():
    X, t, _ = classification_data()
    sigmoid = kernels.Sigmoid(scale=30.0, bias=-20.0)  # not positive semi-definite
    with pytest.raises(ValueError, match="not positive definite"):
        GaussianProcessClassifier(sigmoid, optimize=False).fit(X, t)


def test_newton_iteration_limit_warns():
    X, t, _ = classification_data()
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        GaussianProcessClassifier(kernels.RBF(0.5, 50.0), optimize=False, newton_max_iter=2).fit(
            X, t
        )


def test_newton_step_halving_keeps_psi_rising_for_a_huge_prior_variance():
    X, t, _ = classification_data(n=40)
    t = t.astype(float)
    C = kernels.RBF(0.3, 1e4)(X) + 1e-6 * np.eye(
        len(t)
    )  # saturated logistic: plain Newton overshoots
    mode = find_mode(C, t, max_iter=200)
    np.testing.assert_allclose(mode.b, t - mode.sigma, atol=1e-6)


def test_scikit_learn_estimator_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check_estimator(GaussianProcessClassifier())
