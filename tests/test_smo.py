"""Tests of kmlib.smo: KKT conditions, a generic-QP cross-check, the certificate, the cache.

Tolerances come from the stopping rule. At a returned point m(alpha) - M(alpha) < tol, and
``duality_gap`` bounds f(alpha) - f* (it is at most tol * sum(C), usually far less). When Q is
positive definite, f(alpha) - f* >= lambda_min(Q) |alpha - alpha*|^2 / 2, so the distance to the
optimum is at most sqrt(2 gap / lambda_min). Quantities recomputed from scratch (the gradient,
the equality constraint) may differ from the solver's running values by rounding only, and
are compared at 1e-9 relative to their scale.
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from kmlib import kernels as K
from kmlib import smo

RNG_SEED = 20261122


def two_blobs(n, d=2, shift=1.0, seed=0):
    rng = np.random.default_rng(seed)
    t = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, d)) + shift * t[:, None]
    return X, t


def problem(kind, n, seed=0, C=1.0):
    """A member of the dual family: (rows, y, p, C, alpha0, sample_index, two_constraints)."""
    rng = np.random.default_rng(seed)
    if kind in ("svc", "nusvc"):
        X, t = two_blobs(n, seed=seed)
        rows = smo.KernelRows(K.RBF(lengthscale=0.8), X)
        if kind == "svc":
            Cv = C * rng.uniform(0.5, 2.0, n)  # per-variable bounds
            return rows, t, -1.0, Cv, None, None, False
        alpha0 = np.zeros(n)
        for sign in (1, -1):  # sum of alpha per class = nu n / 2 with nu = 0.4
            members = np.flatnonzero(t == sign)
            alpha0[members] = 0.4 * n / 2 / members.size
        return rows, t, 0.0, 1.0, alpha0, None, True
    if kind in ("svr", "nusvr"):
        X = rng.uniform(-3, 3, size=(n, 1))
        target = np.sin(X[:, 0]) + 0.2 * rng.normal(size=n)
        rows = smo.KernelRows(K.RBF(lengthscale=1.0), X)
        y = np.concatenate([np.ones(n), -np.ones(n)])
        s = np.tile(np.arange(n), 2)
        if kind == "svr":
            p = np.concatenate([0.1 - target, 0.1 + target])
            return rows, y, p, C, None, s, False
        alpha0 = np.full(2 * n, 0.5 * C * 0.5)  # sum alpha = sum alpha_hat = C nu n / 2
        return rows, y, np.concatenate([-target, target]), C, alpha0, s, True
    if kind == "oneclass":
        X = rng.normal(size=(n, 2))
        rows = smo.KernelRows(K.RBF(lengthscale=1.0), X)
        alpha0 = np.full(n, 0.3)  # sum = nu n with nu = 0.3
        return rows, np.ones(n), 0.0, 1.0, alpha0, None, False
    raise ValueError(kind)


def dense_Q(rows, y, s):
    Kfull = np.array([rows.row(i) for i in range(rows.n)])
    return np.outer(y, y) * Kfull[np.ix_(s, s)]


def groups(y, two):
    return [y > 0, y < 0] if two else [np.ones(y.size, dtype=bool)]


def kkt_violation(alpha, grad, y, C, two):
    """m(alpha) - M(alpha) recomputed from a gradient (largest over the groups)."""
    C = np.broadcast_to(C, alpha.shape)
    v = -y * grad
    worst = -np.inf
    for g in groups(y, two):
        up = np.where(y[g] > 0, alpha[g] < C[g], alpha[g] > 0)
        low = np.where(y[g] > 0, alpha[g] > 0, alpha[g] < C[g])
        worst = max(worst, v[g][up].max() - v[g][low].min())
    return worst


KINDS = ["svc", "nusvc", "svr", "nusvr", "oneclass"]


@pytest.mark.parametrize("kind", KINDS)
def test_solution_satisfies_the_kkt_conditions(kind):
    rows, y, p, C, alpha0, s, two = problem(kind, 60)
    tol = 1e-3
    res = smo.solve(rows, y, p, C, alpha0, sample_index=s, two_constraints=two, tol=tol)
    n_var = y.size
    s = np.arange(n_var) if s is None else s
    Cv = np.broadcast_to(C, (n_var,))
    p = np.broadcast_to(p, (n_var,))
    a0 = np.zeros(n_var) if alpha0 is None else alpha0
    assert res.converged
    # feasibility: the box, and the equality constraint(s) kept from the start
    assert np.all(res.alpha >= 0) and np.all(res.alpha <= Cv)
    for g in groups(y, two) if two else [np.ones(n_var, dtype=bool)]:
        assert abs(y[g] @ res.alpha[g] - y[g] @ a0[g]) <= 1e-9 * max(1.0, Cv.sum())
    # the running gradient is the true one
    Q = dense_Q(rows, y, s)
    grad = Q @ res.alpha + p
    assert_allclose(res.grad, grad, atol=1e-9 * np.abs(Q).sum(axis=1).max() * Cv.max())
    # stopping rule on the whole set, and the reported gap is that violation
    viol = kkt_violation(res.alpha, grad, y, Cv, two)
    assert viol < tol
    assert res.gap == pytest.approx(viol, abs=1e-9)
    assert res.objective == pytest.approx(
        0.5 * res.alpha @ Q @ res.alpha + p @ res.alpha, rel=1e-10, abs=1e-10
    )
    # the bias lies in [M, m] of its group: free variables sit at v = b up to tol
    v = -y * grad
    bs = np.atleast_1d(res.b)
    for g, b in zip(groups(y, two), bs):
        free = g & (res.alpha > 0) & (res.alpha < Cv)
        if free.any():
            assert np.all(np.abs(v[free] - b) < tol)


@pytest.mark.parametrize("kind", KINDS)
def test_agrees_with_a_generic_qp_solver(kind):
    """SLSQP on the same dual (n_var <= 40): both solutions carry a duality-gap certificate, the
    objectives agree within it, and the solutions lie within sqrt(2 gap) of the optimum in the
    seminorm sqrt(a^T Q a) (convexity: f(a) - f* >= 1/2 (a - a*)^T Q (a - a*) for feasible a)."""
    n = 20 if kind in ("svr", "nusvr") else 40
    rows, y, p, C, alpha0, s, two = problem(kind, n, seed=3)
    res = smo.solve(rows, y, p, C, alpha0, sample_index=s, two_constraints=two, tol=1e-6)
    n_var = y.size
    s = np.arange(n_var) if s is None else s
    Cv = np.broadcast_to(C, (n_var,)).astype(float)
    pv = np.broadcast_to(p, (n_var,)).astype(float)
    a0 = np.zeros(n_var) if alpha0 is None else np.asarray(alpha0, float)
    Q = dense_Q(rows, y, s)
    cons = [
        {
            "type": "eq",
            "fun": (lambda a, g=g: y[g] @ a[g] - y[g] @ a0[g]),
            "jac": (lambda a, g=g: np.where(g, y, 0.0)),
        }
        for g in groups(y, two)
    ]
    ref = minimize(
        lambda a: 0.5 * a @ Q @ a + pv @ a,
        a0,
        jac=lambda a: Q @ a + pv,
        bounds=list(zip(np.zeros(n_var), Cv)),
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    # SLSQP may stop with "positive directional derivative" once ftol is below what rounding
    # allows; its point is still usable if it is feasible and its own certificate is small
    a_ref = np.clip(ref.x, 0, Cv)
    for g in groups(y, two):
        assert abs(y[g] @ (a_ref[g] - a0[g])) <= 1e-10
    gap, _ = smo.duality_gap(res.alpha, res.grad, y, Cv, two_constraints=two)
    gap_ref, _ = smo.duality_gap(a_ref, Q @ a_ref + pv, y, Cv, two_constraints=two)
    assert gap <= 1e-5 and gap_ref <= 1e-6, (gap, gap_ref, ref.message)
    f_ref = 0.5 * a_ref @ Q @ a_ref + pv @ a_ref
    assert abs(res.objective - f_ref) <= max(gap, gap_ref) + 1e-9
    # in the SVR forms alpha_n and alpha_hat_n share a kernel column, so Q is singular and only
    # alpha - alpha_hat is determined: the Q-seminorm measures exactly that difference
    difference = res.alpha - a_ref
    distance = np.sqrt(max(difference @ Q @ difference, 0.0))
    assert distance <= np.sqrt(2 * gap) + np.sqrt(2 * gap_ref) + 1e-9


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_duality_gap_bounds_the_suboptimality_and_is_minimised_over_b():
    rows, y, p, C, _, _, _ = problem("svc", 50, seed=1)
    best = smo.solve(rows, y, p, C, tol=1e-10)
    dense_Q(rows, y, np.arange(50))
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(5):
        res = smo.solve(rows, y, p, C, tol=1e-10, max_iter=int(rng.integers(3, 40)))
        gap, _b = smo.duality_gap(res.alpha, res.grad, y, C)
        assert res.objective - best.objective <= gap + 1e-12
        # brute force over every breakpoint v_t: the returned b is a minimiser
        v = -y * res.grad
        values = [np.sum(C * np.maximum(y * (v - bb), 0) - res.alpha * y * (v - bb)) for bb in v]
        assert gap == pytest.approx(min(values), rel=1e-12, abs=1e-12)
    gap, _ = smo.duality_gap(best.alpha, best.grad, y, C)
    assert 0 <= gap <= 1e-10 * np.sum(C)  # at most tol * sum(C) at a point that stopped


def test_max_iter_warns_and_returns_the_best_point_found():
    rows, y, p, C, _, _, _ = problem("svc", 80)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        res = smo.solve(rows, y, p, C, max_iter=5)
    assert not res.converged and res.n_iter == 5
    assert res.gap >= 1e-3
    assert res.objective < 0.0  # below f(0) = 0: every step decreased f
    assert np.all(res.alpha >= 0) and np.all(res.alpha <= C)
    assert abs(y @ res.alpha) < 1e-12 * np.sum(C)


@pytest.mark.parametrize("kind", ["svc", "nusvr"])
def test_shrinking_and_the_row_cache_do_not_change_the_answer(kind):
    rows, y, p, C, alpha0, s, two = problem(kind, 300, seed=2)
    kw = {"sample_index": s, "two_constraints": two, "tol": 1e-3}
    full = smo.solve(rows, y, p, C, alpha0, **kw)
    # an LRU cache of three rows computes the same rows again and again: same arithmetic,
    # same iterates
    X = rows.X
    small = smo.KernelRows(rows.kernel, X, cache_size=3 * 8 * X.shape[0] / 2**20)
    assert small.mode == "cache" and rows.mode == "full"
    cached = smo.solve(small, y, p, C, alpha0, **kw)
    assert_array_equal(cached.alpha, full.alpha)
    assert cached.n_iter == full.n_iter
    assert small.n_computed > rows.n_computed
    # without shrinking the path differs; both are within their certificates of the optimum
    plain = smo.solve(rows, y, p, C, alpha0, shrinking=False, **kw)
    gap1, _ = smo.duality_gap(full.alpha, full.grad, y, C, two_constraints=two)
    gap2, _ = smo.duality_gap(plain.alpha, plain.grad, y, C, two_constraints=two)
    assert abs(full.objective - plain.objective) <= max(gap1, gap2)


def test_non_positive_curvature_is_safe_with_tau():
    """The sigmoid kernel is indefinite: a_ij can be <= 0 and tau keeps each step finite."""
    X, t = two_blobs(60, seed=4)
    kernel = K.Sigmoid(scale=2.0, bias=-1.0)
    Kfull = kernel(X)
    assert np.linalg.eigvalsh(Kfull)[0] < -1e-3  # really indefinite
    rows = smo.KernelRows(kernel, X)
    res = smo.solve(rows, t, -1.0, 1.0, tol=1e-3)
    assert res.converged
    grad = np.outer(t, t) * Kfull @ res.alpha - 1.0
    assert kkt_violation(res.alpha, grad, t, np.ones(60), False) < 1e-3
    assert np.all(np.isfinite(res.alpha)) and np.all((res.alpha >= 0) & (res.alpha <= 1))


def test_kernel_rows_match_the_kernel_in_every_mode():
    rng = np.random.default_rng(RNG_SEED)
    X = rng.normal(size=(40, 3))
    for kernel in (
        K.RBF(lengthscale=[0.5, 1.0, 2.0], variance=1.7),
        K.Matern(lengthscale=0.7, nu=2.5) * K.Constant(2.0) + K.White(0.3),  # fast rows
        K.Polynomial(degree=3, bias=0.5) + K.Linear(),  # no fast rows: kernel calls
        lambda A, B: (A @ B.T + 1.0) ** 2,  # a plain callable
    ):
        Kref = kernel(X) if isinstance(kernel, K.Kernel) else kernel(X, X)
        for rows in (
            smo.KernelRows(kernel, X),
            smo.KernelRows(kernel, X, cache_size=4 * 8 * 40 / 2**20),
            smo.KernelRows(matrix=Kref),
        ):
            assert_allclose(rows.diag, np.diag(Kref), rtol=1e-12)
            for s in [3, 17, 3, 39, 0, 17, 22, 5, 3]:  # repeats and evictions
                assert_allclose(rows.row(s), Kref[s], rtol=1e-12, atol=1e-14)
            w = rng.normal(size=6)
            cols = np.array([1, 4, 9, 17, 30, 39])
            rws = np.array([0, 2, 17, 38])
            assert_allclose(rows.dot(rws, cols, w), Kref[np.ix_(rws, cols)] @ w, rtol=1e-10)


def test_bad_input_is_rejected_with_the_argument_named():
    rows, y, p, C, _, _, _ = problem("svc", 10)
    with pytest.raises(ValueError, match="y must hold only"):
        smo.solve(rows, np.arange(10.0), p, C)
    with pytest.raises(ValueError, match="C must be"):
        smo.solve(rows, y, p, 0.0)
    with pytest.raises(ValueError, match="alpha0"):
        smo.solve(rows, y, p, 1.0, alpha0=np.full(10, 2.0))
    with pytest.raises(ValueError, match="sample_index"):
        smo.solve(rows, y, p, 1.0, sample_index=np.arange(10) + 5)
    with pytest.raises(ValueError, match="tol"):
        smo.solve(rows, y, p, 1.0, tol=0.0)
    with pytest.raises(ValueError, match="square"):
        smo.KernelRows(matrix=np.ones((3, 4)))
    with pytest.raises(ValueError, match="non-finite"):
        smo.KernelRows(matrix=np.full((3, 3), np.nan))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        smo.solve(rows, y, p, 1.0)  # a normal solve warns about nothing


@pytest.mark.parametrize(
    "cache_size, good_calls",
    [(200.0, 0), (3 * 8 * 30 / 2**20, 0), (3 * 8 * 30 / 2**20, 35)],
    ids=["whole-matrix", "row-cache", "row-cache-later"],
)
def test_a_kernel_that_turns_non_finite_stops_the_solver(cache_size, good_calls):
    """A kernel whose values are or go NaN gives an error, not an endless loop."""
    X, t = two_blobs(30, seed=2)
    calls = []

    def faulty(A, B):
        calls.append(1)
        K_AB = np.exp(-0.5 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))
        return K_AB if len(calls) <= good_calls else np.full_like(K_AB, np.nan)

    with pytest.raises(ValueError, match="kernel .*returned non-finite"):
        smo.solve(smo.KernelRows(faulty, X, cache_size=cache_size), t, -1.0, 10.0)
