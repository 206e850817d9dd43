r"""The equations of the relevance vector machine (PRML 7.2; Tipping 2001).

The model is linear in :math:`M` fixed basis functions, :math:`y(\mathbf x) =
\mathbf w^\top\boldsymbol\phi(\mathbf x)` (7.78), with one prior precision :math:`\alpha_i` per
weight (7.80). For given :math:`\boldsymbol\alpha` (and noise precision :math:`\beta`) this
module computes what both fitting algorithms of :mod:`kmlib.rvm` need:

* regression: the weight posterior (7.82)–(7.83), the log evidence (7.85) and
  :math:`\gamma_i` (7.89) (:func:`regression_posterior`), and the candidates for the noise
  update (7.88);
* classification: the weight mode (7.112) by damped Newton steps (IRLS) and the Laplace
  evidence (7.114) (:func:`classification_mode`);
* the sparsity and quality factors (7.98)–(7.107) of every candidate basis function
  (:func:`sparsity_quality`), the part :math:`\lambda(\alpha_i)` (7.97) of the log evidence that
  depends on one :math:`\alpha_i` (:func:`log_evidence_term`) and its maximiser (7.101)
  (:func:`optimal_alpha`).

Its public functions are part of :mod:`kmlib.rvm`, which exports them. They live here, below
both algorithms (the re-estimation in :mod:`kmlib.rvm`, the sequential algorithm in
:mod:`kmlib._rvm_sequential`), because the sequential algorithm needs them and :mod:`kmlib.rvm`
needs the sequential algorithm: with them in :mod:`kmlib.rvm` the two modules would import
each other.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning

from . import _linalg
from ._newton import damped_step

__all__ = [
    "RegressionPosterior",
    "ClassificationMode",
    "SparsityQuality",
    "regression_posterior",
    "classification_mode",
    "sparsity_quality",
    "log_evidence_term",
    "optimal_alpha",
]

LOG_2PI = np.log(2.0 * np.pi)
#: Largest noise precision for targets of unit root mean square (noise std >= 1e-6 of it). Not
#: measured: a guard, so that a perfect fit or constant targets give a finite beta; it trades
#: no speed, only the smallest noise level a fit can report.
MAX_SCALED_BETA = 1e12


# ------------------------------------------------------------------------------ regression
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
        ``mean`` (k,) and ``cov`` (k, k) of the weights, ``log_evidence``, ``gamma`` (k,) and
        ``residual``, the squared norm of :math:`\mathbf t - \boldsymbol\Phi\mathbf m`.

    Examples
    --------
    A bias and three Gaussian kernel columns at unit precisions; the log evidence is that of
    the Gaussian :math:`\mathcal N(\mathbf t\mid\mathbf 0, \mathbf C)` of (7.85)–(7.86):

    >>> import numpy as np
    >>> from scipy.stats import multivariate_normal
    >>> from kmlib.kernels import RBF, design_matrix
    >>> from kmlib.rvm import regression_posterior
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> t = np.array([0.1, 1.0, 0.4])
    >>> Phi = design_matrix(RBF(lengthscale=1.0), X, X)
    >>> post = regression_posterior(Phi, t, alpha=np.ones(4), beta=10.0)
    >>> post.mean.shape, post.cov.shape
    ((4,), (4, 4))
    >>> print(np.round(post.mean, 4))
    [-0.1681 -0.1488  0.9067  0.1572]
    >>> print(f"{post.log_evidence:.4g}")
    -3.716
    >>> C = np.eye(3) / 10.0 + Phi @ Phi.T  # (7.86) with A = I
    >>> bool(np.isclose(post.log_evidence, multivariate_normal(np.zeros(3), C).logpdf(t)))
    True
    """
    return _posterior(Phi.T @ Phi, Phi.T @ t, Phi, t, alpha, beta)


def _posterior(G, PhiT_t, Phi, t, alpha, beta):
    """:func:`regression_posterior` given ``G`` = Phi^T Phi, shape (k, k), and ``PhiT_t`` =
    Phi^T t, shape (k,), which callers keep (``G`` is not changed)."""
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


# -------------------------------------------------------------------------- classification
class ClassificationMode(NamedTuple):
    """Laplace approximation at the weight mode (PRML 7.109–7.114)."""

    w: np.ndarray  #: mode w*, shape (k,)
    y: np.ndarray  #: sigma(Phi w*), shape (n,)
    cov: np.ndarray  #: Sigma = (Phi^T B Phi + A)^-1 of (7.113), shape (k, k)
    log_evidence: float  #: Laplace log evidence (7.114)
    n_iter: int  #: Newton steps taken


def _log_posterior(Phi, t, alpha, w):
    """ln p(t|w) - 1/2 w^T A w of (7.109) at weights ``w`` (k,), up to a constant; computed as
    t a + ln sigma(-a) = t ln y + (1-t) ln(1-y) with a = Phi w."""
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
    w0 : ndarray of shape (k,), default=None
        Starting weights; ``None`` starts from zeros.
    tol : float, default=1e-10
        Stop when a Newton step changes no weight by more than ``tol * (1 + max|w|)``.
    max_iter : int, default=100
        Newton step limit; reaching it warns with ``ConvergenceWarning``.

    Returns
    -------
    ClassificationMode
        The mode ``w`` (k,), ``y`` = sigma(Phi w) (n,), the Laplace covariance ``cov`` (k, k)
        (7.113), ``log_evidence`` (7.114) and the Newton steps taken, ``n_iter``.

    Examples
    --------
    At the mode the gradient (7.110) vanishes: :math:`\boldsymbol\Phi^\top(\mathbf t -
    \mathbf y) = \mathbf A\mathbf w^*` (7.112).

    >>> import numpy as np
    >>> from kmlib.kernels import RBF, design_matrix
    >>> from kmlib.rvm import classification_mode
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> t = np.array([0.0, 1.0, 1.0])
    >>> Phi = design_matrix(RBF(lengthscale=1.0), X, X)
    >>> mode = classification_mode(Phi, t, alpha=np.ones(4))
    >>> mode.w.shape, mode.cov.shape
    ((4,), (4, 4))
    >>> bool(np.allclose(Phi.T @ (t - mode.y), 1.0 * mode.w))
    True
    >>> bool(np.all((mode.y > 0) & (mode.y < 1)))
    True
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
    alpha : array_like
        Precision :math:`\alpha_i`; ``inf`` (left out) gives 0.
    s : array_like
        Sparsity :math:`s_i` (7.98).
    q : array_like
        Quality :math:`q_i` (7.99).

    Returns
    -------
    ndarray
        :math:`\tfrac12\big(\ln\alpha_i - \ln(\alpha_i + s_i) + q_i^2/(\alpha_i +
        s_i)\big)`, in the broadcast shape of the three.

    Examples
    --------
    Figure 7.11's left panel, :math:`(q^2, s) = (4, 1)`: the maximum at
    :math:`\alpha = 1/3` is :math:`(3 - \ln 4)/2`, and leaving the function out gives 0.

    >>> import numpy as np
    >>> from kmlib.rvm import log_evidence_term
    >>> print(np.round(log_evidence_term([1 / 3, 1.0, np.inf], s=1.0, q=2.0), 4))
    [0.8069 0.6534 0.    ]
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
    s, q : array_like
        The sparsity (7.98) and quality (7.99) factors of the function.

    Returns
    -------
    ndarray
        The optimal :math:`\alpha_i`, ``inf`` where :math:`q_i^2 \le s_i`, in the broadcast
        shape of ``s`` and ``q``.

    Examples
    --------
    The two panels of Figure 7.11: :math:`(q^2, s) = (4, 1)` keeps the function at
    :math:`\alpha = 1/3`, :math:`(q^2, s) = (1, 2)` leaves it out.

    >>> from kmlib.rvm import optimal_alpha
    >>> print(optimal_alpha(s=[1.0, 2.0], q=[2.0, 1.0]))
    [0.33333333        inf]
    """
    s, q = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(q, dtype=np.float64))
    excess = q**2 - s
    relevant = excess > 0
    out = np.full(s.shape, np.inf)
    out[relevant] = s[relevant] ** 2 / excess[relevant]
    return out


class SparsityQuality(NamedTuple):
    """Sparsity and quality factors of every candidate basis function (PRML 7.98–7.107)."""

    S: np.ndarray  #: phi_i^T C^-1 phi_i (7.103), shape (n_basis,)
    Q: np.ndarray  #: phi_i^T C^-1 t (7.102), shape (n_basis,)
    s: np.ndarray  #: phi_i^T C_-i^-1 phi_i (7.98), shape (n_basis,)
    q: np.ndarray  #: phi_i^T C_-i^-1 t (7.99), shape (n_basis,)


def _leave_one_out(S, Q, alpha, active, mean, cov):
    """s, q from S, Q by (7.104)-(7.105), as a :class:`SparsityQuality`; s = S and q = Q where
    alpha is infinite. ``S``, ``Q``, ``alpha`` have shape (n_basis,); ``active`` (k,) holds
    the positions of the functions in the model, in the order of ``mean`` (k,), ``cov`` (k, k).

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
    """S, Q of all columns by (7.106)-(7.107), with beta Sigma Phi^T t = m of (7.82).

    ``PhiT_Phi_active`` (n_basis, k) holds phi_i^T phi_j for every column i and active j,
    ``PhiT_t`` and ``column_norms2`` (n_basis,) hold phi_i^T t and ||phi_i||^2, and
    ``posterior`` is the :class:`RegressionPosterior` of the active columns at ``beta``.
    """
    P = PhiT_Phi_active  # (n_basis, k): phi_i^T phi_j for j in the model
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
    Phi : ndarray of shape (n, n_basis)
        All candidate basis functions.
    t : ndarray of shape (n,)
        Targets.
    alpha : ndarray of shape (n_basis,)
        Precisions; ``np.inf`` marks a basis function that is not in the model.
    beta : float
        Noise precision.

    Returns
    -------
    SparsityQuality
        ``S``, ``Q`` (7.102)–(7.103) and ``s``, ``q`` (7.98)–(7.99), each of shape (n_basis,).

    Examples
    --------
    With only the bias in the model, every function outside it has :math:`s_i = S_i` and
    :math:`q_i = Q_i` (7.104)–(7.105), and (7.101) says which of them to add:

    >>> import numpy as np
    >>> from kmlib.kernels import RBF, design_matrix
    >>> from kmlib.rvm import optimal_alpha, sparsity_quality
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> t = np.array([0.1, 1.0, 0.4])
    >>> Phi = design_matrix(RBF(lengthscale=1.0), X, X)
    >>> alpha = np.array([1.0, np.inf, np.inf, np.inf])
    >>> f = sparsity_quality(Phi, t, alpha, beta=10.0)
    >>> bool(np.array_equal(f.s[1:], f.S[1:]) and np.array_equal(f.q[1:], f.Q[1:]))
    True
    >>> print(np.round(f.q[1:] ** 2 - f.s[1:], 3))  # positive: worth adding (7.101)
    [-3.399  3.844 -0.934]
    >>> print(np.isfinite(optimal_alpha(f.s, f.q)))
    [ True False  True False]
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    active = np.flatnonzero(np.isfinite(alpha))
    posterior = regression_posterior(Phi[:, active], t, alpha[active], beta)
    S, Q = _regression_factors(
        Phi.T @ Phi[:, active], Phi.T @ t, np.sum(Phi**2, axis=0), beta, posterior
    )
    return _leave_one_out(S, Q, alpha, active, posterior.mean, posterior.cov)


def _heading_out(mean, gamma, cov):
    """Active functions whose conditional optimum (7.101) is alpha = inf: q_i^2 <= s_i, as a
    boolean array of shape (k,) from the posterior ``mean`` (k,), ``gamma`` (k,), ``cov`` (k, k).

    For a function in the model, s_i = gamma_i / Sigma_ii and q_i = m_i / Sigma_ii (from
    (7.104)-(7.105) with S_i = alpha_i gamma_i and Q_i = alpha_i m_i), so q_i^2 <= s_i reads
    m_i^2 <= gamma_i Sigma_ii.
    """
    return mean**2 <= gamma * np.diag(cov)


# ------------------------------------------------------------- shared by the two algorithms
def _beta_candidates(post, n, beta):
    r"""Noise precisions to try: MacKay's update (7.88), then the EM update, from the
    :class:`RegressionPosterior` ``post`` of ``n`` targets at noise precision ``beta``; each is
    capped at ``MAX_SCALED_BETA``.

    The EM update :math:`N/(\lVert\mathbf t - \boldsymbol\Phi\mathbf m\rVert^2 +
    \operatorname{Tr}\boldsymbol\Phi\boldsymbol\Sigma\boldsymbol\Phi^\top)`, with the trace
    equal to :math:`\sum_i\gamma_i/\beta`, never lowers the evidence; (7.88) usually gains more.
    """
    dof = n - np.sum(post.gamma)  # N - sum gamma_i of (7.88)
    mackay = dof / post.residual if dof > 0 and post.residual > 0 else MAX_SCALED_BETA
    spread = post.residual + np.sum(post.gamma) / beta
    em = n / spread if spread > 0 else MAX_SCALED_BETA
    return min(mackay, MAX_SCALED_BETA), min(em, MAX_SCALED_BETA)


class _Fit(NamedTuple):
    """What a fitting algorithm returns, in the scaled units it works in."""

    alpha: np.ndarray  # (n_basis,), inf where pruned
    active: np.ndarray  # indices of the active basis functions, in the order of mean and cov
    beta: float  # noise precision (regression) or nan
    mean: np.ndarray  # weights of the active basis functions
    cov: np.ndarray  # their posterior covariance
    log_evidence: float
    path: list
    n_iter: int
    converged: bool


def _report(verbose, method, n_iter, n_active, log_evidence):
    """Print a progress line every ``verbose`` iterations (never when ``verbose`` is 0)."""
    if verbose and n_iter % verbose == 0:
        print(
            f"RVM {method}: iteration {n_iter}, {n_active} active, log evidence {log_evidence:.6f}"
        )
