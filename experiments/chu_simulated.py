"""Figure 5.5 of Chu (2003, 5.5.2): SVC, BTSVC and GPC against the training-set size.

Protocol (thesis 5.5.2): the two-dimensional simulated data (class +1 from N((-2, 0), diag(1, 2)),
class -1 from N((2, 0), diag(2, 1))), training sets of 10 to 1000 points, 20 repetitions per size,
one test set of 20002 points; SVC (fitted by LIBSVM) with (C, kappa) by leave-one-out below 100
points and 10-fold cross-validation above, on the thesis's grids; BTSVC and GPC by their evidence.
Recorded: the test error and the training time of each method (model selection included); for the
figure's lower panels, the time of one SVC training on all n points, BTSVC's number of evidence
evaluations (its time per evaluation follows), and the time of one GPC evidence-and-gradient
evaluation at the fitted hyperparameters.
"""

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from experiments.model_selection import at_stored, select_svc, svc_model
from experiments.runner import Experiment, Task, training_size
from kmlib.btsvc import BTSVC, default_kernel
from kmlib.datasets import chu_classification_2d
from kmlib.kernels import RBF, Constant
from kmlib.laplace import GaussianProcessClassifier

TEST_SEED = 5522
SIZES = [10, 20, 50, 100, 200, 500, 1000]


def learning_curve_point(n, repetition, svm_solver="kmlib", at=None):
    """SVC, BTSVC and GPC on one training set of n points: test error (%) and seconds.

    ``svm_solver`` fits the SVC: "kmlib" or "libsvm" (experiments.model_selection). With
    ``at``, a stored record of this function: the SVC at its stored C and kappa and the other
    two at their stored ``theta``, with no search and no optimisation.
    """
    X, y = chu_classification_2d(n, random_state=[n, repetition])
    X_test, y_test = chu_classification_2d(20002, random_state=TEST_SEED)
    record = {}
    btsvc = BTSVC() if at is None else at_stored(BTSVC(default_kernel(2)), at["BTSVC"])
    kernel = RBF(lengthscale=np.sqrt(2.0), limits={"variance": (1e-2, 1e3)}) + Constant(1.0)
    gpc = GaussianProcessClassifier(kernel)
    if at is not None:
        gpc = at_stored(gpc, at["GPC"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        if at is None:
            C, kappa, cv_error, _ = select_svc(X, y, seed=repetition, solver=svm_solver)
        else:
            C, kappa, cv_error = at["SVC"]["C"], at["SVC"]["kappa"], at["SVC"]["cv_error"]
        fit_start = time.perf_counter()
        svc = svc_model(C, kappa, svm_solver).fit(X, y)
        record["SVC"] = {"seconds": time.perf_counter() - start, "C": C, "kappa": kappa,
                         "one_fit": {"seconds": time.perf_counter() - fit_start},
                         "folds": n if n < 100 else 10, "cv_error": cv_error,
                         "error": 100.0 * np.mean(svc.predict(X_test) != y_test)}
        start = time.perf_counter()
        btsvc.fit(X, y)
        record["BTSVC"] = {"seconds": time.perf_counter() - start,
                           "evaluations": btsvc.n_evidence_evaluations_,
                           "theta": btsvc.kernel_.theta,
                           "log_evidence": btsvc.log_marginal_likelihood_,
                           "error": 100.0 * np.mean(btsvc.predict(X_test) != y_test)}
        start = time.perf_counter()
        gpc.fit(X, y)
        seconds = time.perf_counter() - start
        evaluation_start = time.perf_counter()
        gpc.log_marginal_likelihood(gpc.theta_, eval_gradient=True)
        record["GPC"] = {"seconds": seconds, "theta": gpc.kernel_.theta,
                         "log_evidence": gpc.log_marginal_likelihood_,
                         "one_evaluation": {"seconds": time.perf_counter() - evaluation_start},
                         "iterations": gpc.optimizer_n_iter_,
                         "error": 100.0 * np.mean(gpc.predict(X_test) != y_test)}
    return record


def _phase(options, results):
    return [Task(f"n-{n}/repetition-{r:02d}", learning_curve_point,
                 {"n": n, "repetition": r, "svm_solver": "libsvm"})
            for n in options["sizes"] for r in range(options["splits"])]


def _summarise(options, results):
    lines = ["Figure 5.5: test error % (mean ± sd over repetitions) and mean training seconds"]
    for n in options["sizes"]:
        rows = [record["result"] for key, record in sorted(results.items())
                if key.startswith(f"n-{n}/")]
        cells = []
        for method in ("SVC", "BTSVC", "GPC"):
            error = np.array([row[method]["error"] for row in rows])
            seconds = np.mean([row[method]["seconds"] for row in rows])
            spread = error.std(ddof=1) if error.size > 1 else 0.0
            cells.append(f"{method} {error.mean():5.2f} ± {spread:4.2f} ({seconds:6.2f} s)")
        lines.append(f"n = {n:5d}: " + "; ".join(cells))
    return "\n".join(lines)


EXPERIMENTS = [
    Experiment("figure-5.5", "Chu (2003) Figure 5.5: SVC, BTSVC and GPC on the 2-D simulated "
               "data, 10 to 1000 training points", 20, (_phase,), _summarise,
               {"sizes": (training_size, SIZES, "training-set sizes")}),
]
