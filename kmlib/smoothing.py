r"""Kernel smoothing: the Nadaraya–Watson model (PRML 6.3.1).

The joint density of input and target is estimated by placing one component
:math:`f(\mathbf x - \mathbf x_n, t - t_n)` on every training pair (PRML 6.42). With :math:`f` a
zero-mean Gaussian whose covariance is :math:`\mathrm{diag}(h^2\mathbf I, s^2)` (input bandwidth
:math:`h`, target bandwidth :math:`s`; PRML takes :math:`h = s = \sigma`), the conditional
density is a mixture with weights

.. math:: k(\mathbf x, \mathbf x_n) = \frac{g(\mathbf x - \mathbf x_n)}{\sum_m g(\mathbf x -
          \mathbf x_m)} \qquad (6.46), \qquad
          p(t\mid\mathbf x) = \sum_n k(\mathbf x, \mathbf x_n)\,\mathcal N(t\mid t_n, s^2),

whose mean is the kernel regression (6.45) and whose variance is
:math:`s^2 + \sum_n k_n t_n^2 - (\sum_n k_n t_n)^2` (Exercise 6.18).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist
from scipy.special import logsumexp, softmax
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_positive

__all__ = ["NadarayaWatson"]


class NadarayaWatson(RegressorMixin, BaseEstimator):
    """Nadaraya–Watson kernel regression with Gaussian components (PRML 6.3.1).

    Parameters
    ----------
    bandwidth : float
        Standard deviation :math:`h` of the Gaussian component along each input dimension.
    target_bandwidth : float, optional
        Standard deviation :math:`s` along the target; ``None`` uses ``bandwidth`` (the
        isotropic choice of PRML Figure 6.3). It affects only the spread of
        :meth:`conditional_density` and the variance, never the mean.

    Attributes
    ----------
    X_train_ : ndarray of shape (n, d)
    y_train_ : ndarray of shape (n,)
    """

    def __init__(self, bandwidth=0.1, target_bandwidth=None):
        self.bandwidth = bandwidth
        self.target_bandwidth = target_bandwidth

    def fit(self, X, y):
        """Store the training pairs (the model has nothing else to learn).

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)

        Returns
        -------
        self
        """
        check_positive(self.bandwidth, "bandwidth")
        if self.target_bandwidth is not None:
            check_positive(self.target_bandwidth, "target_bandwidth")
        self.X_train_, self.y_train_ = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        return self

    def _s(self):
        return self.bandwidth if self.target_bandwidth is None else self.target_bandwidth

    def _log_g(self, X):
        """log g(x - x_n) up to a constant, shape (m, n); g is (6.47) for a Gaussian f."""
        X = validate_data(self, X, dtype=np.float64, reset=False)
        sq = cdist(X, self.X_train_, "sqeuclidean")  # exact differences, shift-invariant
        return -0.5 * sq / self.bandwidth**2

    def weights(self, X):
        """Kernel weights :math:`k(\\mathbf x, \\mathbf x_n)` of (6.46); each row sums to 1.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        K : ndarray of shape (m, n)
        """
        check_is_fitted(self)
        return softmax(self._log_g(X), axis=1)  # normalised in log space: no underflow

    def predict(self, X, return_std=False):
        """Conditional mean (6.45), and optionally the conditional standard deviation.

        Parameters
        ----------
        X : array_like of shape (m, d)
        return_std : bool

        Returns
        -------
        mean : ndarray of shape (m,)
        std : ndarray of shape (m,)
            Only with ``return_std=True``: the square root of
            :math:`s^2 + \\sum_n k_n t_n^2 - (\\sum_n k_n t_n)^2`.
        """
        K = self.weights(X)
        mean = K @ self.y_train_  # PRML (6.45)
        if not return_std:
            return mean
        # Exercise 6.18: s^2 + sum_n k_n t_n^2 - mean^2, written as s^2 + sum_n k_n (t_n - mean)^2
        residual = self.y_train_[np.newaxis, :] - mean[:, np.newaxis]
        within = np.einsum("mn,mn->m", K, residual**2)
        return mean, np.sqrt(self._s() ** 2 + within)

    def conditional_density(self, X, t):
        """:math:`p(t\\mid\\mathbf x)` of (6.48) on a grid of targets.

        Parameters
        ----------
        X : array_like of shape (m, d)
        t : array_like of shape (q,)

        Returns
        -------
        density : ndarray of shape (m, q)
        """
        check_is_fitted(self)
        log_k = self._log_g(X)
        log_k -= logsumexp(log_k, axis=1, keepdims=True)  # log of (6.46)
        t = np.asarray(t, dtype=np.float64).ravel()
        s = self._s()
        log_normal = (
            -0.5 * ((t[np.newaxis, :] - self.y_train_[:, np.newaxis]) / s) ** 2
            - np.log(s)
            - 0.5 * np.log(2.0 * np.pi)
        )  # shape (n, q)
        return np.exp(logsumexp(log_k[:, :, np.newaxis] + log_normal[np.newaxis], axis=1))
