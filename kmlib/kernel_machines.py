r"""Kernel machines: generalised linear models on kernel features (MLAPP 14.3).

A kernel machine (MLAPP 14.3.1) is a GLM whose input is the kernelised feature vector of
MLAPP (14.28), :math:`\boldsymbol\phi(\mathbf x) = [k(\mathbf x, \boldsymbol\mu_1), \dots,
k(\mathbf x, \boldsymbol\mu_K)]`. Here the centres are the :math:`N` training inputs
(MLAPP (14.29)), so the design matrix is the :math:`N\times N` matrix
:math:`\Phi_{nm} = k(\mathbf x_n, \mathbf x_m)`. It is only a design matrix: the kernel need not
be a Mercer kernel. Each model adds an unpenalised intercept :math:`\mathbf b` and penalises the
weights :math:`\mathbf W` (one row of :math:`N` weights per output), which is what makes the
methods differ (MLAPP 14.3.2):

* ``L2VMRegressor``: :math:`\tfrac12\lVert\mathbf y - \boldsymbol\Phi\mathbf w - b\mathbf 1\rVert^2
  + \tfrac\alpha2\lVert\mathbf w\rVert_2^2`, solved in closed form (one Cholesky solve);
* ``L1VMRegressor``: :math:`\tfrac12\lVert\mathbf y - \boldsymbol\Phi\mathbf w - b\mathbf 1\rVert^2
  + \alpha\lVert\mathbf w\rVert_1`, by proximal Newton;
* ``L2VMClassifier``: :math:`-\sum_n\log p(y_n\mid\mathbf x_n) +
  \tfrac\alpha2\lVert\mathbf W\rVert_F^2`, by Newton's method (IRLS);
* ``L1VMClassifier``: :math:`-\sum_n\log p(y_n\mid\mathbf x_n) +
  \alpha\sum_{k,m}\lvert W_{km}\rvert`, by proximal Newton.

With two classes :math:`p(y = c_1\mid\mathbf x) = \sigma(\mathbf w^T\boldsymbol\phi(\mathbf x)
+ b)` (one row of weights); with :math:`C > 2` classes the model is the multinomial (softmax)
GLM with one row per class, so it is natively multiclass (Table 14.1). The L1 penalty is
elementwise; MLAPP's remark that a multiclass L1VM wants the group lasso is not followed here.

**Solvers.** ``L2VMRegressor`` eliminates the intercept by centring and solves
:math:`(\boldsymbol\Phi_c^T\boldsymbol\Phi_c + \alpha\mathbf I)\mathbf w =
\boldsymbol\Phi_c^T\mathbf y_c` by Cholesky. ``L2VMClassifier`` runs Newton's method (IRLS) with
a backtracking line search on all weights and intercepts. The L1 models run a proximal Newton
method: each iteration minimises the quadratic model of the smooth part plus the exact L1 term,

.. math:: \min_{\boldsymbol\theta}\ \mathbf g^T(\boldsymbol\theta - \boldsymbol\theta_t) +
          \tfrac12(\boldsymbol\theta - \boldsymbol\theta_t)^T(\mathbf H + \tau\mathbf I)
          (\boldsymbol\theta - \boldsymbol\theta_t) + \alpha\lVert\mathbf W\rVert_1,

with the feature-sign active-set method of Lee et al. (2007), which solves a linear system on
the active set at each step and so returns exact zeros; then a backtracking line search. A
tiny :math:`\tau` (``PROXIMAL_DAMPING`` times the mean diagonal of :math:`\mathbf H`) keeps
the active-set systems positive definite; it does not move the fixed point.

**Stopping rule.** All iterative solvers stop on a measured optimality condition: the largest
entry of the minimum-norm subgradient of the objective (the gradient for the L2 models; for the
L1 models :math:`g_j + \alpha\,\mathrm{sign}(w_j)` where :math:`w_j \ne 0` and
:math:`\max(\lvert g_j\rvert - \alpha, 0)` where :math:`w_j = 0`; the gradient for intercepts)
is at most ``tol`` times the largest weight gradient at the start, :math:`\mathbf W = 0` with the
intercepts fitted. That start value is :math:`\alpha_{\max}`, the smallest L1 penalty for which
:math:`\mathbf W = 0` is optimal.

For multiclass models the intercepts are defined only up to a common shift; the solvers fix the
last one at zero and report them centred (summing to zero), as scikit-learn does.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.special import expit, log_expit, log_softmax, logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from . import _linalg
from ._chunks import in_blocks
from ._kernel_checks import check_kernel, warn_if_constant
from ._newton import damped_step
from ._validation import check_positive_int, check_real, class_labels, validate_data
from .kernels import RBF, design_matrix

__all__ = ["L1VMClassifier", "L1VMRegressor", "L2VMClassifier", "L2VMRegressor"]

#: Relative damping :math:`\tau` of the proximal Newton model (times the mean diagonal of H).
PROXIMAL_DAMPING = 1e-12
#: Fraction of the outer tolerance to which each inner (active-set) problem is solved.
INNER_TOLERANCE = 0.1


# ------------------------------------------------------------------------- the smooth losses
def _loss(kind, eta, T):
    r"""Negative log likelihood of the linear predictors.

    Parameters
    ----------
    kind : {"squared", "binomial", "multinomial"}
    eta : ndarray of shape (n, n_outputs)
        Linear predictors :math:`\boldsymbol\Phi\mathbf W^T + \mathbf b`.
    T : ndarray of shape (n, n_outputs)
        Targets: real values, 0/1 labels, or one-hot rows.

    Returns
    -------
    float
    """
    if kind == "squared":
        return 0.5 * np.sum((T - eta) ** 2)
    if kind == "binomial":
        return -np.sum(log_expit((2.0 * T - 1.0) * eta))  # -log sigma(+-eta)
    return np.sum(logsumexp(eta, axis=1)) - np.sum(T * eta)  # -sum_n log softmax(eta_n)_{y_n}


def _loss_derivatives(kind, eta, T):
    r"""Derivatives of :func:`_loss` with respect to the linear predictors.

    Returns
    -------
    d : ndarray of shape (n, n_outputs)
        :math:`\partial f/\partial\eta_{nk}`.
    curvature : ndarray of shape (n, n_outputs, n_outputs)
        :math:`\partial^2 f/\partial\eta_{nk}\partial\eta_{nl}`: 1 for squared error,
        :math:`\sigma(1-\sigma)` for the logistic, :math:`p_k(\delta_{kl} - p_l)` for the softmax.
    """
    if kind == "squared":
        return eta - T, np.ones((eta.shape[0], 1, 1))
    if kind == "binomial":
        p = expit(eta)
        return p - T, (p * expit(-eta))[:, :, np.newaxis]
    P = np.exp(log_softmax(eta, axis=1))
    curvature = -P[:, :, np.newaxis] * P[:, np.newaxis, :]
    curvature[:, np.arange(P.shape[1]), np.arange(P.shape[1])] += P
    return P - T, curvature


def _derivatives(kind, Phi1, T, theta):
    r"""Smooth loss, gradient and Hessian in the parameters :math:`\boldsymbol\theta`.

    Parameters
    ----------
    kind : {"squared", "binomial", "multinomial"}
    Phi1 : ndarray of shape (n, n + 1)
        The design matrix with a column of ones appended for the intercept.
    T : ndarray of shape (n, n_outputs)
    theta : ndarray of shape (n_outputs, n + 1)
        Row k holds the weights of output k followed by its intercept.

    Returns
    -------
    f : float
    G : ndarray of shape (n_outputs, n + 1)
    H : ndarray of shape (n_outputs * (n + 1), n_outputs * (n + 1))
        In the row-major order of ``theta``.
    """
    eta = Phi1 @ theta.T
    d, curvature = _loss_derivatives(kind, eta, T)
    n_out, P = theta.shape
    H = np.empty((n_out * P, n_out * P))
    for k in range(n_out):
        for m in range(k, n_out):
            block = (Phi1 * curvature[:, k, m][:, np.newaxis]).T @ Phi1
            H[k * P : (k + 1) * P, m * P : (m + 1) * P] = block
            H[m * P : (m + 1) * P, k * P : (k + 1) * P] = block.T
    return _loss(kind, eta, T), d.T @ Phi1, H


def _penalty(theta, alpha, penalty):
    """The penalty on the weights (every column of ``theta`` but the last)."""
    W = theta[:, :-1]
    if penalty == "l2":
        return 0.5 * alpha * np.sum(W**2)
    return alpha * np.sum(np.abs(W))


def _line_search(kind, Phi1, T, theta, direction, alpha, penalty, F, slope):
    """Damped step along ``direction`` (:func:`kmlib._newton.damped_step`); 0.0 on failure."""
    eta = Phi1 @ theta.T
    eta_d = Phi1 @ direction.T

    def objective_at(step):
        trial = theta + step * direction
        return _loss(kind, eta + step * eta_d, T) + _penalty(trial, alpha, penalty)

    return damped_step(objective_at, F, slope)[0]


def _start_scale(kind, Phi1, T, theta0):
    r"""Largest weight gradient at the start (:math:`\alpha_{\max}`), the unit of ``tol``.

    None when every weight gradient there is zero up to its rounding error (the usual bound
    :math:`n\,\epsilon \sum_n |d_n \Phi_{nj}|` of a sum of :math:`n` products): then the
    start, :math:`\mathbf W = 0` with the intercepts fitted, is the optimum for every
    ``alpha``. That happens when the design matrix is constant (all inputs alike); a ``tol``
    relative to a gradient that is only rounding noise could never be met.
    """
    d = _loss_derivatives(kind, Phi1 @ theta0.T, T)[0]
    if Phi1.shape[1] == 1:
        return 1.0
    G = d.T @ Phi1[:, :-1]
    rounding = Phi1.shape[0] * np.finfo(np.float64).eps * (np.abs(d).T @ np.abs(Phi1[:, :-1]))
    if np.all(np.abs(G) <= rounding):
        return None
    return np.max(np.abs(G))


# ------------------------------------------------------------------------- the L2 solver
def _newton(kind, Phi1, T, theta0, free, alpha, tol, max_iter):
    r"""Minimise :math:`f(\boldsymbol\theta) + \tfrac\alpha2\lVert\mathbf W\rVert^2` by Newton.

    Parameters
    ----------
    free : ndarray of bool, shape (n_outputs, n + 1)
        Parameters that are optimised (the others stay at their value in ``theta0``).

    Returns
    -------
    theta, n_iter, converged, objective
    """
    theta = theta0.copy()
    weights = np.zeros_like(theta, dtype=bool)
    weights[:, :-1] = True
    scale = _start_scale(kind, Phi1, T, theta0)
    if scale is None:  # the start is the optimum: no penalty at W = 0
        return theta, 0, True, _loss(kind, Phi1 @ theta.T, T)
    flat_free = free.ravel()
    ridge = (alpha * weights).ravel()[flat_free]
    for n_iter in range(max_iter + 1):
        f, G, H = _derivatives(kind, Phi1, T, theta)
        G = G + alpha * theta * weights  # gradient of the penalised objective
        F = f + _penalty(theta, alpha, "l2")
        g = G.ravel()[flat_free]
        if np.max(np.abs(g), initial=0.0) <= tol * scale:
            return theta, n_iter, True, F
        if n_iter == max_iter:
            break
        A = H[np.ix_(flat_free, flat_free)]
        A[np.diag_indices_from(A)] += ridge
        step = np.zeros(theta.size)
        step[flat_free] = -_linalg.solve_psd(A, g)  # Newton direction (IRLS)
        direction = step.reshape(theta.shape)
        t = _line_search(kind, Phi1, T, theta, direction, alpha, "l2", F, g @ step[flat_free])
        if t == 0.0:
            break
        theta = theta + t * direction
    return theta, n_iter, False, F


# ------------------------------------------------------------------------- the L1 solvers
def _quadratic_lasso(Q, r, lam, x0, eps, budget):
    r"""Feature-sign search for :math:`\min_x \tfrac12 x^TQx - r^Tx + \sum_j\lambda_j|x_j|`.

    The active-set method of Lee, Battle, Raina & Ng (2007). Coordinates with
    :math:`\lambda_j = 0` are always active. Each step guesses the signs of the active
    coordinates, solves the linear system of that orthant, and walks towards its solution,
    stopping at the best point among the zero crossings on the way, where a coordinate leaves
    the active set exactly at zero. When the active coordinates are optimal, the inactive one
    whose gradient most exceeds its :math:`\lambda_j` joins; the search ends when none exceeds
    it by more than ``eps``. Every step lowers the objective strictly.

    Parameters
    ----------
    Q : ndarray of shape (m, m)
        Symmetric positive definite.
    r : ndarray of shape (m,)
    lam : ndarray of shape (m,)
        Penalty weights, non-negative.
    x0 : ndarray of shape (m,)
        Starting point.
    eps : float
        Tolerance on :math:`|g_j| - \lambda_j` for the inactive coordinates.
    budget : int
        Largest number of steps (linear solves).

    Returns
    -------
    x : ndarray of shape (m,)
    n_steps : int
    converged : bool
    """
    x = x0.copy()
    unpenalised = lam == 0
    signs = np.sign(x)
    active = unpenalised | (x != 0)
    grad = Q[:, active] @ x[active] - r
    optimal_on_active = np.all(np.abs(grad + lam * signs)[active] <= eps)  # e.g. a warm start
    for n_steps in range(budget + 1):
        active = unpenalised | (x != 0)
        if optimal_on_active:
            grad = Q[:, active] @ x[active] - r
            excess = np.where(active, -np.inf, np.abs(grad) - lam)
            j = int(np.argmax(excess))
            if excess[j] <= eps:
                return x, n_steps, True
            active[j] = True
            signs[j] = -np.sign(grad[j])  # the direction that lowers the objective
        if n_steps == budget:
            break
        idx = np.flatnonzero(active)
        s = np.where(unpenalised[idx], 0.0, signs[idx])
        L, _ = _linalg.cholesky(Q[np.ix_(idx, idx)])
        target = _linalg.cho_solve(L, r[idx] - lam[idx] * s)  # optimum of the orthant
        current = x[idx]
        # zero crossings of penalised coordinates that would leave their orthant
        leaving = (~unpenalised[idx]) & (np.sign(target) != s)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_cross = np.where(leaving, current / (current - target), np.inf)
        candidates = np.unique(np.concatenate([t_cross[(t_cross > 0) & (t_cross < 1)], [1.0]]))
        points = current + candidates[:, np.newaxis] * (target - current)
        Qpp = points @ Q[np.ix_(idx, idx)]
        values = 0.5 * np.sum(Qpp * points, axis=1) - points @ r[idx] + np.abs(points) @ lam[idx]
        best = int(np.argmin(values))
        t = candidates[best]
        new = points[best]
        new[leaving & (t_cross == t)] = 0.0  # exactly zero where the walk stopped
        x[idx] = new
        signs = np.sign(x)
        optimal_on_active = t == 1.0
    return x, budget, False


def _proximal_newton(kind, Phi1, T, theta0, free, alpha, tol, max_iter):
    r"""Minimise :math:`f(\boldsymbol\theta) + \alpha\lVert\mathbf W\rVert_1` by proximal Newton.

    ``max_iter`` bounds the total number of active-set steps (linear solves).

    Returns
    -------
    theta, n_steps, converged, objective
    """
    theta = theta0.copy()
    flat_free = free.ravel()
    lam = np.zeros(theta.shape)
    lam[:, :-1] = alpha
    lam = lam.ravel()[flat_free]
    scale = _start_scale(kind, Phi1, T, theta0)
    if scale is None:  # the start is the optimum: no penalty at W = 0
        return theta, 0, True, _loss(kind, Phi1 @ theta.T, T)
    eps = INNER_TOLERANCE * tol * scale
    n_steps = 0
    while True:
        f, G, H = _derivatives(kind, Phi1, T, theta)
        F = f + _penalty(theta, alpha, "l1")
        x = theta.ravel()[flat_free]
        g = G.ravel()[flat_free]
        if np.max(np.abs(_minimum_norm_subgradient(g, x, lam)), initial=0.0) <= tol * scale:
            return theta, n_steps, True, F
        if n_steps >= max_iter:
            break
        Q = H[np.ix_(flat_free, flat_free)]
        Q[np.diag_indices_from(Q)] += PROXIMAL_DAMPING * np.mean(np.diag(Q))
        x_new, steps, _ = _quadratic_lasso(Q, Q @ x - g, lam, x, eps, max_iter - n_steps)
        n_steps += max(steps, 1)
        d = x_new - x
        slope = g @ d + lam @ (np.abs(x_new) - np.abs(x))
        if not slope < 0:
            break  # the model sees no descent: rounding has taken over
        direction = np.zeros(theta.size)
        direction[flat_free] = d
        direction = direction.reshape(theta.shape)
        t = _line_search(kind, Phi1, T, theta, direction, alpha, "l1", F, slope)
        if t == 0.0:
            break
        if t == 1.0:
            new_theta = np.zeros(theta.size)
            new_theta[flat_free] = x_new  # keep the exact zeros of the inner solution
            new_theta[~flat_free] = theta.ravel()[~flat_free]
            theta = new_theta.reshape(theta.shape)
        else:
            theta = theta + t * direction
    return theta, n_steps, False, F


def _minimum_norm_subgradient(g, x, lam):
    r"""The element of :math:`\partial(f + \sum_j\lambda_j|x_j|)` nearest zero.

    :math:`g_j + \lambda_j\,\mathrm{sign}(x_j)` where :math:`x_j \ne 0`, and
    :math:`\mathrm{sign}(g_j)\max(|g_j| - \lambda_j, 0)` where :math:`x_j = 0`. It vanishes
    exactly at the minimiser (the KKT conditions of the L1 problem).

    Parameters
    ----------
    g : ndarray of shape (m,)
        Gradient of the smooth part.
    x : ndarray of shape (m,)
    lam : ndarray of shape (m,)

    Returns
    -------
    ndarray of shape (m,)
    """
    return np.where(
        x != 0,
        g + lam * np.sign(x),
        np.sign(g) * np.maximum(np.abs(g) - lam, 0.0),
    )


# ------------------------------------------------------------------------- the estimators
def _check_alpha(alpha):
    if (
        not isinstance(alpha, numbers.Real)
        or isinstance(alpha, bool)
        or not np.isfinite(alpha)
        or alpha <= 0
    ):
        raise ValueError(
            "alpha must be a positive finite number (the penalty weight; with alpha = 0 the N "
            f"kernel weights of N points are unpenalised and not unique); got {alpha!r}"
        )
    return float(alpha)


def _check_iterations(tol, max_iter):
    check_real(tol, "tol", low=0)
    check_positive_int(max_iter, "max_iter")


class _KernelMachine(BaseEstimator):
    """Kernel features, fitted attributes and the linear predictor shared by the four models."""

    def _design(self, X):
        """Set ``kernel_``; return the training design matrix of MLAPP (14.29), shape (n, n)."""
        self.kernel_ = check_kernel(self.kernel, RBF)
        Phi = design_matrix(self.kernel_, X, X, bias=False)
        warn_if_constant(Phi, type(self).__name__)
        return Phi

    def _store(self, X, theta, n_iter, objective, converged, all_support):
        self.coef_ = np.ascontiguousarray(theta[:, :-1])
        self.intercept_ = theta[:, -1].copy()
        if all_support:
            self.support_ = np.arange(X.shape[0])
        else:
            self.support_ = np.flatnonzero(np.any(self.coef_ != 0, axis=0))
        self.support_vectors_ = X[self.support_]
        self.n_iter_ = int(n_iter)
        self.objective_ = float(objective)
        if not converged:
            warnings.warn(
                f"{type(self).__name__} stopped at max_iter={self.max_iter} (or when no step "
                f"lowered the objective) before the optimality condition reached tol="
                f"{self.tol}; raise max_iter or tol",
                ConvergenceWarning,
                stacklevel=3,
            )

    def _eta(self, X):
        """Linear predictors at new points, shape (m, n_outputs)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if not self.support_.size:
            return np.tile(self.intercept_, (X.shape[0], 1))
        W = self.coef_[:, self.support_].T

        def eta(rows):
            K = design_matrix(self.kernel_, rows, self.support_vectors_, bias=False)
            return np.tile(self.intercept_, (rows.shape[0], 1)) + K @ W  # MLAPP (14.28)

        return in_blocks(eta, X, self.support_.size, kernel=self.kernel_)


class L2VMRegressor(RegressorMixin, _KernelMachine):
    r"""Ridge regression on kernel features, the L2VM of MLAPP 14.3.2.

    Minimises :math:`\tfrac12\lVert\mathbf y - \boldsymbol\Phi\mathbf w - b\mathbf 1\rVert^2 +
    \tfrac\alpha2\lVert\mathbf w\rVert^2` with :math:`\Phi_{nm} = k(\mathbf x_n, \mathbf x_m)`.
    Centring removes :math:`b`; the weights solve :math:`(\boldsymbol\Phi_c^T\boldsymbol\Phi_c +
    \alpha\mathbf I)\mathbf w = \boldsymbol\Phi_c^T\mathbf y_c` (one Cholesky factorisation) and
    :math:`b = \bar y - \bar{\boldsymbol\phi}^T\mathbf w`. Unlike kernel ridge regression
    (:class:`kmlib.kernel_trick.KernelRidge`), the penalty is on the weights of the basis
    functions, not on the function's norm :math:`\mathbf w^T\mathbf K\mathbf w`.

    Parameters
    ----------
    kernel : kmlib kernel, callable or None, default=None
        :math:`k(\mathbf x, \mathbf x')`; any callable ``k(X, Y)`` returning a matrix will do,
        Mercer or not. ``None`` is ``RBF(lengthscale=1.0)``.
    alpha : float, default=1.0
        Penalty weight :math:`\alpha > 0`.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n)
        Weights of the kernel basis functions, one per training point.
    intercept_ : ndarray of shape (1,)
    support_ : ndarray of shape (n,)
        Training indices whose basis function has a nonzero weight: all of them.
    support_vectors_ : ndarray of shape (n, d)
    n_iter_ : int
        Always 1: one linear solve.
    objective_ : float
        The objective above at the solution.
    kernel_ : kernel
        The kernel used (a copy of ``kernel``).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernel_machines import L2VMRegressor
    >>> from kmlib.kernels import RBF
    >>> X = np.linspace(0.0, 1.0, 20)[:, np.newaxis]
    >>> y = np.sin(2.0 * np.pi * X[:, 0])
    >>> reg = L2VMRegressor(kernel=RBF(lengthscale=0.2), alpha=1e-3).fit(X, y)
    >>> np.round(reg.predict([[0.25], [0.75]]), 2)  # sin is 1 and -1 there
    array([ 1.02, -1.02])
    """

    def __init__(self, kernel=None, alpha=1.0):
        self.kernel = kernel
        self.alpha = alpha

    def fit(self, X, y):
        """Solve the normal equations.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)

        Returns
        -------
        self
        """
        alpha = _check_alpha(self.alpha)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        Phi = self._design(X)
        phi_mean, y_mean = Phi.mean(axis=0), y.mean()
        Phi_c, y_c = Phi - phi_mean, y - y_mean
        A = Phi_c.T @ Phi_c
        A[np.diag_indices_from(A)] += alpha
        w = _linalg.solve_psd(A, Phi_c.T @ y_c)  # stationarity in w after eliminating b
        b = y_mean - phi_mean @ w  # stationarity in b
        objective = 0.5 * np.sum((y - Phi @ w - b) ** 2) + 0.5 * alpha * (w @ w)
        theta = np.append(w, b)[np.newaxis, :]
        self._store(X, theta, 1, objective, True, all_support=True)
        return self

    def predict(self, X):
        r""":math:`\mathbf w^T\boldsymbol\phi(\mathbf x) + b`.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
        """
        return self._eta(X)[:, 0]


class L1VMRegressor(RegressorMixin, _KernelMachine):
    r"""Lasso regression on kernel features, the L1VM of MLAPP 14.3.2.

    Minimises :math:`\tfrac12\lVert\mathbf y - \boldsymbol\Phi\mathbf w - b\mathbf 1\rVert^2 +
    \alpha\lVert\mathbf w\rVert_1` with :math:`\Phi_{nm} = k(\mathbf x_n, \mathbf x_m)`, by
    proximal Newton with an active-set inner solver (see the module notes). Weights that the
    penalty removes are exactly zero, and only the remaining basis functions are evaluated at
    prediction time. scikit-learn's ``Lasso`` scales the squared error by :math:`1/(2N)`, so its
    ``alpha`` is this one divided by :math:`N`.

    Parameters
    ----------
    kernel : kmlib kernel, callable or None, default=None
        :math:`k(\mathbf x, \mathbf x')`; any callable ``k(X, Y)`` returning a matrix will do,
        Mercer or not. ``None`` is ``RBF(lengthscale=1.0)``.
    alpha : float, default=1.0
        Penalty weight :math:`\alpha > 0`.
    tol : float, default=1e-8
        Stop when the largest entry of the minimum-norm subgradient is at most ``tol`` times
        :math:`\alpha_{\max} = \lVert\boldsymbol\Phi_c^T\mathbf y_c\rVert_\infty`.
    max_iter : int, default=10000
        Largest number of active-set steps (linear solves); reaching it warns with
        ``ConvergenceWarning``.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n)
        Weights of the kernel basis functions, one per training point.
    intercept_ : ndarray of shape (1,)
    support_ : ndarray of shape (n_support,)
        Training indices whose basis function has a nonzero weight.
    support_vectors_ : ndarray of shape (n_support, d)
    n_iter_ : int
        Active-set steps taken.
    objective_ : float
        The objective above at the solution.
    kernel_ : kernel
        The kernel used (a copy of ``kernel``).
    n_features_in_ : int

    Examples
    --------
    The data of :class:`L2VMRegressor`'s example, fitted as well with fewer basis functions:

    >>> import numpy as np
    >>> from kmlib.kernel_machines import L1VMRegressor
    >>> from kmlib.kernels import RBF
    >>> X = np.linspace(0.0, 1.0, 20)[:, np.newaxis]
    >>> y = np.sin(2.0 * np.pi * X[:, 0])
    >>> reg = L1VMRegressor(kernel=RBF(lengthscale=0.2), alpha=1e-3).fit(X, y)
    >>> np.round(reg.predict([[0.25], [0.75]]), 2)
    array([ 1.02, -1.02])
    >>> bool(reg.support_.size < len(X))  # some weights are exactly zero
    True
    """

    def __init__(self, kernel=None, alpha=1.0, tol=1e-8, max_iter=10000):
        self.kernel = kernel
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Minimise the L1-penalised squared error.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)

        Returns
        -------
        self
        """
        alpha = _check_alpha(self.alpha)
        _check_iterations(self.tol, self.max_iter)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        Phi = self._design(X)
        Phi1 = np.column_stack([Phi, np.ones(X.shape[0])])
        theta0 = np.zeros((1, Phi1.shape[1]))
        theta0[0, -1] = y.mean()  # the intercept-only optimum
        free = np.ones_like(theta0, dtype=bool)
        theta, n_iter, converged, objective = _proximal_newton(
            "squared", Phi1, y[:, np.newaxis], theta0, free, alpha, self.tol, self.max_iter
        )
        self._store(X, theta, n_iter, objective, converged, all_support=False)
        return self

    def predict(self, X):
        r""":math:`\mathbf w^T\boldsymbol\phi(\mathbf x) + b`, over the kept basis functions.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
        """
        return self._eta(X)[:, 0]


class _KernelClassifier(ClassifierMixin, _KernelMachine):
    """Targets, starting point and probabilities of the logistic and softmax models."""

    def _fit_classifier(self, X, y, solver, penalty):
        alpha = _check_alpha(self.alpha)
        _check_iterations(self.tol, self.max_iter)
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, index = class_labels(y)
        n_classes = self.classes_.size
        if n_classes < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least two classes in y; got one class "
                f"({self.classes_[0]!r})"
            )
        Phi = self._design(X)
        Phi1 = np.column_stack([Phi, np.ones(X.shape[0])])
        counts = np.bincount(index, minlength=n_classes).astype(np.float64)
        if n_classes == 2:
            kind = "binomial"
            T = (index == 1).astype(np.float64)[:, np.newaxis]
            theta0 = np.zeros((1, Phi1.shape[1]))
            theta0[0, -1] = np.log(counts[1] / counts[0])  # intercept-only optimum
            free = np.ones_like(theta0, dtype=bool)
        else:
            kind = "multinomial"
            T = np.eye(n_classes)[index]
            theta0 = np.zeros((n_classes, Phi1.shape[1]))
            theta0[:, -1] = np.log(counts / counts[-1])
            free = np.ones_like(theta0, dtype=bool)
            free[-1, -1] = False  # softmax intercepts are defined up to a shift: fix b_C = 0
        theta, n_iter, converged, objective = solver(
            kind, Phi1, T, theta0, free, alpha, self.tol, self.max_iter
        )
        if n_classes > 2:
            theta[:, -1] -= theta[:, -1].mean()  # report centred intercepts
        self._store(X, theta, n_iter, objective, converged, all_support=penalty == "l2")
        return self

    def decision_function(self, X):
        r"""Linear predictors :math:`\mathbf w_k^T\boldsymbol\phi(\mathbf x) + b_k`.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,) for two classes (the log-odds of ``classes_[1]``), else
        (m, n_classes)
        """
        eta = self._eta(X)
        return eta[:, 0] if self.classes_.size == 2 else eta

    def predict_proba(self, X):
        r"""Class probabilities: the logistic sigmoid, or the softmax over the classes.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, n_classes)
            Columns in the order of ``classes_``.
        """
        eta = self._eta(X)
        if self.classes_.size == 2:
            return np.column_stack([expit(-eta[:, 0]), expit(eta[:, 0])])
        return np.exp(log_softmax(eta, axis=1))

    def predict(self, X):
        """The most probable class.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
        """
        eta = self._eta(X)
        if self.classes_.size == 2:
            return self.classes_[(eta[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(eta, axis=1)]


class L2VMClassifier(_KernelClassifier):
    r"""Logistic (two classes) or softmax regression on kernel features with an L2 penalty.

    The L2VM classifier of MLAPP 14.3.2. Minimises
    :math:`-\sum_n\log p(y_n\mid\mathbf x_n) + \tfrac\alpha2\lVert\mathbf W\rVert_F^2` with
    :math:`p(y = c_1\mid\mathbf x) = \sigma(\mathbf w^T\boldsymbol\phi(\mathbf x) + b)` for two
    classes and the softmax of :math:`\mathbf w_k^T\boldsymbol\phi(\mathbf x) + b_k` for more; the
    intercepts are not penalised. This is scikit-learn's ``LogisticRegression`` with
    ``C = 1 / alpha`` on the same features. Solved by Newton's method (IRLS) with a backtracking
    line search, at :math:`O((CN)^3)` per iteration for :math:`C` outputs.

    Parameters
    ----------
    kernel : kmlib kernel, callable or None, default=None
        :math:`k(\mathbf x, \mathbf x')`; any callable ``k(X, Y)`` returning a matrix will do,
        Mercer or not. ``None`` is ``RBF(lengthscale=1.0)``.
    alpha : float, default=1.0
        Penalty weight :math:`\alpha > 0`.
    tol : float, default=1e-8
        Stop when the largest gradient entry is at most ``tol`` times its value at the start
        (:math:`\mathbf W = 0`, intercepts fitted).
    max_iter : int, default=1000
        Largest number of Newton iterations; reaching it warns with ``ConvergenceWarning``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_outputs, n)
        Weights of the kernel basis functions, one per training point; ``n_outputs`` is 1 for
        two classes, else the number of classes.
    intercept_ : ndarray of shape (n_outputs,)
    support_ : ndarray of shape (n,)
        Training indices whose basis function has a nonzero weight in some output: all of them.
    support_vectors_ : ndarray of shape (n, d)
    n_iter_ : int
        Newton iterations taken.
    objective_ : float
        The objective above at the solution.
    kernel_ : kernel
        The kernel used (a copy of ``kernel``).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernel_machines import L2VMClassifier
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [3.0, 3.0], [3.0, 4.0], [4.0, 3.0]])
    >>> y = np.array(["a", "a", "a", "b", "b", "b"])
    >>> clf = L2VMClassifier(alpha=0.01).fit(X, y)
    >>> clf.predict([[0.5, 0.5], [3.5, 3.5]])
    array(['a', 'b'], dtype='<U1')
    >>> np.round(clf.predict_proba([[0.5, 0.5], [3.5, 3.5]]), 2)
    array([[0.99, 0.01],
           [0.01, 0.99]])
    """

    def __init__(self, kernel=None, alpha=1.0, tol=1e-8, max_iter=1000):
        self.kernel = kernel
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Minimise the L2-penalised negative log likelihood.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)
            At least two classes.

        Returns
        -------
        self
        """
        return self._fit_classifier(X, y, _newton, "l2")


class L1VMClassifier(_KernelClassifier):
    r"""Logistic (two classes) or softmax regression on kernel features with an L1 penalty.

    The L1VM classifier of MLAPP 14.3.2. Minimises
    :math:`-\sum_n\log p(y_n\mid\mathbf x_n) + \alpha\sum_{k,m}\lvert W_{km}\rvert` (elementwise;
    the intercepts are not penalised), with the likelihood of :class:`L2VMClassifier`. This is
    scikit-learn's ``LogisticRegression(l1_ratio=1, C=1/alpha)`` on the same features. Solved
    by proximal Newton with an active-set inner solver, which returns exact zeros.

    Parameters
    ----------
    kernel : kmlib kernel, callable or None, default=None
        :math:`k(\mathbf x, \mathbf x')`; any callable ``k(X, Y)`` returning a matrix will do,
        Mercer or not. ``None`` is ``RBF(lengthscale=1.0)``.
    alpha : float, default=1.0
        Penalty weight :math:`\alpha > 0`.
    tol : float, default=1e-8
        Stop when the largest entry of the minimum-norm subgradient is at most ``tol`` times
        :math:`\alpha_{\max}`, the largest weight gradient at :math:`\mathbf W = 0` with the
        intercepts fitted.
    max_iter : int, default=10000
        Largest number of active-set steps (linear solves); reaching it warns with
        ``ConvergenceWarning``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_outputs, n)
        Weights of the kernel basis functions, one per training point; ``n_outputs`` is 1 for
        two classes, else the number of classes.
    intercept_ : ndarray of shape (n_outputs,)
    support_ : ndarray of shape (n_support,)
        Training indices whose basis function has a nonzero weight in some output.
    support_vectors_ : ndarray of shape (n_support, d)
    n_iter_ : int
        Active-set steps taken.
    objective_ : float
        The objective above at the solution.
    kernel_ : kernel
        The kernel used (a copy of ``kernel``).
    n_features_in_ : int

    Examples
    --------
    Three classes, natively (softmax):

    >>> import numpy as np
    >>> from kmlib.kernel_machines import L1VMClassifier
    >>> X = np.array([[0.0], [0.2], [2.0], [2.2], [4.0], [4.2]])
    >>> y = np.array([0, 0, 1, 1, 2, 2])
    >>> clf = L1VMClassifier(alpha=0.1).fit(X, y)
    >>> clf.predict([[0.1], [2.1], [4.1]])
    array([0, 1, 2])
    >>> clf.coef_.shape  # one row of weights per class
    (3, 6)
    >>> bool(np.any(clf.coef_ == 0))  # the L1 penalty removes some weights exactly
    True
    """

    def __init__(self, kernel=None, alpha=1.0, tol=1e-8, max_iter=10000):
        self.kernel = kernel
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Minimise the L1-penalised negative log likelihood.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)
            At least two classes.

        Returns
        -------
        self
        """
        return self._fit_classifier(X, y, _proximal_newton, "l1")
