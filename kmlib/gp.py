r"""Gaussian-process regression (PRML 6.4.2–6.4.4; Rasmussen & Williams, Alg. 2.1 and §5.4.1).

The targets are modelled as :math:`\mathbf t = \mathbf y + \boldsymbol\epsilon` with a zero-mean
GP prior :math:`\mathbf y \sim \mathcal N(\mathbf 0, \mathbf K)` and Gaussian noise of variance
:math:`\beta^{-1}` (``noise_variance``), so that :math:`\mathbf t \sim \mathcal N(\mathbf 0,
\mathbf C_N)` with :math:`\mathbf C_N = \mathbf K + \beta^{-1}\mathbf I` (PRML 6.62). Everything
below goes through one Cholesky factor :math:`\mathbf C_N = \mathbf L\mathbf L^\top`:

* predictive mean :math:`\mathbf k^\top\mathbf C_N^{-1}\mathbf t` (6.66) and variance
  :math:`c - \mathbf k^\top \mathbf C_N^{-1}\mathbf k` (6.67), with
  :math:`\mathbf v = \mathbf L^{-1}\mathbf k` so that the variance is :math:`c - \mathbf v^\top
  \mathbf v`;
* log evidence (6.69) with :math:`\ln\det\mathbf C_N = 2\sum_i \ln L_{ii}`;
* its gradient (6.70) in the form :math:`\tfrac12\operatorname{Tr}[(\mathbf a\mathbf a^\top -
  \mathbf C_N^{-1})\,\partial\mathbf C_N/\partial\theta_i]` with :math:`\mathbf a = \mathbf
  C_N^{-1}\mathbf t`.

Hyperparameters (the kernel's ``theta`` followed by ``log(noise_variance)``) are fitted by type-II
maximum likelihood (6.4.3) with L-BFGS-B and seeded restarts; a kernel with one length-scale per
input dimension gives automatic relevance determination (6.4.4).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted

from . import _linalg
from ._chunks import in_blocks
from ._evidence import EvidenceMixin, check_optimizer_settings, fit_hyperparameters
from ._kernel_checks import check_kernel, evaluate_kernel, kernel_diagonal, warn_if_constant
from ._validation import as_generator, as_inputs, check_positive, validate_data
from .kernels import RBF

__all__ = ["GaussianProcessRegressor"]

LOG_2PI = np.log(2.0 * np.pi)


class GaussianProcessRegressor(EvidenceMixin, RegressorMixin, BaseEstimator):
    r"""Gaussian-process regression with a learned or fixed noise level (PRML 6.4.2).

    Parameters
    ----------
    kernel : kmlib kernel, default=None
        Covariance :math:`k(\mathbf x, \mathbf x')` of the latent function; ``None`` gives
        ``RBF(lengthscale=1.0, variance=1.0)``.
    noise_variance : float, default=1.0
        Noise variance :math:`\beta^{-1}` of (6.58); the starting value when optimised.
    noise_variance_bounds : (float, float) or "fixed", default=(1e-8, 1e3)
        Range of ``noise_variance`` during optimisation, or ``"fixed"`` to keep it.
    optimize : bool, default=True
        Fit the kernel hyperparameters and the noise level by maximising the log evidence
        (6.69). With ``False`` the given values are used as they are.
    n_restarts : int, default=0
        Extra optimiser runs from starting points drawn log-uniformly inside the bounds.
    random_state : int, Generator, RandomState or None, default=None
        Seed of the restarts.
    optimizer_max_iter : int, default=200
        Iteration limit of each L-BFGS-B run.

    Attributes
    ----------
    kernel_ : kmlib kernel
        The kernel with the fitted hyperparameters (a copy; ``kernel`` is left unchanged).
    noise_variance_ : float
        Fitted noise variance.
    log_marginal_likelihood_ : float
        Log evidence (6.69) at the fitted hyperparameters.
    X_train_ : ndarray of shape (n, d)
    y_train_ : ndarray of shape (n,)
    dual_coef_ : ndarray of shape (n,)
        :math:`\mathbf a = \mathbf C_N^{-1}\mathbf t`, the weights of (6.68).
    L_ : ndarray of shape (n, n)
        Lower Cholesky factor of :math:`\mathbf C_N`.
    theta_ : ndarray of shape (n_theta,)
        Fitted log hyperparameters, the kernel's ``theta`` then ``log(noise_variance)``
        (the argument order of ``log_marginal_likelihood``).
    theta_names_ : list of str
        Their names.
    optimizer_n_iter_ : int
        L-BFGS-B iterations of the best run (0 without optimisation).

    Examples
    --------
    Six noise-free samples of a sine, with the hyperparameters fixed:

    >>> import numpy as np
    >>> from kmlib.gp import GaussianProcessRegressor
    >>> from kmlib.kernels import RBF
    >>> X = np.linspace(0.0, 1.0, 6)[:, np.newaxis]
    >>> y = np.sin(2 * np.pi * X[:, 0])
    >>> gp = GaussianProcessRegressor(RBF(lengthscale=0.3), noise_variance=0.01, optimize=False)
    >>> mean, std = gp.fit(X, y).predict([[0.25], [0.6]], return_std=True)
    >>> print(np.round(mean, 3), np.round(std, 3))
    [ 0.976 -0.594] [0.087 0.086]
    """

    def __init__(
        self,
        kernel=None,
        noise_variance=1.0,
        noise_variance_bounds=(1e-8, 1e3),
        optimize=True,
        n_restarts=0,
        random_state=None,
        optimizer_max_iter=200,
    ):
        self.kernel = kernel
        self.noise_variance = noise_variance
        self.noise_variance_bounds = noise_variance_bounds
        self.optimize = optimize
        self.n_restarts = n_restarts
        self.random_state = random_state
        self.optimizer_max_iter = optimizer_max_iter

    # ------------------------------------------------------------------ hyperparameters
    def _noise_is_fixed(self):
        bounds = self.noise_variance_bounds
        if isinstance(bounds, str):
            if bounds != "fixed":
                raise ValueError("noise_variance_bounds must be (low, high) or 'fixed'")
            return True
        try:
            low, high = (float(bound) for bound in bounds)
        except (TypeError, ValueError):
            raise ValueError(
                f"noise_variance_bounds must be (low, high) or 'fixed'; got {bounds!r}"
            ) from None
        if not 0 < low < high < np.inf:
            raise ValueError(f"noise_variance_bounds must satisfy 0 < low < high; got {bounds}")
        return False

    def _theta_and_bounds(self, kernel, noise_variance):
        """Log hyperparameters ``[kernel.theta, log noise]`` and their log bounds."""
        if self._noise_is_fixed():
            return kernel.theta, kernel.bounds
        theta = np.append(kernel.theta, np.log(noise_variance))
        bounds = np.vstack([kernel.bounds, np.log(self.noise_variance_bounds)])
        return theta, bounds

    def _unpack(self, theta, kernel, noise_variance):
        """Kernel copy and noise variance at the log hyperparameters ``theta``."""
        kernel = clone(kernel)
        n_kernel = kernel.theta.size
        theta = np.asarray(theta, dtype=np.float64)
        expected = n_kernel + (0 if self._noise_is_fixed() else 1)
        if theta.shape != (expected,):
            raise ValueError(f"theta must have {expected} entries; got shape {theta.shape}")
        kernel.theta = theta[:n_kernel]
        if not self._noise_is_fixed():
            noise_variance = float(np.exp(theta[n_kernel]))
        return kernel, noise_variance

    # ------------------------------------------------------------------ evidence
    def _evidence(self, X, t, kernel, noise_variance, eval_gradient):
        """Log evidence (6.69), optionally with its gradient (6.70) in log hyperparameters.

        Returns ``(value, gradient or None, L, a)``; ``L`` is the Cholesky factor of C_N.
        """
        if eval_gradient:
            K, dK = evaluate_kernel(kernel, X, eval_gradient=True)
        else:
            K = evaluate_kernel(kernel, X)
        C = K  # PRML (6.62): C_N = K + beta^-1 I, formed in place
        C[np.diag_indices_from(C)] += noise_variance
        L, _ = _linalg.cholesky(C)
        a = _linalg.cho_solve(L, t)  # a = C_N^-1 t
        # PRML (6.69): -1/2 ln|C_N| - 1/2 t^T C_N^-1 t - N/2 ln 2 pi
        value = -0.5 * _linalg.log_det(L) - 0.5 * t @ a - 0.5 * t.size * LOG_2PI
        if not eval_gradient:
            return value, None, L, a
        # PRML (6.70) as 1/2 Tr[(a a^T - C_N^-1) dC_N/dtheta_i]
        inner = _linalg.inverse_from_cholesky(L)
        inner *= -1.0
        inner += np.outer(a, a)
        gradient = 0.5 * np.einsum("ij,ijk->k", inner, dK)
        if not self._noise_is_fixed():
            # dC_N / d log(noise) = noise * I
            gradient = np.append(gradient, 0.5 * noise_variance * np.trace(inner))
        return value, gradient, L, a

    def _log_evidence_at(self, theta, eval_gradient):
        """Log evidence (6.69), and its gradient (6.70), at the log hyperparameters ``theta``."""
        kernel, noise = self._unpack(theta, self.kernel_, self.noise_variance_)
        value, gradient, _, _ = self._evidence(
            self.X_train_, self.y_train_, kernel, noise, eval_gradient
        )
        return value, gradient

    # ------------------------------------------------------------------ fit / predict
    def fit(self, X, y):
        """Fit the hyperparameters (if ``optimize``) and condition the GP on ``(X, y)``.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs.
        y : array_like of shape (n,)
            Targets :math:`\\mathbf t`, modelled as :math:`\\mathcal N(\\mathbf 0, \\mathbf C_N)`
            (6.61).

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        kernel = check_kernel(self.kernel, RBF, callables=False)
        noise = float(check_positive(self.noise_variance, "noise_variance"))
        self._noise_is_fixed()  # validates noise_variance_bounds
        check_optimizer_settings(self)
        self.X_train_, self.y_train_ = X, y
        self.kernel_, self.noise_variance_ = kernel, noise  # the starting point
        self.optimizer_n_iter_ = 0
        if self.optimize:
            theta0, bounds = self._theta_and_bounds(kernel, noise)
            if theta0.size:
                noise_name = [] if self._noise_is_fixed() else ["noise_variance"]
                theta = fit_hyperparameters(
                    self,
                    lambda theta: self._log_evidence_at(theta, eval_gradient=True),
                    theta0,
                    bounds,
                    list(kernel.theta_names) + noise_name,
                    hint="raise the lower bound of noise_variance_bounds or check the kernel",
                )
                kernel, noise = self._unpack(theta, kernel, noise)
        self.kernel_ = kernel
        self.noise_variance_ = noise
        self.theta_ = self._theta_and_bounds(kernel, noise)[0]
        self.theta_names_ = list(kernel.theta_names)
        if not self._noise_is_fixed():
            self.theta_names_.append("noise_variance")
        warn_if_constant(evaluate_kernel(kernel, X), "GaussianProcessRegressor")
        value, _, self.L_, self.dual_coef_ = self._evidence(X, y, kernel, noise, False)
        self.log_marginal_likelihood_ = float(value)
        return self

    def predict(self, X, return_std=False, return_cov=False, include_noise=False):
        r"""Predictive mean (6.66), and standard deviation or covariance (6.67).

        Parameters
        ----------
        X : array_like of shape (m, d)
        return_std : bool, default=False
            Also return the predictive standard deviation at each point.
        return_cov : bool, default=False
            Also return the joint predictive covariance (Exercise 6.22).
        include_noise : bool, default=False
            ``True`` gives the distribution of a new target :math:`t` (adds
            :math:`\beta^{-1}`, exactly (6.67)); ``False`` that of the latent :math:`y(\mathbf
            x)`, as scikit-learn reports it.

        Returns
        -------
        mean : ndarray of shape (m,)
        std : ndarray of shape (m,)
            Only with ``return_std=True``.
        cov : ndarray of shape (m, m)
            Only with ``return_cov=True``.
        """
        check_is_fitted(self)
        if return_std and return_cov:
            raise ValueError("ask for return_std or return_cov, not both")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        noise = self.noise_variance_ if include_noise else 0.0
        if return_cov:  # an (m, m) result: one block
            mean, V = self._moments(X, "v")
            cov = evaluate_kernel(self.kernel_, X) - V.T @ V  # Exercise 6.22
            cov[np.diag_indices_from(cov)] += noise
            return mean, cov
        second = "std" if return_std else None
        return in_blocks(
            lambda rows: self._moments(rows, second, noise),
            X,
            self.X_train_.shape[0],
            arrays=1.0 if return_std else 0.0,
            kernel=self.kernel_,
        )

    def _moments(self, X, second=None, noise=0.0):
        r"""Predictive mean (6.66) at validated rows, and what ``second`` names.

        ``second="std"``: the standard deviation (6.67), with ``noise`` added to the variance;
        ``"v"``: the vectors :math:`\mathbf v = \mathbf L^{-1}\mathbf k`, shape (n, m).
        """
        Ks = evaluate_kernel(self.kernel_, X, self.X_train_)  # k of (6.65), one row per test point
        mean = Ks @ self.dual_coef_  # PRML (6.66)
        if second is None:
            return mean
        V = _linalg.solve_lower(self.L_, Ks.T)  # v = L^-1 k
        if second == "v":
            return mean, V
        var = kernel_diagonal(self.kernel_, X) - np.einsum("ij,ij->j", V, V)  # PRML (6.67)
        # round-off can push c - v^T v a hair below zero far from the data's span
        np.maximum(var, 0.0, out=var)
        return mean, np.sqrt(var + noise)

    def sample_prior(self, X, n_samples=1, random_state=None):
        """Draw latent functions from the GP prior :math:`\\mathcal N(\\mathbf 0, \\mathbf K)`.

        Uses ``kernel_`` after fitting and ``kernel`` before.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Inputs at which the functions are drawn.
        n_samples : int, default=1
            Number of functions drawn from the prior.
        random_state : int, Generator, RandomState or None, default=None
            Seed of the draws.

        Returns
        -------
        samples : ndarray of shape (m, n_samples)
            One function per column, its values at ``X``.
        """
        kernel = getattr(self, "kernel_", None)
        if kernel is None:
            kernel = check_kernel(self.kernel, RBF, callables=False)
        X = as_inputs(X, "X")
        return _draw(np.zeros(X.shape[0]), evaluate_kernel(kernel, X), n_samples, random_state)

    def sample_posterior(self, X, n_samples=1, random_state=None):
        """Draw latent functions from the GP posterior at ``X`` (joint over the points).

        The draws are Gaussian with the predictive mean (6.66) and the joint covariance of
        Exercise 6.22 (``predict(X, return_cov=True)``).

        Parameters
        ----------
        X : array_like of shape (m, d)
            Inputs at which the functions are drawn, jointly.
        n_samples : int, default=1
            Number of functions drawn from the posterior.
        random_state : int, Generator, RandomState or None, default=None
            Seed of the draws.

        Returns
        -------
        samples : ndarray of shape (m, n_samples)
            One posterior function per column, its values at ``X``.
        """
        mean, cov = self.predict(X, return_cov=True)
        return _draw(mean, cov, n_samples, random_state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = False
        return tags


# ---------------------------------------------------------------------- sampling
def _draw(mean, cov, n_samples, random_state):
    """``n_samples`` draws of N(mean, cov) via a jittered Cholesky factor, shape (m, n_samples)."""
    rng = as_generator(random_state)
    L, _ = _linalg.cholesky(cov, initial_jitter=1e-12, max_jitter=1e-6)
    return mean[:, np.newaxis] + L @ rng.standard_normal((mean.size, n_samples))

