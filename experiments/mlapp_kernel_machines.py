"""MLAPP Table 14.1 measured: five kernel classifiers on four small data sets (MLAPP 14.6).

Protocol (pmtk3's ``kernelClassifierComparison``, the supplementary experiment behind Murphy's
Table 14.1, as the book's page ``chapters/mlapp14/14-6-kernel-machines-compared.md`` describes
it): stratified, seeded 70/30 train/test splits of crabs, iris, Pima and forensic glass; inputs
standardised with the training part's statistics; one RBF kernel for all five models, its
length-scale in units of sqrt(d). The L2VM, the L1VM and the SVM choose their regularisation and
length-scale by cross-validated accuracy on a grid (the SVM then gets Platt's sigmoid); the RVM
chooses its length-scale on a grid by the evidence, running both of its algorithms at each value
and keeping the higher evidence; the GP maximises its Laplace evidence over length-scale and
variance. The page runs one split on a 200-case Pima sample with the ``QUICK`` grids; the full
run (``FULL``: five splits, all 768 Pima cases, 5-fold CV, wider grids, two GP restarts) is the
entry ``table-14.1``, one task per data set and split.
"""

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.multiclass import OneVsRestClassifier

from experiments.runner import Experiment, Task, data_set_names
from kmlib import datasets
from kmlib.kernel_machines import L1VMClassifier, L2VMClassifier
from kmlib.kernels import RBF
from kmlib.laplace import GaussianProcessClassifier
from kmlib.rvm import RVC
from kmlib.svm import SVC

SEED = 0
TEST_FRACTION = 0.3
METHODS = ("L2VM", "L1VM", "RVM", "SVM", "GP")
DATA_SETS = ("crabs", "iris", "Pima", "fglass")


@dataclass(frozen=True)
class Grids:
    """Model selection settings: CV folds, and grids of length-scales (in units of sqrt(d)),
    L2VM and L1VM penalties, SVM costs and RVM length-scales; GP restarts."""

    n_folds: int
    scales: np.ndarray
    l2_alphas: np.ndarray
    l1_alphas: np.ndarray
    svm_cs: np.ndarray
    rvm_scales: np.ndarray
    gp_restarts: int


QUICK = Grids(3, 2.0 ** np.arange(-2, 2), 10.0 ** np.arange(-3, 1), 10.0 ** np.arange(-2, 1),
              10.0 ** np.arange(0, 4), 2.0 ** np.arange(-3, 3), 0)
FULL = Grids(5, 2.0 ** np.arange(-2, 3), 10.0 ** np.arange(-4, 1), 10.0 ** np.arange(-3, 2),
             10.0 ** np.arange(-1, 4), 2.0 ** np.arange(-3, 3.5, 0.75), 2)


def data_sets(full):
    """name -> (X, y) of the four data sets; Pima as a seeded 200-case sample (the size of
    Murphy's pool) unless ``full``, then all 768 cases."""
    iris = load_iris()
    X_pima, y_pima = datasets.raetsch_benchmark("diabetis")
    if not full:
        keep = np.sort(np.random.default_rng(SEED).choice(y_pima.size, 200, replace=False))
        X_pima, y_pima = X_pima[keep], y_pima[keep]
    return {
        "crabs": datasets.crabs()[:2],
        "iris": (iris.data, iris.target_names[iris.target]),
        "Pima": (X_pima, np.where(y_pima > 0, "diabetic", "healthy")),
        "fglass": datasets.forensic_glass()[:2],
    }


class EvidenceRVC(ClassifierMixin, BaseEstimator):
    """Two-class RVC whose RBF length-scale maximises the evidence over a grid.

    At each length-scale both algorithms are run (they start from opposite ends and may stop at
    different local maxima); the fit with the highest log evidence is kept.
    """

    def __init__(self, lengthscales=(1.0,)):
        self.lengthscales = lengthscales

    def fit(self, X, y):
        self.fits_ = []
        for ell in self.lengthscales:
            for method in ("sequential", "reestimate"):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ConvergenceWarning)
                    rvc = RVC(kernel=RBF(lengthscale=ell), method=method).fit(X, y)
                converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
                self.fits_.append((ell, method, rvc.log_marginal_likelihood_, converged, rvc))
        self.rvc_ = max(self.fits_, key=lambda fit: fit[2])[4]
        self.classes_ = self.rvc_.classes_
        return self

    def predict_proba(self, X):
        return self.rvc_.predict_proba(X)

    def predict(self, X):
        return self.rvc_.predict(X)


def fit_model(method, X, y, grids):
    """Model selection and the final fit of one method on standardised training data."""
    ells = np.sqrt(X.shape[1]) * grids.scales
    folds = StratifiedKFold(grids.n_folds, shuffle=True, random_state=SEED)
    if method in ("L2VM", "L1VM"):
        Model, alphas = {"L2VM": (L2VMClassifier, grids.l2_alphas),
                         "L1VM": (L1VMClassifier, grids.l1_alphas)}[method]
        grid = {"alpha": alphas, "kernel__lengthscale": ells}
        return GridSearchCV(Model(kernel=RBF()), grid, cv=folds).fit(X, y).best_estimator_
    if method == "SVM":
        grid = {"C": grids.svm_cs, "kernel__lengthscale": ells}
        search = GridSearchCV(SVC(kernel=RBF()), grid, cv=folds).fit(X, y)
        best = clone(search.best_estimator_).set_params(probability=True, random_state=SEED)
        return best.fit(X, y)  # Platt's sigmoid from an internal 5-fold CV
    if method == "RVM":
        rvm = EvidenceRVC(lengthscales=tuple(np.sqrt(X.shape[1]) * grids.rvm_scales))
        return OneVsRestClassifier(rvm).fit(X, y)
    gp = GaussianProcessClassifier(kernel=RBF(lengthscale=np.sqrt(X.shape[1])),
                                   n_restarts=grids.gp_restarts, random_state=SEED)
    return OneVsRestClassifier(gp).fit(X, y)


def retained(method, model):
    """Training indices whose kernel column the fitted predictor uses."""
    if method in ("L2VM", "L1VM"):
        return np.flatnonzero(np.any(model.coef_ != 0, axis=0))
    if method == "SVM":
        return model.support_
    if method == "RVM":
        return np.unique(np.concatenate([e.rvc_.relevance_ for e in model.estimators_]))
    weights = [e.t_train_ - e.mode_.sigma for e in model.estimators_]  # PRML (6.87)
    return np.flatnonzero(np.any(np.array(weights) != 0, axis=0))


def run_split(X, y, split, grids):
    """The five methods on one split: method -> record with the fitted model, the split and
    its test probabilities, the test errors, the retained columns, the test log loss, the
    training and prediction times and the number of ConvergenceWarnings."""
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=TEST_FRACTION, stratify=y,
                                          random_state=SEED + split)
    mean, std = Xtr.mean(axis=0), Xtr.std(axis=0)
    Xtr, Xte = (Xtr - mean) / std, (Xte - mean) / std
    out = {}
    for method in METHODS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            start = time.perf_counter()
            model = fit_model(method, Xtr, ytr, grids)
            fitted = time.perf_counter()
            proba, labels = model.predict_proba(Xte), model.predict(Xte)
            done = time.perf_counter()
        p_true = proba[np.arange(yte.size), np.searchsorted(model.classes_, yte)]
        out[method] = dict(
            model=model, Xtr=Xtr, ytr=ytr, Xte=Xte, yte=yte, proba=proba,
            errors=int(np.sum(labels != yte)), n_test=yte.size, n_train=ytr.size,
            basis=retained(method, model).size,
            log_loss=float(-np.mean(np.log(np.maximum(p_true, np.finfo(float).eps)))),
            train_s=fitted - start, predict_s=done - fitted,
            warnings=sum(issubclass(w.category, ConvergenceWarning) for w in caught),
        )  # fmt: skip
    return out


def table_task(data_set, split):
    """One task of the full run: the five methods on one split of one data set, with the
    ``FULL`` grids; per method the numbers of the page's table (timings under ``seconds``)."""
    X, y = data_sets(full=True)[data_set]
    return {method: {"errors": r["errors"], "n_test": r["n_test"], "n_train": r["n_train"],
                     "basis": r["basis"], "log_loss": r["log_loss"], "warnings": r["warnings"],
                     "train": {"seconds": r["train_s"]}, "predict": {"seconds": r["predict_s"]}}
            for method, r in run_split(X, y, split, FULL).items()}


def _phase(options, results):
    return [Task(f"{name}/split-{split}", table_task, {"data_set": name, "split": split})
            for name in options["sets"] for split in range(options["splits"])]


def mean_over_splits(results, name, method, key):
    """The mean of one number over the stored splits of a data set (``key`` may be a path
    such as ``"train/seconds"``)."""
    values = []
    for task, record in results.items():
        if task.split("/")[0] == name:
            value = record["result"][method]
            for part in key.split("/"):
                value = value[part]
            values.append(value)
    return float(np.mean(values))


def _summarise(options, results):
    lines = ["MLAPP Table 14.1 measured: mean test errors (retained basis functions) per data set"]
    for method in METHODS:
        cells = [f"{mean_over_splits(results, n, method, 'errors'):5.1f} "
                 f"({mean_over_splits(results, n, method, 'basis'):5.1f})"
                 for n in options["sets"]]
        lines.append(f"  {method:5s} " + "  ".join(cells))
    return "\n".join(lines)


EXPERIMENTS = [
    Experiment("table-14.1", "MLAPP Table 14.1 measured: L2VM, L1VM, RVM, SVM and GP on crabs, "
               "iris, Pima and forensic glass", 5, (_phase,), _summarise,
               {"sets": (data_set_names(DATA_SETS), list(DATA_SETS), "data sets")}),
]
