r"""Loss functions of Chu (2003) and the noise models they imply.

Chu Wei, *Bayesian Approach to Support Vector Machines*, PhD thesis, National University of
Singapore (2003). Equation numbers in comments, e.g. ``# Chu (2.32)``, refer to the thesis.

Chapter 2.1 — classical regression losses of the residual :math:`\delta = y - f(\mathbf x)`:

* :func:`quadratic` :math:`\tfrac12\delta^2` (2.9) and :func:`laplacian` :math:`|\delta|` (2.24);
* :func:`huber` in the thesis's parameterisation (2.26): :math:`\delta^2/(4\epsilon)` for
  :math:`|\delta|\le 2\epsilon` and :math:`|\delta| - \epsilon` beyond (the threshold is
  :math:`2\epsilon`, not the textbook :math:`\epsilon` with :math:`\tfrac12\delta^2`);
* :func:`epsilon_insensitive` :math:`\max(0, |\delta| - \epsilon)` (2.27).

Chapter 2.2 — the soft insensitive loss function (SILF) :func:`silf` (2.28), with
:math:`0 < \beta \le 1` and :math:`\epsilon > 0`. It is zero on :math:`|\delta| < (1-\beta)
\epsilon`, quadratic, :math:`(|\delta| - (1-\beta)\epsilon)^2/(4\beta\epsilon)`, on the band
:math:`(1-\beta)\epsilon \le |\delta| \le (1+\beta)\epsilon`, and linear, :math:`|\delta| -
\epsilon`, beyond. It is :math:`C^1` (2.29) but not :math:`C^2` (2.30). Its limits are the
:math:`\epsilon`-insensitive loss (:math:`\beta\to0`), Huber's loss (2.26) (:math:`\beta=1`) and
the Laplacian loss (:math:`\epsilon\to0`).

The noise model of a loss (2.6) is :math:`p(\delta) = e^{-C\ell(\delta)}/Z`. For the SILF the
normaliser :math:`Z_S` (2.32), its gradient (Appendix E, (E.4)–(E.5)), the density (2.31), the
noise variance (2.33), the distribution function (F.1) and an inverse-distribution sampler
(Appendix F) are all in closed form here.

Section 2.2.2 reads the SILF noise as a Gaussian whose standard deviation :math:`\sigma` and mean
:math:`t` are independent random variables: :math:`\sigma` is Rayleigh (2.45),
:func:`rayleigh_scale_density`, and :math:`t` has the density :func:`silf_mixture_mean_density`
(2.48). Averaging :math:`\mathcal N(\delta; t, \sigma^2)` over :math:`\sigma` alone gives the
Laplace density :math:`\tfrac C2 e^{-C|\delta - t|}`, so the SILF density is the convolution of
that Laplace density with the density of :math:`t` (2.51).

Chapter 5 — the trigonometric loss of the Bayesian trigonometric SVC, a function of the margin
:math:`z = yf(\mathbf x)`: :func:`trigonometric` (5.7), its derivatives in :math:`z`
(5.9)–(5.10) and the likelihood :func:`trigonometric_likelihood` (5.8), which satisfies
:math:`L(z) + L(-z) = 1`.

Notes on the printed thesis (all checked numerically in ``tests/test_losses.py``):

* (2.31) writes the normaliser as :math:`1/Z_S = \int e^{-C\ell}`; it is :math:`Z_S = \int
  e^{-C\ell}\,d\delta`, as (2.32) evaluates.
* (2.49) drops the factor :math:`e^{-C\ell(t)}` that (2.48) implies, and the middle-band case of
  (2.50) inherits that and also carries a spurious factor :math:`C` on the squared term. The
  correct density of the mean, normalised, is

  .. math:: \lambda(t) = \frac{e^{-C\ell(t)}}{Z_S}\Big(1 - \ell'(t)^2 + \frac{\ell''(t)}{C}\Big),

  which is :math:`1/Z_S` on the flat zone, zero on the linear tails and, for :math:`\beta = 1`,
  the Huber form (2.52), which the thesis prints correctly.
"""

from __future__ import annotations

import numpy as np
from scipy.special import erf, erfinv

from ._validation import as_generator, check_real

__all__ = [
    "quadratic",
    "quadratic_derivative",
    "laplacian",
    "laplacian_derivative",
    "huber",
    "huber_derivative",
    "epsilon_insensitive",
    "epsilon_insensitive_derivative",
    "silf",
    "silf_derivative",
    "silf_second_derivative",
    "silf_normaliser",
    "silf_normaliser_gradient",
    "silf_density",
    "silf_noise_variance",
    "silf_cdf",
    "silf_quantile",
    "silf_noise",
    "silf_mixture_mean_density",
    "rayleigh_scale_density",
    "trigonometric",
    "trigonometric_derivative",
    "trigonometric_second_derivative",
    "trigonometric_likelihood",
]

_QUARTER_PI = 0.25 * np.pi
#: Half a step of the 2**-53 grid on which NumPy draws uniform numbers (see :func:`silf_noise`).
_HALF_GRID_STEP = 2.0**-54


# ------------------------------------------------------------------------------------ helpers
def _as_array(values, name):
    """``values`` as a float64 array (any shape), or a ValueError naming the argument."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real number or an array of them; {exc}") from None


def _result(out):
    """A float64 scalar for 0-d results, the array otherwise."""
    return out[()] if out.ndim == 0 else out


def _check_epsilon(epsilon, allow_zero=False):
    return check_real(epsilon, "epsilon", low=0, low_open=not allow_zero)


def _check_silf(epsilon, beta):
    """Validate the SILF shape parameters: epsilon > 0 and 0 < beta <= 1."""
    return _check_epsilon(epsilon), check_real(beta, "beta", low=0, high=1)


def _check_noise(C, epsilon, beta):
    """Validate the SILF noise-model parameters: C > 0, epsilon > 0 and 0 < beta <= 1."""
    return (check_real(C, "C", low=0), *_check_silf(epsilon, beta))


# -------------------------------------------------------------------- classical losses (2.1)
def quadratic(delta):
    r"""Quadratic loss :math:`\tfrac12\delta^2` (Chu (2.9); Gaussian noise with :math:`C =
    1/\sigma^2`).

    Parameters
    ----------
    delta : array_like of any shape
        Residuals :math:`y - f(\mathbf x)`.

    Returns
    -------
    loss : ndarray of the same shape as ``delta`` (a float for scalar input)

    Examples
    --------
    >>> from kmlib.losses import quadratic
    >>> quadratic([-2.0, 0.5, 1.0])
    array([2.   , 0.125, 0.5  ])
    """
    delta = _as_array(delta, "delta")
    return _result(0.5 * delta**2)


def quadratic_derivative(delta):
    r"""Derivative :math:`\delta` of :func:`quadratic` with respect to :math:`\delta`.

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.

    Returns
    -------
    derivative : ndarray of the same shape as ``delta``
        A copy of ``delta``.

    Examples
    --------
    >>> from kmlib.losses import quadratic_derivative
    >>> quadratic_derivative([-2.0, 0.5])
    array([-2. ,  0.5])
    """
    delta = _as_array(delta, "delta")
    return _result(delta.copy())


def laplacian(delta):
    r"""Laplacian loss :math:`|\delta|` (Chu (2.24); noise density :math:`\tfrac C2
    e^{-C|\delta|}`).

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.

    Returns
    -------
    loss : ndarray of the same shape as ``delta``
        :math:`|\delta|`.

    Examples
    --------
    >>> from kmlib.losses import laplacian
    >>> laplacian([-2.0, 0.5])
    array([2. , 0.5])
    """
    delta = _as_array(delta, "delta")
    return _result(np.abs(delta))


def laplacian_derivative(delta):
    r"""Derivative :math:`\operatorname{sign}\delta` of :func:`laplacian` (0 at the kink
    :math:`\delta = 0`, the middle of the subdifferential).

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.

    Returns
    -------
    derivative : ndarray of the same shape as ``delta``
        -1, 0 or +1.

    Examples
    --------
    >>> from kmlib.losses import laplacian_derivative
    >>> laplacian_derivative([-2.0, 0.0, 0.5])
    array([-1.,  0.,  1.])
    """
    delta = _as_array(delta, "delta")
    return _result(np.sign(delta))


def huber(delta, epsilon):
    r"""Huber's loss in the thesis's form (Chu (2.26)).

    .. math:: \ell_h(\delta) = \begin{cases} \delta^2/(4\epsilon) & |\delta| \le 2\epsilon\\
              |\delta| - \epsilon & |\delta| > 2\epsilon \end{cases}

    This is the SILF (2.28) with :math:`\beta = 1`. The usual textbook Huber loss with
    threshold :math:`k`, :math:`\tfrac12\delta^2` inside, is :math:`2\epsilon\,\ell_h` with
    :math:`k = 2\epsilon`.

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.
    epsilon : float
        Half the width of the quadratic zone; must be > 0.

    Returns
    -------
    loss : ndarray of the same shape as ``delta``

    Examples
    --------
    The quadratic zone is :math:`|\delta| \le 2\epsilon = 1` here:

    >>> from kmlib.losses import huber
    >>> huber([0.1, 1.0, 3.0], epsilon=0.5)
    array([0.005, 0.5  , 2.5  ])
    """
    epsilon = _check_epsilon(epsilon)
    size = np.abs(_as_array(delta, "delta"))
    return _result(np.where(size <= 2.0 * epsilon, size**2 / (4.0 * epsilon), size - epsilon))


def huber_derivative(delta, epsilon):
    r"""Derivative of :func:`huber`: :math:`\delta/(2\epsilon)` inside, :math:`\pm1` beyond.

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.
    epsilon : float
        Half the width of the quadratic zone, as in :func:`huber`; must be > 0.

    Returns
    -------
    derivative : ndarray of the same shape as ``delta``
        In [-1, 1].

    Examples
    --------
    >>> from kmlib.losses import huber_derivative
    >>> huber_derivative([0.1, 1.0, -3.0], epsilon=0.5)
    array([ 0.1,  1. , -1. ])
    """
    epsilon = _check_epsilon(epsilon)
    delta = _as_array(delta, "delta")
    inside = np.abs(delta) <= 2.0 * epsilon
    return _result(np.where(inside, delta / (2.0 * epsilon), np.sign(delta)))


def epsilon_insensitive(delta, epsilon):
    r"""Vapnik's :math:`\epsilon`-insensitive loss :math:`\max(0, |\delta| - \epsilon)` (Chu
    (2.27)).

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.
    epsilon : float
        Width of the insensitive zone; must be >= 0. Zero is allowed here (and only here among
        the :math:`\epsilon`-losses), because it is the Laplacian loss, the :math:`\epsilon\to0`
        limit of the thesis.

    Returns
    -------
    loss : ndarray of the same shape as ``delta``

    Examples
    --------
    >>> from kmlib.losses import epsilon_insensitive
    >>> epsilon_insensitive([0.25, -2.0], epsilon=0.5)
    array([0. , 1.5])
    """
    epsilon = _check_epsilon(epsilon, allow_zero=True)
    delta = _as_array(delta, "delta")
    return _result(np.maximum(np.abs(delta) - epsilon, 0.0))


def epsilon_insensitive_derivative(delta, epsilon):
    r"""Derivative of :func:`epsilon_insensitive`: 0 for :math:`|\delta| \le \epsilon`,
    :math:`\operatorname{sign}\delta` beyond.

    At the kinks :math:`|\delta| = \epsilon` the loss has no derivative; 0 is returned there (an
    end of the subdifferential).

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.
    epsilon : float
        Width of the insensitive zone, as in :func:`epsilon_insensitive`; must be >= 0.

    Returns
    -------
    derivative : ndarray of the same shape as ``delta``
        -1, 0 or +1.

    Examples
    --------
    >>> from kmlib.losses import epsilon_insensitive_derivative
    >>> epsilon_insensitive_derivative([0.25, -2.0], epsilon=0.5)
    array([ 0., -1.])
    """
    epsilon = _check_epsilon(epsilon, allow_zero=True)
    delta = _as_array(delta, "delta")
    return _result(np.where(np.abs(delta) > epsilon, np.sign(delta), 0.0))


# ------------------------------------------------------------------------------- SILF (2.2.1)
def silf(delta, epsilon, beta):
    r"""Soft insensitive loss function :math:`\ell_{\epsilon,\beta}` (Chu (2.28)).

    .. math:: \ell_{\epsilon,\beta}(\delta) = \begin{cases}
              0 & |\delta| < (1-\beta)\epsilon\\
              \dfrac{(|\delta| - (1-\beta)\epsilon)^2}{4\beta\epsilon} &
              (1-\beta)\epsilon \le |\delta| \le (1+\beta)\epsilon\\
              |\delta| - \epsilon & |\delta| > (1+\beta)\epsilon \end{cases}

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.
    epsilon : float
        Centre of the quadratic band; must be > 0.
    beta : float
        Half-width of the band relative to ``epsilon``, in (0, 1].

    Returns
    -------
    loss : ndarray of the same shape as ``delta``

    Examples
    --------
    With :math:`\epsilon = 1` and :math:`\beta = 1/2` the flat zone ends at 0.5 and the
    linear tails begin at 1.5:

    >>> from kmlib.losses import silf
    >>> silf([0.0, 1.0, 3.0], epsilon=1.0, beta=0.5)
    array([0.   , 0.125, 2.   ])
    """
    epsilon, beta = _check_silf(epsilon, beta)
    size = np.abs(_as_array(delta, "delta"))
    flat = (1.0 - beta) * epsilon
    band = np.maximum(size - flat, 0.0) ** 2 / (4.0 * beta * epsilon)  # Chu (2.28), middle
    return _result(np.where(size <= (1.0 + beta) * epsilon, band, size - epsilon))


def silf_derivative(delta, epsilon, beta):
    r"""First derivative of :func:`silf` in :math:`\delta` (Chu (2.29)).

    It is 0 on the flat zone, :math:`\pm(|\delta| - (1-\beta)\epsilon)/(2\beta\epsilon)` on the
    bands and :math:`\pm1` on the tails; the function is continuous.

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.
    epsilon, beta : float
        As in :func:`silf`.

    Returns
    -------
    derivative : ndarray of the same shape as ``delta``
        In [-1, 1].

    Examples
    --------
    >>> from kmlib.losses import silf_derivative
    >>> silf_derivative([0.0, 1.0, -3.0], epsilon=1.0, beta=0.5)
    array([ 0. ,  0.5, -1. ])
    """
    epsilon, beta = _check_silf(epsilon, beta)
    delta = _as_array(delta, "delta")
    size = np.abs(delta)
    slope = np.minimum(np.maximum(size - (1.0 - beta) * epsilon, 0.0) / (2.0 * beta * epsilon), 1.0)
    return _result(np.sign(delta) * slope)


def silf_second_derivative(delta, epsilon, beta):
    r"""Second derivative of :func:`silf` (Chu (2.30)): :math:`1/(2\beta\epsilon)` on the closed
    bands :math:`(1-\beta)\epsilon \le |\delta| \le (1+\beta)\epsilon`, 0 elsewhere.

    The loss is not twice differentiable at the four band edges; the band value is returned
    there.

    Parameters
    ----------
    delta : array_like of any shape
        Residuals.
    epsilon, beta : float
        As in :func:`silf`.

    Returns
    -------
    second_derivative : ndarray of the same shape as ``delta``
        :math:`1/(2\beta\epsilon)` or 0.

    Examples
    --------
    >>> from kmlib.losses import silf_second_derivative
    >>> silf_second_derivative([0.0, 1.0, 3.0], epsilon=1.0, beta=0.5)
    array([0., 1., 0.])
    """
    epsilon, beta = _check_silf(epsilon, beta)
    size = np.abs(_as_array(delta, "delta"))
    in_band = (size >= (1.0 - beta) * epsilon) & (size <= (1.0 + beta) * epsilon)
    return _result(np.where(in_band, 1.0 / (2.0 * beta * epsilon), 0.0))


# ------------------------------------------------------------------- SILF noise model (2.2.1)
def _band_mass(C, epsilon, beta):
    r""":math:`\int` of :math:`e^{-C\ell}` over one quadratic band: :math:`\sqrt{\pi\beta\epsilon/
    C}\,\operatorname{erf}(\sqrt{C\beta\epsilon})` (a truncated Gaussian integral)."""
    return np.sqrt(np.pi * beta * epsilon / C) * erf(np.sqrt(C * beta * epsilon))


def silf_normaliser(C, epsilon, beta):
    r"""Normaliser :math:`Z_S = \int e^{-C\ell_{\epsilon,\beta}(\delta)}\,d\delta` (Chu (2.32)).

    .. math:: Z_S = 2(1-\beta)\epsilon + 2\sqrt{\frac{\pi\beta\epsilon}{C}}\,
              \operatorname{erf}\big(\sqrt{C\beta\epsilon}\big) + \frac2C e^{-C\beta\epsilon}

    The three terms are the flat zone, the two bands and the two exponential tails.

    Parameters
    ----------
    C : float
        Scale of the loss in the likelihood (noise precision-like); must be > 0.
    epsilon : float
        Must be > 0.
    beta : float
        In (0, 1].

    Returns
    -------
    Z : float

    Examples
    --------
    >>> from kmlib.losses import silf_normaliser
    >>> round(silf_normaliser(C=1.0, epsilon=1.0, beta=0.5), 4)
    3.9243
    """
    C, epsilon, beta = _check_noise(C, epsilon, beta)
    return float(
        2.0 * (1.0 - beta) * epsilon  # Chu (2.32): flat zone
        + 2.0 * _band_mass(C, epsilon, beta)  # the two bands
        + 2.0 * np.exp(-C * beta * epsilon) / C  # the two tails
    )


def silf_normaliser_gradient(C, epsilon, beta):
    r"""Partial derivatives :math:`(\partial Z_S/\partial C, \partial Z_S/\partial\epsilon)`.

    .. math:: \frac{\partial Z_S}{\partial C} = -\sqrt{\pi\beta\epsilon}\,C^{-3/2}
              \operatorname{erf}(\sqrt{C\beta\epsilon}) - \frac{2}{C^2}e^{-C\beta\epsilon},
              \qquad
              \frac{\partial Z_S}{\partial\epsilon} = 2(1-\beta) + \sqrt{\frac{\pi\beta}{C\epsilon}}
              \operatorname{erf}(\sqrt{C\beta\epsilon})

    (Chu (E.4)–(E.5); the Gaussian-density terms from differentiating the erf cancel against
    those of the tails.)

    Parameters
    ----------
    C, epsilon, beta : float
        As in :func:`silf_normaliser`.

    Returns
    -------
    dZ_dC : float
        Negative: a larger :math:`C` concentrates the density.
    dZ_depsilon : float
        Positive: a wider insensitive zone spreads it.

    Examples
    --------
    >>> from kmlib.losses import silf_normaliser_gradient
    >>> dZ_dC, dZ_depsilon = silf_normaliser_gradient(C=1.0, epsilon=1.0, beta=0.5)
    >>> round(dZ_dC, 4), round(dZ_depsilon, 4)
    (-2.0687, 1.8556)
    """
    C, epsilon, beta = _check_noise(C, epsilon, beta)
    band = _band_mass(C, epsilon, beta)
    dZ_dC = -band / C - 2.0 * np.exp(-C * beta * epsilon) / C**2  # Chu (E.4)
    dZ_deps = 2.0 * (1.0 - beta) + band / epsilon  # Chu (E.5)
    return float(dZ_dC), float(dZ_deps)


def silf_density(delta, C, epsilon, beta):
    r"""Noise density :math:`p(\delta) = e^{-C\ell_{\epsilon,\beta}(\delta)}/Z_S` (Chu (2.31)).

    Parameters
    ----------
    delta : array_like of any shape
    C, epsilon, beta : float
        As in :func:`silf_normaliser`.

    Returns
    -------
    density : ndarray of the same shape as ``delta``

    Examples
    --------
    The density integrates to one:

    >>> import numpy as np
    >>> from scipy.integrate import quad
    >>> from kmlib.losses import silf_density
    >>> total, _ = quad(silf_density, -np.inf, np.inf, args=(1.0, 1.0, 0.5))
    >>> round(total, 6)
    1.0
    """
    Z = silf_normaliser(C, epsilon, beta)
    return _result(np.exp(-C * np.asarray(silf(delta, epsilon, beta))) / Z)


def silf_noise_variance(C, epsilon, beta):
    r"""Variance :math:`\sigma_n^2 = \int\delta^2 p(\delta)\,d\delta` of the SILF noise (Chu
    (2.33)); the mean is 0 by symmetry.

    .. math:: \sigma_n^2 = \frac{2}{Z_S}\Big[\frac{(1-\beta)^3\epsilon^3}{3}
              + \Big((1-\beta)^2\epsilon^2 + \frac{2\beta\epsilon}{C}\Big)
              \sqrt{\frac{\pi\beta\epsilon}{C}}\operatorname{erf}(\sqrt{C\beta\epsilon})
              + \frac{4(1-\beta)\beta\epsilon^2}{C}
              + \Big(\frac{(1-\beta)^2\epsilon^2}{C} + \frac{2(1+\beta)\epsilon}{C^2}
              + \frac{2}{C^3}\Big)e^{-C\beta\epsilon}\Big]

    Every term is positive, so there is no cancellation.

    Parameters
    ----------
    C, epsilon, beta : float
        As in :func:`silf_normaliser`.

    Returns
    -------
    variance : float

    Examples
    --------
    The noise of the thesis's sinc experiment (4.5.1), whose variance it gives as 0.026785:

    >>> from kmlib.losses import silf_noise_variance
    >>> round(silf_noise_variance(C=10.0, epsilon=0.1, beta=0.3), 4)
    0.0268
    """
    C, epsilon, beta = _check_noise(C, epsilon, beta)
    flat = (1.0 - beta) * epsilon
    tail = np.exp(-C * beta * epsilon)
    half_second_moment = (  # Chu (2.33), the integral over delta > 0 times Z_S
        flat**3 / 3.0
        + (flat**2 + 2.0 * beta * epsilon / C) * _band_mass(C, epsilon, beta)
        + 4.0 * flat * beta * epsilon / C
        + (flat**2 / C + 2.0 * (1.0 + beta) * epsilon / C**2 + 2.0 / C**3) * tail
    )
    return float(2.0 * half_second_moment / silf_normaliser(C, epsilon, beta))


def _lower_cdf(size, C, epsilon, beta, Z):
    r""":math:`F(-|\delta|)`, the mass below :math:`-|\delta|` (Chu (F.1), lower half)."""
    flat = (1.0 - beta) * epsilon
    in_tail = size > (1.0 + beta) * epsilon
    tail = np.exp(-C * (np.where(in_tail, size, (1.0 + beta) * epsilon) - epsilon)) / (C * Z)
    band_arg = np.sqrt(C / (4.0 * beta * epsilon)) * np.maximum(size - flat, 0.0)
    band = np.sqrt(np.pi * beta * epsilon / C) * erf(band_arg)
    central = 0.5 - (np.minimum(size, flat) + band) / Z  # flat zone and band, F.1
    return np.where(in_tail, tail, central)


def silf_cdf(delta, C, epsilon, beta):
    r"""Distribution function :math:`F(\delta) = \int_{-\infty}^\delta p(u)\,du` of the SILF noise
    (Chu (F.1)).

    On the lower tail :math:`F = e^{C(\delta+\epsilon)}/(CZ_S)`; on the lower band and the flat
    zone :math:`F = \tfrac12 - [\min(|\delta|, (1-\beta)\epsilon) +
    \sqrt{\pi\beta\epsilon/C}\operatorname{erf}(\sqrt{C/(4\beta\epsilon)}\,(|\delta| -
    (1-\beta)\epsilon)_+)]/Z_S`; the upper half follows from :math:`F(\delta) = 1 - F(-\delta)`.

    Parameters
    ----------
    delta : array_like of any shape
    C, epsilon, beta : float
        As in :func:`silf_normaliser`.

    Returns
    -------
    F : ndarray of the same shape as ``delta``
        Probabilities, with :math:`F(0) = 1/2`.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.losses import silf_cdf
    >>> np.round(silf_cdf([-1.0, 0.0, 1.0], C=1.0, epsilon=1.0, beta=0.5), 4)
    array([0.2503, 0.5   , 0.7497])
    """
    Z = silf_normaliser(C, epsilon, beta)
    delta = _as_array(delta, "delta")
    lower = _lower_cdf(np.abs(delta), C, epsilon, beta, Z)
    return _result(np.where(delta <= 0, lower, 1.0 - lower))


def _lower_quantile(p, C, epsilon, beta, Z):
    r"""The :math:`\delta \le 0` with :math:`F(\delta) = p`, for :math:`0 \le p \le \tfrac12`
    (the inverse of (F.1) on the lower half)."""
    flat = (1.0 - beta) * epsilon
    tail_mass = np.exp(-C * beta * epsilon) / (C * Z)  # F(-(1+beta) epsilon)
    inner = (0.5 - p) * Z  # mass between delta and 0, times Z
    # lower tail: p = exp(C (delta + epsilon)) / (C Z)
    with np.errstate(divide="ignore"):
        tail = np.log(np.where(p < tail_mass, p, tail_mass) * C * Z) / C - epsilon
    # band: inner = flat + band_mass(erf argument); invert the erf
    ratio = np.clip((inner - flat) / np.sqrt(np.pi * beta * epsilon / C), 0.0, 1.0)
    band = -(flat + np.sqrt(4.0 * beta * epsilon / C) * erfinv(ratio))
    band = np.clip(band, -(1.0 + beta) * epsilon, -flat)
    out = np.where(inner <= flat, -inner, band)
    return np.where(p < tail_mass, tail, out)


def silf_quantile(u, C, epsilon, beta):
    r"""Inverse :math:`F^{-1}(u)` of :func:`silf_cdf` in closed form (Chu, Appendix F).

    With :math:`u_1 = e^{-C\beta\epsilon}/(CZ_S)` the mass of the lower tail and
    :math:`m = (\tfrac12 - u)Z_S` for :math:`u \le \tfrac12`:

    * :math:`u < u_1`: :math:`\delta = \ln(uCZ_S)/C - \epsilon`;
    * :math:`m \le (1-\beta)\epsilon`: :math:`\delta = -m`;
    * otherwise :math:`\delta = -(1-\beta)\epsilon - \sqrt{4\beta\epsilon/C}\,\operatorname{erfinv}
      \big((m - (1-\beta)\epsilon)/\sqrt{\pi\beta\epsilon/C}\big)`;

    and :math:`F^{-1}(u) = -F^{-1}(1-u)` for :math:`u > \tfrac12`.

    Parameters
    ----------
    u : array_like of any shape
        Probabilities in [0, 1]; 0 and 1 give -inf and +inf.
    C, epsilon, beta : float
        As in :func:`silf_normaliser`.

    Returns
    -------
    delta : ndarray of the same shape as ``u``
        Residuals with :math:`F(\delta) = u`.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.losses import silf_cdf, silf_quantile
    >>> delta = np.array([-3.0, -0.2, 0.7, 1.2])
    >>> u = silf_cdf(delta, C=1.0, epsilon=1.0, beta=0.5)
    >>> np.allclose(silf_quantile(u, C=1.0, epsilon=1.0, beta=0.5), delta)
    True
    """
    Z = silf_normaliser(C, epsilon, beta)
    u = _as_array(u, "u")
    if np.any((u < 0) | (u > 1)) or np.any(np.isnan(u)):
        raise ValueError("u must hold probabilities in [0, 1]")
    lower = u <= 0.5
    tail_probability = np.where(lower, u, 1.0 - u)
    delta = _lower_quantile(tail_probability, C, epsilon, beta, Z)
    return _result(np.where(lower, delta, -delta))


def silf_noise(C, epsilon, beta, size, random_state=None):
    r"""Draw SILF noise by the inverse-distribution method (Chu, Appendix F).

    Each draw is :math:`F^{-1}(u)` (:func:`silf_quantile`) of a uniform :math:`u`. NumPy's uniform
    numbers lie on the grid :math:`k\,2^{-53}`, :math:`k = 0, \dots, 2^{53}-1`; each is moved to the
    middle of its grid cell (exactly, by working with the smaller tail probability), so that no
    draw is :math:`F^{-1}(0) = -\infty` and the two tails are treated alike.

    Parameters
    ----------
    C, epsilon, beta : float
        As in :func:`silf_normaliser`.
    size : int or tuple of int
        Shape of the output.
    random_state : int, Generator, RandomState or None, default=None
        Seed or generator of the uniform numbers; ``None`` draws fresh entropy.

    Returns
    -------
    delta : ndarray of shape ``size``

    Examples
    --------
    The sample variance of many draws is close to :func:`silf_noise_variance`:

    >>> from kmlib.losses import silf_noise, silf_noise_variance
    >>> delta = silf_noise(10.0, 0.1, 0.3, size=100_000, random_state=0)
    >>> delta.shape
    (100000,)
    >>> bool(abs(delta.var() / silf_noise_variance(10.0, 0.1, 0.3) - 1) < 0.02)
    True
    """
    Z = silf_normaliser(C, epsilon, beta)
    rng = as_generator(random_state)
    u = rng.uniform(0.0, 1.0, size)
    lower = u < 0.5
    # lower: tail mass u + 2**-54 (exact for u < 1/2); upper: 1 - u - 2**-54 (exact for u >= 1/2)
    tail_probability = np.where(lower, u + _HALF_GRID_STEP, (1.0 - u) - _HALF_GRID_STEP)
    delta = _lower_quantile(tail_probability, C, epsilon, beta, Z)
    return np.where(lower, delta, -delta)


# ------------------------------------------------------------- Gaussian scale mixture (2.2.2)
def rayleigh_scale_density(sigma, C):
    r"""Density of the noise standard deviation in the scale-mixture reading, :math:`\mu(\sigma) =
    C^2\sigma e^{-C^2\sigma^2/2}` for :math:`\sigma \ge 0` (Chu (2.45)), 0 for :math:`\sigma < 0`.

    It is the same for every member of the SILF family (it depends on :math:`C` only), and
    :math:`\int_0^\infty\mathcal N(\tau; 0, \sigma^2)\mu(\sigma)\,d\sigma = \tfrac C2e^{-C|\tau|}`
    (Chu (2.44)).

    Parameters
    ----------
    sigma : array_like of any shape
        Values of the standard deviation.
    C : float
        Scale of the loss, as in :func:`silf_normaliser`; must be > 0.

    Returns
    -------
    density : ndarray of the same shape as ``sigma``

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.losses import rayleigh_scale_density
    >>> np.round(rayleigh_scale_density([-1.0, 0.0, 1.0], C=1.0), 4)
    array([0.    , 0.    , 0.6065])
    """
    C = check_real(C, "C", low=0)
    sigma = _as_array(sigma, "sigma")
    density = C**2 * sigma * np.exp(-0.5 * (C * sigma) ** 2)
    return _result(np.where(sigma >= 0, density, 0.0))


def silf_mixture_mean_density(t, C, epsilon, beta):
    r"""Normalised density :math:`\lambda(t)` of the noise mean in the scale-mixture reading.

    From (Chu (2.48)), :math:`\lambda = (C^2g - g'')/(C^2Z_S)` with :math:`g = e^{-C\ell}`, i.e.

    .. math:: \lambda(t) = \frac{e^{-C\ell(t)}}{Z_S}\Big(1 - \ell'(t)^2 + \frac{\ell''(t)}{C}\Big)
              = \frac1{Z_S}\begin{cases} 1 & |t| < (1-\beta)\epsilon\\
              e^{-Cs^2\beta\epsilon}\big(1 + \frac{1}{2\beta\epsilon C} - s^2\big)
              & (1-\beta)\epsilon \le |t| \le (1+\beta)\epsilon\\ 0 & \text{otherwise}
              \end{cases}

    with :math:`s = (|t| - (1-\beta)\epsilon)/(2\beta\epsilon) \in [0, 1]`. It is non-negative,
    integrates to one (because :math:`g'` vanishes at :math:`\pm\infty`) and jumps at the band
    edges. Convolved with the Laplace density :math:`\tfrac C2e^{-C|\cdot|}` it gives the SILF
    density (Chu (2.51)). This corrects the printed (2.49)–(2.50), which lose the factor
    :math:`e^{-C\ell(t)}` (see the module docstring); for :math:`\beta = 1` it is Chu (2.52).

    Parameters
    ----------
    t : array_like of any shape
        Values of the mean.
    C, epsilon, beta : float
        As in :func:`silf_normaliser`.

    Returns
    -------
    density : ndarray of the same shape as ``t``

    Examples
    --------
    :math:`1/Z_S` on the flat zone, zero on the tails, and one in total:

    >>> import numpy as np
    >>> from scipy.integrate import quad
    >>> from kmlib.losses import silf_mixture_mean_density
    >>> np.round(silf_mixture_mean_density([0.0, 1.0, 2.0], C=1.0, epsilon=1.0, beta=0.5), 4)
    array([0.2548, 0.3935, 0.    ])
    >>> total, _ = quad(silf_mixture_mean_density, -2.0, 2.0, args=(1.0, 1.0, 0.5),
    ...                 points=[-1.5, -0.5, 0.5, 1.5])
    >>> round(total, 6)
    1.0
    """
    Z = silf_normaliser(C, epsilon, beta)
    t = _as_array(t, "t")
    size = np.abs(t)
    s = (size - (1.0 - beta) * epsilon) / (2.0 * beta * epsilon)
    in_band = (s >= 0) & (size <= (1.0 + beta) * epsilon)
    s = np.clip(s, 0.0, 1.0)
    band = np.exp(-C * beta * epsilon * s**2) * (1.0 + 1.0 / (2.0 * beta * epsilon * C) - s**2)
    density = np.where(in_band, band, np.where(s <= 0, 1.0, 0.0))  # Chu (2.48), normalised
    return _result(density / Z)


# ------------------------------------------------------------------ trigonometric loss (ch. 5)
def _on_margins(z, inside, at_one, at_minus_one):
    r"""A function of the margin ``z``: ``inside(zc)`` for :math:`-1 < z < 1`, where ``zc`` is
    ``z`` clipped to [-1, 1], ``at_one`` for :math:`z \ge 1` and ``at_minus_one`` for
    :math:`z \le -1`; a float for scalar ``z``."""
    z = _as_array(z, "z")
    zc = np.clip(z, -1.0, 1.0)
    with np.errstate(divide="ignore"):
        values = inside(zc)
    return _result(np.where(z >= 1, at_one, np.where(z <= -1, at_minus_one, values)))


def _trigonometric_inside(zc):
    """The trigonometric loss on -1 < z < 1, each branch where it is accurate."""
    near_one = -np.log1p(-(np.sin(_QUARTER_PI * (1.0 - zc)) ** 2))
    near_minus_one = -2.0 * np.log(np.sin(_QUARTER_PI * (1.0 + zc)))
    return np.where(zc >= 0, near_one, near_minus_one)  # Chu (5.7)


def trigonometric(z):
    r"""Trigonometric loss of the margin :math:`z = yf(\mathbf x)` (Chu (5.7)).

    .. math:: \ell_t(z) = \begin{cases} +\infty & z \le -1\\
              2\ln\sec\big(\tfrac\pi4(1-z)\big) & -1 < z < 1\\ 0 & z \ge 1\end{cases}

    Computed as :math:`-\log(1 - \sin^2(\tfrac\pi4(1-z)))` for :math:`z \ge 0`, accurate near
    :math:`z = 1`, and as :math:`-2\ln\sin(\tfrac\pi4(1+z))` (the same number, since
    :math:`\cos(\tfrac\pi4(1-z)) = \sin(\tfrac\pi4(1+z))`) for :math:`z < 0`, accurate near
    :math:`z = -1`.

    Parameters
    ----------
    z : array_like of any shape
        Margins :math:`y f(\mathbf x)` with :math:`y \in \{-1, +1\}`.

    Returns
    -------
    loss : ndarray of the same shape as ``z``
        In :math:`[0, \infty]`.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.losses import trigonometric
    >>> np.round(trigonometric([-1.0, 0.0, 0.5, 1.0]), 4)
    array([   inf, 0.6931, 0.1583, 0.    ])
    """
    return _on_margins(z, _trigonometric_inside, 0.0, np.inf)


def _tan_quarter(z):
    r""":math:`\tan(\tfrac\pi4(1-z))` as :math:`\sin(\tfrac\pi4(1-z))/\sin(\tfrac\pi4(1+z))`,
    both arguments in :math:`(0, \tfrac\pi2)` for :math:`-1 < z < 1`."""
    return np.sin(_QUARTER_PI * (1.0 - z)) / np.sin(_QUARTER_PI * (1.0 + z))


def trigonometric_derivative(z):
    r"""Derivative of :func:`trigonometric` with respect to the margin :math:`z = yf`.

    .. math:: \frac{d\ell_t}{dz} = -\frac\pi2\tan\big(\tfrac\pi4(1-z)\big)\ \ (-1 < z < 1),
              \qquad 0\ \ (z \ge 1)

    The derivative in :math:`f` (Chu (5.9)) is :math:`y\,d\ell_t/dz`. For :math:`z \le -1`, where
    the loss is infinite, ``-inf`` (the limit from the right) is returned.

    Parameters
    ----------
    z : array_like of any shape
        Margins :math:`y f(\mathbf x)`.

    Returns
    -------
    derivative : ndarray of the same shape as ``z``
        Non-positive: a larger margin never costs more.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.losses import trigonometric_derivative
    >>> np.round(trigonometric_derivative([0.0, 0.5, 1.0]), 4)
    array([-1.5708, -0.6506,  0.    ])
    """
    return _on_margins(
        z, lambda zc: -0.5 * np.pi * _tan_quarter(zc), 0.0, -np.inf  # Chu (5.9) with y f = z
    )


def trigonometric_second_derivative(z):
    r"""Second derivative of :func:`trigonometric` with respect to :math:`z = yf`.

    .. math:: \frac{d^2\ell_t}{dz^2} = \frac{\pi^2}8\sec^2\big(\tfrac\pi4(1-z)\big)\ \
              (-1 < z < 1), \qquad 0\ \ (z \ge 1)

    Because :math:`y^2 = 1` this is also the second derivative in :math:`f` (Chu (5.10)). It
    jumps from :math:`\pi^2/8` to 0 at :math:`z = 1`, where 0 is returned; ``inf`` for
    :math:`z \le -1`.

    Parameters
    ----------
    z : array_like of any shape
        Margins :math:`y f(\mathbf x)`.

    Returns
    -------
    second_derivative : ndarray of the same shape as ``z``
        Non-negative: the loss is convex.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.losses import trigonometric_second_derivative
    >>> np.round(trigonometric_second_derivative([0.0, 0.5, 1.0]), 4)
    array([2.4674, 1.4454, 0.    ])
    """
    return _on_margins(
        z, lambda zc: np.pi**2 / 8.0 / np.sin(_QUARTER_PI * (1.0 + zc)) ** 2, 0.0, np.inf
    )  # Chu (5.10)


def trigonometric_likelihood(z):
    r"""Trigonometric likelihood :math:`P(y\mid f) = e^{-\ell_t(yf)}` of the margin (Chu (5.8)).

    .. math:: L(z) = \begin{cases} 0 & z \le -1\\ \cos^2\big(\tfrac\pi4(1-z)\big) & -1 < z < 1\\
              1 & z \ge 1\end{cases}

    It is normalised over the two classes: :math:`L(z) + L(-z) = 1`, because
    :math:`\cos^2(\tfrac\pi4(1+z)) = \sin^2(\tfrac\pi4(1-z))`.

    Parameters
    ----------
    z : array_like of any shape
        Margins :math:`y f(\mathbf x)`.

    Returns
    -------
    likelihood : ndarray of the same shape as ``z``
        Probabilities in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.losses import trigonometric_likelihood
    >>> z = np.array([-0.5, 0.0, 0.5])
    >>> np.round(trigonometric_likelihood(z), 4)
    array([0.1464, 0.5   , 0.8536])
    >>> trigonometric_likelihood(z) + trigonometric_likelihood(-z)
    array([1., 1., 1.])
    """

    def inside(zc):
        return np.where(
            zc >= 0,
            1.0 - np.sin(_QUARTER_PI * (1.0 - zc)) ** 2,
            np.sin(_QUARTER_PI * (1.0 + zc)) ** 2,
        )  # Chu (5.8)

    return _on_margins(z, inside, 1.0, 0.0)
