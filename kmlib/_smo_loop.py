r"""The compiled inner loop of :func:`kmlib.smo.solve` (numba, cached on disk).

One SMO iteration is a few passes over the active variables: working-set selection (WSS 3 of
Fan, Chen & Lin 2005), the two-variable step, the gradient update and, every
``SHRINK_PERIOD`` iterations, the shrinking test (Chang & Lin 2011, §5). :func:`iterate` runs
them without returning to Python until it needs something only Python provides:

* a kernel row that is not in the store of :class:`kmlib.smo.KernelRows` (``NEED_ROW``, the
  sample in ``state[NEEDED]``): Python computes and checks the row, then calls :func:`iterate`
  again, which resumes that iteration (nothing has changed; the first selection pass is kept);
* the gradient of the shrunk variables (``UNSHRINK``): Python reconstructs it and makes every
  variable active again;
* after shrinking, if ``report_shrinking`` (``SHRUNK``), a chance to restrict the stored rows
  to the active samples.

Everything is in the notation of :mod:`kmlib.smo`: ``v = -y * grad``, ``m = max_{I_up} v``,
``M = min_{I_low} v``. As in LIBSVM the per-variable arrays are kept permuted so that the active
variables are the first ``state[N_ACTIVE]`` entries (``index`` gives each entry's variable), and
every pass runs over one contiguous range; shrinking partitions that range stably, and Python
restores the caller's order when it makes every variable active again. Entry ``t`` refers to
sample ``s[t]``, whose kernel row is ``storage[slot_of[s[t]]]`` (``slot_of < 0``: not stored);
a row holds the samples ``columns``, entry ``t`` at position ``col[t]``. With two equality
constraints the two signs of ``y`` are two groups, each with its own ``i``, ``m`` and ``M``;
otherwise there is one group (named ``pos`` below). The loop only reads the row store and stamps
``last_use`` of the rows it reads, so that the least recently used row is evicted first. Rows are
read as ``storage[slot, col[t]]``, never through a view ``storage[slot]``: a view costs two
atomic reference counts, which at a few per iteration weighed as much as a pass over a small
active set.

This module imports numba, which takes a noticeable fraction of a second, so :mod:`kmlib.smo`
imports it on the first solve only.
"""

import numpy as np
from numba import njit

#: Curvature used in place of a non-positive :math:`a_{ij}` (Fan, Chen & Lin 2005). The
#: solver takes :math:`\max(a_{ij}, \tau)`, which differs from replacing only
#: :math:`a_{ij} \le 0` when :math:`0 < a_{ij} < 10^{-12}`, where either choice is a safeguard.
TAU = 1e-12

# entries of the integer state shared with Python; I_POS, I_NEG and the float array ``bounds``
# (m_pos, m_neg, M_pos, M_neg) keep the first selection pass across a NEED_ROW (KNOWN = 1)
ITERATIONS, COUNTER, SHRINK_DUE, UNSHRUNK, RECHECK, N_ACTIVE, NEEDED = range(7)
I_POS, I_NEG, KNOWN = range(7, 10)
STATE_SIZE = 10
# what iterate returns
CONVERGED, MAX_ITER, NEED_ROW, UNSHRINK, SHRUNK = range(5)


@njit(cache=True)
def _extremes(n_active, v, up, low, y, two, d, storage, slot_i, slot_j, col):
    """Per group: ``i = argmax_{I_up} v`` (WSS 3, step 1), ``m = v_i`` and ``M = min_{I_low} v``.

    With ``d != 0`` the same pass first applies the gradient update of the last step,
    ``v_t -= d (K_ti - K_tj)`` (the kernel rows of its pair in ``storage[slot_i]`` and
    ``storage[slot_j]``); with ``d = 0`` the rows are not read. Returns ``(i_pos, i_neg,
    m_pos, m_neg, low_min_pos, low_min_neg)``; ``i = -1`` and ``m = -inf`` for a group without
    a variable in I_up, ``M = +inf`` without one in I_low. Memberships are applied by selecting
    ``+-inf`` rather than by branching: they follow no pattern, and a mispredicted branch costs
    more than the comparison it skips.
    """
    i_pos, i_neg = -1, -1
    m_pos, m_neg = -np.inf, -np.inf
    low_min_pos, low_min_neg = np.inf, np.inf
    for t in range(n_active):
        if d != 0.0:  # the gradient update in v = -y grad form
            v[t] -= d * (storage[slot_i, col[t]] - storage[slot_j, col[t]])
        neg = two and y[t] < 0.0
        up_v = v[t] if up[t] else -np.inf
        low_v = v[t] if low[t] else np.inf
        if (-np.inf if neg else up_v) > m_pos:
            m_pos, i_pos = up_v, t
        if (up_v if neg else -np.inf) > m_neg:
            m_neg, i_neg = up_v, t
        low_min_pos = min(low_min_pos, np.inf if neg else low_v)
        low_min_neg = min(low_min_neg, low_v if neg else np.inf)
    return i_pos, i_neg, m_pos, m_neg, low_min_pos, low_min_neg


@njit(cache=True)
def _second_order_j(n_active, v, low, y, two, diag, col, i_pos, i_neg, m_pos, m_neg, storage,
                    slot_pos, slot_neg):
    """WSS 3, step 2: ``j`` maximises ``b_it^2 / a_it`` over ``t`` in I_low with ``v_t < m``.

    ``storage[slot_pos]``, ``storage[slot_neg]``: kernel rows of the samples of ``i_pos`` and
    ``i_neg`` (any stored row for a group without candidates). Returns ``j``, -1 when there is
    no candidate.
    """
    j = -1
    best = -1.0
    diag_pos, diag_neg = diag[max(i_pos, 0)], diag[max(i_neg, 0)]
    for t in range(n_active):
        neg = two and y[t] < 0.0
        gain = (m_neg if neg else m_pos) - v[t]  # b_it = m(alpha) - v_t       (WSS 3, b_it)
        if low[t] and gain > 0.0:
            k_it = storage[slot_neg if neg else slot_pos, col[t]]
            curvature = (diag_neg if neg else diag_pos) + diag[t] - 2.0 * k_it
            curvature = max(curvature, TAU)  # a_it = K_ii + K_tt - 2 K_it, tau if <= 0 (WSS 3)
            score = gain * gain / curvature
            if score > best:
                best, j = score, t
    return j


@njit(cache=True)
def _track_upper_bound(t, before, storage, slot_t, alpha, y, C, s, columns, gbar, missed):
    """Keep ``gbar = K beta_C`` current when ``alpha_t`` reaches or leaves ``C_t`` (LIBSVM's G_bar).

    The row of ``t``, ``storage[slot_t]``, holds the samples ``columns`` only: the change is also
    added to ``missed[s_t]`` (n,), from which Python brings the other samples up to date.
    """
    upper = alpha[t] >= C[t]
    if upper == (before >= C[t]):
        return
    coef = y[t] * C[t] if upper else -y[t] * C[t]
    for k in range(columns.size):
        gbar[columns[k]] += coef * storage[slot_t, k]
    missed[s[t]] += coef


@njit(cache=True)
def _set_membership(t, alpha, y, C, up, low):
    """``t`` in I_up and I_low after its ``alpha_t`` changed (Fan, Chen & Lin 2005)."""
    if y[t] > 0:
        up[t] = alpha[t] < C[t]
        low[t] = alpha[t] > 0.0
    else:
        up[t] = alpha[t] > 0.0
        low[t] = alpha[t] < C[t]


@njit(cache=True)
def _step(i, j, m_i, storage, slot_i, slot_j, v, alpha, y, C, s, col, diag, up, low, columns,
          gbar, missed):
    """Solve the two-variable subproblem exactly (Fan, Chen & Lin 2005); returns the step ``d``.

    Updates ``alpha``, the memberships and ``gbar``; ``v`` changes by ``-d (K_ti - K_tj)``,
    which the next :func:`_extremes` applies. ``storage[slot_i]``, ``storage[slot_j]``: the
    rows of ``i`` and ``j``.
    """
    curvature = max(diag[i] + diag[j] - 2.0 * storage[slot_i, col[j]], TAU)  # as in WSS 3
    d = (m_i - v[j]) / curvature  # unconstrained step along y_i e_i - y_j e_j
    alpha_i, alpha_j = alpha[i], alpha[j]
    y_i, y_j = y[i], y[j]
    room_i = C[i] - alpha_i if y_i > 0 else alpha_i  # room for alpha_i to move by y_i d
    room_j = alpha_j if y_j > 0 else C[j] - alpha_j  # room for alpha_j to move by -y_j d
    if d >= min(room_i, room_j):  # clip to the box; a variable that hits it is set exactly
        d = min(room_i, room_j)
        new_i = (C[i] if y_i > 0 else 0.0) if d == room_i else alpha_i + y_i * d
        new_j = (0.0 if y_j > 0 else C[j]) if d == room_j else alpha_j - y_j * d
    else:
        new_i, new_j = alpha_i + y_i * d, alpha_j - y_j * d
    alpha[i] = min(max(new_i, 0.0), C[i])
    alpha[j] = min(max(new_j, 0.0), C[j])
    _track_upper_bound(i, alpha_i, storage, slot_i, alpha, y, C, s, columns, gbar, missed)
    _track_upper_bound(j, alpha_j, storage, slot_j, alpha, y, C, s, columns, gbar, missed)
    _set_membership(i, alpha, y, C, up, low)
    _set_membership(j, alpha, y, C, up, low)
    return d


@njit(cache=True)
def _shrink(n_active, v, alpha, y, C, s, col, diag, up, low, index, two, m_pos, m_neg,
            low_min_pos, low_min_neg):
    """Drop bound variables that cannot join a working set (Chang & Lin 2011, §5).

    Moves the kept entries of ``[0, n_active)`` to its front, in order, the dropped ones after
    them, and returns how many were kept.
    """
    never = np.empty(n_active, dtype=np.bool_)
    for t in range(n_active):
        neg = two and y[t] < 0.0
        m_up, m_low = (m_neg, low_min_neg) if neg else (m_pos, low_min_pos)
        # only in I_up and below M: never i; only in I_low and above m: never j
        never[t] = (up[t] and not low[t] and v[t] < m_low) or (
            low[t] and not up[t] and v[t] > m_up
        )
    order = np.empty(n_active, dtype=np.int64)  # kept entries first, then dropped ones
    kept = 0
    for t in range(n_active):
        if not never[t]:
            order[kept] = t
            kept += 1
    dropped = kept
    for t in range(n_active):
        if never[t]:
            order[dropped] = t
            dropped += 1
    _permute(v, order)
    _permute(alpha, order)
    _permute(y, order)
    _permute(C, order)
    _permute(diag, order)
    _permute(s, order)
    _permute(col, order)
    _permute(index, order)
    _permute(up, order)
    _permute(low, order)
    return kept


@njit(cache=True)
def _permute(values, order):
    """``values[:order.size] = values[order]``."""
    moved = np.empty(order.size, dtype=values.dtype)
    for k in range(order.size):
        moved[k] = values[order[k]]
    for k in range(order.size):
        values[k] = moved[k]


@njit(cache=True)
def _need_row(sample, state, bounds, extremes):
    """Ask Python for the row of ``sample``, keeping ``extremes`` (:func:`_extremes`) for the
    next call, which would otherwise repeat that pass over the active variables."""
    state[NEEDED] = sample
    state[I_POS], state[I_NEG] = extremes[0], extremes[1]
    bounds[0], bounds[1], bounds[2], bounds[3] = extremes[2], extremes[3], extremes[4], extremes[5]
    state[KNOWN] = 1
    return NEED_ROW


@njit(cache=True)
def _stored_row(sample, slot_of, last_use, clock):
    """Slot of the stored row of ``sample`` (stamped as just used), or -1."""
    slot = slot_of[sample]
    if slot >= 0:
        last_use[slot] = clock[0]
        clock[0] += 1
    return slot


@njit(cache=True)
def add_weighted_rows(storage, slots, weights, at, out):
    """``out[r] += sum_c weights[c] * storage[slots[c], at[r]]``: stored rows, read in place.

    ``slots`` and ``weights`` (c,), ``at`` and ``out`` (r,).
    """
    for c in range(slots.size):
        for r in range(at.size):
            out[r] += weights[c] * storage[slots[c], at[r]]


@njit(cache=True)
def iterate(storage, slot_of, last_use, clock, columns, state, bounds, v, alpha, y, C, s, col,
            diag, up, low, index, gbar, missed, tol, max_iter, shrinking, two, period,
            report_shrinking):
    """Run SMO iterations until convergence, ``max_iter``, or a request to Python.

    Parameters
    ----------
    storage : ndarray of shape (n_slots, m)
        Stored kernel rows over the samples ``columns`` (m,); ``slot_of`` (n,), ``last_use``
        (n_slots,) and ``clock`` (1,) index and stamp them.
    state : ndarray of int64, shape (STATE_SIZE,)
        Iteration count, shrinking counters and flags, the active count, the requested sample.
    bounds : ndarray of shape (4,)
        With ``state[KNOWN]``: ``m`` and ``M`` of both groups from before a NEED_ROW.
    v, alpha, y, C, diag : ndarray of shape (n_var,)
        ``-y * grad`` (current on the active entries), the point, the signs, the bounds and
        ``K_{s(t) s(t)}``; ``s`` and ``col`` (n_var,) the samples and their positions in a
        row, ``up`` and ``low`` (n_var,) the memberships of I_up and I_low, ``index`` (n_var,)
        the variables, all permuted alike; ``gbar`` (n,) the gradient part from variables at
        their upper bound, ``missed`` (n,) its changes not yet applied outside ``columns``.
    tol : float
    max_iter, period : int
    shrinking, two, report_shrinking : bool
        ``report_shrinking``: return ``SHRUNK`` after a shrinking step that dropped variables.

    Returns
    -------
    int
        ``CONVERGED``, ``MAX_ITER``, ``NEED_ROW``, ``UNSHRINK`` or ``SHRUNK``.
    """
    n_var = v.size
    n_active = state[N_ACTIVE]
    # m, M and i of the active set; the last step's pass computes them for the next iteration
    if state[KNOWN]:
        i_pos, i_neg, m_pos, m_neg, low_min_pos, low_min_neg = (
            state[I_POS], state[I_NEG], bounds[0], bounds[1], bounds[2], bounds[3]
        )
        state[KNOWN] = 0
    else:
        i_pos, i_neg, m_pos, m_neg, low_min_pos, low_min_neg = _extremes(
            n_active, v, up, low, y, two, 0.0, storage, 0, 0, col
        )
    while state[ITERATIONS] < max_iter:
        if state[SHRINK_DUE]:
            state[SHRINK_DUE] = 0
            if shrinking:
                if not state[UNSHRUNK] and max(m_pos - low_min_pos, m_neg - low_min_neg) <= (
                    10.0 * tol
                ):  # close to optimal: once, shrink again from the whole set
                    state[UNSHRUNK] = 1
                    state[SHRINK_DUE] = 1
                    return UNSHRINK
                kept = _shrink(
                    n_active, v, alpha, y, C, s, col, diag, up, low, index, two, m_pos, m_neg,
                    low_min_pos, low_min_neg,
                )
                if kept < n_active:
                    state[N_ACTIVE] = n_active = kept
                    if report_shrinking:
                        return SHRUNK
                    i_pos, i_neg, m_pos, m_neg, low_min_pos, low_min_neg = _extremes(
                        n_active, v, up, low, y, two, 0.0, storage, 0, 0, col
                    )  # the same values, at the entries' new places
        gap_pos, gap_neg = m_pos - low_min_pos, m_neg - low_min_neg
        if max(gap_pos, gap_neg) < tol:  # stopping rule m(alpha) - M(alpha) < eps
            if n_active == n_var:
                return CONVERGED
            state[RECHECK] = 1  # optimal on the active set: check the whole set
            return UNSHRINK
        extremes = (i_pos, i_neg, m_pos, m_neg, low_min_pos, low_min_neg)
        slot_pos, slot_neg = -1, -1  # the row of i in each group that has candidates j
        if gap_pos > 0.0:
            slot_pos = _stored_row(s[i_pos], slot_of, last_use, clock)
            if slot_pos < 0:
                return _need_row(s[i_pos], state, bounds, extremes)
        if gap_neg > 0.0:
            slot_neg = _stored_row(s[i_neg], slot_of, last_use, clock)
            if slot_neg < 0:
                return _need_row(s[i_neg], state, bounds, extremes)
        if slot_pos < 0 or slot_neg < 0:  # a group without candidates reads the other's row
            slot_pos = slot_neg = max(slot_pos, slot_neg)
        j = _second_order_j(
            n_active, v, low, y, two, diag, col, i_pos, i_neg, m_pos, m_neg, storage, slot_pos,
            slot_neg,
        )
        slot_j = _stored_row(s[j], slot_of, last_use, clock)
        if slot_j < 0:
            return _need_row(s[j], state, bounds, extremes)
        if two and y[j] < 0.0:
            i, m_i, slot_i = i_neg, m_neg, slot_neg
        else:
            i, m_i, slot_i = i_pos, m_pos, slot_pos
        d = _step(i, j, m_i, storage, slot_i, slot_j, v, alpha, y, C, s, col, diag, up, low,
                  columns, gbar, missed)
        i_pos, i_neg, m_pos, m_neg, low_min_pos, low_min_neg = _extremes(
            n_active, v, up, low, y, two, d, storage, slot_i, slot_j, col
        )
        state[ITERATIONS] += 1
        if state[RECHECK]:  # the whole set was not optimal: shrink again at once
            state[RECHECK] = 0
            state[COUNTER] = 1
        state[COUNTER] -= 1
        if state[COUNTER] == 0:  # shrinking is tried every min(n_var, period) iterations
            state[COUNTER] = min(n_var, period)
            state[SHRINK_DUE] = 1
    return MAX_ITER
