"""Print the environment of a second numerical environment for this machine.

``make test-portable`` runs the pages and the numerical tests again with another OpenBLAS kernel
than the one OpenBLAS picks for this processor, and with numba compiling for a generic x86-64
CPU, so that a check which only holds for one processor's rounding fails on the machine where it
is written. The kernel is Sandybridge (AVX, no FMA), unless this processor's own kernel is
Sandybridge, then Nehalem (SSE only); both run on any x86-64 processor made since 2011.

Output: one line of ``NAME=value`` words, for ``env``.
"""

from threadpoolctl import threadpool_info


def default_kernels():
    """The OpenBLAS kernels the loaded BLAS libraries chose for this processor."""
    import numpy  # noqa: F401  (loads numpy's OpenBLAS)
    import scipy.linalg  # noqa: F401  (and scipy's)

    return {info.get("architecture") for info in threadpool_info()
            if info.get("internal_api") == "openblas"}


def main():
    other = "Nehalem" if "Sandybridge" in default_kernels() else "Sandybridge"
    print(f"OPENBLAS_CORETYPE={other} NUMBA_CPU_NAME=generic")


if __name__ == "__main__":
    main()
