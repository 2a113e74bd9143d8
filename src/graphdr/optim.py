"""Line-search optimisers for smooth embedding objectives (DEE, EE, DSNE).

The optimiser knows nothing about embeddings: it takes an ``objective(x) -> (error, grad)``
callable over an array ``x`` of any shape and a search *direction* object, and owns the loop
(history, progress bar, callbacks, stopping rule). One evaluation of the objective is the
estimator's business (numba + BLAS).

Directions (each carries the line search it needs, ``direction.line_search``):

* :class:`GradientDescent` — ``p = -g``; strong-Wolfe line search (``c2 = 0.9``).
* :class:`ConjugateGradient` — nonlinear CG, Polak-Ribiere+ ``beta = max(0, g'(g - g_old) / g_old'g_old)``,
  restarted with ``-g`` whenever ``p`` is not a descent direction or a line search fails;
  strong-Wolfe line search with ``c2 = 0.1`` (Nocedal & Wright, sec. 5.2: the curvature
  condition is what makes the PR+ directions descent directions and CG a real CG).
* :class:`Preconditioned` — ``p = -B^{-1} g`` for a constant symmetric positive-definite ``B``
  (one Cholesky factorisation at construction, two triangular solves per iteration). With
  ``B = 4 X^T L+ X + mu I`` this is the Laplacian direction (LD) of DEE, with ``B = 4 X^T D+ X``
  the fixed-point direction (FP) of elastic embedding; for a (D, d) iterate ``B`` acts on each
  column (``B`` kron ``I_d``).

Line searches:

* ``"armijo"`` (LD, FP): backtracking with ``E(x + a p) <= E(x) + c a g'p``, ``a <- rho a``
  (``rho = 0.8``, ``c = 0.1`` as in the elastic-embedding code), starting from the previously
  accepted step. A step accepted at its first trial lets the next search start from ``a / rho``
  (capped by ``max_step``), so an early short step does not freeze the step length for good;
  but a step that was rejected is not tried again for :data:`GROW_MEMORY` iterations (the
  search stays at the accepted step below it). Without that memory LD on ORL (``pca=100``)
  cycled 0.512 -> 0.64 -> 0.8 (rejected twice) -> 0.512 and spent 1.7 evaluations per iteration.
* ``"wolfe"`` (GD, CG): scipy's :func:`scipy.optimize.line_search` (strong Wolfe conditions
  ``E(x + a p) <= E(x) + c1 a g'p`` and ``|g(x + a p)'p| <= c2 |g'p|``, ``c1 = 1e-4``; bracketing
  and zoom of Nocedal & Wright, Alg. 3.5-3.6). First trial step: ``||x|| / ||p||`` at the first
  iteration, then ``1.01 * 2 (E_{k-1} - E_k) / -g'p`` (N&W eq. 3.60). The objective is evaluated
  once per trial point (value and gradient are cached between scipy's two callbacks). When the
  search fails, the direction restarts with ``-g`` and the Armijo backtracking is tried.

Stopping rule: the relative change ``|E_k - E_{k-1}| <= tol * max(|E_{k-1}|, tiny)`` on
``window`` consecutive iterations (default 5, so one short step cannot end a fit), or the
gradient norm below ``gtol`` (1e-9) times the first one, or ``max_iter`` iterations, or no decrease found by the line search, or a callback returning
``True``.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.optimize

__all__ = [
    "ConjugateGradient",
    "GradientDescent",
    "OptimizeResult",
    "Preconditioned",
    "backtracking_line_search",
    "make_direction",
    "minimize",
    "wolfe_line_search",
]

_TINY = 1e-300
_MAX_BACKTRACKS = 500
#: consecutive iterations whose relative change of E must be below tol to stop
WINDOW = 5
#: gradient-norm test: stop when ||g|| <= GTOL * ||g_0||
GTOL = 1e-9
#: iterations during which an Armijo step that was rejected is not tried again
GROW_MEMORY = 10


class GradientDescent:
    """Steepest descent ``p = -g`` (strong-Wolfe line search, ``c2 = 0.9``)."""

    name = "gd"
    line_search = "wolfe"
    c2 = 0.9

    def reset(self) -> None:
        """Forget any state (none for steepest descent)."""

    def __call__(self, g: np.ndarray) -> np.ndarray:
        return -g


class ConjugateGradient:
    """Nonlinear conjugate gradients, Polak-Ribiere+ with restart.

    ``beta = max(0, g_k'(g_k - g_{k-1}) / g_{k-1}'g_{k-1})``, ``p_k = -g_k + beta p_{k-1}``;
    when ``g_k'p_k >= 0`` (not a descent direction) the direction restarts at ``-g_k``, and
    :func:`minimize` resets it after a failed line search. Strong-Wolfe line search with
    ``c2 = 0.1``.
    """

    name = "cg"
    line_search = "wolfe"
    c2 = 0.1

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget the previous gradient and direction (next call is a steepest-descent step)."""
        self._g_old = None
        self._p_old = None

    def __call__(self, g: np.ndarray) -> np.ndarray:
        if self._g_old is None:
            p = -g
        else:
            gg_old = float(np.vdot(self._g_old, self._g_old))
            beta = max(0.0, float(np.vdot(g, g - self._g_old)) / gg_old) if gg_old > 0 else 0.0
            p = -g + beta * self._p_old
            if float(np.vdot(g, p)) >= 0.0:
                p = -g
        self._g_old, self._p_old = g.copy(), p.copy()
        return p


class Preconditioned:
    """``p = -B^{-1} g`` for a constant symmetric positive-definite ``B`` (Cholesky once).

    Parameters
    ----------
    B : (n, n) array, symmetric positive definite (add a ridge before passing it).
    name : label stored in the history ("ld", "fp", ...).
    """

    line_search = "armijo"

    def __init__(self, B: np.ndarray, name: str = "preconditioned") -> None:
        self.name = name
        try:
            self._factor = scipy.linalg.cho_factor(B, lower=True, check_finite=True)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                f"The {name} matrix B is not positive definite ({exc}); increase the ridge `mu`."
            ) from exc

    def reset(self) -> None:
        """Forget any state (the factorisation is constant)."""

    def __call__(self, g: np.ndarray) -> np.ndarray:
        shape = g.shape
        g2 = g.reshape(self._factor[0].shape[0], -1)
        return -scipy.linalg.cho_solve(self._factor, g2, check_finite=False).reshape(shape)


def make_direction(name: str, B: np.ndarray | None = None):
    """Direction object for ``name`` in {"gd", "cg"} or a preconditioned one given ``B``."""
    if name == "gd":
        return GradientDescent()
    if name == "cg":
        return ConjugateGradient()
    if B is None:
        raise ValueError(f"direction {name!r} needs a matrix B.")
    return Preconditioned(B, name=name)


@dataclass
class OptimizeResult:
    """Outcome of :func:`minimize`.

    ``history`` holds one entry per iteration, index 0 being the starting point: ``objective``
    (E after the iteration), ``step`` (accepted step length, 0 at index 0), ``time`` (wall-clock
    seconds spent in that iteration; index 0 is the first evaluation) and ``n_evals`` (objective
    evaluations in that iteration).
    """

    x: np.ndarray
    fun: float
    grad: np.ndarray
    n_iter: int
    converged: bool
    message: str
    history: dict = field(default_factory=dict)


def backtracking_line_search(objective, x, fx, gx, p, step, *, rho=0.8, c=0.1):
    """Largest ``a = step * rho^k`` with ``E(x + a p) <= E(x) + c a g'p`` (Armijo).

    Returns ``(a, x_new, f_new, g_new, n_evals)``; ``a = 0`` (and the old point) when ``p`` is
    not a descent direction or the trial move ``a ||p||`` falls below rounding level of ``x``.
    """
    slope = float(np.vdot(gx, p))
    n_evals = 0
    if not slope < 0.0:
        return 0.0, x, fx, gx, n_evals
    floor = 1e-15 * max(float(np.linalg.norm(x)), _TINY) / max(float(np.linalg.norm(p)), _TINY)
    a = step
    while a > floor and n_evals < _MAX_BACKTRACKS:
        x_new = x + a * p
        f_new, g_new = objective(x_new)
        n_evals += 1
        if np.isfinite(f_new) and f_new <= fx + c * a * slope:
            return a, x_new, f_new, g_new, n_evals
        a *= rho
    return 0.0, x, fx, gx, n_evals


class _Cached:
    """``objective`` on flat vectors, one evaluation per distinct point (scipy asks for the value
    and the gradient of a trial point in two calls)."""

    def __init__(self, objective, shape):
        self.objective, self.shape, self.n_evals = objective, shape, 0
        self.x = self.f = self.g = None

    def _eval(self, x):
        if self.x is None or not np.array_equal(x, self.x):
            f, g = self.objective(x.reshape(self.shape))
            self.x, self.f, self.g = x.copy(), float(f), np.asarray(g, dtype=float).ravel()
            self.n_evals += 1

    def f_of(self, x):
        self._eval(x)
        return self.f if np.isfinite(self.f) else np.inf

    def g_of(self, x):
        self._eval(x)
        return self.g


def wolfe_line_search(objective, x, fx, gx, p, step, *, c1=1e-4, c2=0.9, maxiter=30):
    """Step ``a`` satisfying the strong Wolfe conditions along ``p`` (scipy's
    :func:`scipy.optimize.line_search`), first trial ``a = step``.

    ``p`` is scaled by ``step`` before the call so that scipy's first trial (1) is ``step``.
    Returns ``(a, x_new, f_new, g_new, n_evals)``, ``a = 0`` (and the old point) when ``p`` is
    not a descent direction or the search fails.
    """
    slope = float(np.vdot(gx, p))
    if not slope < 0.0 or not step > 0.0:
        return 0.0, x, fx, gx, 0
    cached = _Cached(objective, x.shape)
    xf, ps = x.ravel(), (step * p).ravel()
    with warnings.catch_warnings():
        # scipy warns on failure (LineSearchWarning, a RuntimeWarning): handled below
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(over="ignore", invalid="ignore"):
            alpha, *_ = scipy.optimize.line_search(
                cached.f_of, cached.g_of, xf, ps, gfk=gx.ravel(), old_fval=fx,
                c1=c1, c2=c2, maxiter=maxiter,
            )  # fmt: skip
    if alpha is None or not alpha > 0:
        return 0.0, x, fx, gx, cached.n_evals
    x_new = xf + alpha * ps
    f_new, g_new = cached.f_of(x_new), cached.g_of(x_new)
    if not (np.isfinite(f_new) and f_new < fx):
        return 0.0, x, fx, gx, cached.n_evals
    return alpha * step, x_new.reshape(x.shape), f_new, g_new.reshape(x.shape), cached.n_evals


def _relative_change(f_old: float, f_new: float) -> float:
    return abs(f_old - f_new) / max(abs(f_old), _TINY)


def minimize(
    objective,
    x0,
    direction,
    *,
    max_iter=1000,
    tol=1e-5,
    window=WINDOW,
    gtol=GTOL,
    rho=0.8,
    c=0.1,
    step0=None,
    max_step=np.inf,
    callback=None,
    verbose=False,
    desc="optimise",
) -> OptimizeResult:
    """Minimise ``objective`` from ``x0`` along ``direction`` with its line search.

    Parameters
    ----------
    objective : callable ``x -> (E, grad)`` (``grad`` has the shape of ``x``).
    x0 : starting point (any shape; copied).
    direction : object with ``__call__(g) -> p``, ``reset()`` and ``line_search`` ("armijo" or
        "wolfe", with ``c2`` for the latter; see module docstring).
    max_iter, tol, window, gtol : stopping rule (iterations; relative change of E below ``tol``
        on ``window`` consecutive iterations; gradient norm below ``gtol`` times the first one).
    rho, c : backtracking factor and Armijo constant (Armijo search).
    step0 : first trial step (``None``: ``||x0|| / ||p0||``, a move as large as the iterate
        itself, scale-free for gradient directions); later Armijo searches start from the
        previous accepted step, Wolfe searches from N&W's interpolation (module docstring).
    max_step : cap on the Armijo trial step (``1`` suits preconditioned directions whose natural
        step is 1).
    callback : optional ``callback(iteration, x, E, grad) -> bool``; ``True`` stops cleanly.
    verbose : show a tqdm progress bar.
    """
    if isinstance(window, bool) or not isinstance(window, int | np.integer) or window < 1:
        raise ValueError(f"window must be an integer >= 1, got {window!r}.")
    t0 = time.perf_counter()
    x = np.array(x0, dtype=float, copy=True)
    fx, gx = objective(x)
    direction.reset()
    wolfe = getattr(direction, "line_search", "armijo") == "wolfe"
    hist = {"objective": [float(fx)], "step": [0.0], "time": [time.perf_counter() - t0]}
    hist["n_evals"] = [1]
    step, converged, message, it = step0, False, "max_iter reached", 0
    f_prev, quiet = None, 0
    ceiling, ceiling_age = np.inf, 0  # smallest recently rejected Armijo step, its age
    g_floor = gtol * float(np.linalg.norm(gx))
    bar = _progress(max_iter, desc) if verbose else None
    try:
        for it in range(1, max_iter + 1):
            t_it = time.perf_counter()
            p = direction(gx)
            if wolfe:
                a, x_new, f_new, g_new, n_ev = _wolfe_step(
                    objective, direction, x, fx, gx, p, step, f_prev, max_step, rho, c
                )
            else:
                if step is None:
                    step = _initial_step(x, p, max_step)
                a, x_new, f_new, g_new, n_ev = backtracking_line_search(
                    objective, x, fx, gx, p, step, rho=rho, c=c
                )
            if a == 0.0:
                it -= 1
                converged = not np.any(gx)
                message = "line search found no decrease (stationary point or rounding floor)"
                break
            change = _relative_change(fx, f_new)
            f_prev = fx
            x, fx, gx = x_new, f_new, g_new
            if wolfe:
                step = a
            else:
                if n_ev > 1:  # a / rho was rejected: do not try it again soon
                    ceiling, ceiling_age = a / rho, 0
                ceiling_age += 1
                if ceiling_age > GROW_MEMORY:
                    ceiling = np.inf
                grow = min(a / rho, max_step)
                step = grow if n_ev == 1 and grow < ceiling * (1.0 - 1e-12) else a
            _append(hist, fx, a, time.perf_counter() - t_it, n_ev)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(E=f"{fx:.6g}", step=f"{a:.3g}", refresh=False)
            quiet = quiet + 1 if change <= tol else 0
            if quiet >= window:
                converged = True
                message = f"relative change of E below tol={tol:g} on {window} iterations"
                break
            if float(np.linalg.norm(gx)) <= g_floor:
                converged, message = True, f"gradient norm below gtol={gtol:g} x the first one"
                break
            if callback is not None and callback(it, x, fx, gx):
                message = "stopped by callback"
                break
    finally:
        if bar is not None:
            bar.close()
    history = {k: np.asarray(v) for k, v in hist.items()}
    return OptimizeResult(x, float(fx), gx, it, converged, message, history)


def _wolfe_step(objective, direction, x, fx, gx, p, step, f_prev, max_step, rho, c):
    """One strong-Wolfe search (first trial: module docstring); on failure, restart the
    direction with ``-g`` and fall back to Armijo backtracking from the same trial step."""
    slope = float(np.vdot(gx, p))
    if f_prev is None or step is None or not slope < 0:
        trial = _initial_step(x, p, max_step)
    else:
        trial = 1.01 * 2.0 * (f_prev - fx) / -slope  # N&W eq. 3.60, 1% margin
        if not (np.isfinite(trial) and trial > 0):
            trial = step
    a, x_new, f_new, g_new, n_ev = wolfe_line_search(
        objective, x, fx, gx, p, trial, c2=getattr(direction, "c2", 0.9)
    )
    if a > 0.0:
        return a, x_new, f_new, g_new, n_ev
    direction.reset()
    p = direction(gx)
    a, x_new, f_new, g_new, n_bt = backtracking_line_search(
        objective, x, fx, gx, p, _initial_step(x, p, max_step), rho=rho, c=c
    )
    return a, x_new, f_new, g_new, n_ev + n_bt


def _initial_step(x, p, max_step) -> float:
    nx, np_ = float(np.linalg.norm(x)), float(np.linalg.norm(p))
    step = nx / np_ if nx > 0 and np_ > 0 else 1.0
    return min(step, max_step)


def _append(hist: dict, f: float, a: float, t: float, n_ev: int) -> None:
    hist["objective"].append(float(f))
    hist["step"].append(float(a))
    hist["time"].append(float(t))
    hist["n_evals"].append(int(n_ev))


def _progress(total: int, desc: str):
    from tqdm.auto import tqdm  # imported lazily: only verbose runs pay for it

    return tqdm(total=total, desc=desc, leave=False)
