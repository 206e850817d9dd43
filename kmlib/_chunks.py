"""Predictions in blocks of query rows, in memory bounded by a budget the user sets.

Predicting at a query point compares it with every training point (or support vector, or
centre): a row of kernel values, and the temporaries that computing and using it need. For all
query points at once that is an (m, n) array several times over, gigabytes for m = 50 000
against n = 2 000. :func:`in_blocks` takes the query rows in blocks instead, and counts every
array a block holds at once, the kernel's temporaries included
(:meth:`kmlib.kernels.Kernel._temporaries`). A block holds at most

* scikit-learn's ``working_memory`` (in MiB, 1024 by default), which the user sets with
  ``sklearn.set_config(working_memory=MB)``, or for a while with
  ``with sklearn.config_context(working_memory=MB):``, and
* ``BLOCK_BYTES``, because larger blocks are no faster. On 2 000 training points in 5
  dimensions (an RBF kernel, three arrays of n values per row, one core) blocks of 2**21 to
  2**23 kernel values (48-192 MiB) predicted 50 000 points in 0.40-0.44 s; 2**24 values took
  0.76 s (fresh pages for every block), one block of 10**8 values 3.2-4.1 s; 2**19 values
  0.56 s and 2**18 1.1 s (costs per call).

A row that alone exceeds the budget makes a block of its own. So a prediction needs at most
about ``BLOCK_BYTES`` above the fitted model and its inputs and outputs, however many query
points there are (``benchmarks/bench_memory.py``: 54-123 MiB for 50 000 and for 1 000 000
points against 2 000), and it is one block, without copies, when everything fits. Each query row is
computed by the same operations whatever block it falls in, so the answer does not depend on
the budget (but for the last bit of a BLAS product, whose order of summation can depend on the
shape of the block).
"""

from __future__ import annotations

import numpy as np
from sklearn import get_config
from sklearn.utils import gen_batches

from ._kernel_checks import evaluate_kernel
from .kernels import Kernel

__all__ = ["BLOCK_BYTES", "in_blocks", "kernel_temporaries", "kernel_times"]

#: Most bytes of temporaries in one block (128 MiB), where larger blocks stop being faster.
BLOCK_BYTES = 2**27
#: Arrays of the kernel's output shape that a plain callable ``k(X, Y)`` is assumed to hold.
CALLABLE_TEMPORARIES = 4.0


def kernel_temporaries(kernel, n_features):
    """Arrays of the shape of ``k(X, Y)`` that evaluating (and checking) the kernel holds at once.

    Parameters
    ----------
    kernel : kmlib kernel, callable or "precomputed"
        ``"precomputed"`` costs the one copy that selecting columns of ``X`` makes.
    n_features : int
        Columns of the inputs (some kernels make temporaries per input dimension).

    Returns
    -------
    float
    """
    if isinstance(kernel, Kernel):
        return kernel._temporaries(n_features)
    if isinstance(kernel, str):
        return 1.0
    return CALLABLE_TEMPORARIES


def in_blocks(function, X, n_columns, arrays=0.0, kernel=None, values=0):
    """``function(X)``, computed on blocks of rows of ``X`` that fit the memory budget.

    Parameters
    ----------
    function : callable
        Maps rows of ``X`` (a block of each array when ``X`` is a tuple: ``function(*blocks)``)
        to an ndarray of shape (b, ...) or a tuple of them, each output row depending on its
        input row alone.
    X : ndarray of shape (m, ...), or tuple of them
        The query rows, validated.
    n_columns : int
        How many points each query row is compared with: the length of the arrays that
        ``function`` makes per row.
    arrays : float, default=0.0
        How many float64 arrays of ``n_columns`` values per row ``function`` holds at once,
        besides the kernel's evaluation.
    kernel : kmlib kernel, callable, "precomputed" or None, default=None
        The kernel that ``function`` evaluates against the ``n_columns`` points, whose
        temporaries are added to ``arrays``.
    values : int, default=0
        Further float64 values per row that ``function`` holds (not in units of
        ``n_columns``: quadrature nodes, class pairs).

    Returns
    -------
    ndarray or tuple of ndarray
        What ``function(X)`` returns.
    """
    inputs = X if isinstance(X, tuple) else (X,)
    m = inputs[0].shape[0]
    if kernel is not None:
        arrays = arrays + kernel_temporaries(kernel, inputs[0].shape[1])
    row_bytes = 8.0 * (arrays * n_columns + values)
    budget = min(get_config()["working_memory"] * 2**20, BLOCK_BYTES)  # MiB to bytes
    rows = max(1, int(budget // max(row_bytes, 1.0)))
    if rows >= m:
        return function(*inputs)  # one block: no copies
    out = None
    for block in gen_batches(m, rows):
        part = function(*(array[block] for array in inputs))
        single = not isinstance(part, tuple)
        parts = (part,) if single else part
        if out is None:
            out = tuple(np.empty((m,) + p.shape[1:], dtype=p.dtype) for p in parts)
        for whole, p in zip(out, parts):
            whole[block] = p
    return out[0] if single else out


def kernel_times(kernel, X, points, weights):
    """``k(X, points) @ weights`` in blocks of rows of ``X``: a kernel model's linear predictor.

    Parameters
    ----------
    kernel : kmlib kernel or callable
    X : ndarray of shape (m, d)
        Query points, validated.
    points : ndarray of shape (n, d)
        The training points (or support vectors) the model compares with.
    weights : ndarray of shape (n,) or (n, k)

    Returns
    -------
    ndarray of shape (m,) or (m, k)
    """
    return in_blocks(
        lambda rows: evaluate_kernel(kernel, rows, points) @ weights,
        X,
        points.shape[0],
        kernel=kernel,
    )
