"""Time kmlib's SVC, SVR and NuSVC against LIBSVM (through scikit-learn) in the same run.

Both libraries get the same data, the same C (or nu), epsilon, tolerance and cache size, and the
same RBF kernel (kmlib ``RBF(lengthscale=l)`` is scikit-learn's ``gamma = 1 / (2 l^2)``, with
gamma = 1/(d var(X)) as scikit-learn's "scale"). The sweep runs over the problem sizes n and the
values of C; NuSVC has no C, so each C is turned into the nu of the same problem: a C-SVC
solution is the nu-SVC solution for nu = sum(alpha) / (C n) (Schoelkopf et al. 2000), with alpha
from LIBSVM's SVC at that C (fitted once, not timed). For each problem the script prints

* the fit times (best of ``--repeats`` runs, the two libraries interleaved) and their ratio;
* the dual objective of each solution, recomputed in float64 from its coefficients, their
  difference, and the certificate ``max(gap_kmlib, gap_libsvm)``: both objectives lie within
  their duality gap of the optimum, so ``|difference|`` must not exceed it;
* prediction agreement on held-out points: identical labels for SVC and NuSVC; for SVR the share
  of predictions within ``tol * std(y)`` of each other and the largest difference;
* the number of support vectors and of SMO iterations of each;

then, per model, the table of time ratios (kmlib / LIBSVM) over n and C with their median and
maximum, the agreement over the table, and the empirical scaling exponent (the slope of log
time against log n) at each C. ``--skip MODEL:n:C`` leaves a cell out (shown as "-"), for
problems on which LIBSVM alone would run for hours.

Usage (from the repository root, one BLAS thread, as in the tests)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/bench_svm.py
    ... benchmarks/bench_svm.py --kinds SVC --sizes 1000 5000 --C 1 100 --repeats 3
    ... benchmarks/bench_svm.py --skip SVR:20000:1000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn import svm as sk
from sklearn.datasets import make_classification, make_friedman1
from sklearn.preprocessing import StandardScaler

from kmlib import svm as km
from kmlib.kernels import RBF
from kmlib.smo import duality_gap

N_TEST = 2000
KINDS = ("SVC", "SVR", "NuSVC")


def classification(n, seed=0):
    X, y = make_classification(
        n_samples=n + N_TEST, n_features=20, n_informative=10, flip_y=0.05, random_state=seed
    )
    X = StandardScaler().fit_transform(X)
    return X[:n], y[:n], X[n:], y[n:]


def regression(n, seed=0):
    X, y = make_friedman1(n_samples=n + N_TEST, n_features=10, noise=1.0, random_state=seed)
    X = StandardScaler().fit_transform(X)
    return X[:n], y[:n], X[n:], y[n:]


def _k_times(kernel, X, Xs, beta, block=2048):
    """``K(X, Xs) @ beta`` in row blocks."""
    out = np.empty(X.shape[0])
    for s in range(0, X.shape[0], block):
        out[s : s + block] = kernel(X[s : s + block], Xs) @ beta
    return out


def certificate(kind, kernel, X, y, support, beta, C, epsilon=0.0, nu=None):
    """Dual objective and duality gap of a solution given by its coefficients ``beta``.

    SVC: variables a_n = |beta_n| with signs t_n; f = 1/2 beta^T K beta - sum a.
    NuSVC: a_n = r |beta_n| in [0, 1] with sum a = nu n (LIBSVM divides a by r); f = 1/2 a^T Q a,
    two equality constraints.
    SVR: the 2n-variable form with a_n = max(beta, 0), a_hat_n = max(-beta, 0);
    f = 1/2 beta^T K beta + epsilon sum |beta| - y^T beta.
    """
    n = X.shape[0]
    Kb = _k_times(kernel, X, X[support], beta)  # (K beta)_n over all training points
    full = np.zeros(n)
    full[support] = beta
    if kind == "SVC":
        t, a = y, np.abs(full)
        grad = t * Kb - 1.0  # Q a - 1
        gap, _ = duality_gap(a, grad, t, C)
        return 0.5 * float(full @ Kb) - a.sum(), gap
    if kind == "NuSVC":
        r = nu * n / np.abs(full).sum()
        a = r * np.abs(full)
        a[np.abs(a - 1.0) < 1e-12] = 1.0  # undo the rounding of LIBSVM's division at the bound
        grad = y * Kb * r  # Q a
        gap, _ = duality_gap(a, grad, y, 1.0, two_constraints=True)
        return 0.5 * float(a @ grad), gap
    a = np.concatenate([np.maximum(full, 0), np.maximum(-full, 0)])
    signs = np.concatenate([np.ones(n), -np.ones(n)])
    p = np.concatenate([epsilon - y, epsilon + y])
    grad = signs * np.concatenate([Kb, Kb]) + p
    f = 0.5 * float(full @ Kb) + epsilon * np.abs(full).sum() - y @ full
    gap, _ = duality_gap(a, grad, signs, C)
    return f, gap


def equivalent_nu(X, y, gamma, C, args):
    """nu of the nu-SVC problem whose solution is LIBSVM's C-SVC solution at ``C``."""
    ref = sk.SVC(kernel="rbf", gamma=gamma, C=C, tol=args.tol, cache_size=args.cache_size)
    ref.fit(X, y)
    return float(np.abs(ref.dual_coef_).sum() / (C * X.shape[0]))


def models(kind, kernel, gamma, C, nu, args):
    """The kmlib model and its LIBSVM counterpart."""
    common = {"tol": args.tol, "cache_size": args.cache_size}
    if kind == "SVC":
        return km.SVC(kernel=kernel, C=C, **common), sk.SVC(gamma=gamma, C=C, **common)
    if kind == "NuSVC":
        return km.NuSVC(kernel=kernel, nu=nu, **common), sk.NuSVC(gamma=gamma, nu=nu, **common)
    eps = {"C": C, "epsilon": args.epsilon}
    return km.SVR(kernel=kernel, **eps, **common), sk.SVR(gamma=gamma, **eps, **common)


def run(kind, n, C, args):
    X, y, Xt, _yt = regression(n) if kind == "SVR" else classification(n)
    gamma = 1.0 / (X.shape[1] * X.var())
    kernel = RBF(lengthscale=1.0 / np.sqrt(2.0 * gamma))
    nu = equivalent_nu(X, y, gamma, C, args) if kind == "NuSVC" else None
    ours, ref = models(kind, kernel, gamma, C, nu, args)
    t_ours, t_ref = np.inf, np.inf
    for _ in range(args.repeats):  # interleaved, best of each
        t0 = time.perf_counter()
        ref.fit(X, y)
        t_ref = min(t_ref, time.perf_counter() - t0)
        t0 = time.perf_counter()
        ours.fit(X, y)
        t_ours = min(t_ours, time.perf_counter() - t0)
    if kind == "SVR":
        target = y
        diff = np.abs(ours.predict(Xt) - ref.predict(Xt))
        agree = float(np.mean(diff <= args.tol * np.std(y)))
        extra = f"  max|dpred|={diff.max():.1e}"
    else:
        target, extra = np.where(y == ours.classes_[1], 1.0, -1.0), ""
        agree = float(np.mean(ours.predict(Xt) == ref.predict(Xt)))
    f_o, g_o = certificate(
        kind, kernel, X, target, ours.support_, ours.dual_coef_[0], C, args.epsilon, nu
    )
    f_r, g_r = certificate(
        kind, kernel, X, target, ref.support_, ref.dual_coef_[0], C, args.epsilon, nu
    )
    return {
        "kind": kind,
        "n": n,
        "C": C,
        "nu": nu,
        "t_ours": t_ours,
        "t_ref": t_ref,
        "f_o": f_o,
        "f_r": f_r,
        "cert": max(g_o, g_r),
        "agree": agree,
        "nsv": (ours.support_.size, ref.support_.size),
        "iters": (int(np.sum(ours.n_iter_)), int(np.sum(ref.n_iter_))),
        "extra": extra,
    }


def warm_up():
    """Fit a small SVC once: the first fit in a process imports numba and loads (or, with an
    empty cache, compiles) the SMO loop, a one-off cost the timings below leave out."""
    X, y, _, _ = classification(100)
    t0 = time.perf_counter()
    km.SVC().fit(X, y)
    return time.perf_counter() - t0


def print_run(r):
    df = abs(r["f_o"] - r["f_r"])
    nu = f"{r['nu']:.4f}" if r["nu"] is not None else "-"
    print(
        f"{r['kind']:5} {r['n']:6d} {r['C']:7g} {nu:>6} {r['t_ours']:8.3f} {r['t_ref']:8.3f} "
        f"{r['t_ours'] / r['t_ref']:6.2f} {r['f_o']:14.6f} {r['f_r']:14.6f} "
        f"{df:8.1e} {r['cert']:8.1e} {'yes' if df <= r['cert'] else 'NO':>3} "
        f"{100 * r['agree']:6.2f}% {r['nsv'][0]:5d}/{r['nsv'][1]:<5d} "
        f"{r['iters'][0]:6d}/{r['iters'][1]:<6d}{r['extra']}",
        flush=True,
    )


def print_tables(kind, results, sizes, Cs):
    """Ratio table over n and C, agreement over the table, scaling exponent at each C."""
    cell = {(r["n"], r["C"]): r for r in results}
    ratio = {key: r["t_ours"] / r["t_ref"] for key, r in cell.items()}
    print(f"\n{kind}: kmlib time / LIBSVM time")
    print(f"{'n':>7} " + " ".join(f"{'C=' + format(C, 'g'):>8}" for C in Cs))
    for n in sizes:
        print(f"{n:7d} " + " ".join(f"{ratio[n, C]:8.2f}" if (n, C) in ratio else f"{'-':>8}"
                                     for C in Cs))
    values = np.array(list(ratio.values()))
    print(f"median {np.median(values):.2f}, max {values.max():.2f} over {values.size} cells")
    within = sum(abs(r["f_o"] - r["f_r"]) <= r["cert"] for r in results)
    print(
        f"dual objectives within the certificate: {within}/{len(results)}; "
        f"prediction agreement: min {100 * min(r['agree'] for r in results):.2f}%"
    )
    for C in Cs:
        have = [n for n in sizes if (n, C) in cell]
        if len(have) > 1:
            logn = np.log(have)
            k = np.polyfit(logn, np.log([cell[n, C]["t_ours"] for n in have]), 1)[0]
            lib = np.polyfit(logn, np.log([cell[n, C]["t_ref"] for n in have]), 1)[0]
            print(f"C={C:g}: time ~ n^{k:.2f} (kmlib), n^{lib:.2f} (LIBSVM)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--C", type=float, nargs="+", default=[0.1, 1.0, 10.0, 100.0, 1000.0])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--cache-size", dest="cache_size", type=float, default=200.0)
    parser.add_argument("--skip", nargs="*", default=[], metavar="MODEL:n:C")
    args = parser.parse_args()
    skip = {(kind, int(n), float(C)) for kind, n, C in (item.split(":") for item in args.skip)}
    print(
        f"epsilon={args.epsilon} tol={args.tol} cache_size={args.cache_size} MB, "
        f"RBF gamma=1/(d var X), best of {args.repeats}; first kmlib fit in this process "
        f"(numba import, compiled code loaded or compiled) {warm_up():.2f} s, not timed below"
    )
    header = (
        f"{'model':5} {'n':>6} {'C':>7} {'nu':>6} {'kmlib s':>8} {'libsvm s':>8} {'ratio':>6} "
        f"{'f kmlib':>14} {'f libsvm':>14} {'|df|':>8} {'cert':>8} {'ok':>3} "
        f"{'agree':>7} {'nSV k/l':>11} {'iter k/l':>13}"
    )
    for kind in args.kinds:
        print(header)
        results = []
        for n in args.sizes:
            for C in args.C:
                if (kind, n, C) not in skip:
                    results.append(run(kind, n, C, args))
                    print_run(results[-1])
        print_tables(kind, results, args.sizes, args.C)
        print()


if __name__ == "__main__":
    main()
