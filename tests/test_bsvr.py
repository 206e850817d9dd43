"""Tests of kmlib.bsvr: the dual and its solver, the evidence and its gradient, error bars."""

import warnings

import numpy as np
import pytest
from scipy import optimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVR as SkSVR
from sklearn.utils.estimator_checks import check_estimator

from kmlib import bsvr
from kmlib.bsvr import BayesianSVR
from kmlib.gp import GaussianProcessRegressor
from kmlib.kernels import RBF, Constant, White
from kmlib.losses import silf, silf_normaliser


def problem(n=40, seed=0, noise=0.15, bias=1.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, 1))
    y = np.sin(X[:, 0]) + noise * rng.standard_normal(n)
    kernel = RBF(lengthscale=0.8, variance=1.0) + Constant(bias)
    return X, y, kernel


def dual_objective(nu, Sigma, y, C, epsilon, beta):
    """(4.25) in nu = alpha - alpha*."""
    return (
        0.5 * nu @ Sigma @ nu
        - nu @ y
        + (1 - beta) * epsilon * np.abs(nu).sum()
        + beta * epsilon / C * nu @ nu
    )


def primal_map(Sigma, y, C, epsilon, beta):
    """MAP (4.13) directly: f = L z, minimise C sum silf(y - f) + |z|^2 / 2 by L-BFGS."""
    L = np.linalg.cholesky(Sigma + 1e-10 * np.eye(y.size))  # (a 1e-10 jitter moves f by less)

    def objective(z):
        f = L @ z
        delta = y - f
        size = np.abs(delta)
        low, high = (1 - beta) * epsilon, (1 + beta) * epsilon
        slope = np.where(
            size < low, 0.0, np.where(size <= high, (size - low) / (2 * beta * epsilon), 1.0)
        )
        value = C * silf(delta, epsilon, beta).sum() + 0.5 * z @ z
        return value, -C * L.T @ (slope * np.sign(delta)) + z

    z0 = np.linalg.solve(L, y)
    result = optimize.minimize(
        objective,
        z0,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 50000, "gtol": 1e-12, "ftol": 1e-16},
    )
    return L @ result.x


@pytest.mark.parametrize("beta", [0.05, 0.3, 1.0])
def test_dual_solution_is_the_map_and_meets_the_optimality_conditions(beta):
    X, y, kernel = problem(seed=1)
    Sigma = kernel(X)
    C, epsilon = 5.0, 0.15
    solution = bsvr.solve_dual(Sigma, y, C, epsilon, beta, tol=1e-10)
    assert solution.violation <= 1e-10
    nu, F = solution.nu, solution.F
    flat = (1 - beta) * epsilon
    np.testing.assert_allclose(F, y - Sigma @ nu - 2 * beta * epsilon / C * nu, atol=1e-12)
    # the five cases of (4.31)
    zero, free, bound = nu == 0, (nu != 0) & (np.abs(nu) < C), np.abs(nu) == C
    assert np.all(np.abs(F[zero]) <= flat + 1e-10)
    np.testing.assert_allclose(F[free], flat * np.sign(nu[free]), atol=1e-10)
    assert np.all(F[bound] * np.sign(nu[bound]) >= flat - 1e-10)
    assert zero.any() or beta == 1.0
    # f_MP = Sigma nu (4.26) is the minimiser of the primal (4.13)
    f_primal = primal_map(Sigma, y, C, epsilon, beta)
    np.testing.assert_allclose(Sigma @ nu, f_primal, atol=1e-6)
    # and nu minimises the dual: random feasible perturbations never go lower
    rng = np.random.default_rng(0)
    best = dual_objective(nu, Sigma, y, C, epsilon, beta)
    for _ in range(200):
        trial = np.clip(nu + 1e-3 * rng.standard_normal(nu.size), -C, C)
        assert dual_objective(trial, Sigma, y, C, epsilon, beta) >= best - 1e-12


def test_warm_start_reaches_the_same_solution_in_fewer_steps():
    X, y, kernel = problem(n=80, seed=2)
    Sigma = kernel(X)
    start = bsvr.solve_dual(Sigma, y, 3.0, 0.12, 0.3, tol=1e-9).nu  # the MAP at nearby values
    cold = bsvr.solve_dual(Sigma, y, 4.0, 0.1, 0.3, tol=1e-9)
    warm = bsvr.solve_dual(Sigma, y, 4.0, 0.1, 0.3, nu0=start, tol=1e-9)
    np.testing.assert_allclose(warm.nu, cold.nu, atol=1e-7)
    # at the default tolerance SMO stops before any exact solve, so its steps count the work
    cold = bsvr.solve_dual(Sigma, y, 4.0, 0.1, 0.3)
    warm = bsvr.solve_dual(Sigma, y, 4.0, 0.1, 0.3, nu0=start)
    assert warm.n_iter < cold.n_iter


def laplace_by_brute_force(Sigma, y, C, epsilon, beta, f):
    """-ln P(D|theta) of (4.37) with n x n matrices in function space."""
    delta = y - f
    size = np.abs(delta)
    in_band = (size > (1 - beta) * epsilon) & (size < (1 + beta) * epsilon)
    Lambda = np.diag(np.where(in_band, 1 / (2 * beta * epsilon), 0.0))  # loss curvature (2.30)
    S = C * silf(delta, epsilon, beta).sum() + 0.5 * f @ np.linalg.solve(Sigma, f)
    _, log_det = np.linalg.slogdet(np.eye(y.size) + C * Sigma @ Lambda)
    return S + 0.5 * log_det + y.size * np.log(silf_normaliser(C, epsilon, beta)), Lambda


def test_evidence_against_the_full_laplace_formula():
    X, y, kernel = problem(seed=3)
    Sigma = kernel(X)
    C, epsilon, beta = 6.0, 0.12, 0.3
    solution = bsvr.solve_dual(Sigma, y, C, epsilon, beta, tol=1e-11)
    value = -bsvr.log_evidence(Sigma, y, C, epsilon, beta, solution)  # (4.38) is -ln P
    expected, Lambda = laplace_by_brute_force(Sigma, y, C, epsilon, beta, Sigma @ solution.nu)
    np.testing.assert_allclose(value, expected, rtol=1e-9)
    # the points with curvature are exactly the off-bound support vectors
    np.testing.assert_array_equal(np.flatnonzero(np.diag(Lambda)), solution.off_bound)


@pytest.mark.parametrize("beta", [0.1, 0.3, 0.7])
def test_evidence_gradient_against_central_differences(beta):
    X, y, kernel = problem(n=60, seed=4)
    theta = np.concatenate([np.log([5.0, 0.1]), kernel.theta])

    warm = {}

    def evaluate(theta, gradient=True):
        kernel.theta = theta[2:]
        C, epsilon = np.exp(theta[:2])
        Sigma, dSigma = kernel(X, eval_gradient=True)
        solution = bsvr.solve_dual(Sigma, y, C, epsilon, beta, nu0=warm.get("nu"), tol=1e-12)
        warm.setdefault("nu", solution.nu)  # start the shifted problems from the centre's MAP
        return bsvr.log_evidence(
            Sigma, y, C, epsilon, beta, solution, dSigma if gradient else None
        )

    _, gradient = evaluate(theta)
    h = 1e-6
    numeric = [
        (evaluate(theta + e, False) - evaluate(theta - e, False)) / (2 * h)
        for e in h * np.eye(theta.size)
    ]
    # (4.39)-(4.41) hold while the off-bound set stays put, which it does for steps of 1e-6
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6)


def test_error_bars_against_the_full_laplace_predictive_variance():
    # a white-noise term keeps Sigma well conditioned for the explicit Sigma^-1 of the reference
    X, y, kernel = problem(n=25, seed=5)
    kernel = kernel + White(0.01)
    model = BayesianSVR(kernel=kernel, beta=0.3, C=6.0, epsilon=0.12, optimize=False, tol=1e-11)
    model.fit(X, y)
    X_new = np.linspace(-4, 4, 9)[:, None]
    mean, std = model.predict(X_new, return_std=True)
    Sigma, k = kernel(X), kernel(X_new, X)
    f = Sigma @ model.dual_coef_
    _, Lambda = laplace_by_brute_force(Sigma, y, model.C_, model.epsilon_, 0.3, f)
    # Laplace posterior of f at the data: N(f_MP, (Sigma^-1 + C Lambda)^-1); condition the prior
    A = np.linalg.solve(Sigma, k.T)  # Sigma^-1 k
    posterior = np.linalg.inv(np.linalg.inv(Sigma) + model.C_ * Lambda)
    variance = kernel.diag(X_new) - np.sum(k.T * A, 0) + np.sum(A * (posterior @ A), 0)
    np.testing.assert_allclose(mean, A.T @ f, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(std**2, variance, rtol=1e-6, atol=1e-10)
    _, std_target = model.predict(X_new, return_std=True, include_noise=True)
    np.testing.assert_allclose(std_target**2, std**2 + model.noise_variance_, rtol=1e-12)


def test_beta_one_with_matched_noise_is_gaussian_process_regression():
    # beta = 1, 2 epsilon / C = sigma^2 and no residual beyond 2 epsilon: (4.27)-(4.28)
    X, y, kernel = problem(seed=6, noise=0.2)
    noise = 0.04
    epsilon = 1.0
    C = 2 * epsilon / noise
    model = BayesianSVR(kernel=kernel, beta=1.0, C=C, epsilon=epsilon, optimize=False, tol=1e-12)
    model.fit(X, y)
    assert model.on_bound_.size == 0
    gp = GaussianProcessRegressor(kernel=kernel, noise_variance=noise, optimize=False).fit(X, y)
    X_new = np.linspace(-3, 3, 13)[:, None]
    mean, std = model.predict(X_new, return_std=True)
    gp_mean, gp_std = gp.predict(X_new, return_std=True)
    np.testing.assert_allclose(mean, gp_mean, atol=1e-9)
    np.testing.assert_allclose(std, gp_std, atol=1e-9)


def test_small_beta_approaches_the_support_vector_regression():
    # beta -> 0 is the epsilon-insensitive loss and a large kappa_b acts as SVR's bias, so the
    # MAP function approaches scikit-learn's SVR with the same C, epsilon and kernel
    X, y, _ = problem(n=50, seed=7)
    base = RBF(lengthscale=0.8, variance=1.0)
    C, epsilon = 3.0, 0.1
    reference = SkSVR(kernel="precomputed", C=C, epsilon=epsilon, tol=1e-10).fit(base(X), y)
    target = reference.predict(base(X))
    errors = []
    for scale in (1e-2, 1e-3, 1e-4):
        kernel = base + Constant(1 / scale)
        solution = bsvr.solve_dual(kernel(X), y, C, epsilon, scale, tol=1e-11)
        errors.append(np.max(np.abs(kernel(X) @ solution.nu - target)))
    # the gap shrinks in proportion to beta and 1/kappa_b
    assert errors[0] < 0.05
    assert errors[1] < errors[0] / 5 and errors[2] < errors[1] / 5


def test_max_iter_limits_the_smo_solver_and_n_iter_counts_its_steps():
    X, y, _ = problem(n=30)
    model = BayesianSVR(optimize=False, C=5.0, epsilon=0.1).fit(X, y)
    assert model.n_iter_ >= 1 and model.optimizer_n_iter_ == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a limit that suffices warns about nothing
        limited = BayesianSVR(optimize=False, C=5.0, epsilon=0.1, max_iter=model.n_iter_)
        limited.fit(X, y)
    assert limited.n_iter_ == model.n_iter_  # the same solve, allowed just enough steps
    np.testing.assert_array_equal(limited.dual_coef_, model.dual_coef_)


def test_fit_raises_the_evidence_and_keeps_the_thesis_boxes():
    X, y, _ = problem(n=60, seed=8)
    start = BayesianSVR(optimize=False).fit(X, y)
    model = BayesianSVR().fit(X, y)
    assert model.log_marginal_likelihood_ > start.log_marginal_likelihood_
    assert 0.01 <= model.C_ <= 1000 and np.exp(-5) <= model.epsilon_ <= np.exp(-0.7)
    assert model.kernel_.k1.variance == pytest.approx(np.var(y))  # kappa_0 stays fixed
    assert set(model.support_) == set(model.off_bound_) | set(model.on_bound_)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"beta": 0.0}, "beta"),
        ({"beta": 1.5}, "beta"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -0.1}, "epsilon"),
        ({"C": -1.0}, "C"),
    ],
)
def test_bad_parameters_raise_value_errors(params, message):
    X, y, _ = problem(n=10)
    with pytest.raises(ValueError, match=message):
        BayesianSVR(optimize=False, **params).fit(X, y)


@pytest.mark.parametrize(
    "params, message", [({"beta": 0.0}, "beta"), ({"epsilon": 0.0}, "epsilon")]
)
def test_solve_dual_rejects_bad_silf_parameters(params, message):
    X, y, _ = problem(n=10)
    Sigma = RBF(lengthscale=1.0)(X)
    silf_parameters = {"C": 1.0, "epsilon": 0.1, "beta": 0.3, **params}
    with pytest.raises(ValueError, match=message):
        bsvr.solve_dual(Sigma, y, **silf_parameters)


def test_scikit_learn_estimator_checks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # two L-BFGS-B iterations per fit: the checks fit dozens of models, and the evidence
        # fit itself is tested above
        check_estimator(
            BayesianSVR(optimizer_max_iter=2),
            expected_failed_checks={
                "check_non_transformer_estimators_n_iter": (
                    "n_iter_ counts the SMO steps of the final MAP, which starts from the MAP "
                    "at the best evaluated point: 0 steps when that point is where L-BFGS-B "
                    "stopped"
                )
            },
        )
