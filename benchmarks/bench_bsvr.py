"""Time one evidence-and-gradient evaluation of BSVR against GP regression, as n grows.

Chu (2003, 4.5.1, Figure 4.2) argues that the Bayesian SVR is cheaper than GP regression because
its evidence (4.38) factorises only the block of off-bound support vectors, where GP regression
factorises the whole n x n covariance; on the thesis's machine the measured costs grew as
O(n^2.36) for BSVR and O(n^3.05) for GP regression. This script measures the same thing for
kmlib, in one run:

* **BSVR**: the covariance and its derivatives, the MAP by SMO (4.25), the evidence (4.38) and
  its gradient (4.39)-(4.41). An optimiser calls this with hyperparameters close to the last
  ones, so the MAP is warm-started from the solution at a 5 % smaller C, moved to the new box as
  ``BayesianSVR.fit`` moves it (bound variables stay bound; the column ``warm``); ``cold``
  starts SMO from zero.
* **GP regression**: the covariance and its derivatives, the Cholesky factor, the evidence and
  its gradient (``GaussianProcessRegressor.log_marginal_likelihood``).

Data: sinc with Gaussian noise of variance 0.04 (the setting of Figure 4.2), inputs
standardised. Both use the covariance (4.3) with kappa = 5, kappa_b = 100 and kappa_0 the
target variance; BSVR has C = 10, epsilon = 0.1, beta = 0.3 and GP regression the true noise
variance. The script prints the times, their ratio, the number of off-bound support vectors
(the size of the matrix BSVR factorises) and the exponents of log-log fits over the sizes.
Each time is the best of ``--repeat`` runs.

Usage::

    python benchmarks/bench_bsvr.py [--sizes 250 500 1000 2000 4000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from kmlib.bsvr import _rescaled_start, log_evidence, solve_dual
from kmlib.datasets import sinc
from kmlib.gp import GaussianProcessRegressor
from kmlib.kernels import RBF, Constant

C, EPSILON, BETA, KAPPA, KAPPA_B, NOISE = 10.0, 0.1, 0.3, 5.0, 100.0, 0.04


def best_time(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def bsvr_evaluation(X, y, kernel, nu0):
    Sigma, dSigma = kernel(X, eval_gradient=True)
    solution = solve_dual(Sigma, y, C, EPSILON, BETA, nu0=nu0)
    value, gradient = log_evidence(Sigma, y, C, EPSILON, BETA, solution, dSigma)
    return solution, value, gradient


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000, 4000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    header = (
        f"{'n':>5} | {'BSVR warm':>9} {'BSVR cold':>9} {'GPR':>7} {'warm/GPR':>8} | "
        f"{'off-bound':>9} {'on-bound':>8} {'SMO steps':>9}"
    )
    print("seconds per evaluation of the evidence and its gradient, best of", args.repeat)
    print(header)
    print("-" * len(header))
    rows = []
    for n in args.sizes:
        x, y = sinc(n, random_state=n, noise="gaussian", noise_variance=NOISE)
        X = ((x - x.mean()) / x.std())[:, np.newaxis]
        rbf = RBF(lengthscale=KAPPA**-0.5, variance=float(np.var(y)), limits={"variance": "fixed"})
        kernel = rbf + Constant(KAPPA_B)
        # the warm start an optimiser would have: the MAP at a nearby C
        nearby = solve_dual(kernel(X), y, 0.95 * C, EPSILON, BETA)
        start = _rescaled_start(nearby.nu, 0.95 * C, C)
        t_warm, (solution, _, _) = best_time(
            lambda: bsvr_evaluation(X, y, kernel, start), args.repeat
        )
        t_cold, _ = best_time(lambda: bsvr_evaluation(X, y, kernel, None), args.repeat)
        gp = GaussianProcessRegressor(kernel=kernel, noise_variance=NOISE, optimize=False)
        gp.fit(X, y)
        t_gp, _ = best_time(lambda: gp.log_marginal_likelihood(gp.theta_, True), args.repeat)
        print(
            f"{n:>5} | {t_warm:>9.3f} {t_cold:>9.3f} {t_gp:>7.3f} {t_warm / t_gp:>8.2f} | "
            f"{solution.off_bound.size:>9} {solution.on_bound.size:>8} {solution.n_iter:>9}"
        )
        rows.append((n, t_warm, t_cold, t_gp))
    if len(rows) > 1:
        n, warm, cold, gp = (np.log(np.array(column)) for column in zip(*rows))
        print()
        for name, times in (("BSVR warm", warm), ("BSVR cold", cold), ("GPR", gp)):
            print(f"{name:>9}: time ~ n^{np.polyfit(n, times, 1)[0]:.2f}")
        print("(Chu 2003, Figure 4.2: BSVR n^2.36, GPR n^3.05, on a PIII 866 MHz)")


if __name__ == "__main__":
    main()
