r"""Sequential minimal optimisation for the SVM dual family (PRML 7.1, 7.1.4; Fan, Chen & Lin 2005).

Every support vector machine of :mod:`kmlib.svm` reduces to one quadratic programme,

.. math::

    \min_{\boldsymbol\alpha}\; f(\boldsymbol\alpha)
        = \tfrac12 \boldsymbol\alpha^T Q \boldsymbol\alpha + \mathbf p^T \boldsymbol\alpha
    \quad\text{s.t.}\quad \mathbf y^T\boldsymbol\alpha = \Delta,\quad 0 \le \alpha_t \le C_t,
    \qquad Q_{tu} = y_t y_u K_{s(t) s(u)},\; y_t \in \{-1, +1\},

the dual (7.10)/(7.32) of PRML with the sign flipped so that it is minimised. A variable ``t``
refers to the sample ``s(t)``: for classification ``s(t) = t``; the 2n-variable form of
support vector regression, PRML (7.61)-(7.63), has ``s(t) = t mod n`` (the book's ``a`` and
``a_hat`` stacked). The ν-formulations add a second equality constraint (PRML (7.41), (7.74));
with ``two_constraints=True`` the sum of ``alpha`` over each sign of ``y`` stays fixed instead.

:func:`solve` is the decomposition method of Fan, Chen & Lin (2005), "Working set selection
using second order information for training support vector machines", JMLR 6:1889-1918:

* **working set** (their WSS 3): ``i`` maximises :math:`-y_t \nabla f_t` over
  :math:`I_{up}`; ``j`` maximises the second-order decrease :math:`b_{ij}^2/a_{ij}` over
  :math:`t \in I_{low}` with :math:`-y_t\nabla f_t < -y_i\nabla f_i`, where
  :math:`a_{ij} = K_{ii} + K_{jj} - 2K_{ij}`, replaced by :math:`\tau = 10^{-12}` when it is not
  positive (their safeguard for kernels that are not positive semidefinite;
  ``kmlib._smo_loop.TAU``, in the compiled loop that uses it);
* **stopping rule**: :math:`m(\alpha) - M(\alpha) < \varepsilon`, the maximal KKT violation;
* **bias** from the free variables, the midpoint of the feasible interval when there are none;
* **shrinking** of variables that sit at a bound and cannot enter a working set, re-checked on
  the whole set before the solver stops (the heuristics of LIBSVM, Chang & Lin 2011, §5); the
  gradient part from variables at their upper bound is kept per sample (LIBSVM's
  :math:`\bar G`), so that reconstructing the gradient needs the rows of free variables only;
* **kernel rows** computed on demand: the full Gram matrix is kept when it fits ``cache_size``
  megabytes (its rows filled, a block at a time, only when first used), otherwise a
  least-recently-used cache of rows, which shrinking restricts to the active samples.

The code follows the paper, not LIBSVM's source. Inside the solver it works with
:math:`v_t = -y_t \nabla f_t`, so that :math:`m = \max_{I_{up}} v`, :math:`M = \min_{I_{low}} v`
and one SMO step along the feasible direction ``d`` changes ``v`` by
:math:`-d\,(K_{\cdot i} - K_{\cdot j})`. The iterations run in a loop compiled with numba
(``kmlib._smo_loop``, cached on disk): selection, step, gradient update and shrinking are a
few passes over the active variables, as in LIBSVM. The loop returns to Python only to have a
kernel row computed (by the kernel's own :meth:`~kmlib.kernels.Kernel.gram_rows`, checked for
finiteness), the gradient of shrunk variables reconstructed or the row cache cut down to the
active samples, then resumes.

:func:`duality_gap` gives a certificate for any feasible point: :math:`f(\alpha) - f^\star`
is at most the returned gap, and it is at most :math:`\varepsilon\sum_t C_t` at the solver's
stopping point. The tests use it to compare with LIBSVM without a hand-picked tolerance.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._kernel_checks import evaluate_kernel
from .kernels import GramRows, Kernel, _column_positions, _set_diagonal

__all__ = ["KernelRows", "SMOResult", "duality_gap", "solve"]

#: Shrinking is tried every ``min(n, SHRINK_PERIOD)`` iterations, as in LIBSVM.
SHRINK_PERIOD = 1000

_MIB = float(1 << 20)
#: In full mode rows are computed in blocks of ``(ROW_BLOCK_SAMPLES / n)**2`` rows (at least one):
#: a call of the row path costs about as much as a row of a few thousand entries, which a block
#: spreads over its rows, but a block also computes rows SMO never asks for, and with more
#: samples a smaller share of them is asked for (sizes measured with benchmarks/bench_svm.py).
ROW_BLOCK_SAMPLES = 5000


# ====================================================================== kernel rows
class KernelRows:
    """Rows of the kernel matrix of ``n`` samples, computed when first asked for.

    When the whole ``n x n`` matrix fits ``cache_size`` megabytes it is allocated once; a kernel
    with a fast row path (:meth:`kmlib.kernels.Kernel.gram_rows`: the stationary kernels and
    sums and products of them) fills a row, with the rows of a small block of neighbouring
    samples, the first time the solver needs it (blocks the solver never reaches are never
    computed), any other kernel is evaluated once as a whole. Otherwise rows live in a
    least-recently-used cache of ``cache_size`` megabytes (at least three rows), like LIBSVM's
    kernel cache. Every row is checked: a kernel
    that returns NaN or infinite values stops the solver with a ``ValueError``.

    In cache mode the stored rows can be restricted to some ``columns`` (:meth:`restrict`):
    once shrinking has set most variables aside, SMO reads only the columns of the active ones,
    so shorter rows let more of them fit the budget and cost less to compute (LIBSVM caches
    rows over its active set for the same reason).

    All modes keep their rows in one array, ``storage``, which the compiled SMO loop reads
    directly: the row of sample ``s`` is ``storage[slot_of[s]]`` when ``slot_of[s] >= 0``, its
    entry for sample ``u`` at ``position[u]``, and ``last_use`` stamps each slot with the time
    (``clock``) it was last read, for the eviction.

    Parameters
    ----------
    kernel : kmlib kernel, callable or None, default=None
        A kmlib kernel or any callable ``k(A, B)``; ``None`` with ``matrix``.
    X : ndarray of shape (n, d) or None, default=None
        Training inputs.
    cache_size : float, default=200.0
        Memory budget in megabytes (2**20 bytes) for stored rows; LIBSVM's default is 200.
    matrix : ndarray of shape (n, n), default=None
        A precomputed Gram matrix (then ``kernel`` and ``X`` are ignored).

    Attributes
    ----------
    n : int
        Number of samples.
    diag : ndarray of shape (n,)
        :math:`K_{ss}`.
    n_computed : int
        Rows computed so far (a row evicted from the cache and needed again counts twice).
    mode : str
        ``"precomputed"``, ``"full"`` (whole matrix, filled lazily) or ``"cache"`` (LRU).
    columns : ndarray of int, shape (m,)
        The samples the stored rows hold, increasing (all ``n`` except after :meth:`restrict`).
    position : ndarray of int, shape (n,)
        Position of each sample in ``columns``, -1 when it is not there.
    storage : ndarray of shape (n_slots, m)
        The stored rows (``n_slots = n`` except in cache mode).
    slot_of : ndarray of int, shape (n,)
        Slot of each sample's row, -1 when it is not stored.
    last_use : ndarray of int, shape (n_slots,)
        When each slot was last read (0: never); ``clock``, shape (1,), is the current time.
    """

    def __init__(self, kernel=None, X=None, *, cache_size=200.0, matrix=None):
        self.n_computed = 0
        if matrix is not None:
            matrix = np.asarray(matrix, dtype=np.float64)
            self._set_matrix(_finite(matrix, "the precomputed matrix"))
            return
        self.kernel = kernel
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.n = n = self.X.shape[0]
        source = kernel.gram_rows(self.X) if isinstance(kernel, Kernel) else None
        fast = source is not None and source.fast
        budget_rows = int(float(cache_size) * _MIB // (8 * n))
        if budget_rows >= n and not fast:
            self._set_matrix(evaluate_kernel(kernel, self.X))  # one call beats n calls
            self.n_computed = n
            return
        if fast:
            self._rows_over = partial(kernel.gram_rows, self.X)  # no cycle through self
        else:
            diag = None if source is None else source.diag
            self._rows_over = partial(_checked_rows, kernel, self.X, diag)
            source = self._rows_over(None)
        self._fill = source.fill
        self.diag = _finite(np.array(source.diag, dtype=np.float64), "the kernel's diagonal")
        self.mode = "full" if budget_rows >= n else "cache"
        self._block = max(1, (ROW_BLOCK_SAMPLES // n) ** 2) if self.mode == "full" else 1
        # slots are taken in order of first use, so memory is touched only for rows computed;
        # in cache mode rows of any length share the pool (restrict)
        self._pool = np.empty(min(max(budget_rows, 3), n) * n)
        self._set_storage(self._pool.reshape(-1, n))

    def _set_matrix(self, K):
        if K.ndim != 2 or K.shape[0] != K.shape[1]:
            raise ValueError(f"a precomputed kernel must be square; got shape {K.shape}")
        self.n = K.shape[0]
        self.diag = np.ascontiguousarray(np.diag(K))
        self.mode = "precomputed"
        self._set_storage(np.ascontiguousarray(K))
        self.slot_of[:] = np.arange(self.n)

    def _set_storage(self, storage):
        self.storage = storage
        self.columns = self.position = np.arange(self.n)
        self.slot_of = np.full(self.n, -1, dtype=np.int64)
        self._sample_in = np.full(storage.shape[0], -1, dtype=np.int64)  # inverse of slot_of
        self._n_used = 0  # slots 0 .. _n_used - 1 hold rows
        self.last_use = np.zeros(storage.shape[0], dtype=np.int64)
        self.clock = np.ones(1, dtype=np.int64)

    # ------------------------------------------------------------------ rows
    def load(self, s):
        """Compute and store row ``s`` in the first unused slot, else in place of the least
        recently used row (cache mode).

        In full mode, where every row finds a place, the rows of its block of samples
        (``ROW_BLOCK_SAMPLES``) are computed with it: one call per block costs less than one
        per row when, as in SMO on few samples, most rows end up being needed.

        Returns
        -------
        int
            Its slot in ``storage``.
        """
        if self.mode == "full":
            first = s - s % self._block
            samples = np.arange(first, min(first + self._block, self.n))
            self._store(samples[self.slot_of[samples] < 0])
            return self.slot_of[s]
        if self._n_used < self.storage.shape[0]:
            slot = self._n_used
            self._n_used += 1
        else:  # the least recently used row goes
            slot = int(np.argmin(self.last_use))
            if self._sample_in[slot] >= 0:
                self.slot_of[self._sample_in[slot]] = -1
        self._compute(np.array([s]), slot)
        return slot

    def _store(self, samples, rows_per_call=256):
        """Compute the rows of ``samples`` (none stored yet) in the next free slots, full mode,
        ``rows_per_call`` at a time (a composite kernel's row path holds temporaries that big)."""
        for start in range(0, samples.size, rows_per_call):
            part = samples[start : start + rows_per_call]
            self._n_used += part.size
            self._compute(part, self._n_used - part.size)

    def _compute(self, samples, slot):
        """Compute the rows of ``samples`` into the slots from ``slot`` on and record them."""
        slots = np.arange(slot, slot + samples.size)
        self.n_computed += samples.size
        block = self.storage[slot : slot + samples.size]
        _finite(self._fill(samples, block), "rows {} of the kernel matrix", samples)
        self.slot_of[samples], self._sample_in[slots] = slots, samples
        self._stamp(slots)

    def _stamp(self, slot):
        self.last_use[slot] = self.clock[0]
        self.clock[0] += 1

    def row(self, s):
        """Row ``s`` of the kernel matrix over ``columns``, ndarray of shape (m,). Read it, do not
        modify it.

        In cache mode the returned array is reused once the row is evicted, which takes at
        least three further calls with other rows.
        """
        slot = self.slot_of[s]
        if slot < 0:
            slot = self.load(s)
        else:
            self._stamp(slot)
        return self.storage[slot]

    def restrict(self, columns):
        """Make the stored rows hold the samples ``columns`` (increasing), in cache mode only.

        Stored rows are cut down to them when ``columns`` is a subset of the present columns
        by at least a quarter (a smaller saving is not worth the copy; the present columns are
        then kept); a set that is not a subset empties the cache.
        """
        columns = np.asarray(columns, dtype=np.int64)
        if self.mode != "cache" or np.array_equal(columns, self.columns):
            return
        subset = bool(np.all(self.position[columns] >= 0))
        if subset and columns.size > 0.75 * self.columns.size:
            return
        width = max(columns.size, 1)
        n_slots = min(self.n, self._pool.size // width)
        storage = self._pool[: n_slots * width].reshape(n_slots, width)
        if subset:  # slot by slot in increasing order: a row never overwrites one still unread
            keep = self.position[columns]
            stored = np.flatnonzero(self._sample_in >= 0)
            for slot in stored:
                storage[slot] = self.storage[slot, keep]
            last_use, sample_in, clock, n_used = (
                self.last_use, self._sample_in, self.clock, self._n_used
            )
            self._set_storage(storage)
            self.last_use[: last_use.size], self._sample_in[: sample_in.size] = last_use, sample_in
            self.slot_of[sample_in[stored]] = stored
            self.clock, self._n_used = clock, n_used
        else:
            self._set_storage(storage)
        self.columns = columns
        self.position = np.full(self.n, -1, dtype=np.int64)
        self.position[columns] = np.arange(columns.size)
        self._fill = self._rows_over(columns).fill

    def dot(self, rows, cols, w):
        """``K[rows][:, cols] @ w``, from the rows of the samples ``cols`` (K is symmetric).

        Stored rows serve when they hold the columns ``rows``; in full mode a missing row is
        computed and stored, in cache mode it is computed over all samples, used and dropped.

        Parameters
        ----------
        rows : ndarray of int, shape (r,)
        cols : ndarray of int, shape (c,)
        w : ndarray of shape (c,)

        Returns
        -------
        ndarray of shape (r,)
        """
        from ._smo_loop import add_weighted_rows  # numba: KernelRows serves solves only

        out = np.zeros(len(rows))
        if len(cols) == 0 or len(rows) == 0:
            return out
        rows, cols, w = np.asarray(rows), np.asarray(cols), np.asarray(w, dtype=np.float64)
        if self.mode == "full":  # the missing rows in one call
            self._store(np.unique(cols[self.slot_of[cols] < 0]))
        at = self.position[rows]
        stored = (self.slot_of[cols] >= 0) & bool(np.all(at >= 0))
        add_weighted_rows(self.storage, self.slot_of[cols[stored]], w[stored], at, out)
        missing = np.flatnonzero(~stored)
        chunk = max(1, int(2**24 // (8 * self.n)))  # at most 16 MB of rows at a time
        fill = self._rows_over(None).fill if missing.size else None
        block = np.empty((min(chunk, missing.size), self.n))
        for start in range(0, missing.size, chunk):
            part = missing[start : start + chunk]
            rows_c = _finite(fill(cols[part], block[: part.size]), "rows {}", cols[part])
            out += (w[part] @ rows_c)[rows]
        self.n_computed += missing.size
        return out


def _checked_rows(kernel, X, diag, columns):
    """Gram rows of a kernel without a fast row path: one checked call
    ``k(X[samples], X[columns])`` per block of rows (``columns``: all samples when None).

    ``diag`` is the kernel's diagonal; for a plain callable (``None``) it is evaluated point by
    point.
    """
    if diag is None:
        diag = np.array([evaluate_kernel(kernel, x[None], x[None])[0, 0] for x in X])
    columns, where = _column_positions(X.shape[0], columns)
    X_columns = X[columns]

    def fill(samples, out):
        out[:] = evaluate_kernel(kernel, X[samples], X_columns)
        _set_diagonal(out, samples, where, diag)
        return out

    return GramRows(fill, diag, fast=False)


def _finite(values, what, *details):
    """``values`` after checking that they are finite (a faulty kernel must not hang SMO).

    A finite sum settles it in one pass; only a sum that is not (a NaN or an infinity, or an
    overflow) needs the elementwise test. The message names ``what.format(*details)``.
    """
    if not np.isfinite(np.sum(values)) and not np.all(np.isfinite(values)):
        raise ValueError(
            f"the kernel returned non-finite values (NaN or infinite) for "
            f"{what.format(*details)}; check its hyperparameters and the scale of the inputs"
        )
    return values


# ====================================================================== the solver
class SMOResult(NamedTuple):
    """Solution of :func:`solve`.

    Attributes
    ----------
    alpha : ndarray of shape (n_var,)
        The (best) point found.
    grad : ndarray of shape (n_var,)
        :math:`\\nabla f(\\alpha) = Q\\alpha + p`.
    b : float or ndarray of shape (2,)
        Offset of the decision function :math:`\\sum_t y_t\\alpha_t K(x, x_{s(t)}) + b`; LIBSVM's
        ``rho`` is ``-b``. With ``two_constraints`` one value per sign of ``y``, ``[b_+, b_-]``.
    objective : float
        :math:`f(\\alpha)`.
    gap : float
        Final maximal KKT violation :math:`m(\\alpha) - M(\\alpha)` (the largest over both signs
        of ``y`` with ``two_constraints``); below ``tol`` when ``converged``.
    n_iter : int
        SMO iterations (working sets optimised).
    converged : bool
        ``False`` when ``max_iter`` stopped the solver.
    """

    alpha: np.ndarray
    grad: np.ndarray
    b: float | np.ndarray
    objective: float
    gap: float
    n_iter: int
    converged: bool

    @property
    def rho(self):
        """LIBSVM's ``rho = -b``."""
        return -self.b


def _membership(alpha, y, C):
    """Boolean masks of :math:`I_{up}` and :math:`I_{low}` (Fan, Chen & Lin 2005)."""
    pos = y > 0
    below = alpha < C
    above = alpha > 0
    up = np.where(pos, below, above)
    low = np.where(pos, above, below)
    return up, low


def _bias(v, alpha, y, C):
    """Offset ``b`` from the free variables, else the midpoint of the feasible interval."""
    free = (alpha > 0) & (alpha < C)
    if np.any(free):
        return float(np.mean(v[free]))  # at the optimum v_t = b for every free t
    up, low = _membership(alpha, y, C)
    only_up = up & ~low
    only_low = low & ~up
    hi = np.max(v[only_up]) if np.any(only_up) else np.nan
    lo = np.min(v[only_low]) if np.any(only_low) else np.nan
    if np.isnan(hi):
        return float(lo) if not np.isnan(lo) else 0.0
    if np.isnan(lo):
        return float(hi)
    return 0.5 * float(hi + lo)


def _violation(v, alpha, y, C):
    """:math:`m(\\alpha) - M(\\alpha)` over one group of variables."""
    up, low = _membership(alpha, y, C)
    if not np.any(up) or not np.any(low):
        return -np.inf
    return float(np.max(v[up]) - np.min(v[low]))


def solve(
    rows,
    y,
    p,
    C,
    alpha0=None,
    *,
    sample_index=None,
    two_constraints=False,
    tol=1e-3,
    max_iter=-1,
    shrinking=True,
):
    r"""Minimise :math:`\tfrac12\alpha^TQ\alpha + p^T\alpha` s.t. :math:`y^T\alpha = \Delta`,
    :math:`0 \le \alpha \le C`, by SMO with second-order working-set selection.

    Parameters
    ----------
    rows : KernelRows
        Kernel matrix of the samples; :math:`Q_{tu} = y_t y_u K_{s(t) s(u)}`.
    y : array_like of shape (n_var,)
        Signs :math:`\pm 1` of the variables.
    p : array_like of shape (n_var,) or float
        Linear term.
    C : array_like of shape (n_var,) or float
        Upper bounds :math:`C_t > 0`.
    alpha0 : array_like of shape (n_var,), default=None
        A feasible starting point (``None``: zeros); it fixes :math:`\Delta = y^T\alpha_0`
        (and, with ``two_constraints``, the sums of ``alpha`` over each sign of ``y``).
    sample_index : array_like of int, shape (n_var,), default=None
        Sample ``s(t)`` of each variable (``None``: ``arange(n_var)``).
    two_constraints : bool, default=False
        Keep :math:`\sum_{y_t=+1}\alpha_t` and :math:`\sum_{y_t=-1}\alpha_t` fixed separately
        (the ν-SVM duals): working pairs are then taken within one sign of ``y``.
    tol : float, default=1e-3
        Stopping tolerance :math:`\varepsilon` on :math:`m(\alpha) - M(\alpha)`.
    max_iter : int, default=-1
        Iteration limit; ``-1`` means LIBSVM's ``max(10**7, 100 n_var)``. When it is reached a
        :class:`~sklearn.exceptions.ConvergenceWarning` is issued and the last (best) point is
        returned: every SMO step lowers :math:`f`.
    shrinking : bool, default=True
        Use the shrinking heuristics.

    Returns
    -------
    SMOResult

    Examples
    --------
    The C-SVM dual (PRML 7.32) of four points on a line, two per class: ``p = -1``, ``C = 10``.
    The margin lies between 1 and 3, so the two inner points are the support vectors, each with
    :math:`\alpha = 1/2`, and the decision function is :math:`x - 2`:

    >>> import numpy as np
    >>> from kmlib.kernels import Linear
    >>> from kmlib.smo import KernelRows, solve
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]])
    >>> y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> result = solve(KernelRows(Linear(), X), y, -1.0, 10.0, tol=1e-8)
    >>> print(np.round(result.alpha, 4), round(float(result.b), 4), result.converged)
    [0.  0.5 0.5 0. ] -2.0 True
    """
    y = np.array(y, dtype=np.float64).ravel()  # a writeable copy for the compiled loop
    n_var = y.size
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must hold only +1 and -1")
    p = np.broadcast_to(np.asarray(p, dtype=np.float64), (n_var,)).astype(np.float64)
    C = np.broadcast_to(np.asarray(C, dtype=np.float64), (n_var,)).astype(np.float64)
    if not np.all(np.isfinite(C)) or np.any(C <= 0):
        raise ValueError("C must be finite and positive for every variable")
    if not tol > 0:
        raise ValueError(f"tol must be positive; got {tol!r}")
    alpha = np.zeros(n_var) if alpha0 is None else np.array(alpha0, dtype=np.float64).ravel()
    if alpha.shape != (n_var,) or np.any(alpha < 0) or np.any(alpha > C):
        raise ValueError("alpha0 must have one entry per variable with 0 <= alpha0 <= C")
    s = np.arange(n_var) if sample_index is None else np.asarray(sample_index, dtype=np.intp)
    if s.shape != (n_var,) or (n_var and (s.min() < 0 or s.max() >= rows.n)):
        raise ValueError("sample_index must give a sample of the kernel matrix for each variable")
    if max_iter is None or max_iter < 0:
        max_iter = max(10_000_000, 100 * n_var)
    solver = _Solver(rows, y, p, C, alpha, s, bool(two_constraints), float(tol), bool(shrinking))
    return solver.result(solver.run(int(max_iter)))


class _Solver:
    """State of one SMO run; the iterations themselves run in :func:`kmlib._smo_loop.iterate`.

    Per-variable arrays have shape (n_var,). While variables are shrunk they are permuted alike,
    the active ones first (``index`` holds each entry's variable); whenever every variable is
    active they are in the caller's order.
    """

    def __init__(self, rows, y, p, C, alpha, s, two_constraints, tol, shrinking):
        n_var = y.size
        self.rows, self.tol, self.shrinking, self.two = rows, tol, shrinking, two_constraints
        self.y, self.p, self.C, self.alpha = y, p, C, alpha
        self.s = np.ascontiguousarray(s, dtype=np.int64)
        self.samples = np.unique(self.s)
        self.diag = rows.diag[self.s]
        self.index = np.arange(n_var, dtype=np.int64)
        # v = -y * grad, grad = Q alpha + p (Fan, Chen & Lin 2005); only the samples
        # with a non-zero sum of y_t alpha_t contribute to Q alpha
        # v_t = -y_t p_t - gbar[s_t] - (free part), with gbar = K beta_C the contribution of the
        # variables at their upper bound, kept up to date as they reach or leave it (LIBSVM's
        # G_bar), so that reconstructing the gradient needs only the rows of free variables
        at_upper = alpha >= C
        beta_upper = np.bincount(self.s, weights=y * C * at_upper, minlength=rows.n)
        nz = np.flatnonzero(beta_upper)
        self.gbar = rows.dot(np.arange(rows.n), nz, beta_upper[nz])
        self.missed = np.zeros(rows.n)  # gbar changes the samples outside rows.columns missed
        self.v = -y * p - self.gbar[self.s] - self._k_dot_free(self.index)
        self.up, self.low = _membership(alpha, y, C)
        self.col = np.empty(n_var, dtype=np.int64)
        self._restrict(self.samples)
        self.converged = False

    # ------------------------------------------------------------------ bookkeeping
    def _k_dot_free(self, targets):
        """Kernel part of ``-v`` from the free variables, for the entries ``targets``."""
        free = (self.alpha > 0) & (self.alpha < self.C)
        beta = np.bincount(self.s, weights=self.y * self.alpha * free, minlength=self.rows.n)
        nz = np.flatnonzero(beta)
        samples, inverse = np.unique(self.s[targets], return_inverse=True)
        return self.rows.dot(samples, nz, beta[nz])[inverse]

    def _restrict(self, samples):
        """Restrict the stored rows to ``samples`` (:meth:`KernelRows.restrict`), after adding
        to ``gbar`` of the samples outside the present columns the changes they missed."""
        changed = np.flatnonzero(self.missed)
        outside = self.samples[self.rows.position[self.samples] < 0]
        if changed.size and outside.size:
            self.gbar[outside] += self.rows.dot(outside, changed, self.missed[changed])
        self.missed[changed] = 0.0
        self.rows.restrict(samples)
        self.col[:] = self.rows.position[self.s]

    def _unshrink(self, n_active):
        """Recompute ``v`` of the shrunk entries ``n_active:`` (LIBSVM, Chang & Lin 2011, §5),
        put every array back in the caller's order and let the rows hold every sample again."""
        self._restrict(self.rows.columns)  # gbar current for every sample
        shrunk = np.arange(n_active, self.y.size)
        if shrunk.size:
            self.v[shrunk] = (
                -self.y[shrunk] * self.p[self.index[shrunk]]
                - self.gbar[self.s[shrunk]]
                - self._k_dot_free(shrunk)
            )
        order = np.argsort(self.index)
        for name in ("v", "alpha", "y", "C", "s", "diag", "up", "low", "index"):
            values = getattr(self, name)
            values[:] = values[order]
        self._restrict(self.samples)

    # ------------------------------------------------------------------ main loop
    def run(self, max_iter):
        """Iterate until the stopping rule holds on the whole set or ``max_iter`` is reached."""
        from . import _smo_loop as loop  # numba is imported on the first solve only

        n_var = self.y.size
        if n_var == 0:
            self.converged = True
            return 0
        rows = self.rows
        state, bounds = np.zeros(loop.STATE_SIZE, dtype=np.int64), np.zeros(4)
        state[loop.N_ACTIVE] = n_var
        state[loop.COUNTER] = min(n_var, SHRINK_PERIOD)
        while True:
            status = loop.iterate(
                rows.storage, rows.slot_of, rows.last_use, rows.clock, rows.columns, state, bounds,
                self.v, self.alpha, self.y, self.C, self.s, self.col, self.diag, self.up,
                self.low, self.index, self.gbar, self.missed, self.tol, max_iter,
                self.shrinking, self.two, SHRINK_PERIOD, rows.mode == "cache",
            )  # fmt: skip
            if status == loop.NEED_ROW:
                rows.load(int(state[loop.NEEDED]))
            elif status == loop.SHRUNK:  # cache mode: shorter rows, if that saves enough
                self._restrict(np.unique(self.s[: state[loop.N_ACTIVE]]))
            elif status == loop.UNSHRINK:
                self._unshrink(state[loop.N_ACTIVE])
                state[loop.N_ACTIVE] = n_var
            else:
                break
        self.converged = status == loop.CONVERGED
        if state[loop.N_ACTIVE] < n_var:
            self._unshrink(state[loop.N_ACTIVE])
        rows.restrict(np.arange(rows.n))
        return int(state[loop.ITERATIONS])

    def result(self, n_iter):
        if not self.converged:
            warnings.warn(
                f"SMO stopped at max_iter={n_iter} iterations before the KKT violation "
                f"m - M fell below tol={self.tol:g}; the returned point is the best found. "
                "Increase max_iter, or scale the inputs.",
                ConvergenceWarning,
                stacklevel=3,
            )
        y, v, alpha, C = self.y, self.v, self.alpha, self.C
        grad = -y * v
        objective = 0.5 * float(np.dot(alpha, grad + self.p))  # f = a^T(Qa + 2p)/2
        groups = [y > 0, y < 0] if self.two else [slice(None)]
        b = [_bias(v[g], alpha[g], y[g], C[g]) for g in groups]
        gap = max(_violation(v[g], alpha[g], y[g], C[g]) for g in groups)
        return SMOResult(
            alpha=alpha,
            grad=grad,
            b=np.array(b) if self.two else b[0],
            objective=objective,
            gap=max(gap, 0.0),
            n_iter=n_iter,
            converged=self.converged,
        )


# ====================================================================== certificate
def duality_gap(alpha, grad, y, C, *, two_constraints=False):
    r"""Upper bound on :math:`f(\alpha) - f^\star` for a feasible :math:`\alpha` (a certificate).

    For convex :math:`f` and any multiplier :math:`b` of the equality constraint,

    .. math:: f(\alpha) - f^\star \le \sum_t \big[C_t \max(0, u_t) - \alpha_t u_t\big],
              \qquad u_t = y_t(v_t - b),\; v_t = -y_t\nabla f_t,

    because :math:`f(\beta) \ge f(\alpha) + \nabla f^T(\beta - \alpha)` and the minimum of the
    linear term over the box, with the equality constraint relaxed by :math:`b`, is the sum
    above. The bound is convex and piecewise linear in :math:`b`; it is minimised exactly (a
    weighted median of the :math:`v_t`). At a point where :math:`m - M < \varepsilon` it is at
    most :math:`\varepsilon \sum_t C_t`, and much less in practice. With ``two_constraints``
    there is one multiplier per sign of ``y`` and the two bounds add.

    Parameters
    ----------
    alpha, grad, y, C : ndarray of shape (n_var,)
        A feasible point, :math:`\nabla f(\alpha) = Q\alpha + p`, the signs and upper bounds.
    two_constraints : bool, default=False
        The ν-form with separate sums per sign of ``y``.

    Returns
    -------
    gap : float
        The bound (non-negative up to rounding).
    b : float or ndarray of shape (2,)
        The minimising multiplier(s).
    """
    alpha, grad, y = (np.asarray(a, dtype=np.float64).ravel() for a in (alpha, grad, y))
    C = np.broadcast_to(np.asarray(C, dtype=np.float64), alpha.shape)
    groups = [y > 0, y < 0] if two_constraints else [np.ones(y.size, dtype=bool)]
    total, bs = 0.0, []
    for g in groups:
        a, yy, cc = alpha[g], y[g], C[g]
        v = -yy * grad[g]
        if v.size == 0:
            bs.append(0.0)
            continue
        order = np.argsort(v, kind="stable")
        # slope of the bound in b below every v_t, then +C_t as b passes each v_t
        slope0 = np.sum(a * yy) - np.sum(cc[yy > 0])
        slopes = slope0 + np.cumsum(cc[order])
        k = int(np.searchsorted(slopes, 0.0))  # first breakpoint with slope >= 0 after it
        b = v[order[min(k, v.size - 1)]]
        u = yy * (v - b)
        total += float(np.sum(cc * np.maximum(u, 0.0) - a * u))
        bs.append(float(b))
    return total, (np.array(bs) if two_constraints else bs[0])

