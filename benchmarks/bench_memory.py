"""Peak memory and time of predictions: kmlib, an older kmlib, and scikit-learn, in one run.

Each estimator is fitted once on 2 000 training points in 5 dimensions, at fixed
hyperparameters (nothing is optimised), and predicts 50 000 query points (and, with ``--large``,
1 000 000). Every prediction runs in a fresh process, which loads the fitted model from a
pickle, draws the query points and predicts 10 of them (imports, compiled code) before the
measured call. **Peak** is how much that call raised the process's maximum resident set size
(``resource.getrusage(...).ru_maxrss``, Linux): the memory a prediction needs above the fitted
model, its inputs and the interpreter. **Time** is the wall time of the same call (one run, so
expect some noise). **Agreement** is the largest absolute difference from kmlib's predictions of
the 50 000 points (mean and standard deviation side by side where both are returned; KernelPCA
components up to their sign).

``--before DIR`` adds a column for another copy of kmlib (a checkout from before a change: its
directory holds the ``kmlib`` package), imported with ``PYTHONPATH=DIR`` from a neutral working
directory. Runs that would need more than ``--max-gb`` gigabytes are not started; the line says
how much they would need instead: the query points times the points compared with (training
points, support or relevance vectors) times 8 bytes times the arrays of that size a prediction
holds at once, which is measured at 50 000 points where that ran, else taken from ``ARRAYS``
(what the code holds at once).

Usage::

    python benchmarks/bench_memory.py [--large] [--before DIR] [--max-gb 12]

``make bench`` runs the default, 50 000 query points (a few minutes); ``--large`` adds the
1 000 000 column (about ten minutes more, most of it the standard deviations of the Gaussian
process and of the Bayesian SVR, whose triangular solves cost 2 000^2 per point however they
are blocked).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

N_TRAIN, D = 2000, 5
LENGTHSCALE, ALPHA, NOISE, BANDWIDTH = 1.0, 0.1, 0.1, 0.5
GAMMA = 1.0 / (2.0 * LENGTHSCALE**2)  # scikit-learn's RBF parameter for the same kernel

#: Arrays of (query points x points compared with) that a prediction holds at once, for the
#: estimate of a run that is not started: (kmlib before blocks, scikit-learn). Read from the
#: code: the kernel's distances, exponential and finiteness check; the Gaussian process's
#: triangular solve; the (m, n, d) differences of the old KernelDensity. None: bounded.
ARRAYS = {
    "KernelRidge": (3, 3),
    "GPR mean": (3, 3),
    "GPR mean+std": (5, 5),
    "NadarayaWatson": (4, None),
    "KernelDensity": (2 * D + 2, 0),
    "L2VMRegressor": (3, None),
    "SVR": (0, 0),
    "KernelPCA": (5, 4),
    "RVR mean+std": (4, None),
    "BayesianSVR mean+std": (5, None),
}


# ------------------------------------------------------------------ the problem and the models
def training_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N_TRAIN, D))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=N_TRAIN)
    return X, y


def query_points(n):
    return np.random.default_rng(1).normal(size=(n, D))  # the first rows agree for every n


def kmlib_model(case):
    """(fitted model, predict function) of kmlib, whichever copy is imported."""
    from kmlib.bsvr import BayesianSVR
    from kmlib.gp import GaussianProcessRegressor
    from kmlib.kernel_machines import L2VMRegressor
    from kmlib.kernel_trick import KernelPCA, KernelRidge
    from kmlib.kernels import RBF
    from kmlib.rvm import RVR
    from kmlib.smoothing import KernelDensity, NadarayaWatson
    from kmlib.svm import SVR

    X, y = training_data()
    rbf = RBF(lengthscale=LENGTHSCALE)
    gp = GaussianProcessRegressor(rbf, noise_variance=NOISE, optimize=False)
    models = {
        "KernelRidge": (KernelRidge(kernel=rbf, alpha=ALPHA), "predict"),
        "GPR mean": (gp, "predict"),
        "GPR mean+std": (gp, "std"),
        "NadarayaWatson": (NadarayaWatson(bandwidth=BANDWIDTH), "predict"),
        "KernelDensity": (KernelDensity(bandwidth=BANDWIDTH), "score_samples"),
        "L2VMRegressor": (L2VMRegressor(kernel=rbf, alpha=ALPHA), "predict"),
        "SVR": (SVR(kernel=rbf, C=1.0, epsilon=0.1), "predict"),
        "KernelPCA": (KernelPCA(kernel=rbf, n_components=5), "transform"),
        "RVR mean+std": (RVR(kernel=rbf), "std"),
        "BayesianSVR mean+std": (BayesianSVR(kernel=rbf, optimize=False), "std"),
    }
    model, method = models[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a convergence note is beside the point here
        fit(model, method, X, y)
    return model, method


def sklearn_model(case):
    """(fitted model, predict function) of scikit-learn's counterpart, or None."""
    from sklearn.decomposition import KernelPCA
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.neighbors import KernelDensity
    from sklearn.svm import SVR

    X, y = training_data()
    gp = GaussianProcessRegressor(
        ConstantKernel(1.0, "fixed") * RBF(LENGTHSCALE, "fixed"), alpha=NOISE, optimizer=None
    )
    models = {
        "KernelRidge": (KernelRidge(alpha=ALPHA, kernel="rbf", gamma=GAMMA), "predict"),
        "GPR mean": (gp, "predict"),
        "GPR mean+std": (gp, "std"),
        "KernelDensity": (KernelDensity(bandwidth=BANDWIDTH), "score_samples"),
        "SVR": (SVR(C=1.0, epsilon=0.1, gamma=GAMMA), "predict"),
        "KernelPCA": (KernelPCA(n_components=5, kernel="rbf", gamma=GAMMA), "transform"),
    }
    if case not in models:
        return None
    model, method = models[case]
    fit(model, method, X, y)
    return model, method


def fit(model, method, X, y):
    if method in ("score_samples", "transform"):  # density estimates and KernelPCA
        model.fit(X)
    else:
        model.fit(X, y)


def compared_with(model):
    """How many points a prediction compares each query point with."""
    for attribute in ("relevance_", "support_"):
        if hasattr(model, attribute):
            return int(np.size(getattr(model, attribute)))
    return N_TRAIN


def run(model, method, X):
    if method == "std":
        mean, std = model.predict(X, return_std=True)
        return np.column_stack([mean, std])
    return getattr(model, method)(X)


# ------------------------------------------------------------------ worker processes
def worker_fit(impl, case, path):
    made = kmlib_model(case) if impl != "sklearn" else sklearn_model(case)
    if made is not None:
        Path(path).write_bytes(pickle.dumps(made))
        print(json.dumps({"columns": compared_with(made[0])}))


def worker_predict(path, n, save):
    model, method = pickle.loads(Path(path).read_bytes())
    X = query_points(n)
    run(model, method, X[:10])
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    out = run(model, method, X)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB on Linux
    if save:
        np.save(save, out)
    print(json.dumps({"seconds": seconds, "peak_mb": peak / 1024.0}))


def spawn(impl, before_dir, *args):
    """Run this script as a worker for ``impl`` and return its JSON answer (or an error)."""
    env = dict(os.environ)
    if impl == "before":
        env["PYTHONPATH"] = str(before_dir)
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", *map(str, args)]
    cwd = tempfile.gettempdir()  # not the repository, whose kmlib would shadow PYTHONPATH's
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {"error": last[:60]}
    lines = done.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else None


# ------------------------------------------------------------------ the table
def agreement(case, reference, other):
    if reference is None or other is None or reference.shape != other.shape:
        return ""
    if case == "KernelPCA":  # components up to their sign
        other = other * np.sign(np.sum(reference * other, axis=0))
    return f"{np.max(np.abs(reference - other)):.1e}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also predict 1 000 000 points")
    parser.add_argument("--before", type=Path, help="directory holding another copy of kmlib")
    parser.add_argument("--max-gb", type=float, default=12.0, help="start no run above this")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        kind, *rest = args.worker
        if kind == "fit":
            worker_fit(*rest)
        else:
            worker_predict(rest[0], int(rest[1]), rest[2] if len(rest) > 2 else None)
        return

    sizes = [50_000, 1_000_000] if args.large else [50_000]
    impls = ["now"] + (["before"] if args.before else []) + ["sklearn"]
    print(
        f"Prediction memory and time: {N_TRAIN} training points in {D} dimensions, fixed "
        "hyperparameters; peak = growth of ru_maxrss during the call (MiB), one fresh process "
        "per call; agreement = max |difference| from kmlib now at 50 000 points"
    )
    header = f"{'estimator':<21} {'impl':<8}" + "".join(
        f" {f'{n:,} pts: MiB':>18} {'s':>7}" for n in sizes
    )
    print(header + f" {'agreement':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for case in ARRAYS:
            reference = None
            for impl in impls:
                pickled = Path(tmp, f"{impl}-{case}.pkl".replace(" ", "_"))
                fitted = spawn(impl, args.before, "fit", impl, case, pickled)
                if fitted is None:
                    continue  # no counterpart
                row = f"{case:<21} {impl:<8}"
                if "error" in fitted:
                    print(row + f" fit failed: {fitted['error']}")
                    continue
                arrays = 0 if impl == "now" else ARRAYS[case][1 if impl == "sklearn" else 0]
                measured = out = None
                for n in sizes:
                    need = n * fitted["columns"] * 8 * (measured or arrays) / 1e9
                    if arrays and need > args.max_gb:  # unbounded, and too large to run
                        row += f" {f'would need {need:.0f} GB':>26}"
                        continue
                    save = Path(tmp, f"{impl}-{case}.npy".replace(" ", "_"))
                    extra = [save] if n == sizes[0] else []
                    result = spawn(impl, args.before, "predict", pickled, n, *extra)
                    if "error" in result:
                        row += f" {result['error'][:26]:>26}"
                        continue
                    row += f" {result['peak_mb']:>18.0f} {result['seconds']:>7.2f}"
                    if n == sizes[0]:
                        out = np.load(save)
                        measured = result["peak_mb"] * 2**20 / (n * fitted["columns"] * 8)
                if impl == "now":
                    reference = out
                    print(row)
                else:
                    print(row + f" {agreement(case, reference, out):>10}")


if __name__ == "__main__":
    main()
