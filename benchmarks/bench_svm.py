"""Time kmlib's SVC and SVR against LIBSVM (through scikit-learn) in the same run.

Both libraries get the same data, the same C, epsilon, tolerance and cache size, and the same
RBF kernel (kmlib ``RBF(lengthscale=l)`` is scikit-learn's ``gamma = 1 / (2 l^2)``, with
gamma = 1/(d var(X)) as scikit-learn's "scale"). For each problem size the script prints

* the fit times (best of ``--repeats`` runs, the two libraries interleaved) and their ratio;
* the dual objective of each solution, recomputed in float64 from its coefficients, their
  difference, and the certificate ``max(gap_kmlib, gap_libsvm)``: both objectives lie within
  their duality gap of the optimum, so ``|difference|`` must not exceed it;
* prediction agreement on held-out points: identical labels for SVC; for SVR the share of
  predictions within ``tol * std(y)`` of each other and the largest difference;
* finally the empirical scaling exponent, the slope of log time against log n.

Usage::

    .venv/bin/python benchmarks/bench_svm.py                 # n = 1000, 2000, 5000, 10000
    .venv/bin/python benchmarks/bench_svm.py --sizes 1000 5000 --repeats 5
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


def certificate(kind, kernel, X, y, support, beta, C, epsilon):
    """Dual objective and duality gap of a solution given by its coefficients ``beta``.

    SVC: variables a_n = |beta_n| with signs t_n; f = 1/2 beta^T K beta - sum a.
    SVR: the 2n-variable form with a_n = max(beta, 0), a_hat_n = max(-beta, 0);
    f = 1/2 beta^T K beta + epsilon sum |beta| - y^T beta.
    """
    n = X.shape[0]
    Kb = _k_times(kernel, X, X[support], beta)  # (K beta)_n over all training points
    full = np.zeros(n)
    full[support] = beta
    quad = float(full @ Kb)
    if kind == "SVC":
        t = y
        a = np.abs(full)
        grad = t * Kb - 1.0  # Q a - 1
        f = 0.5 * quad - a.sum()
        gap, _ = duality_gap(a, grad, t, C)
        return f, gap
    a = np.concatenate([np.maximum(full, 0), np.maximum(-full, 0)])
    signs = np.concatenate([np.ones(n), -np.ones(n)])
    p = np.concatenate([epsilon - y, epsilon + y])
    grad = signs * np.concatenate([Kb, Kb]) + p
    f = 0.5 * quad + epsilon * np.abs(full).sum() - y @ full
    gap, _ = duality_gap(a, grad, signs, C)
    return f, gap


def run(kind, n, args):
    X, y, Xt, _yt = classification(n) if kind == "SVC" else regression(n)
    gamma = 1.0 / (X.shape[1] * X.var())
    kernel = RBF(lengthscale=1.0 / np.sqrt(2.0 * gamma))
    common = {"C": args.C, "tol": args.tol, "cache_size": args.cache_size}
    if kind == "SVC":
        ours = km.SVC(kernel=kernel, **common)
        ref = sk.SVC(kernel="rbf", gamma=gamma, **common)
    else:
        ours = km.SVR(kernel=kernel, epsilon=args.epsilon, **common)
        ref = sk.SVR(kernel="rbf", gamma=gamma, epsilon=args.epsilon, **common)
    t_ours, t_ref = np.inf, np.inf
    for _ in range(args.repeats):  # interleaved, best of each
        t0 = time.perf_counter()
        ref.fit(X, y)
        t_ref = min(t_ref, time.perf_counter() - t0)
        t0 = time.perf_counter()
        ours.fit(X, y)
        t_ours = min(t_ours, time.perf_counter() - t0)
    if kind == "SVC":
        t = np.where(y == ours.classes_[1], 1.0, -1.0)
        f_o, g_o = certificate(kind, kernel, X, t, ours.support_, ours.dual_coef_[0], args.C, 0)
        f_r, g_r = certificate(kind, kernel, X, t, ref.support_, ref.dual_coef_[0], args.C, 0)
        agree = float(np.mean(ours.predict(Xt) == ref.predict(Xt)))
        extra = ""
    else:
        f_o, g_o = certificate(
            kind, kernel, X, y, ours.support_, ours.dual_coef_[0], args.C, args.epsilon
        )
        f_r, g_r = certificate(
            kind, kernel, X, y, ref.support_, ref.dual_coef_[0], args.C, args.epsilon
        )
        diff = np.abs(ours.predict(Xt) - ref.predict(Xt))
        agree = float(np.mean(diff <= args.tol * np.std(y)))
        extra = f"  max|dpred|={diff.max():.1e}"
    cert = max(g_o, g_r)
    return {
        "kind": kind,
        "n": n,
        "t_ours": t_ours,
        "t_ref": t_ref,
        "f_o": f_o,
        "f_r": f_r,
        "cert": cert,
        "agree": agree,
        "nsv": (ours.support_.size, ref.support_.size),
        "iters": (int(np.sum(ours.n_iter_)), int(np.sum(ref.n_iter_))),
        "extra": extra,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000, 10000])
    parser.add_argument("--kinds", nargs="+", default=["SVC", "SVR"], choices=["SVC", "SVR"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--cache-size", dest="cache_size", type=float, default=200.0)
    args = parser.parse_args()
    print(
        f"C={args.C} epsilon={args.epsilon} tol={args.tol} cache_size={args.cache_size} MB, "
        f"RBF gamma=1/(d var X), best of {args.repeats}"
    )
    header = (
        f"{'model':5} {'n':>6} {'kmlib s':>8} {'libsvm s':>8} {'ratio':>6} "
        f"{'f kmlib':>13} {'f libsvm':>13} {'|df|':>8} {'cert':>8} {'ok':>3} "
        f"{'agree':>7} {'nSV k/l':>11} {'iter k/l':>11}"
    )
    for kind in args.kinds:
        print(header)
        rows = []
        for n in args.sizes:
            r = run(kind, n, args)
            rows.append(r)
            df = abs(r["f_o"] - r["f_r"])
            print(
                f"{kind:5} {n:6d} {r['t_ours']:8.3f} {r['t_ref']:8.3f} "
                f"{r['t_ours'] / r['t_ref']:6.2f} {r['f_o']:13.6f} {r['f_r']:13.6f} "
                f"{df:8.1e} {r['cert']:8.1e} {'yes' if df <= r['cert'] else 'NO':>3} "
                f"{100 * r['agree']:6.2f}% {r['nsv'][0]:5d}/{r['nsv'][1]:<5d} "
                f"{r['iters'][0]:5d}/{r['iters'][1]:<5d}{r['extra']}",
                flush=True,
            )
        if len(rows) > 1:
            logn = np.log([r["n"] for r in rows])
            k_slope = np.polyfit(logn, np.log([r["t_ours"] for r in rows]), 1)[0]
            l_slope = np.polyfit(logn, np.log([r["t_ref"] for r in rows]), 1)[0]
            print(f"{kind}: time ~ n^{k_slope:.2f} (kmlib), n^{l_slope:.2f} (LIBSVM)\n")


if __name__ == "__main__":
    main()
