"""Time kmlib's Gaussian processes against scikit-learn's in the same run.

Three problems, each at equal hyperparameters or from equal starting points:

1. regression, fit + predict (mean and std) at fixed hyperparameters, n = 500 ... 4000;
2. regression, type-II maximum likelihood (kernel variance, ARD length-scales and noise);
3. Laplace classification, fit + predict_proba at fixed hyperparameters, n = 250 ... 2000.

Each line prints both times (the best of ``--repeats`` runs), the ratio kmlib / scikit-learn
(below 1 means kmlib is faster) and the agreement of the log evidence (relative difference) or,
for optimisation, the two optima.

Usage::

    python benchmarks/bench_gp.py [--sizes 500 1000 2000 4000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel

from kmlib.gp import GaussianProcessRegressor
from kmlib.kernels import RBF
from kmlib.laplace import GaussianProcessClassifier


def best_time(run, repeats):
    """Smallest wall time of ``repeats`` calls, and the last call's result."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def regression_problem(n, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, d))
    t = np.sin(2 * np.pi * X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, t, rng.uniform(0, 1, (n, d))


def classification_problem(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    t = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, t, rng.normal(size=(n, 2))


def bench_regression(sizes, repeats):
    print("GP regression, fit + predict(return_std=True), RBF(0.3, 1.5), noise 0.01")
    print(f"{'n':>6} {'kmlib s':>9} {'sklearn s':>10} {'ratio':>7} {'evidence rel. diff':>19}")
    for n in sizes:
        X, t, Xs = regression_problem(n)

        def ours():
            gp = GaussianProcessRegressor(RBF(0.3, 1.5), noise_variance=0.01, optimize=False)
            gp.fit(X, t)
            return gp, gp.predict(Xs, return_std=True)

        def theirs():
            sk = SkGPR(ConstantKernel(1.5, "fixed") * SkRBF(0.3), alpha=0.01, optimizer=None)
            sk.fit(X, t)
            return sk, sk.predict(Xs, return_std=True)

        t_ours, (gp, (m, s)) = best_time(ours, repeats)
        t_theirs, (sk, (m_sk, s_sk)) = best_time(theirs, repeats)
        rel = abs(gp.log_marginal_likelihood_ / sk.log_marginal_likelihood_value_ - 1)
        assert np.allclose(m, m_sk, rtol=1e-6, atol=1e-8) and np.allclose(s, s_sk, rtol=1e-6)
        print(f"{n:>6} {t_ours:>9.3f} {t_theirs:>10.3f} {t_ours / t_theirs:>7.2f} {rel:>19.1e}")


def bench_optimisation(n, repeats):
    print(f"\nGP regression, type-II ML of ARD RBF + noise from the same start, n = {n}")
    X, t, _ = regression_problem(n)

    def ours():
        return GaussianProcessRegressor(RBF([1.0] * 3, 1.0), noise_variance=1.0).fit(X, t)

    def theirs():
        kernel = ConstantKernel(1.0) * SkRBF([1.0] * 3) + WhiteKernel(1.0)
        return SkGPR(kernel, alpha=0.0).fit(X, t)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t_ours, gp = best_time(ours, repeats)
        t_theirs, sk = best_time(theirs, repeats)
    print(
        f"{'kmlib s':>9} {'sklearn s':>10} {'ratio':>7} {'kmlib optimum':>14} {'sklearn optimum':>16}"
    )
    print(
        f"{t_ours:>9.3f} {t_theirs:>10.3f} {t_ours / t_theirs:>7.2f} "
        f"{gp.log_marginal_likelihood_:>14.6f} {sk.log_marginal_likelihood_value_:>16.6f}"
    )


def bench_classification(sizes, repeats):
    print("\nLaplace GP classification, fit + predict_proba, RBF(0.8, 4.0)")
    print(f"{'n':>6} {'kmlib s':>9} {'sklearn s':>10} {'ratio':>7} {'evidence rel. diff':>19}")
    for n in sizes:
        X, t, Xs = classification_problem(n)

        def ours():
            gpc = GaussianProcessClassifier(RBF(0.8, 4.0), optimize=False).fit(X, t)
            return gpc, gpc.predict_proba(Xs)

        def theirs():
            sk = SkGPC(ConstantKernel(4.0, "fixed") * SkRBF(0.8), optimizer=None).fit(X, t)
            return sk, sk.predict_proba(Xs)

        t_ours, (gpc, _) = best_time(ours, repeats)
        t_theirs, (sk, _) = best_time(theirs, repeats)
        rel = abs(gpc.log_marginal_likelihood_ / sk.log_marginal_likelihood_value_ - 1)
        print(f"{n:>6} {t_ours:>9.3f} {t_theirs:>10.3f} {t_ours / t_theirs:>7.2f} {rel:>19.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--optimisation-size", type=int, default=500)
    args = parser.parse_args()
    bench_regression(args.sizes, args.repeats)
    bench_optimisation(args.optimisation_size, args.repeats)
    bench_classification([n // 2 for n in args.sizes], args.repeats)


if __name__ == "__main__":
    main()
