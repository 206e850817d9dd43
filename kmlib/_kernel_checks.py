r"""How every estimator takes a kernel and calls it.

* :func:`check_kernel` turns the ``kernel`` argument into the estimator's ``kernel_``: the
  default when it is ``None``, a clear error when it is not a kernel, and always a copy, so that
  changing the user's object after ``fit`` cannot change a fitted model.
* :func:`evaluate_kernel` and :func:`kernel_diagonal` call a kernel and check what comes back
  (finite, of the right shape), at fit and at predict time alike, so that a faulty kernel gives
  an error that names it instead of a silent NaN or a solver that never stops. The check itself
  is ``kmlib.kernels._checked``, which :func:`kmlib.kernels.design_matrix`, the design matrix of
  kernel machines, applies too.
* :func:`warn_if_constant` warns when a fitted kernel gives every pair of training points the
  same value: the inputs' scale is then far below the kernel's, and the model can only fit a
  constant (what a Gaussian process does on inputs multiplied by 1e-8).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from sklearn.base import clone

from .kernels import Kernel, _checked, _describe

__all__ = [
    "check_kernel",
    "evaluate_kernel",
    "kernel_diagonal",
    "warn_if_constant",
]

#: A Gram matrix whose entries all agree to this relative precision cannot tell points apart.
CONSTANT_GRAM = 1e-8


def check_kernel(kernel, default, *, callables=True, names=()):
    """The estimator's own copy of ``kernel``, or the default.

    Parameters
    ----------
    kernel : kmlib kernel, callable, str or None
        What the user passed as ``kernel``.
    default : callable
        ``default()`` builds the kernel used when ``kernel`` is None.
    callables : bool, default=True
        Accept any callable ``k(A, B)`` besides kmlib kernels.
    names : tuple of str, default=()
        Strings accepted as they are (``"precomputed"``).

    Returns
    -------
    kernel_ : kmlib kernel, callable or str
        A clone of a kmlib kernel, a deep copy of another callable (the callable itself when it
        cannot be copied), or the accepted string.

    Raises
    ------
    ValueError
        If ``kernel`` is none of the accepted kinds.
    """
    if kernel is None:
        return default()
    if isinstance(kernel, str) and kernel in names:
        return kernel
    if isinstance(kernel, Kernel):
        return clone(kernel)
    if callables and callable(kernel) and not isinstance(kernel, (str, type)):
        try:
            return copy.deepcopy(kernel)
        except (TypeError, copy.Error):
            return kernel
    kinds = ["a kmlib kernel"] + (["a callable k(X, Y)"] if callables else [])
    kinds += [repr(name) for name in names] + ["None"]
    hint = (
        "; kmlib takes kernel objects, not names: for example kmlib.kernels.RBF(lengthscale=1.0)"
        if isinstance(kernel, str)
        else ""
    )
    raise ValueError(
        f"kernel must be {', '.join(kinds[:-1])} or {kinds[-1]}; got {_describe(kernel)}{hint}"
    )


def evaluate_kernel(kernel, X, Y=None, *, eval_gradient=False):
    """``k(X, Y)``, or the Gram matrix of ``X`` when ``Y`` is None, checked.

    Parameters
    ----------
    kernel : kmlib kernel or callable
        A plain callable is called as ``kernel(X, Y)`` (``kernel(X, X)`` for the Gram matrix).
    X : array_like of shape (n, d)
        First set of inputs.
    Y : array_like of shape (m, d), default=None
        Second set of inputs; ``None`` gives the Gram matrix of ``X``.
    eval_gradient : bool, default=False
        Also return the derivatives with respect to ``kernel.theta`` (kmlib kernels only).

    Returns
    -------
    K : ndarray of shape (n, m)
    dK : ndarray of shape (n, n, n_theta)
        Only with ``eval_gradient=True``.

    Raises
    ------
    ValueError
        If the kernel returns something that is not a finite numeric array of the right shape.
    """
    gram = Y is None
    if eval_gradient:
        out = kernel(X, eval_gradient=True)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise ValueError(
                f"the kernel {_describe(kernel)} must return (K, dK) with eval_gradient=True; "
                f"it returned {type(out).__name__}"
            )
        K, dK = out
    elif isinstance(kernel, Kernel):
        K = kernel(X) if gram else kernel(X, Y)
    else:
        K = kernel(X, X if gram else Y)
    n = len(X)
    m = n if gram else len(Y)
    K = _checked(kernel, K, (n, m), "the Gram matrix of X" if gram else "k(X, Y)")
    if not eval_gradient:
        return K
    dK = _checked(kernel, dK, (n, n, len(kernel.theta)), "the gradient of the Gram matrix")
    return K, dK


def kernel_diagonal(kernel, X):
    """``k(x, x)`` for every row of ``X``, checked, without the whole Gram matrix.

    Parameters
    ----------
    kernel : kmlib kernel
        A kernel with a ``diag`` method.
    X : array_like of shape (n, d)
        Inputs.

    Returns
    -------
    ndarray of shape (n,)
        ``k(x_i, x_i)`` for every row ``x_i`` of ``X``.
    """
    return _checked(kernel, kernel.diag(X), (len(X),), "its diagonal k(x, x)")


def warn_if_constant(K, model):
    """Warn with ``UserWarning`` if the Gram matrix ``K`` of the training inputs is constant.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        The kernel's Gram matrix at the fitted hyperparameters (without noise terms).
    model : str
        Name of the estimator, for the message.
    """
    if K.shape[0] > 1 and np.ptp(K) <= CONSTANT_GRAM * np.max(np.abs(K)):
        warnings.warn(
            f"{model}: the kernel gives every pair of training inputs the same value, so the "
            "model cannot tell them apart and fits a constant; the inputs may vary on a much "
            "smaller scale than the kernel's length-scale: rescale X (or widen the kernel's "
            "limits)",
            UserWarning,
            stacklevel=3,
        )
