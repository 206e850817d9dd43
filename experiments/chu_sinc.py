"""Table 4.3 and Figures 4.1-4.2 of Chu (2003, 4.5.1): BSVR on sinc data.

Table 4.3: training sets of 50 to 4000 points with SILF noise (C, epsilon, beta) = (10, 0.1, 0.3),
one common test set of 3000 points; BSVR with beta fixed at 0.3 and, in the table's second half, at
0.1; inputs standardised, targets as they are; the covariance (4.3) with kappa_0 fixed at the
targets' variance and the thesis's starting point. The thesis fits one training set per size;
``--splits`` draws that many independent training sets per size.

Figure 4.1: the same fit on the 4000-point training set of Table 4.3's first draw, with beta from
0.001 to 1; the number of support vectors, the evidence, the time and the test ASE at each beta.

Figure 4.2: training sets of 10 to 1000 points with Gaussian noise of variance 0.04, 20 repetitions
per size, a noise-free test set of 3000 points; SVR (epsilon = 0.1, (C, kappa) by 5-fold cross-
validation on the thesis's grids, fitted by LIBSVM), BSVR (beta = 0.3, the highest evidence from
the thesis's three starts) and GPR; test AAE and ASE and the seconds of training and testing.
"""

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from experiments.model_selection import (at_stored, covariance, fit_bsvr, fitted, select_svr,
                                         svr_model)
from experiments.runner import Experiment, Task, training_size
from kmlib.bsvr import BayesianSVR
from kmlib.datasets import sinc
from kmlib.gp import GaussianProcessRegressor
from kmlib.kernels import RBF, Constant

TEST_SEED = 2003
TABLE_SIZES = [50, 100, 300, 500, 1000, 2000, 3000, 4000]
FIGURE_SIZES = [10, 20, 50, 100, 200, 500, 1000]
#: the values of beta of Figure 4.1's sweep (the thesis: 0.001 to 1 on a log axis)
SWEEP_BETAS = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]


def clean(x):
    """sinc(x) = sin|x| / |x|, the noise-free target."""
    size = np.abs(x)
    return np.divide(np.sin(size), size, out=np.ones_like(size), where=size > 0)


def bsvr_fit(x, t, beta, at=None):
    """BSVR on standardised inputs, from the thesis's starting point (BayesianSVR's defaults),
    or, with ``at`` (stored hyperparameters, ``model_selection.fitted``), fitted there."""
    centre, scale = x.mean(), x.std()
    model = BayesianSVR(kernel=covariance(1, False, float(np.var(t))), beta=beta)
    if at is not None:
        model = at_stored(model, at)
    model.fit(((x - centre) / scale)[:, None], t)
    return model, lambda x_new: model.predict(((x_new - centre) / scale)[:, None])


def table_fit(n, beta, draw, at=None):
    """One row of Table 4.3: BSVR on a fresh training set of n points (draw ``draw``).

    With ``at``, the ``hyperparameters`` of a stored row: the same row computed at them, with
    no optimisation.
    """
    x, t = sinc(n, random_state=[n, draw])
    x_test, t_test = sinc(3000, random_state=TEST_SEED)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model, predict = bsvr_fit(x, t, beta, at)
    seconds = time.perf_counter() - start
    residual = t_test - predict(x_test)
    return {
        "sigma_T2": np.mean((t - clean(x)) ** 2),
        "C": model.C_, "epsilon": model.epsilon_, "sigma_n2": model.noise_variance_,
        "kappa": model.kernel_.k1.lengthscale ** -2.0,
        "neg_log_evidence": -model.log_marginal_likelihood_,
        "SV_M": int(model.off_bound_.size), "SV_C": int(model.on_bound_.size),
        "seconds": seconds, "AAE": np.mean(np.abs(residual)), "ASE": np.mean(residual**2),
        "hyperparameters": fitted(model),
    }


def figure_fit(n, repetition, svm_solver="kmlib", bsvr_starts=3, at=None):
    """Figure 4.2 at one size: SVR, BSVR and GPR on one training set with Gaussian noise.

    ``svm_solver`` fits the SVR: "kmlib" or "libsvm"; BSVR keeps the highest evidence from the
    first ``bsvr_starts`` of the thesis's starts (experiments.model_selection). With ``at``, a
    stored record of this function: every method fitted at its stored hyperparameters (the SVR
    at its chosen C and kappa), with no search.
    """
    x, t = sinc(n, random_state=[n, repetition, 42], noise="gaussian", noise_variance=0.04)
    x_test, y_test = sinc(3000, random_state=TEST_SEED, noise=None)
    centre, scale = x.mean(), x.std()
    Z, Z_test = ((x - centre) / scale)[:, None], ((x_test - centre) / scale)[:, None]
    record = {}
    for method in ("SVR", "BSVR", "GPR"):
        start = time.perf_counter()
        stored = None if at is None else at[method]["hyperparameters"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if method == "SVR":
                chosen = stored or select_svr(Z, t, epsilon=0.1, seed=repetition,
                                              solver=svm_solver)
                model = svr_model(chosen["C"], 0.1, chosen["kappa"], svm_solver).fit(Z, t)
                described = {"hyperparameters": {key: chosen[key] for key in ("C", "kappa")}}
            elif method == "BSVR":
                kernel = covariance(1, False, float(np.var(t)))
                model, evidence = fit_bsvr(Z, t, 0.3, kernel, bsvr_starts, at=stored)
                described = {"evidence_by_start": evidence, "hyperparameters": fitted(model),
                             "log_evidence": model.log_marginal_likelihood_}
            else:
                rbf = RBF(lengthscale=np.sqrt(2.0), variance=float(np.var(t)),
                          limits={"variance": "fixed"})
                model = GaussianProcessRegressor(kernel=rbf + Constant(100.0), noise_variance=0.1)
                if stored is not None:
                    model = at_stored(model, stored)
                model.fit(Z, t)
                described = {"hyperparameters": fitted(model),
                             "log_evidence": model.log_marginal_likelihood_}
            residual = y_test - model.predict(Z_test)
        record[method] = {"seconds": time.perf_counter() - start,
                          "AAE": np.mean(np.abs(residual)), "ASE": np.mean(residual**2),
                          **described}
    return record


def _table_phase(options, results):
    return [Task(f"beta-{beta}/n-{n}/draw-{draw}", table_fit, {"n": n, "beta": beta, "draw": draw})
            for beta in options["betas"] for n in options["sizes"]
            for draw in range(options["splits"])]


def _sweep_phase(options, results):
    # the training set of Table 4.3's first draw at the same size, so the two runs share points
    return [Task(f"beta-{beta}/n-{n}/draw-{draw}", table_fit, {"n": n, "beta": beta, "draw": draw})
            for n in options["sizes"] for beta in options["betas"]
            for draw in range(options["splits"])]


def _figure_phase(options, results):
    return [Task(f"n-{n}/repetition-{r:02d}", figure_fit,
                 {"n": n, "repetition": r, "svm_solver": "libsvm", "bsvr_starts": 3})
            for n in options["sizes"] for r in range(options["splits"])]


def _records(results, prefix):
    return [record["result"] for key, record in sorted(results.items())
            if key.startswith(prefix)]


def _summarise_table(options, results):
    columns = ("sigma_T2", "C", "epsilon", "sigma_n2", "kappa", "neg_log_evidence", "SV_M",
               "SV_C", "seconds", "AAE", "ASE")
    lines = ["Table 4.3 (means over the draws): beta n " + " ".join(columns)]
    for beta in options["betas"]:
        for n in options["sizes"]:
            rows = _records(results, f"beta-{beta}/n-{n}/")
            means = [np.mean([row[c] for row in rows]) for c in columns]
            lines.append(f"{beta:4} {n:5d} " + " ".join(f"{m:.5g}" for m in means))
    return "\n".join(lines)


def _summarise_figure(options, results):
    lines = ["Figure 4.2: mean ± sd over repetitions of the test ASE; mean seconds"]
    for n in options["sizes"]:
        rows = _records(results, f"n-{n}/")
        cells = []
        for method in ("SVR", "BSVR", "GPR"):
            ase = np.array([row[method]["ASE"] for row in rows])
            seconds = np.mean([row[method]["seconds"] for row in rows])
            cells.append(f"{method} {ase.mean():.5f} ± {ase.std(ddof=1) if ase.size > 1 else 0:.5f}"
                         f" ({seconds:.2f} s)")
        lines.append(f"n = {n:5d}: " + "; ".join(cells))
    return "\n".join(lines)


def beta_value(text):
    value = float(text)
    if not 0 < value <= 1:
        raise ValueError(f"beta must lie in (0, 1], got {value}")
    return value


def _summarise_sweep(options, results):
    columns = ("SV_M", "SV_C", "neg_log_evidence", "seconds", "ASE")
    lines = ["Figure 4.1 (means over the draws): n beta " + " ".join(columns)]
    for n in options["sizes"]:
        for beta in options["betas"]:
            rows = _records(results, f"beta-{beta}/n-{n}/")
            lines.append(f"{n:5d} {beta:6} " + " ".join(
                f"{np.mean([row[c] for row in rows]):.5g}" for c in columns))
    return "\n".join(lines)


EXPERIMENTS = [
    Experiment("table-4.3", "Chu (2003) Table 4.3: BSVR on sinc data with SILF noise, beta = "
               "0.3 and 0.1, 50 to 4000 training points", 1, (_table_phase,), _summarise_table,
               {"sizes": (training_size, TABLE_SIZES, "training-set sizes"),
                "betas": (beta_value, [0.3, 0.1], "values of beta")}),
    Experiment("figure-4.1", "Chu (2003) Figure 4.1: BSVR on 4000 sinc points with SILF noise, "
               "beta from 0.001 to 1", 1, (_sweep_phase,), _summarise_sweep,
               {"sizes": (training_size, [4000], "training-set sizes"),
                "betas": (beta_value, SWEEP_BETAS, "values of beta")}),
    Experiment("figure-4.2", "Chu (2003) Figure 4.2: SVR, BSVR and GPR on sinc data with "
               "Gaussian noise, 10 to 1000 training points", 20, (_figure_phase,),
               _summarise_figure, {"sizes": (training_size, FIGURE_SIZES, "training-set sizes")}),
]
