r"""Bayesian trigonometric support vector classifier, BTSVC (Chu 2003, chapter 5).

Chu, Keerthi & Ong, *Neural Computation* 15(9), 2003, is the journal version. The latent
function has a Gaussian-process prior whose covariance is any kmlib kernel. The default is the
thesis's (5.13),

.. math:: \operatorname{Cov}(\mathbf x, \mathbf x') = \kappa_0\exp\Big(-\tfrac\kappa2
          \lVert\mathbf x - \mathbf x'\rVert^2\Big) + \kappa_b,

which is ``RBF(lengthscale=1/sqrt(kappa), variance=kappa0) + Constant(kappa_b)``; an array of
length-scales gives the ARD form (5.37) with :math:`\kappa_l = 1/\ell_l^2`. A label
:math:`y = \pm 1` has the trigonometric likelihood (5.8), :math:`\cos^2(\tfrac\pi4(1 - yf))`
for :math:`-1 < yf < 1`, 1 above and 0 below: it is normalised for every :math:`f`, and its
loss (5.7) is flat for :math:`yf\ge1`, which makes the model sparse. The bias lives in the
kernel (the :math:`\kappa_b` term), so nothing below has a bias or an equality constraint.

* **MAP** (5.18)–(5.32). The posterior mode :math:`\mathbf f_{MP} = \boldsymbol\Sigma\mathbf v`,
  :math:`v_i = y_i\alpha_i`, comes from the convex dual (5.29) in :math:`\boldsymbol\alpha\ge0`,

  .. math:: \min_{\boldsymbol\alpha\ge0}\ \tfrac12\mathbf v^T\boldsymbol\Sigma\mathbf v
            - \sum_i\alpha_i + \sum_i g(\alpha_i), \qquad g(\alpha) = \tfrac4\pi\alpha\arctan
            \tfrac{2\alpha}\pi - \ln\big(1 + \tfrac{4\alpha^2}{\pi^2}\big).

  :func:`solve_dual` stops at the thesis's rule (5.31). Two solvers are offered. The default is
  a damped (semismooth) Newton method on the MAP problem (5.18) in the same unknowns
  :math:`\mathbf v`; it needs 5–15 steps from zero and fewer from a warm start. The other is the
  thesis's SMO with the trust-region pair update of Appendix G, which converges linearly
  (thousands of pair updates for a thousand points). A projected Newton method on (5.29)
  itself was tried first: its active set wandered for about 50 steps on 200 points, because
  each step that clips a variable at zero moves the others through the large constant
  :math:`\kappa_b` of the covariance.
* **Evidence** (5.33)–(5.35) by Laplace's method. Only the support vectors (:math:`\alpha_i>0`)
  have curvature, :math:`\Lambda_{ii} = \tfrac{\pi^2}8\sec^2(\tfrac\pi4\xi_i) = (\pi^2 +
  4\alpha_i^2)/8`, so only their block :math:`\boldsymbol\Sigma_M` is factorised. The gradient
  (5.36) has an implicit term through :math:`\mathbf f_{MP}`; its sign is minus, as in (5.36).
  Appendix E.16 prints a plus, which is a misprint (:func:`evidence_gradient_parts`). The
  evidence is smooth while the set of SVs stays fixed and jumps where it changes: an entering
  point brings :math:`\Lambda_{mm} = \pi^2/8` at once, raising :math:`-\ln P` by
  :math:`\tfrac12\ln(1 + \tfrac{\pi^2}8s_m^2)`, :math:`s_m^2` its latent variance (5.41).
  So the maximum can lie on such an edge, where L-BFGS-B stops with a nonzero gradient.
* **Hyperparameters**: the kernel's log hyperparameters ``kernel.theta`` by L-BFGS-B on the
  evidence, within ``kernel.bounds``. The default kernel starts as in section 5.5 from
  :math:`\kappa = 1/d`, :math:`\kappa_b = 100` and the :math:`\kappa_0\in\{0.1, 1, 10, 100\}`
  with the best evidence (:func:`default_kernel`).
* **Prediction** (5.38)–(5.42): the latent value at a new point is
  :math:`\mathcal N(\mu_t, \sigma_t^2)` with :math:`\mu_t = \mathbf v_M^T\mathbf k_M` and
  :math:`\sigma_t^2 = k(\mathbf x, \mathbf x) - \mathbf k_M^T
  (\boldsymbol\Lambda_M^{-1} + \boldsymbol\Sigma_M)^{-1}\mathbf k_M`, and the class probability
  (5.42) averages the likelihood (5.8) over it (:func:`class_probability`).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy.special import erfc
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from . import _linalg
from ._chunks import in_blocks
from ._binary import LatentSignClassifierMixin
from ._evidence import check_optimizer_settings, fit_hyperparameters
from ._kernel_checks import check_kernel, evaluate_kernel, kernel_diagonal, warn_if_constant
from ._newton import damped_step, stable_newton_factor
from ._validation import binary_training_data, check_positive_int, check_real, validate_data
from .kernels import RBF, Constant
from .losses import trigonometric, trigonometric_derivative, trigonometric_second_derivative

__all__ = [
    "BTSVC",
    "default_kernel",
    "dual_regulariser",
    "dual_gradient",
    "kkt_violation",
    "TrigonometricDualSolution",
    "solve_dual",
    "LaplaceApproximation",
    "laplace_approximation",
    "evidence_gradient_parts",
    "class_probability",
]

#: Starting values of kappa_0 tried before the evidence is maximised (Chu 5.5).
KAPPA0_CANDIDATES = (0.1, 1.0, 10.0, 100.0)
#: Starting value of kappa_b (Chu 5.5).
KAPPA_B_START = 100.0
#: Boxes of the default kernel, in its own units: ln kappa_0 in [-7, 7], ln kappa (each
#: ln kappa_l) in [-10, 7], i.e. ln lengthscale = -ln(kappa) / 2 in [-3.5, 5], and ln kappa_b
#: in [-10, 7].
VARIANCE_LIMITS = (np.exp(-7.0), np.exp(7.0))
LENGTHSCALE_LIMITS = (np.exp(-3.5), np.exp(5.0))
BIAS_VARIANCE_LIMITS = (np.exp(-10.0), np.exp(7.0))
#: Trust-region radius delta of Appendix G (with C = I), its step tolerance and step limit.
TRUST_RADIUS = 1.0
PAIR_STEP_TOL = 1e-6
PAIR_MAX_STEPS = 100
#: Gauss-Legendre rule for the integral of (5.42), applied within this many standard deviations
#: of the mean (the Gaussian mass beyond 10 sd is 1.5e-23).
GAUSS_LEGENDRE_NODES, GAUSS_LEGENDRE_WEIGHTS = np.polynomial.legendre.leggauss(64)
GAUSSIAN_REACH = 10.0


# -------------------------------------------------------------------------------- kernel
def default_kernel(n_features, kappa0=1.0, kappa_b=KAPPA_B_START, ard=False):
    r"""The thesis's covariance (5.13), or (5.37) with ``ard``, as a kmlib kernel.

    ``RBF(lengthscale=sqrt(d), variance=kappa0) + Constant(kappa_b)``: :math:`\kappa = 1/d`
    (one length-scale per input with ``ard``), within the boxes ``LENGTHSCALE_LIMITS``,
    ``VARIANCE_LIMITS`` and ``BIAS_VARIANCE_LIMITS``. The mapping to the thesis's symbols is
    :math:`\kappa_l = 1/\ell_l^2`, :math:`\kappa_0` = the RBF's variance and :math:`\kappa_b`
    = the Constant's variance.

    Parameters
    ----------
    n_features : int
        Input dimension :math:`d`.
    kappa0 : float, default=1.0
        Signal variance :math:`\kappa_0`.
    kappa_b : float, default=100.0
        Variance :math:`\kappa_b` of the bias (``KAPPA_B_START``).
    ard : bool, default=False
        One length-scale per input, (5.37).

    Returns
    -------
    Sum
        ``theta`` is ``[ln lengthscale (d entries with ard), ln kappa0, ln kappa_b]``.
    """
    lengthscale = np.sqrt(float(n_features))
    if ard:
        lengthscale = np.full(int(n_features), lengthscale)
    rbf = RBF(
        lengthscale=lengthscale,
        variance=float(kappa0),
        limits={"lengthscale": LENGTHSCALE_LIMITS, "variance": VARIANCE_LIMITS},
    )
    return rbf + Constant(float(kappa_b), limits={"variance": BIAS_VARIANCE_LIMITS})


# ------------------------------------------------------------------------------- the dual
def dual_regulariser(alpha):
    r"""The per-variable term :math:`g(\alpha)` of the dual (5.29) and its two derivatives.

    :math:`g(\alpha) = \tfrac4\pi\alpha\arctan\tfrac{2\alpha}\pi - \ln(1 + \tfrac{4\alpha^2}
    {\pi^2})`, :math:`g' = \tfrac4\pi\arctan\tfrac{2\alpha}\pi` (the slack :math:`\xi` of (5.25))
    and :math:`g'' = 8/(\pi^2 + 4\alpha^2)`, which is :math:`1/\Lambda_{ii}` (item 5.11).

    Parameters
    ----------
    alpha : ndarray of shape (n,)

    Returns
    -------
    g, dg, d2g : ndarray of shape (n,)
    """
    ratio = 2.0 * alpha / np.pi
    slack = (4.0 / np.pi) * np.arctan(ratio)
    return alpha * slack - np.log1p(ratio**2), slack, 8.0 / (np.pi**2 + 4.0 * alpha**2)


def dual_gradient(alpha, K_v, y):
    r"""Gradient of the dual (5.29): :math:`y_i(\boldsymbol\Sigma\mathbf v)_i - 1 +
    \tfrac4\pi\arctan\tfrac{2\alpha_i}\pi`, which is :math:`-y_iF_i` with :math:`F_i` of (5.30).

    Parameters
    ----------
    alpha : ndarray of shape (n,)
    K_v : ndarray of shape (n,)
        :math:`\boldsymbol\Sigma\mathbf v` with :math:`v_i = y_i\alpha_i`, i.e. :math:`\mathbf f`.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.

    Returns
    -------
    gradient : ndarray of shape (n,)
    """
    return y * K_v - 1.0 + dual_regulariser(alpha)[1]


def kkt_violation(alpha, F, y):
    r"""How far :math:`\boldsymbol\alpha` is from optimal in the sense of (5.30)–(5.31).

    With :math:`I^{up} = \{\alpha_i > 0\}\cup\{y_i = -1\}` and :math:`I^{low} = \{\alpha_i > 0\}
    \cup\{y_i = +1\}`, :math:`\beta^{up} = \min_{I^{up}}F_i` and :math:`\beta^{low} =
    \max_{I^{low}}F_i`, this is :math:`\max(-\beta^{up}, \beta^{low}, 0)`; the stopping rule
    (5.31) is ``kkt_violation(...) <= tau``.

    Parameters
    ----------
    alpha, F, y : ndarray of shape (n,)
        Dual variables, :math:`F_i` of (5.30) and labels in {-1, +1}.

    Returns
    -------
    float
    """
    on_margin = alpha > 0
    beta_up = np.min(F[on_margin | (y < 0)], initial=np.inf)
    beta_low = np.max(F[on_margin | (y > 0)], initial=-np.inf)
    return float(max(-beta_up, beta_low, 0.0))


class TrigonometricDualSolution(NamedTuple):
    """Solution of the BTSVC dual (5.29).

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        Dual variables; the support vectors are the points with ``alpha > 0``.
    f : ndarray of shape (n,)
        :math:`\\mathbf f_{MP} = \\boldsymbol\\Sigma\\mathbf v` (5.32).
    violation : float
        :func:`kkt_violation` at ``alpha``.
    n_iter : int
        Iterations taken (Newton steps, or SMO pair updates).
    converged : bool
        Whether the violation reached ``tol``.
    """

    alpha: np.ndarray
    f: np.ndarray
    violation: float
    n_iter: int
    converged: bool


def _F(alpha, f, y):
    """F_i of (5.30): -y_i times the dual gradient."""
    return -y * dual_gradient(alpha, f, y)


def _map_objective(v, f, y):
    """S of (5.18) at f = K v: 1/2 v^T f + sum of the trigonometric losses (5.7)."""
    return 0.5 * v @ f + np.sum(trigonometric(y * f))


def _newton_step(K, y, v, f, value):
    """One damped Newton step on the MAP problem (5.18) in the coefficients v of f = K v.

    Only the points with y f < 1 have curvature W = l_t'' (5.10); with u_i = -y_i l_t'(y_i f_i)
    (= y_i alpha_i at the optimum) the Newton step is v_new = (I + W K)^-1 (W f + u), the
    form of Rasmussen & Williams Alg. 3.1 that factorises only B = I + W^1/2 K_S W^1/2 on
    those points. The step is halved until S drops (:func:`kmlib._newton.damped_step`); S is
    +inf where some y f <= -1. Returns the new ``v``, ``f`` and ``value``, and whether it moved.
    """
    margin = y * f
    W = trigonometric_second_derivative(margin)
    u = -y * trigonometric_derivative(margin)  # Chu (5.19): v_i = -d l_t / d f_i
    curved = np.flatnonzero(W > 0)
    root = np.sqrt(W[curved])
    g = W[curved] * f[curved] + u[curved]
    K_curved = K[np.ix_(curved, curved)]
    L = stable_newton_factor(K_curved, root)
    target = np.zeros_like(v)
    target[curved] = g - root * _linalg.cho_solve(L, root * (K_curved @ g))
    f_target = K[:, curved] @ target[curved]
    direction, f_direction = target - v, f_target - f
    slope = (v - u) @ f_direction  # gradient K (v - u) of S in v, along the step
    step, value = damped_step(
        lambda s: _map_objective(v + s * direction, f + s * f_direction, y), value, slope
    )
    return v + step * direction, f + step * f_direction, value, step > 0.0


def _newton_map(K, y, alpha, tol, max_iter):
    """Newton iterations on (5.18) until alpha = max(y v, 0) meets (5.31); see solve_dual."""
    v = y * alpha
    f = K @ v
    while np.any(y * f <= -1.0):  # a warm start outside the domain of (5.7): shrink it
        v, f = 0.5 * v, 0.5 * f
    value = _map_objective(v, f, y)
    n_iter, moved = 0, True
    while True:
        alpha = np.maximum(y * v, 0.0)
        f_dual = f if np.all(y * v >= 0) else K @ (y * alpha)
        violation = kkt_violation(alpha, _F(alpha, f_dual, y), y)
        if violation <= tol or n_iter >= max_iter or not moved:
            return alpha, f_dual, violation, n_iter
        n_iter += 1
        v, f, value, moved = _newton_step(K, y, v, f, value)


def _solve_pair(K, y, alpha, f, pair):
    """Minimise the dual over two variables by the trust-region Newton steps of Appendix G.

    Each step is the Newton-Raphson step (G.2) when it is no longer than ``TRUST_RADIUS`` and
    the steepest-descent step (G.3) otherwise; a variable at zero whose gradient is positive is
    held there, and steps are clipped at zero. Iterates until the step is below
    ``PAIR_STEP_TOL`` or ``PAIR_MAX_STEPS`` steps, as the thesis does. Returns the change of the
    pair's ``alpha``.
    """
    y_pair = y[pair]
    Q = y_pair[:, None] * K[np.ix_(pair, pair)] * y_pair[None, :]
    a = alpha[pair].copy()
    yf = y_pair * f[pair]
    for _ in range(PAIR_MAX_STEPS):
        g = yf + Q @ (a - alpha[pair]) - 1.0 + dual_regulariser(a)[1]  # gradient at a
        moving = ~((a <= 0) & (g > 0))
        if not np.any(moving):
            break
        H = Q[np.ix_(moving, moving)].copy()
        H[np.diag_indices_from(H)] += dual_regulariser(a[moving])[2]
        gm = g[moving]
        newton = -np.linalg.solve(H, gm)  # (G.2), at most 2 x 2
        if newton @ newton > TRUST_RADIUS:  # outside the trust region: (G.3)
            gamma = min(np.sqrt(TRUST_RADIUS / (gm @ gm)), (gm @ gm) / (gm @ H @ gm))
            newton = -gamma * gm
        new = a.copy()
        new[moving] = np.maximum(a[moving] + newton, 0.0)
        moved = np.max(np.abs(new - a))
        a = new
        if moved < PAIR_STEP_TOL:
            break
    return a - alpha[pair]


def _smo_step(K, y, alpha, f):
    """One SMO update of the pair behind beta^up and beta^low (5.31) (Chu 5.3.2, App. G)."""
    F = _F(alpha, f, y)
    on_margin = alpha > 0
    up, low = on_margin | (y < 0), on_margin | (y > 0)
    i = int(np.argmin(np.where(up, F, np.inf)))
    j = int(np.argmax(np.where(low, F, -np.inf)))
    pair = np.unique([i, j])
    delta = _solve_pair(K, y, alpha, f, pair)
    alpha = alpha.copy()
    alpha[pair] += delta
    return alpha, f + K[:, pair] @ (y[pair] * delta)


def _smo(K, y, alpha, tol, max_iter):
    """SMO pair updates until (5.31) holds; see solve_dual."""
    f = K @ (y * alpha)  # (5.32)
    n_iter = 0
    while True:
        violation = kkt_violation(alpha, _F(alpha, f, y), y)
        if violation <= tol or n_iter >= max_iter:
            return alpha, f, violation, n_iter
        n_iter += 1
        alpha, f = _smo_step(K, y, alpha, f)


def solve_dual(K, y, alpha0=None, tol=1e-3, max_iter=None, solver="newton"):
    """MAP estimate of BTSVC: the solution of the dual (5.29), to the stopping rule (5.31).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Prior covariance of the latent function at the training inputs.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    alpha0 : ndarray of shape (n,), default=None
        Starting point (a warm start), clipped at zero; ``None`` starts from zeros.
    tol : float, default=1e-3
        :math:`\\tau` of (5.31).
    max_iter : int, default=None
        Iteration limit; reaching it warns with ``ConvergenceWarning``. ``None`` is 100 Newton
        steps or ``100 n + 1000`` SMO pair updates.
    solver : {"newton", "smo"}, default="newton"
        ``"newton"``: damped Newton's method on the MAP problem (5.18) in the unknowns
        :math:`\\mathbf v` of :math:`\\mathbf f = \\boldsymbol\\Sigma\\mathbf v`, which are
        the dual's :math:`y_i\\alpha_i` (5.32). The loss is :math:`C^1` with a curvature that
        jumps at :math:`yf = 1`, so this is a semismooth Newton method (as Chapelle's primal
        SVM training, 2007): each step factorises the block of the points with :math:`yf < 1`,
        the Armijo backtracking makes it globally convergent, and it converges superlinearly
        once that set settles, typically in 5–15 steps. The iterate is read as
        :math:`\\alpha_i = \\max(y_iv_i, 0)` and tested by (5.31). ``"smo"``: the thesis's SMO
        (5.3.2), which moves the pair of :math:`\\beta^{up}` and :math:`\\beta^{low}` by the
        trust-region Newton steps of Appendix G. The pair always holds the most violating
        variable and each update minimises the dual over the pair, so SMO converges too, but
        only linearly.

    Returns
    -------
    TrigonometricDualSolution
    """
    if solver not in ("newton", "smo"):
        raise ValueError(f"solver must be 'newton' or 'smo'; got {solver!r}")
    n = y.size
    if max_iter is None:
        max_iter = 100 if solver == "newton" else 100 * n + 1000
    alpha = np.zeros(n) if alpha0 is None else np.maximum(np.asarray(alpha0, dtype=float), 0.0)
    run = _newton_map if solver == "newton" else _smo
    alpha, f, violation, n_iter = run(K, y, alpha, tol, max_iter)
    converged = violation <= tol
    if not converged:
        why = (
            f"at its iteration limit ({max_iter})"
            if n_iter >= max_iter
            else ("where no step lowers the objective beyond round-off")
        )
        warnings.warn(
            f"the BTSVC dual solver ({solver}) stopped {why} with a KKT violation of "
            f"{violation:.2e} > tol = {tol:g}; raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=2,
        )
    return TrigonometricDualSolution(alpha, f, violation, n_iter, converged)


# ------------------------------------------------------------------------------- evidence
class LaplaceApproximation(NamedTuple):
    r"""Laplace approximation of the BTSVC posterior at the MAP, restricted to the SVs.

    Attributes
    ----------
    support : ndarray of shape (m,)
        Indices of the support vectors (:math:`\alpha_i > 0`).
    v : ndarray of shape (m,)
        :math:`\mathbf v_M`, :math:`v_i = y_i\alpha_i` (5.32).
    Lambda : ndarray of shape (m,)
        Diagonal of :math:`\boldsymbol\Lambda_M`, :math:`(\pi^2 + 4\alpha_i^2)/8` (5.10).
    L : ndarray of shape (m, m)
        Lower Cholesky factor of :math:`\mathbf B = \mathbf I + \boldsymbol\Lambda_M^{1/2}
        \boldsymbol\Sigma_M\boldsymbol\Lambda_M^{1/2}`. Then :math:`\ln|\mathbf I +
        \boldsymbol\Sigma_M\boldsymbol\Lambda_M| = \ln|\mathbf B|` and :math:`(\boldsymbol
        \Lambda_M^{-1} + \boldsymbol\Sigma_M)^{-1} = \boldsymbol\Lambda_M^{1/2}\mathbf B^{-1}
        \boldsymbol\Lambda_M^{1/2}`.
    log_evidence : float
        :math:`\ln P(\mathcal D|\theta)`, minus (5.35).
    """

    support: np.ndarray
    v: np.ndarray
    Lambda: np.ndarray
    L: np.ndarray
    log_evidence: float


def laplace_approximation(K, y, solution):
    """The Laplace approximation at a solution of the dual and the evidence (5.35).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    solution : TrigonometricDualSolution
        From :func:`solve_dual` with the same ``K`` and ``y``.

    Returns
    -------
    LaplaceApproximation
    """
    support = np.flatnonzero(solution.alpha > 0)
    alpha = solution.alpha[support]
    v = y[support] * alpha
    Lambda = 1.0 / dual_regulariser(alpha)[2]  # (pi^2 + 4 alpha^2) / 8, item 5.11
    L = stable_newton_factor(K[np.ix_(support, support)], np.sqrt(Lambda))
    loss = trigonometric(y[support] * solution.f[support])  # 2 ln sec(pi xi / 4), xi = 1 - y f
    # Chu (5.35): -ln P = 1/2 v_M^T K_M v_M + 2 sum ln sec(pi xi_m / 4) + 1/2 ln|I + K_M Lambda_M|
    value = 0.5 * v @ solution.f[support] + np.sum(loss) + 0.5 * _linalg.log_det(L)
    return LaplaceApproximation(support, v, Lambda, L, -float(value))


def _posterior_precision_inverse(laplace):
    """R = (Lambda_M^-1 + K_M)^-1 = Lambda^1/2 B^-1 Lambda^1/2, shape (m, m)."""
    root = np.sqrt(laplace.Lambda)
    return root[:, None] * _linalg.inverse_from_cholesky(laplace.L) * root[None, :]


def evidence_gradient_parts(laplace, dK_M):
    r"""The explicit and implicit parts of the gradient of :math:`\ln P(\mathcal D|\theta)`,
    minus the thesis's (5.36) (which is of :math:`-\ln P`).

    With :math:`\mathbf R = (\boldsymbol\Lambda_M^{-1} + \boldsymbol\Sigma_M)^{-1}` and
    :math:`\partial_p = \partial/\partial\theta_p` (a log hyperparameter of the kernel),

    * explicit: :math:`\tfrac12\operatorname{tr}(\mathbf R\,\partial_p\boldsymbol\Sigma_M) -
      \tfrac12\mathbf v_M^T\partial_p\boldsymbol\Sigma_M\mathbf v_M`;
    * implicit, through :math:`\mathbf f_{MP}` and :math:`\boldsymbol\Lambda_M`:
      :math:`-\tfrac12\sum_m v_m(\mathbf R\boldsymbol\Sigma_M)_{mm}(\boldsymbol\Lambda_M^{-1}
      \mathbf R\,\partial_p\boldsymbol\Sigma_M\mathbf v_M)_m`.

    The gradient is their sum. The minus sign of the implicit part comes from
    :math:`\partial\Lambda_{mm}/\partial f_m = -\Lambda_{mm}v_m`; Appendix E.16 prints "+",
    which is wrong (the tests check both against finite differences). We use
    :math:`(\mathbf R\boldsymbol\Sigma_M)_{mm} = 1 - R_{mm}/\Lambda_{mm}`.

    Parameters
    ----------
    laplace : LaplaceApproximation
    dK_M : ndarray of shape (m, m, p)
        Derivatives of the covariance of the support vectors (in the order of
        ``laplace.support``) with respect to the ``p`` log hyperparameters: the second output
        of ``kernel(X[laplace.support], eval_gradient=True)``.

    Returns
    -------
    explicit, implicit : ndarray of shape (p,)
        In the order of ``kernel.theta``.
    """
    R = _posterior_precision_inverse(laplace)
    v, Lambda = laplace.v, laplace.Lambda
    traces = np.einsum("ij,ijp->p", R, dK_M)  # tr(R dK_p)
    actions = np.einsum("ijp,j->ip", dK_M, v)  # dK_p v, shape (m, p)
    explicit = 0.5 * traces - 0.5 * v @ actions  # Chu (5.36), first two terms
    weights = v * (1.0 - np.diag(R) / Lambda) / Lambda  # v_m (R K_M)_mm / Lambda_mm
    implicit = -0.5 * (R @ weights) @ actions  # Chu (5.36), third term (minus: item 5.10)
    return -explicit, -implicit  # of ln P


# ---------------------------------------------------------------------------- prediction
def class_probability(mean, var, y=1):
    r"""Class probability (5.42): the likelihood (5.8) averaged over the latent value's Gaussian.

    .. math:: P(y\mid\mathbf x) = \tfrac12\operatorname{erfc}\Big(\frac{1 - y\mu}{\sqrt2\sigma}
              \Big) + \int_{-1}^{1}\cos^2\big(\tfrac\pi4(1 - yf)\big)\,\mathcal N(f;\mu,
              \sigma^2)\,df.

    The integral is a 64-point Gauss–Legendre rule in the standardised variable
    :math:`t = (f - \mu)/\sigma`, over the part of :math:`(-1, 1)` within 10 standard
    deviations of the mean; it is accurate to about 1e-15 for every :math:`\sigma` (the thesis
    uses Romberg integration).

    Parameters
    ----------
    mean, var : ndarray of shape (m,)
        Mean :math:`\mu_t` and variance :math:`\sigma_t^2` of the latent value (5.41).
    y : {-1, +1}, default=1
        The class whose probability is returned.

    Returns
    -------
    p : ndarray of shape (m,)
    """
    mean = np.asarray(mean, dtype=np.float64)
    var = np.asarray(var, dtype=np.float64)
    # a variance of 0 is the limit of the tiniest one: the likelihood (5.8) at the mean
    sd = np.sqrt(np.maximum(var, np.finfo(float).tiny))
    with np.errstate(over="ignore"):
        tail = 0.5 * erfc((1.0 - y * mean) / (np.sqrt(2.0) * sd))  # y f >= 1: likelihood 1
        low = np.clip((-1.0 - mean) / sd, -GAUSSIAN_REACH, GAUSSIAN_REACH)
        high = np.clip((1.0 - mean) / sd, -GAUSSIAN_REACH, GAUSSIAN_REACH)
    width = np.maximum(high - low, 0.0)
    t = 0.5 * (low + high)[:, None] + 0.5 * width[:, None] * GAUSS_LEGENDRE_NODES[None, :]
    f = mean[:, None] + sd[:, None] * t
    likelihood = np.cos(0.25 * np.pi * (1.0 - y * f)) ** 2  # (5.8) on -1 < y f < 1
    density = np.exp(-0.5 * t**2) / np.sqrt(2.0 * np.pi)
    middle = 0.5 * width * ((likelihood * density) @ GAUSS_LEGENDRE_WEIGHTS)
    return tail + middle


# ------------------------------------------------------------------------------ estimator
class BTSVC(LatentSignClassifierMixin, ClassifierMixin, BaseEstimator):
    r"""Bayesian trigonometric support vector classifier (Chu 2003, chapter 5).

    A Gaussian-process classifier with the trigonometric likelihood (5.8): sparse like an SVM
    (only points with :math:`y f_{MP} < 1` are support vectors), with the evidence (5.35) to
    set the kernel's hyperparameters and class probabilities (5.42) with error bars.
    ``predict`` gives the more probable class: (5.42) exceeds 1/2 exactly where the latent mean
    is positive.

    Parameters
    ----------
    kernel : kmlib kernel, default=None
        Prior covariance of the latent function; it must carry the bias (a ``Constant`` term)
        itself, since the model has none. A given kernel is used as it is, with all its free
        hyperparameters (its ``theta``, within its ``bounds``) fitted when ``optimize``.
        ``None`` gives the thesis's (5.13), :func:`default_kernel`: ``RBF(lengthscale=sqrt(d),
        variance=kappa0) + Constant(100.0)``, i.e. :math:`\kappa = 1/d` and
        :math:`\kappa_b = 100`, with :math:`\kappa_0` the one of {0.1, 1, 10, 100} with the
        highest evidence, as in section 5.5. The thesis's symbols are :math:`\kappa_l =
        1/\ell_l^2` (the RBF's ``lengthscale``), :math:`\kappa_0` = the RBF's ``variance``
        and :math:`\kappa_b` = the Constant's ``variance``. For ARD (5.37) give one
        length-scale per input, e.g. ``default_kernel(d, kappa0, ard=True)``, which is
        ``RBF(lengthscale=np.full(d, np.sqrt(d)), variance=kappa0) + Constant(100.0)`` with the
        thesis's boxes.
    optimize : bool, default=True
        Maximise the evidence over ``kernel.theta`` with L-BFGS-B; ``False`` keeps the kernel
        as given (or the default with the best :math:`\kappa_0`).
    n_restarts : int, default=0
        Extra L-BFGS-B runs from log hyperparameters drawn uniformly in ``kernel.bounds``; the
        run with the highest evidence wins (the evidence has local optima, item 5.27).
    tol : float, default=1e-3
        Tolerance :math:`\tau` of the stopping rule (5.31) of the dual solver.
    max_iter : int, default=None
        Iteration limit of the dual solver; ``None`` is the default of :func:`solve_dual`.
        Reaching it warns with ``ConvergenceWarning``.
    solver : {"newton", "smo"}, default="newton"
        The dual solver, see :func:`solve_dual`. Both stop by (5.31).
    optimizer_max_iter : int, default=200
        Iteration limit of each L-BFGS-B run.
    random_state : int, Generator, RandomState or None, default=None
        Seed of the restarts.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` plays :math:`y = +1`.
    kernel_ : kmlib kernel
        The kernel with the fitted hyperparameters.
    alpha_ : ndarray of shape (n,)
        Dual variables of (5.29) at the fitted hyperparameters.
    support_ : ndarray of shape (m,)
        Indices of the support vectors (:math:`\alpha_i > 0`).
    support_vectors_ : ndarray of shape (m, d)
    dual_coef_ : ndarray of shape (m,)
        :math:`\mathbf v_M`, :math:`v_i = y_i\alpha_i`; the latent mean is
        :math:`\mathbf v_M^T\mathbf k_M` (5.41).
    laplace_ : LaplaceApproximation
        The Laplace approximation at the MAP, which prediction uses.
    log_marginal_likelihood_ : float
        :math:`\ln P(\mathcal D|\theta)` (minus (5.35); the thesis tabulates
        :math:`-\ln P`).
    n_iter_ : int
        Iterations of the dual solver in the final MAP estimate, which starts from
        :math:`\boldsymbol\alpha = 0` (during the optimisation each solve starts from the
        previous solution).
    optimizer_n_iter_ : int
        L-BFGS-B iterations of the best run (0 without optimisation).
    n_evidence_evaluations_ : int
        Evidence evaluations (each one solves the dual), starting values included.

    Examples
    --------
    Six points in the plane, three per class, with the thesis's kernel (5.13) fixed:

    >>> import numpy as np
    >>> from kmlib.btsvc import BTSVC, default_kernel
    >>> X = np.array([[-2.0, 0.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, 1.0], [1.0, -1.0], [2.0, 0.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> model = BTSVC(kernel=default_kernel(2), optimize=False, tol=1e-8).fit(X, y)
    >>> model.predict([[-0.5, 0.0], [0.5, 0.0]])
    array([0, 1])
    >>> print(np.round(model.predict_proba([[0.5, 0.0]]), 3))
    [[0.306 0.694]]
    """

    def __init__(
        self,
        kernel=None,
        optimize=True,
        n_restarts=0,
        tol=1e-3,
        max_iter=None,
        solver="newton",
        optimizer_max_iter=200,
        random_state=None,
    ):
        self.kernel = kernel
        self.optimize = optimize
        self.n_restarts = n_restarts
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.optimizer_max_iter = optimizer_max_iter
        self.random_state = random_state

    # ------------------------------------------------------------------ checks and evidence
    def _check_params(self):
        check_real(self.tol, "tol", low=0)
        if self.solver not in ("newton", "smo"):
            raise ValueError(f"solver must be 'newton' or 'smo'; got {self.solver!r}")
        if self.max_iter is not None:
            check_positive_int(self.max_iter, "max_iter")
        check_optimizer_settings(self)
        if self.kernel is not None:
            check_kernel(self.kernel, default_kernel, callables=False)  # the kind, at fit time

    def _evidence(self, kernel, X, y, with_gradient):
        """Solve the dual (warm-started) with ``kernel``; ln P, minus (5.35), and its gradient."""
        K = evaluate_kernel(kernel, X)
        solution = solve_dual(K, y, self._warm_start, self.tol, self.max_iter, self.solver)
        self._warm_start = solution.alpha
        laplace = laplace_approximation(K, y, solution)
        self.n_evidence_evaluations_ += 1
        if not with_gradient:
            return solution, laplace
        if laplace.support.size == 0:  # no support vectors: ln P does not depend on the kernel
            return laplace.log_evidence, np.zeros(kernel.theta.size)
        _, dK_M = evaluate_kernel(kernel, X[laplace.support], eval_gradient=True)
        explicit, implicit = evidence_gradient_parts(laplace, dK_M)
        return laplace.log_evidence, explicit + implicit

    def _log_evidence_at(self, kernel, theta, X, y):
        kernel.theta = theta
        return self._evidence(kernel, X, y, True)

    def _initial_kernel(self, X, y):
        """A copy of the given kernel, or the default (5.13) with the best kappa0 of 5.5.

        The dual solution of the winning candidate becomes the warm start of the optimisation.
        """
        if self.kernel is not None:
            return check_kernel(self.kernel, default_kernel, callables=False)
        best = None
        for candidate in KAPPA0_CANDIDATES:
            self._warm_start = None
            kernel = default_kernel(X.shape[1], kappa0=candidate)
            solution, laplace = self._evidence(kernel, X, y, False)
            if best is None or laplace.log_evidence > best[0]:
                best = (laplace.log_evidence, kernel, solution.alpha)
        self._warm_start = best[2]
        return best[1]

    # ------------------------------------------------------------------------ fit / predict
    def fit(self, X, y):
        """Fit the kernel's hyperparameters by the evidence (if ``optimize``) and find the MAP.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs.
        y : array_like of shape (n,)
            Their labels, exactly two distinct values; the second in sorted order
            (``classes_[1]``) plays :math:`y = +1` in (5.8).

        Returns
        -------
        self
        """
        X, t = binary_training_data(self, X, y)
        y_pm = 2.0 * t - 1.0
        self._check_params()
        # Factorisations of a few hundred rows dominate; one BLAS thread runs them fastest and
        # avoids the thread contention that slowed a 2-core machine under load 100-fold.
        with threadpool_limits(limits=1, user_api="blas"):
            self._fit(X, y_pm)
        return self

    def _fit(self, X, y_pm):
        self.n_evidence_evaluations_ = 0
        self._warm_start = None
        kernel = self._initial_kernel(X, y_pm)
        self.optimizer_n_iter_ = 0
        if self.optimize and kernel.theta.size:
            kernel.theta = fit_hyperparameters(
                self,
                lambda theta: self._log_evidence_at(kernel, theta, X, y_pm),
                kernel.theta,
                kernel.bounds,
                kernel.theta_names,
                stacklevel=4,  # warnings name the caller of fit, which calls _fit
            )
        self._warm_start = None  # the final MAP from zero depends on the hyperparameters only
        warn_if_constant(evaluate_kernel(kernel, X), "BTSVC")
        solution, laplace = self._evidence(kernel, X, y_pm, False)
        del self._warm_start
        self.kernel_ = kernel
        self.alpha_ = solution.alpha
        self.n_iter_ = solution.n_iter
        self.support_ = laplace.support
        self.support_vectors_ = X[laplace.support]
        self.dual_coef_ = laplace.v
        self.laplace_ = laplace
        self.log_marginal_likelihood_ = laplace.log_evidence

    def latent_mean_and_variance(self, X):
        r"""Mean :math:`\mu_t` and variance :math:`\sigma_t^2` of the latent value (5.41).

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        mean, var : ndarray of shape (m,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return in_blocks(
            self._latent_moments, X, self.support_vectors_.shape[0], arrays=2.0, kernel=self.kernel_
        )

    def _latent_moments(self, X):
        """:meth:`latent_mean_and_variance` at validated rows."""
        k = evaluate_kernel(self.kernel_, self.support_vectors_, X)
        mean = self.dual_coef_ @ k  # mu_t = v_M^T k_M
        # sigma_t^2 = k(x, x) - k_M^T (Lambda^-1 + K_M)^-1 k_M
        V = _linalg.solve_lower(self.laplace_.L, np.sqrt(self.laplace_.Lambda)[:, None] * k)
        var = kernel_diagonal(self.kernel_, X) - np.einsum("ij,ij->j", V, V)
        return mean, np.maximum(var, 0.0)

    def decision_function(self, X):
        """Latent mean :math:`\\mu_t` (5.41); its sign is the predicted class.

        The class probability also depends on the latent variance, so ``predict_proba`` need not
        order the points as this score does.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
        """
        return self._latent_mean(X)

    def _latent_mean(self, X):
        """Latent mean :math:`\\mu_t = \\mathbf v_M^T\\mathbf k_M` (5.41) alone, shape (m,)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        support = self.support_vectors_
        return in_blocks(
            lambda rows: self.dual_coef_ @ evaluate_kernel(self.kernel_, support, rows),
            X,
            support.shape[0],
            kernel=self.kernel_,
        )

    def predict_proba(self, X):
        """Class probabilities (5.42).

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        proba : ndarray of shape (m, 2)
            Columns in the order of ``classes_``.
        """
        mean, var = self.latent_mean_and_variance(X)
        p_positive = in_blocks(  # (m, 64) arrays at the quadrature nodes: in blocks as well
            lambda mean, var: class_probability(mean, var, y=1),
            (mean, var),
            GAUSS_LEGENDRE_NODES.size,
            arrays=6.0,
        )
        return np.column_stack([1.0 - p_positive, p_positive])
