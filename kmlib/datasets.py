r"""Seeded synthetic data sets shared by the notebooks (PRML Appendix A and 6.4.4).

* :func:`sinusoid` — PRML Appendix A, Figure A.6: :math:`x\sim\mathcal U(0, 1)`,
  :math:`t = \sin(2\pi x) + \epsilon` with noise standard deviation 0.3.
* :func:`two_class` and :func:`two_class_posterior` — PRML Appendix A, Figure A.7: two equally
  probable classes in the plane, one a single Gaussian and the other a mixture of two. The book
  does not publish the parameters, so they are fixed here once (the proposal of the companion's
  inventory) and the exact posterior comes with them, which gives the Bayes-optimal boundary.
* :func:`ard_toy` — the three-input data of PRML 6.4.4 (Figure 6.10), generated as in Nabney's
  Netlab demo ``demgpard``: one relevant input, a noisy copy of it, and an irrelevant one.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logsumexp

from ._validation import as_generator, as_inputs

__all__ = ["sinusoid", "two_class", "two_class_posterior", "ard_toy"]


def sinusoid(n=10, noise_std=0.3, random_state=None, evenly_spaced=False):
    """Noisy samples of :math:`\\sin(2\\pi x)` on [0, 1] (PRML Appendix A).

    Parameters
    ----------
    n : int
        Number of points.
    noise_std : float
        Standard deviation of the Gaussian noise on the targets.
    random_state : int, Generator or None
    evenly_spaced : bool
        Put the inputs at ``linspace(0, 1, n)`` (the variant of PRML chapter 1) instead of
        drawing them uniformly.

    Returns
    -------
    x : ndarray of shape (n,)
        Inputs, sorted.
    t : ndarray of shape (n,)
        Targets.
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
    """Two-class data in the plane with a known Bayes-optimal boundary (PRML Appendix A).

    Each point's class is drawn with probability 1/2; class 0 is
    :math:`\\mathcal N((0, 0), 0.5^2\\mathbf I)` and class 1 the equal mixture of
    :math:`\\mathcal N((-1.5, 1), 0.3^2\\mathbf I)` and :math:`\\mathcal N((1.5, -0.5),
    0.4^2\\mathbf I)`.

    Parameters
    ----------
    n : int
        Number of points.
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray of shape (n, 2)
    t : ndarray of shape (n,)
        Labels in {0, 1}.
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

    Returns
    -------
    p : ndarray of shape (m,)
        The Bayes-optimal boundary is the contour ``p = 0.5``.
    """
    X = as_inputs(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 columns; got {X.shape[1]}")
    return expit(_log_density(_CLASS1, X) - _log_density(_CLASS0, X))


def ard_toy(n=100, random_state=None):
    """Inputs of unequal relevance for ARD (PRML 6.4.4, Figure 6.10; Netlab ``demgpard``).

    :math:`x_1\\sim\\mathcal U(0, 1)`, :math:`x_2 = x_1 + 0.05\\epsilon`,
    :math:`x_3 = 0.5 + 0.5\\epsilon`, and :math:`t = \\sin(2\\pi x_1) + 0.1\\epsilon`.

    Parameters
    ----------
    n : int
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray of shape (n, 3)
    t : ndarray of shape (n,)
    """
    rng = as_generator(random_state)
    x1 = rng.uniform(0.0, 1.0, n)
    x2 = x1 + 0.05 * rng.standard_normal(n)
    x3 = 0.5 + 0.5 * rng.standard_normal(n)
    t = np.sin(2.0 * np.pi * x1) + 0.1 * rng.standard_normal(n)
    return np.column_stack([x1, x2, x3]), t
