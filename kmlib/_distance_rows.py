"""Rows of scaled squared distances for the stationary kernels' row path (numba, cached on disk).

:meth:`kmlib.kernels._Stationary.gram_rows` needs, row by row or a few rows at a time, the
squared distances from some samples to many; solvers ask for thousands of rows, so the numpy
form (a matrix-vector product, then several passes) costs more in call overhead and memory
traffic than the arithmetic. The loop below makes one pass per input dimension over each row,
which stays in cache meanwhile. It sums the squared differences in the same order for every
entry, whatever rows are asked for together, so a row is the same to the last bit however it was
computed; and the difference form needs no correction for close pairs.

It imports numba, so :mod:`kmlib.kernels` imports it only when rows are asked for.
"""

from numba import njit


@njit(cache=True)
def squared_distances(points_t, targets, out):
    """``out[r, t] = sum_k (points_t[k, t] - targets[r, k])**2``, summed over ``k`` in order.

    Parameters
    ----------
    points_t : ndarray of shape (d, m)
        The column points, transposed (one contiguous row per input dimension).
    targets : ndarray of shape (b, d)
        The row points.
    out : ndarray of shape (b, m)
        Written in place.
    """
    # 2-d indexing throughout: a view (out[r]) would cost two atomic reference counts
    for r in range(targets.shape[0]):
        for t in range(out.shape[1]):  # row r stays in cache while the dimensions pass over it
            out[r, t] = 0.0
        for k in range(points_t.shape[0]):
            x = targets[r, k]
            for t in range(out.shape[1]):
                diff = points_t[k, t] - x
                out[r, t] += diff * diff
