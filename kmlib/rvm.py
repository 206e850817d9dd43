r"""Relevance vector machines for regression and classification (PRML 7.2; Tipping 2001).

The model is linear in :math:`M` fixed basis functions, :math:`y(\mathbf x) =
\mathbf w^\top\boldsymbol\phi(\mathbf x)`, where :math:`\boldsymbol\phi` is a bias and one kernel
column :math:`k(\mathbf x, \mathbf x_n)` per training point (7.78), so :math:`M = N + 1`. Each
weight has its own prior precision :math:`\alpha_i` (7.80), and the :math:`\alpha_i` (and the
noise precision :math:`\beta` for regression) maximise the evidence. Two algorithms do that:

* ``method="reestimate"`` — the fixed-point updates (7.87)–(7.89) (classification: (7.116) after
  an IRLS search for the weight mode), starting from all :math:`M` basis functions and pruning
  those whose :math:`\alpha_i` passes a threshold. Every iteration factorises the current
  :math:`M\times M` posterior precision.
* ``method="sequential"`` — the fast marginal-likelihood algorithm of Tipping & Faul (2003),
  PRML 7.2.2. It starts with no basis function (a classifier also climbs from two more starts,
  see ``_sequential_classification``); each step computes the sparsity and quality
  factors (7.102)–(7.107) of every candidate and takes the single add, re-estimate or delete move
  (7.101) that raises the log evidence most — by exactly :math:`\lambda(\alpha_i^{\rm new}) -
  \lambda(\alpha_i^{\rm old})` of (7.96)–(7.97). Only the active basis functions are factorised;
  for regression the posterior and the factors follow each move by the rank-one updates of
  Tipping & Faul's Appendix A (``_SequentialPosterior``).
  When neighbouring kernel columns are nearly collinear, single moves creep along a ridge of
  the evidence, moving the same few functions again and again. When the best move re-estimates
  a function moved within the last ``CREEP_WINDOW`` moves, kmlib tries a joint Newton step in
  the prior variances of the active functions instead, and takes it if it gains more than that
  move (``_joint_step``), or, failing that, the same step in the two coordinates of the function
  to be re-estimated and its most nearly parallel active neighbour.

Both algorithms work on basis columns scaled to unit length and, for regression, on targets
scaled to unit root mean square. Neither changes the evidence maximum: scaling a column by
:math:`c` is the same model with :math:`\alpha_i/c^2`, and scaling the targets rescales
:math:`\mathbf w` and :math:`\beta^{-1/2}`. All fitted attributes are in the original units.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from . import _linalg
from ._kernel_checks import check_kernel, design_matrix, warn_if_constant
from ._newton import damped_step
from ._validation import (
    binary_training_data,
    check_bool,
    check_non_negative_int,
    check_positive_int,
    check_real,
)
from .kernels import RBF

__all__ = [
    "RVR",
    "RVC",
    "design_matrix",  # from kmlib._kernel_checks, shared with the kernel machines
    "regression_posterior",
    "classification_mode",
    "sparsity_quality",
    "log_evidence_term",
    "optimal_alpha",
]

LOG_2PI = np.log(2.0 * np.pi)
#: Largest noise precision for targets of unit root mean square (noise std >= 1e-6 of it).
MAX_SCALED_BETA = 1e12
#: Step halvings tried before a joint Newton step is given up for a single move.
JOINT_STEP_HALVINGS = 4
#: Sequential regression tries a joint step only on a function it moved within this many moves.
CREEP_WINDOW = 4
#: Sequential regression re-estimates the noise precision after one single move per this many
#: active functions (see kmlib._rvm_moves.beta_interval).
BETA_UPDATE_PER_ACTIVE = 5
#: Sequential regression: rank-one updates between two fresh factorisations.
FULL_REFRESH_EVERY = 50
#: Sequential regression computes the M x M Gram matrix of the basis after this many adds ...
GRAM_AFTER_ADDS = 16
#: ... if M is at most this (128 MB).
GRAM_MAX_COLUMNS = 4000
#: Sequential classification: columns in each spread start (see _spread_start) ...
SPREAD_START_SIZES = (10, 40)
#: ... and their precision over the median of 1 - |cosine| between them. Chosen on crabs
#: (8 splits x 3 length-scales, and 2 broader ones), for the median gap to the best of 20
#: random starts; the start of 40 columns added for the crabs at l = 1.1, where ten columns
#: stop 5.8 nats below the best random start and forty 0.3 nats.
SPREAD_START_SCALE = 0.005
#: Below this median 1 - |cosine| the columns are parallel to rounding: no spread start.
PARALLEL = 1e-10


# ---------------------------------------------------------------------------------- the model
class RegressionPosterior(NamedTuple):
    """Posterior over the weights of the active basis functions (PRML 7.81–7.89)."""

    mean: np.ndarray  #: m of (7.82), shape (k,)
    cov: np.ndarray  #: Sigma of (7.83), shape (k, k)
    log_evidence: float  #: ln p(t | alpha, beta) of (7.85)
    gamma: np.ndarray  #: gamma_i = 1 - alpha_i Sigma_ii of (7.89), shape (k,)
    residual: float  #: ||t - Phi m||^2


def regression_posterior(Phi, t, alpha, beta):
    r"""Posterior (7.82)–(7.83), log evidence (7.85) and :math:`\gamma_i` (7.89).

    Only the :math:`k\times k` matrix :math:`\mathbf A + \beta\boldsymbol\Phi^\top\boldsymbol\Phi`
    is factorised; the :math:`N\times N` covariance (7.86) enters through

    .. math:: \ln|\mathbf C| = -N\ln\beta - \textstyle\sum_i\ln\alpha_i + \ln|\mathbf A +
              \beta\boldsymbol\Phi^\top\boldsymbol\Phi|, \qquad \mathbf t^\top\mathbf C^{-1}
              \mathbf t = \beta\lVert\mathbf t - \boldsymbol\Phi\mathbf m\rVert^2 +
              \mathbf m^\top\mathbf A\mathbf m .

    Parameters
    ----------
    Phi : ndarray of shape (n, k)
        Columns of the basis functions in the model.
    t : ndarray of shape (n,)
        Targets.
    alpha : ndarray of shape (k,)
        Their finite prior precisions.
    beta : float
        Noise precision.

    Returns
    -------
    RegressionPosterior
    """
    return _posterior(Phi.T @ Phi, Phi.T @ t, Phi, t, alpha, beta)


def _posterior(G, PhiT_t, Phi, t, alpha, beta):
    """:func:`regression_posterior` given G = Phi^T Phi and Phi^T t, which callers keep."""
    n, k = Phi.shape
    alpha = np.asarray(alpha, dtype=np.float64)
    H = beta * G  # Sigma^-1 = A + beta Phi^T Phi, PRML (7.83)
    H[np.diag_indices(k)] += alpha
    if k:
        L, _ = _linalg.cholesky(H, initial_jitter=1e-14)
        mean = beta * _linalg.cho_solve(L, PhiT_t)  # PRML (7.82)
        cov = _linalg.inverse_from_cholesky(L)
    else:
        L, mean, cov = H, np.zeros(0), H
    residual = t - Phi @ mean
    residual2 = float(residual @ residual)
    log_det_C = -n * np.log(beta) - np.sum(np.log(alpha)) + _linalg.log_det(L)
    quad = beta * residual2 + mean @ (alpha * mean)
    log_evidence = -0.5 * (n * LOG_2PI + log_det_C + quad)  # PRML (7.85)
    gamma = 1.0 - alpha * np.diag(cov)  # PRML (7.89)
    return RegressionPosterior(mean, cov, float(log_evidence), gamma, residual2)


class ClassificationMode(NamedTuple):
    """Laplace approximation at the weight mode (PRML 7.109–7.114)."""

    w: np.ndarray  #: mode w*, shape (k,)
    y: np.ndarray  #: sigma(Phi w*), shape (n,)
    cov: np.ndarray  #: Sigma = (Phi^T B Phi + A)^-1 of (7.113), shape (k, k)
    log_evidence: float  #: Laplace log evidence (7.114)
    n_iter: int  #: Newton steps taken


def _log_posterior(Phi, t, alpha, w):
    """ln p(t|w) - 1/2 w^T A w of (7.109); t ln y + (1-t) ln(1-y) = t a + ln sigma(-a)."""
    a = Phi @ w
    return float(np.sum(t * a + log_expit(-a)) - 0.5 * w @ (alpha * w))


def classification_mode(Phi, t, alpha, w0=None, tol=1e-10, max_iter=100):
    r"""Newton/IRLS search for the weight mode (7.112) and the Laplace evidence (7.114).

    Each step solves :math:`(\boldsymbol\Phi^\top\mathbf B\boldsymbol\Phi + \mathbf A)\,\Delta
    \mathbf w = \boldsymbol\Phi^\top(\mathbf t - \mathbf y) - \mathbf A\mathbf w`, the gradient
    (7.110) over the negative Hessian (7.111); a step that lowers (7.109) is halved.

    Parameters
    ----------
    Phi : ndarray of shape (n, k)
        Columns of the basis functions in the model.
    t : ndarray of shape (n,)
        Labels in {0, 1}.
    alpha : ndarray of shape (k,)
        Finite prior precisions.
    w0 : ndarray of shape (k,), optional
        Starting weights (zeros by default).
    tol : float
        Stop when a Newton step changes no weight by more than ``tol * (1 + max|w|)``.
    max_iter : int
        Newton step limit; reaching it warns with ``ConvergenceWarning``.

    Returns
    -------
    ClassificationMode
    """
    k = Phi.shape[1]
    alpha = np.asarray(alpha, dtype=np.float64)
    w = np.zeros(k) if w0 is None else np.array(w0, dtype=np.float64)
    objective = _log_posterior(Phi, t, alpha, w)
    converged = False
    for n_iter in range(max_iter + 1):
        y = expit(Phi @ w)
        B = y * (1.0 - y)
        H = Phi.T @ (B[:, np.newaxis] * Phi)  # minus the Hessian (7.111)
        H[np.diag_indices(k)] += alpha
        L, _ = _linalg.cholesky(H, initial_jitter=1e-14)
        if converged or n_iter == max_iter:
            break
        gradient = Phi.T @ (t - y) - alpha * w  # PRML (7.110)
        step = _linalg.cho_solve(L, gradient)
        size, value = damped_step(
            lambda s: -_log_posterior(Phi, t, alpha, w + s * step), -objective
        )
        if size == 0.0:
            converged = True  # no step gains beyond round-off: w is the mode
            continue
        w, objective = w + size * step, -value
        moved = size * np.max(np.abs(step), initial=0.0)
        converged = moved <= tol * (1.0 + np.max(np.abs(w), initial=0))
    if not converged:
        warnings.warn(
            f"IRLS for the RVM weight mode did not converge in {max_iter} steps",
            ConvergenceWarning,
            stacklevel=2,
        )
    cov = _linalg.inverse_from_cholesky(L) if k else np.zeros((0, 0))
    # PRML (7.114): ln p(t|w*) + ln p(w*|alpha) + M/2 ln 2 pi + 1/2 ln|Sigma|; the 2 pi terms cancel
    log_evidence = objective + 0.5 * np.sum(np.log(alpha)) - 0.5 * _linalg.log_det(L)
    return ClassificationMode(w, y, cov, float(log_evidence), n_iter)


# ---------------------------------------------------------------------- sparsity and quality
def log_evidence_term(alpha, s, q):
    r""":math:`\lambda(\alpha_i)` of (7.97), the part of the log evidence that depends on
    :math:`\alpha_i`; it tends to 0 as :math:`\alpha_i\to\infty`, its value when
    :math:`\phi_i` is left out.

    Parameters
    ----------
    alpha, s, q : array_like of the same shape
        Precision, sparsity (7.98) and quality (7.99). ``alpha`` may be ``inf``.

    Returns
    -------
    ndarray
    """
    alpha, s, q = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (alpha, s, q)))
    out = np.zeros(alpha.shape)
    f = np.isfinite(alpha)
    # ln alpha - ln(alpha + s) = -log1p(s / alpha), accurate for alpha >> s
    out[f] = 0.5 * (-np.log1p(s[f] / alpha[f]) + q[f] ** 2 / (alpha[f] + s[f]))
    return out


def optimal_alpha(s, q):
    r"""The maximiser (7.101) of :math:`\lambda(\alpha_i)`: :math:`s_i^2/(q_i^2 - s_i)` when
    :math:`q_i^2 > s_i`, otherwise :math:`\infty` (leave :math:`\phi_i` out).

    Parameters
    ----------
    s, q : array_like of the same shape
        Sparsity (7.98) and quality (7.99).

    Returns
    -------
    ndarray
    """
    s, q = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(q, dtype=np.float64))
    excess = q**2 - s
    relevant = excess > 0
    out = np.full(s.shape, np.inf)
    out[relevant] = s[relevant] ** 2 / excess[relevant]
    return out


class SparsityQuality(NamedTuple):
    """Sparsity and quality factors of every candidate basis function (PRML 7.98–7.107)."""

    S: np.ndarray  #: phi_i^T C^-1 phi_i (7.103), shape (M,)
    Q: np.ndarray  #: phi_i^T C^-1 t (7.102), shape (M,)
    s: np.ndarray  #: phi_i^T C_-i^-1 phi_i (7.98), shape (M,)
    q: np.ndarray  #: phi_i^T C_-i^-1 t (7.99), shape (M,)


def _leave_one_out(S, Q, alpha, active, mean, cov):
    """s, q from S, Q by (7.104)-(7.105); s = S and q = Q where alpha is infinite.

    Given the posterior mean and covariance of the ``active`` functions, their s, q are taken
    in the equivalent forms s_i = gamma_i / Sigma_ii and q_i = m_i / Sigma_ii (S_i = alpha_i
    gamma_i and Q_i = alpha_i m_i in (7.104)-(7.105)), which do not divide by the difference
    alpha_i - S_i (compiled: ``kmlib._rvm_moves.leave_one_out``).
    """
    from . import _rvm_moves  # numba: imported on the first sequential fit only

    s, q = np.empty(S.shape), np.empty(Q.shape)
    _rvm_moves.leave_one_out(
        S, Q, alpha, np.asarray(active, dtype=np.int64), len(active),
        np.ascontiguousarray(mean, dtype=np.float64), np.ascontiguousarray(cov, dtype=np.float64),
        s, q,
    )  # fmt: skip
    return SparsityQuality(S, Q, s, q)


def _regression_factors(PhiT_Phi_active, PhiT_t, column_norms2, beta, posterior):
    """S, Q of all columns by (7.106)-(7.107), with beta Sigma Phi^T t = m of (7.82)."""
    P = PhiT_Phi_active  # (M, k): phi_i^T phi_j for j in the model
    S = beta * column_norms2 - beta**2 * np.einsum("ij,ij->i", P @ posterior.cov, P)
    Q = beta * PhiT_t - beta * P @ posterior.mean
    return S, Q


def sparsity_quality(Phi, t, alpha, beta):
    r"""Sparsity and quality factors of every basis function for regression (7.98)–(7.107).

    :math:`S_i, Q_i` come from the active basis functions only, by (7.106)–(7.107), and
    :math:`s_i, q_i` from them by (7.104)–(7.105); for a function in the model in the
    equivalent forms :math:`s_i = \gamma_i/\Sigma_{ii}`, :math:`q_i = m_i/\Sigma_{ii}`, which
    do not divide by the small difference :math:`\alpha_i - S_i` when the weight is well
    determined.

    Parameters
    ----------
    Phi : ndarray of shape (n, M)
        All candidate basis functions.
    t : ndarray of shape (n,)
        Targets.
    alpha : ndarray of shape (M,)
        Precisions; ``np.inf`` marks a basis function that is not in the model.
    beta : float
        Noise precision.

    Returns
    -------
    SparsityQuality
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    active = np.flatnonzero(np.isfinite(alpha))
    posterior = regression_posterior(Phi[:, active], t, alpha[active], beta)
    S, Q = _regression_factors(
        Phi.T @ Phi[:, active], Phi.T @ t, np.sum(Phi**2, axis=0), beta, posterior
    )
    return _leave_one_out(S, Q, alpha, active, posterior.mean, posterior.cov)


def _heading_out(mean, gamma, cov):
    """Active functions whose conditional optimum (7.101) is alpha = inf: q_i^2 <= s_i.

    For a function in the model, s_i = gamma_i / Sigma_ii and q_i = m_i / Sigma_ii (from
    (7.104)-(7.105) with S_i = alpha_i gamma_i and Q_i = alpha_i m_i), so q_i^2 <= s_i reads
    m_i^2 <= gamma_i Sigma_ii.
    """
    return mean**2 <= gamma * np.diag(cov)


def _best_move(alpha, factors):
    """The add / re-estimate / delete move (7.101) with the largest gain (7.96) in evidence,
    ``(i, new_alpha, gain)`` (compiled: ``kmlib._rvm_moves.best_move``).

    At the optimum (7.101), lambda of (7.97) has a closed form in r = q^2/s alone:
    lambda(s^2/(q^2 - s)) = (r - 1 - ln r)/2 for r > 1, and 0 (the function left out) otherwise.
    """
    from . import _rvm_moves  # numba: imported on the first sequential fit only

    i, new_alpha, gain = _rvm_moves.best_move(
        np.ascontiguousarray(factors.s, dtype=np.float64),
        np.ascontiguousarray(factors.q, dtype=np.float64),
        np.ascontiguousarray(alpha, dtype=np.float64),
    )
    return int(i), float(new_alpha), float(gain)


def _variance_gradient_hessian(alpha, mean, cov):
    r"""Gradient and Hessian of the log evidence (7.85) in the prior variances
    :math:`u_i = 1/\alpha_i` of the active functions, at fixed :math:`\beta`.

    :math:`\mathbf C = \beta^{-1}\mathbf I + \sum_i u_i\boldsymbol\phi_i\boldsymbol\phi_i^\top`
    (7.86) is linear in :math:`\mathbf u`, and with :math:`K_{ij} = \boldsymbol\phi_i^\top
    \mathbf C^{-1}\boldsymbol\phi_j` and :math:`\partial\mathbf C^{-1}/\partial u_j =
    -\mathbf C^{-1}\boldsymbol\phi_j\boldsymbol\phi_j^\top\mathbf C^{-1}`,

    .. math:: g_i = \tfrac12(Q_i^2 - S_i), \qquad H_{ij} = \tfrac12 K_{ij}^2 - Q_i Q_j K_{ij},

    where, for active functions, :math:`\mathbf K = \mathbf A - \mathbf A\boldsymbol\Sigma
    \mathbf A`, :math:`Q_i = \alpha_i m_i` and :math:`S_i = K_{ii}` (from (7.82)-(7.83) and the
    Woodbury identity). :math:`g_i = 0` is the fixed point (7.87).
    """
    K = np.diag(alpha) - np.outer(alpha, alpha) * cov
    Q = alpha * mean
    gradient = 0.5 * (Q**2 - np.diag(K))
    hessian = 0.5 * K**2 - np.outer(Q, Q) * K
    return gradient, hessian


# ------------------------------------------------------------------------------- algorithms
class _Fit(NamedTuple):
    """What a fitting algorithm returns, in the scaled units it works in."""

    alpha: np.ndarray  # (M,), inf where pruned
    active: np.ndarray  # indices of the active basis functions, in the order of mean and cov
    beta: float  # noise precision (regression) or nan
    mean: np.ndarray  # weights of the active basis functions
    cov: np.ndarray  # their posterior covariance
    log_evidence: float
    path: list
    n_iter: int
    converged: bool


def _report(verbose, method, n_iter, n_active, log_evidence):
    if verbose and n_iter % verbose == 0:
        print(
            f"RVM {method}: iteration {n_iter}, {n_active} active, log evidence {log_evidence:.6f}"
        )


def _initial_noise_precision(t):
    """The sequential fit's first beta: a noise standard deviation of a tenth of the targets'
    standard deviation, as in Tipping's SparseBayes (its spread, not its mean square: the bias
    function explains the mean). Capped at ``MAX_SCALED_BETA`` (constant targets)."""
    spread = 0.1 * np.std(t)
    return min(1.0 / spread**2, MAX_SCALED_BETA) if spread > 0 else MAX_SCALED_BETA


def _beta_candidates(post, n, beta):
    r"""Noise precisions to try: MacKay's update (7.88), then the EM update.

    The EM update :math:`N/(\lVert\mathbf t - \boldsymbol\Phi\mathbf m\rVert^2 +
    \operatorname{Tr}\boldsymbol\Phi\boldsymbol\Sigma\boldsymbol\Phi^\top)`, with the trace
    equal to :math:`\sum_i\gamma_i/\beta`, never lowers the evidence; (7.88) usually gains more.
    """
    dof = n - np.sum(post.gamma)  # N - sum gamma_i of (7.88)
    mackay = dof / post.residual if dof > 0 and post.residual > 0 else MAX_SCALED_BETA
    spread = post.residual + np.sum(post.gamma) / beta
    em = n / spread if spread > 0 else MAX_SCALED_BETA
    return min(mackay, MAX_SCALED_BETA), min(em, MAX_SCALED_BETA)


def _joint_step(alpha, post, evidence_at, must_beat, block=None):
    """A joint Newton step in the prior variances u = 1/alpha of several active functions.

    Single-coordinate moves creep when active columns are nearly collinear: the evidence then
    depends almost only on the sum of their variances, a straight ridge in u, and each move
    shifts a little variance from one to the other, so that one reaches alpha = inf (u = 0) only
    after hundreds of steps. The joint step (:func:`_variance_gradient_hessian`) follows the
    ridge at once: Newton's step in the coordinates ``block`` (positions in ``alpha``; all of
    them by default) with the Hessian's eigenvalues replaced by minus their absolute values (so
    that it ascends even where the evidence is not concave), cut short where the first u_i
    reaches 0, which deletes that function. It is tried only if the quadratic model predicts a
    gain larger than ``must_beat``, the gain of the best single move, and step halving then
    looks for such a gain in the evidence itself; if there is none, None is returned.

    ``evidence_at(alpha)`` must accept inf entries (deleted functions).
    """
    u = 1.0 / alpha
    block = np.arange(alpha.size) if block is None else np.asarray(block)
    gradient, hessian = _variance_gradient_hessian(alpha, post.mean, post.cov)
    gradient, hessian = gradient[block], hessian[np.ix_(block, block)]
    step = _uphill_newton_step(gradient, hessian)
    if not np.all(np.isfinite(step)):
        return None  # a zero Hessian: nothing to model
    shrinking = step < 0
    fraction = min(1.0, np.min(-u[block][shrinking] / step[shrinking], initial=np.inf))
    scaled = fraction * step
    if gradient @ scaled + 0.5 * scaled @ hessian @ scaled <= must_beat:
        return None  # not even the quadratic model beats the single move
    for _ in range(JOINT_STEP_HALVINGS):
        moved_u = u[block] + fraction * step
        moved_u[moved_u <= 1e-12 * u[block]] = 0.0  # the first to reach the boundary leaves
        trial_alpha = alpha.copy()  # the functions outside the block keep their alpha exactly
        with np.errstate(divide="ignore"):
            trial_alpha[block] = 1.0 / moved_u
        trial = evidence_at(trial_alpha)
        if trial.log_evidence - post.log_evidence > must_beat:
            return trial_alpha, trial
        fraction /= 2.0
    return None


def _uphill_newton_step(gradient, hessian):
    """Newton's step for a maximum with the Hessian's eigenvalues replaced by minus their
    absolute values (floored at 1e-12 of the largest), so that it ascends even where the
    function is not concave. Where the Hessian is negative definite that is the plain Newton
    step, taken from one Cholesky factorisation of its negative instead of the eigenvectors.
    """
    L = _linalg.cholesky_if_definite(-hessian)
    if L is not None:
        return _linalg.cho_solve(L, gradient)
    curvature, vectors = np.linalg.eigh(hessian)
    curvature = np.maximum(np.abs(curvature), 1e-12 * np.max(np.abs(curvature)))
    return vectors @ ((vectors.T @ gradient) / curvature)


def _closest_partner(cross, active, norms2, i):
    """Position in ``active`` of the active column most collinear with column ``i`` (not i)."""
    cosine = np.abs(cross[i]) / np.sqrt(norms2[i] * norms2[active])
    cosine[active == i] = -1.0
    return int(np.argmax(cosine))


class _SequentialPosterior:
    r"""The posterior and the factors of every candidate, kept up to date move by move.

    Tipping & Faul (2003), Appendix A: when one :math:`\alpha_i` is re-estimated, added or
    deleted, :math:`\boldsymbol\Sigma` (7.83), :math:`\mathbf m` (7.82) and :math:`S_m, Q_m`
    (7.102)-(7.103) of all :math:`M` candidates change by rank-one terms, which cost
    :math:`O(Mk)` (plus :math:`O(NM)` for the new column's products on an add) instead of the
    :math:`O(Mk^2 + k^3)` of a fresh factorisation. A change of :math:`\beta` changes every
    quantity, so it (and a joint step) is followed by :meth:`refresh`, which also removes the
    drift of the updates; the fit calls it every ``FULL_REFRESH_EVERY`` moves besides. The moves
    themselves are compiled (``kmlib._rvm_moves``), which keeps the state in buffers that grow
    by doubling; the attributes below are views of their used parts.

    Attributes
    ----------
    active : ndarray of shape (k,)
        Indices of the active columns, in the order of ``mean`` and ``cov`` (a deleted
        column's place is taken by the last one).
    alpha : ndarray of shape (M,)
        Precisions, ``inf`` outside the model.
    beta : float
        Noise precision.
    cross : ndarray of shape (M, k)
        :math:`\boldsymbol\phi_m^\top\boldsymbol\phi_j` for every column m and active j.
    basis : ndarray of shape (n, k)
        The active columns.
    mean, cov : ndarray of shapes (k,) and (k, k)
        :math:`\mathbf m` and :math:`\boldsymbol\Sigma`.
    S, Q : ndarray of shape (M,)
        :math:`S_m` and :math:`Q_m`.
    log_evidence : float
        (7.85), updated by the exact gains (7.96) of the moves.
    counters : ndarray of shape (``moves.N_COUNTERS``,)
        The number of active functions and the fit's counts of iterations and moves, shared
        with the compiled moves (indices ``moves.K``, ``moves.ITERATIONS`` ...).
    recent : ndarray of shape (``CREEP_WINDOW``,)
        The functions of the last single moves (-1 for none yet).
    """

    def __init__(self, Phi, t, beta):
        from . import _rvm_moves as moves  # numba: imported on the first sequential fit only

        self.moves = moves
        self.Phi, self.t, self.beta = Phi, t, beta
        self.PhiT_t = Phi.T @ t
        self.norms2 = np.sum(Phi**2, axis=0)
        self.alpha = np.full(Phi.shape[1], np.inf)
        self.S, self.Q = self.beta * self.norms2, self.beta * self.PhiT_t  # (7.106)-(7.107)
        self.counters = np.zeros(moves.N_COUNTERS, dtype=np.int64)
        self.recent = np.full(CREEP_WINDOW, -1, dtype=np.int64)
        self._evidence = np.zeros(1)
        self._allocate(8)
        # phi_m^T phi_i for an added column i: a product of its own for the first adds, then
        # a column of the Gram matrix, once GRAM_AFTER_ADDS adds suggest that many more will
        # follow (the whole matrix costs about as much as a few dozen separate products)
        self.gram = np.zeros((0, 0))
        self.gram_allowed = Phi.shape[1] <= GRAM_MAX_COLUMNS
        self.refresh()

    def _allocate(self, capacity):
        """Buffers for ``capacity`` active functions, the used part copied over."""
        k = self.k  # 0 when the buffers are first made
        buffers = (
            np.zeros(capacity, dtype=np.int64),
            np.zeros(capacity),
            np.zeros((capacity, capacity)),
            np.zeros((self.Phi.shape[1], capacity), order="F"),
            np.zeros((self.Phi.shape[0], capacity), order="F"),
        )
        if k:
            buffers[0][:k], buffers[1][:k], buffers[2][:k, :k] = self.active, self.mean, self.cov
            buffers[3][:, :k], buffers[4][:, :k] = self.cross, self.basis
        self._active, self._mean, self._cov, self._cross, self._basis = buffers

    @property
    def k(self):
        """The number of active functions."""
        return int(self.counters[self.moves.K])

    @property
    def active(self):
        return self._active[: self.k]

    @property
    def mean(self):
        return self._mean[: self.k]

    @property
    def cov(self):
        return self._cov[: self.k, : self.k]

    @property
    def cross(self):
        return self._cross[:, : self.k]

    @property
    def basis(self):
        return self._basis[:, : self.k]

    @property
    def log_evidence(self):
        return float(self._evidence[0])

    def posterior(self, alpha_active=None, beta=None):
        """A fresh :func:`regression_posterior` of the active columns; trial values may be
        given (an ``inf`` in ``alpha_active`` leaves that column out)."""
        alpha_active = self.alpha[self.active] if alpha_active is None else alpha_active
        beta = self.beta if beta is None else beta
        kept = np.isfinite(alpha_active)
        columns = self.active[kept]
        if kept.all():
            G, basis = self.cross[columns], self.basis
        else:
            G, basis = self.cross[np.ix_(columns, kept)], self.basis[:, kept]
        return _posterior(G, self.PhiT_t[columns], basis, self.t, alpha_active[kept], beta)

    def refresh(self, post=None):
        """Recompute everything from a factorisation (``post``, if given, is the posterior of
        the current active set and beta)."""
        post = self.posterior() if post is None else post
        k = self.k
        self._mean[:k], self._cov[:k, :k], self._evidence[0] = (
            post.mean,
            post.cov,
            post.log_evidence,
        )
        S, Q = _regression_factors(self.cross, self.PhiT_t, self.norms2, self.beta, post)
        self.S[:], self.Q[:] = S, Q

    def set_alpha(self, alpha_active, post):
        """Take new precisions for all active columns (a joint step) with their posterior."""
        keep = np.isfinite(alpha_active)
        self.alpha[self.active] = alpha_active
        k = int(np.sum(keep))
        self._active[:k] = self.active[keep]
        self._cross[:, :k] = self.cross[:, keep]
        self._basis[:, :k] = self.basis[:, keep]
        self.counters[self.moves.K] = k
        self.refresh(post)

    def set_beta(self, beta, post):
        """Take a new noise precision with its posterior."""
        self.beta = beta
        self.refresh(post)

    def factors(self):
        """s, q of every candidate by (7.104)-(7.105)."""
        return _leave_one_out(self.S, self.Q, self.alpha, self.active, self.mean, self.cov)

    def current(self):
        """The posterior as :func:`regression_posterior` returns it, without refactorising."""
        gamma = 1.0 - self.alpha[self.active] * np.diag(self.cov)
        residual = self.t - self.basis @ self.mean
        return RegressionPosterior(
            self.mean.copy(), self.cov.copy(), self.log_evidence, gamma, float(residual @ residual)
        )

    def add(self, i, alpha_i, gain):
        """Put column i in the model with precision alpha_i (``_rvm_moves.add_column``)."""
        k = self.k
        if k == self._active.size:
            self._allocate(2 * k)
        self.counters[self.moves.N_ADDS] += 1
        if (
            not self.gram.size
            and self.gram_allowed
            and self.counters[self.moves.N_ADDS] > GRAM_AFTER_ADDS
        ):
            self.gram = self.Phi.T @ self.Phi
        self.moves.add_column(
            int(i),
            float(alpha_i),
            self.S,
            self.Q,
            self.alpha,
            self._active,
            k,
            self._mean,
            self._cov,
            self._cross,
            self._basis,
            self.Phi,
            self.gram,
            self.beta,
        )
        self.counters[self.moves.K] = k + 1
        self._evidence[0] += gain

    def update(self, i, alpha_i, gain):
        """Re-estimate column i's precision to alpha_i, or delete it when alpha_i is inf
        (``_rvm_moves.update_column``)."""
        j = int(np.flatnonzero(self.active == i)[0])
        self.counters[self.moves.K] = self.moves.update_column(
            j,
            float(alpha_i),
            self.S,
            self.Q,
            self.alpha,
            self._active,
            self.k,
            self._mean,
            self._cov,
            self._cross,
            self._basis,
            self.beta,
        )
        self._evidence[0] += gain

    def single_moves(self, path, tol, max_iter, verbose):
        """Plain single moves, compiled (``_rvm_moves.single_moves``); returns its status."""
        return self.moves.single_moves(
            self.S, self.Q, self.alpha, self._active, self._mean, self._cov, self._cross,
            self._basis, self.Phi, self.gram, self.beta, self._evidence, path, self.recent,
            self.counters, tol, max_iter, BETA_UPDATE_PER_ACTIVE, FULL_REFRESH_EVERY, verbose,
            GRAM_AFTER_ADDS, self.gram_allowed,
        )  # fmt: skip

    def remember(self, i):
        """Note function i as moved (for the test of a ridge)."""
        position = self.counters[self.moves.RECENT_NEXT]
        self.recent[position] = i
        self.counters[self.moves.RECENT_NEXT] = (position + 1) % self.recent.size


def _take_move(state, i, new_alpha, gain):
    """Add (step 6), re-estimate (step 5) or delete (step 7) basis function i."""
    if np.isfinite(state.alpha[i]):
        state.update(i, new_alpha, gain)
    else:
        state.add(i, new_alpha, gain)


def _update_beta(state, n):
    """Step 8: re-estimate beta by (7.88), or the EM update if that lowers the evidence.

    Returns the gain in log evidence (0 when neither candidate keeps it from falling).
    """
    post = state.current()
    for candidate in _beta_candidates(post, n, state.beta):
        trial = state.posterior(beta=candidate)
        if trial.log_evidence >= post.log_evidence:
            state.set_beta(candidate, trial)
            return trial.log_evidence - post.log_evidence
    return 0.0


def _joint_move(state, i, gain):
    """A joint Newton step (:func:`_joint_step`) on all active functions or, failing that, on
    function i and its most collinear active neighbour; None if neither beats ``gain``."""
    alpha_active, post = state.alpha[state.active], state.current()
    joint = _joint_step(alpha_active, post, state.posterior, gain)
    if joint is None and state.active.size > 2:
        pair = [
            int(np.flatnonzero(state.active == i)[0]),
            _closest_partner(state.cross, state.active, state.norms2, i),
        ]
        joint = _joint_step(alpha_active, post, state.posterior, gain, pair)
    return joint


def _sequential_regression(Phi, t, beta, tol, max_iter, verbose):
    """Tipping & Faul's algorithm (PRML 7.2.2, steps 1-9) for regression.

    Single moves update the posterior and the factors by the rank-one formulas of
    :class:`_SequentialPosterior`; runs of them are compiled. Beta (step 8) is re-estimated
    after every ``kmlib._rvm_moves.beta_interval`` moves, and whenever no single move gains
    more than ``tol``; each change of beta, and every ``FULL_REFRESH_EVERY`` moves,
    refactorises.
    """
    n = Phi.shape[0]
    state = _SequentialPosterior(Phi, t, beta)  # step 2: start from the empty model
    moves, counters = state.moves, state.counters
    path = np.empty(max_iter + 1)
    path[0] = state.log_evidence
    beta_gain = np.inf
    converged = False
    while counters[moves.ITERATIONS] < max_iter:
        status = state.single_moves(path, tol, max_iter, verbose)  # steps 3-7, plain moves
        if status == moves.MAX_ITER:
            break
        if status == moves.NOT_PLAIN:  # this iteration needs Python
            factors = state.factors()  # step 3
            i, new_alpha, gain = _best_move(state.alpha, factors)  # step 4
            counters[moves.ITERATIONS] += 1
            if gain <= tol and (counters[moves.SINCE_BETA] > 0 or beta_gain > tol):
                counters[moves.SINCE_BETA] = state.k + 1  # nothing left for single moves: beta
            elif gain <= tol:
                post = state.current()
                leaving = state.active[_heading_out(post.mean, post.gamma, post.cov)]
                if leaving.size == 0:
                    counters[moves.ITERATIONS] -= 1
                    converged = True
                    break
                i, new_alpha = int(leaving[0]), np.inf  # its deletion gain (7.96) is >= 0
                gain = -log_evidence_term(state.alpha[i], factors.s[i], factors.q[i])
                _take_move(state, i, new_alpha, gain)
                counters[moves.SINCE_BETA] += 1
                counters[moves.SINCE_REFRESH] += 1
            else:
                joint = None
                creeping = i in state.recent and np.isfinite(state.alpha[i])  # revisits: a ridge
                if creeping and np.isfinite(new_alpha) and state.k > 1:
                    joint = _joint_move(state, i, gain)
                if joint is not None:
                    state.set_alpha(*joint)
                    counters[moves.SINCE_REFRESH] = 0
                else:
                    _take_move(state, i, new_alpha, gain)
                    counters[moves.SINCE_REFRESH] += 1
                state.remember(i)
                counters[moves.SINCE_BETA] += 1
        # the end of the iteration, after a compiled move or a Python one
        interval = moves.beta_interval(state.k, BETA_UPDATE_PER_ACTIVE)
        if counters[moves.SINCE_BETA] >= interval:  # step 8
            beta_gain = _update_beta(state, n)
            counters[moves.SINCE_BETA] = 0
            if beta_gain > 0:
                counters[moves.SINCE_REFRESH] = 0
        if counters[moves.SINCE_REFRESH] >= FULL_REFRESH_EVERY:  # clear the drift of the updates
            state.refresh()
            counters[moves.SINCE_REFRESH] = 0
        n_iter = int(counters[moves.ITERATIONS])
        path[n_iter] = state.log_evidence
        _report(verbose, "sequential", n_iter, state.k, state.log_evidence)
    n_iter = int(counters[moves.ITERATIONS])
    post = state.posterior()  # the answer from a fresh factorisation
    path = list(path[: n_iter + 1])
    path[-1] = post.log_evidence
    return _Fit(
        state.alpha,
        state.active.copy(),
        state.beta,
        post.mean,
        post.cov,
        post.log_evidence,
        path,
        n_iter,
        converged,
    )


def _reestimate_regression(Phi, t, beta, tol, max_iter, threshold, verbose):
    """The evidence fixed point (7.87)-(7.89) from all basis functions, with pruning.

    A function is pruned when its alpha passes ``threshold``, or when the evidence has settled
    (an iteration changes it by less than ``tol``) and the function's own conditional optimum
    (7.101) is infinite: the fixed point would only push it slowly towards infinity, and removing
    it raises the evidence by -lambda(alpha_i) >= 0 (7.96).
    """
    n, M = Phi.shape
    G, PhiT_t = Phi.T @ Phi, Phi.T @ t
    active = np.flatnonzero(np.diag(G) > 0)  # a zero column can never enter the model
    alpha = np.full(M, np.inf)
    alpha[active] = 1.0  # unit columns, unit-RMS targets: prior variance of y about 1
    path = []
    converged = False
    for n_iter in range(1, max_iter + 1):
        post = _posterior(
            G[np.ix_(active, active)], PhiT_t[active], Phi[:, active], t, alpha[active], beta
        )
        path.append(post.log_evidence)
        _report(verbose, "reestimate", n_iter, active.size, post.log_evidence)
        # PRML (7.87); gamma_i <= 0 (round-off) or m_i = 0 means the prior alone sets w_i: prune
        usable = (post.gamma > 0) & (post.mean != 0)
        new = np.full(active.size, np.inf)
        new[usable] = post.gamma[usable] / post.mean[usable] ** 2
        new_beta = _beta_candidates(post, n, beta)[0]  # PRML (7.88)
        keep = new < threshold
        if len(path) > 1 and abs(path[-1] - path[-2]) < tol and keep.all():
            # settled; what still heads for alpha = inf leaves now (7.101)
            keep = ~_heading_out(post.mean, post.gamma, post.cov)
            converged = keep.all()
        alpha[active] = new
        alpha[active[~keep]] = np.inf
        active, beta = active[keep], new_beta
        if converged:
            break
    post = _posterior(
        G[np.ix_(active, active)], PhiT_t[active], Phi[:, active], t, alpha[active], beta
    )
    path.append(post.log_evidence)
    return _Fit(
        alpha, active, beta, post.mean, post.cov, post.log_evidence, path, n_iter, converged
    )


def _spread_start(Phi, t, size):
    """A spread start of :func:`_sequential_classification`: precisions (M,), ``inf`` but for
    ``size`` mutually dissimilar columns; None when all columns are parallel.

    The columns: the one most aligned with t - 1/2 (the first add of the empty start), then
    again and again the column whose largest absolute cosine with those already chosen is
    smallest (farthest-point selection in column space). Their precision: the difference of two
    unit columns at cosine c has squared length 2(1 - c), so a precision proportional to
    1 - c (the median over the chosen pairs, times ``SPREAD_START_SCALE``) gives such
    differences a prior variance that does not depend on how nearly parallel the columns are.
    """
    norms = np.sqrt(np.sum(Phi**2, axis=0))
    usable = norms > 0
    chosen = [int(np.argmax(np.abs(Phi.T @ (t - 0.5)) * usable))]
    nearest = np.where(usable, 0.0, np.inf)  # largest |cosine| with a chosen column
    for _ in range(min(size, int(np.sum(usable))) - 1):
        j = chosen[-1]
        with np.errstate(invalid="ignore", divide="ignore"):
            cosine = np.abs(Phi.T @ Phi[:, j]) / (norms * norms[j])
        nearest = np.maximum(nearest, np.nan_to_num(cosine, nan=np.inf))
        nearest[chosen] = np.inf
        chosen.append(int(np.argmin(nearest)))
    unit = Phi[:, chosen] / norms[chosen]
    cosines = np.abs(unit.T @ unit)[np.triu_indices(len(chosen), 1)]
    dissimilarity = np.median(1.0 - cosines) if cosines.size else 1.0
    if dissimilarity <= PARALLEL:
        return None  # every column is parallel to the others: no difference to build on
    alpha = np.full(Phi.shape[1], np.inf)
    alpha[chosen] = SPREAD_START_SCALE * dissimilarity
    return alpha


def _sequential_classification(Phi, t, tol, max_iter, verbose):
    """Tipping & Faul's algorithm on the Laplace surrogate, climbed from three starts.

    The evidence of a classifier has two kinds of maximum. From the empty model (y = 1/2, B =
    I/4) the fit grows a weak classifier: moderate weights, moderate alpha. Where the classes
    are (nearly) separable along a direction in which the kernel columns are nearly parallel
    (crabs: cosines above 0.99), the high-evidence maxima instead build that direction from
    the differences of a few such columns, with huge cancelling weights and alpha ~ 1e-8
    (unit columns). No single move crosses from one kind to the other: each column's
    variance has to grow by orders of magnitude together with its neighbours', and every
    single step on the way lowers the evidence. So two more climbs start inside the separating
    regime, from 10 and from 40 spread columns (:func:`_spread_start`), and the fit with the
    highest evidence is kept (an earlier start's unless a later one gains more than ``tol``).
    """
    best = _climb_classification(Phi, t, np.full(Phi.shape[1], np.inf), tol, max_iter, verbose)
    for size in SPREAD_START_SIZES:
        spread = _spread_start(Phi, t, size)
        if spread is None:
            break
        fit = _climb_classification(Phi, t, spread, tol, max_iter, verbose)
        if fit.log_evidence > best.log_evidence + tol:
            best = fit
    return best


def _climb_classification(Phi, t, alpha, tol, max_iter, verbose):
    """Tipping & Faul's algorithm on the Gaussian surrogate (7.117)-(7.119) of the Laplace fit,
    from the precisions ``alpha`` (``inf``: not in the model).

    B changes with the weight mode at every move, so, as in Tipping's SparseBayes for
    non-Gaussian likelihoods, each move is followed by a Laplace step (IRLS from the previous
    mode) and the factors of all candidates are computed afresh; no rank-one updates.
    """
    Phi2 = Phi**2
    alpha = np.array(alpha, dtype=np.float64)
    active = np.flatnonzero(np.isfinite(alpha))
    mode = classification_mode(Phi[:, active], t, alpha[active])
    path = [mode.log_evidence]
    converged = False
    n_iter = 0
    while n_iter < max_iter:
        # The surrogate has targets t_hat = Phi w* + B^-1 (t - y) and noise covariance B^-1, so
        # (7.106)-(7.107) hold with beta I replaced by B; and since Phi^T (t - y) = A w* at the
        # mode (7.112), C^-1 t_hat = t - y and Q_i = phi_i^T (t - y).
        B = mode.y * (1.0 - mode.y)
        P = Phi.T @ (B[:, np.newaxis] * Phi[:, active])  # phi_i^T B phi_j, j in the model
        S = Phi2.T @ B - np.einsum("ij,ij->i", P @ mode.cov, P)
        Q = Phi.T @ (t - mode.y)
        factors = _leave_one_out(S, Q, alpha, active, mode.w, mode.cov)
        i, new_alpha, gain = _best_move(alpha, factors)
        if gain <= tol:
            converged = True
            break
        n_iter += 1
        w = dict(zip(active.tolist(), mode.w))
        if not np.isfinite(alpha[i]):
            active = np.append(active, i)
        elif not np.isfinite(new_alpha):
            active = active[active != i]
        alpha[i] = new_alpha
        w0 = np.array([w.get(j, 0.0) for j in active.tolist()])
        mode = classification_mode(Phi[:, active], t, alpha[active], w0=w0)
        path.append(mode.log_evidence)
        _report(verbose, "sequential", n_iter, active.size, mode.log_evidence)
    return _Fit(alpha, active, np.nan, mode.w, mode.cov, mode.log_evidence, path, n_iter, converged)


def _reestimate_classification(Phi, t, tol, max_iter, threshold, verbose):
    """IRLS for the mode, then (7.116) for every alpha, from all basis functions, with pruning."""
    M = Phi.shape[1]
    active = np.flatnonzero(np.sum(Phi**2, axis=0) > 0)
    alpha = np.full(M, np.inf)
    alpha[active] = 1.0
    w0 = np.zeros(active.size)
    path = []
    converged = False
    for n_iter in range(1, max_iter + 1):
        mode = classification_mode(Phi[:, active], t, alpha[active], w0=w0)
        path.append(mode.log_evidence)
        _report(verbose, "reestimate", n_iter, active.size, mode.log_evidence)
        gamma = 1.0 - alpha[active] * np.diag(mode.cov)
        usable = (gamma > 0) & (mode.w != 0)
        new = np.full(active.size, np.inf)
        new[usable] = gamma[usable] / mode.w[usable] ** 2  # PRML (7.116)
        keep = new < threshold
        if len(path) > 1 and abs(path[-1] - path[-2]) < tol and keep.all():
            keep = ~_heading_out(mode.w, gamma, mode.cov)  # as for regression, on (7.117)-(7.119)
            converged = keep.all()
        alpha[active] = new
        alpha[active[~keep]] = np.inf
        active, w0 = active[keep], mode.w[keep]
        if converged:
            break
    mode = classification_mode(Phi[:, active], t, alpha[active], w0=w0)
    path.append(mode.log_evidence)
    return _Fit(alpha, active, np.nan, mode.w, mode.cov, mode.log_evidence, path, n_iter, converged)


# ------------------------------------------------------------------------------- estimators
class _RVMBase(BaseEstimator):
    """Parameters, basis construction and bookkeeping shared by :class:`RVR` and :class:`RVC`."""

    _methods = ("sequential", "reestimate")

    def __init__(
        self,
        kernel=None,
        method="sequential",
        bias=True,
        tol=1e-6,
        max_iter=1000,
        prune_threshold=1e9,
        verbose=0,
    ):
        self.kernel = kernel
        self.method = method
        self.bias = bias
        self.tol = tol
        self.max_iter = max_iter
        self.prune_threshold = prune_threshold
        self.verbose = verbose

    def _validate_params_and_basis(self, X):
        """Check the parameters; return the unit-length training basis and the column norms."""
        if self.method not in self._methods:
            raise ValueError(f"method must be 'sequential' or 'reestimate'; got {self.method!r}")
        check_real(self.tol, "tol", low=0)
        check_real(self.prune_threshold, "prune_threshold", low=0)
        check_positive_int(self.max_iter, "max_iter")
        check_bool(self.bias, "bias")
        check_non_negative_int(self.verbose, "verbose", allow_bool=True)
        if X.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 samples; got {X.shape[0]} sample"
            )
        self.kernel_ = check_kernel(self.kernel, RBF)
        Phi = design_matrix(self.kernel_, X, X, bias=self.bias)
        warn_if_constant(Phi[:, 1:] if self.bias else Phi, type(self).__name__)
        norms = np.sqrt(np.sum(Phi**2, axis=0))
        norms[norms == 0] = 1.0  # an all-zero column stays zero and never enters the model
        return Phi / norms, norms

    def _store(self, X, fit, norms, t_scale):
        """Fitted attributes in the original units from a fit on unit columns and targets."""
        n = X.shape[0]
        order = np.argsort(fit.active)  # the algorithms keep entry order; report by index
        active = fit.active[order]
        mean, cov = fit.mean[order], fit.cov[np.ix_(order, order)]
        scale = norms[active] / t_scale  # w_original = w_scaled / scale
        self.alpha_ = fit.alpha * norms**2 / t_scale**2
        self.coef_ = np.zeros(norms.size)
        self.coef_[active] = mean / scale
        self.sigma_ = cov / np.outer(scale, scale)
        self.active_ = active
        offset = 1 if self.bias else 0
        self.relevance_ = active[active >= offset] - offset
        self.relevance_vectors_ = X[self.relevance_]
        self.log_marginal_likelihood_ = fit.log_evidence - n * np.log(t_scale)
        self.log_marginal_likelihood_path_ = np.asarray(fit.path) - n * np.log(t_scale)
        self.n_iter_ = fit.n_iter
        if not fit.converged:
            warnings.warn(
                f"{type(self).__name__} ({self.method}) stopped at max_iter={self.max_iter} "
                "before converging; raise max_iter or tol",
                ConvergenceWarning,
                stacklevel=3,
            )
        if active.size == 0:
            warnings.warn(
                f"{type(self).__name__}: every basis function was pruned, so the model predicts "
                "0 everywhere; under this kernel the targets look like noise. Try another kernel "
                "or length-scale.",
                UserWarning,
                stacklevel=3,
            )

    def _active_basis(self, X):
        """Columns of the kept basis functions at new points, shape (m, n_active)."""
        X = validate_data(self, X, dtype=np.float64, reset=False)
        with_bias = bool(self.bias and self.active_.size and self.active_[0] == 0)
        if not self.relevance_.size:
            return np.ones((X.shape[0], 1)) if with_bias else np.zeros((X.shape[0], 0))
        return design_matrix(self.kernel_, X, self.relevance_vectors_, bias=with_bias)

    def _latent(self, X):
        """phi(x)^T m and phi(x)^T Sigma phi(x), shape (m,) each."""
        check_is_fitted(self)
        Phi = self._active_basis(X)
        mean = Phi @ self.coef_[self.active_]
        var = np.einsum("ij,ij->i", Phi @ self.sigma_, Phi)
        return mean, np.maximum(var, 0.0)


_PARAMETERS_DOC = """
    Parameters
    ----------
    kernel : kmlib kernel or callable, optional
        Basis functions :math:`k(\\mathbf x, \\mathbf x_n)`, one per training point. Default
        ``RBF(lengthscale=1.0)``; the RVM does not learn its hyperparameters.
    method : {"sequential", "reestimate"}
        The fast sequential algorithm of PRML 7.2.2 (Tipping & Faul 2003), or the re-estimation
        fixed point with pruning (7.87)–(7.89) / (7.116) (Tipping 2001). The evidence has many
        local maxima, and the two methods, started from the empty and the full model, can stop
        at different ones; neither is sure to find the higher. Re-estimation never brings back
        a pruned function, so it can stop where adding one would still raise the evidence. The
        sequential method's cost grows with the number of relevance vectors: it is much the
        faster when they are few. For classification it climbs from three starts, the empty
        model and ten and forty mutually dissimilar basis functions with large prior variances,
        and keeps the highest maximum: on nearly separable data the empty start alone ends at a weak
        classifier. When the fit matters, run both methods and keep the higher
        ``log_marginal_likelihood_``.
    bias : bool
        Include the constant basis function of (7.78), so that :math:`M = N + 1`.
    tol : float
        Convergence tolerance on the log evidence. Sequential: stop when no single add,
        re-estimate or delete move (nor the noise update) would raise it by more than ``tol``.
        For regression, active functions whose optimum (7.101) is infinite are then deleted, and
        an iteration may be a joint Newton step on all active :math:`\\alpha_i` (or on two of
        them) instead of a single move that revisits a recently moved function, when that gains
        more (see the module notes).
        Re-estimation: stop when an iteration changes it by less than ``tol`` and no kept
        function has an infinite conditional optimum (7.101) (those are pruned at that point).
    max_iter : int
        Iteration limit; reaching it warns with ``ConvergenceWarning``.
    prune_threshold : float
        Re-estimation only: a basis function leaves the model when its :math:`\\alpha_i`
        exceeds this (measured for a unit-length column and targets of unit root mean square).
    verbose : int
        Print progress every ``verbose`` iterations (0: silent).
"""

_ATTRIBUTES_DOC = """
    alpha_ : ndarray of shape (M,)
        Prior precisions :math:`\\alpha_i`; ``inf`` for a pruned basis function. Index 0 is the
        bias when ``bias=True``; the kernel column of training point ``n`` follows at
        ``n + bias``.
    coef_ : ndarray of shape (M,)
        Posterior mean weights, zero where pruned.
    active_ : ndarray of shape (n_active,)
        Indices of the basis functions in the model, ascending.
    sigma_ : ndarray of shape (n_active, n_active)
        Posterior covariance of their weights.
    relevance_ : ndarray of shape (n_relevance,)
        Training indices of the relevance vectors.
    relevance_vectors_ : ndarray of shape (n_relevance, d)
    kernel_ : kernel
        The kernel used (a copy of ``kernel``).
    n_iter_ : int
        Iterations taken.
    log_marginal_likelihood_path_ : ndarray of shape (n_iter_ + 1,)
        The log evidence at the start and after every iteration.
"""


class RVR(RegressorMixin, _RVMBase):
    __doc__ = (
        r"""Relevance vector regression (PRML 7.2.1–7.2.2).

    The noise precision :math:`\beta` is learned with the :math:`\alpha_i`.
    """
        + _PARAMETERS_DOC
        + """
    Attributes
    ----------"""
        + _ATTRIBUTES_DOC
        + r"""    beta_ : float
        Noise precision :math:`\beta`.
    log_marginal_likelihood_ : float
        Log evidence (7.85) at the fitted :math:`\boldsymbol\alpha, \beta`.
    """
    )

    def fit(self, X, y):
        """Maximise the evidence over the precisions and the noise level.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)
            Real targets.

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        Phi, norms = self._validate_params_and_basis(X)
        rms = np.sqrt(np.mean(y**2))
        t_scale = rms if rms > 0 else 1.0
        t = y / t_scale
        if self.method == "sequential":
            # its steps handle a few active columns: one BLAS thread is faster than several
            with threadpool_limits(limits=1, user_api="blas"):
                fit = _sequential_regression(
                    Phi, t, _initial_noise_precision(t), self.tol, self.max_iter, self.verbose
                )
        else:
            beta = 10.0  # initial noise variance: a tenth of the mean square target
            fit = _reestimate_regression(
                Phi, t, beta, self.tol, self.max_iter, self.prune_threshold, self.verbose
            )
        self._store(X, fit, norms, t_scale)
        self.beta_ = fit.beta / t_scale**2
        return self

    def predict(self, X, return_std=False, include_noise=False):
        r"""Predictive mean (7.90) and standard deviation, the square root of (7.91).

        Parameters
        ----------
        X : array_like of shape (m, d)
        return_std : bool
            Also return the standard deviation.
        include_noise : bool
            ``True`` adds the noise variance :math:`\beta^{-1}`, exactly (7.91): the spread of
            a new target. ``False``, the default as in every kmlib regressor, gives the
            uncertainty of :math:`y(\mathbf x)` alone. (Until kmlib 0.2 the default was
            ``True``.)

        Returns
        -------
        mean : ndarray of shape (m,)
        std : ndarray of shape (m,)
            Only with ``return_std=True``.
        """
        mean, var = self._latent(X)
        if not return_std:
            return mean
        if include_noise:
            var = var + 1.0 / self.beta_  # PRML (7.91)
        return mean, np.sqrt(var)


class RVC(ClassifierMixin, _RVMBase):
    __doc__ = (
        r"""Relevance vector classification for two classes (PRML 7.2.3).

    The weight posterior is replaced by its Laplace approximation at the mode; the
    :math:`\alpha_i` maximise the approximate evidence (7.114). For more classes, wrap it in
    :class:`sklearn.multiclass.OneVsRestClassifier`.
    """
        + _PARAMETERS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the class whose probability :math:`\\sigma(y)` models."""
        + _ATTRIBUTES_DOC
        + r"""    log_marginal_likelihood_ : float
        Laplace log evidence (7.114) at the fitted :math:`\boldsymbol\alpha`.
    """
    )

    def fit(self, X, y):
        """Maximise the approximate evidence over the precisions.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)
            Exactly two distinct labels.

        Returns
        -------
        self
        """
        X, t = binary_training_data(self, X, y)
        Phi, norms = self._validate_params_and_basis(X)
        if self.method == "sequential":
            fit = _sequential_classification(Phi, t, self.tol, self.max_iter, self.verbose)
        else:
            fit = _reestimate_classification(
                Phi, t, self.tol, self.max_iter, self.prune_threshold, self.verbose
            )
        self._store(X, fit, norms, 1.0)
        return self

    def decision_function(self, X):
        r""":math:`\mathbf w^{*\top}\boldsymbol\phi(\mathbf x)`, the argument of (7.108) at the
        mode.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
        """
        return self._latent(X)[0]

    def latent_mean_and_variance(self, X):
        r"""Mean :math:`\mathbf w^{*\top}\boldsymbol\phi` and variance
        :math:`\boldsymbol\phi^\top\boldsymbol\Sigma\boldsymbol\phi` of the latent value.

        With :func:`kmlib.laplace.probit_probability` they give the moderated probability of
        PRML (4.153), which averages (7.108) over the Laplace posterior instead of plugging in
        :math:`\mathbf w^*`.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        mean, var : ndarray of shape (m,)
        """
        return self._latent(X)

    def predict_proba(self, X):
        r"""Class probabilities :math:`\sigma(\mathbf w^{*\top}\boldsymbol\phi(\mathbf x))` (7.108).

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        proba : ndarray of shape (m, 2)
            Columns in the order of ``classes_``.
        """
        p1 = expit(self.decision_function(X))
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X):
        """The more probable class.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
