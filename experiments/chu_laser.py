"""Figure 4.3 of Chu (2003, 4.5.3): BSVR's one-step forecasts of the Santa Fe laser series.

Each input is a window of eight consecutive values of series A, the target the value that follows.
The thesis trains on the 992 windows whose targets lie among the first 1000 values and forecasts
the next 100 one step ahead. ``--windows`` trains on the last N of those 992 instead (the book's
page uses 500, and says why). Inputs and target are standardised with the training windows'
means and standard deviations; BSVR with beta = 0.3 starts from the thesis's point. The series is
fixed, so one split is the whole protocol.
"""

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from experiments.model_selection import at_stored, covariance, fitted
from experiments.runner import Experiment, Task
from kmlib.bsvr import BayesianSVR
from kmlib.datasets import santafe_laser

LAGS = 8  #: values in an input window
TRAIN_END = 1000  #: the training targets lie among the series' first TRAIN_END values
BETA = 0.3


def laser_windows(n_windows):
    """The last ``n_windows`` training windows and the 100 test windows.

    Returns
    -------
    X_train : ndarray of shape (n_windows, 8)
    t_train : ndarray of shape (n_windows,)
    X_test : ndarray of shape (100, 8)
    t_test : ndarray of shape (100,)
    """
    windows = np.lib.stride_tricks.sliding_window_view(santafe_laser(), LAGS + 1)
    X, t = windows[:, :LAGS], windows[:, LAGS]
    train = np.arange(len(t)) + LAGS < TRAIN_END
    if not 1 <= n_windows <= train.sum():
        raise ValueError(f"there are {train.sum()} training windows, asked for {n_windows}")
    return X[train][-n_windows:], t[train][-n_windows:], X[~train], t[~train]


def fit_laser(X_train, t_train, at=None):
    """BSVR on the standardised windows; the model and a forecaster in the series' units.

    With ``at`` (stored hyperparameters, ``model_selection.fitted``) BSVR is fitted there, not
    optimised.

    Returns
    -------
    model : BayesianSVR
    forecast : callable
        ``forecast(X)`` -> (mean, sd), each of shape (m,): the predictive mean and the standard
        deviation of a new target, (4.46) plus the SILF noise variance (2.33).
    """
    mean, std = X_train.mean(0), X_train.std(0)
    t_mean, t_std = t_train.mean(), t_train.std()
    model = BayesianSVR(kernel=covariance(LAGS, False), beta=BETA)
    if at is not None:
        model = at_stored(model, at)
    model.fit((X_train - mean) / std, (t_train - t_mean) / t_std)

    def forecast(X):
        mean_z, std_z = model.predict((X - mean) / std, return_std=True, include_noise=True)
        return t_mean + t_std * mean_z, t_std * std_z

    return model, forecast


def figure_fit(windows, at=None):
    """Fit on the last ``windows`` training windows; hyperparameters, errors and warnings.

    With ``at``, the ``hyperparameters`` of a stored record: the same fit at them, not optimised.
    """
    X_train, t_train, X_test, t_test = laser_windows(windows)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model, forecast = fit_laser(X_train, t_train, at)
    seconds = time.perf_counter() - start
    prediction, spread = forecast(X_test)
    errors = t_test - prediction
    return {
        "C": model.C_,
        "epsilon": model.epsilon_,
        "kappa": model.kernel_.k1.lengthscale**-2,
        "kappa_b": model.kernel_.k2.variance,
        "ridge": 2 * BETA * model.epsilon_ / model.C_,  # of the dual, next to kappa_b
        "neg_log_evidence": -model.log_marginal_likelihood_,
        "SV_M": model.off_bound_.size,
        "SV_C": model.on_bound_.size,
        "nmse": np.mean(errors**2) / np.var(t_test),
        "inside_2sd": np.mean(np.abs(errors) <= 2 * spread),
        "warnings": sorted({str(warning.message) for warning in caught}),
        "seconds": seconds,
        "hyperparameters": fitted(model),
    }


def window_count(text):
    value = int(text)
    if not 10 <= value <= TRAIN_END - LAGS:
        raise ValueError(f"a number of windows from 10 to {TRAIN_END - LAGS}, got {value}")
    return value


def _phase(options, results):
    return [Task(f"windows-{n}", figure_fit, {"windows": n}) for n in options["windows"]]


def _summarise(options, results):
    columns = ("C", "epsilon", "kappa", "kappa_b", "ridge", "SV_M", "SV_C", "nmse", "inside_2sd",
               "seconds")
    lines = ["Figure 4.3: windows " + " ".join(columns) + " warnings"]
    for n in options["windows"]:
        row = results[f"windows-{n}"]["result"]
        lines.append(f"{n:4d} " + " ".join(f"{row[c]:.4g}" for c in columns)
                     + f" {len(row['warnings'])}")
    return "\n".join(lines)


EXPERIMENTS = [
    Experiment("figure-4.3", "Chu (2003) Figure 4.3: BSVR's one-step forecasts of the Santa Fe "
               "laser series, on all 992 training windows and on the last 500", 1, (_phase,),
               _summarise, {"windows": (window_count, [992, 500], "numbers of training windows")}),
]
