r"""The damping of every Newton iteration in kmlib: halve the step until the objective falls.

A Newton step can overshoot where the objective is far from quadratic (the logistic and
trigonometric likelihoods far from the mode, an L1 penalty's kinks), so each Newton method of
kmlib (the Laplace mode of GP classification, the RVM's weight mode, the BTSVC's MAP, the kernel
machines' IRLS) tries the full step and halves it until the Armijo condition holds (Nocedal &
Wright 2006, 3.1):

.. math:: f(\mathbf x + t\mathbf d) \le f(\mathbf x) + c\, t\, \nabla f^\top\mathbf d + s,
          \qquad t = 1, \tfrac12, \tfrac14, \dots

with :math:`c` = ``ARMIJO`` and a slack :math:`s` of a few units of round-off in :math:`f`, so
that a decrease the arithmetic cannot resolve neither blocks nor fakes progress. With no slope
given the condition is plain decrease.

The Newton methods for a latent Gaussian-process posterior (the Laplace mode of GP
classification, the BTSVC's MAP) solve their systems in the stable form of Rasmussen &
Williams (2006), Alg. 3.1: with :math:`\mathbf W` the diagonal curvature of the likelihood,
only :math:`\mathbf B = \mathbf I + \mathbf W^{1/2}\mathbf K\mathbf W^{1/2}` is factorised,
whose eigenvalues are at least 1 (:func:`stable_newton_factor`); it serves their evidence too.
"""

from __future__ import annotations

import numpy as np

from . import _linalg

__all__ = ["ARMIJO", "MAX_HALVINGS", "damped_step", "stable_newton_factor"]

#: Fraction of the predicted decrease that a step must achieve.
ARMIJO = 1e-4
#: Halvings tried before the direction is given up (a step of 2**-40 moves nothing).
MAX_HALVINGS = 40


def damped_step(value_at, value, slope=0.0):
    """Largest step :math:`t = 2^{-k}` along a descent direction that passes the Armijo test.

    Parameters
    ----------
    value_at : callable
        ``value_at(t)`` is the objective (to be minimised) at ``x + t d``; ``inf`` outside its
        domain.
    value : float
        The objective at ``x``.
    slope : float, default=0.0
        Directional derivative :math:`\\nabla f^\\top\\mathbf d` (negative); 0 asks for plain
        decrease.

    Returns
    -------
    t : float
        The accepted step, or 0.0 when no step lowers the objective beyond round-off.
    new_value : float
        The objective at ``x + t d`` (``value`` when ``t`` is 0).
    """
    slack = 8.0 * np.finfo(float).eps * (abs(value) + 1.0)
    t = 1.0
    for _ in range(MAX_HALVINGS):
        trial = value_at(t)
        if trial <= value + ARMIJO * t * min(slope, 0.0) + slack:
            return t, trial
        t *= 0.5
    return 0.0, value


def stable_newton_factor(K, W_sqrt, initial_jitter=_linalg.INITIAL_JITTER):
    r"""Lower Cholesky factor of :math:`\mathbf B = \mathbf I + \mathbf W^{1/2}\mathbf K
    \mathbf W^{1/2}` (Rasmussen & Williams 2006, Alg. 3.1 line 5).

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Prior covariance of the latent values.
    W_sqrt : ndarray of shape (m,)
        Square roots of the diagonal of :math:`\mathbf W`.
    initial_jitter : float, default=1e-10
        Relative jitter :func:`kmlib._linalg.cholesky` tries first if the plain factorisation
        fails.

    Returns
    -------
    L : ndarray of shape (m, m)
    """
    B = W_sqrt[:, np.newaxis] * K * W_sqrt[np.newaxis, :]
    B[np.diag_indices_from(B)] += 1.0
    return _linalg.cholesky(B, initial_jitter=initial_jitter)[0]
