r"""Kernel smoothing (PRML 6.3.1, MLAPP 14.7): Nadaraya–Watson regression, the smoothing
kernels and kernel density estimation, K-nearest-neighbour density classification, and LOWESS.
All of them weight training points by a kernel of their distance to the query point.

**Nadaraya–Watson** (PRML 6.3.1). The joint density of input and target is estimated by
placing one component :math:`f(\mathbf x - \mathbf x_n, t - t_n)` on every training pair
(PRML 6.42). With :math:`f` a
zero-mean Gaussian whose covariance is :math:`\mathrm{diag}(h^2\mathbf I, s^2)` (input bandwidth
:math:`h`, target bandwidth :math:`s`; PRML takes :math:`h = s = \sigma`), the conditional
density is a mixture with weights

.. math:: k(\mathbf x, \mathbf x_n) = \frac{g(\mathbf x - \mathbf x_n)}{\sum_m g(\mathbf x -
          \mathbf x_m)} \qquad (6.46), \qquad
          p(t\mid\mathbf x) = \sum_n k(\mathbf x, \mathbf x_n)\,\mathcal N(t\mid t_n, s^2),

whose mean is the kernel regression (6.45) and whose variance is
:math:`s^2 + \sum_n k_n t_n^2 - (\sum_n k_n t_n)^2` (Exercise 6.18).

MLAPP 14.7 adds the smoothing kernels (Gaussian, Epanechnikov, tri-cube, boxcar) and their
moments, kernel density estimation with Scott's and Silverman's bandwidths, the robust
rule-of-thumb bandwidth (14.89)–(14.91), the K-nearest-neighbour (balloon) density estimate
whose Bayes classifier is K-nearest-neighbour voting (14.79)–(14.81), and LOWESS, the locally
weighted linear regression whose prediction is a weighted sum of the targets (its equivalent
kernel).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist
from scipy.special import gammaln, logsumexp, softmax
from scipy.stats import norm
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._chunks import in_blocks
from ._validation import (
    as_generator,
    check_positive,
    check_positive_int,
    check_real,
    class_labels,
    validate_data,
)

__all__ = [
    "NadarayaWatson",
    "SMOOTHING_KERNELS",
    "SmoothingKernel",
    "KernelDensity",
    "normal_reference_bandwidth",
    "KNeighborsDensityClassifier",
    "LOWESS",
]

#: LOWESS stops its robustness passes once no weight moves by more than this: the passes then
#: only repeat themselves (the weights lie in [0, 1]; on noisy data they settle within a few
#: tens of passes, to rounding noise of about 1e-15, where they would wander for ever).
ROBUSTNESS_SETTLED = 1e-12


class NadarayaWatson(RegressorMixin, BaseEstimator):
    """Nadaraya–Watson kernel regression with Gaussian components (PRML 6.3.1).

    Parameters
    ----------
    bandwidth : float, default=0.1
        Standard deviation :math:`h` of the Gaussian component along each input dimension.
    target_bandwidth : float or None, default=None
        Standard deviation :math:`s` along the target; ``None`` uses ``bandwidth`` (the
        isotropic choice of PRML Figure 6.3). It affects only the spread of
        :meth:`conditional_density` and the variance, never the mean.

    Attributes
    ----------
    X_train_ : ndarray of shape (n, d)
    y_train_ : ndarray of shape (n,)

    Examples
    --------
    Midway between two training inputs whose targets are 1 and 4, the two share the weight
    and the mean is 2.5; the spread adds :math:`s^2 = 0.01` to the targets' variance 2.25:

    >>> import numpy as np
    >>> from kmlib.smoothing import NadarayaWatson
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([0.0, 1.0, 4.0, 9.0])
    >>> model = NadarayaWatson(bandwidth=0.1).fit(X, y)
    >>> np.round(model.weights([[1.5]]), 4)
    array([[0. , 0.5, 0.5, 0. ]])
    >>> mean, std = model.predict([[1.5]], return_std=True)
    >>> np.round(mean, 4), np.round(std, 4)
    (array([2.5]), array([1.5033]))
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
        """log g(x - x_n) up to a constant at validated rows, shape (m, n); g is (6.47) for a
        Gaussian f."""
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
        return self._weights(validate_data(self, X, dtype=np.float64, reset=False))

    def _weights(self, X):
        """:meth:`weights` at validated rows."""
        return softmax(self._log_g(X), axis=1)  # normalised in log space: no underflow

    def predict(self, X, return_std=False):
        """Conditional mean (6.45), and optionally the conditional standard deviation.

        Parameters
        ----------
        X : array_like of shape (m, d)
        return_std : bool, default=False
            Also return the conditional standard deviation.

        Returns
        -------
        mean : ndarray of shape (m,)
        std : ndarray of shape (m,)
            Only with ``return_std=True``: the square root of
            :math:`s^2 + \\sum_n k_n t_n^2 - (\\sum_n k_n t_n)^2`.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return in_blocks(
            lambda rows: self._moments(rows, return_std), X, self.X_train_.shape[0], arrays=4.0
        )

    def _moments(self, X, return_std):
        """:meth:`predict` at validated rows."""
        K = self._weights(X)
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
        X = validate_data(self, X, dtype=np.float64, reset=False)
        t = np.asarray(t, dtype=np.float64).ravel()
        s = self._s()
        log_normal = (
            -0.5 * ((t[np.newaxis, :] - self.y_train_[:, np.newaxis]) / s) ** 2
            - np.log(s)
            - 0.5 * np.log(2.0 * np.pi)
        )  # shape (n, q)

        def density(rows):  # an (m, n, q) sum: n values per target and row
            log_k = self._log_g(rows)
            log_k -= logsumexp(log_k, axis=1, keepdims=True)  # log of (6.46)
            return np.exp(logsumexp(log_k[:, :, np.newaxis] + log_normal[np.newaxis], axis=1))

        return in_blocks(density, X, self.X_train_.shape[0], arrays=7.0 * t.size + 4.0)


# ----------------------------------------------------------------- MLAPP 14.7: smoothing kernels
class SmoothingKernel:
    r"""A one-dimensional smoothing kernel :math:`\kappa(u)` (MLAPP 14.7.1).

    :math:`\int\kappa = 1`, :math:`\int u\kappa(u)\,du = 0` and
    :math:`\int u^2\kappa(u)\,du` = ``second_moment`` > 0.

    Parameters
    ----------
    name : str
    density : callable
        :math:`\kappa`, vectorised.
    support : float
        :math:`\kappa(u) = 0` for :math:`|u| > ` ``support`` (``inf`` for the Gaussian).
    second_moment : float
        :math:`\int u^2\kappa(u)\,du`, in closed form.
    peak : float
        :math:`\kappa(0)`, its maximum (for rejection sampling).

    Examples
    --------
    The kernels of MLAPP 14.7.1 are in ``SMOOTHING_KERNELS``:

    >>> import numpy as np
    >>> from kmlib.smoothing import SMOOTHING_KERNELS
    >>> sorted(SMOOTHING_KERNELS)
    ['boxcar', 'epanechnikov', 'gaussian', 'tricube']
    >>> epanechnikov = SMOOTHING_KERNELS["epanechnikov"]
    >>> epanechnikov([0.0, 0.5])
    array([0.75  , 0.5625])
    >>> epanechnikov.second_moment
    0.2
    >>> draws = epanechnikov.sample(1000, np.random.default_rng(0))
    >>> draws.shape, bool(np.all(np.abs(draws) <= 1.0))
    ((1000,), True)
    """

    def __init__(self, name, density, support, second_moment, peak):
        self.name = name
        self.density = density
        self.support = support
        self.second_moment = second_moment
        self.peak = peak

    def __call__(self, u):
        return self.density(np.asarray(u, dtype=np.float64))

    def __repr__(self):
        return f"SmoothingKernel({self.name!r})"

    def sample(self, size, rng):
        r"""Draws from :math:`\kappa`: normal for the Gaussian, else rejection from a uniform.

        Parameters
        ----------
        size : int
            Number of draws.
        rng : numpy.random.Generator or RandomState

        Returns
        -------
        ndarray of shape (size,)
        """
        if np.isinf(self.support):
            return rng.standard_normal(size)
        draws = np.empty(0)
        while draws.size < size:
            u = rng.uniform(-self.support, self.support, 2 * size)
            keep = rng.uniform(0.0, self.peak, u.size) < self(u)
            draws = np.concatenate([draws, u[keep]])
        return draws[:size]


def _inside(u):
    return (np.abs(u) <= 1.0).astype(np.float64)


def _gaussian(u):
    return np.exp(-0.5 * u**2) / np.sqrt(2 * np.pi)  # MLAPP (14.70)


def _epanechnikov(u):
    return 0.75 * (1 - u**2) * _inside(u)  # MLAPP (14.74)


def _tricube(u):
    return 70 / 81 * (1 - np.abs(u) ** 3) ** 3 * _inside(u)  # MLAPP (14.75)


def _boxcar(u):
    return 0.5 * _inside(u)  # MLAPP (14.76), with the 1/2 it needs to integrate to one


#: The kernels of MLAPP 14.7.1 with their second moments 1, 1/5, 35/243 and 1/3.
SMOOTHING_KERNELS = {
    "gaussian": SmoothingKernel("gaussian", _gaussian, np.inf, 1.0, 1 / np.sqrt(2 * np.pi)),
    "epanechnikov": SmoothingKernel("epanechnikov", _epanechnikov, 1.0, 1 / 5, 0.75),
    "tricube": SmoothingKernel("tricube", _tricube, 1.0, 35 / 243, 70 / 81),
    "boxcar": SmoothingKernel("boxcar", _boxcar, 1.0, 1 / 3, 0.5),
}


def _smoothing_kernel(name):
    if name not in SMOOTHING_KERNELS:
        raise ValueError(f"kernel must be one of {sorted(SMOOTHING_KERNELS)}; got {name!r}")
    return SMOOTHING_KERNELS[name]


class KernelDensity(BaseEstimator):
    r"""Kernel density estimate with a product of smoothing kernels (MLAPP 14.7.2).

    .. math:: \hat p(\mathbf x) = \frac1N\sum_n\prod_{j=1}^d \frac1h
              \kappa\Big(\frac{x_j - x_{nj}}h\Big)

    For the Gaussian kernel the product is the isotropic :math:`\mathcal N(\mathbf x\mid
    \mathbf x_n, h^2\mathbf I)` of MLAPP (14.77); (14.78) is the general form.

    Parameters
    ----------
    bandwidth : float or {"scott", "silverman"}, default=1.0
        :math:`h > 0`, or a rule: Scott's :math:`h = \bar\sigma N^{-1/(d+4)}` or Silverman's
        :math:`h = \bar\sigma\,(N(d+2)/4)^{-1/(d+4)}`, where :math:`\bar\sigma^2` is the
        mean over the dimensions of the sample variances (ddof = 1). In one dimension these
        are the factors that ``scipy.stats.gaussian_kde`` uses, times the sample standard
        deviation; Silverman's is then about :math:`1.06\,\hat\sigma N^{-1/5}` (MLAPP (14.89)).
    kernel : {"gaussian", "epanechnikov", "tricube", "boxcar"}, default="gaussian"
        The smoothing kernel :math:`\kappa`, one of ``SMOOTHING_KERNELS``.

    Attributes
    ----------
    bandwidth_ : float
        The bandwidth :math:`h` used (the rule's value for ``"scott"`` and ``"silverman"``).
    kernel_ : SmoothingKernel
    X_train_ : ndarray of shape (n, d)

    Examples
    --------
    With a single data point at 0 and :math:`h = 1` the Gaussian estimate is the standard
    normal density, :math:`\ln\mathcal N(0\mid 0, 1) = -\tfrac12\ln 2\pi`:

    >>> import numpy as np
    >>> from kmlib.smoothing import KernelDensity
    >>> kde = KernelDensity(bandwidth=1.0).fit([[0.0]])
    >>> np.round(kde.score_samples([[0.0], [1.0]]), 4)
    array([-0.9189, -1.4189])

    A bandwidth rule, and draws from the estimate:

    >>> X = np.arange(10.0)[:, np.newaxis]
    >>> kde = KernelDensity(bandwidth="silverman", kernel="epanechnikov").fit(X)
    >>> round(kde.bandwidth_, 3)
    2.023
    >>> kde.sample(5, random_state=0).shape
    (5, 1)
    """

    def __init__(self, bandwidth=1.0, kernel="gaussian"):
        self.bandwidth = bandwidth
        self.kernel = kernel

    def fit(self, X, y=None):
        """Store the data and set the bandwidth.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : None, default=None
            Ignored; present for the scikit-learn API.

        Returns
        -------
        self
        """
        kernel = _smoothing_kernel(self.kernel)
        X = validate_data(self, X, dtype=np.float64)
        n, d = X.shape
        if isinstance(self.bandwidth, str):
            if self.bandwidth not in ("scott", "silverman"):
                raise ValueError(
                    f"bandwidth must be positive, 'scott' or 'silverman'; got {self.bandwidth!r}"
                )
            if n < 2:
                raise ValueError("a bandwidth rule needs at least 2 samples")
            sigma = np.sqrt(np.mean(np.var(X, axis=0, ddof=1)))
            factor = n ** (-1.0 / (d + 4))
            if self.bandwidth == "silverman":
                factor = (n * (d + 2) / 4.0) ** (-1.0 / (d + 4))
            self.bandwidth_ = float(sigma * factor)
            if not self.bandwidth_ > 0:
                raise ValueError("a bandwidth rule needs data that are not all equal")
        else:
            self.bandwidth_ = float(check_positive(self.bandwidth, "bandwidth"))
        self.kernel_ = kernel
        self.X_train_ = X
        return self

    def score_samples(self, X):
        r"""Log density :math:`\ln\hat p(\mathbf x)` at each row of X.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
            ``-inf`` where a compact kernel leaves no data within reach.
        """
        check_is_fitted(self, "X_train_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        arrays = 10.0 if self.kernel == "gaussian" else 6.0  # logsumexp's temporaries
        return in_blocks(self._log_density, X, self.X_train_.shape[0], arrays=arrays)

    def _log_density(self, X):
        """:meth:`score_samples` at validated rows, one input dimension at a time."""
        h = self.bandwidth_
        n, d = self.X_train_.shape
        gaussian = self.kernel == "gaussian"
        combine = np.add if gaussian else np.multiply
        total = None  # sum of squares (Gaussian) or product of kernel values over dimensions
        for j in range(d):
            u = (X[:, j, np.newaxis] - self.X_train_[np.newaxis, :, j]) / h  # (m, n)
            term = u**2 if gaussian else self.kernel_(u)
            total = term if total is None else combine(total, term, out=total)
        if gaussian:  # in log space, so that far points do not underflow
            log_terms = -0.5 * total - 0.5 * d * np.log(2 * np.pi)
            return logsumexp(log_terms, axis=1) - np.log(n) - d * np.log(h)
        with np.errstate(divide="ignore"):
            return np.log(total.mean(axis=1)) - d * np.log(h)

    def score(self, X, y=None):
        """Total log density of X (larger is better).

        Parameters
        ----------
        X : array_like of shape (m, d)
        y : None, default=None
            Ignored; present for the scikit-learn API.

        Returns
        -------
        float
        """
        return float(np.sum(self.score_samples(X)))

    def sample(self, n_samples=1, random_state=None):
        """Draws from the estimate: a random data point plus h times kernel noise per axis.

        Parameters
        ----------
        n_samples : int, default=1
        random_state : int, Generator, RandomState or None, default=None
            Seed or generator of the draws; ``None`` draws fresh entropy.

        Returns
        -------
        ndarray of shape (n_samples, d)
        """
        check_is_fitted(self, "X_train_")
        rng = as_generator(random_state)
        n, d = self.X_train_.shape
        centres = self.X_train_[rng.choice(n, n_samples)]  # also for a legacy RandomState
        noise = self.kernel_.sample(n_samples * d, rng).reshape(n_samples, d)
        return centres + self.bandwidth_ * noise


def normal_reference_bandwidth(x, robust=True):
    r"""The rule-of-thumb bandwidth :math:`h = (4/(3N))^{1/5}\,\hat\sigma` (MLAPP (14.89)).

    For a Gaussian kernel and data drawn from a Gaussian of standard deviation :math:`\sigma`,
    this :math:`h` minimises the asymptotic mean integrated squared error of the density
    estimate. The scale is estimated robustly from the median absolute deviation,
    :math:`\hat\sigma = \mathrm{MAD}/\Phi^{-1}(3/4) \approx 1.4826\,\mathrm{MAD}` with
    :math:`\mathrm{MAD} = \mathrm{median}_n|x_n - \mathrm{median}(x)|` (MLAPP (14.90)–(14.91)),
    or by the sample standard deviation (ddof = 1), which gives Silverman's rule of
    :class:`KernelDensity` in one dimension.

    Parameters
    ----------
    x : array_like of shape (n,)
        One-dimensional sample, n >= 2.
    robust : bool, default=True
        Use the median absolute deviation instead of the standard deviation.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.smoothing import normal_reference_bandwidth
    >>> x = np.arange(10.0)
    >>> round(normal_reference_bandwidth(x), 3)  # MAD 2.5, so sigma = 3.706
    2.477
    >>> round(normal_reference_bandwidth(x, robust=False), 3)  # Silverman's rule
    2.023
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"x must be a one-dimensional sample of at least 2 values; got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or infinite values")
    if robust:
        mad = np.median(np.abs(x - np.median(x)))  # MLAPP (14.90)
        sigma = mad / norm.ppf(0.75)  # MLAPP (14.91): 1.4826 MAD
    else:
        sigma = np.std(x, ddof=1)
    if not sigma > 0:
        which = "more than half of x are equal" if robust else "all of x are equal"
        raise ValueError(f"the scale estimate of x is zero ({which}): no bandwidth follows")
    return float((4.0 / (3.0 * x.size)) ** 0.2 * sigma)  # MLAPP (14.89)


class KNeighborsDensityClassifier(ClassifierMixin, BaseEstimator):
    r"""Bayes classifier from K-nearest-neighbour density estimates (MLAPP 14.7.3; PRML 2.5.2).

    Around a query :math:`\mathbf x` a ball grows until it holds the K nearest training inputs,
    whatever their classes: its radius :math:`r_K(\mathbf x)` is the distance to the K-th nearest
    and its volume is :math:`V(\mathbf x) = \pi^{d/2} r_K^d/\Gamma(d/2 + 1)`. If
    :math:`N_c(\mathbf x)` of the K points are of class c, which has :math:`N_c` points in all,
    the density estimates

    .. math:: p(\mathbf x\mid y = c) = \frac{N_c(\mathbf x)}{N_c V(\mathbf x)}\quad(14.79),
              \qquad p(\mathbf x) = \frac{K}{N V(\mathbf x)},

    with the priors :math:`N_c/N` (14.80), give by Bayes' rule the posterior
    :math:`p(y = c\mid\mathbf x) = N_c(\mathbf x)/K` (14.81): the volume cancels and the
    classifier is K-nearest-neighbour voting. The densities are balloon estimates, a boxcar
    kernel whose width follows :math:`r_K(\mathbf x)`; they do not integrate to one (far from
    the data they decay like :math:`\lVert\mathbf x\rVert^{-d}`).

    Parameters
    ----------
    n_neighbors : int, default=5
        K; at most N (larger values use all N training points).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        :math:`N_c`.
    X_train_ : ndarray of shape (n, d)

    Notes
    -----
    Neighbours are ranked by Euclidean distance, ties in distance by their order in the
    training set. A tie in the vote goes to the class that comes first in ``classes_``, as in
    scikit-learn's ``KNeighborsClassifier``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.smoothing import KNeighborsDensityClassifier
    >>> X = np.array([[0.0], [0.5], [1.0], [5.0], [5.5], [6.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = KNeighborsDensityClassifier(n_neighbors=3).fit(X, y)
    >>> clf.predict([[0.2], [5.2]])
    array([0, 1])

    At 3.2 the three nearest are 1.0, 5.0 and 5.5: one vote against two.

    >>> clf.predict_proba([[3.2]])
    array([[0.33333333, 0.66666667]])

    At 0.2 the ball reaching the third neighbour has length :math:`V = 1.6` and holds all
    three points of class 0, so :math:`p(x\mid y = 0) = 3/(3 \cdot 1.6)`:

    >>> np.round(np.exp(clf.log_class_densities([[0.2]])), 4)
    array([[0.625, 0.   ]])
    """

    def __init__(self, n_neighbors=5):
        self.n_neighbors = n_neighbors

    def fit(self, X, y):
        """Store the training set and count the classes.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)

        Returns
        -------
        self
        """
        check_positive_int(self.n_neighbors, "n_neighbors")
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, self._codes = class_labels(y)
        self.class_count_ = np.bincount(self._codes, minlength=self.classes_.size)
        self.X_train_ = X
        return self

    def _neighbourhood(self, X):
        """Class counts N_c(x) of the K nearest, shape (m, n_classes), and log V(x), shape (m,)."""
        check_is_fitted(self, "X_train_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return in_blocks(self._neighbourhood_rows, X, self.X_train_.shape[0], arrays=3.0)

    def _neighbourhood_rows(self, X):
        """:meth:`_neighbourhood` at validated rows."""
        n, d = self.X_train_.shape
        k = min(self.n_neighbors, n)
        distance = cdist(X, self.X_train_)
        nearest = np.argsort(distance, axis=1, kind="stable")[:, :k]
        counts = np.zeros((X.shape[0], self.classes_.size))
        np.add.at(counts, (np.arange(X.shape[0])[:, None], self._codes[nearest]), 1.0)
        radius = np.take_along_axis(distance, nearest[:, -1:], axis=1)[:, 0]  # r_K(x)
        with np.errstate(divide="ignore"):
            log_volume = 0.5 * d * np.log(np.pi) - gammaln(0.5 * d + 1) + d * np.log(radius)
        return counts, log_volume

    def log_class_densities(self, X):
        r""":math:`\ln p(\mathbf x\mid y = c)` of (14.79) for every class.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, n_classes)
            ``-inf`` for a class with no member among the K nearest; ``+inf`` for the others
            where the K nearest coincide with the query (zero volume).
        """
        counts, log_volume = self._neighbourhood(X)
        with np.errstate(divide="ignore"):
            return np.log(counts) - np.log(self.class_count_) - log_volume[:, None]

    def score_samples(self, X):
        r""":math:`\ln p(\mathbf x) = \ln K - \ln N - \ln V(\mathbf x)`.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
        """
        counts, log_volume = self._neighbourhood(X)
        return np.log(counts.sum(axis=1)) - np.log(self.X_train_.shape[0]) - log_volume

    def predict_proba(self, X):
        r"""Posterior class probabilities :math:`N_c(\mathbf x)/K` (14.81).

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, n_classes)
        """
        counts, _ = self._neighbourhood(X)
        return counts / counts.sum(axis=1, keepdims=True)

    def predict(self, X):
        """The class with the most votes among the K nearest.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
        """
        proba = self.predict_proba(X)  # checks that the model is fitted
        return self.classes_[np.argmax(proba, axis=1)]


class LOWESS(RegressorMixin, BaseEstimator):
    r"""Locally weighted linear regression with tri-cube weights (MLAPP 14.7.5; Cleveland 1979).

    At a query point :math:`\mathbf x` the training point n gets the weight :math:`w_n =
    \kappa_{tc}(\lVert\mathbf x - \mathbf x_n\rVert / d_k(\mathbf x))`, where
    :math:`d_k(\mathbf x)` is the distance to the k-th nearest training input and
    k = max(ceil(frac N), d + 2) (at most N) for d inputs: the k-th nearest point and those
    farther away get weight zero. A linear function of the inputs is fitted by weighted least
    squares and evaluated at :math:`\mathbf x`, MLAPP (14.94)–(14.96): a straight line for one
    input, Cleveland and Devlin's (1988) local linear LOESS for several. The prediction is
    linear in the targets, :math:`\hat y(\mathbf x) = \sum_n l_n(\mathbf x)\,y_n`. Written with
    the weighted mean
    :math:`\bar{\mathbf x}_w = \sum_n w_n\mathbf x_n/\sum_n w_n` and the weighted scatter
    :math:`\mathbf S_w = \sum_n w_n(\mathbf x_n - \bar{\mathbf x}_w)(\mathbf x_n -
    \bar{\mathbf x}_w)^T/\sum_n w_n`, the row :math:`\boldsymbol\phi(\mathbf x)^T
    (\boldsymbol\Phi^T\mathbf D\boldsymbol\Phi)^{-1}\boldsymbol\Phi^T\mathbf D` of (14.96) is

    .. math:: l_n(\mathbf x) = \frac{w_n}{\sum_m w_m}\Big(1 + (\mathbf x - \bar{\mathbf x}_w)^T
              \mathbf S_w^{-1}(\mathbf x_n - \bar{\mathbf x}_w)\Big),

    the equivalent kernel: it sums to one and reproduces every linear function exactly. Where
    the weighted inputs do not pin down a plane (:math:`\mathbf S_w` singular, for instance when
    all of them coincide) the pseudo-inverse takes the slope along the missing directions as
    zero, so the fit falls back to the weighted mean there. If the k nearest points are all
    equally far away (so that the tri-cube gives every one of them zero weight), they get equal
    weights instead.

    Passes after the first are Cleveland's robustness steps: each refits with the weights
    multiplied by :math:`B(r_n/6m)`, where :math:`r_n` are the residuals of the previous pass at
    the training points, :math:`m` is their median absolute value and :math:`B(u) =
    (1 - u^2)_+^2` is the bisquare.

    Distances are Euclidean, so put several inputs on comparable scales first (standardise them).

    Parameters
    ----------
    frac : float, default=2/3
        Fraction of the training points in each local fit, in (0, 1].
    iterations : int, default=1
        Number of fitting passes, at least 1. ``iterations=1`` is plain locally weighted
        regression; each further pass is a robustness step. (R's ``lowess(iter=)`` and
        statsmodels' ``it`` count the robustness steps only, i.e. ``iterations - 1``;
        Cleveland (1979) suggests two of them, ``iterations=3``.) The passes stop early
        when the robustness weights have settled (no weight moves by more than
        ``ROBUSTNESS_SETTLED``) or a pass fits half of the data exactly.

    Attributes
    ----------
    X_train_ : ndarray of shape (n, d)
    y_train_ : ndarray of shape (n,)
    robustness_weights_ : ndarray of shape (n,)
        The bisquare weights of the last pass; ones when ``iterations=1``.
    n_iter_ : int
        Fitting passes made, at most ``iterations``.

    Examples
    --------
    Every local fit is a line, so a line comes back exactly:

    >>> import numpy as np
    >>> from kmlib.smoothing import LOWESS
    >>> X = np.linspace(0.0, 1.0, 21)[:, np.newaxis]
    >>> model = LOWESS(frac=0.5).fit(X, 2.0 * X[:, 0] + 1.0)
    >>> np.round(model.predict([[0.25], [0.55]]), 4)
    array([1.5, 2.1])

    One gross outlier pulls the plain fit; two robustness steps (``iterations=3``) give it
    weight zero:

    >>> y = 2.0 * X[:, 0] + 1.0 + 0.05 * np.sin(37.0 * X[:, 0])
    >>> y[10] = 10.0  # at x = 0.5, where the line is 2
    >>> plain = LOWESS(frac=0.5).fit(X, y)
    >>> robust = LOWESS(frac=0.5, iterations=3).fit(X, y)
    >>> round(float(plain.predict([[0.5]])[0]), 2), round(float(robust.predict([[0.5]])[0]), 2)
    (3.39, 2.01)
    >>> float(robust.robustness_weights_[10])
    0.0
    """

    def __init__(self, frac=2 / 3, iterations=1):
        self.frac = frac
        self.iterations = iterations

    def fit(self, X, y):
        """Store the data and run the robustness passes.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)

        Returns
        -------
        self
        """
        check_real(self.frac, "frac", low=0.0, high=1.0)
        check_positive_int(self.iterations, "iterations")
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, ensure_min_samples=2)
        self.X_train_, self.y_train_ = X, y
        self.robustness_weights_ = np.ones(y.size)
        self.n_iter_ = 1
        for _ in range(self.iterations - 1):
            residual = y - self._equivalent_kernel(X) @ y
            scale = 6.0 * np.median(np.abs(residual))
            if scale == 0:  # the previous pass fits (at least half of) the data exactly
                break
            weights = np.clip(1 - (residual / scale) ** 2, 0, None) ** 2
            change = np.max(np.abs(weights - self.robustness_weights_))
            self.robustness_weights_ = weights
            self.n_iter_ += 1
            if change <= ROBUSTNESS_SETTLED:  # another pass would give the same weights
                break
        return self

    def equivalent_kernel(self, X):
        r"""Weights :math:`l_n(\mathbf x)` with :math:`\hat y(\mathbf x) = \sum_n l_n(\mathbf x)
        y_n`: one row of the smoother matrix per query point.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Query points; with one input feature also a scalar or an array of shape (m,).

        Returns
        -------
        ndarray of shape (m, n)
        """
        check_is_fitted(self, "X_train_")
        if self.n_features_in_ == 1 and np.ndim(X) <= 1:
            X = np.reshape(X, (-1, 1))
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._equivalent_kernel(X)

    def _equivalent_kernel(self, X):
        """:meth:`equivalent_kernel` at validated rows."""
        n, d = self.X_train_.shape
        # round first: frac * n = 55.00000000000001 for frac = 0.55, n = 100 must give k = 55
        k = min(max(int(np.ceil(round(self.frac * n, 9))), d + 2), n)
        distance = cdist(X, self.X_train_)  # (m, n)
        reach = np.partition(distance, k - 1, axis=1)[:, k - 1 : k]  # d_k(x), (m, 1)
        weights = SMOOTHING_KERNELS["tricube"](distance / np.where(reach > 0, reach, 1.0))
        weights[reach[:, 0] == 0] = 0.0
        ties = ~(weights.sum(axis=1) > 0)  # the k nearest all at distance d_k(x)
        weights[ties] = (distance[ties] <= reach[ties]).astype(np.float64)
        weights *= self.robustness_weights_
        total = weights.sum(axis=1, keepdims=True)
        if np.any(total <= 0):
            raise ValueError(
                "a local fit has no training point with positive weight (the robustness "
                "weights removed them all): raise frac or lower iterations"
            )
        p = weights / total  # normalised weights, (m, n)
        mean = p @ self.X_train_  # weighted mean input, (m, d)
        centred = self.X_train_[None, :, :] - mean[:, None, :]  # (m, n, d)
        scatter = np.einsum("mn,mnd,mne->mde", p, centred, centred)  # S_w, (m, d, d)
        # pseudo-inverse of S_w after scaling it to unit diagonal, so that inputs on different
        # scales are treated alike and a singular S_w gives the weighted mean along its null space
        scale = np.sqrt(np.einsum("mdd->md", scatter))
        # a spread within the rounding error of the weighted mean (inputs that are all equal,
        # say) is no spread: that direction gets no slope, as an exactly zero spread does
        flat = scale <= n * np.finfo(np.float64).eps * np.max(np.abs(self.X_train_), axis=0)
        scale = np.where(flat, 1.0, scale)
        unit = scatter / (scale[:, :, None] * scale[:, None, :])
        unit[flat] = 0.0
        unit.transpose(0, 2, 1)[flat] = 0.0
        inverse = np.linalg.pinv(unit, rcond=1e-10, hermitian=True)
        inverse /= scale[:, :, None] * scale[:, None, :]
        lever = np.einsum("mde,me->md", inverse, X - mean)  # S_w^+ (x - x_bar), (m, d)
        return p * (1.0 + np.einsum("mnd,md->mn", centred, lever))  # MLAPP (14.96)

    def predict(self, X):
        """The local linear fit evaluated at each query input.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)
        """
        check_is_fitted(self, "X_train_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        n, d = self.X_train_.shape
        return in_blocks(
            lambda rows: self._equivalent_kernel(rows) @ self.y_train_,
            X,
            n,
            arrays=8.0 + 2.0 * d,  # the weights' steps, and the (m, n, d) centred inputs
        )
