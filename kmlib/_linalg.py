"""Dense linear algebra for symmetric positive (semi-)definite matrices.

The rules every kmlib model follows: factorise with Cholesky, add jitter only when the plain
factorisation fails, never form an explicit inverse, and take log-determinants from the factor.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

__all__ = [
    "cholesky",
    "cholesky_if_definite",
    "cho_solve",
    "solve_lower",
    "log_det",
    "solve_psd",
    "inverse_from_cholesky",
]

#: Relative jitter tried first, as a multiple of the mean diagonal entry.
INITIAL_JITTER = 1e-10
#: Largest relative jitter tried before giving up.
MAX_JITTER = 1e-4


def cholesky(A, *, initial_jitter=INITIAL_JITTER, max_jitter=MAX_JITTER):
    """Lower Cholesky factor of a symmetric positive definite matrix, with jitter if needed.

    The plain factorisation is tried first. If it fails, ``jitter * mean(diag(A))`` is added to
    the diagonal, starting at ``initial_jitter`` and growing tenfold up to ``max_jitter``.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric matrix that should be positive definite.
    initial_jitter : float, default=1e-10
        Smallest relative jitter to try (:data:`INITIAL_JITTER`).
    max_jitter : float, default=1e-4
        Largest relative jitter to try (:data:`MAX_JITTER`).

    Returns
    -------
    L : ndarray of shape (n, n)
        Lower-triangular factor with ``L @ L.T == A + jitter * I``.
    jitter : float
        Absolute jitter that was added to the diagonal (0.0 when none was needed).

    Raises
    ------
    ValueError
        If ``A`` is not square or contains non-finite values.
    numpy.linalg.LinAlgError
        If ``A`` is not positive definite even with the largest jitter.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"the matrix to factorise must be square; got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError(
            "the matrix to factorise (a kernel or covariance matrix) holds NaN or infinite values"
        )
    L, info = lapack.dpotrf(A, lower=True)  # LAPACK directly: small models call this often
    if info == 0:
        return L, 0.0
    scale = np.mean(np.abs(np.diag(A))) or 1.0
    relative = initial_jitter
    while relative <= max_jitter * (1 + 1e-12):
        jitter = relative * scale
        L, info = lapack.dpotrf(A + jitter * np.eye(A.shape[0]), lower=True)
        if info == 0:
            return L, jitter
        relative *= 10.0
    smallest = linalg.eigvalsh(A, subset_by_index=[0, 0], check_finite=False)[0]
    raise np.linalg.LinAlgError(
        f"matrix is not positive definite: its smallest eigenvalue is {smallest:.3g} and a "
        f"jitter of {max_jitter:g} x mean(diag) did not help; check that the kernel is valid, "
        "remove duplicate inputs, or add noise (a White kernel or a larger noise variance)"
    )


def cholesky_if_definite(A):
    """Lower Cholesky factor of ``A`` if it is numerically positive definite, else ``None``.

    No jitter: for callers that test definiteness and take another route when it fails (the
    RVM's joint Newton step uses the factor of minus a Hessian only where that is definite).

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric and finite.

    Returns
    -------
    L : ndarray of shape (n, n) or None
    """
    L, info = lapack.dpotrf(np.asarray(A, dtype=np.float64), lower=True)
    return L if info == 0 else None


def cho_solve(L, B):
    """Solve ``A X = B`` given the lower Cholesky factor ``L`` of ``A``.

    Parameters
    ----------
    L : ndarray of shape (n, n)
        Lower Cholesky factor of ``A``, as :func:`cholesky` returns it.
    B : ndarray of shape (n,) or (n, k)
        Right-hand side(s); ``n = 0`` is allowed.

    Returns
    -------
    X : ndarray of the same shape as ``B``
        ``A^{-1} B``, by a forward and a backward substitution (LAPACK ``potrs``).
    """
    B = np.asarray(B, dtype=np.float64)
    if B.shape[0] == 0:
        return B.copy()
    X, info = lapack.dpotrs(L, B, lower=True)
    if info != 0:
        raise ValueError(f"potrs failed with info={info}: check the shapes of L and B")
    return X


def solve_lower(L, B):
    """Solve ``L X = B`` for lower-triangular ``L`` (forward substitution).

    Parameters
    ----------
    L : ndarray of shape (n, n)
        Lower-triangular and non-singular; only its lower triangle is read.
    B : ndarray of shape (n,) or (n, k)
        Right-hand side(s).

    Returns
    -------
    X : ndarray of the same shape as ``B``
        ``L^{-1} B``; when ``L`` is the Cholesky factor of ``A``, ``X.T @ X`` is
        ``B^T A^{-1} B``.
    """
    return linalg.solve_triangular(L, B, lower=True, check_finite=False)


def log_det(L):
    """``log det A = 2 sum_i log L_ii`` from the lower Cholesky factor ``L`` of ``A``."""
    return 2.0 * np.sum(np.log(np.diag(L)))


def inverse_from_cholesky(L):
    """``A^{-1}`` from the lower Cholesky factor ``L`` of ``A`` (LAPACK ``potri``).

    Only for quantities that need the whole inverse, such as the trace terms of evidence
    gradients (PRML 6.70); solve linear systems with :func:`cho_solve` instead.

    Parameters
    ----------
    L : ndarray of shape (n, n)
        Lower-triangular, with zeros above the diagonal (as :func:`cholesky` returns it).

    Returns
    -------
    A_inv : ndarray of shape (n, n)
        Symmetric, both triangles filled.
    """
    inverse, info = lapack.dpotri(L, lower=True)
    if info != 0:
        raise np.linalg.LinAlgError(f"potri failed with info={info}: L is singular")
    # potri fills the lower triangle and leaves the zeros above the diagonal of L
    inverse += inverse.T
    inverse.flat[:: inverse.shape[0] + 1] *= 0.5  # (x + x) / 2 == x exactly
    return inverse


def solve_psd(A, B):
    """Solve ``A X = B`` for symmetric positive definite ``A`` by Cholesky (jitter if needed).

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric positive definite (up to the jitter :func:`cholesky` may add).
    B : ndarray of shape (n,) or (n, k)
        Right-hand side(s).

    Returns
    -------
    X : ndarray of the same shape as ``B``
        The solution for ``A`` plus any jitter added to its diagonal.
    """
    L, _ = cholesky(A)
    return cho_solve(L, B)
