"""kmlib.kernel_machines against scikit-learn on the same kernel features, and against the
optimality conditions of each objective."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import expit, log_softmax
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso, LogisticRegression, Ridge
from sklearn.utils.estimator_checks import parametrize_with_checks

from kmlib import kernel_machines as km
from kmlib.kernel_machines import L1VMClassifier, L1VMRegressor, L2VMClassifier, L2VMRegressor
from kmlib.kernels import RBF, Sigmoid

KERNEL = RBF(lengthscale=0.8)


def regression_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.sin(2.0 * X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


def classification_data(n=40, n_classes=2, seed=0):
    X, f = regression_data(n, seed)
    y = np.digitize(f, np.quantile(f, np.arange(1, n_classes) / n_classes))
    return X, y


def one_hot(y):
    return np.eye(y.max() + 1)[y]


def nll(Phi, y, W, b):
    """Negative log likelihood written out: logistic for one row of W, softmax otherwise."""
    eta = Phi @ W.T + b
    if W.shape[0] == 1:
        p = expit(eta[:, 0])
        return -np.sum(np.log(np.where(y == 1, p, 1.0 - p)))
    return -np.sum(log_softmax(eta, axis=1)[np.arange(len(y)), y])


def nll_gradient(Phi, y, W, b):
    """Gradient of :func:`nll` in W (shape of W) and in b."""
    eta = Phi @ W.T + b
    if W.shape[0] == 1:
        r = (expit(eta[:, 0]) - y)[:, None]
    else:
        r = np.exp(log_softmax(eta, axis=1)) - one_hot(y)
    return r.T @ Phi, r.sum(axis=0)


def assert_l1_kkt(g, w, alpha, rtol=1e-7):
    """Subgradient conditions of min f + alpha |w|_1 given the gradient g of f."""
    nonzero = w != 0
    np.testing.assert_allclose(g[nonzero], -alpha * np.sign(w[nonzero]), rtol=0, atol=rtol * alpha)
    assert np.all(np.abs(g[~nonzero]) <= alpha * (1 + rtol))


# ------------------------------------------------------------------------ regression
@pytest.mark.parametrize("kernel", [KERNEL, Sigmoid(scale=0.5, bias=-0.2)])
@pytest.mark.parametrize("alpha", [0.01, 1.0])
def test_l2vm_regressor_is_ridge_on_kernel_features(kernel, alpha):
    # the sigmoid kernel is not Mercer: the L2VM does not care (MLAPP 14.3.1)
    X, y = regression_data()
    X_new, _ = regression_data(7, seed=1)
    ours = L2VMRegressor(kernel=kernel, alpha=alpha).fit(X, y)
    theirs = Ridge(alpha=alpha, solver="cholesky").fit(kernel(X), y)
    np.testing.assert_allclose(ours.coef_[0], theirs.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.intercept_[0], theirs.intercept_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ours.predict(X_new), theirs.predict(kernel(X_new, X)), atol=1e-9)
    assert ours.coef_.shape == (1, 40) and ours.intercept_.shape == (1,)
    np.testing.assert_array_equal(ours.support_, np.arange(40))
    assert ours.n_iter_ == 1


def test_l2vm_regressor_gradient_vanishes():
    X, y = regression_data()
    model = L2VMRegressor(kernel=KERNEL, alpha=0.3).fit(X, y)
    Phi, w, b = KERNEL(X), model.coef_[0], model.intercept_[0]
    r = y - Phi @ w - b
    np.testing.assert_allclose(-Phi.T @ r + 0.3 * w, 0.0, atol=1e-9)
    np.testing.assert_allclose(r.sum(), 0.0, atol=1e-9)
    np.testing.assert_allclose(model.objective_, 0.5 * r @ r + 0.15 * w @ w, rtol=1e-12)


@pytest.mark.parametrize("alpha", [0.02, 0.3, 2.0])
def test_l1vm_regressor_is_lasso_on_kernel_features(alpha):
    X, y = regression_data()
    n = len(y)
    Phi = KERNEL(X)
    ours = L1VMRegressor(kernel=KERNEL, alpha=alpha).fit(X, y)
    # scikit-learn's Lasso minimises |y - Xw - b|^2 / (2n) + a |w|_1, so a = alpha / n
    theirs = Lasso(alpha=alpha / n, tol=1e-14, max_iter=1_000_000).fit(Phi, y)

    def objective(w, b):
        return 0.5 * np.sum((y - Phi @ w - b) ** 2) + alpha * np.abs(w).sum()

    F_ours = objective(ours.coef_[0], ours.intercept_[0])
    F_theirs = objective(theirs.coef_, theirs.intercept_)
    np.testing.assert_allclose(ours.objective_, F_ours, rtol=1e-12)
    assert F_ours <= F_theirs + 1e-10 * F_theirs
    np.testing.assert_allclose(F_ours, F_theirs, rtol=1e-10)
    np.testing.assert_allclose(ours.coef_[0], theirs.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_[0], theirs.intercept_, atol=1e-6)
    np.testing.assert_array_equal(ours.support_, np.flatnonzero(theirs.coef_))


@pytest.mark.parametrize("alpha", [0.02, 0.3])
def test_l1vm_regressor_satisfies_the_subgradient_conditions(alpha):
    X, y = regression_data()
    model = L1VMRegressor(kernel=KERNEL, alpha=alpha).fit(X, y)
    Phi, w, b = KERNEL(X), model.coef_[0], model.intercept_[0]
    r = y - Phi @ w - b
    np.testing.assert_allclose(r.sum(), 0.0, atol=1e-8)  # the intercept is free
    assert_l1_kkt(-Phi.T @ r, w, alpha)
    assert 0 < model.support_.size < len(y)
    assert np.all(w[np.setdiff1d(np.arange(len(y)), model.support_)] == 0.0)  # exact zeros
    np.testing.assert_array_equal(model.support_vectors_, X[model.support_])


def test_l1vm_regressor_sparsity_and_alpha_max():
    X, y = regression_data()
    Phi = KERNEL(X)
    # w = 0 is optimal iff alpha >= |Phi_c^T y_c|_inf (the subgradient condition at 0)
    alpha_max = np.max(np.abs((Phi - Phi.mean(0)).T @ (y - y.mean())))
    counts = [
        L1VMRegressor(kernel=KERNEL, alpha=f * alpha_max).fit(X, y).support_.size
        for f in (1e-3, 1e-2, 1e-1, 0.5, 0.999, 1.001)
    ]
    assert counts[-2] == 1 and counts[-1] == 0
    assert counts[0] > counts[2] > counts[-2]
    empty = L1VMRegressor(kernel=KERNEL, alpha=1.001 * alpha_max).fit(X, y)
    np.testing.assert_allclose(empty.predict(X), y.mean())
    assert empty.support_vectors_.shape == (0, 2)


def test_prediction_uses_the_kept_basis_functions_only():
    X, y = regression_data()
    X_new, _ = regression_data(9, seed=3)
    model = L1VMRegressor(kernel=KERNEL, alpha=0.3).fit(X, y)
    full = KERNEL(X_new, X) @ model.coef_[0] + model.intercept_[0]
    np.testing.assert_allclose(model.predict(X_new), full, atol=1e-12)


# ------------------------------------------------------------------------ classification
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("alpha", [0.1, 2.0])
def test_l2vm_classifier_is_l2_logistic_regression_on_kernel_features(n_classes, alpha):
    X, y = classification_data(n_classes=n_classes)
    X_new, _ = classification_data(8, seed=2)
    Phi = KERNEL(X)
    ours = L2VMClassifier(kernel=KERNEL, alpha=alpha).fit(X, y)
    # C * sum NLL + |W|^2 / 2 is ours divided by alpha when C = 1 / alpha; the intercept is
    # not penalised and softmax intercepts come out centred (they sum to zero)
    theirs = LogisticRegression(C=1 / alpha, solver="newton-cholesky", tol=1e-12, max_iter=500)
    theirs.fit(Phi, y)
    n_out = 1 if n_classes == 2 else n_classes
    assert ours.coef_.shape == (n_out, 40)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-7)
    np.testing.assert_allclose(
        ours.predict_proba(X_new), theirs.predict_proba(KERNEL(X_new, X)), atol=1e-8
    )
    F = nll(Phi, y, ours.coef_, ours.intercept_) + 0.5 * alpha * np.sum(ours.coef_**2)
    F_theirs = nll(Phi, y, theirs.coef_, theirs.intercept_) + 0.5 * alpha * np.sum(theirs.coef_**2)
    np.testing.assert_allclose(ours.objective_, F, rtol=1e-12)
    assert F <= F_theirs + 1e-12 * F_theirs
    # stationarity, with the gradient written out here
    gW, gb = nll_gradient(Phi, y, ours.coef_, ours.intercept_)
    np.testing.assert_allclose(gW + alpha * ours.coef_, 0.0, atol=1e-8)
    np.testing.assert_allclose(gb, 0.0, atol=1e-8)
    np.testing.assert_array_equal(ours.support_, np.arange(40))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_l1vm_classifier_is_l1_logistic_regression_on_kernel_features(n_classes):
    X, y = classification_data(n_classes=n_classes)
    Phi = KERNEL(X)
    alpha = 1.0
    ours = L1VMClassifier(kernel=KERNEL, alpha=alpha).fit(X, y)
    # scikit-learn >= 1.8 spells the L1 penalty l1_ratio=1; saga is the solver that takes it
    # with more than two classes, and it optimises the softmax (multinomial) loss jointly
    theirs = LogisticRegression(C=1 / alpha, l1_ratio=1.0, solver="saga", tol=1e-12)
    theirs.set_params(max_iter=200_000).fit(Phi, y)

    def objective(W, b):
        return nll(Phi, y, W, b) + alpha * np.abs(W).sum()

    F, F_theirs = objective(ours.coef_, ours.intercept_), objective(theirs.coef_, theirs.intercept_)
    np.testing.assert_allclose(ours.objective_, F, rtol=1e-12)
    assert F <= F_theirs + 1e-10 * F_theirs
    np.testing.assert_allclose(F, F_theirs, rtol=1e-9)
    # the optimum is unique here (three classes: the L1 norm picks one point on the softmax's
    # line of equivalent weights per basis function), so the weights must agree as well
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-6)
    np.testing.assert_array_equal(ours.support_, np.flatnonzero(np.any(theirs.coef_, axis=0)))


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("alpha", [0.05, 0.5])
def test_l1vm_classifier_satisfies_the_subgradient_conditions(n_classes, alpha):
    X, y = classification_data(n_classes=n_classes)
    model = L1VMClassifier(kernel=KERNEL, alpha=alpha).fit(X, y)
    gW, gb = nll_gradient(KERNEL(X), y, model.coef_, model.intercept_)
    np.testing.assert_allclose(gb, 0.0, atol=1e-7 * alpha)
    assert_l1_kkt(gW.ravel(), model.coef_.ravel(), alpha)
    kept = np.any(model.coef_ != 0, axis=0)
    np.testing.assert_array_equal(model.support_, np.flatnonzero(kept))
    assert 0 < model.support_.size < len(y)
    if n_classes > 2:
        np.testing.assert_allclose(model.intercept_.sum(), 0.0, atol=1e-12)
        # with an odd number of classes no basis function can be nonzero in every class:
        # shifting its column of W by a constant leaves the likelihood unchanged
        assert not np.any(np.all(model.coef_ != 0, axis=0))


def test_l1vm_classifier_sparsity_grows_with_alpha_and_alpha_max():
    X, y = classification_data(n=60)
    Phi = KERNEL(X)
    t = (y == 1).astype(float)
    alpha_max = np.max(np.abs(Phi.T @ (t.mean() - t)))  # weight gradient at W = 0, b fitted
    # (below about 0.03 alpha_max these training classes become separable and the support
    # stops growing: the weights grow instead)
    counts = [
        L1VMClassifier(kernel=KERNEL, alpha=f * alpha_max).fit(X, y).support_.size
        for f in (0.03, 0.1, 0.3, 0.999, 1.001)
    ]
    assert counts[0] > counts[1] > counts[2] > counts[3] == 1 and counts[4] == 0
    empty = L1VMClassifier(kernel=KERNEL, alpha=1.001 * alpha_max).fit(X, y)
    np.testing.assert_allclose(empty.predict_proba(X)[:, 1], t.mean())


def test_classifier_outputs_follow_classes_order_and_agree():
    X, y = classification_data(n=45, n_classes=3)
    labels = np.array(["setosa", "beta", "alpha"])[y]
    for Model in (L1VMClassifier, L2VMClassifier):
        model = Model(kernel=KERNEL, alpha=0.3).fit(X, labels)
        np.testing.assert_array_equal(model.classes_, ["alpha", "beta", "setosa"])
        P = model.predict_proba(X)
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        eta = model.decision_function(X)
        np.testing.assert_allclose(P, np.exp(log_softmax(eta, axis=1)), rtol=1e-12)
        np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(P, axis=1)])
        binary = Model(kernel=KERNEL, alpha=0.3).fit(X, labels == "beta")
        f = binary.decision_function(X)
        np.testing.assert_allclose(binary.predict_proba(X)[:, 1], expit(f))
        np.testing.assert_array_equal(binary.predict(X), f > 0)


# ------------------------------------------------------------------------ the solver pieces
@pytest.mark.parametrize("kind,n_out", [("squared", 1), ("binomial", 1), ("multinomial", 3)])
def test_loss_gradient_and_hessian_match_finite_differences(kind, n_out):
    rng = np.random.default_rng(4)
    X, f = regression_data(12, seed=5)
    Phi1 = np.column_stack([KERNEL(X, X[:5]), np.ones(12)])
    if kind == "squared":
        T = f[:, None]
    elif kind == "binomial":
        T = (f > 0).astype(float)[:, None]
    else:
        T = one_hot(np.digitize(f, np.quantile(f, [1 / 3, 2 / 3])))
    theta = rng.normal(size=(n_out, 6))
    _, G, H = km._derivatives(kind, Phi1, T, theta)
    h = 1e-6
    steps = h * np.eye(theta.size)
    G_fd = np.array(
        [
            km._derivatives(kind, Phi1, T, theta + e.reshape(theta.shape))[0]
            - km._derivatives(kind, Phi1, T, theta - e.reshape(theta.shape))[0]
            for e in steps
        ]
    ) / (2 * h)
    np.testing.assert_allclose(G.ravel(), G_fd, rtol=1e-6, atol=1e-7)
    H_fd = np.array(
        [
            km._derivatives(kind, Phi1, T, theta + e.reshape(theta.shape))[1].ravel()
            - km._derivatives(kind, Phi1, T, theta - e.reshape(theta.shape))[1].ravel()
            for e in steps
        ]
    ) / (2 * h)
    np.testing.assert_allclose(H, H_fd, rtol=1e-6, atol=1e-7)


def test_quadratic_lasso_matches_brute_force_over_sign_patterns():
    rng = np.random.default_rng(6)
    m = 5
    B = rng.normal(size=(8, m))
    Q, r = B.T @ B, 3.0 * rng.normal(size=m)
    lam = np.array([0.0, 1.0, 1.0, 2.0, 0.5])  # the first coordinate is unpenalised

    def objective(x):
        return 0.5 * x @ Q @ x - r @ x + lam @ np.abs(x)

    # every orthant (sign -1, 0 or +1 per penalised coordinate): solve and keep feasible points
    best = np.inf
    for pattern in itertools.product((-1, 0, 1), repeat=m - 1):
        s = np.array((0,) + pattern)
        on = np.r_[True, s[1:] != 0]
        x = np.zeros(m)
        x[on] = np.linalg.solve(Q[np.ix_(on, on)], r[on] - lam[on] * s[on])
        if np.all(np.sign(x[1:][on[1:]]) == s[1:][on[1:]]):
            best = min(best, objective(x))
    x, steps, converged = km._quadratic_lasso(Q, r, lam, np.zeros(m), 1e-12, 100)
    assert converged and steps < 100
    np.testing.assert_allclose(objective(x), best, rtol=1e-12)
    assert np.any(x[1:] == 0.0)  # this instance has an exact zero
    g = Q @ x - r
    np.testing.assert_allclose(km._minimum_norm_subgradient(g, x, lam), 0.0, atol=1e-10)


# ------------------------------------------------------------------------ bad input and limits
ESTIMATORS = [L2VMRegressor, L1VMRegressor, L2VMClassifier, L1VMClassifier]


@pytest.mark.parametrize("Model", ESTIMATORS)
@pytest.mark.parametrize("alpha", [-1.0, 0.0, np.nan, np.inf, "1"])
def test_bad_alpha_is_rejected(Model, alpha):
    X, y = classification_data()
    with pytest.raises(ValueError, match="alpha must be a positive finite number"):
        Model(alpha=alpha).fit(X, y)


@pytest.mark.parametrize("Model", ESTIMATORS)
def test_bad_data_and_kernel_are_rejected(Model):
    X, y = classification_data()
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Model().fit(X_nan, y)
    with pytest.raises(ValueError, match="kernel must be"):
        Model(kernel="rbf").fit(X, y)
    with pytest.raises(ValueError, match="non-finite"):
        Model(kernel=lambda A, B: np.full((len(A), len(B)), np.inf)).fit(X, y)


@pytest.mark.parametrize("Model", [L1VMRegressor, L2VMClassifier, L1VMClassifier])
def test_bad_solver_settings_are_rejected(Model):
    X, y = classification_data()
    with pytest.raises(ValueError, match="tol"):
        Model(tol=-1e-3).fit(X, y)
    with pytest.raises(ValueError, match="max_iter"):
        Model(max_iter=0).fit(X, y)


@pytest.mark.parametrize("Model", [L2VMClassifier, L1VMClassifier])
def test_one_class_is_rejected(Model):
    X, _ = classification_data()
    with pytest.raises(ValueError, match="at least two classes"):
        Model().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="Unknown label type"):
        Model().fit(X, np.linspace(0, 1, len(X)))


@pytest.mark.parametrize("Model", [L1VMRegressor, L2VMClassifier, L1VMClassifier])
def test_iteration_limit_warns_and_keeps_the_best_point(Model):
    X, y = classification_data(n_classes=3)
    converged = Model(kernel=KERNEL, alpha=0.05).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        stopped = Model(kernel=KERNEL, alpha=0.05, max_iter=1).fit(X, y)
    assert stopped.n_iter_ == 1
    # the solvers start at W = 0 with the intercepts fitted; one step is better than that
    # start and worse than the optimum
    if Model is L1VMRegressor:
        start = 0.5 * np.sum((y - y.mean()) ** 2)
    else:
        start = -np.sum(np.log(np.bincount(y)[y] / len(y)))
    assert converged.objective_ < stopped.objective_ < start


@parametrize_with_checks([Model() for Model in ESTIMATORS])
def test_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


@pytest.mark.parametrize("Model", [L1VMRegressor, L2VMClassifier, L1VMClassifier])
def test_constant_inputs_stop_at_the_start_which_is_the_optimum(Model):
    """Identical inputs make every kernel feature constant: W = 0 with the intercepts fitted
    is the optimum, and its weight gradient is rounding noise, so a tol relative to it could
    never be met (L1VMClassifier spent its whole max_iter on it, 64 s on larger data). The
    solvers return the start, converged, without a ConvergenceWarning."""
    X = np.ones((30, 2))
    y = np.repeat([0, 1], [18, 12])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # the constant-kernel warning
        model = Model().fit(X, y)
    assert model.n_iter_ == 0
    np.testing.assert_array_equal(model.coef_, 0.0)
    start = np.mean(y) if Model is L1VMRegressor else np.log(12 / 18)
    np.testing.assert_allclose(model.intercept_, start, rtol=1e-12)


def test_mixed_string_and_integer_labels_are_refused_clearly():
    X, _ = classification_data(n=6)
    y = np.array([1, "cat", 1, "cat", 1, "cat"], dtype=object)
    with pytest.raises(ValueError, match="y mixes strings with labels of another type"):
        L2VMClassifier().fit(X, y)
