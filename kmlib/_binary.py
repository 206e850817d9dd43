"""Two-class models whose class is the sign of a latent function.

GP classification with the Laplace approximation (PRML 6.4.6) and the BTSVC (Chu 2003, chapter
5) model one latent value per input with a posterior symmetric about its mean, and a likelihood
that gives the class ``classes_[1]`` a probability above 1/2 exactly where the latent value is
positive. So the more probable class is decided by the sign of the latent mean alone, whatever
its variance, and neither model takes more than two classes.
"""

from __future__ import annotations

__all__ = ["LatentSignClassifierMixin"]


class LatentSignClassifierMixin:
    """``predict`` by the sign of the latent mean, and the tags of a two-class model.

    The model sets ``classes_`` (two labels; ``classes_[1]`` is the class of a positive latent
    value) and has ``_latent_mean(X)``, the latent mean at new inputs, shape (m,).
    """

    def predict(self, X):
        """The more probable class: ``classes_[1]`` where the latent mean is positive.

        Parameters
        ----------
        X : array_like of shape (m, d)
            Inputs.

        Returns
        -------
        labels : ndarray of shape (m,)
        """
        positive = self._latent_mean(X) > 0
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
