r"""Bayesian support vector regression with the soft insensitive loss (Chu 2003, chapter 4).

The latent function has a Gaussian-process prior :math:`\mathbf f\sim\mathcal N(\mathbf 0,
\boldsymbol\Sigma)` with the covariance (4.3), :math:`\kappa_0\exp(-\tfrac\kappa2\lVert\mathbf x
- \mathbf x'\rVert^2) + \kappa_b`, and the noise has the density :math:`\exp(-C\,\ell_{\epsilon,
\beta}(\delta))/\mathcal Z_S` of the soft insensitive loss function (SILF, 2.28)–(2.32). Then:

* **MAP** (4.13): minimising :math:`C\sum_i\ell_{\epsilon,\beta}(y_i - f_i) + \tfrac12\mathbf
  f^T\boldsymbol\Sigma^{-1}\mathbf f` is the box-constrained dual (4.25) in
  :math:`\nu_i = \alpha_i - \alpha_i^*\in[-C, C]` (at the optimum one of the pair is zero),

  .. math:: \min_{\boldsymbol\nu}\ \tfrac12\boldsymbol\nu^T\mathbf Q\boldsymbol\nu
            - \boldsymbol\nu^T\mathbf y + (1-\beta)\epsilon\lVert\boldsymbol\nu\rVert_1,
            \qquad \mathbf Q = \boldsymbol\Sigma + \tfrac{2\beta\epsilon}{C}\mathbf I,

  with :math:`\mathbf f_{MP} = \boldsymbol\Sigma\boldsymbol\nu` (4.26). There is no bias and
  so no equality constraint: the bias is the :math:`\kappa_b` term of the covariance.
  :func:`solve_dual` is the SMO variant of 4.2.2: the optimality conditions (4.31)–(4.33) pick
  the most violating pair, and one Newton step in the quadrant of the pair (Table 4.1) moves it.
* **Evidence** (4.38) by Laplace's method: only the *off-bound* support vectors
  (:math:`0 < |\nu_i| < C`, residual in the quadratic band of the loss) have curvature, so only
  their block :math:`\boldsymbol\Sigma_M` is factorised; gradients (4.39)–(4.41) in
  :math:`\ln C`, :math:`\ln\epsilon` and the kernel's log hyperparameters
  (:func:`log_evidence`).
* **Error bars** (4.43)–(4.46): :math:`\sigma_t^2 = k(\mathbf x,\mathbf x) - \mathbf k_M^T
  (\tfrac{2\beta\epsilon}{C}\mathbf I + \boldsymbol\Sigma_M)^{-1}\mathbf k_M` for the latent
  function, plus the SILF noise variance (2.33) for a new target.

:math:`\beta` shapes the loss and is fixed by the user (the thesis uses 0.3 below 2000 samples,
0.1 up to 4000); :math:`C`, :math:`\epsilon` and the kernel's hyperparameters are fitted by
L-BFGS-B on the evidence.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from . import _linalg
from ._chunks import in_blocks
from ._evidence import check_optimizer_settings, fit_hyperparameters
from ._kernel_checks import check_kernel, evaluate_kernel, kernel_diagonal, warn_if_constant
from ._validation import check_positive_int, check_real, validate_data
from .kernels import RBF, Constant
from .losses import silf, silf_noise_variance, silf_normaliser, silf_normaliser_gradient

__all__ = ["BayesianSVR", "SILFDualSolution", "solve_dual", "log_evidence"]

#: Thesis boxes (Table 4.2 and 4.3.3): C in [0.01, 1000], ln epsilon in [-5, -0.7].
C_BOUNDS = (0.01, 1000.0)
EPSILON_BOUNDS = (np.exp(-5.0), np.exp(-0.7))
#: ln kappa in [-17, 10] for kappa = 1/lengthscale^2, and ln kappa_b in [-13, 10].
LENGTHSCALE_BOUNDS = (np.exp(-5.0), np.exp(8.5))
BIAS_VARIANCE_BOUNDS = (np.exp(-13.0), np.exp(10.0))
#: SMO steps per training point allowed for one evaluation of the evidence during a fit.
PROBE_STEPS_PER_SAMPLE = 20
#: SMO steps before the first face step of ``solve_dual``, and the fewest between two.
FACE_STEP_EVERY = 50
#: The fitted MAP's tolerance, relative to the largest target: the exact MAP up to rounding.
EXACT_TOL = 1e-9


def check_silf_parameters(C, epsilon, beta):
    """Validate (C, epsilon, beta) of the SILF: C > 0, epsilon > 0, 0 < beta <= 1."""
    return (
        check_real(C, "C", low=0),
        check_real(epsilon, "epsilon", low=0),
        check_real(beta, "beta", low=0, high=1),
    )


# ------------------------------------------------------------------------------ MAP by SMO
class SILFDualSolution(NamedTuple):
    """Solution of the SILF dual (4.25) and what the evidence needs from it.

    Attributes
    ----------
    nu : ndarray of shape (n,)
        :math:`\\alpha_i - \\alpha_i^*`; the MAP function is ``K @ nu`` (4.26).
    F : ndarray of shape (n,)
        :math:`F_i = y_i - (\\mathbf Q\\boldsymbol\\nu)_i` of (4.30).
    off_bound : ndarray of int
        Indices with :math:`0 < |\\nu_i| < C` (:math:`I_0` of (4.32)).
    on_bound : ndarray of int
        Indices with :math:`|\\nu_i| = C` (:math:`I_2\\cup I_3`).
    violation : float
        Largest violation of the optimality conditions (4.31) at ``nu``.
    n_iter : int
        SMO steps taken.
    """

    nu: np.ndarray
    F: np.ndarray
    off_bound: np.ndarray
    on_bound: np.ndarray
    violation: float
    n_iter: int


def _offsets(nu, C, flat):
    """Offsets that turn F into the violations of (4.31): ``up = F - o_up``, ``down = -F - o_down``.

    ``flat`` is (1 - beta) epsilon. Increasing nu_i changes the dual at the rate
    ``-F_i + flat`` where nu_i >= 0 and ``-F_i - flat`` where nu_i < 0 (the slope of the
    |nu_i| term); decreasing, at ``F_i - flat`` where nu_i > 0 and ``F_i + flat`` where
    nu_i <= 0. So ``up`` and ``down``, the rates of descent, are positive exactly where a move
    lowers the dual (``F^low > 0`` or ``F^up < 0`` in the thesis's terms); an infinite offset
    blocks the moves that would leave the box. The offsets change only where nu does, so SMO
    updates them for the two variables it moves.
    """
    if np.ndim(nu) == 0:  # one variable, as SMO updates them
        up = np.inf if nu >= C else (flat if nu >= 0 else -flat)
        down = np.inf if nu <= -C else (-flat if nu > 0 else flat)
        return up, down
    up = np.where(nu >= C, np.inf, np.where(nu >= 0, flat, -flat))
    down = np.where(nu <= -C, np.inf, np.where(nu > 0, -flat, flat))
    return up, down


def _violations(nu, F, C, flat):
    """Rates ``(up, down)`` at which increasing / decreasing each nu_i lowers the dual."""
    offset_up, offset_down = _offsets(nu, C, flat)
    return F - offset_up, -F - offset_down


def _quadrant(nu_k, increasing):
    """Sign of the half-line a move stays in until it reaches 0: +1 ([0, C]) or -1."""
    if increasing:
        return 1.0 if nu_k >= 0 else -1.0
    return -1.0 if nu_k <= 0 else 1.0


def _pair_step(nu_i, nu_j, F_i, F_j, Q_ii, Q_jj, Q_ij, flat, C):
    """Newton step of Table 4.1 for a pair (i up, j down), cut where one leaves its quadrant.

    Inside the quadrant the moves start in, the dual is a smooth quadratic with slopes
    g = -F + (1 - beta) epsilon * sign; Newton's step -H^-1 g with H = [[Q_ii, Q_ij],
    [Q_ij, Q_jj]] is its minimiser there. If it would take a variable past 0 or the box, the
    step is cut at that point (the quadratic still falls along the whole segment). Returns the
    changes (d_i, d_j), or None when the cut leaves no step.
    """
    s_i, s_j = _quadrant(nu_i, True), _quadrant(nu_j, False)
    g_i, g_j = flat * s_i - F_i, flat * s_j - F_j
    rho = Q_ii * Q_jj - Q_ij**2  # Table 4.1
    if not rho > 0:
        return None
    d_i = (Q_ij * g_j - Q_jj * g_i) / rho
    d_j = (Q_ij * g_i - Q_ii * g_j) / rho
    t = 1.0
    for value, change, sign in ((nu_i, d_i, s_i), (nu_j, d_j, s_j)):
        low, high = (0.0, C) if sign > 0 else (-C, 0.0)
        if change > 0:
            t = min(t, (high - value) / change)
        elif change < 0:
            t = min(t, (low - value) / change)
    if t * max(abs(d_i), abs(d_j)) <= 1e-12 * C:
        return None
    return t * d_i, t * d_j


def _best_partner(k, slope_k, violation, K_k, diag, sign=1.0):
    """The partner of variable ``k`` whose joint Newton step lowers the dual most.

    For a pair with slopes (g_k, g_l) inside their quadrant and Hessian [[Q_kk, Q_kl],
    [Q_kl, Q_ll]], Newton's step lowers the quadratic by (Q_ll g_k^2 - 2 Q_kl g_k g_l +
    Q_kk g_l^2) / (2 rho), rho the determinant (positive: Q = K + ridge I). ``violation``
    holds the candidates' own violations (their slopes times ``sign``); only positive ones are
    candidates (second-order working-set selection, as Fan, Chen & Lin 2005 do for the
    standard SVM dual).
    """
    slopes = sign * violation
    gain = slopes * (diag[k] * slopes - (2.0 * slope_k) * K_k)
    gain += slope_k**2 * diag
    gain /= diag[k] * diag - K_k * K_k  # twice the decrease
    gain[violation <= 0] = -np.inf
    gain[k] = -np.inf
    best = int(np.argmax(gain))
    return best if gain[best] > -np.inf else k


def _rescaled_start(nu, C_old, C_new):
    """A warm start for box C_new from a solution for C_old: bound variables stay bound."""
    start = np.clip(nu, -C_new, C_new)
    at_bound = np.abs(nu) >= C_old
    start[at_bound] = np.copysign(C_new, nu[at_bound])
    return start


def _coordinate_minimum(nu_k, F_k, Q_kk, flat, C):
    """Exact minimiser over [-C, C] of the dual (4.25) in one variable, the others fixed.

    In nu_k the dual is Q_kk nu^2 / 2 - (F_k + Q_kk nu_k) nu + flat |nu| + const: a
    soft-threshold of F_k + Q_kk nu_k by ``flat``, divided by Q_kk and clipped to the box.
    """
    z = F_k + Q_kk * nu_k
    return float(np.clip(np.sign(z) * max(abs(z) - flat, 0.0) / Q_kk, -C, C))


def _face_minimum(K, y, nu, C, flat, ridge):
    r"""Minimiser of the dual on the face of ``nu``: ``(free, solution)``, or None if no variable
    is free.

    With the signs of the free variables (:math:`0 < |\nu_i| < C`) and the values of the
    others fixed, the conditions (4.31) of the free set M are linear, :math:`\mathbf Q_{MM}
    \boldsymbol\nu_M = \mathbf y_M - (1-\beta)\epsilon\,\mathrm{sign}(\boldsymbol\nu_M) -
    \boldsymbol\Sigma_{MB}\boldsymbol\nu_B`: their solution minimises the dual over that face
    (a strictly convex quadratic there), as long as it keeps the signs and the box.
    """
    free = np.flatnonzero((nu != 0) & (np.abs(nu) < C))
    if free.size == 0:
        return None
    bound = np.flatnonzero(np.abs(nu) >= C)
    rhs = y[free] - flat * np.sign(nu[free]) - K[np.ix_(free, bound)] @ nu[bound]
    return free, _linalg.cho_solve(_ridged_factor(K, free, ridge), rhs)  # Q_MM = K_MM + ridge I


def _ridged_factor(K, M, ridge):
    r"""Lower Cholesky factor of ``K[M, M] + ridge I`` (shape (m, m); (0, 0) for no ``M``).

    The block of Q (4.29) of the variables ``M``: the free variables' face (``_face_minimum``),
    and the off-bound block :math:`(2\beta\epsilon/C)\mathbf I + \boldsymbol\Sigma_M` of the
    evidence (4.38) and of the error bars (4.46).
    """
    if not M.size:
        return np.zeros((0, 0))
    B = K[np.ix_(M, M)].copy()
    B[np.diag_indices(M.size)] += ridge
    return _linalg.cholesky(B)[0]


def _polished(K, y, nu, C, flat, ridge):
    """Exact solution of the dual on the index sets of ``nu``, or None if they are not right.

    Solving the face's linear conditions (``_face_minimum``) removes the digits that SMO's
    linear convergence leaves. If the solution changes a sign or leaves the box, the sets were
    not yet right and None is returned. Otherwise returns ``(nu, F, violation)``.
    """
    face = _face_minimum(K, y, nu, C, flat, ridge)
    if face is None:
        return None
    free, solved = face
    if np.any(np.sign(solved) != np.sign(nu[free])) or np.any(np.abs(solved) >= C):
        return None
    polished = nu.copy()
    polished[free] = solved
    F = y - K @ polished - ridge * polished
    up, down = _violations(polished, F, C, flat)
    return polished, F, max(float(np.max(up)), float(np.max(down)), 0.0)


def _face_step(K, y, nu, C, flat, ridge):
    """Move ``nu`` towards the face's minimiser (``_face_minimum``), as far as the face reaches.

    On the segment from ``nu`` to the minimiser the dual is the face's convex quadratic, which
    falls all the way, until a free variable reaches 0 or the box; the step stops there, with
    that variable set exactly to 0 or to the bound, so every step lowers the dual. This is what
    SMO's pairwise steps converge to only linearly, and slowly where the ridge 2 beta epsilon / C
    is small next to the covariance (a large C or kappa_b). Returns the free variables' number,
    or 0 when no variable is free; ``nu`` is changed in place.
    """
    face = _face_minimum(K, y, nu, C, flat, ridge)
    if face is None:
        return 0
    free, solved = face
    start, change = nu[free], solved - nu[free]
    low = np.where(start > 0, 0.0, -C)  # each free variable stays in its half of the box
    high = np.where(start > 0, C, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = np.where(change > 0, (high - start) / change,
                         np.where(change < 0, (low - start) / change, np.inf))
    step = min(1.0, float(reach.min()))
    moved = start + step * change
    stopped = reach <= step  # the variables that reached 0 or the box
    moved[stopped] = np.where(np.abs(moved[stopped]) > C / 2, np.copysign(C, start[stopped]), 0.0)
    nu[free] = np.clip(moved, low, high)
    return free.size


def solve_dual(K, y, C, epsilon, beta, nu0=None, tol=1e-3, max_iter=None):
    """MAP of BSVR: the dual (4.25) by SMO with pairwise Newton steps (Chu 4.2.2, Table 4.1).

    Each step takes the variable whose increase would lower the dual fastest and the one whose
    decrease would (the pair :math:`b_{low}`, :math:`b_{up}` of (4.33)), and one Newton step of
    the dual restricted to the pair, in the quadrant the two moves start in. There the dual is
    a smooth quadratic, so the step is exact for it. If the Newton point leaves the quadrant
    (a variable would cross 0 or the box), the pair is moved instead by two exact one-variable
    minimisations (a soft-threshold each, which crosses 0 correctly). Every step lowers the
    dual, and since the ridge makes it strongly convex, the iteration converges. SMO
    stops when no violation exceeds ``tol`` ((4.33) with :math:`\\tau` = ``tol``); the solution
    is then polished by an exact solve on the identified index sets when that is consistent.
    Between SMO steps the iteration also takes face steps: a Newton step of the dual over all
    the free variables at once, cut where one of them reaches 0 or the box (``_face_step``),
    after as many SMO steps as one face step costs (at least ``FACE_STEP_EVERY``). Where the
    ridge is small next to the covariance (a large C or kappa_b, as evidence maximisation on
    real data often reaches) SMO alone converges linearly and very slowly; the face steps find
    the free variables' values in one solve once the index sets are right, and SMO's pair steps
    move the variables between the sets.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Prior covariance of the latent function at the training inputs.
    y : ndarray of shape (n,)
        Targets.
    C, epsilon, beta : float
        SILF parameters (2.28): C > 0, epsilon > 0, 0 < beta <= 1.
    nu0 : ndarray of shape (n,), default=None
        Starting point (a warm start), clipped to [-C, C]; ``None`` starts from zeros.
    tol : float, default=1e-3
        :math:`\\tau` of (4.33).
    max_iter : int, default=None
        SMO step limit; ``None`` is ``100 n + 1000``. Reaching it warns with
        ConvergenceWarning.

    Returns
    -------
    SILFDualSolution
    """
    C, epsilon, beta = check_silf_parameters(C, epsilon, beta)
    n = y.size
    flat = (1.0 - beta) * epsilon  # half-width of the flat zone of the loss
    ridge = 2.0 * beta * epsilon / C  # Q = K + ridge I (4.29)
    max_iter = 100 * n + 1000 if max_iter is None else max_iter
    nu = np.zeros(n) if nu0 is None else np.clip(np.asarray(nu0, dtype=np.float64), -C, C)
    F = y - K @ nu - ridge * nu  # (4.30)
    diag = np.diag(K) + ridge
    offset_up, offset_down = _offsets(nu, C, flat)
    up, down = np.empty(n), np.empty(n)

    def move(k, change):
        new = nu[k] + change
        if abs(new) >= C * (1.0 - 1e-12):  # a step cut at the box lands on it exactly
            new = np.copysign(C, new)
        elif abs(new) <= 1e-12 * C:  # and one cut at 0, on 0
            new = 0.0
        change = new - nu[k]
        nu[k] = new
        np.subtract(F, change * K[k], out=F)  # (C.9): only the changed row of Q
        F[k] -= ridge * change
        offset_up[k], offset_down[k] = _offsets(nu[k], C, flat)

    next_face_step = FACE_STEP_EVERY
    n_iter = 0
    while True:
        np.subtract(F, offset_up, out=up)
        np.add(F, offset_down, out=down)
        np.negative(down, out=down)
        i, j = int(np.argmax(up)), int(np.argmax(down))  # b_low and b_up of (4.33)
        worst = max(up[i], down[j])
        if n_iter >= max_iter:
            break
        if worst <= tol:  # finish at the exact solution of the index sets if it meets tol too
            polished = _polished(K, y, nu, C, flat, ridge)
            if polished is not None and polished[2] <= tol:
                nu, F = polished[0], polished[1]
            break
        if n_iter >= next_face_step:
            # as many SMO steps as one face step costs: a Cholesky factorisation of the m free
            # variables' block and a product with K (m^3/3 + n^2 operations), against about
            # 20 n operations per SMO step and the interpreter's overhead, which is worth some
            # 5e5 operations of compiled linear algebra
            m = _face_step(K, y, nu, C, flat, ridge)
            F[:] = y - K @ nu - ridge * nu  # (4.30)
            offset_up[:], offset_down[:] = _offsets(nu, C, flat)
            cost = (m**3 // 3 + n * n) // (20 * n + 5 * 10**5)
            next_face_step = n_iter + max(FACE_STEP_EVERY, cost)
            n_iter += 1
            continue
        if up[i] >= down[j]:  # keep the worst violator, pair it for the largest decrease
            j = _best_partner(i, -up[i], down, K[i], diag)
        else:
            i = _best_partner(j, down[j], up, K[j], diag, sign=-1.0)
        n_iter += 1
        step = _pair_step(nu[i], nu[j], F[i], F[j], diag[i], diag[j], K[i, j], flat, C)
        if i != j and step is not None:
            move(i, step[0])
            move(j, step[1])
        else:  # exact steps, one variable at a time
            for k in [i, j] if i != j else [i]:
                move(k, _coordinate_minimum(nu[k], F[k], diag[k], flat, C) - nu[k])
    up, down = _violations(nu, F, C, flat)
    violation = max(float(np.max(up)), float(np.max(down)), 0.0)
    if violation > tol:  # at the step limit: the exact solve of the sets, if it is better
        polished = _polished(K, y, nu, C, flat, ridge)
        if polished is not None and polished[2] <= violation:
            nu, F, violation = polished
    if violation > tol:
        warnings.warn(
            f"SMO stopped at its step limit ({max_iter}) with a KKT violation of "
            f"{violation:.2e} > tol = {tol:g}; raise max_iter",
            ConvergenceWarning,
            stacklevel=2,
        )
    size = np.abs(nu)
    off_bound, on_bound = np.flatnonzero((size > 0) & (size < C)), np.flatnonzero(size >= C)
    return SILFDualSolution(nu, F, off_bound, on_bound, violation, n_iter)


def _refined(solution, K, y, C, epsilon, beta):
    """``solution`` refined towards the exact MAP: to ``EXACT_TOL`` times the largest target.

    Continues SMO with its face steps from ``solution`` for at most 10 n more steps; if that
    does not reach the tighter tolerance (rounding can stop it on a badly conditioned problem),
    ``solution`` is returned as it was.
    """
    tol = EXACT_TOL * max(float(np.max(np.abs(y))), np.finfo(float).tiny)
    if solution.violation <= tol:
        return solution
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        exact = solve_dual(K, y, C, epsilon, beta, nu0=solution.nu, tol=tol, max_iter=10 * y.size)
    if exact.violation > tol:
        return solution
    return exact._replace(n_iter=exact.n_iter + solution.n_iter)


# ------------------------------------------------------------------------------- evidence
def log_evidence(K, y, C, epsilon, beta, solution, dK=None):
    """:math:`\\ln P(\\mathcal D|\\theta)`, minus (4.38), at a solution of the dual, and its
    gradient.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Prior covariance at the training inputs.
    y : ndarray of shape (n,)
    C, epsilon, beta : float
    solution : SILFDualSolution
        From :func:`solve_dual` with the same arguments.
    dK : ndarray of shape (n, n, p), default=None
        Derivatives of ``K`` with respect to the kernel's log hyperparameters; ``None``: the
        value alone.

    Returns
    -------
    value : float
    gradient : ndarray of shape (2 + p,)
        Only when ``dK`` is given: derivatives with respect to ``ln C``, ``ln epsilon``
        (4.39)–(4.40) and the kernel's log hyperparameters (4.41).
    """
    n = y.size
    nu, M = solution.nu, solution.off_bound
    f = K @ nu  # (4.26)
    delta = y - f
    noise_scale = 2.0 * beta * epsilon / C  # 1/c with c = C / (2 beta epsilon)
    L = _ridged_factor(K, M, noise_scale)  # of B = (2 beta eps / C) I + K_M
    Z = silf_normaliser(C, epsilon, beta)
    loss = float(np.sum(silf(delta, epsilon, beta)))
    # minus (4.38), with ln|I + c K_M| = ln|B| - m ln(1/c)
    value = -(
        0.5 * nu @ f
        + C * loss
        + 0.5 * (_linalg.log_det(L) - M.size * np.log(noise_scale))
        + n * np.log(Z)
    )
    if dK is None:
        return float(value)
    # the thesis's gradients (4.39)-(4.41) are of -ln P
    B_inv = _linalg.inverse_from_cholesky(L) if M.size else np.zeros((0, 0))
    trace = M.size - noise_scale * np.trace(B_inv)  # tr[B^-1 K_M]
    dZ_dC, dZ_deps = silf_normaliser_gradient(C, epsilon, beta)
    d_lnC = C * loss + 0.5 * trace + n * C * dZ_dC / Z  # (4.39)
    flat = (1.0 - beta) * epsilon
    band = -(delta[M] ** 2 - flat**2) / (4.0 * beta * epsilon)  # eps * d loss / d eps, band
    tails = -epsilon * solution.on_bound.size  # eps * d(|delta| - eps)/d eps on the tails
    d_lneps = C * (np.sum(band) + tails) - 0.5 * trace + n * epsilon * dZ_deps / Z  # (4.40)
    d_kernel = np.array(
        [
            0.5 * np.sum(B_inv * dK[np.ix_(M, M, [k])][:, :, 0]) - 0.5 * nu @ dK[:, :, k] @ nu
            for k in range(dK.shape[2])
        ]
    )  # (4.41)
    return float(value), -np.concatenate([[d_lnC, d_lneps], d_kernel])


class _EvidenceObjective:
    """The log evidence (4.38) and its gradient (4.39)–(4.41) as the fit's L-BFGS-B objective.

    A call at the log hyperparameters ``theta = [ln C, ln epsilon, kernel theta]`` sets the
    kernel to them, solves the MAP (4.25) and returns :func:`log_evidence` there. Each solve
    starts from the MAP at the best point evaluated so far (where the line search starts from),
    held in ``best_nu`` with its box ``best_C`` and its evidence ``best_value``; the variables
    that sat at the old box start at the new one (``_rescaled_start``).

    A line search may probe a corner of the box (C = 1000, a nearly constant covariance) where
    SMO needs a very long time. There the MAP is cut short after ``PROBE_STEPS_PER_SAMPLE * n``
    steps (``probe_max_iter``): S(f) at an unfinished dual point lies above its minimum, so
    (4.38) there errs on the pessimistic side and the line search steps back from it (the
    fitted model's own MAP is then solved in full).

    Parameters
    ----------
    kernel : kmlib kernel
        Changed in place at every call.
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    beta, tol : float
        The SILF's beta and SMO's tolerance.
    max_iter : int
        The estimator's SMO step limit (the probes take at most this many steps too).
    """

    def __init__(self, kernel, X, y, beta, tol, max_iter):
        self.kernel, self.X, self.y, self.beta, self.tol = kernel, X, y, beta, tol
        self.probe_max_iter = min(PROBE_STEPS_PER_SAMPLE * y.size, max_iter)
        self.best_nu, self.best_C, self.best_value = None, None, -np.inf

    def warm_start(self, C):
        """Start of the solve for box ``C``: the best MAP so far, moved to the new box."""
        if self.best_nu is None:
            return None
        return _rescaled_start(self.best_nu, self.best_C, C)

    def __call__(self, theta):
        """``(ln P, gradient)`` at ``theta``: (4.38) and (4.39)–(4.41)."""
        C, epsilon = np.exp(theta[:2])
        self.kernel.theta = theta[2:]
        K, dK = evaluate_kernel(self.kernel, self.X, eval_gradient=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            solution = solve_dual(
                K,
                self.y,
                C,
                epsilon,
                self.beta,
                nu0=self.warm_start(C),
                tol=self.tol,
                max_iter=self.probe_max_iter,
            )
        value, gradient = log_evidence(K, self.y, C, epsilon, self.beta, solution, dK)
        if value > self.best_value:
            self.best_nu, self.best_C, self.best_value = solution.nu, C, value
        return value, gradient


# ------------------------------------------------------------------------------ estimator
class BayesianSVR(RegressorMixin, BaseEstimator):
    r"""Bayesian support vector regression with the SILF (Chu 2003, chapter 4).

    Parameters
    ----------
    kernel : kmlib kernel, default=None
        Prior covariance of the latent function. ``None`` gives the thesis's (4.3),
        ``RBF(lengthscale=sqrt(2), variance=var(y)) + Constant(100)``, i.e. :math:`\kappa =
        0.5`, :math:`\kappa_b = 100` and :math:`\kappa_0` fixed at the variance of the targets;
        the length-scale and the bias variance are fitted within the thesis's boxes. A given
        kernel is used as it is, with all its free hyperparameters fitted.
    beta : float, default=0.3
        Shape of the SILF, :math:`0 < \beta \le 1` (fixed, never fitted: the evidence would push
        it to 1, Huber's loss, which loses sparseness).
    C : float, default=1.0
        Noise scale of the SILF (the starting value when ``optimize``).
    epsilon : float, default=0.05
        Insensitive zone of the SILF (the starting value when ``optimize``).
    optimize : bool, default=True
        Fit :math:`\ln C`, :math:`\ln\epsilon` and the kernel's hyperparameters by L-BFGS-B on
        the evidence (4.38); ``False`` keeps the given values.
    n_restarts : int, default=0
        Extra L-BFGS-B runs from points drawn inside the bounds.
    random_state : int, Generator, RandomState or None, default=None
        Seed of the restarts.
    tol : float, default=1e-5
        :math:`\tau` of the SMO stopping rule (4.33). The thesis's usual 1e-3 can leave a point
        whose multiplier is within :math:`\tau` of 0 or C on the wrong side of a band edge; the
        off-bound set, and with it the log-determinant of (4.38), then changes from one
        evaluation to the next, and L-BFGS-B can stop early on the noisy evidence (on the
        six-input robot arm it stopped 50 nats short). 1e-5 avoids that at about 1.5 times the
        cost of a fit.
    max_iter : int, default=None
        Step limit of the SMO solver for the final MAP estimate; ``None`` is ``1000 n``. Each
        evaluation of the evidence during the fit stops its solve after
        ``PROBE_STEPS_PER_SAMPLE * n`` (20 n) steps, or ``max_iter`` if fewer.
    optimizer_max_iter : int, default=200
        Iteration limit of each L-BFGS-B run.

    Attributes
    ----------
    kernel_ : kmlib kernel
        The kernel with the fitted hyperparameters.
    C_, epsilon_ : float
        Fitted SILF parameters.
    dual_coef_ : ndarray of shape (n,)
        :math:`\nu_i = \alpha_i - \alpha_i^*`; the predictive mean is ``k(x, X) @ dual_coef_``.
    support_ : ndarray of int
        Indices of the support vectors (:math:`\nu_i \ne 0`).
    off_bound_, on_bound_ : ndarray of int
        Support vectors with :math:`0 < |\nu_i| < C` and with :math:`|\nu_i| = C`.
    noise_variance_ : float
        Variance (2.33) of the fitted SILF noise.
    log_marginal_likelihood_ : float
        :math:`\ln P(\mathcal D|\theta)` at the fit (the thesis tabulates its negative).
    n_iter_ : int
        SMO steps of the final MAP solve.
    optimizer_n_iter_ : int
        L-BFGS-B iterations of the best run (0 without optimisation).
    X_train_ : ndarray of shape (n, d)

    Examples
    --------
    Twenty samples of a sine, with the hyperparameters fixed:

    >>> import numpy as np
    >>> from kmlib.bsvr import BayesianSVR
    >>> from kmlib.kernels import RBF, Constant
    >>> X = np.linspace(-3.0, 3.0, 20)[:, np.newaxis]
    >>> y = np.sin(X[:, 0])
    >>> model = BayesianSVR(RBF(1.0) + Constant(1.0), C=10.0, epsilon=0.1, optimize=False)
    >>> mean, std = model.fit(X, y).predict([[0.5], [1.5]], return_std=True)
    >>> print(np.round(mean, 3), np.round(std, 3))
    [0.426 0.928] [0.283 0.055]
    """

    def __init__(
        self,
        kernel=None,
        beta=0.3,
        C=1.0,
        epsilon=0.05,
        optimize=True,
        n_restarts=0,
        random_state=None,
        tol=1e-5,
        max_iter=None,
        optimizer_max_iter=200,
    ):
        self.kernel = kernel
        self.beta = beta
        self.C = C
        self.epsilon = epsilon
        self.optimize = optimize
        self.n_restarts = n_restarts
        self.random_state = random_state
        self.tol = tol
        self.max_iter = max_iter
        self.optimizer_max_iter = optimizer_max_iter

    @staticmethod
    def _default_kernel(y):
        """The thesis's covariance (4.3) with kappa_0 fixed at the variance of the targets."""
        variance = float(np.var(y)) or 1.0  # kappa_0 of (4.3), fixed (Chu 4.3.3)
        return RBF(
            lengthscale=np.sqrt(2.0),
            variance=variance,
            limits={"variance": "fixed", "lengthscale": LENGTHSCALE_BOUNDS},
        ) + Constant(100.0, limits={"variance": BIAS_VARIANCE_BOUNDS})

    def fit(self, X, y):
        """Fit C, epsilon and the kernel by the evidence (4.38), then the MAP function (4.26).

        Parameters
        ----------
        X : array_like of shape (n, d)
            Training inputs.
        y : array_like of shape (n,)
            Targets: the latent function at ``X`` plus noise of the SILF's density.

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        C, epsilon, beta = check_silf_parameters(self.C, self.epsilon, self.beta)
        check_real(self.tol, "tol", low=0)
        check_optimizer_settings(self)
        if self.max_iter is not None:
            check_positive_int(self.max_iter, "max_iter")
        max_iter = 1000 * y.size if self.max_iter is None else self.max_iter
        kernel = check_kernel(self.kernel, lambda: self._default_kernel(y), callables=False)
        self.optimizer_n_iter_ = 0
        if self.optimize:
            objective = _EvidenceObjective(kernel, X, y, beta, self.tol, max_iter)
            C, epsilon = self._maximise_evidence(objective, C, epsilon)
        self._fit_map(kernel, X, y, C, epsilon, beta, max_iter)
        return self

    def _maximise_evidence(self, objective, C, epsilon):
        """Type-II maximum likelihood: (4.38) over ln C, ln epsilon and the kernel's theta.

        L-BFGS-B with the restarts of :func:`kmlib._evidence.fit_hyperparameters`, within
        ``C_BOUNDS``, ``EPSILON_BOUNDS`` and the kernel's bounds, from ``(C, epsilon)`` and the
        kernel's hyperparameters. Sets the kernel of ``objective`` to the fitted
        hyperparameters and ``optimizer_n_iter_``; returns the fitted ``(C, epsilon)``.
        """
        kernel = objective.kernel
        C_low, C_high = C_BOUNDS
        theta0 = np.concatenate([[np.log(C), np.log(epsilon)], kernel.theta])
        bounds = np.vstack([np.log([[C_low, C_high], EPSILON_BOUNDS]), kernel.bounds])
        # SMO's steps are vector operations and the factorised blocks are small: one BLAS
        # thread is faster than several on a small machine
        with threadpool_limits(limits=1, user_api="blas"):
            theta = fit_hyperparameters(
                self,
                objective,
                theta0,
                bounds,
                ["C", "epsilon"] + list(kernel.theta_names),
                stacklevel=4,  # warnings name the caller of fit, which calls this method
            )
        C, epsilon = np.exp(theta[:2])
        kernel.theta = theta[2:]
        return C, epsilon

    def _fit_map(self, kernel, X, y, C, epsilon, beta, max_iter):
        r"""The MAP (4.25)–(4.26) at fixed hyperparameters, and what prediction needs from it.

        The final MAP depends on the hyperparameters only: it starts from zero, not from the
        optimiser's last point, and is then refined towards the exact MAP (``_refined``). A
        point that only meets ``tol`` can leave a training point on either side of a zone's
        edge, depending on the start and on the processor's rounding, and the evidence jumps
        with the zones. Sets the fitted attributes: the dual coefficients and index sets, the
        evidence (4.38), the SILF noise variance (2.33) and the factor of
        :math:`(2\beta\epsilon/C)\mathbf I + \boldsymbol\Sigma_M` for the error bars (4.46).
        """
        K = evaluate_kernel(kernel, X)
        warn_if_constant(K, "BayesianSVR")
        solution = _refined(solve_dual(K, y, C, epsilon, beta, tol=self.tol, max_iter=max_iter),
                            K, y, C, epsilon, beta)
        self.kernel_, self.C_, self.epsilon_ = kernel, float(C), float(epsilon)
        self.X_train_ = X
        self.dual_coef_ = solution.nu
        self.support_ = np.flatnonzero(solution.nu)
        self.off_bound_, self.on_bound_ = solution.off_bound, solution.on_bound
        self.n_iter_ = solution.n_iter
        self.noise_variance_ = float(silf_noise_variance(C, epsilon, beta))  # (2.33)
        self.log_marginal_likelihood_ = log_evidence(K, y, C, epsilon, beta, solution)
        self.L_ = _ridged_factor(K, self.off_bound_, 2.0 * beta * epsilon / C)  # (4.46)

    def predict(self, X, return_std=False, include_noise=False):
        r"""Predictive mean (4.43) and standard deviation (4.44)–(4.46).

        Parameters
        ----------
        X : array_like of shape (m, d)
        return_std : bool, default=False
            Also return the predictive standard deviation.
        include_noise : bool, default=False
            ``True`` adds the SILF noise variance (2.33): the spread of a new target rather
            than of the latent function.

        Returns
        -------
        mean : ndarray of shape (m,)
        std : ndarray of shape (m,)
            Only with ``return_std=True``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return in_blocks(
            lambda rows: self._moments(rows, return_std, include_noise),
            X,
            self.X_train_.shape[0],
            arrays=2.0 if return_std else 0.0,
            kernel=self.kernel_,
        )

    def _moments(self, X, return_std, include_noise):
        """:meth:`predict` at validated rows."""
        K = evaluate_kernel(self.kernel_, X, self.X_train_)
        mean = K @ self.dual_coef_  # (4.43)
        if not return_std:
            return mean
        V = _linalg.solve_lower(self.L_, K[:, self.off_bound_].T)  # only off-bound SVs (4.46)
        var = kernel_diagonal(self.kernel_, X) - np.einsum("ij,ij->j", V, V)
        np.maximum(var, 0.0, out=var)
        if include_noise:
            var += self.noise_variance_
        return mean, np.sqrt(var)
