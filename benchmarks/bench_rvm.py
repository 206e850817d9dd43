"""Time the RVM's fast sequential algorithm against re-estimation in the same run.

PRML 7.2.2 presents the sequential algorithm of Tipping & Faul (2003) as the practical way to
fit a relevance vector machine: it factorises only the active basis functions, where
re-estimation (7.87)-(7.89) starts from all N + 1 of them. Both maximise the same evidence, but
from different starting points (the empty model against the full one), so they can stop at
different local maxima; the benchmark therefore prints the final log evidence of each and the
number of relevance vectors, not only the times.

Data (``--data``, all three by default), each with a Gaussian kernel and a bias:

* ``sinusoid``: PRML Appendix A, x uniform on [0, 1], noise std 0.3; length-scale 0.1, a tenth
  of the input range.
* ``sinc``: sin|x|/|x| with x uniform on [-10, 10] and Gaussian noise of variance 0.04
  (:func:`kmlib.datasets.sinc`, Chu 2003, 4.5.1), the one-dimensional test function of Tipping
  (2001); length-scale 2, again a tenth of the input range.
* ``friedman1``: Friedman's first function of ten uniform inputs, five of them irrelevant, noise
  std 1 (:func:`sklearn.datasets.make_friedman1`); length-scale sqrt(10/6) = 1.29, the root mean
  square distance between two inputs.

N = 200 ... 2000, several seeds per size. Each line prints both
times, their ratio (re-estimation / sequential: how many times faster the sequential algorithm
is), the two log evidences, their difference (sequential - re-estimation; positive when the
sequential algorithm found the higher maximum) and the two counts of relevance vectors. Both
methods run on one BLAS thread, the faster setting for each on a 2-core machine, and each time
is the best of ``--repeat`` fits (the convention of :mod:`timeit`: the minimum is the least
disturbed by other work on the machine).

The closing table compares the methods over ``--draws`` draws (10 by default) at N =
``--check-size`` (1000), the draws of the per-size table reused where they overlap: per data
set, the median over the draws of the time ratio and of the evidence difference. (The medians
of ratios and differences are taken draw by draw, so they are not the ratio or difference of
medians.)

With ``--time-to-match`` the closing table has one more column: re-estimation's time over the
time of a sequential fit stopped (by ``max_iter``) at the first iteration at which its log
evidence reaches re-estimation's final one, the median over the draws on which it does, and
how many draws those are. Where the sequential fit ends above re-estimation, this separates
the cost of reaching the same evidence from the cost of the further climb.

Usage::

    python benchmarks/bench_rvm.py [--data sinusoid sinc friedman1] [--sizes 200 500 1000 2000]
                                   [--seeds 3] [--repeat 3] [--draws 10] [--check-size 1000]
                                   [--time-to-match]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from kmlib.datasets import sinc, sinusoid
from kmlib.kernels import RBF
from kmlib.rvm import RVR


def sinusoid_data(n, seed):
    x, t = sinusoid(n, random_state=seed)
    return x[:, np.newaxis], t


def sinc_data(n, seed):
    x, t = sinc(n, random_state=seed, noise="gaussian")
    return x[:, np.newaxis], t


def friedman1_data(n, seed):
    return make_friedman1(n, n_features=10, noise=1.0, random_state=seed)


#: name: (generator (n, seed) -> (X, t), kernel length-scale)
DATA = {
    "sinusoid": (sinusoid_data, 0.1),
    "sinc": (sinc_data, 2.0),
    "friedman1": (friedman1_data, np.sqrt(10 / 6)),
}


def timed_fit(method, X, t, lengthscale, max_iter, repeat):
    times = []
    for _ in range(repeat):
        seconds, model, converged = fit_once(method, X, t, lengthscale, max_iter)
        times.append(seconds)
    return min(times), model, converged


def fit_once(method, X, t, lengthscale, max_iter):
    start = time.perf_counter()
    # one BLAS thread for both (kmlib's sequential fit sets it itself): after its first few
    # iterations re-estimation also handles only small matrices, and on a 2-core machine it
    # too runs faster on one thread than on the default number
    with warnings.catch_warnings(record=True) as caught, threadpool_limits(1, user_api="blas"):
        warnings.simplefilter("always", ConvergenceWarning)
        model = RVR(kernel=RBF(lengthscale=lengthscale), method=method, max_iter=max_iter).fit(X, t)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return time.perf_counter() - start, model, converged


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", choices=sorted(DATA), default=list(DATA))
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 500, 1000, 2000])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-iter", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many fits")
    parser.add_argument("--draws", type=int, default=10, help="draws of the closing table")
    parser.add_argument("--check-size", type=int, default=1000, help="N of the closing table")
    parser.add_argument(
        "--time-to-match",
        action="store_true",
        help="closing table: also time the sequential fit up to re-estimation's evidence",
    )
    args = parser.parse_args()

    header = (
        f"{'N':>5} {'seed':>4} | {'sequential':>10} {'reestimate':>10} {'ratio':>6} | "
        f"{'ln p seq':>10} {'ln p re':>10} {'seq - re':>9} | {'RV seq':>6} {'RV re':>5}"
    )
    summary = []
    for name in args.data:
        make_data, lengthscale = DATA[name]
        print(
            f"RVR on {name}, RBF(lengthscale={lengthscale:.3g}) + bias; "
            f"times in seconds, best of {args.repeat}"
        )
        print(header)
        print("-" * len(header))
        for n in args.sizes:
            for seed in range(args.seeds):
                X, t = make_data(n, seed)
                fits = [
                    timed_fit(method, X, t, lengthscale, args.max_iter, args.repeat)
                    for method in ("sequential", "reestimate")
                ]
                ratio, diff, line = compare(fits)
                print(f"{n:>5} {seed:>4} | {line}", flush=True)
                summary.append((name, n, seed, ratio, diff, fits))
        print()
    for name in args.data:
        for n in args.sizes:
            ratios = np.array([r for d, m, _, r, _, _ in summary if (d, m) == (name, n)])
            diffs = np.array([x for d, m, _, _, x, _ in summary if (d, m) == (name, n)])
            print(
                f"{name:>9}, N = {n:>4}: sequential {np.min(ratios):.1f}-{np.max(ratios):.1f}x "
                f"faster (median {np.median(ratios):.1f}x); evidence at least as high (within "
                f"1e-3) on {np.sum(diffs >= -1e-3)} of {diffs.size} seeds, differences "
                f"{np.min(diffs):+.3f} to {np.max(diffs):+.3f} (median {np.median(diffs):+.3f})"
            )
    closing_table(args, summary)


def compare(fits):
    """The time ratio, the evidence difference and the line of the per-size table."""
    (t_seq, seq, ok_seq), (t_re, re, ok_re) = fits
    diff = seq.log_marginal_likelihood_ - re.log_marginal_likelihood_
    flags = ("" if ok_seq else " (seq: max_iter)") + ("" if ok_re else " (re: max_iter)")
    return (
        t_re / t_seq,
        diff,
        (
            f"{t_seq:>10.3f} {t_re:>10.3f} {t_re / t_seq:>6.1f} | "
            f"{seq.log_marginal_likelihood_:>10.3f} {re.log_marginal_likelihood_:>10.3f} "
            f"{diff:>+9.3f} | {seq.relevance_.size:>6} {re.relevance_.size:>5}{flags}"
        ),
    )


def time_to_match(X, t, lengthscale, fits, repeat):
    """Re-estimation's time over the time of the sequential fit stopped at the first iteration
    whose log evidence reaches re-estimation's final one; None if it never does."""
    (_, seq, _), (t_re, re, _) = fits
    path = np.asarray(seq.log_marginal_likelihood_path_)
    reached = np.flatnonzero(path >= re.log_marginal_likelihood_)
    if reached.size == 0:
        return None
    # the path does not depend on max_iter, so this fit stops at that iteration
    seconds, _, _ = timed_fit("sequential", X, t, lengthscale, max(int(reached[0]), 1), repeat)
    return t_re / seconds


def closing_table(args, summary):
    """Median time ratio and evidence difference over ``args.draws`` draws at one size."""
    n = args.check_size
    print(f"\nN = {n}, {args.draws} draws (seeds 0-{args.draws - 1}), best of {args.repeat}:")
    heading = f"{'data':>9} | {'median ratio (re / seq)':>23} | {'median ln p seq - ln p re':>25}"
    if args.time_to_match:
        heading += f" | {'to re-estimation evidence':>25}"
    print(heading)
    for name in args.data:
        make_data, lengthscale = DATA[name]
        done = {s: (r, d, f) for d_name, m, s, r, d, f in summary if (d_name, m) == (name, n)}
        ratios, diffs, matched = [], [], []
        for seed in range(args.draws):
            X, t = make_data(n, seed)
            if seed not in done:
                fits = [
                    timed_fit(method, X, t, lengthscale, args.max_iter, args.repeat)
                    for method in ("sequential", "reestimate")
                ]
                done[seed] = (*compare(fits)[:2], fits)
            ratios.append(done[seed][0])
            diffs.append(done[seed][1])
            if args.time_to_match:
                matched.append(time_to_match(X, t, lengthscale, done[seed][2], args.repeat))
        line = f"{name:>9} | {np.median(ratios):>22.1f}x | {np.median(diffs):>+25.3f}"
        if args.time_to_match:
            reached = [r for r in matched if r is not None]
            cell = (
                f"{np.median(reached):.1f}x on {len(reached)} of {len(matched)}"
                if reached
                else f"never, {len(matched)} draws"
            )
            line += f" | {cell:>25}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
