"""kmlib: the kernel methods of the companion book, small, tested and fast.

Modules (one algorithm each):

* :mod:`kmlib.kernels` — kernel functions, their hyperparameter gradients and the closure rules
  of PRML (6.13)–(6.22);
* :mod:`kmlib.structured` — kernels on sets, strings, documents and distributions, and the Fisher
  kernel.
"""

from . import kernels, structured

__all__ = ["kernels", "structured"]
__version__ = "0.1.0"
