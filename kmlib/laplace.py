r"""Binary Gaussian-process classification with the Laplace approximation (PRML 6.4.5–6.4.6).

The latent function :math:`a(\mathbf x)` has a GP prior with covariance :math:`\mathbf C_N =
\mathbf K + \nu\mathbf I` (PRML 6.75) and a label :math:`t\in\{0, 1\}` is Bernoulli with
probability :math:`\sigma(a)` (6.73). The posterior over :math:`\mathbf a_N` is replaced by the
Gaussian at its mode (6.86):

* **mode** by Newton's method (6.83), written as in Rasmussen & Williams Alg. 3.1 so that only
  :math:`\mathbf B = \mathbf I + \mathbf W^{1/2}\mathbf C_N\mathbf W^{1/2}` is factorised. Its
  eigenvalues lie in :math:`[1, 1 + N\max C/4]`, so the factorisation is stable even when
  :math:`\mathbf C_N` itself is singular; a step that lowers :math:`\Psi` (6.80) is halved.
* **prediction** of the latent mean (6.87) and variance (6.88), and the class probability by the
  probit approximation of PRML (4.153).
* **evidence** (6.90) and its gradient: the explicit term (6.91) and the implicit term (6.92) with
  (6.94), both in the corrected order of the products:

  .. math:: \tfrac12\mathbf a^{*\top}\mathbf C_N^{-1}\tfrac{\partial\mathbf C_N}{\partial
            \theta_j}\mathbf C_N^{-1}\mathbf a^* - \tfrac12\operatorname{Tr}\big[(\mathbf I +
            \mathbf W_N\mathbf C_N)^{-1}\mathbf W_N\tfrac{\partial\mathbf C_N}{\partial
            \theta_j}\big], \qquad
            \frac{\partial\mathbf a^*}{\partial\theta_j} = (\mathbf I + \mathbf C_N\mathbf
            W_N)^{-1}\frac{\partial\mathbf C_N}{\partial\theta_j}(\mathbf t_N - \boldsymbol
            \sigma_N).

  The book prints the two inverses the other way round; the finite-difference check in the
  chapter notebook and in Exercise 6.27 tells the versions apart.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from . import _linalg
from ._chunks import in_blocks, kernel_times
from ._binary import LatentSignClassifierMixin
from ._evidence import EvidenceMixin, check_optimizer_settings, fit_hyperparameters
from ._kernel_checks import check_kernel, evaluate_kernel, kernel_diagonal, warn_if_constant
from ._newton import damped_step, stable_newton_factor
from ._validation import (
    binary_training_data,
    check_positive,
    check_positive_int,
    check_real,
    validate_data,
)
from .kernels import RBF

__all__ = [
    "GaussianProcessClassifier",
    "LaplaceMode",
    "evidence_gradient",
    "find_mode",
    "probit_probability",
]


class LaplaceMode(NamedTuple):
    r"""The Laplace approximation at the posterior mode, with what prediction reuses.

    Attributes
    ----------
    a : ndarray of shape (n,)
        Mode :math:`\mathbf a_N^*` of the latent values.
    sigma : ndarray of shape (n,)
        :math:`\sigma(a_n^*)`.
    W_sqrt : ndarray of shape (n,)
        :math:`\sqrt{\sigma_n(1-\sigma_n)}`, the square root of the diagonal of :math:`\mathbf W_N`.
    L : ndarray of shape (n, n)
        Lower Cholesky factor of :math:`\mathbf B = \mathbf I + \mathbf W^{1/2}\mathbf C_N
        \mathbf W^{1/2}`.
    b : ndarray of shape (n,)
        :math:`\mathbf C_N^{-1}\mathbf a^*`, equal to :math:`\mathbf t - \boldsymbol\sigma` at the
        mode (6.84).
    log_evidence : float
        Approximate log evidence (6.90).
    n_iter : int
        Newton steps taken.
    """

    a: np.ndarray
    sigma: np.ndarray
    W_sqrt: np.ndarray
    L: np.ndarray
    b: np.ndarray
    log_evidence: float
    n_iter: int


def _psi(a, b, t):
    """:math:`\\Psi` of (6.80) up to its constant: ``-1/2 a^T C^-1 a + ln p(t | a)``.

    ``b = C^-1 a``, which the Newton iteration carries along so that C is never inverted.
    """
    # ln p(t|a) = sum t a + ln sigma(-a), PRML (6.79)
    return -0.5 * a @ b + np.sum(t * a + log_expit(-a))


def find_mode(C, t, tol=1e-10, max_iter=100):
    r"""Newton/IRLS search for the mode of :math:`\Psi` (6.80), R&W Alg. 3.1 form of (6.83).

    Parameters
    ----------
    C : ndarray of shape (n, n)
        Prior covariance :math:`\mathbf C_N` of the latent values.
    t : ndarray of shape (n,)
        Labels in {0, 1}.
    tol : float, default=1e-10
        Stop when every entry of the gradient (6.81), :math:`\mathbf t - \boldsymbol\sigma -
        \mathbf C_N^{-1}\mathbf a`, is below ``tol`` in size (or when :math:`\Psi` no longer
        rises beyond round-off).
    max_iter : int, default=100
        Newton step limit; reaching it warns with ``ConvergenceWarning``.

    Returns
    -------
    LaplaceMode
    """
    a = np.zeros(t.size)
    b = np.zeros(t.size)  # b = C^-1 a, carried along so that C is never inverted
    psi = _psi(a, b, t)
    converged = False
    for n_iter in range(max_iter + 1):
        sigma = expit(a)
        W_sqrt = np.sqrt(sigma * (1.0 - sigma))  # W_N = diag(sigma (1 - sigma)), (6.82)
        L = stable_newton_factor(C, W_sqrt, initial_jitter=1e-12)  # R&W Alg. 3.1 line 5
        if np.max(np.abs(t - sigma - b)) < tol:  # PRML (6.81) vanishes at the mode
            converged = True
            break
        if n_iter == max_iter:
            break
        # PRML (6.83) a_new = C (I + W C)^-1 (t - sigma + W a), computed as b_new = C^-1 a_new
        # = g - W^1/2 B^-1 W^1/2 C g with g = W a + t - sigma (R&W Alg. 3.1 lines 6-8)
        g = W_sqrt**2 * a + (t - sigma)
        b_new = g - W_sqrt * _linalg.cho_solve(L, W_sqrt * (C @ g))
        a_new = C @ b_new
        da, db = a_new - a, b_new - b  # the Newton step in a, and in b = C^-1 a with it
        step, value = damped_step(lambda s: -_psi(a + s * da, b + s * db, t), -psi)
        if step * np.max(np.abs(da)) <= 1e-13 * (1.0 + np.max(np.abs(a))):
            converged = True  # no step makes progress beyond round-off: the mode is reached
            break
        a, b = (a_new, b_new) if step == 1.0 else (a + step * da, b + step * db)
        psi = -value
    if not converged:
        warnings.warn(
            f"Newton's method for the Laplace mode did not converge in {max_iter} steps; "
            "raise newton_max_iter",
            ConvergenceWarning,
            stacklevel=2,
        )
    # PRML (6.90): Psi(a*) - 1/2 ln|W + C^-1| + N/2 ln 2 pi. With ln|C| + ln|W + C^-1| = ln|B|
    # the 2 pi terms cancel and this is _psi(a*) - 1/2 ln|B| (R&W Alg. 3.1 line 10).
    log_evidence = psi - 0.5 * _linalg.log_det(L)
    return LaplaceMode(a, sigma, W_sqrt, L, b, log_evidence, n_iter)


def evidence_gradient(C, dC, t, mode):
    r"""Gradient of the Laplace evidence (6.90): (6.91) + (6.92) with (6.94), corrected forms.

    Parameters
    ----------
    C : ndarray of shape (n, n)
        :math:`\mathbf C_N`.
    dC : ndarray of shape (n, n, p)
        :math:`\partial\mathbf C_N/\partial\theta_j`.
    t : ndarray of shape (n,)
        Labels in {0, 1}.
    mode : LaplaceMode
        The converged mode for ``C``.

    Returns
    -------
    gradient : ndarray of shape (p,)
    """
    s, W_sqrt, L, b = mode.sigma, mode.W_sqrt, mode.L, mode.b
    # R = (W^-1 + C)^-1 = W^1/2 B^-1 W^1/2, so Tr[(I + W C)^-1 W dC] = Tr[R dC]
    R = _linalg.solve_lower(L, np.diag(W_sqrt))
    R = R.T @ R
    # diagonal of (C^-1 + W)^-1 = C - C W^1/2 B^-1 W^1/2 C
    V = _linalg.solve_lower(L, W_sqrt[:, np.newaxis] * C)
    posterior_var = np.diag(C) - np.einsum("ij,ij->j", V, V)
    # (6.92): -1/2 sum_n [(C^-1 + W)^-1]_nn sigma(1-sigma)(1-2sigma) da_n/dtheta
    implicit_weight = -0.5 * posterior_var * s * (1.0 - s) * (1.0 - 2.0 * s)
    # (6.91) explicit: 1/2 b^T dC b - 1/2 Tr[R dC]  (b = C^-1 a*)
    explicit = 0.5 * np.einsum("i,ijk,j->k", b, dC, b) - 0.5 * np.einsum("ij,ijk->k", R, dC)
    # (6.94) corrected: da*/dtheta = (I + C W)^-1 dC (t - sigma) = u - C R u with u = dC (t - s)
    U = np.einsum("ijk,j->ik", dC, t - s)
    dA = U - C @ (R @ U)
    return explicit + implicit_weight @ dA


def probit_probability(mean, var):
    r"""Probit approximation :math:`\sigma(\kappa(\sigma_a^2)\mu_a)` of PRML (4.153)–(4.154).

    Parameters
    ----------
    mean, var : ndarray of shape (m,)
        Mean and variance of a Gaussian latent value.

    Returns
    -------
    p : ndarray of shape (m,)
        Approximate :math:`\int\sigma(a)\mathcal N(a\mid\mu,\sigma^2)\,da`.
    """
    kappa = 1.0 / np.sqrt(1.0 + np.pi * var / 8.0)  # PRML (4.154)
    return expit(kappa * mean)


class GaussianProcessClassifier(
    LatentSignClassifierMixin, EvidenceMixin, ClassifierMixin, BaseEstimator
):
    r"""Two-class GP classifier with the Laplace approximation (PRML 6.4.6).

    ``predict`` gives the class whose probability exceeds 1/2, which is where the latent mean
    (6.87) is positive. There is no ``decision_function``: the probability depends on the
    latent variance as well as the mean, so no single score orders the points as
    ``predict_proba`` does.

    Parameters
    ----------
    kernel : kmlib kernel, default=None
        Covariance of the latent function; ``None`` gives ``RBF(lengthscale=1.0,
        variance=1.0)``.
    jitter : float, default=0.0
        The fixed :math:`\nu \ge 0` that PRML (6.75) adds to the diagonal of the covariance.
        The stable Newton form never inverts :math:`\mathbf C_N`, so 0 works; a small value
        makes the latent prior strictly positive definite as in the book.
    optimize : bool, default=True
        Fit the kernel hyperparameters by maximising the approximate log evidence (6.90).
    n_restarts : int, default=0
        Extra optimiser runs from log-uniform starting points inside the kernel's bounds.
    random_state : int, Generator, RandomState or None, default=None
        Seed of the restarts.
    optimizer_max_iter : int, default=200
        Iteration limit of each L-BFGS-B run.
    newton_tol : float, default=1e-10
        Newton stops when the gradient (6.81) is below this in every entry.
    newton_max_iter : int, default=100
        Newton step limit.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the class whose probability ``sigma(a)`` models.
    kernel_ : kmlib kernel
        Kernel with the fitted hyperparameters.
    theta_ : ndarray of shape (n_theta,)
        Its log hyperparameters.
    theta_names_ : list of str
        Their names.
    latent_mode_ : ndarray of shape (n,)
        Posterior mode :math:`\mathbf a_N^*` (6.84).
    log_marginal_likelihood_ : float
        Approximate log evidence (6.90) at the fitted hyperparameters.
    optimizer_n_iter_ : int
        L-BFGS-B iterations of the best run (0 without optimisation).

    Examples
    --------
    Four points on a line, two per class, with the hyperparameters fixed:

    >>> import numpy as np
    >>> from kmlib.kernels import RBF
    >>> from kmlib.laplace import GaussianProcessClassifier
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> y = np.array(["no", "no", "yes", "yes"])
    >>> model = GaussianProcessClassifier(RBF(lengthscale=1.0, variance=4.0), optimize=False)
    >>> model.fit(X, y).predict([[-1.5], [0.5]])
    array(['no', 'yes'], dtype='<U3')
    >>> print(np.round(model.predict_proba([[0.5]]), 3))
    [[0.375 0.625]]
    """

    def __init__(
        self,
        kernel=None,
        jitter=0.0,
        optimize=True,
        n_restarts=0,
        random_state=None,
        optimizer_max_iter=200,
        newton_tol=1e-10,
        newton_max_iter=100,
    ):
        self.kernel = kernel
        self.jitter = jitter
        self.optimize = optimize
        self.n_restarts = n_restarts
        self.random_state = random_state
        self.optimizer_max_iter = optimizer_max_iter
        self.newton_tol = newton_tol
        self.newton_max_iter = newton_max_iter

    # ------------------------------------------------------------------ evidence
    def _covariance(self, kernel, X, eval_gradient=False):
        """C_N of (6.75) (and dC_N/dtheta, which equals dK/dtheta since nu is fixed)."""
        out = evaluate_kernel(kernel, X, eval_gradient=eval_gradient)
        C = out[0] if eval_gradient else out
        C[np.diag_indices_from(C)] += self.jitter
        return out

    def _mode(self, C, t):
        return find_mode(C, t, tol=self.newton_tol, max_iter=self.newton_max_iter)

    def _log_evidence_at(self, theta, eval_gradient):
        """Approximate log evidence (6.90), and its gradient (corrected (6.91), (6.92), (6.94)),
        at the log kernel hyperparameters ``theta``."""
        kernel = clone(self.kernel_)
        kernel.theta = theta
        X, t = self.X_train_, self.t_train_
        if not eval_gradient:
            return self._mode(self._covariance(kernel, X), t).log_evidence, None
        C, dC = self._covariance(kernel, X, eval_gradient=True)
        mode = self._mode(C, t)
        return mode.log_evidence, evidence_gradient(C, dC, t, mode)

    # ------------------------------------------------------------------ fit / predict
    def fit(self, X, y):
        """Fit the hyperparameters (if ``optimize``) and find the posterior mode.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs.
        y : array_like of shape (n,)
            Their labels, exactly two distinct values; the second in sorted order
            (``classes_[1]``) plays :math:`t = 1` in (6.73).

        Returns
        -------
        self
        """
        X, t = binary_training_data(self, X, y)
        kernel = check_kernel(self.kernel, RBF, callables=False)
        check_positive(self.jitter, "jitter", allow_zero=True)
        check_real(self.newton_tol, "newton_tol", low=0.0)
        check_positive_int(self.newton_max_iter, "newton_max_iter")
        check_optimizer_settings(self)
        self.X_train_, self.t_train_ = X, t
        self.kernel_ = kernel  # the starting point
        self.optimizer_n_iter_ = 0
        if self.optimize and kernel.theta.size:
            kernel.theta = fit_hyperparameters(
                self,
                lambda theta: self._log_evidence_at(theta, eval_gradient=True),
                kernel.theta,
                kernel.bounds,
                kernel.theta_names,
            )
        self.kernel_ = kernel
        self.theta_ = kernel.theta
        self.theta_names_ = list(kernel.theta_names)
        warn_if_constant(evaluate_kernel(kernel, X), "GaussianProcessClassifier")
        self.mode_ = self._mode(self._covariance(kernel, X), self.t_train_)
        self.latent_mode_ = self.mode_.a
        self.log_marginal_likelihood_ = float(self.mode_.log_evidence)
        return self

    def latent_mean_and_variance(self, X):
        """Mean (6.87) and variance (6.88) of the latent function at new inputs.

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
            self._latent_moments, X, self.X_train_.shape[0], arrays=2.0, kernel=self.kernel_
        )

    def _latent_moments(self, X):
        """:meth:`latent_mean_and_variance` at validated rows."""
        mode = self.mode_
        Ks = evaluate_kernel(self.kernel_, self.X_train_, X)  # one column k per test point
        mean = Ks.T @ (self.t_train_ - mode.sigma)  # PRML (6.87)
        # PRML (6.88): c - k^T (W^-1 + C)^-1 k = c - |L^-1 W^1/2 k|^2
        V = _linalg.solve_lower(mode.L, mode.W_sqrt[:, np.newaxis] * Ks)
        c = kernel_diagonal(self.kernel_, X) + self.jitter
        var = np.maximum(c - np.einsum("ij,ij->j", V, V), 0.0)
        return mean, var

    def _latent_mean(self, X):
        """Latent mean (6.87) alone, shape (m,)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return kernel_times(self.kernel_, X, self.X_train_, self.t_train_ - self.mode_.sigma)

    def predict_proba(self, X):
        """Class probabilities by the probit approximation (4.153) of (6.76).

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        proba : ndarray of shape (m, 2)
            Columns in the order of ``classes_``.
        """
        mean, var = self.latent_mean_and_variance(X)
        p1 = probit_probability(mean, var)
        return np.column_stack([1.0 - p1, p1])
