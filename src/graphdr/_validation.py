"""Input checks shared by every estimator, with one error-message template.

Template: what was asked, the bound, why the bound exists, e.g.
``n_components=12 is larger than n_classes - 1 = 9: KDA has at most C-1 discriminant directions.``
"""

from __future__ import annotations

import numbers

import numpy as np


def check_n_components(n_components, bound: int, *, bound_name: str, reason: str) -> int:
    """Return the number of components to compute (``None`` means ``bound``).

    Raises ``ValueError`` when ``n_components`` is not a positive integer or exceeds ``bound``;
    the message states the bound, how it is derived (``bound_name``) and why (``reason``).
    """
    if n_components is None:
        if bound < 1:
            raise ValueError(f"{bound_name} = {bound}: no component can be computed ({reason}).")
        return int(bound)
    if isinstance(n_components, bool | np.bool_) or not isinstance(n_components, numbers.Integral):
        raise ValueError(f"n_components must be a positive integer or None, got {n_components!r}.")
    if n_components < 1:
        raise ValueError(f"n_components must be >= 1, got {n_components}.")
    if n_components > bound:
        raise ValueError(
            f"n_components={n_components} is larger than {bound_name} = {bound}: {reason}."
        )
    return int(n_components)


def check_n_classes(y_encoded: np.ndarray, *, minimum: int = 2, method: str = "This method") -> int:
    """Number of classes of integer-encoded labels; a clear error below ``minimum``."""
    n_classes = int(np.unique(y_encoded).size)
    if n_classes < minimum:
        raise ValueError(
            f"{method} needs at least {minimum} classes; y has {n_classes} "
            "(a supervised projection is undefined for a single class)."
        )
    return n_classes


def check_positive_real(name: str, value, *, allow_zero: bool = False) -> None:
    """A finite real ``value`` > 0 (>= 0 with ``allow_zero``), not a bool; else a ``ValueError``
    naming the parameter and the bound."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(value)
        or value < 0
        or (value == 0 and not allow_zero)
    ):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}.")


def check_positive_int(name: str, value, *, allow_none: bool = False) -> None:
    """An integer ``value`` >= 1 (or None with ``allow_none``), not a bool; else a
    ``ValueError`` naming the parameter and the bound."""
    if allow_none and value is None:
        return
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral) or value < 1:
        also = " or None" if allow_none else ""
        raise ValueError(f"{name} must be an integer >= 1{also}, got {value!r}.")
