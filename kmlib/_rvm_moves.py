r"""The single moves of the sequential RVM (PRML 7.2.2; Tipping & Faul 2003), compiled.

One move of the sequential algorithm picks the basis function whose add, re-estimation or
deletion gains the most evidence (steps 3-7 of PRML 7.2.2) and applies it to the posterior and
to the factors :math:`S_m, Q_m` of every candidate by the rank-one formulas of Tipping & Faul
(2003, Appendix A). Each costs :math:`O(Mk)` arithmetic, so in Python the interpreter's overhead
per move outweighs it; :func:`single_moves` runs a sequence of moves without returning to
Python until the fit needs something that ``kmlib._rvm_sequential.sequential_regression`` does
there (a new noise precision, a fresh factorisation, a joint step, a larger buffer, the Gram
matrix, a progress line, or the test for convergence). :func:`best_move`, :func:`add_column` and
:func:`update_column` are also what the Python side calls for its own single moves (and
:func:`best_move` for classification).

The state lives in buffers with room for ``capacity`` active functions: ``active``, ``mean``,
``cov`` (C order) and the columns ``cross`` (:math:`\boldsymbol\phi_m^\top\boldsymbol\phi_j`,
shape (n_basis, capacity), F order) and ``basis`` (:math:`\boldsymbol\phi_j`, shape
(n, capacity), F order), of which the first ``counters[K]`` entries are in use, in the order the
functions entered (a deleted function's place is taken by the last one). ``gram`` is the
n_basis x n_basis matrix :math:`\boldsymbol\Phi^\top\boldsymbol\Phi` once it has been
computed, else an empty array.

This module imports numba, which takes a noticeable fraction of a second, so
``kmlib._rvm_sequential`` and ``kmlib._rvm_model`` (for the leave-one-out factors of
:func:`kmlib.rvm.sparsity_quality`) import it on their first call only.
"""

import math

import numpy as np
from numba import njit

# entries of the integer counters shared with Python
K, ITERATIONS, SINCE_BETA, SINCE_REFRESH, N_ADDS, RECENT_NEXT = range(6)
N_COUNTERS = 6
# what single_moves returns
NOT_PLAIN, END_OF_ITERATION, MAX_ITER = range(3)


@njit(cache=True, error_model="numpy")
def _optimal_gain(s, q):
    """lambda of (7.97) at its maximiser (7.101), (r - 1 - ln r) / 2 with r = q^2 / s, and the
    maximiser, from the sparsity ``s`` and quality ``q`` (floats) of one function; 0 and inf
    (leave the function out) when q^2 <= s, or when s <= 0, which only rounding produces
    (duplicate columns)."""
    if s <= 0.0 or q * q <= s:
        return 0.0, np.inf
    r = q * q / s
    return 0.5 * (r - 1.0 - math.log(r)), s * s / (q * q - s)


@njit(cache=True, error_model="numpy")
def best_move(s, q, alpha):
    """The move (7.101) with the largest gain (7.96) in evidence, ``(i, new_alpha, gain)``,
    from the sparsity and quality factors s, q (7.98)-(7.99) of every function.

    A function outside the model gains lambda (7.97) at its optimum; one in it gains that
    minus its lambda now, (-ln(1 + s / alpha) + q^2 / (alpha + s)) / 2. Ties go to the lowest
    index.

    Parameters
    ----------
    s, q : ndarray of shape (n_basis,)
        Sparsity and quality factors (7.98)-(7.99).
    alpha : ndarray of shape (n_basis,)
        Precisions, ``inf`` outside the model.

    Returns
    -------
    i : int
        The function to move (-1 if no move gains more than -inf, i.e. no functions).
    new_alpha : float
        Its precision after the move, ``inf`` for a deletion.
    gain : float
        The gain (7.96) in log evidence.
    """
    best_i, best_alpha, best_gain = -1, np.inf, -np.inf
    for m in range(s.shape[0]):
        gain, new_alpha = _optimal_gain(s[m], q[m])
        if not math.isinf(alpha[m]):
            gain -= 0.5 * (-math.log1p(s[m] / alpha[m]) + q[m] * q[m] / (alpha[m] + s[m]))
        if gain > best_gain:
            best_i, best_alpha, best_gain = m, new_alpha, gain
    return best_i, best_alpha, best_gain


@njit(cache=True)
def leave_one_out(S, Q, alpha, active, k, mean, cov, s, q):
    r"""s, q (7.98)-(7.99) of every function into ``s`` and ``q``: S and Q outside the model;
    in it, at position j, gamma_j / Sigma_jj and m_j / Sigma_jj, the forms of (7.104)-(7.105)
    with S = alpha gamma and Q = alpha m that do not divide by alpha - S.

    Parameters
    ----------
    S, Q, alpha, active, k, mean, cov
        The state, as in :func:`add_column`.
    s, q : ndarray of shape (n_basis,)
        Output: the leave-one-out factors (7.98)-(7.99).
    """
    s[:] = S
    q[:] = Q
    for j in range(k):
        m, d = active[j], cov[j, j]
        s[m] = (1.0 - alpha[m] * d) / d
        q[m] = mean[j] / d


@njit(cache=True, error_model="numpy")
def add_column(i, alpha_i, S, Q, alpha, active, k, mean, cov, cross, basis, Phi, gram, beta):
    r"""Put column i in the model at position k with precision alpha_i (Tipping & Faul 2003,
    App. A, add).

    With :math:`\Sigma_{ii} = (\alpha_i + S_i)^{-1}`, :math:`m_i = \Sigma_{ii}Q_i`,
    :math:`\mathbf u = \beta\boldsymbol\Sigma\boldsymbol\Phi^\top\boldsymbol\phi_i` and
    :math:`\mathbf e_i = \boldsymbol\phi_i - \beta\boldsymbol\Phi\boldsymbol\Sigma
    \boldsymbol\Phi^\top\boldsymbol\phi_i`, the covariance gains the border
    :math:`-\Sigma_{ii}\mathbf u` and :math:`\boldsymbol\Sigma + \Sigma_{ii}\mathbf u
    \mathbf u^\top`, the mean becomes :math:`(\mathbf m - m_i\mathbf u, m_i)`, and
    :math:`S_m \mathrel{-}= \Sigma_{ii}(\beta\boldsymbol\phi_m^\top\mathbf e_i)^2`,
    :math:`Q_m \mathrel{-}= m_i\beta\boldsymbol\phi_m^\top\mathbf e_i`. The caller counts the
    new function (k + 1 active) and adds the gain to the evidence.

    Parameters
    ----------
    i : int
        The column to add.
    alpha_i : float
        Its precision.
    S, Q : ndarray of shape (n_basis,)
        :math:`S_m, Q_m` (7.102)-(7.103) of every function, updated in place.
    alpha : ndarray of shape (n_basis,)
        Precisions, ``inf`` outside the model; updated in place.
    active : ndarray of int64, shape (capacity,)
        Positions of the active functions (the first ``k`` entries are in use).
    k : int
        Number of active functions.
    mean : ndarray of shape (capacity,)
        Posterior mean :math:`\mathbf m` (7.82) of the active weights.
    cov : ndarray of shape (capacity, capacity)
        Posterior covariance :math:`\boldsymbol\Sigma` (7.83), C order.
    cross : ndarray of shape (n_basis, capacity)
        :math:`\boldsymbol\phi_m^\top\boldsymbol\phi_j` for every m and active j, F order.
    basis : ndarray of shape (n, capacity)
        The active columns, F order.
    Phi : ndarray of shape (n, n_basis)
        All candidate columns.
    gram : ndarray of shape (n_basis, n_basis) or (0, 0)
        :math:`\boldsymbol\Phi^\top\boldsymbol\Phi` once computed, else empty.
    beta : float
        Noise precision.
    """
    n_samples, n_columns = Phi.shape
    for row in range(n_samples):
        basis[row, k] = Phi[row, i]
    if gram.shape[0]:
        for m in range(n_columns):
            cross[m, k] = gram[m, i]
    else:
        cross[:, k] = np.dot(Phi[:, i].copy(), Phi)  # phi_m^T phi_i for every m
    sigma_ii = 1.0 / (alpha_i + S[i])
    mean_i = sigma_ii * Q[i]
    u = np.zeros(k)  # beta Sigma Phi^T phi_i
    for a in range(k):
        total = 0.0
        for b in range(k):
            total += cov[a, b] * cross[i, b]
        u[a] = beta * total
    e = np.empty(n_columns)  # beta phi_m^T e_i for every m
    for m in range(n_columns):
        e[m] = cross[m, k]
    for b in range(k):
        for m in range(n_columns):
            e[m] -= cross[m, b] * u[b]
    for m in range(n_columns):
        e[m] *= beta
        S[m] -= sigma_ii * e[m] * e[m]
        Q[m] -= mean_i * e[m]
    for a in range(k):
        for b in range(k):
            cov[a, b] += sigma_ii * u[a] * u[b]
        cov[a, k] = -sigma_ii * u[a]
        cov[k, a] = -sigma_ii * u[a]
        mean[a] -= mean_i * u[a]
    cov[k, k] = sigma_ii
    mean[k] = mean_i
    active[k] = i
    alpha[i] = alpha_i


@njit(cache=True, error_model="numpy")
def update_column(j, alpha_i, S, Q, alpha, active, k, mean, cov, cross, basis, beta):
    r"""Re-estimate the precision of the function at position j to alpha_i, or delete it when
    alpha_i is inf; returns the new number of active functions.

    Tipping & Faul (2003), App. A, re-estimation and deletion: one Sherman-Morrison step in
    :math:`\boldsymbol\Sigma^{-1} = \mathbf A + \beta\boldsymbol\Phi^\top\boldsymbol\Phi`
    (7.83). With :math:`\boldsymbol\Sigma_j` the column of the function,
    :math:`\kappa = (\Sigma_{jj} + (\tilde\alpha_i - \alpha_i)^{-1})^{-1}` (which is
    :math:`1/\Sigma_{jj}` for a deletion) and :math:`v_m = \beta\boldsymbol\phi_m^\top
    \boldsymbol\Phi\boldsymbol\Sigma_j`: :math:`\boldsymbol\Sigma \mathrel{-}=
    \kappa\boldsymbol\Sigma_j\boldsymbol\Sigma_j^\top`, :math:`\mathbf m \mathrel{-}=
    \kappa m_j\boldsymbol\Sigma_j`, :math:`S_m \mathrel{+}= \kappa v_m^2`,
    :math:`Q_m \mathrel{+}= \kappa m_j v_m`. A deleted function's place is taken by the last.

    Parameters
    ----------
    j : int
        Position in ``active`` of the function to re-estimate or delete.
    alpha_i : float
        Its new precision; ``inf`` deletes it.
    S, Q, alpha, active, k, mean, cov, cross, basis
        The state, as in :func:`add_column`, updated in place.
    beta : float
        Noise precision.

    Returns
    -------
    int
        The number of active functions after the move.
    """
    i = active[j]
    n_columns = S.shape[0]
    sigma_j = np.empty(k)
    for a in range(k):
        sigma_j[a] = cov[a, j]
    kappa = 1.0 / (sigma_j[j] + 1.0 / (alpha_i - alpha[i]))  # no change: 0; deletion: 1/Sigma_jj
    v = np.zeros(n_columns)  # beta phi_m^T Phi Sigma_j
    for b in range(k):
        for m in range(n_columns):
            v[m] += cross[m, b] * sigma_j[b]
    mean_j = mean[j]
    for m in range(n_columns):
        v[m] *= beta
        S[m] += kappa * v[m] * v[m]
        Q[m] += kappa * mean_j * v[m]
    for a in range(k):
        for b in range(k):
            cov[a, b] -= kappa * sigma_j[a] * sigma_j[b]
        mean[a] -= kappa * mean_j * sigma_j[a]
    alpha[i] = alpha_i
    if not math.isinf(alpha_i):
        return k
    last = k - 1
    for a in range(k):
        cov[j, a] = cov[last, a]
    for a in range(k):
        cov[a, j] = cov[a, last]
    mean[j], active[j] = mean[last], active[last]
    for m in range(n_columns):
        cross[m, j] = cross[m, last]
    for row in range(basis.shape[0]):
        basis[row, j] = basis[row, last]
    return last


@njit(cache=True)
def beta_interval(n_active, per_active):
    """Single moves between two re-estimations of beta (step 8): one while the model is small,
    then one per ``per_active`` active functions, since the refactorisation that a new beta
    needs costs O(M k^2) against the O(M k) of a move.

    Parameters
    ----------
    n_active : int
        Number of active functions k.
    per_active : int
        Active functions per move between two updates
        (``kmlib._rvm_sequential.BETA_UPDATE_PER_ACTIVE``).

    Returns
    -------
    int
        ceil(n_active / per_active), at least 1.
    """
    return max(1, -(-n_active // per_active))


@njit(cache=True, error_model="numpy")
def single_moves(
    S,
    Q,
    alpha,
    active,
    mean,
    cov,
    cross,
    basis,
    Phi,
    gram,
    beta,
    evidence,
    path,
    recent,
    counters,
    tol,
    max_iter,
    per_active,
    refresh_every,
    verbose,
    gram_after_adds,
    gram_allowed,
):
    """Plain single moves, each a whole iteration of the fit, until the next iteration is not
    plain (``NOT_PLAIN``: nothing of it has been done), a move leaves work for the end of its
    iteration (``END_OF_ITERATION``: a new beta is due after ``per_active`` moves per active
    function, or a refresh after ``refresh_every`` moves, or a progress line every ``verbose``
    iterations; the move is done and counted, its ``path`` entry is not), or ``max_iter``
    iterations are done (``MAX_ITER``).

    A move is plain when it gains more than ``tol``, is not the re-estimation of a function
    moved in the last ``recent.size`` moves (where the fit tries a joint step), and, for an add,
    there is room in the buffers and the Gram matrix is not due (``gram_allowed`` and more than
    ``gram_after_adds`` adds). ``evidence[0]`` is the log evidence, updated by the gains (7.96).

    Parameters
    ----------
    S, Q, alpha, active, mean, cov, cross, basis, Phi, gram, beta
        The state, as in :func:`add_column` (``k`` is ``counters[K]``).
    evidence : ndarray of shape (1,)
        The log evidence, updated in place.
    path : ndarray of shape (max_iter + 1,)
        Log evidence after each iteration, written in place.
    recent : ndarray of int64, shape (window,)
        The functions of the last moves (a ring buffer; -1 for none yet).
    counters : ndarray of int64, shape (N_COUNTERS,)
        The counts shared with Python (``K``, ``ITERATIONS``, ``SINCE_BETA``,
        ``SINCE_REFRESH``, ``N_ADDS``, ``RECENT_NEXT``), updated in place.
    tol : float
        Smallest gain of a move that counts.
    max_iter : int
        Iteration limit.
    per_active : int
        See :func:`beta_interval`.
    refresh_every : int
        Moves between two fresh factorisations.
    verbose : int
        Progress line every ``verbose`` iterations (0: never).
    gram_after_adds : int
        Adds after which the Gram matrix is due.
    gram_allowed : bool
        Whether the Gram matrix may be computed at all.

    Returns
    -------
    int
        ``NOT_PLAIN``, ``END_OF_ITERATION`` or ``MAX_ITER``.
    """
    s, q = np.empty(S.shape[0]), np.empty(S.shape[0])
    while counters[ITERATIONS] < max_iter:
        k = counters[K]
        leave_one_out(S, Q, alpha, active, k, mean, cov, s, q)
        i, new_alpha, gain = best_move(s, q, alpha)
        if not gain > tol:
            return NOT_PLAIN
        if math.isinf(alpha[i]):
            if k == active.shape[0]:
                return NOT_PLAIN
            if gram_allowed and gram.shape[0] == 0 and counters[N_ADDS] + 1 > gram_after_adds:
                return NOT_PLAIN
            add_column(
                i, new_alpha, S, Q, alpha, active, k, mean, cov, cross, basis, Phi, gram, beta
            )
            counters[K] = k + 1
            counters[N_ADDS] += 1
        else:
            for r in range(recent.shape[0]):
                if recent[r] == i and not math.isinf(new_alpha) and k > 1:
                    return NOT_PLAIN  # creeping along a ridge: the fit tries a joint step
            j = 0
            while active[j] != i:
                j += 1
            counters[K] = update_column(
                j, new_alpha, S, Q, alpha, active, k, mean, cov, cross, basis, beta
            )
        evidence[0] += gain
        recent[counters[RECENT_NEXT]] = i
        counters[RECENT_NEXT] = (counters[RECENT_NEXT] + 1) % recent.shape[0]
        counters[ITERATIONS] += 1
        counters[SINCE_BETA] += 1
        counters[SINCE_REFRESH] += 1
        if (
            counters[SINCE_BETA] >= beta_interval(counters[K], per_active)
            or counters[SINCE_REFRESH] >= refresh_every
            or (verbose > 0 and counters[ITERATIONS] % verbose == 0)
        ):
            return END_OF_ITERATION
        path[counters[ITERATIONS]] = evidence[0]
    return MAX_ITER
