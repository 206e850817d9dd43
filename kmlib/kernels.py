r"""Kernel functions and the rules that build new kernels from old (PRML 6.2, MLAPP 14.2).

A kernel object ``k`` is called like a function of two sets of points:

* ``k(X)`` is the Gram matrix :math:`K_{nm} = k(\mathbf x_n, \mathbf x_m)` of PRML (6.6);
* ``k(X, Y)`` is the cross matrix between two sets (so a kmlib kernel is a valid ``kernel=``
  callable for scikit-learn's SVMs);
* ``k(X, eval_gradient=True)`` also returns the derivatives of the Gram matrix with respect to the
  log hyperparameters, an array of shape ``(n, n, len(k.theta))``;
* ``k.diag(X)`` is the diagonal of ``k(X)`` without forming the matrix.

Hyperparameters are ordinary attributes (``k.lengthscale``) and, for optimisers, a vector of
their logarithms ``k.theta`` with box constraints ``k.bounds``. ``k1 + k2``, ``k1 * k2`` and
``c * k`` build new valid kernels by PRML (6.17), (6.18) and (6.13); the classes at the end of
the module implement the other rules (6.14)–(6.16) and (6.19)–(6.22).
"""

from __future__ import annotations

import functools
import inspect
import numbers
from typing import NamedTuple

import numpy as np
from scipy.spatial.distance import cdist
from scipy.special import gammaln, kve, logsumexp

from ._validation import (
    all_finite,
    as_inputs,
    check_matching_features,
    check_positive,
    check_symmetric,
)

__all__ = [
    "Kernel",
    "Linear",
    "Polynomial",
    "RBF",
    "Matern",
    "Exponential",
    "RationalQuadratic",
    "Periodic",
    "Constant",
    "White",
    "PRMLKernel",
    "ArcSine",
    "Sigmoid",
    "Sum",
    "Product",
    "Modulated",
    "PolynomialOf",
    "ExpOf",
    "FeatureMapped",
    "Bilinear",
    "Subspace",
    "design_matrix",
]

#: Range allowed to a hyperparameter while it is optimised, in natural units.
DEFAULT_LIMITS = (1e-5, 1e5)
#: Squared distances below this fraction of the two squared norms are recomputed from the
#: differences: there the matrix-product form has lost more than about four of its digits.
CLOSE_PAIRS = 1e-4
#: Inputs with at least this many features get their distances from a matrix product.
BLAS_MIN_FEATURES = 32


class Hyperparameter(NamedTuple):
    """A positive kernel parameter that ``theta`` holds as its logarithm.

    Parameters
    ----------
    name : str
        The kernel's attribute that holds the value.
    may_be_zero : bool, default=False
        Marks an additive term (a bias, say) that the value 0 switches off; a zero has no
        logarithm, so such a term is then held fixed and left out of ``theta``.
    """

    name: str
    may_be_zero: bool = False


class _Values(dict):
    """Checked hyperparameter values, readable as attributes (``h.lengthscale``)."""

    __getattr__ = dict.__getitem__


def _finite_values(evaluate):
    """Decorate a kernel's ``__call__`` or ``diag``: NaN or infinite values are an error.

    Every check of the inputs has passed by then, so such values come from the kernel's own
    arithmetic, an overflow of float64 (``x^T x'`` of inputs near 1e160, ``2**|A & B|`` of
    large sets, the density of a nearly singular Gaussian): there is no float64 value to
    return, and a matrix that holds inf or NaN would only move the failure to whatever uses it
    (two such evaluations, ``k(X)`` and ``k.diag(X)``, need not even agree). The message says
    what to change instead (``_overflow_advice``); numpy's overflow warnings, which the error
    replaces, are silenced.
    """

    @functools.wraps(evaluate)
    def checked(kernel, X, *args, **kwargs):
        with np.errstate(over="ignore", invalid="ignore"):
            out = evaluate(kernel, X, *args, **kwargs)
        for value in out if isinstance(out, tuple) else (out,):
            floats = isinstance(value, np.ndarray) and value.dtype.kind == "f"
            if floats and not all_finite(value):
                Y = args[0] if args else kwargs.get("Y")
                call = "k(X)" if Y is None else "k(X, Y)"
                what = "k.diag(X)" if evaluate.__name__ == "diag" else call
                raise ValueError(
                    f"the kernel {kernel!r} has no finite value for {what} (float64 overflows): "
                    f"{kernel._overflow_advice}"
                )
        return out

    return checked


class Kernel:
    """Base class of kmlib kernels.

    A subclass lists its hyperparameters in ``_hyperparameters`` (in constructor order, which
    is also their order in ``theta``), and implements ``_gram``, ``_gram_and_gradient`` and
    ``_diag``. Everything else (``theta``, ``bounds``, parameters, operators) is shared.

    Examples
    --------
    Every kernel is called the same way:

    >>> import numpy as np
    >>> from kmlib.kernels import RBF
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> k = RBF(lengthscale=1.0)
    >>> k(X).shape, k(X, X[:2]).shape, k.diag(X).shape
    ((3, 3), (3, 2), (3,))
    >>> K, dK = k(X, eval_gradient=True)
    >>> dK.shape, k.theta_names
    ((3, 3, 2), ['lengthscale', 'variance'])
    """

    _hyperparameters: tuple[Hyperparameter, ...] = ()
    #: What the message of an overflow (:func:`_finite_values`) tells the user to do.
    _overflow_advice = (
        "the scale of X (or of the kernel's hyperparameters) is too large or too small for it: "
        "rescale X"
    )

    # ------------------------------------------------------------------ parameters
    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return [
            p.name
            for p in signature.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]

    def get_params(self, deep=True):
        """Constructor parameters by name; with ``deep``, also those of inner kernels.

        Parameters
        ----------
        deep : bool, default=True
            Also list the parameters of inner kernels, as ``"k1__lengthscale"``.

        Returns
        -------
        params : dict
        """
        params = {}
        for name in self._param_names():
            value = getattr(self, name)
            params[name] = value
            if deep and isinstance(value, Kernel):
                for inner, inner_value in value.get_params(deep=True).items():
                    params[f"{name}__{inner}"] = inner_value
        return params

    def set_params(self, **params):
        """Set constructor parameters; ``"k1__lengthscale"`` reaches into an inner kernel."""
        valid = self._param_names()
        for key, value in params.items():
            name, _, inner = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"{type(self).__name__} has no parameter {name!r}; valid ones: {valid}"
                )
            if inner:
                getattr(self, name).set_params(**{inner: value})
            else:
                setattr(self, name, value)
        return self

    def __repr__(self):
        args = ", ".join(
            f"{name}={_short(value)}"
            for name, value in self.get_params(deep=False).items()
            if value is not None
        )
        return f"{type(self).__name__}({args})"

    # ------------------------------------------------------------------ hyperparameters
    def _values(self):
        """Check every hyperparameter and return the values (floats or float arrays)."""
        return _Values(
            {
                h.name: check_positive(getattr(self, h.name), h.name, allow_zero=h.may_be_zero)
                for h in self._hyperparameters
            }
        )

    def _free(self):
        """``(name, value, limits)`` of the hyperparameters that ``theta`` holds."""
        values = self._values()
        limits = getattr(self, "limits", None) or {}
        unknown = set(limits) - {h.name for h in self._hyperparameters}
        if unknown:
            raise ValueError(f"limits names unknown hyperparameters {sorted(unknown)}")
        free = []
        for h in self._hyperparameters:
            value = values[h.name]
            rule = limits.get(h.name, DEFAULT_LIMITS)
            if isinstance(rule, str):
                if rule != "fixed":
                    raise ValueError(f"limits[{h.name!r}] must be (low, high) or 'fixed'")
                continue
            if h.may_be_zero and np.all(value == 0):
                continue
            low, high = rule
            if not 0 < low < high:
                raise ValueError(f"limits[{h.name!r}] must satisfy 0 < low < high; got {rule}")
            free.append((h.name, value, (low, high)))
        return free

    @property
    def theta(self):
        """Log hyperparameters, ndarray of shape (n_theta,)."""
        free = self._free()
        if not free:
            return np.zeros(0)
        return np.concatenate([np.log(np.ravel(value)) for _, value, _ in free])

    @theta.setter
    def theta(self, theta):
        theta = np.asarray(theta, dtype=np.float64).ravel()
        free = self._free()
        sizes = [np.size(value) for _, value, _ in free]
        if theta.size != sum(sizes):
            raise ValueError(f"theta must have {sum(sizes)} entries; got {theta.size}")
        start = 0
        for (name, value, _), size in zip(free, sizes):
            chunk = np.exp(theta[start : start + size])
            setattr(self, name, float(chunk[0]) if np.ndim(value) == 0 else chunk)
            start += size

    @property
    def bounds(self):
        """Log bounds of ``theta``, ndarray of shape (n_theta, 2)."""
        rows = [np.tile(np.log(limits), (np.size(value), 1)) for _, value, limits in self._free()]
        return np.vstack(rows) if rows else np.zeros((0, 2))

    @property
    def theta_names(self):
        """Names of the entries of ``theta`` (``"lengthscale[1]"`` for array entries)."""
        names = []
        for name, value, _ in self._free():
            if np.ndim(value) == 0:
                names.append(name)
            else:
                names.extend(f"{name}[{i}]" for i in range(np.size(value)))
        return names

    # ------------------------------------------------------------------ evaluation
    def _check_inputs(self, X, name):
        return as_inputs(X, name)

    def _check_pair(self, X, Y):
        check_matching_features(X, Y)

    @_finite_values
    def __call__(self, X, Y=None, eval_gradient=False):
        """Kernel matrix between ``X`` and ``Y`` (or the Gram matrix of ``X``).

        Parameters
        ----------
        X : array_like of shape (n, d)
            Inputs (shape ``(n,)`` is read as ``n`` one-dimensional points).
        Y : array_like of shape (m, d), default=None
            Second set of inputs; ``None`` gives the Gram matrix of ``X``.
        eval_gradient : bool, default=False
            Also return the derivatives with respect to ``theta`` (only with ``Y=None``).

        Returns
        -------
        K : ndarray of shape (n, m)
        dK : ndarray of shape (n, n, n_theta)
            Only with ``eval_gradient=True``: ``dK[:, :, j]`` is the derivative of ``K`` with
            respect to ``theta[j]``.
        """
        h = self._values()
        X = self._check_inputs(X, "X")
        if eval_gradient:
            if Y is not None:
                raise ValueError("eval_gradient=True needs Y=None: gradients are of k(X, X)")
            K, gradients = self._gram_and_gradient(X, h)
            return K, self._stack(gradients, K)
        if Y is not None:
            Y = self._check_inputs(Y, "Y")
            self._check_pair(X, Y)
        return self._gram(X, Y, h)

    def _stack(self, gradients, K):
        """Arrange per-hyperparameter derivatives into an (n, n, n_theta) array."""
        columns = [
            gradients[name][:, :, np.newaxis] if gradients[name].ndim == 2 else gradients[name]
            for name, _, _ in self._free()
        ]
        if not columns:
            return np.zeros(K.shape + (0,))
        return np.concatenate(columns, axis=2)

    @_finite_values
    def diag(self, X):
        """Diagonal of ``k(X)``, computed without the full matrix.

        Parameters
        ----------
        X : array_like of shape (n, d)
            Inputs.

        Returns
        -------
        ndarray of shape (n,)
        """
        return self._diag(self._check_inputs(X, "X"), self._values())

    def _temporaries(self, n_features):
        """How many arrays of the shape of ``k(X, Y)`` its evaluation (and the check of its
        result) holds at once, the result included, for inputs with ``n_features`` columns.

        Predictions size their blocks of query rows by it (:mod:`kmlib._chunks`). Measured
        with ``tracemalloc``: 2 to 3.3 for the dot-product kernels, the RBF and the rational
        quadratic, 4 for ``ArcSine`` and ``PRMLKernel``.
        """
        return 4.0

    # ------------------------------------------------------------------ algebra
    def __add__(self, other):
        return Sum(self, _as_kernel(other, "k + c"))

    def __radd__(self, other):
        return Sum(_as_kernel(other, "c + k"), self)

    def __mul__(self, other):
        return Product(self, _as_kernel(other, "k * c"))

    def __rmul__(self, other):
        return Product(_as_kernel(other, "c * k"), self)

    # ------------------------------------------------------------------ rows for solvers
    def gram_rows(self, X, columns=None):
        """Rows of the Gram matrix ``k(X)`` one at a time, for solvers that need only some.

        Kernels of the scaled distance (and sums and products of them) scale the inputs once
        and compute each row in one compiled pass over them; other kernels are called on
        ``(X[s], X[columns])``.

        Parameters
        ----------
        X : array_like of shape (n, d)
        columns : array_like of int of shape (m,), default=None
            The samples each row is restricted to (``None``: all): a solver that has set
            samples aside needs only ``k(X)[s, columns]``.

        Returns
        -------
        GramRows
            Its ``fill(samples, out)`` writes ``k(X)[samples][:, columns]``, shape (b, m).
        """
        X = self._check_inputs(X, "X")
        diag = np.asarray(self.diag(X), dtype=np.float64)
        columns, where = _column_positions(diag.size, columns)
        X_columns = X[columns]

        def fill(samples, out):
            out[:] = self(X[samples], X_columns)
            _set_diagonal(out, samples, where, diag)
            return out

        return GramRows(fill, diag, fast=False)


class GramRows(NamedTuple):
    """Rows of a Gram matrix on demand (from :meth:`Kernel.gram_rows`).

    Attributes
    ----------
    fill : callable
        ``fill(samples, out)`` writes the rows of ``samples`` (int array, shape (b,)) over the
        chosen columns into ``out``, shape (b, m), and returns it.
    diag : ndarray of shape (n,)
        The diagonal.
    fast : bool
        Whether a row costs about one matrix-vector product (else a kernel call).
    """

    fill: object
    diag: np.ndarray
    fast: bool


def _column_positions(n, columns):
    """``columns`` (``range(n)`` when None) and each sample's position in it, -1 if absent."""
    columns = np.arange(n) if columns is None else np.asarray(columns, dtype=np.intp)
    where = np.full(n, -1, dtype=np.intp)
    where[columns] = np.arange(columns.size)
    return columns, where


def _set_diagonal(out, samples, where, diag):
    """Entries ``(s, s)`` of rows of a Gram matrix: ``k(X)`` holds a White term there, but
    ``k(X[s], X)`` does not. ``where``: each sample's column in ``out``, -1 if none."""
    at = where[samples]
    inside = np.flatnonzero(at >= 0)
    out[inside, at[inside]] = diag[samples[inside]]


def _as_kernel(value, expression):
    """A kernel for one side of ``expression``: a kernel, or a positive number as a Constant."""
    if isinstance(value, Kernel):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not value > 0:
            raise ValueError(f"{expression} needs c > 0 to give a valid kernel (PRML 6.13)")
        return Constant(float(value))
    raise TypeError(
        f"{expression} needs a kmlib kernel or a positive number c; got {value!r} of type "
        f"{type(value).__name__}"
    )


def _short(value):
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=4, separator=", ")
    if callable(value) and not isinstance(value, Kernel):
        return getattr(value, "__name__", type(value).__name__)
    return repr(value)


# ====================================================================== stationary kernels
class _Stationary(Kernel):
    r"""Kernels of the scaled distance, with one length-scale or one per dimension (ARD).

    A subclass gives the kernel as a function of the scaled squared distance,
    ``_profile(sq, h, out=None)`` (``out``: where to write it, which may be ``sq`` itself).
    Squared distances come from the pairwise loop of :func:`scipy.spatial.distance.cdist` in few
    dimensions (it is the faster there) and, from ``BLAS_MIN_FEATURES`` on, from
    :math:`\lVert\mathbf a\rVert^2 + \lVert\mathbf b\rVert^2 - 2\mathbf a^T\mathbf b` (one
    matrix product) after moving the origin to the inputs' mean; the few pairs so close that
    this loses digits (their distance below ``CLOSE_PAIRS`` of the norms) are recomputed from
    their differences, so that the result is as accurate as the pairwise form, which matters for
    kernels with a kink at zero such as the exponential. Rows for solvers (:meth:`gram_rows`)
    sum the squared differences directly, a few rows at a time, in one compiled pass per input
    dimension (:mod:`kmlib._distance_rows`). Every kernel built on this class, and every sum or
    product of them, shares these paths.
    """

    def _scaled(self, X, lengthscale):
        if np.ndim(lengthscale) == 1 and lengthscale.size != X.shape[1]:
            raise ValueError(
                f"lengthscale has {lengthscale.size} entries but the inputs have "
                f"{X.shape[1]} features"
            )
        return X / lengthscale

    def _sq_dist(self, X, Y, lengthscale):
        """Squared distance after dividing each input dimension by its length-scale."""
        if X.shape[1] < BLAS_MIN_FEATURES:  # the pairwise loop: exact differences
            Xs = self._scaled(X, lengthscale)
            return cdist(Xs, Xs if Y is None else self._scaled(Y, lengthscale), "sqeuclidean")
        if Y is None:
            Xs = self._scaled(X - X.mean(axis=0), lengthscale)
            return _squared_distances(Xs, Xs, symmetric=True)
        centre = (X.sum(axis=0) + Y.sum(axis=0)) / (X.shape[0] + Y.shape[0])
        return _squared_distances(
            self._scaled(X - centre, lengthscale), self._scaled(Y - centre, lengthscale)
        )

    def _dsq_dist_dlog_lengthscale(self, X, lengthscale, sq_dist):
        """Derivative of the scaled squared distance with respect to log length-scale(s).

        Shape (n, n) for a scalar length-scale, (n, n, d) for ARD.
        """
        if np.ndim(lengthscale) == 0:
            return -2.0 * sq_dist
        Xs = self._scaled(X, lengthscale)
        return -2.0 * (Xs[:, np.newaxis, :] - Xs[np.newaxis, :, :]) ** 2

    def _gram(self, X, Y, h):
        return self._profile(self._sq_dist(X, Y, h.lengthscale), h)

    def _diag(self, X, h):
        return np.full(X.shape[0], h.variance)

    def gram_rows(self, X, columns=None):
        from ._distance_rows import squared_distances  # numba: imported when rows are needed

        h = self._values()
        X = self._check_inputs(X, "X")
        Xs = np.ascontiguousarray(self._scaled(X, h.lengthscale), dtype=np.float64)
        columns, _ = _column_positions(X.shape[0], columns)
        columns_t = np.ascontiguousarray(Xs[columns].T)

        def fill(samples, out):
            squared_distances(columns_t, Xs[samples], out)
            self._profile(out, h, out=out)
            return out

        return GramRows(fill, self._diag(X, h), fast=True)


def _squared_distances(A, B, symmetric=False):
    """Squared Euclidean distances between the rows of ``A`` and ``B``, shape (n, m).

    One matrix product, then the close pairs recomputed from their differences (see
    :class:`_Stationary`), the norms added in blocks of rows to bound the memory. With
    ``symmetric`` (``B`` is ``A``) the result is exactly symmetric with a zero diagonal.
    """
    a = np.einsum("nd,nd->n", A, A)
    b = a if symmetric else np.einsum("nd,nd->n", B, B)
    sq = A @ B.T  # BLAS; exactly symmetric when B is A
    sq *= -2.0
    rows_per_block = max(1, (1 << 22) // max(1, b.size))
    for start in range(0, a.size, rows_per_block):
        block = slice(start, start + rows_per_block)
        scale = a[block, np.newaxis] + b  # one sum per pair keeps a symmetric result symmetric
        part = sq[block]
        part += scale
        rows, cols = np.nonzero(part < CLOSE_PAIRS * scale)
        part[rows, cols] = np.sum((A[block][rows] - B[cols]) ** 2, axis=1)
    return np.maximum(sq, 0.0, out=sq)  # rounding can make a distance slightly negative


class RBF(_Stationary):
    r"""Squared-exponential ('Gaussian') kernel, PRML (6.23), MLAPP (14.2).

    .. math:: k(\mathbf x, \mathbf x') = \sigma^2
              \exp\Big(-\tfrac12 \sum_d (x_d - x'_d)^2 / \ell_d^2\Big)

    Parameters
    ----------
    lengthscale : float or array_like of shape (d,), default=1.0
        :math:`\ell` (PRML's :math:`\sigma` in (6.23)); one entry per input dimension gives
        automatic relevance determination (PRML 6.4.4).
    variance : float, default=1.0
        Signal variance :math:`\sigma^2`, the value of ``k(x, x)``.
    limits : dict or None, default=None
        Optimisation range ``(low, high)`` of a hyperparameter by name, or ``"fixed"``;
        ``None`` gives every hyperparameter the range ``DEFAULT_LIMITS``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import RBF
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> print(np.round(RBF(lengthscale=1.0)(X), 4))
    [[1.     0.6065 0.1353]
     [0.6065 1.     0.6065]
     [0.1353 0.6065 1.    ]]

    One length-scale per input dimension (ARD):

    >>> RBF(lengthscale=[1.0, 2.0]).theta_names
    ['lengthscale[0]', 'lengthscale[1]', 'variance']
    """

    _hyperparameters = (Hyperparameter("lengthscale"), Hyperparameter("variance"))

    def __init__(self, lengthscale=1.0, variance=1.0, limits=None):
        self.lengthscale = lengthscale
        self.variance = variance
        self.limits = limits

    def _profile(self, sq, h, out=None):
        K = np.exp(np.multiply(sq, -0.5, out=out), out=out)
        if h.variance != 1.0:
            K *= h.variance
        return K  # PRML (6.23)

    def _gram_and_gradient(self, X, h):
        s = self._sq_dist(X, None, h.lengthscale)
        K = self._profile(s, h)
        ds = self._dsq_dist_dlog_lengthscale(X, h.lengthscale, s)
        dlog_ell = -0.5 * (K[:, :, np.newaxis] if ds.ndim == 3 else K) * ds
        return K, {"lengthscale": dlog_ell, "variance": K}


class Matern(_Stationary):
    r"""Matérn kernel, MLAPP (14.20); ``nu=0.5`` is the exponential kernel of PRML (6.56).

    .. math:: k(r) = \sigma^2 \frac{2^{1-\nu}}{\Gamma(\nu)} (\sqrt{2\nu}\, r)^\nu
              K_\nu(\sqrt{2\nu}\, r), \qquad r^2 = \sum_d (x_d - x'_d)^2/\ell_d^2

    The cases ``nu`` = 1/2, 3/2, 5/2 use their closed forms; other values use the Bessel
    function :math:`K_\nu`, evaluated in log space so that large ``nu`` does not overflow.

    Parameters
    ----------
    lengthscale : float or array_like of shape (d,), default=1.0
        :math:`\ell`, one per dimension for ARD.
    variance : float, default=1.0
        :math:`\sigma^2`.
    nu : float, default=1.5
        Smoothness :math:`\nu > 0` (not a hyperparameter: it stays fixed).
    limits : dict or None, default=None
        Optimisation range of a hyperparameter by name, or ``"fixed"``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import Exponential, Matern
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> print(np.round(Matern(nu=2.5)(X), 4))
    [[1.     0.524  0.1387]
     [0.524  1.     0.524 ]
     [0.1387 0.524  1.    ]]
    >>> np.allclose(Matern(nu=0.5)(X), Exponential()(X))
    True
    """

    _hyperparameters = (Hyperparameter("lengthscale"), Hyperparameter("variance"))

    def __init__(self, lengthscale=1.0, variance=1.0, nu=1.5, limits=None):
        self.lengthscale = lengthscale
        self.variance = variance
        self.nu = nu
        self.limits = limits

    def _values(self):
        h = super()._values()
        check_positive(self.nu, "nu")
        return h

    def _shape_and_slope(self, r):
        """``k(r)/variance`` and its derivative with respect to ``r``."""
        nu = float(self.nu)
        if nu == 0.5:
            e = np.exp(-r)
            return e, -e
        if nu == 1.5:
            a = np.sqrt(3.0) * r
            e = np.exp(-a)
            return (1.0 + a) * e, -3.0 * r * e
        if nu == 2.5:
            a = np.sqrt(5.0) * r
            e = np.exp(-a)
            return (1.0 + a + a**2 / 3.0) * e, -(5.0 / 3.0) * r * (1.0 + a) * e
        # MLAPP (14.20) with z = sqrt(2 nu) r, using d/dz [z^nu K_nu(z)] = -z^nu K_{nu-1}(z)
        z = np.sqrt(2.0 * nu) * r
        shape = np.ones_like(z)
        dshape_dz = np.zeros_like(z)
        far = np.isinf(z)  # a distance beyond float64 (inputs near 1e160): the limit, zero
        shape[far] = 0.0
        positive = (z > 0) & ~far
        zp = z[positive]
        log_c = (1.0 - nu) * np.log(2.0) - gammaln(nu)
        with np.errstate(over="ignore", invalid="ignore"):
            shape[positive] = np.exp(log_c + nu * np.log(zp) + np.log(kve(nu, zp)) - zp)
            dshape_dz[positive] = -np.exp(log_c + nu * np.log(zp) + np.log(kve(nu - 1.0, zp)) - zp)
        # K_nu(z) overflows for large nu at small z; there the integral form is exact
        overflow = ~(np.isfinite(shape) & np.isfinite(dshape_dz))
        if np.any(overflow):
            shape[overflow], dshape_dz[overflow] = _matern_integral(z[overflow], nu)
        return shape, np.sqrt(2.0 * nu) * dshape_dz

    def _profile(self, sq, h, out=None):
        return np.multiply(h.variance, self._shape_and_slope(np.sqrt(sq))[0], out=out)

    def _temporaries(self, n_features):
        # measured: 4, 6 and 7 for the closed forms, 9.1 through the Bessel function
        return {0.5: 4.0, 1.5: 6.0, 2.5: 7.0}.get(float(self.nu), 10.0)

    def _gram_and_gradient(self, X, h):
        s = self._sq_dist(X, None, h.lengthscale)
        r = np.sqrt(s)
        shape, slope = self._shape_and_slope(r)
        K = h.variance * shape
        # dr/dlog(ell) = (ds/dlog ell) / (2 r); the limit at r = 0 is 0 for every nu.
        ds = self._dsq_dist_dlog_lengthscale(X, h.lengthscale, s)
        safe_r = np.where(r > 0, r, 1.0)
        dr_factor = h.variance * slope / (2.0 * safe_r)
        if ds.ndim == 3:
            dr_factor = dr_factor[:, :, np.newaxis]
        return K, {"lengthscale": dr_factor * ds, "variance": K}


def _matern_integral(z, nu, n_nodes=400):
    r"""Matérn shape :math:`f(z) = 2^{1-\nu} z^\nu K_\nu(z) / \Gamma(\nu)` and :math:`f'(z)`
    from an integral that cannot overflow (for :math:`\nu \geq 1`).

    The integral form of :math:`K_\nu` (DLMF 10.32.8) and the duplication formula of
    :math:`\Gamma` give :math:`f(z) = \frac{e^{-z}}{\Gamma(2\nu)} \int_0^\infty e^{-u}
    u^{c} (u + 2z)^{c}\, du` with :math:`c = \nu - 1/2`. In :math:`y = \log u` the integrand is
    smooth and decays fast at both ends, so the trapezoid rule on a grid around its peak is
    accurate to rounding error; the sums are taken in log space.
    """
    if nu < 1:
        raise ValueError(f"nu={nu} is too small for the integral form of the Matern kernel")
    c = nu - 0.5
    z = z[:, np.newaxis]
    peak = (c - z) + np.sqrt(c**2 + z**2)  # maximiser of the integrand in u
    width = 1.0 / np.sqrt(peak - 2.0 * c * z * peak / (peak + 2.0 * z) ** 2)  # 1/sqrt(curvature)
    y = np.log(peak) + width * np.linspace(-40.0, 40.0, n_nodes)
    u = np.exp(y)
    log_step = np.log(80.0 * width[:, 0] / (n_nodes - 1))
    log_norm = log_step - gammaln(2.0 * nu) - z[:, 0]
    log_body = -u + (c + 1.0) * y
    shape = np.exp(logsumexp(log_body + c * np.log(u + 2.0 * z), axis=1) + log_norm)
    # f'(z) = -f(z) + e^{-z} / Gamma(2 nu) * int e^{-u} u^c 2c (u + 2z)^(c - 1) du
    tilt = np.exp(
        logsumexp(log_body + (c - 1.0) * np.log(u + 2.0 * z), axis=1) + np.log(2.0 * c) + log_norm
    )
    return shape, tilt - shape


class Exponential(Matern):
    r"""Exponential (Ornstein–Uhlenbeck) kernel, PRML (6.56) with :math:`\theta = 1/\ell`.

    .. math:: k(\mathbf x, \mathbf x') = \sigma^2 \exp(-\|\mathbf x - \mathbf x'\| / \ell)

    The Matérn kernel with :math:`\nu = 1/2`.

    Parameters
    ----------
    lengthscale : float or array_like of shape (d,), default=1.0
        :math:`\ell`, one per dimension for ARD.
    variance : float, default=1.0
        :math:`\sigma^2`.
    limits : dict or None, default=None
        Optimisation range of a hyperparameter by name, or ``"fixed"``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import Exponential
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> print(np.round(Exponential(lengthscale=2.0)(X), 4))
    [[1.     0.6065 0.3679]
     [0.6065 1.     0.6065]
     [0.3679 0.6065 1.    ]]
    """

    def __init__(self, lengthscale=1.0, variance=1.0, limits=None):
        super().__init__(lengthscale=lengthscale, variance=variance, nu=0.5, limits=limits)


class RationalQuadratic(_Stationary):
    r"""Rational quadratic kernel, a scale mixture of RBF kernels (R&W 4.19).

    .. math:: k(\mathbf x, \mathbf x') = \sigma^2 \Big(1 + \frac{r^2}{2\alpha}\Big)^{-\alpha},
              \qquad r^2 = \sum_d (x_d - x'_d)^2/\ell_d^2

    Parameters
    ----------
    lengthscale : float or array_like of shape (d,), default=1.0
        :math:`\ell`, one per dimension for ARD.
    variance : float, default=1.0
        :math:`\sigma^2`.
    alpha : float, default=1.0
        Shape :math:`\alpha > 0`; as :math:`\alpha \to \infty` the kernel tends to the RBF.
    limits : dict or None, default=None
        Optimisation range of a hyperparameter by name, or ``"fixed"``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import RationalQuadratic
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> print(np.round(RationalQuadratic(alpha=0.5)(X), 4))
    [[1.     0.7071 0.4472]
     [0.7071 1.     0.7071]
     [0.4472 0.7071 1.    ]]
    """

    _hyperparameters = (
        Hyperparameter("lengthscale"),
        Hyperparameter("variance"),
        Hyperparameter("alpha"),
    )

    def __init__(self, lengthscale=1.0, variance=1.0, alpha=1.0, limits=None):
        self.lengthscale = lengthscale
        self.variance = variance
        self.alpha = alpha
        self.limits = limits

    def _profile(self, sq, h, out=None):
        return np.multiply(h.variance, (1.0 + sq / (2.0 * h.alpha)) ** (-h.alpha), out=out)

    def _gram_and_gradient(self, X, h):
        s = self._sq_dist(X, None, h.lengthscale)
        u = s / (2.0 * h.alpha)
        K = h.variance * (1.0 + u) ** (-h.alpha)
        # dK/du = -alpha K / (1 + u), and du/dlog(ell) = (ds/dlog ell) / (2 alpha)
        ds = self._dsq_dist_dlog_lengthscale(X, h.lengthscale, s)
        factor = -0.5 * K / (1.0 + u)
        if ds.ndim == 3:
            factor = factor[:, :, np.newaxis]
        dlog_alpha = h.alpha * K * (u / (1.0 + u) - np.log1p(u))
        return K, {"lengthscale": factor * ds, "variance": K, "alpha": dlog_alpha}


class Periodic(Kernel):
    r"""Periodic kernel of MacKay (1998), MLAPP 15.2.1, in every input dimension.

    .. math:: k(\mathbf x, \mathbf x') = \sigma^2 \exp\!\Big(-\frac{2}{\ell^2}
              \sum_d \sin^2\big(\pi (x_d - x'_d) / p\big)\Big)

    It is the product over dimensions of one-dimensional periodic kernels, hence valid by
    PRML (6.22). In one dimension it equals scikit-learn's ``ExpSineSquared``; in several it
    differs on purpose, because :math:`\sin^2` of the Euclidean distance (scikit-learn's form)
    does not give a positive semidefinite Gram matrix in general.

    Parameters
    ----------
    lengthscale : float, default=1.0
        :math:`\ell`.
    variance : float, default=1.0
        :math:`\sigma^2`.
    period : float, default=1.0
        :math:`p`, shared by all dimensions.
    limits : dict or None, default=None
        Optimisation range of a hyperparameter by name, or ``"fixed"``.

    Examples
    --------
    Points a whole period apart are as similar as a point and itself:

    >>> import numpy as np
    >>> from kmlib.kernels import Periodic
    >>> print(np.round(Periodic(period=2.0)([[0.0]], [[0.5], [1.0], [2.0]]), 4))
    [[0.3679 0.1353 1.    ]]
    """

    _hyperparameters = (
        Hyperparameter("lengthscale"),
        Hyperparameter("variance"),
        Hyperparameter("period"),
    )

    def __init__(self, lengthscale=1.0, variance=1.0, period=1.0, limits=None):
        self.lengthscale = lengthscale
        self.variance = variance
        self.period = period
        self.limits = limits

    def _values(self):
        h = super()._values()
        if np.ndim(h.lengthscale) != 0:
            raise ValueError("Periodic takes a single lengthscale, not one per dimension")
        return h

    @staticmethod
    def _phase(X, Y, period):
        """Phase pi (x_d - y_d) / p for all pairs and dimensions, shape (n, m, d)."""
        return np.pi * (X[:, np.newaxis, :] - Y[np.newaxis, :, :]) / period

    def _gram(self, X, Y, h):
        sin2 = np.sin(self._phase(X, X if Y is None else Y, h.period)) ** 2
        return h.variance * np.exp(-2.0 * sin2.sum(axis=2) / h.lengthscale**2)

    def _temporaries(self, n_features):
        return 2.0 * n_features + 2.0  # two (n, m, d) phases; measured 3, 10, 80 for d = 1, 5, 40

    def _gram_and_gradient(self, X, h):
        phase = self._phase(X, X, h.period)
        sin = np.sin(phase)
        sin2 = (sin**2).sum(axis=2)
        K = h.variance * np.exp(-2.0 * sin2 / h.lengthscale**2)
        dlog_ell = K * 4.0 * sin2 / h.lengthscale**2
        # d phase / d log p = -phase, so d(sin^2)/d log p = -2 sin cos phase
        dlog_period = K * 4.0 * (sin * np.cos(phase) * phase).sum(axis=2) / h.lengthscale**2
        return K, {"lengthscale": dlog_ell, "variance": K, "period": dlog_period}

    def _diag(self, X, h):
        return np.full(X.shape[0], h.variance)


# ====================================================================== dot-product kernels
class Linear(Kernel):
    r"""Linear kernel :math:`k(\mathbf x, \mathbf x') = \sigma^2 \mathbf x^T \mathbf x'`
    (PRML 6.1 with :math:`\phi(\mathbf x) = \sigma \mathbf x`).

    Parameters
    ----------
    variance : float, default=1.0
        :math:`\sigma^2`.
    limits : dict or None, default=None
        Optimisation range of ``variance``, or ``"fixed"``.

    Examples
    --------
    >>> from kmlib.kernels import Linear
    >>> print(Linear()([[1.0, 2.0], [3.0, 4.0]]))
    [[ 5. 11.]
     [11. 25.]]
    """

    _hyperparameters = (Hyperparameter("variance"),)

    def __init__(self, variance=1.0, limits=None):
        self.variance = variance
        self.limits = limits

    def _gram(self, X, Y, h):
        return h.variance * (X @ (X if Y is None else Y).T)

    def _gram_and_gradient(self, X, h):
        K = self._gram(X, None, h)
        return K, {"variance": K}

    def _diag(self, X, h):
        return h.variance * np.einsum("nd,nd->n", X, X)


class Polynomial(Kernel):
    r"""Polynomial kernel :math:`\sigma^2 (\mathbf x^T \mathbf x' + c)^M` (PRML 6.2).

    With ``bias=0`` the feature space holds all monomials of degree exactly ``M`` (as in (6.11)
    for ``M=2``); with ``bias > 0`` it holds all monomials up to degree ``M``.

    Parameters
    ----------
    degree : int, default=2
        :math:`M \geq 1` (fixed).
    bias : float, default=1.0
        :math:`c \geq 0`. Zero switches the term off and keeps it out of ``theta``.
    variance : float, default=1.0
        :math:`\sigma^2`.
    limits : dict or None, default=None
        Optimisation range of a hyperparameter by name, or ``"fixed"``.

    Examples
    --------
    :math:`(1\cdot3 + 2\cdot4 + 1)^2 = 144`:

    >>> from kmlib.kernels import Polynomial
    >>> print(Polynomial(degree=2, bias=1.0)([[1.0, 2.0]], [[3.0, 4.0]]))
    [[144.]]
    """

    _hyperparameters = (Hyperparameter("bias", may_be_zero=True), Hyperparameter("variance"))

    def __init__(self, degree=2, bias=1.0, variance=1.0, limits=None):
        self.degree = degree
        self.bias = bias
        self.variance = variance
        self.limits = limits

    def _values(self):
        h = super()._values()
        if not (isinstance(self.degree, numbers.Integral) and self.degree >= 1):
            raise ValueError(f"degree must be a positive integer; got {self.degree!r}")
        return h

    def _gram(self, X, Y, h):
        return h.variance * (X @ (X if Y is None else Y).T + h.bias) ** self.degree

    def _gram_and_gradient(self, X, h):
        base = X @ X.T + h.bias
        K = h.variance * base**self.degree
        dlog_bias = h.variance * self.degree * base ** (self.degree - 1) * h.bias
        return K, {"bias": dlog_bias, "variance": K}

    def _diag(self, X, h):
        return h.variance * (np.einsum("nd,nd->n", X, X) + h.bias) ** self.degree


class Sigmoid(Kernel):
    r"""Sigmoidal kernel :math:`\tanh(a\,\mathbf x^T \mathbf x' + b)`, PRML (6.37).

    Not a valid kernel: its Gram matrix is in general indefinite (see the tests and the 6.2
    notebook). It is here so that readers can see that for themselves.

    Parameters
    ----------
    scale : float, default=1.0
        :math:`a > 0` (a hyperparameter).
    bias : float, default=0.0
        :math:`b`, of either sign (held fixed: a signed offset has no logarithm).
    limits : dict or None, default=None
        Optimisation range of ``scale``, or ``"fixed"``.

    Examples
    --------
    A Gram matrix with a negative eigenvalue:

    >>> import numpy as np
    >>> from kmlib.kernels import Sigmoid
    >>> K = Sigmoid(scale=1.0, bias=-1.0)([[0.0], [1.0], [2.0]])
    >>> bool(np.linalg.eigvalsh(K)[0] < -1.0)
    True
    """

    _hyperparameters = (Hyperparameter("scale"),)

    def __init__(self, scale=1.0, bias=0.0, limits=None):
        self.scale = scale
        self.bias = bias
        self.limits = limits

    def _values(self):
        h = super()._values()
        if not (isinstance(self.bias, numbers.Real) and np.isfinite(self.bias)):
            raise ValueError(f"bias must be a finite number; got {self.bias!r}")
        return h

    def _gram(self, X, Y, h):
        return np.tanh(h.scale * (X @ (X if Y is None else Y).T) + self.bias)

    def _gram_and_gradient(self, X, h):
        inner = X @ X.T
        K = np.tanh(h.scale * inner + self.bias)
        return K, {"scale": (1.0 - K**2) * h.scale * inner}

    def _diag(self, X, h):
        return np.tanh(h.scale * np.einsum("nd,nd->n", X, X) + self.bias)


class ArcSine(Kernel):
    r"""Arc-sine ('neural network') kernel of Williams (1998), R&W (4.29); PRML 6.4.7.

    The covariance of a one-hidden-layer network with infinitely many erf units whose input
    weights (bias first) have prior :math:`\mathcal N(\mathbf 0, \Sigma)`,
    :math:`\Sigma = \mathrm{diag}(\sigma_b^2, \sigma_{w,1}^2, \dots)`, and
    :math:`\tilde{\mathbf x} = (1, \mathbf x)`:

    .. math:: k(\mathbf x, \mathbf x') = \sigma^2 \frac{2}{\pi} \arcsin
              \frac{2 \tilde{\mathbf x}^T \Sigma \tilde{\mathbf x}'}
              {\sqrt{(1 + 2 \tilde{\mathbf x}^T \Sigma \tilde{\mathbf x})
                     (1 + 2 \tilde{\mathbf x}'^T \Sigma \tilde{\mathbf x}')}}

    Parameters
    ----------
    weight_variance : float or array_like of shape (d,), default=1.0
        :math:`\sigma_w^2`, one per input dimension for ARD.
    bias_variance : float, default=1.0
        :math:`\sigma_b^2 \geq 0` (zero removes the hidden units' bias).
    variance : float, default=1.0
        Output scale :math:`\sigma^2`.
    limits : dict or None, default=None
        Optimisation range of a hyperparameter by name, or ``"fixed"``.

    Examples
    --------
    Not stationary: the similarity of neighbouring points grows away from the origin.

    >>> import numpy as np
    >>> from kmlib.kernels import ArcSine
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> print(np.round(ArcSine()(X), 4))
    [[0.4646 0.3455 0.2264]
     [0.3455 0.5903 0.6   ]
     [0.2264 0.6    0.7264]]
    """

    _hyperparameters = (
        Hyperparameter("weight_variance"),
        Hyperparameter("bias_variance", may_be_zero=True),
        Hyperparameter("variance"),
    )

    def __init__(self, weight_variance=1.0, bias_variance=1.0, variance=1.0, limits=None):
        self.weight_variance = weight_variance
        self.bias_variance = bias_variance
        self.variance = variance
        self.limits = limits

    def _weights(self, X, h):
        w = h.weight_variance
        if np.ndim(w) == 1 and w.size != X.shape[1]:
            raise ValueError(
                f"weight_variance has {w.size} entries but the inputs have {X.shape[1]} features"
            )
        return w

    def _inner(self, X, Y, h):
        """Weighted inner products (bias included) for all pairs, shape (n, m)."""
        return h.bias_variance + (X * self._weights(X, h)) @ Y.T

    def _self_inner(self, X, h):
        return h.bias_variance + np.einsum("nd,nd->n", X * self._weights(X, h), X)

    @staticmethod
    def _z(inner, bx, by):
        r""":math:`z = 2\tilde x^T\Sigma\tilde x' / \sqrt{b b'}` and its denominator, with
        the roots taken apart (no overflow) and z clipped to [-1, 1] against rounding."""
        root = np.sqrt(bx)[:, np.newaxis] * np.sqrt(by)[np.newaxis, :]
        return np.clip(2.0 * inner / root, -1.0, 1.0), root

    def _gram(self, X, Y, h):
        Y = X if Y is None else Y
        bx = 1.0 + 2.0 * self._self_inner(X, h)
        by = 1.0 + 2.0 * self._self_inner(Y, h)
        z, _ = self._z(self._inner(X, Y, h), bx, by)
        return h.variance * (2.0 / np.pi) * np.arcsin(z)  # R&W (4.29)

    def _gram_and_gradient(self, X, h):
        w = self._weights(X, h)
        s = self._self_inner(X, h)
        b = 1.0 + 2.0 * s
        inner = self._inner(X, X, h)
        z, root = self._z(inner, b, b)
        K = h.variance * (2.0 / np.pi) * np.arcsin(z)
        # 1 - z^2 = (b b' - 4 inner^2) / (b b') = (1 + 2s + 2s' + 4 (s s' - inner^2)) / (b b'),
        # where s s' - inner^2 >= 0 (Cauchy-Schwarz); written so, it keeps its digits when the
        # inputs are large and z is within rounding of 1
        gram_det = np.maximum(np.outer(s, s) - inner**2, 0.0)
        one_minus_z2 = (1.0 + 2.0 * np.add.outer(s, s) + 4.0 * gram_det) / root**2
        dK_dz = h.variance * (2.0 / np.pi) / np.sqrt(one_minus_z2)

        def dK(d_inner, d_self_x, d_self_y):
            # z = a / sqrt(bx by) with a = 2 inner, b = 1 + 2 self_inner
            dz = 2.0 * d_inner / root - z * (d_self_x / b[:, None] + d_self_y / b[None, :])
            return dK_dz * dz

        ones = np.ones_like(b)
        grads = {
            "bias_variance": dK(
                h.bias_variance, h.bias_variance * ones[:, None], h.bias_variance * ones[None, :]
            ),
            "variance": K,
        }
        if np.ndim(w) == 0:
            grads["weight_variance"] = dK(
                w * (X @ X.T),
                w * np.einsum("nd,nd->n", X, X)[:, None],
                w * np.einsum("nd,nd->n", X, X)[None, :],
            )
        else:
            Xw = X * w
            pair = X[:, None, :] * Xw[None, :, :]  # (n, n, d): w_d x_d x'_d
            own = X * Xw  # (n, d): w_d x_d^2
            dz = (2.0 * pair / root[:, :, None]) - z[:, :, None] * (
                own[:, None, :] / b[:, None, None] + own[None, :, :] / b[None, :, None]
            )
            grads["weight_variance"] = dK_dz[:, :, None] * dz
        return K, grads

    def _diag(self, X, h):
        s = self._self_inner(X, h)
        return h.variance * (2.0 / np.pi) * np.arcsin(np.minimum(2.0 * s / (1.0 + 2.0 * s), 1.0))


class PRMLKernel(Kernel):
    r"""The kernel of PRML (6.63), used for the Gaussian-process figures 6.5–6.8.

    .. math:: k(\mathbf x, \mathbf x') = \theta_0 \exp\!\Big(-\frac{\theta_1}{2}
              \|\mathbf x - \mathbf x'\|^2\Big) + \theta_2 + \theta_3 \mathbf x^T \mathbf x'

    Parameters
    ----------
    theta0 : float, default=1.0
        :math:`\theta_0 \geq 0`, the variance of the exponential term.
    theta1 : float, default=4.0
        :math:`\theta_1 > 0`, its inverse squared length-scale.
    theta2 : float, default=0.0
        :math:`\theta_2 \geq 0`, the constant term.
    theta3 : float, default=0.0
        :math:`\theta_3 \geq 0`, the weight of the linear term.
    limits : dict or None, default=None
        Optimisation range of a hyperparameter by name, or ``"fixed"``.

    A zero term (:math:`\theta_0`, :math:`\theta_2` or :math:`\theta_3`) is switched off and
    kept out of ``theta``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import PRMLKernel
    >>> k = PRMLKernel(theta0=1.0, theta1=4.0)
    >>> print(np.round(k([[0.0], [0.5], [1.0]]), 4))
    [[1.     0.6065 0.1353]
     [0.6065 1.     0.6065]
     [0.1353 0.6065 1.    ]]
    >>> k.theta_names
    ['theta0', 'theta1']
    """

    _hyperparameters = (
        Hyperparameter("theta0", may_be_zero=True),
        Hyperparameter("theta1"),
        Hyperparameter("theta2", may_be_zero=True),
        Hyperparameter("theta3", may_be_zero=True),
    )

    def __init__(self, theta0=1.0, theta1=4.0, theta2=0.0, theta3=0.0, limits=None):
        self.theta0 = theta0
        self.theta1 = theta1
        self.theta2 = theta2
        self.theta3 = theta3
        self.limits = limits

    def _gram(self, X, Y, h):
        Y = X if Y is None else Y
        rbf = np.exp(-0.5 * h.theta1 * cdist(X, Y, "sqeuclidean"))
        return h.theta0 * rbf + h.theta2 + h.theta3 * (X @ Y.T)  # PRML (6.63)

    def _gram_and_gradient(self, X, h):
        sq = cdist(X, X, "sqeuclidean")
        rbf = h.theta0 * np.exp(-0.5 * h.theta1 * sq)
        linear = h.theta3 * (X @ X.T)
        K = rbf + h.theta2 + linear
        return K, {
            "theta0": rbf,
            "theta1": -0.5 * h.theta1 * sq * rbf,
            "theta2": np.full_like(K, h.theta2),
            "theta3": linear,
        }

    def _diag(self, X, h):
        return h.theta0 + h.theta2 + h.theta3 * np.einsum("nd,nd->n", X, X)


# ====================================================================== constant and noise
def _count(X, name):
    """Number of points in ``X``; numeric inputs are also checked for NaN and shape."""
    if hasattr(X, "toarray"):  # scipy.sparse: refused as by every numeric kernel
        return as_inputs(X, name).shape[0]
    try:
        arr = np.asarray(X)
    except ValueError:  # ragged sequences of structured objects
        return len(X)
    if arr.dtype.kind in "biuf":
        return as_inputs(arr, name).shape[0]
    return len(X)


class _InputFree(Kernel):
    """Kernels whose values ignore the inputs: they only count them, so any inputs will do.

    That lets them combine with the structured kernels of :mod:`kmlib.structured` too.
    """

    _hyperparameters = (Hyperparameter("variance"),)

    def __init__(self, variance=1.0, limits=None):
        self.variance = variance
        self.limits = limits

    def _check_inputs(self, X, name):
        return X

    def _check_pair(self, X, Y):
        pass

    def _gram_and_gradient(self, X, h):
        K = self._gram(X, None, h)
        return K, {"variance": K}

    def _diag(self, X, h):
        return np.full(_count(X, "X"), float(h.variance))

    def gram_rows(self, X, columns=None):
        h = self._values()
        diag = self._diag(X, h)
        _, where = _column_positions(diag.size, columns)
        off_diagonal = 0.0 if isinstance(self, White) else float(h.variance)

        def fill(samples, out):
            out.fill(off_diagonal)
            _set_diagonal(out, samples, where, diag)
            return out

        return GramRows(fill, diag, fast=True)


class Constant(_InputFree):
    r"""Constant kernel :math:`k(\mathbf x, \mathbf x') = c`; ``c * k`` multiplies by one.

    Parameters
    ----------
    variance : float, default=1.0
        :math:`c > 0`.
    limits : dict or None, default=None
        Optimisation range of ``variance``, or ``"fixed"``.

    Examples
    --------
    A positive number times a kernel is a product with a ``Constant`` (PRML (6.13)):

    >>> import numpy as np
    >>> from kmlib.kernels import RBF
    >>> k = 2.0 * RBF()
    >>> k
    Constant(variance=2.0) * RBF(lengthscale=1.0, variance=1.0)
    >>> print(np.round(k([[0.0], [1.0]]), 4))
    [[2.     1.2131]
     [1.2131 2.    ]]
    """

    def _gram(self, X, Y, h):
        n = _count(X, "X")
        m = n if Y is None else _count(Y, "Y")
        return np.full((n, m), float(h.variance))


class White(_InputFree):
    r"""White-noise kernel: :math:`\sigma^2 \mathbf I` on the Gram matrix, zero between sets.

    ``k(X)`` is :math:`\sigma^2 \mathbf I` while ``k(X, Y)`` is zero even when ``Y`` is ``X``:
    the noise belongs to each observation, not to its input location, so two observations at
    the same input still have independent noise (scikit-learn's ``WhiteKernel`` does the same).

    Parameters
    ----------
    variance : float, default=1.0
        Noise variance :math:`\sigma^2` (PRML's :math:`\beta^{-1}`).
    limits : dict or None, default=None
        Optimisation range of ``variance``, or ``"fixed"``.

    Examples
    --------
    >>> from kmlib.kernels import White
    >>> X = [[0.0], [0.0]]
    >>> print(White(variance=0.1)(X))
    [[0.1 0. ]
     [0.  0.1]]
    >>> print(White(variance=0.1)(X, X))
    [[0. 0.]
     [0. 0.]]
    """

    def _gram(self, X, Y, h):
        n = _count(X, "X")
        if Y is None:
            return float(h.variance) * np.eye(n)
        return np.zeros((n, _count(Y, "Y")))


# ====================================================================== building new kernels
class _Combination(Kernel):
    """A kernel made of inner kernels; its ``theta`` concatenates theirs."""

    def _parts(self):
        """``(prefix, kernel)`` of the inner kernels, in ``theta`` order."""
        raise NotImplementedError

    def _values(self):
        return _Values()

    @property
    def theta(self):
        parts = [k.theta for _, k in self._parts()]
        return np.concatenate(parts) if parts else np.zeros(0)

    @theta.setter
    def theta(self, theta):
        theta = np.asarray(theta, dtype=np.float64).ravel()
        sizes = [len(k.theta) for _, k in self._parts()]
        if theta.size != sum(sizes):
            raise ValueError(f"theta must have {sum(sizes)} entries; got {theta.size}")
        start = 0
        for (_, k), size in zip(self._parts(), sizes):
            k.theta = theta[start : start + size]
            start += size

    @property
    def bounds(self):
        return np.vstack([k.bounds for _, k in self._parts()])

    @property
    def theta_names(self):
        return [f"{prefix}__{name}" for prefix, k in self._parts() for name in k.theta_names]

    def _check_inputs(self, X, name):
        return X  # the inner kernels check their own inputs


def _inner(kernel, name):
    """``kernel`` after checking that it is a kmlib kernel (the part of a combination)."""
    if not isinstance(kernel, Kernel):
        raise ValueError(f"{name} must be a kmlib kernel; got {kernel!r}")
    return kernel


class _Pair(_Combination):
    """A kernel made of two inner kernels ``k1`` and ``k2``, whose values a subclass combines
    elementwise (``_combine``: ``np.add`` or ``np.multiply``) and whose gradients it stacks
    (``_gradient``)."""

    def __init__(self, k1, k2):
        self.k1 = k1
        self.k2 = k2

    def _parts(self):
        return [("k1", _inner(self.k1, "k1")), ("k2", _inner(self.k2, "k2"))]

    @_finite_values
    def __call__(self, X, Y=None, eval_gradient=False):
        (_, k1), (_, k2) = self._parts()
        if eval_gradient:
            K1, dK1 = k1(X, Y, eval_gradient=True)
            K2, dK2 = k2(X, Y, eval_gradient=True)
            return self._combine(K1, K2), self._gradient(K1, dK1, K2, dK2)
        return self._combine(k1(X, Y), k2(X, Y))

    @_finite_values
    def diag(self, X):
        (_, k1), (_, k2) = self._parts()
        return self._combine(k1.diag(X), k2.diag(X))

    def gram_rows(self, X, columns=None):
        """Rows from the rows of the two parts (where both have a fast path)."""
        (_, k1), (_, k2) = self._parts()
        first, second = k1.gram_rows(X, columns), k2.gram_rows(X, columns)
        if not (first.fast and second.fast):
            return Kernel.gram_rows(self, X, columns)

        def fill(samples, out):
            first.fill(samples, out)
            self._combine(out, second.fill(samples, np.empty_like(out)), out=out)
            return out

        return GramRows(fill, self._combine(first.diag, second.diag), fast=True)

    def _temporaries(self, n_features):
        (_, k1), (_, k2) = self._parts()  # k1's result waits while k2 is evaluated
        return max(k1._temporaries(n_features), k2._temporaries(n_features) + 1.0, 3.0)


class Sum(_Pair):
    r"""Sum of two kernels, :math:`k_1 + k_2`: PRML (6.17), and (6.21) with :class:`Subspace`.

    Parameters
    ----------
    k1, k2 : Kernel
        The two terms; ``k1 + k2`` builds the same kernel.

    Examples
    --------
    The hyperparameters of the parts are reached by prefix:

    >>> import numpy as np
    >>> from kmlib.kernels import RBF, White
    >>> k = RBF() + White(variance=0.01)
    >>> k
    RBF(lengthscale=1.0, variance=1.0) + White(variance=0.01)
    >>> k.theta_names
    ['k1__lengthscale', 'k1__variance', 'k2__variance']
    >>> print(np.round(k([[0.0], [1.0]]), 4))
    [[1.01   0.6065]
     [0.6065 1.01  ]]
    """

    _combine = staticmethod(np.add)

    @staticmethod
    def _gradient(K1, dK1, K2, dK2):
        return np.concatenate([dK1, dK2], axis=2)

    def __repr__(self):
        return f"{self.k1!r} + {self.k2!r}"


class Product(_Pair):
    r"""Product of two kernels, :math:`k_1 k_2`: PRML (6.18), and (6.22) with :class:`Subspace`.

    Parameters
    ----------
    k1, k2 : Kernel
        The two factors; ``k1 * k2`` builds the same kernel.

    Examples
    --------
    A locally periodic kernel:

    >>> import numpy as np
    >>> from kmlib.kernels import Periodic, RBF
    >>> k = RBF(lengthscale=5.0) * Periodic(period=1.0)
    >>> k.theta_names
    ['k1__lengthscale', 'k1__variance', 'k2__lengthscale', 'k2__variance', 'k2__period']
    >>> print(np.round(k([[0.0]], [[0.5], [1.0], [3.0]]), 4))
    [[0.1347 0.9802 0.8353]]
    """

    _combine = staticmethod(np.multiply)

    @staticmethod
    def _gradient(K1, dK1, K2, dK2):  # the product rule
        return np.concatenate([dK1 * K2[:, :, np.newaxis], K1[:, :, np.newaxis] * dK2], axis=2)

    def __repr__(self):
        def wrap(k):
            return f"({k!r})" if isinstance(k, Sum) else repr(k)

        return f"{wrap(self.k1)} * {wrap(self.k2)}"


class _Wrapper(_Combination):
    """A kernel that transforms one inner kernel, held in ``self.kernel``."""

    def _parts(self):
        return [("kernel", self._inner_kernel)]

    @property
    def _inner_kernel(self):
        return _inner(self.kernel, "kernel")

    def _temporaries(self, n_features):
        # one array more than the inner kernel (measured); a feature map's own width is not
        # known here, so the inner kernel is counted at the inputs' width
        return self._inner_kernel._temporaries(n_features) + 1.0


class Modulated(_Wrapper):
    r"""PRML (6.14): :math:`f(\mathbf x)\, k_1(\mathbf x, \mathbf x')\, f(\mathbf x')` for any
    function :math:`f`.

    Parameters
    ----------
    kernel : Kernel
        :math:`k_1`.
    f : callable
        Maps inputs of shape ``(n, d)`` to values of shape ``(n,)``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import Modulated, RBF
    >>> k = Modulated(RBF(), f=lambda X: X[:, 0])
    >>> print(np.round(k([[0.0], [1.0], [2.0]]), 4))
    [[0.     0.     0.    ]
     [0.     1.     1.2131]
     [0.     1.2131 4.    ]]
    """

    def __init__(self, kernel, f):
        self.kernel = kernel
        self.f = f

    def _f(self, X, name):
        X = as_inputs(X, name)
        if not callable(self.f):
            raise ValueError(f"f must be a function of the inputs; got {self.f!r}")
        values = np.asarray(self.f(X), dtype=np.float64)
        if values.shape != (X.shape[0],) or not np.all(np.isfinite(values)):
            raise ValueError(f"f must map {name} of shape (n, d) to finite values of shape (n,)")
        return X, values

    @_finite_values
    def __call__(self, X, Y=None, eval_gradient=False):
        X, fx = self._f(X, "X")
        if eval_gradient:
            K1, dK1 = self._inner_kernel(X, eval_gradient=True)
            scale = np.outer(fx, fx)
            return scale * K1, scale[:, :, np.newaxis] * dK1
        if Y is None:
            return np.outer(fx, fx) * self._inner_kernel(X)
        Y, fy = self._f(Y, "Y")
        return np.outer(fx, fy) * self._inner_kernel(X, Y)

    @_finite_values
    def diag(self, X):
        X, fx = self._f(X, "X")
        return fx**2 * self._inner_kernel.diag(X)


class PolynomialOf(_Wrapper):
    r"""PRML (6.15): :math:`q(k_1(\mathbf x, \mathbf x'))` for a polynomial :math:`q` with
    non-negative coefficients.

    Parameters
    ----------
    kernel : Kernel
        :math:`k_1`.
    coefficients : array_like of shape (J + 1,)
        :math:`q(u) = \sum_j c_j u^j`, constant term first; all :math:`c_j \geq 0`.

    Examples
    --------
    :math:`1 + k_1^2`:

    >>> from kmlib.kernels import Linear, PolynomialOf
    >>> print(PolynomialOf(Linear(), [1.0, 0.0, 1.0])([[0.0], [1.0], [2.0]]))
    [[ 1.  1.  1.]
     [ 1.  2.  5.]
     [ 1.  5. 17.]]
    """

    def __init__(self, kernel, coefficients):
        self.kernel = kernel
        self.coefficients = coefficients

    def _c(self):
        c = np.asarray(self.coefficients, dtype=np.float64).ravel()
        if c.size == 0 or not np.all(np.isfinite(c)) or np.any(c < 0):
            raise ValueError(
                "coefficients must be finite and non-negative for q(k) to be a valid kernel "
                f"(PRML 6.15); got {self.coefficients!r}"
            )
        return c

    @staticmethod
    def _q(c, K):
        return np.polynomial.polynomial.polyval(K, c)

    @_finite_values
    def __call__(self, X, Y=None, eval_gradient=False):
        c = self._c()
        if eval_gradient:
            K1, dK1 = self._inner_kernel(X, Y, eval_gradient=True)
            slope = self._q(np.polynomial.polynomial.polyder(c), K1)
            return self._q(c, K1), slope[:, :, np.newaxis] * dK1
        return self._q(c, self._inner_kernel(X, Y))

    @_finite_values
    def diag(self, X):
        return self._q(self._c(), self._inner_kernel.diag(X))


class ExpOf(_Wrapper):
    r"""PRML (6.16): :math:`\exp(k_1(\mathbf x, \mathbf x'))`.

    Parameters
    ----------
    kernel : Kernel
        :math:`k_1`.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import ExpOf, Linear
    >>> print(np.round(ExpOf(Linear())([[0.0], [1.0], [2.0]]), 4))
    [[ 1.      1.      1.    ]
     [ 1.      2.7183  7.3891]
     [ 1.      7.3891 54.5982]]
    """

    _overflow_advice = (
        "exp(k) exceeds float64 where the inner kernel k passes 709: scale X, or the inner "
        "kernel's variance, down"
    )

    def __init__(self, kernel):
        self.kernel = kernel

    @_finite_values
    def __call__(self, X, Y=None, eval_gradient=False):
        if eval_gradient:
            K1, dK1 = self._inner_kernel(X, Y, eval_gradient=True)
            K = np.exp(K1)
            return K, K[:, :, np.newaxis] * dK1
        return np.exp(self._inner_kernel(X, Y))

    @_finite_values
    def diag(self, X):
        return np.exp(self._inner_kernel.diag(X))


class _MappedInputs(_Wrapper):
    r"""The inner kernel of mapped inputs, :math:`k(m(\mathbf x), m(\mathbf x'))`; a subclass
    gives the map as ``_map(X, name)``."""

    def __call__(self, X, Y=None, eval_gradient=False):
        X_mapped = self._map(X, "X")
        if eval_gradient:
            if Y is not None:
                raise ValueError("eval_gradient=True needs Y=None: gradients are of k(X, X)")
            return self._inner_kernel(X_mapped, eval_gradient=True)
        if Y is not None:
            self._check_pair(X, Y)
        return self._inner_kernel(X_mapped, None if Y is None else self._map(Y, "Y"))

    def diag(self, X):
        return self._inner_kernel.diag(self._map(X, "X"))

    def _check_pair(self, X, Y):
        pass  # the inner kernel compares the mapped inputs


class FeatureMapped(_MappedInputs):
    r"""PRML (6.19): :math:`k_3(\phi(\mathbf x), \phi(\mathbf x'))` for a map
    :math:`\phi: \mathbb R^d \to \mathbb R^M`.

    Parameters
    ----------
    kernel : Kernel
        :math:`k_3`, a kernel on :math:`\mathbb R^M`.
    feature_map : callable
        Maps inputs of shape ``(n, d)`` to features of shape ``(n, M)``.

    Examples
    --------
    The linear kernel of the features :math:`(x, x^2)`:

    >>> import numpy as np
    >>> from kmlib.kernels import FeatureMapped, Linear
    >>> k = FeatureMapped(Linear(), feature_map=lambda X: np.hstack([X, X**2]))
    >>> print(k([[0.0], [1.0], [2.0]]))
    [[ 0.  0.  0.]
     [ 0.  2.  6.]
     [ 0.  6. 20.]]
    """

    def __init__(self, kernel, feature_map):
        self.kernel = kernel
        self.feature_map = feature_map

    def _map(self, X, name):
        if not callable(self.feature_map):
            raise ValueError(f"feature_map must be a function; got {self.feature_map!r}")
        return as_inputs(self.feature_map(as_inputs(X, name)), f"feature_map({name})")


class Subspace(_MappedInputs):
    r"""A kernel that looks at some input dimensions only, :math:`k_a(\mathbf x_a, \mathbf x'_a)`.

    Sums and products of such kernels give PRML (6.21) and (6.22); the index sets may overlap.

    Parameters
    ----------
    kernel : Kernel
        :math:`k_a`.
    dims : sequence of int
        Columns of the inputs that form :math:`\mathbf x_a`.

    Examples
    --------
    Two points that differ only in the second input are alike to a kernel on the first:

    >>> from kmlib.kernels import RBF, Subspace
    >>> print(Subspace(RBF(), dims=[0])([[0.0, 0.0], [0.0, 5.0]]))
    [[1. 1.]
     [1. 1.]]
    """

    def __init__(self, kernel, dims):
        self.kernel = kernel
        self.dims = dims

    def _map(self, X, name):
        X = as_inputs(X, name)
        dims = np.asarray(self.dims)
        if dims.ndim != 1 or dims.size == 0 or dims.dtype.kind not in "iu":
            raise ValueError(f"dims must be a non-empty sequence of integers; got {self.dims!r}")
        if dims.min() < -X.shape[1] or dims.max() >= X.shape[1]:
            raise ValueError(f"dims {list(dims)} are out of range for {X.shape[1]} features")
        return X[:, dims]

    def _check_pair(self, X, Y):
        check_matching_features(as_inputs(X, "X"), as_inputs(Y, "Y"))


class Bilinear(Kernel):
    r"""PRML (6.20): :math:`k(\mathbf x, \mathbf x') = \mathbf x^T \mathbf A \mathbf x'` with
    :math:`\mathbf A` symmetric positive semidefinite.

    Parameters
    ----------
    A : array_like of shape (d, d)
        Symmetric positive semidefinite matrix (checked; it has no hyperparameters).

    Examples
    --------
    >>> from kmlib.kernels import Bilinear
    >>> print(Bilinear(A=[[2.0, 0.0], [0.0, 1.0]])([[1.0, 1.0]], [[1.0, 2.0]]))
    [[4.]]
    """

    def __init__(self, A):
        self.A = A

    def _matrix(self, d):
        A = np.asarray(self.A, dtype=np.float64)
        if A.shape != (d, d):
            raise ValueError(f"A must have shape ({d}, {d}) for {d}-dimensional inputs")
        check_symmetric(A, "A")
        eigenvalues = np.linalg.eigvalsh(A)
        smallest = eigenvalues[0]
        if smallest < -1e-12 * np.abs(eigenvalues).max():
            raise ValueError(
                f"A must be positive semidefinite for x^T A x' to be a kernel (PRML 6.20); "
                f"its smallest eigenvalue is {smallest:.3g}"
            )
        return A

    def _gram(self, X, Y, h):
        return X @ self._matrix(X.shape[1]) @ (X if Y is None else Y).T

    def _gram_and_gradient(self, X, h):
        return self._gram(X, None, h), {}

    def _diag(self, X, h):
        return np.einsum("nd,de,ne->n", X, self._matrix(X.shape[1]), X)


# ------------------------------------------------------- kernels as basis functions, checked
def design_matrix(kernel, X, centres, bias=True):
    r"""The design matrix :math:`\boldsymbol\Phi` of a kernel machine, PRML (7.78) and MLAPP
    (14.28): a column of ones (the bias), then one kernel column per centre.

    Row :math:`n` is :math:`\boldsymbol\phi(\mathbf x_n)^\top = (1, k(\mathbf x_n,
    \boldsymbol\mu_1), \dots, k(\mathbf x_n, \boldsymbol\mu_m))`. With the training inputs as
    the centres (MLAPP (14.29)) and the bias, a relevance vector machine has :math:`M = N + 1`
    basis functions. Any kernel will do, Mercer or not: the kernel values are only features.
    What the kernel returns is checked: an array of the right shape with finite entries.

    Parameters
    ----------
    kernel : kmlib kernel or callable
        ``kernel(X, centres)`` gives the kernel columns.
    X : ndarray of shape (n, d)
        Points at which the basis functions are evaluated.
    centres : ndarray of shape (m, d)
        Centres of the kernel basis functions (the training inputs).
    bias : bool, default=True
        Put a column of ones first.

    Returns
    -------
    Phi : ndarray of shape (n, m + 1), or (n, m) with ``bias=False``

    Raises
    ------
    ValueError
        If the kernel returns something that is not a finite numeric array of shape (n, m).

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib.kernels import RBF, design_matrix
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> Phi = design_matrix(RBF(lengthscale=1.0), X, X)
    >>> Phi.shape
    (3, 4)
    >>> print(np.round(Phi[0], 4))  # 1, then exp(-|x_0 - x_m|^2 / 2) for m = 0, 1, 2
    [1.     1.     0.6065 0.1353]
    >>> design_matrix(RBF(lengthscale=1.0), X, X[:2], bias=False).shape
    (3, 2)
    """
    K = _checked(kernel, kernel(X, centres), (len(X), len(centres)), "k(X, Y)")
    if not bias:
        return K
    return np.hstack([np.ones((K.shape[0], 1)), K])


def _checked(kernel, value, shape, what):
    """``value`` as a float64 array, after checking that it has ``shape`` and finite entries.

    Parameters
    ----------
    kernel : kmlib kernel or callable
        The kernel that returned ``value``, named in the messages.
    value : array_like
        What it returned.
    shape : tuple of int
        The shape expected.
    what : str
        What ``value`` should be, for the messages (``"k(X, Y)"``).

    Returns
    -------
    ndarray of shape ``shape``

    Raises
    ------
    ValueError
        If ``value`` is not numeric, has another shape, or holds NaN or infinite entries.
    """
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"the kernel {_describe(kernel)} must return a numeric array for {what}; "
            f"it returned {type(value).__name__}"
        ) from None
    if array.shape != shape:
        raise ValueError(
            f"the kernel {_describe(kernel)} returned an array of shape {array.shape} for "
            f"{what}; expected {shape}"
        )
    if not np.all(np.isfinite(array)):
        bad = "NaN" if np.isnan(array).any() else "infinite"
        raise ValueError(
            f"the kernel {_describe(kernel)} returned non-finite values ({bad}) for {what}; "
            "check its hyperparameters and the scale of the inputs"
        )
    return array


def _describe(kernel):
    """What the user passed, in a message: a kernel's repr, a function's name."""
    if isinstance(kernel, Kernel) or not callable(kernel):
        return repr(kernel)
    name = getattr(kernel, "__name__", None)
    return name if name else f"of type {type(kernel).__name__}"
