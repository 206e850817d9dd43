"""kmlib: the kernel methods of the companion book, small, tested and fast.

Modules (one algorithm each):

* :mod:`kmlib.kernels` — kernel functions, their hyperparameter gradients and the closure rules
  of PRML (6.13)–(6.22);
* :mod:`kmlib.structured` — kernels on sets, strings, documents and distributions, and the Fisher
  kernel;
* :mod:`kmlib.gp` — Gaussian-process regression, its evidence and type-II maximum likelihood;
* :mod:`kmlib.laplace` — Gaussian-process classification with the Laplace approximation;
* :mod:`kmlib.kernel_trick` — kernel ridge regression (dual and primal), kernel PCA, and nearest
  neighbours and K-medoids with feature-space distances;
* :mod:`kmlib.kernel_machines` — L1VM and L2VM: regression and logistic/softmax classification
  on kernel features with L1 or L2 penalties (MLAPP 14.3);
* :mod:`kmlib.smoothing` — smoothing kernels, kernel density estimation, Nadaraya–Watson kernel
  regression and LOWESS;
* :mod:`kmlib.smo` — the SMO solver (second-order working sets) for the SVM dual family;
* :mod:`kmlib.svm` — support vector classifiers, regressors and the one-class SVM on that solver;
* :mod:`kmlib.rvm` — relevance vector regression and classification (re-estimation and the fast
  sequential algorithm);
* :mod:`kmlib.losses` — the loss functions of Chu (2003) and their noise models (SILF,
  trigonometric loss);
* :mod:`kmlib.bsvr` — Bayesian support vector regression with the SILF;
* :mod:`kmlib.btsvc` — the Bayesian trigonometric support vector classifier;
* :mod:`kmlib.datasets` — seeded synthetic data sets of the book and the small real data sets
  shipped in ``kmlib/data``;
* :mod:`kmlib.book` — what the book's pages use besides the models: the figure style and
  ``glue``, which runs with or without myst-nb.
"""

from . import (
    book,
    bsvr,
    btsvc,
    datasets,
    gp,
    kernel_machines,
    kernel_trick,
    kernels,
    laplace,
    losses,
    rvm,
    smo,
    smoothing,
    structured,
    svm,
)

__all__ = [
    "book",
    "bsvr",
    "btsvc",
    "datasets",
    "gp",
    "kernel_machines",
    "kernel_trick",
    "kernels",
    "laplace",
    "losses",
    "rvm",
    "smo",
    "smoothing",
    "structured",
    "svm",
]
__version__ = "0.1.0"
