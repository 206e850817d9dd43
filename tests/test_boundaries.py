"""Boundary battery: bad inputs and faulty kernels against every public estimator and kernel.

Every public estimator (a ``BaseEstimator`` subclass in the ``__all__`` of a kmlib module) and
every public kernel (a ``kmlib.kernels.Kernel`` subclass in an ``__all__``) meets the same cases:
NaN and infinite inputs, wrong shapes, empty and one-sample data, sparse matrices, strings
where numbers are needed, pandas DataFrames, calls before ``fit``, feature-count mismatches,
label types (mixed ones too), invalid constructor values, faulty kernels, iteration limits and
runs of a million iterations, identical training inputs, extreme kernel and input scales
(where a kernel's diagonal must still agree with its Gram matrix, or the scale be refused).
Each case runs under a hang detector (``CPU_LIMIT``
seconds of the process's CPU time, by SIGPROF) and its outcome falls into one class:

* ``clear_error``: a ValueError or TypeError (NotFittedError and numpy's LinAlgError are
  ValueErrors; some cases name one type) whose message names what the user passed (one of the
  words the case declares, as a whole word) and shows no internals (``INTERNALS``: Python's and
  numpy's own phrasing, such as LinAlgError's "Singular matrix", and kmlib's local names);
* ``correct_result``: no exception; every output finite, of the expected shape and passing the
  case's checks; and the warning the case expects, if any, was issued;
* ``wrong_result``: no exception and finite outputs, but a check failed (a wrong shape, labels
  that are not in y, a missing ``ConvergenceWarning``), or a result where the case needs an
  error (an invalid value accepted, a faulty kernel's values used without notice);
* ``warned_nan``: NaN or infinite outputs after a ``UserWarning`` (``ConvergenceWarning`` is
  one); accepted for extreme input scales only;
* ``silent_nan``: NaN or infinite outputs from finite inputs, with no warning;
* ``hang``: still running after ``CPU_LIMIT`` seconds of CPU time;
* ``unclear``: any other exception, or one whose message names nothing the user passed or shows
  internals.

Each test accepts the classes its case declares and fails on any other. The tables
``ESTIMATORS`` and ``KERNELS`` say how to build each class, which inputs it takes and which
constructor values it must refuse; a public class without an entry, or a constructor parameter
without an invalid value, fails ``test_tables_cover_*``, so new classes cannot slip through.
When the module is done, the outcomes are counted and printed (and written to
``_build/boundaries-summary.txt`` when ``_build`` exists).
"""

import inspect
import re
import signal
import warnings
from collections import Counter
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics.pairwise import rbf_kernel

import kmlib
from kmlib import kernels, structured

#: CPU seconds before a case counts as a hang. The detector counts the CPU time this process
#: spends (``ITIMER_PROF``: user and system time), not the wall clock, so a loaded machine, where
#: the case waits for a core, cannot make it fire. The slowest case (BayesianSVR on targets
#: times 1e8) takes 1.5 s of CPU on an idle 2-core AMD EPYC; the limit is twenty times that, so a
#: CPU twenty times slower still passes, while a loop that never ends is still caught. (A case
#: blocked without using the CPU is not detected; no kmlib code waits on anything.)
CPU_LIMIT = 30.0
NAN, INF = float("nan"), float("inf")

CLEAR, CORRECT, WRONG = "clear_error", "correct_result", "wrong_result"
WARNED_NAN, SILENT_NAN, HANG, UNCLEAR = "warned_nan", "silent_nan", "hang", "unclear"
OUTCOME_CLASSES = (CLEAR, CORRECT, WRONG, WARNED_NAN, SILENT_NAN, HANG, UNCLEAR)

#: Phrases that give away internals: Python's and numpy's own wording, and kmlib's local names.
INTERNALS = (
    "object is not callable",
    "setting an array element with a sequence",
    "index out of bounds",
    "out of bounds for axis",
    "unsupported operand",
    "has no attribute",
    "not subscriptable",
    "could not broadcast",
    "matmul",
    "required positional argument",
    "cannot be interpreted as an integer",
    "not supported between instances",
    "Matrix is not positive definite",
    "Singular matrix",
    "potrs",
    "potrf",
    "potri",
    "A contains",
    "_gram",
    "_values",
    "Sigma",
)


# ====================================================================== running and judging
class Hang(BaseException):
    """Raised by the alarm in a case that uses more than ``CPU_LIMIT`` seconds of CPU time.

    A BaseException, so that code under test which catches ``Exception`` cannot swallow it.
    """


@contextmanager
def hang_detector(seconds=CPU_LIMIT):
    def alarm(signum, frame):
        raise Hang(f"still running after {seconds:g} s of CPU time")

    previous = signal.signal(signal.SIGPROF, alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@dataclass(frozen=True)
class Expect:
    """What a case accepts.

    ``names``: a clear message contains one of these words; ``errors``: exception types that can
    be clear; ``warning``: a warning that must come with a result; ``tolerated``: entries of
    ``INTERNALS`` that are the right wording for this case.
    """

    allowed: frozenset
    names: tuple = ()
    errors: tuple = (ValueError, TypeError)
    warning: type = None
    tolerated: tuple = ()


@dataclass(frozen=True)
class Outcome:
    kind: str
    detail: str = ""


def names_word(word, message):
    """True if ``word`` occurs in ``message`` as a whole word (``X`` but not ``X_train_``)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", message) is not None


def all_finite(value):
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return True  # labels such as strings: nothing that could be NaN
    return bool(np.all(np.isfinite(array)))


def judge_error(exc, expect):
    message = str(exc)
    text = f"{type(exc).__name__}: {message}"[:240]
    if not isinstance(exc, expect.errors):
        return Outcome(UNCLEAR, text)
    leaked = [p for p in INTERNALS if p in message and p not in expect.tolerated]
    if leaked:
        return Outcome(UNCLEAR, f"{text} [shows {leaked[0]!r}]")
    if expect.names and not any(names_word(word, message) for word in expect.names):
        return Outcome(UNCLEAR, f"{text} [names none of {list(expect.names)}]")
    return Outcome(CLEAR, text)


def run_case(action, expect):
    """Run ``action() -> (outputs, problems)`` under the hang detector and classify it.

    ``outputs`` maps names to the arrays the case produced, ``problems`` lists the checks that
    failed on them.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with hang_detector():
                outputs, problems = action()
        except Hang as exc:
            return Outcome(HANG, str(exc))
        except Exception as exc:  # noqa: BLE001 - every exception is judged, not re-raised
            return judge_error(exc, expect)
    warned = [w for w in caught if issubclass(w.category, UserWarning)]
    non_finite = [name for name, value in outputs.items() if not all_finite(value)]
    if non_finite:
        if warned:
            return Outcome(WARNED_NAN, f"NaN/inf in {non_finite} after: {warned[0].message}")
        return Outcome(SILENT_NAN, f"NaN/inf in {non_finite}, no warning")
    if expect.warning and not any(issubclass(w.category, expect.warning) for w in caught):
        problems = [*problems, f"no {expect.warning.__name__}"]
    if problems:
        return Outcome(WRONG, "; ".join(problems))
    return Outcome(CORRECT)


#: Outcome of every case that ran: test name -> (outcome class, whether the test passed).
OUTCOMES = {}


def assert_outcome(request, outcome, allowed, note=""):
    passed = outcome.kind in allowed
    OUTCOMES[request.node.name] = (outcome.kind, passed)
    assert passed, (
        f"{outcome.kind}: {outcome.detail} (accepted: {', '.join(sorted(allowed))}){note}"
    )


def check_case(request, action, expect):
    assert_outcome(request, run_case(action, expect), expect.allowed)


# ====================================================================== discovery
def public_classes(base):
    """``{"module.Name": class}`` for the subclasses of ``base`` (not ``base`` itself) in the
    ``__all__`` of every kmlib module."""
    found = {}
    for module_name in kmlib.__all__:
        module = getattr(kmlib, module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if (
                inspect.isclass(obj)
                and issubclass(obj, base)
                and obj is not base
                and obj not in found.values()
            ):
                found[f"{module_name}.{name}"] = obj
    return found


ESTIMATOR_CLASSES = public_classes(BaseEstimator)
KERNEL_CLASSES = public_classes(kernels.Kernel)


# ====================================================================== invalid values
@dataclass
class Bad:
    """An invalid constructor value, with the settings under which the parameter is used."""

    name: str
    value: object
    extra: dict = field(default_factory=dict)
    label: str = ""
    names: tuple = ()

    @property
    def id(self):
        if self.label:
            return f"{self.name}={self.label}"
        if inspect.isclass(self.value):
            return f"{self.name}={self.value.__name__}_class"
        if callable(self.value):
            return f"{self.name}={self.value.__name__}"
        return f"{self.name}={self.value!r}"

    @property
    def message_names(self):
        """A clear message names the parameter, or quotes a string value."""
        if self.names:
            return self.names
        quoted = (repr(self.value),) if isinstance(self.value, str) else ()
        return (self.name.split("__")[-1], *quoted)


def values(name, bad_values, **extra):
    return [Bad(name, value, extra) for value in bad_values]


def positive(name, **extra):
    """Refused where ``name`` must be a finite number > 0."""
    return values(name, (0.0, -1.0, NAN, INF, "1.0"), **extra)


def non_negative(name, **extra):
    return values(name, (-1.0, NAN, INF, "1.0"), **extra)


def fraction(name, **extra):
    """Refused where ``name`` must lie in (0, 1]."""
    return values(name, (0.0, -0.5, 1.5, NAN, "0.5"), **extra)


def tolerance(name, **extra):
    return values(name, (-1.0, NAN, "0.001"), **extra)


def count(name, zero_ok=False, **extra):
    """Refused where ``name`` must be an integer >= 1 (>= 0 with ``zero_ok``)."""
    return values(name, (-5, 1.5, "3") if zero_ok else (0, -5, 1.5, "3"), **extra)


def flag(name, **extra):
    return values(name, ("no",), **extra)


def choice(name, **extra):
    return values(name, ("no-such-option",), **extra)


def seed(**extra):
    return values("random_state", ("seed",), **extra)


def verbosity():
    return values("verbose", (-1, "yes"))


def kernel_values():
    """Refused by every estimator with a ``kernel`` parameter that takes kernel functions."""
    return values("kernel", ("a string", 42, kernels.RBF))


# ====================================================================== estimator table
@dataclass
class EstimatorSpec:
    """How to exercise one estimator.

    ``kind``: regressor, classifier, transformer, clusterer, density or outlier. ``kernel``:
    ``"callable"`` if ``kernel=`` takes any ``k(A, B)``, ``"kmlib"`` if only kmlib kernels,
    ``None`` without such a parameter. ``invalid``: values the constructor must refuse (at
    ``fit``). ``iteration_limits``: settings that stop the solver early (case name -> params);
    the same settings with a million in place of the one are long runs, which must still end
    in time (the solver stops when it has converged). ``long_runs``: other such settings.
    ``params``: settings used in every case.
    """

    kind: str
    invalid: list
    kernel: str = None
    iteration_limits: dict = field(default_factory=dict)
    long_runs: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)

    def long_run_settings(self):
        """Case name -> settings that allow about a million iterations (or passes)."""
        runs = {
            f"{name}e6": {key: 10**6 if value == 1 else value for key, value in params.items()}
            for name, params in self.iteration_limits.items()
        }
        return {**runs, **self.long_runs}


def svm_common():
    return [
        *kernel_values(),
        *tolerance("tol"),
        *flag("shrinking"),
        *positive("cache_size"),
        *count("max_iter"),  # -1 means no limit
    ]


def svc_common():
    return [
        *svm_common(),
        *flag("probability"),
        Bad("class_weight", "heavy"),
        Bad("class_weight", {5: 2.0}, label="label_not_in_y"),
        *choice("decision_function_shape"),
        *choice("multiclass"),
        *seed(probability=True),
    ]


def kernel_machine(penalty_only=False):
    iterations = [] if penalty_only else [*tolerance("tol"), *count("max_iter")]
    return [*kernel_values(), *positive("alpha"), *iterations]


def rvm_invalid():
    return [
        *kernel_values(),
        *choice("method"),
        *flag("bias"),
        *tolerance("tol"),
        *count("max_iter"),
        *positive("prune_threshold", method="reestimate"),
        *verbosity(),
    ]



def evidence_optimiser():
    """n_restarts, random_state and the optimiser's iteration limit, where they are used."""
    return [
        *flag("optimize"),
        *count("n_restarts", zero_ok=True, optimize=True),
        *seed(optimize=True, n_restarts=1),
        *count("optimizer_max_iter", optimize=True),
    ]


MAX_ITER_1 = {"max_iter_1": {"max_iter": 1}}

#: Both RVMs stop their sequential and their re-estimation loops at ``max_iter``.
RVM_ITERATION_LIMITS = {
    **MAX_ITER_1,
    "reestimate_max_iter_1": {"method": "reestimate", "max_iter": 1},
}
OPTIMIZER_MAX_ITER_1 = {"optimizer_max_iter_1": {"optimizer_max_iter": 1}}

ESTIMATORS = {
    "bsvr.BayesianSVR": EstimatorSpec(
        "regressor",
        kernel="kmlib",
        iteration_limits={**MAX_ITER_1, **OPTIMIZER_MAX_ITER_1},
        invalid=[
            *kernel_values(),
            *fraction("beta"),
            *positive("C"),
            *positive("epsilon"),
            *evidence_optimiser(),
            *tolerance("tol"),
            *count("max_iter"),  # None means the solver's default
        ],
    ),
    "btsvc.BTSVC": EstimatorSpec(
        "classifier",
        kernel="kmlib",
        iteration_limits={**MAX_ITER_1, **OPTIMIZER_MAX_ITER_1},
        invalid=[
            *kernel_values(),
            *evidence_optimiser(),
            *tolerance("tol"),
            *count("max_iter"),  # None means the solver's default
            *choice("solver"),
        ],
    ),
    "gp.GaussianProcessRegressor": EstimatorSpec(
        "regressor",
        kernel="kmlib",
        iteration_limits=OPTIMIZER_MAX_ITER_1,
        invalid=[
            *kernel_values(),
            *positive("noise_variance"),
            Bad("noise_variance_bounds", "free"),
            Bad("noise_variance_bounds", (1.0, 0.1)),
            Bad("noise_variance_bounds", (-1.0, 1.0)),
            Bad("noise_variance_bounds", (1e-3,)),
            *evidence_optimiser(),
        ],
    ),
    "kernel_machines.L2VMRegressor": EstimatorSpec(
        "regressor", kernel="callable", invalid=kernel_machine(penalty_only=True)
    ),
    "kernel_machines.L1VMRegressor": EstimatorSpec(
        "regressor", kernel="callable", iteration_limits=MAX_ITER_1, invalid=kernel_machine()
    ),
    "kernel_machines.L2VMClassifier": EstimatorSpec(
        "classifier", kernel="callable", iteration_limits=MAX_ITER_1, invalid=kernel_machine()
    ),
    "kernel_machines.L1VMClassifier": EstimatorSpec(
        "classifier", kernel="callable", iteration_limits=MAX_ITER_1, invalid=kernel_machine()
    ),
    "kernel_trick.KernelRidge": EstimatorSpec(
        "regressor",
        kernel="kmlib",
        invalid=[*kernel_values(), *positive("alpha"), *choice("solver")],
    ),
    "kernel_trick.KernelPCA": EstimatorSpec(
        "transformer",
        kernel="kmlib",
        invalid=[*kernel_values(), *count("n_components"), Bad("n_components", 1000)],
    ),
    "kernel_trick.KernelKNeighborsClassifier": EstimatorSpec(
        "classifier", kernel="kmlib", invalid=[*kernel_values(), *count("n_neighbors")]
    ),
    "kernel_trick.KernelKMedoids": EstimatorSpec(
        "clusterer",
        kernel="kmlib",
        iteration_limits=MAX_ITER_1,
        params={"random_state": 0},  # with this start one pass does not settle the medoids
        invalid=[
            *kernel_values(),
            *count("n_clusters"),
            Bad("n_clusters", 1000),
            *count("max_iter"),
            *seed(),
        ],
    ),
    "laplace.GaussianProcessClassifier": EstimatorSpec(
        "classifier",
        kernel="kmlib",
        iteration_limits={**OPTIMIZER_MAX_ITER_1, "newton_max_iter_1": {"newton_max_iter": 1}},
        invalid=[
            *kernel_values(),
            *non_negative("jitter"),
            *evidence_optimiser(),
            *tolerance("newton_tol"),
            *count("newton_max_iter"),
        ],
    ),
    "rvm.RVR": EstimatorSpec(
        "regressor",
        kernel="callable",
        iteration_limits=RVM_ITERATION_LIMITS,
        invalid=rvm_invalid(),
    ),
    "rvm.RVC": EstimatorSpec(
        "classifier",
        kernel="callable",
        iteration_limits=RVM_ITERATION_LIMITS,
        invalid=rvm_invalid(),
    ),
    "smoothing.NadarayaWatson": EstimatorSpec(
        "regressor", invalid=[*positive("bandwidth"), *positive("target_bandwidth")]
    ),
    "smoothing.KernelDensity": EstimatorSpec(
        "density",
        invalid=[
            *positive("bandwidth"),
            Bad("bandwidth", "normal"),
            Bad("kernel", "cosine"),
            Bad("kernel", 42),
        ],
    ),
    "smoothing.KNeighborsDensityClassifier": EstimatorSpec(
        "classifier", invalid=count("n_neighbors")
    ),
    "smoothing.LOWESS": EstimatorSpec(
        "regressor",
        invalid=[*fraction("frac"), *count("iterations")],
        long_runs={"iterations_1e6": {"iterations": 10**6}},
    ),
    "svm.SVC": EstimatorSpec(
        "classifier",
        kernel="callable",
        iteration_limits=MAX_ITER_1,
        invalid=[*positive("C"), *svc_common()],
    ),
    "svm.NuSVC": EstimatorSpec(
        "classifier",
        kernel="callable",
        iteration_limits=MAX_ITER_1,
        invalid=[*fraction("nu"), *svc_common()],
    ),
    "svm.SVR": EstimatorSpec(
        "regressor",
        kernel="callable",
        iteration_limits=MAX_ITER_1,
        invalid=[*positive("C"), *non_negative("epsilon"), *svm_common()],
    ),
    "svm.NuSVR": EstimatorSpec(
        "regressor",
        kernel="callable",
        iteration_limits=MAX_ITER_1,
        invalid=[*fraction("nu"), *positive("C"), *svm_common()],
    ),
    "svm.OneClassSVM": EstimatorSpec(
        "outlier",
        kernel="callable",
        iteration_limits=MAX_ITER_1,
        invalid=[*fraction("nu"), *svm_common()],
    ),
}

SUPERVISED = ("regressor", "classifier")
PREDICTION_METHODS = ("predict", "predict_proba", "decision_function", "transform", "score_samples")


# ====================================================================== estimator data
@dataclass(frozen=True)
class Data:
    X: object
    y: object
    X_test: object


def blobs(n_classes=2, per_class=15, seed=0):
    """Gaussian blobs of standard deviation 0.5 around centres 2.5 from the origin, at least
    4.3 apart (8.7 standard deviations): any working classifier separates them."""
    rng = np.random.default_rng(seed)
    angles = 2 * np.pi * np.arange(n_classes) / n_classes
    centres = 2.5 * np.column_stack([np.cos(angles), np.sin(angles)])
    X = np.vstack([rng.normal(c, 0.5, (per_class, 2)) for c in centres])
    return X, np.repeat(np.arange(n_classes), per_class), rng.uniform(-3, 3, (10, 2))


def data_for(kind, labels=(0, 1)):
    X, codes, X_test = blobs(len(labels))
    if kind == "classifier":
        y = np.asarray(labels)[codes]
    elif kind == "regressor":
        y = np.sin(X[:, 0]) + 0.1 * np.random.default_rng(1).standard_normal(len(X))
    else:
        y = None
    return Data(X, y, X_test)


def spoiled(array, value):
    """A copy of ``array`` with one entry replaced by ``value``."""
    array = np.array(array, dtype=np.float64)
    array[(3,) + (1,) * (array.ndim - 1)] = value
    return array


def fit(estimator, data):
    return estimator.fit(data.X) if data.y is None else estimator.fit(data.X, data.y)


def outputs_of(estimator, X):
    """Every prediction method the fitted estimator has, applied to ``X``."""
    return {m: getattr(estimator, m)(X) for m in PREDICTION_METHODS if hasattr(estimator, m)}


def result_problems(estimator, outputs, m):
    """Shapes of the outputs for ``m`` points, labels among ``classes_``, probabilities that
    sum to one."""
    classes = getattr(estimator, "classes_", None)
    k = None if classes is None else len(classes)
    expected = {
        "predict": (m,),
        "predict_proba": (m, k),
        "decision_function": (m,) if k in (None, 2) else (m, k),
        "transform": (m, getattr(estimator, "n_components", None)),
        "score_samples": (m,),
    }
    problems = [
        f"{name} has shape {np.shape(value)}, not {expected[name]}"
        for name, value in outputs.items()
        if np.shape(value) != expected[name]
    ]
    if problems:
        return problems
    if (
        classes is not None
        and "predict" in outputs
        and not np.isin(outputs["predict"], classes).all()
    ):
        problems.append("predict returns labels that are not in classes_")
    proba = outputs.get("predict_proba")
    if proba is not None and all_finite(proba) and not np.allclose(np.sum(proba, axis=1), 1.0):
        problems.append("predict_proba rows do not sum to one")
    return problems


def fitted(cls, spec, data, **params):
    """A case action: fit on ``data`` and apply every prediction method to its test inputs."""

    def action():
        estimator = fit(cls(**{**spec.params, **params}), data)
        outputs = outputs_of(estimator, data.X_test)
        return outputs, result_problems(estimator, outputs, len(data.X_test))

    return action


def same_outputs(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":  # the same fit from another storage format: rounding may differ
        return np.allclose(a, b, rtol=1e-6, atol=1e-9)
    return np.array_equal(a, b)


def sparse_action(cls, spec, data):
    """Fit and predict on CSR matrices; a supported call must give what dense inputs give."""

    def action():
        dense = outputs_of(fit(cls(**spec.params), data), data.X_test)
        sparse_data = replace(data, X=sparse.csr_matrix(data.X))
        estimator = fit(cls(**spec.params), sparse_data)
        outputs = outputs_of(estimator, sparse.csr_matrix(data.X_test))
        problems = result_problems(estimator, outputs, len(data.X_test))
        problems += [
            f"{m} differs from the dense fit"
            for m in outputs
            if not same_outputs(outputs[m], dense[m])
        ]
        return outputs, problems

    return action


def labelled_action(cls, spec, labels):
    """Fit on blobs labelled ``labels``; the model must keep them and separate the blobs."""
    data = data_for("classifier", labels)

    def action():
        estimator = fit(cls(**spec.params), data)
        outputs = outputs_of(estimator, data.X_test)
        problems = result_problems(estimator, outputs, len(data.X_test))
        if not np.array_equal(estimator.classes_, np.unique(data.y)):
            problems.append(f"classes_ is {estimator.classes_!r}, not the labels of y")
        accuracy = np.mean(estimator.predict(data.X) == data.y)
        if accuracy < 0.9:  # the blobs are 8.7 standard deviations apart
            problems.append(f"training accuracy {accuracy:.2f} on separated blobs")
        return outputs, problems

    return action


def one_class_action(cls, spec, data):
    """Fit on one label; a model that accepts it must predict that label."""
    one = replace(data, y=np.full(len(data.y), 7))

    def action():
        estimator = fit(cls(**spec.params), one)
        outputs = outputs_of(estimator, data.X_test)
        problems = result_problems(estimator, outputs, len(data.X_test))
        if not np.all(estimator.predict(data.X_test) == 7):
            problems.append("predicts labels other than the only one in y")
        return outputs, problems

    return action


def mismatch_action(cls, spec, data):
    """Fit on 2 features, predict on 3."""

    def action():
        estimator = fit(cls(**spec.params), data)
        wide = np.column_stack([data.X_test, data.X_test[:, :1]])
        return outputs_of(estimator, wide), ["accepted 3 features after a fit on 2"]

    return action


def unfitted_action(cls, spec, data, method):
    def action():
        return {method: getattr(cls(**spec.params), method)(data.X_test)}, []

    return action


def plain_rbf(A, B):
    """A plain callable kernel ``k(A, B)``: the RBF with unit length-scale."""
    return rbf_kernel(A, B, gamma=0.5)


def reissued(caught):
    """Warn again what an inner ``catch_warnings`` recorded, for ``run_case`` to see."""
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def mixed_labels_action(cls, spec):
    """Fit on labels that mix strings and integers (an object array, as pandas gives)."""
    data = data_for("classifier")
    mixed = np.array(["cat" if code == 0 else 7 for code in data.y], dtype=object)
    return fitted(cls, spec, replace(data, y=mixed))


def strings_action(cls, spec, data):
    """Fit on a list of strings, as a user of a string kernel would: the message must show the
    route that works (the kernel's Gram matrix, with ``kernel="precomputed"``)."""
    words = [f"word {i}" for i in range(len(data.X))]
    return fitted(cls, spec, replace(data, X=words, X_test=words[:4]))


FRAME_COLUMNS = ["first", "second"]


def dataframe_action(cls, spec, data):
    """Fit and predict on DataFrames: the results of the arrays, the column names kept in
    ``feature_names_in_`` as scikit-learn keeps them, and no warning about them."""

    def action():
        frames = replace(
            data,
            X=pd.DataFrame(data.X, columns=FRAME_COLUMNS),
            X_test=pd.DataFrame(data.X_test, columns=FRAME_COLUMNS),
        )
        arrays = outputs_of(fit(cls(**spec.params), data), data.X_test)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            estimator = fit(cls(**spec.params), frames)
            outputs = outputs_of(estimator, frames.X_test)
        reissued(caught)
        problems = result_problems(estimator, outputs, len(data.X_test))
        problems += [
            f"{m} differs from the fit on arrays"
            for m in outputs
            if not same_outputs(outputs[m], arrays[m])
        ]
        names = list(getattr(estimator, "feature_names_in_", []))
        if names != FRAME_COLUMNS or getattr(estimator, "n_features_in_", None) != 2:
            problems.append(f"feature_names_in_ is {names}, not the columns {FRAME_COLUMNS}")
        problems += [f"warned: {w.message}" for w in caught if "feature names" in str(w.message)]
        return outputs, problems

    return action


def renamed_columns_action(cls, spec, data):
    """Fit on a DataFrame, predict on one whose columns have other names."""

    def action():
        frame = pd.DataFrame(data.X, columns=FRAME_COLUMNS)
        estimator = fit(cls(**spec.params), replace(data, X=frame))
        renamed = pd.DataFrame(data.X_test, columns=["second", "third"])
        return outputs_of(estimator, renamed), ["accepted columns of other names"]

    return action


def set_output_action(cls, spec, data):
    """``set_output(transform="pandas")``: a DataFrame whose columns are
    ``get_feature_names_out()``, one per output column."""

    def action():
        estimator = fit(cls(**spec.params).set_output(transform="pandas"), data)
        Z = estimator.transform(data.X_test)
        names = list(estimator.get_feature_names_out())
        problems = []
        if not isinstance(Z, pd.DataFrame):
            problems.append(f"transform returned {type(Z).__name__}, not a DataFrame")
        elif list(Z.columns) != names or len(names) != Z.shape[1]:
            problems.append(f"columns {list(Z.columns)} are not get_feature_names_out() {names}")
        return {"transform": np.asarray(Z, dtype=np.float64)}, problems

    return action


#: How kmlib's ConvergenceWarnings say that an iteration limit stopped a solver (others say
#: that a hyperparameter sits at a bound of its range, which identical inputs may well cause).
ITERATION_LIMIT = ("max_iter", "did not converge")


def identical_inputs_action(cls, spec, data):
    """Fit on training inputs that are all one point (every kernel value alike), classes of
    18 and 12: an error that names the inputs or the kernel, or a result without a
    ConvergenceWarning (nothing is left to iterate on) whose predictions stay near the
    targets."""
    X = np.repeat(data.X[:1], len(data.X), axis=0)
    y = data.y
    if spec.kind == "classifier":
        y = np.repeat([0, 1], [18, 12])
    same = replace(data, X=X, y=y)

    def action():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            estimator = fit(cls(**spec.params), same)
            outputs = outputs_of(estimator, data.X_test)
        reissued(caught)
        problems = result_problems(estimator, outputs, len(data.X_test))
        limits = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
        if any(phrase in str(w.message) for w in limits for phrase in ITERATION_LIMIT):
            problems.append("stopped at an iteration limit on inputs with nothing to fit")
        prediction = outputs.get("predict")
        if spec.kind == "regressor" and all_finite(prediction):
            spread = np.ptp(y)
            if np.any(np.abs(prediction - np.mean(y)) > 2.0 * spread):
                problems.append(f"predicts {np.max(np.abs(prediction)):.3g}, far from the targets")
        return outputs, problems

    return action


LABEL_SETS = {
    "str": ["cat", "dog"],
    "int": [3, 7],
    "float": [1.0, 2.0],  # scikit-learn reads fractional floats as a regression target
    "bool": [False, True],
    "negative": [-5, -2],
}
ONE_SAMPLE_NAMES = ("X", "y", "sample", "samples", "class", "n_components", "n_clusters")
#: Length-scales far below the blobs' spacing (a Gram matrix within 1e-5 of the identity,
#: its eigenvalues crowded at 1) and far above their spread (every value 1.0 in float64).
KERNEL_SCALES = (1e-2, 1e12)
SCALE_ERRORS = frozenset({CLEAR, CORRECT, WARNED_NAN})


def estimator_cases(cls, spec):
    """``{case name: (action, Expect)}`` for every case that applies to this estimator."""
    kind, data = spec.kind, data_for(spec.kind)
    cases = {}

    def add(name, action, allowed, names=(), **kwargs):
        cases[name] = (action, Expect(frozenset(allowed), tuple(names), **kwargs))

    add("baseline", fitted(cls, spec, data), {CORRECT})
    add("nan_in_X", fitted(cls, spec, replace(data, X=spoiled(data.X, NAN))), {CLEAR}, ["X"])
    add("inf_in_X", fitted(cls, spec, replace(data, X=spoiled(data.X, INF))), {CLEAR}, ["X"])
    nan_test = replace(data, X_test=spoiled(data.X_test, NAN))
    add("nan_in_X_predict", fitted(cls, spec, nan_test), {CLEAR}, ["X"])
    add("X_3d", fitted(cls, spec, replace(data, X=data.X[:, :, None])), {CLEAR}, ["X", "dim"])
    empty = Data(data.X[:0], None if data.y is None else data.y[:0], data.X_test)
    add("empty_X", fitted(cls, spec, empty), {CLEAR}, ["X", "sample", "samples"])
    one = Data(data.X[:1], None if data.y is None else data.y[:1], data.X_test)
    add("one_sample", fitted(cls, spec, one), {CLEAR, CORRECT}, ONE_SAMPLE_NAMES)
    add("sparse_X", sparse_action(cls, spec, data), {CLEAR, CORRECT}, ["dense"])
    add("strings_X", strings_action(cls, spec, data), {CLEAR}, ["precomputed"])
    add("dataframe_X", dataframe_action(cls, spec, data), {CORRECT})
    add("identical_X", identical_inputs_action(cls, spec, data), {CLEAR, CORRECT}, ["X", "kernel"])
    if kind in SUPERVISED:
        add("nan_in_y", fitted(cls, spec, replace(data, y=spoiled(data.y, NAN))), {CLEAR}, ["y"])
        add("y_2d", fitted(cls, spec, replace(data, y=np.c_[data.y, data.y])), {CLEAR}, ["y"])
        short_y = replace(data, y=data.y[:-1])
        add("y_wrong_length", fitted(cls, spec, short_y), {CLEAR}, ["y", "samples"])
    if kind == "regressor":
        add("inf_in_y", fitted(cls, spec, replace(data, y=spoiled(data.y, INF))), {CLEAR}, ["y"])
    unfitted = cls(**spec.params)
    for method in PREDICTION_METHODS:
        if hasattr(unfitted, method):
            add(
                f"{method}_before_fit",
                unfitted_action(cls, spec, data, method),
                {CLEAR},
                [cls.__name__],
                errors=(NotFittedError,),
            )
    if any(hasattr(unfitted, m) for m in PREDICTION_METHODS):
        add("feature_mismatch", mismatch_action(cls, spec, data), {CLEAR}, ["X", "features"])
        add("dataframe_renamed", renamed_columns_action(cls, spec, data), {CLEAR}, ["feature"])
    if hasattr(unfitted, "transform"):
        add("set_output_pandas", set_output_action(cls, spec, data), {CORRECT})
    if kind == "classifier":
        one_class_names = ["class", "classes", "y"]
        add("one_class", one_class_action(cls, spec, data), {CLEAR, CORRECT}, one_class_names)
        for label_kind, labels in LABEL_SETS.items():
            add(f"labels_{label_kind}", labelled_action(cls, spec, labels), {CORRECT})
        add("labels_mixed_str_int", mixed_labels_action(cls, spec), {CLEAR}, ["y"])
        if unfitted.__sklearn_tags__().classifier_tags.multi_class:
            add("three_classes", labelled_action(cls, spec, [0, 1, 2]), {CORRECT})
        else:
            three = data_for("classifier", (0, 1, 2))
            add("three_classes", fitted(cls, spec, three), {CLEAR}, ["class", "classes", "binary"])
    for factor in (1e-8, 1e8):
        scaled = replace(data, X=data.X * factor, X_test=data.X_test * factor)
        add(
            f"X_times_{factor:g}", fitted(cls, spec, scaled), SCALE_ERRORS, ["X", "scale", "kernel"]
        )
    if kind == "regressor":
        scaled = replace(data, y=data.y * 1e8)
        add("y_times_1e+08", fitted(cls, spec, scaled), SCALE_ERRORS, ["y", "scale", "kernel"])
    for name, params in spec.iteration_limits.items():
        add(name, fitted(cls, spec, data, **params), {CORRECT}, warning=ConvergenceWarning)
    for name, params in spec.long_run_settings().items():
        add(name, fitted(cls, spec, data, **params), {CORRECT})
    if spec.kernel:
        accepted = {CORRECT} if spec.kernel == "callable" else {CLEAR}
        add(
            "kernel_plain_callable", fitted(cls, spec, data, kernel=plain_rbf), accepted, ["kernel"]
        )
        for lengthscale in KERNEL_SCALES:
            scaled_kernel = kernels.RBF(lengthscale=lengthscale)
            add(
                f"kernel_lengthscale_{lengthscale:g}",
                fitted(cls, spec, data, kernel=scaled_kernel),
                SCALE_ERRORS,
                ["X", "scale", "kernel", "lengthscale"],
            )
    return cases


def estimator_params(cases_of):
    return [
        pytest.param(est_id, name, id=f"{est_id}-{name}")
        for est_id, cls in ESTIMATOR_CLASSES.items()
        if est_id in ESTIMATORS
        for name in cases_of(cls, ESTIMATORS[est_id])
    ]


# ====================================================================== faulty kernels
FAULTS = {
    "nan": lambda K: np.full(np.shape(K), NAN),
    "inf": lambda K: np.full(np.shape(K), INF),
    "shape": lambda K: np.asarray(K)[..., :-1],
    "none": lambda K: None,
}
#: When a faulty kernel goes bad: clean calls before the fault, and whether it waits for fit.
TIMINGS = {"first_call": (0, False), "third_call": (2, False), "at_predict": (0, True)}


@dataclass
class Switch:
    """State of the faulty kernel of one test: counts calls and spoils the values once armed.

    Estimators clone kernels, so the state lives in ``SWITCHES`` under a name the kernel holds.
    """

    fault: str
    clean_calls: int
    armed: bool
    calls: int = 0
    fired: bool = False

    def pass_through(self, K):
        self.calls += 1
        if not self.armed or self.calls <= self.clean_calls:
            return K
        self.fired = True
        return FAULTS[self.fault](K)


SWITCHES = {}


class FaultyRBF(kernels.RBF):
    """A kmlib RBF kernel whose values (Gram, cross and diagonal) pass through a ``Switch``."""

    def __init__(self, switch="", lengthscale=1.0, variance=1.0, limits=None):
        super().__init__(lengthscale=lengthscale, variance=variance, limits=limits)
        self.switch = switch

    def __call__(self, X, Y=None, eval_gradient=False):
        out = super().__call__(X, Y, eval_gradient=eval_gradient)
        if not eval_gradient:
            return SWITCHES[self.switch].pass_through(out)
        K = SWITCHES[self.switch].pass_through(out[0])
        return None if K is None else (K, out[1])

    def diag(self, X):
        return SWITCHES[self.switch].pass_through(super().diag(X))


def plain_faulty(switch):
    def faulty_kernel(A, B):
        return SWITCHES[switch].pass_through(plain_rbf(A, B))

    return faulty_kernel


FAULTY_KERNEL_CASES = [
    pytest.param(est_id, source, fault, timing, id=f"{est_id}-{source}_{fault}_{timing}")
    for est_id, spec in ESTIMATORS.items()
    if est_id in ESTIMATOR_CLASSES and spec.kernel
    for source in (("kmlib", "plain") if spec.kernel == "callable" else ("kmlib",))
    for fault in FAULTS
    for timing in TIMINGS
]


# ====================================================================== kernel table
@dataclass
class BadInput:
    """Inputs a kernel must refuse, or (with ``same_as``) may support if it gives the result
    it gives on ``same_as``. ``diag``: evaluate ``k.diag(X)`` instead of ``k(X, Y)``."""

    X: object
    Y: object = None
    names: tuple = ("X",)
    same_as: tuple = None
    diag: bool = False


@dataclass
class KernelSpec:
    """How to exercise one kernel: a valid instance, valid inputs ``X`` and ``Y``, inputs it
    must refuse, constructor values it must refuse beyond the automatic ones (see
    ``kernel_invalid``), how to scale its inputs (``None``: not numeric) and how to put them
    in a DataFrame (numeric inputs: one column per feature; objects: one column of them)."""

    make: object
    X: object
    Y: object
    bad_inputs: dict
    invalid: list = field(default_factory=list)
    scale: object = None
    frame: object = pd.DataFrame


def object_column(X):
    """A DataFrame whose one column holds the objects of ``X``."""
    return pd.DataFrame({"objects": pd.Series(list(X), dtype=object)})


def numeric_bad_inputs(X, Y, mismatch_ok=False, own_inputs=True):
    """NaN, inf, 3-d, empty, too wide, sparse and string inputs. ``mismatch_ok``: the kernel
    never compares the columns in which X and Y differ (it ignores its inputs, or looks at some
    columns only), so it may accept them; a kernel that ignores its inputs may also take
    strings (it then combines with the string kernels). ``own_inputs=False``: the kernel hands
    its inputs to a function of the user's, which gets sparse and string inputs as they are."""
    wide = np.column_stack([Y, Y[:, :1]])
    words = [f"word {i}" for i in range(len(X))]
    bad = {
        "nan_in_X": BadInput(spoiled(X, NAN)),
        "inf_in_X": BadInput(spoiled(X, INF)),
        "nan_in_X_diag": BadInput(spoiled(X, NAN), diag=True),
        "nan_in_Y": BadInput(X, spoiled(Y, NAN), names=("Y",)),
        "X_3d": BadInput(X[:, :, np.newaxis]),
        "empty_X": BadInput(X[:0]),
        "feature_mismatch": BadInput(
            X, wide, names=("X", "Y", "features"), same_as=(X, Y) if mismatch_ok else None
        ),
    }
    if own_inputs:
        bad["sparse_X"] = BadInput(sparse.csr_matrix(X), names=("dense",), same_as=(X, None))
        bad["strings_X"] = BadInput(
            words, names=("string",), same_as=(words, None) if mismatch_ok else None
        )
    return bad


VECTORS = np.random.default_rng(0).normal(size=(8, 2)), np.random.default_rng(1).normal(size=(5, 2))


def vector_spec(make, invalid=(), mismatch_ok=False):
    X, Y = VECTORS
    return KernelSpec(
        make, X, Y, numeric_bad_inputs(X, Y, mismatch_ok), list(invalid), scale=np.multiply
    )


def structured_spec(make, inputs, bad_items, invalid=(), scale=None):
    """Structured inputs: generic refusals plus the kernel's own bad entries (the first also
    as ``Y``)."""
    X, Y = inputs
    bad = {
        "empty_X": BadInput([]),
        "X_not_a_sequence": BadInput(42),
        "X_is_a_str": BadInput("abc"),
    }
    for name, item in bad_items.items():
        bad[name] = item if isinstance(item, BadInput) else BadInput(item)
    first = next(iter(bad_items.values()))
    bad["bad_entry_in_Y"] = BadInput(X, first.X if isinstance(first, BadInput) else first, ("Y",))
    two_columns = pd.concat([object_column(X), object_column(X)], axis=1)
    bad["dataframe_two_columns"] = BadInput(two_columns, names=("column", "columns"))
    return KernelSpec(make, X, Y, bad, list(invalid), scale, frame=object_column)


def inner(name="kernel", hyperparameter="lengthscale"):
    """Refused inner kernels of a combination, and a bad hyperparameter inside one."""
    return [
        Bad(name, 42),
        Bad(name, "a string"),
        Bad(f"{name}__{hyperparameter}", -1.0, names=(hyperparameter,)),
    ]


def modulation(X):
    return 1.0 + X[:, 0] ** 2


def squares(X):
    return np.column_stack([X, X**2])


def gaussian_score(X):
    """Fisher score of a unit Gaussian with mean 0.5 in each coordinate: x - 0.5."""
    return np.asarray(X, dtype=np.float64) - 0.5


def nan_valued(X):
    return np.full(len(X), NAN)


def wrong_length(X):
    return np.ones(len(X) + 1)


def three_dimensional(X):
    return np.asarray(X)[:, :, np.newaxis]


WRONG_ARD = [1.0, 2.0, 3.0]  # one length-scale per dimension, for 3 dimensions of 2
STRINGS = (["cat", "cart", "bat", "at", "tact"], ["car", "act"])
CORPUS = ["the cat sat", "a dog sat", "the dog ran", "a cat ran", "the end"]
DOCUMENTS = (["the cat sat", "a dog sat", "the dog ran"], ["cat and dog", "a cat"])
SETS = ([{1, 2}, {2, 3}, {1}, {1, 4, 5}], [{1}, {2, 5}])
_points = np.random.default_rng(2)
POINT_SETS = (
    [_points.uniform(0, 4, (m, 2)) for m in (3, 5, 4, 2)],
    [_points.uniform(0, 4, (m, 2)) for m in (4, 1)],
)
GAUSSIANS = (
    [([0.0, 0.0], 1.0), ([1.0, 0.0], [0.5, 2.0]), ([0.0, 1.0], [[1.0, 0.2], [0.2, 1.0]])],
    [([0.5, 0.5], 1.0), ([1.0, 1.0], 2.0)],
)
STRING_ITEMS = {"entry_not_a_str": ["ab", 3]}
NORMALIZE = values("normalize", ("no",))


def scale_sets(sets, factor):
    return [P * factor for P in sets]


def scale_gaussians(gaussians, factor):
    with np.errstate(over="ignore"):  # 1e160 squared is inf: a covariance the kernel refuses
        variance_factor = np.float64(factor) ** 2
    return [(np.multiply(m, factor), np.multiply(c, variance_factor)) for m, c in gaussians]


#: Two sets sharing 1100 elements: 2**1100 is beyond float64.
LARGE_SETS = [set(range(1100)), set(range(1200))]


KERNELS = {
    "kernels.Linear": vector_spec(kernels.Linear),
    "kernels.Polynomial": vector_spec(kernels.Polynomial, values("degree", (0, -1, 1.5, "2"))),
    "kernels.RBF": vector_spec(kernels.RBF, [Bad("lengthscale", WRONG_ARD)]),
    "kernels.Matern": vector_spec(
        kernels.Matern, [Bad("lengthscale", WRONG_ARD), *values("nu", (0.0, -1.0, NAN, INF))]
    ),
    "kernels.Exponential": vector_spec(kernels.Exponential, [Bad("lengthscale", WRONG_ARD)]),
    "kernels.RationalQuadratic": vector_spec(
        kernels.RationalQuadratic, [Bad("lengthscale", WRONG_ARD)]
    ),
    "kernels.Periodic": vector_spec(kernels.Periodic, [Bad("lengthscale", [1.0, 2.0])]),
    "kernels.Constant": vector_spec(kernels.Constant, mismatch_ok=True),
    "kernels.White": vector_spec(kernels.White, mismatch_ok=True),
    "kernels.PRMLKernel": vector_spec(kernels.PRMLKernel),
    "kernels.ArcSine": vector_spec(kernels.ArcSine, [Bad("weight_variance", WRONG_ARD)]),
    "kernels.Sigmoid": vector_spec(kernels.Sigmoid, values("bias", (NAN, INF, "0"))),
    "kernels.Sum": vector_spec(
        lambda: kernels.Sum(kernels.RBF(), kernels.Linear(0.5)), [*inner("k1"), Bad("k2", 42)]
    ),
    "kernels.Product": vector_spec(
        lambda: kernels.Product(kernels.RBF(), kernels.Periodic(period=3.0)),
        [*inner("k1"), Bad("k2", "a string")],
    ),
    "kernels.Modulated": vector_spec(
        lambda: kernels.Modulated(kernels.RBF(), modulation),
        [*inner(), Bad("f", "a string"), Bad("f", wrong_length), Bad("f", nan_valued)],
    ),
    "kernels.PolynomialOf": vector_spec(
        lambda: kernels.PolynomialOf(kernels.RBF(), [1.0, 0.5, 0.25]),
        [*inner(), *values("coefficients", ([-1.0, 1.0], [], [NAN], "abc"))],
    ),
    "kernels.ExpOf": vector_spec(
        lambda: kernels.ExpOf(kernels.Linear(0.1)), inner("kernel", "variance")
    ),
    "kernels.FeatureMapped": vector_spec(
        lambda: kernels.FeatureMapped(kernels.RBF(), squares),
        [*inner(), *values("feature_map", ("a string", nan_valued, three_dimensional))],
    ),
    "kernels.Bilinear": vector_spec(
        lambda: kernels.Bilinear([[2.0, 0.5], [0.5, 1.0]]),
        [
            Bad("A", [[1.0, 2.0], [0.0, 1.0]], label="asymmetric"),
            Bad("A", [[-1.0, 0.0], [0.0, -1.0]], label="negative_definite"),
            Bad("A", np.eye(3).tolist(), label="3x3"),
            Bad("A", [[NAN, 0.0], [0.0, 1.0]], label="nan"),
        ],
    ),
    "kernels.Subspace": vector_spec(
        lambda: kernels.Subspace(kernels.RBF(), [0]),
        [*inner(), *values("dims", ([5], [], [0.5], "a"))],
        mismatch_ok=True,
    ),
    "structured.SetIntersection": structured_spec(
        structured.SetIntersection,
        SETS,
        {
            "entry_not_iterable": [{1}, 5],
            "unhashable_element": [{1}, [[1]]],
            "sets_sharing_1100_elements": BadInput(LARGE_SETS, names=("X", "sets")),
            "sets_sharing_1100_elements_diag": BadInput(LARGE_SETS, diag=True),
        },
    ),
    "structured.SubsequenceString": structured_spec(
        structured.SubsequenceString,
        STRINGS,
        STRING_ITEMS,
        [*count("order"), *values("decay", (0.0, -0.5, 1.5, NAN)), *NORMALIZE],
    ),
    "structured.Spectrum": structured_spec(
        lambda: structured.Spectrum(length=2), STRINGS, STRING_ITEMS, [*count("length"), *NORMALIZE]
    ),
    "structured.AllSubstrings": structured_spec(
        structured.AllSubstrings,
        STRINGS,
        STRING_ITEMS,
        [*count("max_length"), *values("decay", (0.0, -1.0, NAN, INF)), *NORMALIZE],
    ),
    "structured.TfidfCosine": structured_spec(
        lambda: structured.TfidfCosine(CORPUS),
        DOCUMENTS,
        {"entry_not_a_document": ["a b", 3]},
        values("corpus", ([], "a single text", [3], 42)),
    ),
    "structured.PyramidMatch": structured_spec(
        structured.PyramidMatch,
        POINT_SETS,
        {
            "nan_point": [spoiled(POINT_SETS[0][1], NAN)],
            "negative_point": BadInput([-POINT_SETS[0][1]], names=("X", "coordinates")),
            "mixed_dimensions": [POINT_SETS[0][0], np.ones((2, 3))],
            "Y_of_other_dimension": BadInput(
                POINT_SETS[0], [np.ones((2, 3))], names=("X", "Y", "dimension")
            ),
        },
        [*values("bin_size", (0.0, -1.0, NAN)), *values("shift", (-1.0, WRONG_ARD)), *NORMALIZE],
        scale=scale_sets,
    ),
    "structured.ProbabilityProduct": structured_spec(
        structured.ProbabilityProduct,
        GAUSSIANS,
        {
            "nan_mean": [([NAN, 0.0], 1.0)],
            "negative_covariance": [([0.0, 0.0], -1.0)],
            "asymmetric_covariance": [([0.0, 0.0], [[1.0, 0.5], [0.0, 1.0]])],
            "indefinite_covariance": [([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]])],
            "entry_not_a_pair": [5],
            "Y_of_other_dimension": BadInput(
                GAUSSIANS[0], [([0.0, 0.0, 0.0], 1.0)], names=("X", "Y", "dimension")
            ),
        },
        values("rho", (0.0, -1.0, NAN, INF)),
        scale=scale_gaussians,
    ),
    # the Fisher kernel hands its inputs to the user's score function, so what it can check
    # are the scores: numeric inputs, but no sparse or string ones (that would test
    # gaussian_score)
    "structured.Fisher": KernelSpec(
        lambda: structured.Fisher(gaussian_score, information=[[2.0, 0.3], [0.3, 1.0]]),
        *VECTORS,
        numeric_bad_inputs(*VECTORS, own_inputs=False),
        [
            Bad("score", "a string"),
            Bad("information", np.eye(3).tolist(), label="3x3"),
            Bad("information", [[1.0, 0.5], [0.0, 1.0]], label="asymmetric"),
            Bad("information", [[-1.0, 0.0], [0.0, -1.0]], label="negative_definite"),
            Bad("information", [[NAN, 0.0], [0.0, 1.0]], label="nan"),
        ],
        scale=np.multiply,
    ),
}


def kernel_invalid(spec):
    """The table's refused values plus, from the class, every hyperparameter at -1, NaN and
    inf (and 0 unless zero switches it off) and malformed ``limits``."""
    kernel = spec.make()
    bad = list(spec.invalid)
    hyperparameters = type(kernel)._hyperparameters
    for h in hyperparameters:
        bad += values(h.name, (-1.0, NAN, INF) if h.may_be_zero else (0.0, -1.0, NAN, INF))
    if "limits" in kernel.get_params(deep=False):
        bad += [
            Bad("limits", {"no_such": "fixed"}),
            Bad("limits", {hyperparameters[0].name: (1.0, 0.1)}, label="low_above_high"),
            Bad("limits", "fixed"),
        ]
    return bad


def kernel_outputs(kernel, X):
    """Gram matrix, its diagonal and its gradient, with the problems of their shapes."""
    n = len(X)
    K = kernel(X)
    diag = kernel.diag(X)
    K_again, dK = kernel(X, eval_gradient=True)
    expected = {"K": (n, n), "diag": (n,), "dK": (n, n, len(kernel.theta))}
    outputs = {"K": K, "diag": diag, "dK": dK}
    problems = [
        f"{name} has shape {np.shape(outputs[name])}, not {shape}"
        for name, shape in expected.items()
        if np.shape(outputs[name]) != shape
    ]
    return outputs, problems, K_again


def baseline_action(spec):
    def action():
        kernel = spec.make()
        K, C = kernel(spec.X), kernel(spec.X, spec.Y)
        problems = []
        if np.shape(K) != (len(spec.X),) * 2 or np.shape(C) != (len(spec.X), len(spec.Y)):
            problems.append(f"k(X) has shape {np.shape(K)}, k(X, Y) {np.shape(C)}")
        elif not np.allclose(K, np.transpose(K)):
            problems.append("k(X) is not symmetric")
        return {"k(X)": K, "k(X, Y)": C}, problems

    return action


def gradient_action(spec):
    """``k(X, eval_gradient=True)``: K equal to ``k(X)`` and dK of shape (n, n, len(theta))."""

    def action():
        outputs, problems, K_again = kernel_outputs(spec.make(), spec.X)
        if not problems and not np.allclose(K_again, outputs["K"]):
            problems.append("K from eval_gradient=True differs from k(X)")
        return outputs, problems

    return action


def diag_action(spec):
    def action():
        outputs, problems, _ = kernel_outputs(spec.make(), spec.X)
        if not problems and not np.allclose(outputs["diag"], np.diag(outputs["K"])):
            problems.append("diag(X) differs from the diagonal of k(X)")
        return outputs, problems

    return action


def bad_input_action(spec, bad):
    def evaluate(kernel, X, Y):
        return kernel.diag(X) if bad.diag else kernel(X, Y)

    def action():
        kernel = spec.make()
        K = evaluate(kernel, bad.X, bad.Y)
        problems = ["accepted the inputs"]
        if bad.same_as is not None:
            reference = evaluate(kernel, *bad.same_as)
            same = np.shape(K) == np.shape(reference) and np.allclose(K, reference)
            problems = [] if same else ["differs from the result on valid inputs"]
        return {"K": K}, problems

    return action


def scaled_action(spec, factor):
    """Gram matrix, diagonal and gradient of scaled inputs; the diagonal must agree with the
    Gram matrix's, as at the inputs' own scale (or the kernel refuses the scale)."""

    def action():
        outputs, problems, _ = kernel_outputs(spec.make(), spec.scale(spec.X, factor))
        finite = all_finite(outputs["K"]) and all_finite(outputs["diag"])  # else judged so
        if not problems and finite and not np.allclose(outputs["diag"], np.diag(outputs["K"])):
            problems.append("diag(X) differs from the diagonal of k(X)")
        return outputs, problems

    return action


def dataframe_kernel_action(spec):
    """``k(X)`` and ``k(X, Y)`` of DataFrames (see ``KernelSpec.frame``): what arrays give."""

    def action():
        kernel = spec.make()
        K, C = kernel(spec.frame(spec.X)), kernel(spec.frame(spec.X), spec.frame(spec.Y))
        same = same_outputs(K, kernel(spec.X)) and same_outputs(C, kernel(spec.X, spec.Y))
        return {"k(X)": K, "k(X, Y)": C}, [] if same else ["differs from the result on arrays"]

    return action


def operator_action(spec, operation):
    def action():
        result = operation(spec.make())
        return {}, [f"returned {result!r} instead of raising"]

    return action


#: Factors on the inputs: moderate, and far enough that squares overflow or underflow.
INPUT_SCALES = (1e-160, 1e-8, 1e8, 1e160)
OPERATORS = {
    "add_str": lambda k: k + "a",
    "radd_str": lambda k: "a" + k,
    "mul_str": lambda k: k * "a",
    "rmul_str": lambda k: "a" * k,
}


def kernel_cases(spec):
    """``{case name: (action, Expect)}`` for every case that applies to this kernel."""
    cases = {
        "baseline": (baseline_action(spec), Expect(frozenset({CORRECT}))),
        "gradient": (gradient_action(spec), Expect(frozenset({CORRECT}))),
        "diag_matches_gram": (diag_action(spec), Expect(frozenset({CORRECT}))),
        "dataframe_X": (dataframe_kernel_action(spec), Expect(frozenset({CORRECT}))),
    }
    for name, bad in spec.bad_inputs.items():
        allowed = {CLEAR} if bad.same_as is None else {CLEAR, CORRECT}
        cases[name] = (bad_input_action(spec, bad), Expect(frozenset(allowed), bad.names))
    if spec.scale is not None:
        for factor in INPUT_SCALES:
            expect = Expect(frozenset({CLEAR, CORRECT}), ("X", "scale"))
            cases[f"X_times_{factor:g}"] = (scaled_action(spec, factor), expect)
    for name, operation in OPERATORS.items():
        # the message says what would work: a kmlib kernel or a number
        expect = Expect(
            frozenset({CLEAR}), ("number",), errors=(TypeError,), tolerated=("unsupported operand",)
        )
        cases[name] = (operator_action(spec, operation), expect)
    negative = Expect(frozenset({CLEAR}), ("c", "positive"))
    cases["mul_negative"] = (operator_action(spec, lambda k: k * -1.0), negative)
    return cases


def kernel_params(cases_of):
    return [
        pytest.param(kernel_id, name, id=f"{kernel_id}-{name}")
        for kernel_id in KERNEL_CLASSES
        if kernel_id in KERNELS
        for name in cases_of(KERNELS[kernel_id])
    ]


# ====================================================================== the hang detector
def test_hang_detector_catches_a_loop_and_ignores_waiting():
    """A loop that never ends is a hang; time spent off the CPU (as on a loaded machine, where a
    case waits for a core) is not counted."""
    import time

    with pytest.raises(Hang, match="CPU time"), hang_detector(0.2):
        while True:
            pass
    with hang_detector(0.2):
        time.sleep(0.5)  # half a second of wall clock, almost no CPU: no alarm


# ====================================================================== the tables cover kmlib
def test_tables_cover_every_public_estimator_and_kernel():
    assert sorted(set(ESTIMATOR_CLASSES) - set(ESTIMATORS)) == [], "estimators without an entry"
    assert sorted(set(ESTIMATORS) - set(ESTIMATOR_CLASSES)) == [], "entries of no estimator"
    assert sorted(set(KERNEL_CLASSES) - set(KERNELS)) == [], "kernels without an entry"
    assert sorted(set(KERNELS) - set(KERNEL_CLASSES)) == [], "entries of no kernel"


@pytest.mark.parametrize("est_id", [e for e in ESTIMATOR_CLASSES if e in ESTIMATORS])
def test_tables_cover_every_estimator_parameter(est_id):
    parameters = set(ESTIMATOR_CLASSES[est_id]().get_params(deep=False))
    ids = [bad.id for bad in ESTIMATORS[est_id].invalid]
    assert len(ids) == len(set(ids)), "two invalid values with one test id"
    refused = {bad.name for bad in ESTIMATORS[est_id].invalid}
    assert sorted(parameters - refused) == [], "parameters without an invalid value"
    assert sorted(refused - parameters) == [], "invalid values of no parameter"


@pytest.mark.parametrize("kernel_id", [k for k in KERNEL_CLASSES if k in KERNELS])
def test_tables_cover_every_kernel_parameter(kernel_id):
    spec = KERNELS[kernel_id]
    kernel = spec.make()
    assert type(kernel) is KERNEL_CLASSES[kernel_id], "the entry builds another class"
    parameters = set(kernel.get_params(deep=False))
    ids = [bad.id for bad in kernel_invalid(spec)]
    assert len(ids) == len(set(ids)), "two invalid values with one test id"
    refused = {bad.name.split("__")[0] for bad in kernel_invalid(spec)}
    assert sorted(parameters - refused) == [], "parameters without an invalid value"
    assert sorted(refused - parameters) == [], "invalid values of no parameter"


# ====================================================================== the estimator cases
@pytest.mark.parametrize("est_id, case", estimator_params(estimator_cases))
def test_estimator_case(request, est_id, case):
    action, expect = estimator_cases(ESTIMATOR_CLASSES[est_id], ESTIMATORS[est_id])[case]
    check_case(request, action, expect)


def invalid_values(cls, spec):
    return {bad.id: bad for bad in spec.invalid}


@pytest.mark.parametrize("est_id, bad_id", estimator_params(invalid_values))
def test_estimator_invalid_parameter(request, est_id, bad_id):
    cls, spec = ESTIMATOR_CLASSES[est_id], ESTIMATORS[est_id]
    bad = invalid_values(cls, spec)[bad_id]
    fit_and_predict = fitted(cls, spec, data_for(spec.kind), **bad.extra, **{bad.name: bad.value})

    def action():
        outputs, problems = fit_and_predict()
        return outputs, [*problems, f"accepted {bad.id}"]

    check_case(request, action, Expect(frozenset({CLEAR}), bad.message_names))


@pytest.mark.parametrize("est_id, source, fault, timing", FAULTY_KERNEL_CASES)
def test_estimator_faulty_kernel(request, est_id, source, fault, timing):
    """A kernel that returns NaN, inf, the wrong shape or None: once the fault has fired the
    estimator must stop with a clear error naming the kernel; if it never fired, the result
    must be correct."""
    cls, spec = ESTIMATOR_CLASSES[est_id], ESTIMATORS[est_id]
    clean_calls, wait_for_fit = TIMINGS[timing]
    switch = SWITCHES[request.node.name] = Switch(fault, clean_calls, armed=not wait_for_fit)
    kernel = FaultyRBF(request.node.name) if source == "kmlib" else plain_faulty(request.node.name)
    data = data_for(spec.kind)

    def action():
        estimator = fit(cls(**{**spec.params, "kernel": kernel}), data)
        switch.armed = True
        outputs = outputs_of(estimator, data.X_test)
        return outputs, result_problems(estimator, outputs, len(data.X_test))

    try:
        outcome = run_case(action, Expect(frozenset(), ("kernel",)))
    finally:
        del SWITCHES[request.node.name]
    if switch.fired and outcome.kind == CORRECT:
        outcome = Outcome(WRONG, f"the kernel's {fault} values were used without notice")
    allowed = {CLEAR} if switch.fired else {CORRECT}
    assert_outcome(request, outcome, allowed, f"; the fault fired: {switch.fired}")


# ====================================================================== the kernel cases
@pytest.mark.parametrize("kernel_id, case", kernel_params(kernel_cases))
def test_kernel_case(request, kernel_id, case):
    action, expect = kernel_cases(KERNELS[kernel_id])[case]
    check_case(request, action, expect)


def kernel_invalid_values(spec):
    return {bad.id: bad for bad in kernel_invalid(spec)}


@pytest.mark.parametrize("kernel_id, bad_id", kernel_params(kernel_invalid_values))
def test_kernel_invalid_parameter(request, kernel_id, bad_id):
    """Every evaluation (Gram, diagonal, gradient, theta, bounds) with the bad value; the first
    that raises decides."""
    spec = KERNELS[kernel_id]
    bad = kernel_invalid_values(spec)[bad_id]

    def action():
        kernel = spec.make().set_params(**{bad.name: bad.value})
        outputs = {
            "k(X)": kernel(spec.X),
            "k.diag(X)": kernel.diag(spec.X),
            "dK": kernel(spec.X, eval_gradient=True)[1],
            "theta": kernel.theta,
            "bounds": kernel.bounds,
        }
        return outputs, [f"accepted {bad.id}"]

    check_case(request, action, Expect(frozenset({CLEAR}), bad.message_names))


# ====================================================================== summary
def summary_lines():
    counts = Counter(kind for kind, _ in OUTCOMES.values())
    failing = Counter(kind for kind, passed in OUTCOMES.values() if not passed)
    n_failed = sum(failing.values())
    lines = [
        f"boundary battery: {len(OUTCOMES)} cases, {len(OUTCOMES) - n_failed} passed, "
        + f"{n_failed} failed",
        f"  {'outcome':16s}{'cases':>7s}{'failing':>9s}",
    ]
    lines += [f"  {kind:16s}{counts[kind]:7d}{failing[kind]:9d}" for kind in OUTCOME_CLASSES]
    return lines


@pytest.fixture(scope="module", autouse=True)
def compiled_loops():
    """Compile kmlib's numba loops (or load them from numba's cache) before any case is timed:
    the first call of each pays the compilation, several seconds on a fresh clone, which the
    hang detector is not meant to count."""
    X = np.linspace(0.0, 1.0, 30)[:, np.newaxis]
    t = np.sin(6.0 * X[:, 0])
    labels = (t > 0).astype(int)
    narrow = kernels.RBF(lengthscale=0.1)
    for model, target in ((kmlib.svm.SVC(), labels), (kmlib.svm.NuSVC(), labels),
                          (kmlib.svm.SVR(), t), (kmlib.rvm.RVR(narrow), t),
                          (kmlib.rvm.RVC(narrow), labels)):
        model.fit(X, target)


@pytest.fixture(scope="module", autouse=True)
def outcome_summary(request):
    """After the module's last test: the totals per outcome class, printed past the output
    capture and written to ``_build/boundaries-summary.txt`` when ``_build`` exists."""
    yield
    if not OUTCOMES:
        return
    lines = summary_lines()
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else nullcontext():
        print("\n" + "\n".join(lines))
    build = Path(__file__).resolve().parents[1] / "_build"
    if build.is_dir():
        (build / "boundaries-summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
