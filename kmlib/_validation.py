"""Input checks shared by kmlib's kernels and estimators.

Every check raises :class:`ValueError` with a message that names the argument and says what was
expected, so that a reader who passes the wrong thing learns what to fix.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import validation as sklearn_validation
from sklearn.utils.multiclass import check_classification_targets

__all__ = [
    "as_inputs",
    "as_generator",
    "check_positive",
    "check_real",
    "check_positive_int",
    "check_non_negative_int",
    "check_bool",
    "check_matching_features",
    "check_symmetric",
    "all_finite",
    "validate_data",
    "class_labels",
    "binary_targets",
    "binary_training_data",
]

#: Estimators that take ``kernel="precomputed"``, named where string inputs reach another one.
PRECOMPUTED_ESTIMATORS = "kmlib.svm's SVC, NuSVC, SVR, NuSVR and OneClassSVM"


def as_inputs(X, name="X"):
    """Return ``X`` as a finite float64 array of shape ``(n, d)``.

    Parameters
    ----------
    X : array_like of shape (n, d) or (n,)
        Input points. A one-dimensional array is read as ``n`` points in one dimension.
    name : str
        Name of the argument, used in error messages.

    Returns
    -------
    X : ndarray of shape (n, d)
    """
    if hasattr(X, "toarray"):  # scipy.sparse
        raise TypeError(
            f"{name} is a sparse matrix; kmlib's kernels take dense arrays: pass {name}.toarray()"
        )
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        hint = (
            "; for strings use a string kernel of kmlib.structured (Spectrum, AllSubstrings, "
            "SubsequenceString, TfidfCosine)"
            if _text_entry(X) is not None
            else ""
        )
        raise ValueError(
            f"{name} must be a numeric array of shape (n, d); got {type(X).__name__}{hint}"
        ) from None
    if X.ndim == 1:
        X = X[:, np.newaxis]
    if X.ndim != 2:
        raise ValueError(f"{name} must have shape (n, d) or (n,); got an array of shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"{name} is empty: it needs at least one point")
    if not np.all(np.isfinite(X)):
        bad = "NaN" if np.isnan(X).any() else "infinite"
        raise ValueError(f"{name} contains {bad} values; kernels need finite inputs")
    return X


def check_matching_features(X, Y, xname="X", yname="Y"):
    """Raise if two input arrays of shape ``(n, d)`` and ``(m, d')`` have ``d != d'``."""
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"{xname} has {X.shape[1]} features but {yname} has {Y.shape[1]}; "
            "a kernel compares points of the same dimension"
        )


def all_finite(values):
    """Whether every entry of the float array ``values`` is finite.

    A finite sum settles it in one pass, without a temporary array; only a sum that is not
    (a NaN, an infinity, or a sum that overflows) needs the elementwise test.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.sum(values)
    return bool(np.isfinite(total)) or bool(np.all(np.isfinite(values)))


def check_symmetric(A, name):
    """Raise unless the matrix ``A`` (an ndarray of shape (p, p)) is finite and symmetric.

    Symmetric up to a relative rounding error of 1e-12: a factorisation reads one triangle
    only, so a matrix that is not symmetric would be used as another one without notice.
    """
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} must be a finite symmetric matrix; it holds NaN or inf")
    if not np.allclose(A, A.T, rtol=1e-12, atol=0):
        gap = np.max(np.abs(A - A.T))
        raise ValueError(
            f"{name} must be a finite symmetric matrix; its entries (i, j) and (j, i) differ "
            f"by up to {gap:.3g}"
        )


def _text_entry(X):
    """The first entry of ``X`` that is a string and no number ("cat", not "1.5"), shortened
    for a message; None if there is none."""
    dtypes = getattr(X, "dtypes", None)  # a DataFrame has one per column
    dtypes = [getattr(X, "dtype", None)] if dtypes is None else list(dtypes)
    if all(dtype is not None and dtype.kind in "biufc" for dtype in dtypes):
        return None  # numbers: no entry to look at (and none to copy, however many)
    try:
        entries = np.asarray(X, dtype=object).ravel()
    except (TypeError, ValueError):  # ragged nesting
        return None
    for entry in entries:
        if isinstance(entry, (str, bytes)):
            try:
                float(entry)
            except ValueError:
                return entry if len(entry) <= 40 else entry[:37] + "..."
    return None


def validate_data(estimator, X="no_validation", y="no_validation", *, precomputed=False, **kwargs):
    """scikit-learn's ``validate_data``, and a way forward where ``X`` holds strings.

    The checks, the conversion and the bookkeeping (``n_features_in_``, and
    ``feature_names_in_`` for a pandas DataFrame) are scikit-learn's
    (:func:`sklearn.utils.validation.validate_data`), so every kmlib estimator takes and
    remembers its inputs as a scikit-learn estimator does. Strings fail its numeric
    conversion with "could not convert string to float"; here they get a message that points
    to the route that works: a string kernel's Gram matrix, passed with
    ``kernel="precomputed"``.

    Parameters
    ----------
    estimator : estimator
        The estimator being fitted or applied.
    X, y : array_like or "no_validation", default="no_validation"
        As in scikit-learn.
    precomputed : bool, default=False
        Whether ``estimator`` takes ``kernel="precomputed"``, so that the message can say so.
    **kwargs
        Passed on to scikit-learn's ``validate_data``.

    Returns
    -------
    X, or (X, y)
        What scikit-learn's ``validate_data`` returns.
    """
    try:
        return sklearn_validation.validate_data(estimator, X, y, **kwargs)
    except ValueError:
        text = None if isinstance(X, str) else _text_entry(X)
        if text is None:
            raise
    model = type(estimator).__name__
    if precomputed:
        route = (
            f"{model}(kernel='precomputed').fit(k(X_train), y), then predict(k(X_test, X_train))"
        )
    else:
        route = (
            f"{model} takes numeric arrays only; an estimator with kernel='precomputed' "
            f"({PRECOMPUTED_ESTIMATORS}) fits k(X_train) and predicts from k(X_test, X_train)"
        )
    raise ValueError(
        f"X holds strings (such as {text!r}) where {model} needs numbers. For a kernel on "
        f"strings k, such as kmlib.structured.Spectrum, use its Gram matrix: {route}"
    )


def class_labels(y):
    """The classes in ``y`` and each sample's index into them, for every kmlib classifier.

    ``y`` passes scikit-learn's ``check_classification_targets`` (which refuses continuous
    targets), and labels that mix strings with numbers are refused first: they cannot be sorted
    into ``classes_`` (scikit-learn refuses them in ``unique_labels`` for the same reason).

    Parameters
    ----------
    y : ndarray of shape (n,)
        Class labels, as validated by :func:`validate_data`.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The sorted labels.
    codes : ndarray of int, shape (n,)
        ``classes[codes]`` is ``y``.
    """
    if y.dtype == object:
        text = np.fromiter((isinstance(label, (str, bytes)) for label in y), bool, y.size)
        if text.any() and not text.all():
            raise ValueError(
                f"y mixes strings with labels of another type (such as {y[text][0]!r} and "
                f"{y[~text][0]!r}); class labels must be all strings or all numbers, for "
                "example y.astype(str)"
            )
    check_classification_targets(y)
    return np.unique(y, return_inverse=True)


def check_positive(value, name, allow_zero=False):
    """Return ``value`` as a float or float array after checking that it is finite and positive.

    Parameters
    ----------
    value : float or array_like
        A hyperparameter value.
    name : str
        Its name, used in the error message.
    allow_zero : bool
        Accept zero (for additive terms such as a bias that may be switched off).
    """
    which = "non-negative" if allow_zero else "positive"
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a {which} number; got {value!r}")
    if isinstance(value, numbers.Real):
        arr = np.float64(value)
    elif _numeric_kind(value):
        arr = np.asarray(value, dtype=np.float64)
    else:  # strings, objects, ragged lists
        raise ValueError(f"{name} must be a {which} number or an array of them; got {value!r}")
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got {value!r}")
    if np.any(arr < 0) or (not allow_zero and np.any(arr == 0)):
        raise ValueError(f"{name} must be {which}; got {value!r}")
    return arr


def _numeric_kind(value):
    """Whether ``value`` is an int or float array (or converts to one)."""
    try:
        return np.asarray(value).dtype.kind in "iuf"
    except ValueError:  # a ragged sequence
        return False


def check_positive_int(value, name, n_samples=None):
    """Return ``value`` as an int after checking that it is an integer >= 1 (not a bool).

    Parameters
    ----------
    value : object
        The parameter value (a count: iterations, neighbours, a substring length).
    name : str
        Its name, used in the error message.
    n_samples : int or None, default=None
        The number of training samples, where ``value`` counts some of them (components,
        clusters) and so may not exceed it.
    """
    if n_samples is None:
        return _check_int(value, name, 1, "a positive integer")
    value = _check_int(value, name, 1, f"an integer between 1 and the {n_samples} samples")
    if value > n_samples:
        raise ValueError(f"{name} must be at most the {n_samples} samples; got {value!r}")
    return value


def check_non_negative_int(value, name, allow_bool=False):
    """Return ``value`` as an int after checking that it is an integer >= 0.

    ``allow_bool`` accepts True and False as 1 and 0 (for ``verbose``).
    """
    if allow_bool and isinstance(value, (bool, np.bool_)):
        return int(value)
    return _check_int(value, name, 0, "a non-negative integer")


def check_bool(value, name):
    """Return ``value`` as a bool after checking that it is one (a flag such as ``optimize``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def _check_int(value, name, minimum, expected):
    if isinstance(value, bool) or not (isinstance(value, numbers.Integral) and value >= minimum):
        raise ValueError(f"{name} must be {expected}; got {value!r}")
    return int(value)


def as_generator(random_state):
    """A random generator from a seed, a ``Generator``, a ``RandomState`` or ``None``.

    ``RandomState`` objects are passed through (they have the same ``standard_normal`` and
    ``uniform`` methods); anything else goes to :func:`numpy.random.default_rng`.
    """
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    seed_like = (np.random.SeedSequence, np.random.BitGenerator)
    entries = random_state if isinstance(random_state, (list, tuple)) else [random_state]
    if not (
        random_state is None
        or isinstance(random_state, seed_like)
        or (entries and all(_is_seed_int(entry) for entry in entries))
    ):
        raise ValueError(
            "random_state must be None, a non-negative int (or a list of them), a numpy "
            f"Generator or RandomState; got {random_state!r}"
        )
    return np.random.default_rng(random_state)


def _is_seed_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0


def check_real(value, name, low=None, high=None, low_open=True, high_open=False):
    """Return ``value`` as a float after checking that it is a finite real number in range.

    Parameters
    ----------
    value : object
        The parameter value.
    name : str
        Its name, used in the error message.
    low, high : float, optional
        Bounds of the allowed interval; ``None`` leaves that side open-ended.
    low_open, high_open : bool
        Whether the bound itself is excluded (``C > 0`` is ``low=0``, ``low_open=True``).
    """
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number; got {value!r}")
    if low is not None and (value <= low if low_open else value < low):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}; got {value!r}")
    if high is not None and (value >= high if high_open else value > high):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}; got {value!r}")
    return float(value)


def binary_targets(y, model):
    """The two labels in ``y`` and the targets as 0.0 / 1.0, or a ValueError naming ``model``.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Class labels (checked here by :func:`class_labels`).
    model : str
        Name of the estimator, used in the error message.

    Returns
    -------
    classes : ndarray of shape (2,)
        The sorted labels; ``t = 1`` stands for ``classes[1]``.
    t : ndarray of shape (n,)
    """
    classes, t = class_labels(y)
    if classes.size != 2:
        n = classes.size
        raise ValueError(
            f"Only binary classification is supported: {model} needs exactly two classes in y; "
            f"got {n} class{'es' if n > 1 else ''} "
            f"({classes[:5].tolist()}{'...' if n > 5 else ''})"
        )
    return classes, t.astype(np.float64)


def binary_training_data(estimator, X, y):
    """Training inputs and two-class targets of a binary classifier's ``fit``.

    Validates ``X`` and ``y`` as scikit-learn does (and records ``n_features_in_``), sets
    ``estimator.classes_`` to the two labels and returns the targets as 0.0 / 1.0.

    Returns
    -------
    X : ndarray of shape (n, d)
    t : ndarray of shape (n,)
        1.0 for ``classes_[1]``.
    """
    X, y = validate_data(estimator, X, y, dtype=np.float64)
    estimator.classes_, t = binary_targets(y, type(estimator).__name__)
    return X, t
