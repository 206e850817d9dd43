r"""The fast sequential algorithm of the relevance vector machine (PRML 7.2.2; Tipping & Faul 2003).

Tipping & Faul's marginal-likelihood maximisation starts with no basis function (a classifier
also climbs from two more starts, see :func:`sequential_classification`). Each step computes
the sparsity and quality factors (7.102)–(7.107) of every candidate and takes the single add,
re-estimate or delete move (7.101) that raises the log evidence most, by exactly
:math:`\lambda(\alpha_i^{\rm new}) - \lambda(\alpha_i^{\rm old})` of (7.96)–(7.97). Only the
active basis functions are factorised.

* **Regression** (:func:`sequential_regression`). The posterior and the factors of all
  candidates follow each move by the rank-one updates of Tipping & Faul's Appendix A
  (:class:`_SequentialPosterior`); runs of such moves are compiled (:mod:`kmlib._rvm_moves`).
  The noise precision (step 8) is re-estimated between moves. When neighbouring kernel columns
  are nearly collinear, single moves creep along a ridge of the evidence, moving the same few
  functions again and again. When the best move re-estimates a function moved within the last
  ``CREEP_WINDOW`` moves, a joint Newton step in the prior variances of the active functions is
  tried instead, and taken if it gains more than that move (:func:`_joint_step`), or, failing
  that, the same step in the two coordinates of the function to be re-estimated and its most
  nearly parallel active neighbour.
* **Classification** (:func:`_climb_classification`). The moves act on the Gaussian surrogate
  (7.117)–(7.119) of the Laplace fit; after each, the weight mode is found afresh.

The constants below set how often the costly steps (a new noise precision, a fresh
factorisation, a joint step, the Gram matrix, another start) are taken; each says what it trades
and where its value was measured, or that it was not. The equations come from
:mod:`kmlib._rvm_model`; :mod:`kmlib.rvm` runs this algorithm for ``method="sequential"`` on
unit-length columns and, for regression, targets of unit root mean square.
"""

from __future__ import annotations

import numpy as np

from . import _linalg
from ._rvm_model import (
    MAX_SCALED_BETA,
    RegressionPosterior,
    _beta_candidates,
    _Fit,
    _heading_out,
    _leave_one_out,
    _posterior,
    _regression_factors,
    _report,
    classification_mode,
    log_evidence_term,
)

__all__ = ["initial_noise_precision", "sequential_classification", "sequential_regression"]


# ---------------------------------------------------------------------------- tuned constants
# What each trades, and where its value comes from: the data it was measured on and what was
# seen there, or "not measured" where it was set by reasoning alone.

#: Step halvings tried before a joint Newton step is given up for a single move. Each halving
#: costs one factorisation of the k x k posterior; more halvings find a gain on more sharply
#: curved ridges, at that cost. Not measured: after four halvings the step is a sixteenth of
#: Newton's, and an attempt that fails has cost four factorisations.
JOINT_STEP_HALVINGS = 4
#: Sequential regression tries a joint step only when the best move re-estimates a function it
#: moved within this many moves: the crawl along a ridge of nearly collinear columns
#: (tests/test_rvm.py, test_joint_step_follows_the_ridge_of_neighbouring_columns, shows one). A
#: wider window tries more joint steps, each a Hessian decomposition and a few factorisations,
#: against the hundreds of single moves a crawl can take; elsewhere single moves are cheaper.
#: Not measured against other widths.
CREEP_WINDOW = 4
#: Sequential regression re-estimates the noise precision after one single move per this many
#: active functions, and after every move while fewer are active
#: (kmlib._rvm_moves.beta_interval). A new beta changes every factor and needs a fresh
#: factorisation, O(M k^2) against the O(M k) of a move: fewer updates are faster, but a beta
#: that lags the moves can lead the fit to a lower maximum. Measured on the ten-point sinusoid
#: draws of PRML 7.2.1: a fixed interval of five moves left more sequential fits below
#: re-estimation's evidence than updating after every move while the model is small, as this
#: rule does. The divisor 5 itself, kept from that fixed interval, was not measured.
BETA_UPDATE_PER_ACTIVE = 5
#: Sequential regression: rank-one updates between two fresh factorisations. A refresh costs
#: O(M k^2 + k^3) and clears the rounding drift that the updates accumulate; rarer refreshes are
#: faster. Not tuned: tests/test_rvm.py (test_rank_one_updates_equal_a_fresh_factorisation_
#: after_many_moves) finds Sigma, m, S and Q within 1e-10 (relative) of a fresh factorisation
#: after 300 updates without one (120 sinusoid points, length-scale 0.03), so 50 leaves a wide
#: margin; its cost in time was not measured.
FULL_REFRESH_EVERY = 50
#: Sequential regression computes the M x M Gram matrix of the basis after this many adds, and
#: from then on reads an added column's products phi_m^T phi_i from it instead of computing
#: them, O(n M) per add. The whole matrix costs about as much as a few dozen such products (one
#: matrix-matrix product), so it pays only when many adds follow: a fit with few relevance
#: vectors never computes it. Not measured: 16 stands for "a few dozen" ...
GRAM_AFTER_ADDS = 16
#: ... if M is at most this, so that the matrix takes at most 128 MB: memory against the speed
#: of the adds. Not measured: a bound on memory.
GRAM_MAX_COLUMNS = 4000
#: Sequential classification: columns in each spread start (see _spread_start). Each start is
#: one more climb (three in all instead of one from the empty model): time, against the risk
#: of stopping at a weak maximum (on crabs, from l = 2 on, the empty start alone ends more than
#: 50 nats below). Measured on crabs (benchmarks/bench_rvc.py; tests/test_rvm.py,
#: test_classifier_finds_a_separating_maximum_on_crabs): ten columns, chosen on 24 splits and
#: length-scales as the start that reached the separating maxima most often (the other sizes
#: tried are not recorded); forty added because at l = 1.1 ten stopped 5.8 nats below the best
#: of 20 random starts, and forty 0.3 nats.
SPREAD_START_SIZES = (10, 40)
#: ... and their precision over the median of 1 - |cosine| between them, which gives the
#: differences of nearly parallel columns a prior variance that does not depend on how parallel
#: they are. It trades no time directly: it decides where the climbs start, and so which
#: maximum they reach. Chosen on crabs (8 splits x 3 length-scales, and 2 broader ones) for
#: the median gap to the best of 20 random starts; with it the spread start reaches a
#: separating maximum at every length-scale of the MLAPP 14.6 grid, where the fixed precision
#: 0.01 it replaced stayed at a weak classifier from l = 2 sqrt(5) on.
SPREAD_START_SCALE = 0.005
#: Below this median 1 - |cosine| the columns are parallel to rounding (inputs far below the
#: length-scale) and there is no spread start, whose precision would be zero. It costs no time.
#: Not measured: chosen far above the rounding error of a cosine of unit columns (about 1e-16).
PARALLEL = 1e-10


# ---------------------------------------------------------------- the best move, a joint step
def _best_move(alpha, factors):
    """The add / re-estimate / delete move (7.101) with the largest gain (7.96) in evidence,
    ``(i, new_alpha, gain)``, from the precisions ``alpha`` (n_basis,) and the
    :class:`~kmlib._rvm_model.SparsityQuality` ``factors`` of every function (compiled:
    ``kmlib._rvm_moves.best_move``).

    At the optimum (7.101), lambda of (7.97) has a closed form in r = q^2/s alone:
    lambda(s^2/(q^2 - s)) = (r - 1 - ln r)/2 for r > 1, and 0 (the function left out) otherwise.
    """
    from . import _rvm_moves  # numba: imported on the first sequential fit only

    i, new_alpha, gain = _rvm_moves.best_move(
        np.ascontiguousarray(factors.s, dtype=np.float64),
        np.ascontiguousarray(factors.q, dtype=np.float64),
        np.ascontiguousarray(alpha, dtype=np.float64),
    )
    return int(i), float(new_alpha), float(gain)


def _variance_gradient_hessian(alpha, mean, cov):
    r"""Gradient (k,) and Hessian (k, k) of the log evidence (7.85) in the prior variances
    :math:`u_i = 1/\alpha_i` of the active functions, at fixed :math:`\beta`, from their
    precisions ``alpha`` (k,) and posterior ``mean`` (k,) and ``cov`` (k, k).

    :math:`\mathbf C = \beta^{-1}\mathbf I + \sum_i u_i\boldsymbol\phi_i\boldsymbol\phi_i^\top`
    (7.86) is linear in :math:`\mathbf u`, and with :math:`K_{ij} = \boldsymbol\phi_i^\top
    \mathbf C^{-1}\boldsymbol\phi_j` and :math:`\partial\mathbf C^{-1}/\partial u_j =
    -\mathbf C^{-1}\boldsymbol\phi_j\boldsymbol\phi_j^\top\mathbf C^{-1}`,

    .. math:: g_i = \tfrac12(Q_i^2 - S_i), \qquad H_{ij} = \tfrac12 K_{ij}^2 - Q_i Q_j K_{ij},

    where, for active functions, :math:`\mathbf K = \mathbf A - \mathbf A\boldsymbol\Sigma
    \mathbf A`, :math:`Q_i = \alpha_i m_i` and :math:`S_i = K_{ii}` (from (7.82)-(7.83) and the
    Woodbury identity). :math:`g_i = 0` is the fixed point (7.87).
    """
    K = np.diag(alpha) - np.outer(alpha, alpha) * cov
    Q = alpha * mean
    gradient = 0.5 * (Q**2 - np.diag(K))
    hessian = 0.5 * K**2 - np.outer(Q, Q) * K
    return gradient, hessian


def _joint_step(alpha, post, evidence_at, must_beat, block=None):
    """A joint Newton step in the prior variances u = 1/alpha of several active functions.

    Single-coordinate moves creep when active columns are nearly collinear: the evidence then
    depends almost only on the sum of their variances, a straight ridge in u, and each move
    shifts a little variance from one to the other, so that one reaches alpha = inf (u = 0) only
    after hundreds of steps. The joint step (:func:`_variance_gradient_hessian`) follows the
    ridge at once: Newton's step in the coordinates ``block`` (positions in ``alpha``; all of
    them by default) with the Hessian's eigenvalues replaced by minus their absolute values (so
    that it ascends even where the evidence is not concave), cut short where the first u_i
    reaches 0, which deletes that function. It is tried only if the quadratic model predicts a
    gain larger than ``must_beat``, the gain of the best single move, and step halving then
    looks for such a gain in the evidence itself; if there is none, None is returned.

    Parameters
    ----------
    alpha : ndarray of shape (k,)
        Precisions of the active functions.
    post : RegressionPosterior
        Their posterior.
    evidence_at : callable
        ``evidence_at(alpha)`` is the :class:`~kmlib._rvm_model.RegressionPosterior` at trial
        precisions (k,); it must accept ``inf`` entries (deleted functions).
    must_beat : float
        The gain in log evidence the step must exceed.
    block : array_like of int, default=None
        Positions in ``alpha`` to move together; ``None`` moves all of them.

    Returns
    -------
    tuple of (ndarray of shape (k,), RegressionPosterior), or None
        The precisions after the step (``inf`` for a function it deletes) and their
        posterior; None when no step gains more than ``must_beat``.
    """
    u = 1.0 / alpha
    block = np.arange(alpha.size) if block is None else np.asarray(block)
    gradient, hessian = _variance_gradient_hessian(alpha, post.mean, post.cov)
    gradient, hessian = gradient[block], hessian[np.ix_(block, block)]
    step = _uphill_newton_step(gradient, hessian)
    if not np.all(np.isfinite(step)):
        return None  # a zero Hessian: nothing to model
    shrinking = step < 0
    fraction = min(1.0, np.min(-u[block][shrinking] / step[shrinking], initial=np.inf))
    scaled = fraction * step
    if gradient @ scaled + 0.5 * scaled @ hessian @ scaled <= must_beat:
        return None  # not even the quadratic model beats the single move
    for _ in range(JOINT_STEP_HALVINGS):
        moved_u = u[block] + fraction * step
        moved_u[moved_u <= 1e-12 * u[block]] = 0.0  # the first to reach the boundary leaves
        trial_alpha = alpha.copy()  # the functions outside the block keep their alpha exactly
        with np.errstate(divide="ignore"):
            trial_alpha[block] = 1.0 / moved_u
        trial = evidence_at(trial_alpha)
        if trial.log_evidence - post.log_evidence > must_beat:
            return trial_alpha, trial
        fraction /= 2.0
    return None


def _uphill_newton_step(gradient, hessian):
    """Newton's step, shape (k,), for a maximum of a function with ``gradient`` (k,) and
    ``hessian`` (k, k), with the Hessian's eigenvalues replaced by minus their
    absolute values (floored at 1e-12 of the largest), so that it ascends even where the
    function is not concave. Where the Hessian is negative definite that is the plain Newton
    step, taken from one Cholesky factorisation of its negative instead of the eigenvectors.
    """
    L = _linalg.cholesky_if_definite(-hessian)
    if L is not None:
        return _linalg.cho_solve(L, gradient)
    curvature, vectors = np.linalg.eigh(hessian)
    curvature = np.maximum(np.abs(curvature), 1e-12 * np.max(np.abs(curvature)))
    return vectors @ ((vectors.T @ gradient) / curvature)


def _closest_partner(cross, active, norms2, i):
    """Position in ``active`` (k,) of the active column most collinear with column ``i`` (not
    i itself), from ``cross`` (n_basis, k), phi_m^T phi_j for every column m and active j, and
    the squared column norms ``norms2`` (n_basis,)."""
    cosine = np.abs(cross[i]) / np.sqrt(norms2[i] * norms2[active])
    cosine[active == i] = -1.0
    return int(np.argmax(cosine))


# ------------------------------------------------------------------------------ regression
def initial_noise_precision(t):
    """The sequential fit's first beta: a noise standard deviation of a tenth of the targets'
    standard deviation, as in Tipping's SparseBayes (its spread, not its mean square: the bias
    function explains the mean). Capped at ``MAX_SCALED_BETA`` (constant targets).

    Parameters
    ----------
    t : ndarray of shape (n,)
        Targets (scaled to unit root mean square by :class:`kmlib.rvm.RVR`).

    Returns
    -------
    beta : float
        The noise precision, at most ``MAX_SCALED_BETA``.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlib._rvm_sequential import initial_noise_precision
    >>> print(f"{initial_noise_precision(np.array([-1.0, 1.0])):.4g}")  # std 1: noise std 0.1
    100
    """
    spread = 0.1 * np.std(t)
    return min(1.0 / spread**2, MAX_SCALED_BETA) if spread > 0 else MAX_SCALED_BETA


class _SequentialPosterior:
    r"""The posterior and the factors of every candidate, kept up to date move by move.

    Tipping & Faul (2003), Appendix A: when one :math:`\alpha_i` is re-estimated, added or
    deleted, :math:`\boldsymbol\Sigma` (7.83), :math:`\mathbf m` (7.82) and :math:`S_m, Q_m`
    (7.102)-(7.103) of all :math:`M` candidates change by rank-one terms, which cost
    :math:`O(Mk)` (plus :math:`O(NM)` for the new column's products on an add) instead of the
    :math:`O(Mk^2 + k^3)` of a fresh factorisation. A change of :math:`\beta` changes every
    quantity, so it (and a joint step) is followed by :meth:`refresh`, which also removes the
    drift of the updates; the fit calls it every ``FULL_REFRESH_EVERY`` moves besides. The moves
    themselves are compiled (``kmlib._rvm_moves``), which keeps the state in buffers that grow
    by doubling; the attributes below are views of their used parts.

    Parameters
    ----------
    Phi : ndarray of shape (n, n_basis)
        All candidate basis functions (unit columns).
    t : ndarray of shape (n,)
        Targets.
    beta : float
        Noise precision to start from; the state starts from the empty model.

    Attributes
    ----------
    active : ndarray of shape (k,)
        Indices of the active columns, in the order of ``mean`` and ``cov`` (a deleted
        column's place is taken by the last one).
    alpha : ndarray of shape (n_basis,)
        Precisions, ``inf`` outside the model.
    beta : float
        Noise precision.
    cross : ndarray of shape (n_basis, k)
        :math:`\boldsymbol\phi_m^\top\boldsymbol\phi_j` for every column m and active j.
    basis : ndarray of shape (n, k)
        The active columns.
    mean, cov : ndarray of shapes (k,) and (k, k)
        :math:`\mathbf m` and :math:`\boldsymbol\Sigma`.
    S, Q : ndarray of shape (n_basis,)
        :math:`S_m` and :math:`Q_m`.
    log_evidence : float
        (7.85), updated by the exact gains (7.96) of the moves.
    counters : ndarray of shape (``moves.N_COUNTERS``,)
        The number of active functions and the fit's counts of iterations and moves, shared
        with the compiled moves (indices ``moves.K``, ``moves.ITERATIONS`` ...).
    recent : ndarray of shape (``CREEP_WINDOW``,)
        The functions of the last single moves (-1 for none yet).
    """

    def __init__(self, Phi, t, beta):
        from . import _rvm_moves as moves  # numba: imported on the first sequential fit only

        self.moves = moves
        self.Phi, self.t, self.beta = Phi, t, beta
        self.PhiT_t = Phi.T @ t
        self.norms2 = np.sum(Phi**2, axis=0)
        self.alpha = np.full(Phi.shape[1], np.inf)
        self.S, self.Q = self.beta * self.norms2, self.beta * self.PhiT_t  # (7.106)-(7.107)
        self.counters = np.zeros(moves.N_COUNTERS, dtype=np.int64)
        self.recent = np.full(CREEP_WINDOW, -1, dtype=np.int64)
        self._evidence = np.zeros(1)
        self._allocate(8)
        # phi_m^T phi_i for an added column i: a product of its own for the first adds, then
        # a column of the Gram matrix, once GRAM_AFTER_ADDS adds suggest that many more will
        # follow (the whole matrix costs about as much as a few dozen separate products)
        self.gram = np.zeros((0, 0))
        self.gram_allowed = Phi.shape[1] <= GRAM_MAX_COLUMNS
        self.refresh()

    def _allocate(self, capacity):
        """Buffers for ``capacity`` active functions, the used part copied over."""
        k = self.k  # 0 when the buffers are first made
        buffers = (
            np.zeros(capacity, dtype=np.int64),
            np.zeros(capacity),
            np.zeros((capacity, capacity)),
            np.zeros((self.Phi.shape[1], capacity), order="F"),
            np.zeros((self.Phi.shape[0], capacity), order="F"),
        )
        if k:
            buffers[0][:k], buffers[1][:k], buffers[2][:k, :k] = self.active, self.mean, self.cov
            buffers[3][:, :k], buffers[4][:, :k] = self.cross, self.basis
        self._active, self._mean, self._cov, self._cross, self._basis = buffers

    @property
    def k(self):
        """The number of active functions."""
        return int(self.counters[self.moves.K])

    @property
    def active(self):
        return self._active[: self.k]

    @property
    def mean(self):
        return self._mean[: self.k]

    @property
    def cov(self):
        return self._cov[: self.k, : self.k]

    @property
    def cross(self):
        return self._cross[:, : self.k]

    @property
    def basis(self):
        return self._basis[:, : self.k]

    @property
    def log_evidence(self):
        return float(self._evidence[0])

    def posterior(self, alpha_active=None, beta=None):
        """A fresh :func:`~kmlib.rvm.regression_posterior` of the active columns; trial values
        may be given: ``alpha_active`` of shape (k,) (default None: the current precisions; an
        ``inf`` leaves that column out) and ``beta`` (default None: the current one)."""
        alpha_active = self.alpha[self.active] if alpha_active is None else alpha_active
        beta = self.beta if beta is None else beta
        kept = np.isfinite(alpha_active)
        columns = self.active[kept]
        if kept.all():
            G, basis = self.cross[columns], self.basis
        else:
            G, basis = self.cross[np.ix_(columns, kept)], self.basis[:, kept]
        return _posterior(G, self.PhiT_t[columns], basis, self.t, alpha_active[kept], beta)

    def refresh(self, post=None):
        """Recompute everything from a factorisation (``post``, if given, is the posterior of
        the current active set and beta)."""
        post = self.posterior() if post is None else post
        k = self.k
        self._mean[:k], self._cov[:k, :k], self._evidence[0] = (
            post.mean,
            post.cov,
            post.log_evidence,
        )
        S, Q = _regression_factors(self.cross, self.PhiT_t, self.norms2, self.beta, post)
        self.S[:], self.Q[:] = S, Q

    def set_alpha(self, alpha_active, post):
        """Take new precisions for all active columns (a joint step) with their posterior."""
        keep = np.isfinite(alpha_active)
        self.alpha[self.active] = alpha_active
        k = int(np.sum(keep))
        self._active[:k] = self.active[keep]
        self._cross[:, :k] = self.cross[:, keep]
        self._basis[:, :k] = self.basis[:, keep]
        self.counters[self.moves.K] = k
        self.refresh(post)

    def set_beta(self, beta, post):
        """Take a new noise precision with its posterior."""
        self.beta = beta
        self.refresh(post)

    def factors(self):
        """s, q of every candidate by (7.104)-(7.105)."""
        return _leave_one_out(self.S, self.Q, self.alpha, self.active, self.mean, self.cov)

    def current(self):
        """The posterior as :func:`regression_posterior` returns it, without refactorising."""
        gamma = 1.0 - self.alpha[self.active] * np.diag(self.cov)
        residual = self.t - self.basis @ self.mean
        return RegressionPosterior(
            self.mean.copy(), self.cov.copy(), self.log_evidence, gamma, float(residual @ residual)
        )

    def add(self, i, alpha_i, gain):
        """Put column i in the model with precision alpha_i (``_rvm_moves.add_column``)."""
        k = self.k
        if k == self._active.size:
            self._allocate(2 * k)
        self.counters[self.moves.N_ADDS] += 1
        if (
            not self.gram.size
            and self.gram_allowed
            and self.counters[self.moves.N_ADDS] > GRAM_AFTER_ADDS
        ):
            self.gram = self.Phi.T @ self.Phi
        self.moves.add_column(
            int(i),
            float(alpha_i),
            self.S,
            self.Q,
            self.alpha,
            self._active,
            k,
            self._mean,
            self._cov,
            self._cross,
            self._basis,
            self.Phi,
            self.gram,
            self.beta,
        )
        self.counters[self.moves.K] = k + 1
        self._evidence[0] += gain

    def update(self, i, alpha_i, gain):
        """Re-estimate column i's precision to alpha_i, or delete it when alpha_i is inf
        (``_rvm_moves.update_column``)."""
        j = int(np.flatnonzero(self.active == i)[0])
        self.counters[self.moves.K] = self.moves.update_column(
            j,
            float(alpha_i),
            self.S,
            self.Q,
            self.alpha,
            self._active,
            self.k,
            self._mean,
            self._cov,
            self._cross,
            self._basis,
            self.beta,
        )
        self._evidence[0] += gain

    def single_moves(self, path, tol, max_iter, verbose):
        """Plain single moves, compiled (``_rvm_moves.single_moves``); returns its status."""
        return self.moves.single_moves(
            self.S, self.Q, self.alpha, self._active, self._mean, self._cov, self._cross,
            self._basis, self.Phi, self.gram, self.beta, self._evidence, path, self.recent,
            self.counters, tol, max_iter, BETA_UPDATE_PER_ACTIVE, FULL_REFRESH_EVERY, verbose,
            GRAM_AFTER_ADDS, self.gram_allowed,
        )  # fmt: skip

    def remember(self, i):
        """Note function i as moved (for the test of a ridge)."""
        position = self.counters[self.moves.RECENT_NEXT]
        self.recent[position] = i
        self.counters[self.moves.RECENT_NEXT] = (position + 1) % self.recent.size


def _take_move(state, i, new_alpha, gain):
    """Add (step 6), re-estimate (step 5) or delete (step 7) basis function i."""
    if np.isfinite(state.alpha[i]):
        state.update(i, new_alpha, gain)
    else:
        state.add(i, new_alpha, gain)


def _update_beta(state, n):
    """Step 8: re-estimate beta by (7.88), or the EM update if that lowers the evidence.

    Returns the gain in log evidence (0 when neither candidate keeps it from falling).
    """
    post = state.current()
    for candidate in _beta_candidates(post, n, state.beta):
        trial = state.posterior(beta=candidate)
        if trial.log_evidence >= post.log_evidence:
            state.set_beta(candidate, trial)
            return trial.log_evidence - post.log_evidence
    return 0.0


def _joint_move(state, i, gain):
    """A joint Newton step (:func:`_joint_step`) on all active functions or, failing that, on
    function i and its most collinear active neighbour; None if neither beats ``gain``."""
    alpha_active, post = state.alpha[state.active], state.current()
    joint = _joint_step(alpha_active, post, state.posterior, gain)
    if joint is None and state.active.size > 2:
        pair = [
            int(np.flatnonzero(state.active == i)[0]),
            _closest_partner(state.cross, state.active, state.norms2, i),
        ]
        joint = _joint_step(alpha_active, post, state.posterior, gain, pair)
    return joint


def sequential_regression(Phi, t, beta, tol, max_iter, verbose):
    """Tipping & Faul's algorithm (PRML 7.2.2, steps 1-9) for regression.

    Parameters
    ----------
    Phi : ndarray of shape (n, n_basis)
        Candidate basis functions, unit columns.
    t : ndarray of shape (n,)
        Targets, of unit root mean square.
    beta : float
        Noise precision to start from (:func:`initial_noise_precision`).
    tol : float
        Stop when no move, nor a new beta, gains more than this in log evidence.
    max_iter : int
        Iteration limit.
    verbose : int
        Print progress every ``verbose`` iterations (0: never).

    Returns
    -------
    _Fit
        The fit in these scaled units, its active functions in the order they entered.

    Single moves update the posterior and the factors by the rank-one formulas of
    :class:`_SequentialPosterior`; runs of them are compiled. Beta (step 8) is re-estimated
    after every ``kmlib._rvm_moves.beta_interval`` moves, and whenever no single move gains
    more than ``tol``; each change of beta, and every ``FULL_REFRESH_EVERY`` moves,
    refactorises.
    """
    n = Phi.shape[0]
    state = _SequentialPosterior(Phi, t, beta)  # step 2: start from the empty model
    moves, counters = state.moves, state.counters
    path = np.empty(max_iter + 1)
    path[0] = state.log_evidence
    beta_gain = np.inf
    converged = False
    while counters[moves.ITERATIONS] < max_iter:
        status = state.single_moves(path, tol, max_iter, verbose)  # steps 3-7, plain moves
        if status == moves.MAX_ITER:
            break
        if status == moves.NOT_PLAIN:  # this iteration needs Python
            factors = state.factors()  # step 3
            i, new_alpha, gain = _best_move(state.alpha, factors)  # step 4
            counters[moves.ITERATIONS] += 1
            if gain <= tol and (counters[moves.SINCE_BETA] > 0 or beta_gain > tol):
                counters[moves.SINCE_BETA] = state.k + 1  # nothing left for single moves: beta
            elif gain <= tol:
                post = state.current()
                leaving = state.active[_heading_out(post.mean, post.gamma, post.cov)]
                if leaving.size == 0:
                    counters[moves.ITERATIONS] -= 1
                    converged = True
                    break
                i, new_alpha = int(leaving[0]), np.inf  # its deletion gain (7.96) is >= 0
                gain = -log_evidence_term(state.alpha[i], factors.s[i], factors.q[i])
                _take_move(state, i, new_alpha, gain)
                counters[moves.SINCE_BETA] += 1
                counters[moves.SINCE_REFRESH] += 1
            else:
                joint = None
                creeping = i in state.recent and np.isfinite(state.alpha[i])  # revisits: a ridge
                if creeping and np.isfinite(new_alpha) and state.k > 1:
                    joint = _joint_move(state, i, gain)
                if joint is not None:
                    state.set_alpha(*joint)
                    counters[moves.SINCE_REFRESH] = 0
                else:
                    _take_move(state, i, new_alpha, gain)
                    counters[moves.SINCE_REFRESH] += 1
                state.remember(i)
                counters[moves.SINCE_BETA] += 1
        # the end of the iteration, after a compiled move or a Python one
        interval = moves.beta_interval(state.k, BETA_UPDATE_PER_ACTIVE)
        if counters[moves.SINCE_BETA] >= interval:  # step 8
            beta_gain = _update_beta(state, n)
            counters[moves.SINCE_BETA] = 0
            if beta_gain > 0:
                counters[moves.SINCE_REFRESH] = 0
        if counters[moves.SINCE_REFRESH] >= FULL_REFRESH_EVERY:  # clear the drift of the updates
            state.refresh()
            counters[moves.SINCE_REFRESH] = 0
        n_iter = int(counters[moves.ITERATIONS])
        path[n_iter] = state.log_evidence
        _report(verbose, "sequential", n_iter, state.k, state.log_evidence)
    n_iter = int(counters[moves.ITERATIONS])
    post = state.posterior()  # the answer from a fresh factorisation
    path = list(path[: n_iter + 1])
    path[-1] = post.log_evidence
    return _Fit(
        state.alpha,
        state.active.copy(),
        state.beta,
        post.mean,
        post.cov,
        post.log_evidence,
        path,
        n_iter,
        converged,
    )


# -------------------------------------------------------------------------- classification
def _spread_start(Phi, t, size):
    """A spread start of :func:`sequential_classification`: precisions (n_basis,), ``inf``
    but for ``size`` mutually dissimilar columns of ``Phi`` (n, n_basis); None when all
    columns are parallel. ``t`` (n,) holds the labels in {0, 1}.

    The columns: the one most aligned with t - 1/2 (the first add of the empty start), then
    again and again the column whose largest absolute cosine with those already chosen is
    smallest (farthest-point selection in column space). Their precision: the difference of two
    unit columns at cosine c has squared length 2(1 - c), so a precision proportional to
    1 - c (the median over the chosen pairs, times ``SPREAD_START_SCALE``) gives such
    differences a prior variance that does not depend on how nearly parallel the columns are.
    """
    norms = np.sqrt(np.sum(Phi**2, axis=0))
    usable = norms > 0
    chosen = [int(np.argmax(np.abs(Phi.T @ (t - 0.5)) * usable))]
    nearest = np.where(usable, 0.0, np.inf)  # largest |cosine| with a chosen column
    for _ in range(min(size, int(np.sum(usable))) - 1):
        j = chosen[-1]
        with np.errstate(invalid="ignore", divide="ignore"):
            cosine = np.abs(Phi.T @ Phi[:, j]) / (norms * norms[j])
        nearest = np.maximum(nearest, np.nan_to_num(cosine, nan=np.inf))
        nearest[chosen] = np.inf
        chosen.append(int(np.argmin(nearest)))
    unit = Phi[:, chosen] / norms[chosen]
    cosines = np.abs(unit.T @ unit)[np.triu_indices(len(chosen), 1)]
    dissimilarity = np.median(1.0 - cosines) if cosines.size else 1.0
    if dissimilarity <= PARALLEL:
        return None  # every column is parallel to the others: no difference to build on
    alpha = np.full(Phi.shape[1], np.inf)
    alpha[chosen] = SPREAD_START_SCALE * dissimilarity
    return alpha


def sequential_classification(Phi, t, tol, max_iter, verbose):
    """Tipping & Faul's algorithm on the Laplace surrogate, climbed from three starts.

    The evidence of a classifier has two kinds of maximum. From the empty model (y = 1/2, B =
    I/4) the fit grows a weak classifier: moderate weights, moderate alpha. Where the classes
    are (nearly) separable along a direction in which the kernel columns are nearly parallel
    (crabs: cosines above 0.99), the high-evidence maxima instead build that direction from
    the differences of a few such columns, with huge cancelling weights and alpha ~ 1e-8
    (unit columns). No single move crosses from one kind to the other: each column's
    variance has to grow by orders of magnitude together with its neighbours', and every
    single step on the way lowers the evidence. So two more climbs start inside the separating
    regime, from 10 and from 40 spread columns (:func:`_spread_start`), and the fit with the
    highest evidence is kept (an earlier start's unless a later one gains more than ``tol``).

    Parameters
    ----------
    Phi : ndarray of shape (n, n_basis)
        Candidate basis functions, unit columns.
    t : ndarray of shape (n,)
        Labels in {0, 1}.
    tol : float
        Each climb stops when no move gains more than this in log evidence.
    max_iter : int
        Iteration limit of each climb.
    verbose : int
        Print progress every ``verbose`` iterations (0: never).

    Returns
    -------
    _Fit
    """
    best = _climb_classification(Phi, t, np.full(Phi.shape[1], np.inf), tol, max_iter, verbose)
    for size in SPREAD_START_SIZES:
        spread = _spread_start(Phi, t, size)
        if spread is None:
            break
        fit = _climb_classification(Phi, t, spread, tol, max_iter, verbose)
        if fit.log_evidence > best.log_evidence + tol:
            best = fit
    return best


def _climb_classification(Phi, t, alpha, tol, max_iter, verbose):
    """Tipping & Faul's algorithm on the Gaussian surrogate (7.117)-(7.119) of the Laplace fit,
    from the precisions ``alpha`` of shape (n_basis,) (``inf``: not in the model); the other
    parameters and the result are those of :func:`sequential_classification`.

    B changes with the weight mode at every move, so, as in Tipping's SparseBayes for
    non-Gaussian likelihoods, each move is followed by a Laplace step (IRLS from the previous
    mode) and the factors of all candidates are computed afresh; no rank-one updates.
    """
    Phi2 = Phi**2
    alpha = np.array(alpha, dtype=np.float64)
    active = np.flatnonzero(np.isfinite(alpha))
    mode = classification_mode(Phi[:, active], t, alpha[active])
    path = [mode.log_evidence]
    converged = False
    n_iter = 0
    while n_iter < max_iter:
        # The surrogate has targets t_hat = Phi w* + B^-1 (t - y) and noise covariance B^-1, so
        # (7.106)-(7.107) hold with beta I replaced by B; and since Phi^T (t - y) = A w* at the
        # mode (7.112), C^-1 t_hat = t - y and Q_i = phi_i^T (t - y).
        B = mode.y * (1.0 - mode.y)
        P = Phi.T @ (B[:, np.newaxis] * Phi[:, active])  # phi_i^T B phi_j, j in the model
        S = Phi2.T @ B - np.einsum("ij,ij->i", P @ mode.cov, P)
        Q = Phi.T @ (t - mode.y)
        factors = _leave_one_out(S, Q, alpha, active, mode.w, mode.cov)
        i, new_alpha, gain = _best_move(alpha, factors)
        if gain <= tol:
            converged = True
            break
        n_iter += 1
        w = dict(zip(active.tolist(), mode.w))
        if not np.isfinite(alpha[i]):
            active = np.append(active, i)
        elif not np.isfinite(new_alpha):
            active = active[active != i]
        alpha[i] = new_alpha
        w0 = np.array([w.get(j, 0.0) for j in active.tolist()])
        mode = classification_mode(Phi[:, active], t, alpha[active], w0=w0)
        path.append(mode.log_evidence)
        _report(verbose, "sequential", n_iter, active.size, mode.log_evidence)
    return _Fit(alpha, active, np.nan, mode.w, mode.cov, mode.log_evidence, path, n_iter, converged)
