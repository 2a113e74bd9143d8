"""Kernel matrices: one BLAS GEMM, then one fused, in-place numba pass.

Every kernel here is built from the Gram matrix ``G = X Y^T`` (2 N M D flops, the cost floor of
any kernel matrix; ``X X^T`` takes BLAS's symmetric rank-k path at half the flops). Whatever comes
after it (adding the squared norms, clipping rounding noise at 0, the exponential of the RBF
kernel, the power of the polynomial kernel, the centring) is a single numba sweep that overwrites
``G`` (parallel over rows for large matrices): no second N x M array is ever allocated, so the peak
memory of a kernel matrix is its own size plus O(N + M).

float32 input gives a float32 matrix (half the memory; the GEMM then rounds at float32 precision,
about 1e-7 relative to ``||a|| ||b||``), float64 input a float64 matrix; ``dtype`` overrides both.
"""

from __future__ import annotations

import contextvars
import functools
import numbers
import warnings
from collections import OrderedDict
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse
import xxhash
from llvmlite import ir

# numba itself comes through graphdr._numba, which must be imported first: it points
# NUMBA_CACHE_DIR at the per-user cache before numba reads its configuration.
from graphdr._numba import njit, numba

prange = numba.prange
intrinsic = numba.extending.intrinsic
types = numba.types

KERNELS = ("linear", "rbf", "poly", "precomputed")

# Below this many entries a fused pass takes ~1 ms on one thread. Right after a GEMM the BLAS
# worker threads are still spin-waiting, and a second team of numba threads then competes with
# them for the cores: on 2 cores that cost more than the pass itself (measured: 1.4x the GEMM time
# at N=1000 with 2 threads against 1.1x with one). Larger passes gain from threads.
_PARALLEL_MIN_ENTRIES = 1 << 22


# --------------------------------------------------------------------------------------------
# numba kernels (module level, compiled once, cached on disk)
# --------------------------------------------------------------------------------------------

_LOG2E = 1.4426950408889634
# Cody-Waite split of ln 2: _LN2_HI has trailing zero bits, so t * _LN2_HI is exact for |t| < 2^11.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
# Below this argument exp(x) rounds to 0 in float64 (exp(-745.14) is half the smallest subnormal).
_EXP_UNDERFLOW = -745.2


@intrinsic
def float64_from_bits(typingctx, bits):
    """Reinterpret the 64 bits of an int64 as a float64 (a no-op cast LLVM can vectorise)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen


@njit(inline="always")
def exp_nonpositive(x):
    """``exp(x)`` for ``x <= 0`` in float64, within 1 ulp of ``np.exp`` (tested on 6e6 points).

    ``x = t ln2 + r`` with ``t = round(x / ln2)`` and ``|r| <= ln2 / 2`` (Cody-Waite, two-part
    ln 2); ``exp(r)`` by its degree-13 Taylor polynomial in Horner form (truncation
    ``r^14 / 14! < 5e-18``); then ``exp(x) = exp(r) 2^(t1) 2^(t2)`` with ``t1 + t2 = t``, each
    power of two built from its exponent bits. Two factors keep results down to the smallest
    subnormal right.

    Why not ``math.exp``: it is an opaque libm call that stops LLVM from vectorising the fused
    loop; this is plain arithmetic that vectorises (5x faster per entry here), so the RBF pass
    costs a few percent of the GEMM instead of a quarter of it.
    """
    if x < _EXP_UNDERFLOW:
        x = _EXP_UNDERFLOW
    t = np.floor(x * _LOG2E + 0.5)
    r = (x - t * _LN2_HI) - t * _LN2_LO
    p = 1.0 / 6227020800.0
    p = 1.0 / 479001600.0 + r * p
    p = 1.0 / 39916800.0 + r * p
    p = 1.0 / 3628800.0 + r * p
    p = 1.0 / 362880.0 + r * p
    p = 1.0 / 40320.0 + r * p
    p = 1.0 / 5040.0 + r * p
    p = 1.0 / 720.0 + r * p
    p = 1.0 / 120.0 + r * p
    p = 1.0 / 24.0 + r * p
    p = 1.0 / 6.0 + r * p
    p = 0.5 + r * p
    p = 1.0 + r * p
    p = 1.0 + r * p
    n = np.int64(t)
    n1 = n >> 1
    n2 = n - n1
    return p * float64_from_bits((n1 + 1023) << 52) * float64_from_bits((n2 + 1023) << 52)


@njit(parallel=True)
def _squared_distances_from_gram(G, x_norms, y_norms, zero_diagonal):
    """In place: ``G_ij <- max(||x_i||^2 + ||y_j||^2 - 2 G_ij, 0)``; ``G_ii <- 0`` if asked.

    The sum of the two norms comes first so that the result is exactly symmetric when ``G`` is.
    """
    n, m = G.shape
    for i in prange(n):
        a = x_norms[i]
        for j in range(m):
            d = (a + y_norms[j]) - 2.0 * G[i, j]
            G[i, j] = d if d > 0.0 else 0.0
        if zero_diagonal:
            G[i, i] = 0.0


# Fused multiply-adds ("contract", no other fast-math licence: no reassociation, NaN/inf kept)
# make the vectorised exponential ~1.8x faster and round once instead of twice.
@njit(parallel=True, fastmath={"contract"})
def _rbf_from_gram(G, x_norms, y_norms, gamma, unit_diagonal):
    """In place: ``G_ij <- exp(-gamma max(||x_i||^2 + ||y_j||^2 - 2 G_ij, 0))``; ``G_ii <- 1``."""
    n, m = G.shape
    for i in prange(n):
        a = x_norms[i]
        for j in range(m):
            d = (a + y_norms[j]) - 2.0 * G[i, j]
            if d < 0.0:
                d = 0.0
            G[i, j] = exp_nonpositive(-gamma * d)
        if unit_diagonal:
            G[i, i] = 1.0


@njit(parallel=True)
def _poly_from_gram(G, gamma, coef0, degree):
    """In place: ``G_ij <- (gamma G_ij + coef0)^degree`` (integer ``degree``, repeated products)."""
    n, m = G.shape
    for i in prange(n):
        for j in range(m):
            G[i, j] = (gamma * G[i, j] + coef0) ** degree


@njit(parallel=True)
def _center_into(K, out, col_means, row_means, mean):
    """``out_ij = K_ij - col_means_j - row_means_i + mean`` (``out`` may be ``K`` itself).

    The order of the operations is that of ``sklearn.preprocessing.KernelCenterer``.
    """
    n, m = K.shape
    for i in prange(n):
        r = row_means[i]
        for j in range(m):
            out[i, j] = ((K[i, j] - col_means[j]) - r) + mean


@contextmanager
def threads_for(n_entries: int):
    """Run a fused pass on one numba thread when it is small (see ``_PARALLEL_MIN_ENTRIES``).

    Otherwise the thread count is left alone, so ``NUMBA_NUM_THREADS`` and
    ``numba.set_num_threads`` set by the caller are respected.
    """
    if n_entries >= _PARALLEL_MIN_ENTRIES:
        yield
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)


# --------------------------------------------------------------------------------------------
# reuse of identical kernel matrices (a selection grid's methods share a fold's kernels)
# --------------------------------------------------------------------------------------------

_REUSE: contextvars.ContextVar[_KernelStore | None] = contextvars.ContextVar(
    "graphdr_kernel_reuse", default=None
)


class _KernelStore:
    """Kernel matrices computed inside one :func:`reuse_kernels` block, by request.

    The key of a request is the function, its scalar arguments, and the shape, dtype and a
    128-bit XXH3 digest of each array argument (not its identity: estimators copy their training
    data). Least recently used entries go first once ``max_bytes`` is exceeded.
    """

    def __init__(self, max_bytes: int):
        self.max_bytes = int(max_bytes)
        self.entries: OrderedDict = OrderedDict()
        self.nbytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key):
        value = self.entries.get(key)
        if value is not None:
            self.entries.move_to_end(key)
            self.hits += 1
        return value

    def put(self, key, value) -> None:
        """Store ``value`` (an array, or a tuple of arrays: a decomposition) under ``key``."""
        self.misses += 1
        size = _nbytes(value)
        if size > self.max_bytes:
            return
        self.entries[key] = value
        self.nbytes += size
        while self.nbytes > self.max_bytes:
            _, old = self.entries.popitem(last=False)
            self.nbytes -= _nbytes(old)


def _nbytes(value) -> int:
    return sum(a.nbytes for a in value) if isinstance(value, tuple) else value.nbytes


class _Unkeyable(Exception):
    """An argument the store cannot key: the call is computed, not stored."""


def _request_key(name: str, args: tuple, kwargs: dict):
    """The store's key of one call (raises :class:`_Unkeyable` for an argument it cannot key:
    neither None, a string, a number, a dtype nor a numeric array)."""

    def part(value):
        if value is None or isinstance(value, (str, numbers.Number, np.generic)):
            return (type(value).__name__, value)
        if isinstance(value, (type, np.dtype)):  # dtype=np.float64
            try:
                return ("dtype", np.dtype(value).str)
            except TypeError:
                raise _Unkeyable from None
        a = np.ascontiguousarray(value)
        if a.dtype.kind not in "biuf":  # objects, strings: not keyed by content
            raise _Unkeyable
        # XXH3, 128 bits (the xxhash library): 1.4 ms for a 2000 x 2000 float64 matrix against
        # SHA-256's 24 ms (17x, measured 2026-11-28; the hashes were 4 % of the NGEU MNIST
        # grid's CPU with SHA-256). Not cryptographic, which a key of our own arrays, living
        # only in memory, does not need: a collision of two different arrays is ~2^-128
        digest = xxhash.xxh3_128_hexdigest(a.view(np.uint8).reshape(-1))
        return ("array", a.shape, a.dtype.str, digest)

    return (
        name,
        tuple(part(v) for v in args),
        tuple((k, part(v)) for k, v in sorted(kwargs.items())),
    )


@contextmanager
def reuse_kernels(max_bytes: int = 4 << 30):
    """Inside the block, a kernel matrix asked for again with the same inputs is not
    recomputed: :func:`pairwise_kernel`, :func:`graphdr.kernels.expected.expected_kernel` and
    KDA's and KSDA's ``K C K`` (:func:`graphdr.methods.discriminant.denominator_kernel_scatter`)
    return a copy of the first result (bit for bit the same matrix; the copy is the caller's to
    overwrite, as estimators do when they centre it). Yields the store (``hits``, ``misses``,
    ``nbytes``).

    For selection grids whose methods share kernels: the KDA, MFA and PCA graphs of paper 004
    at one fold and kernel setting use the same training and test matrices (measured on its
    MNIST grid: the kernel matrices are a sixth of the work). ``max_bytes`` (default 4 GiB)
    bounds what the block keeps; the least recently used matrices go first. Our own cache, not
    :func:`functools.lru_cache`: the key is the arrays' content (estimators copy their
    training data), and the results must come out as fresh copies.
    """
    store = _KernelStore(max_bytes)
    token = _REUSE.set(store)
    try:
        yield store
    finally:
        _REUSE.reset(token)


def array_key(name: str, a: np.ndarray):
    """The key of a value derived from the array ``a`` alone (its shape, dtype and a 128-bit XXH3
    digest of its content), for :func:`reuse_store` entries other than kernel matrices."""
    return _request_key(name, (a,), {})


def reuse_store():
    """The store of the innermost :func:`reuse_kernels` block (None outside one).

    For results derived from a kernel matrix that several estimators of one block compute
    again: :func:`graphdr.methods.graph_embedding.kernel_feature_map` keeps the eigen-
    decomposition of a centred kernel there (key :func:`array_key`), so the KMFA, KDA and KPCA
    fits of one fold and kernel setting decompose it once. Entries are shared: a caller copies
    what it would modify.
    """
    return _REUSE.get()


def _mirror_lower_triangle(A: np.ndarray, block: int = 256) -> None:
    """``A[j, i] = A[i, j]`` for ``i > j``, in place, by blocks of rows (no N x N temporary)."""
    n = A.shape[0]
    for r0 in range(0, n, block):
        r1 = min(r0 + block, n)
        A[:r0, r0:r1] = A[r0:r1, :r0].T
        square = A[r0:r1, r0:r1]
        upper = np.triu_indices(r1 - r0, 1)
        square[upper] = square.T[upper]


def _mirrored(Kc: np.ndarray) -> np.ndarray:
    """``Kc`` with its lower triangle mirrored into its upper one (the convention: LAPACK reads
    the lower triangle only), in place when it is a writeable C-ordered float64 array, on a
    copy otherwise (returned). The store key of its decomposition is taken after this, so it
    depends on the lower triangle alone: a kernel whose upper triangle another solver used as
    scratch (the low-rank paths write a Cholesky factor there and restore only the lower
    triangle) still finds the decomposition of the same matrix."""
    if not (Kc.flags.c_contiguous and Kc.flags.writeable and Kc.dtype == np.float64):
        Kc = np.array(Kc, dtype=np.float64, order="C")  # a copy: the caller's stays intact
    _mirror_lower_triangle(Kc)
    return Kc


def _eigh_key(Kc: np.ndarray):
    """The store key of a centred kernel's decomposition (the content of a mirrored ``Kc``)."""
    return array_key("eigh_centred_kernel", Kc)


def stored_centred_kernel_eigh(Kc: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The decomposition :func:`eigh_centred_kernel` keeps for ``Kc`` in the innermost
    :func:`reuse_kernels` block (shared arrays, ascending), or None (outside a block, or not yet
    decomposed): for callers that would otherwise compute only part of it (KPCA's leading
    pairs). Inside a block, ``Kc``'s upper triangle is overwritten with its lower one."""
    store = _REUSE.get()
    return store.get(_eigh_key(_mirrored(Kc))) if store is not None else None


def eigh_centred_kernel(Kc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every eigenpair (ascending) of a centred kernel matrix: the one O(N^3) decomposition of
    the kernel estimators that work in the range of the centred kernel (KQMI, CKFD, GDA, KNDA,
    KUDA, KODA and the full path of kernel graph embedding).

    One LAPACK call, ``syevd`` (divide and conquer: 1.19 s against ``syevr``'s 1.51 s at
    N = 2000 on one core, 8 % faster at N = 5000; 2 N^2 workspace), on the lower triangle of
    ``Kc`` (a centred kernel is symmetric only to round-off: the lower triangle is the
    convention). ``Kc`` is overwritten: a C-ordered ``Kc`` gets its lower triangle mirrored into
    its upper one, so that LAPACK works in place on its transpose (a Fortran-ordered view with
    the same lower triangle) instead of on an N x N copy; the result is bit for bit that of the
    copy. Inside :func:`reuse_kernels` the result is kept in the block's store, keyed by the
    content of ``Kc``'s lower triangle: the other estimators of a fold that decompose the same
    matrix read it instead of decomposing again (paper 001's sweep: five kernel methods per
    fold; paper 004's grids: KMFA, KDA and KPCA per fold and kernel setting, KDA after its
    low-rank path declined the matrix). The arrays are then shared: callers must not modify
    them.
    """
    store = _REUSE.get()
    Kc = _mirrored(Kc)  # C-ordered, writeable, its upper triangle its lower one's mirror
    key = _eigh_key(Kc) if store is not None else None
    found = store.get(key) if store is not None else None
    if found is not None:
        return found
    # Fortran order: LAPACK's lower triangle is Kc's, in place
    s, U = scipy.linalg.eigh(Kc.T, overwrite_a=True, check_finite=False, driver="evd")
    if store is not None:
        store.put(key, (s, U))
    return s, U


def _copied(value):
    """Copies in the memory layout (C or F) of the computed arrays: what the caller does with a
    stored result runs as it does with a computed one (``data_span``'s wide span is F-ordered)."""
    if isinstance(value, tuple):
        return tuple(v.copy(order="K") for v in value)
    return value.copy(order="K")


def reusable(function):
    """Decorator: ``function`` (a pure function of its arguments returning a new array, or a
    tuple of new arrays) takes part in :func:`reuse_kernels`. A call inside another reusable
    call is not stored twice."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        store = _REUSE.get()
        if store is None or kwargs.get("kernel") == "precomputed":  # nothing to compute
            return function(*args, **kwargs)
        try:
            key = _request_key(function.__qualname__, args, kwargs)
        except _Unkeyable:
            return function(*args, **kwargs)
        cached = store.get(key)
        if cached is not None:
            return _copied(cached)
        token = _REUSE.set(None)  # inner reusable calls (the Dirac case) are not stored again
        try:
            value = function(*args, **kwargs)
        finally:
            _REUSE.reset(token)
        store.put(key, _copied(value))
        return value

    return wrapper


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------


def _check_dtype(dtype) -> np.dtype | None:
    if dtype is None:
        return None
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise ValueError(f"dtype={dtype!r} is not a dtype: use np.float32 or np.float64.") from exc
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype={dtype!r} is not supported: use np.float32 or np.float64.")
    return dt


def _result_dtype(arrays, dtype: np.dtype | None) -> np.dtype:
    """float32 only when every input is float32 (or ``dtype`` says so), float64 otherwise."""
    if dtype is not None:
        return dtype
    if all(np.asarray(a).dtype == np.float32 for a in arrays):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def _check_finite(A: np.ndarray, name: str) -> None:
    # The sum is one cheap pass without temporaries; only when it is not finite do we look for
    # the offending entries (it may also have overflowed on finite data).
    if np.isfinite(A.sum()):
        return
    if np.isnan(A).any():
        raise ValueError(f"{name} contains NaN; remove or impute the missing values first.")
    if np.isinf(A).any():
        raise ValueError(f"{name} contains infinity; kernel values would be undefined.")


def _as_matrix(A, name: str, dtype: np.dtype) -> np.ndarray:
    """``A`` as a finite 2-D array of ``dtype`` (no copy when it already is one)."""
    if scipy.sparse.issparse(A):
        raise TypeError(
            f"{name} is a scipy.sparse matrix; graphdr.kernels builds dense kernel matrices, "
            f"pass {name}.toarray()."
        )
    A = np.asarray(A)
    if A.dtype.kind == "c":
        raise ValueError(f"{name} is complex ({A.dtype}); kernels are defined for real data.")
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (n_samples, n_features), got shape {A.shape}; use "
            "reshape(-1, 1) for a single feature or reshape(1, -1) for a single sample."
        )
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"{name} has shape {A.shape}: at least one sample and one feature needed.")
    A = np.asarray(A, dtype=dtype)
    _check_finite(A, name)
    return A


def check_pair(X, Y, dtype):
    """Validate ``X`` (and ``Y``); ``Y`` is ``None`` for the symmetric case ``Y = X``."""
    dt = _result_dtype([X] if Y is None or Y is X else [X, Y], _check_dtype(dtype))
    symmetric = Y is None or Y is X
    X = _as_matrix(X, "X", dt)
    if symmetric:
        return X, None
    Y = _as_matrix(Y, "Y", dt)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}: a kernel compares samples of the "
            "same space (did you pass a transposed array?)."
        )
    return X, Y


def check_gamma(gamma, n_features: int) -> float:
    """``gamma``, with ``None`` meaning ``1 / n_features`` (the scikit-learn convention).

    ``"scale"`` needs the training data: resolve it first with :func:`resolve_gamma`.
    """
    if gamma is None:
        return 1.0 / n_features
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise ValueError(
            f"gamma must be a positive number, 'scale' or None, got {gamma!r}"
            + (
                " ('scale' is resolved from the training data by the estimators and by "
                "resolve_gamma)."
                if gamma == "scale"
                else "."
            )
        )
    if not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(
            f"gamma={gamma} must be positive and finite: gamma = 1 / (2 sigma^2) for a kernel "
            "width sigma (see gamma_from_sigma)."
        )
    return float(gamma)


def _check_degree(degree) -> int:
    integral = isinstance(degree, numbers.Integral) or (
        isinstance(degree, numbers.Real) and float(degree).is_integer()
    )
    if isinstance(degree, bool) or not integral or degree < 1:
        raise ValueError(
            f"degree={degree!r} must be a positive integer: a non-integer power of a negative "
            "value gamma <a, b> + coef0 is undefined."
        )
    return int(degree)


def check_coef0(coef0) -> float:
    if isinstance(coef0, bool) or not isinstance(coef0, numbers.Real) or not np.isfinite(coef0):
        raise ValueError(f"coef0 must be a finite number, got {coef0!r}.")
    return float(coef0)


def _squared_norms(A: np.ndarray, name: str) -> np.ndarray:
    """Row norms ``||a_i||^2`` as float64, computed in ``A``'s dtype (which overflows first)."""
    norms = np.einsum("ij,ij->i", A, A)
    if not np.all(np.isfinite(norms)):
        raise ValueError(
            f"squared row norms of {name} overflow {A.dtype}; rescale the data"
            + (" or use dtype=np.float64." if A.dtype == np.float32 else ".")
        )
    return norms.astype(np.float64, copy=False)


#: squared offset of the data over their spread beyond which distances are computed from
#: shifted data: ``||a||^2 + ||b||^2 - 2 a^T b`` loses about log10(offset^2 / spread) of the 16
#: digits (all of them for data at 1e8 with unit spread). Below it nothing moves, so results on
#: ordinary (e.g. standardised) data are bit for bit those of the unshifted formula.
_OFFSET_RATIO = 1e4


def recentre_for_distances(X: np.ndarray, Y: np.ndarray | None):
    """``(X, Y)`` shifted by the mean of the reference side (``Y`` if given, else ``X``) when
    that side's offset dwarfs its spread (``||mean||^2 > 1e4 * mean squared deviation``), else
    unchanged. Distances (and the RBF kernel) are translation invariant, so only rounding
    changes: the expansion through the Gram matrix then keeps its digits. The decision and the
    shift depend on the reference side only, so a training kernel and the kernels of new points
    against the same training set are shifted alike."""
    ref = X if Y is None else Y
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported by the caller
        mean = ref.mean(axis=0, dtype=np.float64)
        offset = float(mean @ mean)
        if not (offset > 0 and np.isfinite(offset)):
            return X, Y
        # total variance = mean squared norm - ||mean||^2: two streaming passes over ``ref``
        # and no N x D temporary (np.var's). The difference cancels exactly when the offset
        # dwarfs the spread, leaving an error ~1e-16 * offset: far below the 1e-4 * offset the
        # decision needs
        sq = np.einsum("ij,ij->", ref, ref, dtype=np.float64) / ref.shape[0]
        spread = max(float(sq) - offset, 0.0)
    if offset <= _OFFSET_RATIO * spread:
        return X, Y
    shift = mean.astype(X.dtype, copy=False)
    return X - shift, (None if Y is None else Y - shift)


def gram_and_norms(X: np.ndarray, Y: np.ndarray | None):
    """``G = X Y^T`` and the squared row norms of ``X`` and ``Y`` (``Y=None``: ``Y = X``).

    In the symmetric case the norms are the diagonal of ``G`` itself: free, and rounded the same
    way as the off-diagonal entries, so duplicate rows get distances of exactly 0 as a rule.
    """
    if Y is None:
        with np.errstate(over="ignore", invalid="ignore"):  # reported just below, by name
            G = X @ X.T  # the same buffer transposed: numpy calls BLAS syrk (half the flops)
        x_norms = np.diagonal(G).astype(np.float64)  # a copy: G is overwritten later
        if not np.all(np.isfinite(x_norms)):
            _squared_norms(X, "X")  # raises the overflow error
        return G, x_norms, x_norms
    x_norms, y_norms = _squared_norms(X, "X"), _squared_norms(Y, "Y")  # fail before the GEMM
    return X @ Y.T, x_norms, y_norms


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------


def gamma_from_sigma(sigma: float) -> float:
    """RBF ``gamma`` for a Gaussian width ``sigma``: ``gamma = 1 / (2 sigma^2)``.

    Papers write the RBF kernel as ``exp(-||a - b||^2 / (2 sigma^2))``; this library (like
    scikit-learn) as ``exp(-gamma ||a - b||^2)``.
    """
    if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real):
        raise ValueError(f"sigma must be a positive number, got {sigma!r}.")
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma={sigma} must be positive and finite (it is a kernel width).")
    return 1.0 / (2.0 * float(sigma) ** 2)


def mean_distance(D2: np.ndarray, mask: np.ndarray) -> float:
    """Mean Euclidean distance over the pairs in ``mask`` of the squared distances ``D2`` (1
    when no such distance is positive). Paper 003 (sec. 4.4) sets MMPA's heat-kernel widths to
    the mean intra- and inter-class distances (``MMPA(t_within="auto", t_between="auto")``);
    DEE's and DSNE's ``sigma="auto"`` use the mean intra-class distance the same way
    (reconstructed), and so do paper 003's cross-validated relative widths."""
    d = np.sqrt(D2[mask])
    d = d[d > 0]
    return float(d.mean()) if d.size else 1.0


def resolve_gamma(gamma, X) -> float:
    """The numeric kernel ``gamma`` for training data ``X`` (N x D).

    * ``"scale"``: ``1 / (D * X.var())`` (scikit-learn's ``SVC(gamma="scale")``; ``X.var()`` over
      all entries, 1 when it is 0). It follows the data's scale: rescaling ``X`` by ``c``
      divides it by ``c^2``, so ``gamma ||a - b||^2`` (the RBF kernel) and
      ``gamma a^T b`` (the polynomial kernel) do not change. For data in general position
      ``gamma * mean squared distance`` is about 2.
    * ``None``: ``1 / D`` (the older scikit-learn default; it ignores the data's scale).
    * a positive number: itself.

    Estimators resolve it once in ``fit`` (attribute ``gamma_``) and use that value for new
    points, so a test set never changes the kernel.
    """
    if isinstance(gamma, str) and gamma == "scale":
        X = np.asarray(X)
        var = float(np.var(X, dtype=np.float64))
        return 1.0 / (X.shape[1] * var) if var > 0 and np.isfinite(var) else 1.0
    return check_gamma(gamma, np.shape(X)[1])


def squared_distances(X, Y=None) -> np.ndarray:
    """Squared Euclidean distances ``D_ij = ||x_i - y_j||^2`` (``Y=None``: ``Y = X``).

    Computed as ``||x_i||^2 + ||y_j||^2 - 2 x_i^T y_j`` from one GEMM, then clipped at 0 in place
    (cancellation can make the expression slightly negative). With ``Y=None`` the result is
    exactly symmetric with an exactly zero diagonal. float32 input gives a float32 result; the
    GEMM then rounds at float32 precision, so distances much smaller than ``1e-7 ||x||^2`` are
    noise (use float64 input for those).

    Returns an ``(n_samples_X, n_samples_Y)`` array.
    """
    X, Y = check_pair(X, Y, None)
    G, x_norms, y_norms = gram_and_norms(*recentre_for_distances(X, Y))
    with threads_for(G.size):
        _squared_distances_from_gram(G, x_norms, y_norms, Y is None)
    return G


#: entries of one row block of :func:`blocked_squared_distances` and :func:`rbf_row_blocks`
#: (256 MB of float64)
BLOCK_ENTRIES = 1 << 25


def blocked_squared_distances(X, Y, dtype=np.float32) -> np.ndarray:
    """:func:`squared_distances` of every row of ``X`` to ``Y``, computed in row blocks of about
    :data:`BLOCK_ENTRIES` float64 entries and stored as ``dtype`` (float32 halves a test set's
    distances: 3.2 GB at 20000 x 20000; fit for matrices that enter no factorisation)."""
    out = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
    step = max(1, BLOCK_ENTRIES // max(1, Y.shape[0]))
    for start in range(0, X.shape[0], step):
        out[start : start + step] = squared_distances(X[start : start + step], Y)
    return out


def rbf_row_blocks(D, gamma: float):
    """Yield ``(first row, exp(-gamma D[rows]))`` over row blocks of ``D`` (squared distances),
    each block a float64 array of about :data:`BLOCK_ENTRIES` entries: an RBF kernel too large
    to hold at once, used block by block."""
    step = max(1, BLOCK_ENTRIES // max(1, D.shape[1]))
    for start in range(0, D.shape[0], step):
        block = np.asarray(D[start : start + step], dtype=np.float64)
        yield start, np.exp(-gamma * block, out=block)


class RBFGrid:
    """RBF kernels ``exp(-gamma D)`` of one training set, and optionally one test set against it,
    at any width, from squared distances computed once (a width grid's kernels cost one
    exponential each, not one GEMM each).

    The last kernel of each part is kept: a grid's points of one width (several regularisation
    constants, subclass counts, SVM costs) follow each other and share it. ``mean_d2`` is the
    training set's mean squared distance, the unit of relative widths.
    """

    def __init__(self, X_train, X_test=None):
        self.D_train = squared_distances(X_train)
        self.D_test = None if X_test is None else squared_distances(X_test, X_train)
        self.mean_d2 = float(self.D_train.mean())
        self._last = {}

    def _kernel(self, part, D, gamma):
        if part not in self._last or self._last[part][0] != gamma:
            self._last[part] = (gamma, np.exp(-gamma * D))
        return self._last[part][1]

    def train(self, gamma: float) -> np.ndarray:
        """The training kernel at ``gamma`` (kept until another width is asked for)."""
        return self._kernel("train", self.D_train, gamma)

    def test(self, gamma: float) -> np.ndarray:
        """The test-against-training kernel at ``gamma`` (kept until another width is asked for)."""
        return self._kernel("test", self.D_test, gamma)


@reusable
def pairwise_kernel(
    X, Y=None, *, kernel="rbf", gamma=None, degree=2, coef0=1.0, dtype=None
) -> np.ndarray:
    """Kernel matrix ``K_ij = k(x_i, y_j)`` (``Y=None``: ``Y = X``).

    kernels:

    * ``"linear"``: ``k(a, b) = a^T b``;
    * ``"rbf"``: ``k(a, b) = exp(-gamma ||a - b||^2)``, ``gamma = 1 / (2 sigma^2)``
      (:func:`gamma_from_sigma`); ``gamma=None`` means ``1 / n_features``, ``gamma="scale"``
      ``1 / (n_features * var)`` of the training side (``Y`` if given, else ``X``; see
      :func:`resolve_gamma`);
    * ``"poly"``: ``k(a, b) = (gamma a^T b + coef0)^degree``, ``gamma`` as for rbf
      (``None``: the convention of ``sklearn.metrics.pairwise.polynomial_kernel``;
      the "degree-2 polynomial" ``(a^T b + c)^2`` of the papers is ``gamma=1, coef0=c``);
    * ``"precomputed"``: ``X`` is already a kernel matrix and is returned validated (not copied
      when it has the right dtype). With ``Y=None`` it must be square (a training kernel); with
      ``Y`` (the training samples or the training kernel) it must have shape
      ``(n_queries, Y.shape[0])``.

    ``dtype`` (np.float32 or np.float64) sets the dtype of the result; by default float32 only
    when every input is float32. The matrix is built in place from the GEMM ``X Y^T``, so its
    peak memory is one ``n_X x n_Y`` array plus O(n_X + n_Y).
    """
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(
            f"kernel={kernel!r} is not supported: expected one of "
            + ", ".join(repr(k) for k in KERNELS)
            + "."
        )
    if kernel == "precomputed":
        return _check_precomputed(X, Y, dtype)
    X, Y = check_pair(X, Y, dtype)
    if kernel == "linear":
        return X @ X.T if Y is None else X @ Y.T
    gamma = resolve_gamma(gamma, X if Y is None else Y)
    if kernel == "rbf":
        G, x_norms, y_norms = gram_and_norms(*recentre_for_distances(X, Y))
        with threads_for(G.size):
            _rbf_from_gram(G, x_norms, y_norms, gamma, Y is None)
        return G
    degree, coef0 = _check_degree(degree), check_coef0(coef0)
    G = X @ X.T if Y is None else X @ Y.T
    with threads_for(G.size):
        _poly_from_gram(G, gamma, coef0, degree)
    return G


def _check_precomputed(K, Y, dtype) -> np.ndarray:
    dt = _result_dtype([K], _check_dtype(dtype))
    K = _as_matrix(K, "the precomputed kernel X", dt)
    if Y is None and K.shape[0] != K.shape[1]:
        raise ValueError(
            f"A precomputed training kernel must be square (n_samples, n_samples), got shape "
            f"{K.shape}."
        )
    if Y is not None and K.shape[1] != np.shape(Y)[0]:
        raise ValueError(
            f"A precomputed kernel against {np.shape(Y)[0]} training samples must have shape "
            f"(n_queries, {np.shape(Y)[0]}), got {K.shape}."
        )
    return K


class KernelStats(NamedTuple):
    """What centring a new kernel needs from the training kernel ``K`` (N x N)."""

    col_means: np.ndarray
    """``1/N sum_i K_ij`` for every training sample ``j``."""
    mean: float
    """``1/N^2 sum_ij K_ij``."""


def center_kernel_train(K, *, copy: bool = True) -> tuple[np.ndarray, KernelStats]:
    """Centre a training kernel in feature space: ``Kc = H K H`` with ``H = I - 11^T / N``.

    Entrywise ``Kc_ij = K_ij - m_j - r_i + m`` with ``m_j`` the column means, ``r_i`` the row
    means and ``m`` the overall mean of ``K`` (``sklearn.preprocessing.KernelCenterer``).
    ``copy=False`` overwrites ``K`` (when it is a float array) to save an N x N array.

    Returns ``(Kc, stats)``; pass ``stats`` to :func:`center_kernel_test`.
    """
    K = _as_kernel(K, "K", copy)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"A training kernel must be square (n_samples, n_samples), got {K.shape}.")
    n = K.shape[0]
    col_means = K.sum(axis=0, dtype=np.float64) / n
    row_means = K.sum(axis=1, dtype=np.float64) / n
    stats = KernelStats(col_means, float(col_means.sum() / n))
    with threads_for(K.size):
        _center_into(K, K, col_means, row_means, stats.mean)
    return K, stats


def center_kernel_test(Kt, stats: KernelStats, *, copy: bool = True) -> np.ndarray:
    """Centre a kernel between new and training samples like its training kernel.

    ``Kt`` is ``(n_queries, N)`` with ``Kt_ij = k(x_i, x_train_j)``; entrywise
    ``Kt_c_ij = Kt_ij - m_j - t_i + m`` with ``m_j``, ``m`` from ``stats`` (the training kernel)
    and ``t_i`` the row means of ``Kt``, i.e. ``Kt_c = (Kt - 11^T K / N) H``.
    """
    Kt = _as_kernel(Kt, "Kt", copy)
    col_means, mean = stats
    if Kt.shape[1] != col_means.shape[0]:
        raise ValueError(
            f"Kt has {Kt.shape[1]} columns but the training kernel had {col_means.shape[0]} "
            "samples: Kt must be (n_queries, n_train)."
        )
    row_means = Kt.sum(axis=1, dtype=np.float64) / Kt.shape[1]
    with threads_for(Kt.size):
        _center_into(Kt, Kt, col_means, row_means, float(mean))
    return Kt


def _as_kernel(K, name: str, copy: bool) -> np.ndarray:
    """``K`` as a float array that may be overwritten (a copy unless ``copy=False``)."""
    given = np.asarray(K)
    dt = np.float32 if given.dtype == np.float32 else np.float64
    K = _as_matrix(given, name, np.dtype(dt))
    if (copy and K is given) or not K.flags.writeable:
        K = K.copy()  # a dtype conversion above already made a private copy
    return K


# --------------------------------------------------------------------------------------------
# kernel health: a kernel that is numerically the identity or a constant carries no information
# --------------------------------------------------------------------------------------------

#: below this median neighbour similarity the kernel is "identity-like": a sample's kernel value
#: with its nearest other training sample is under 1e-6 of its own (RBF: gamma d_nn^2 > 13.8),
#: so a new point has kernel values ~0 with every training sample and embeds where all do
IDENTITY_SIMILARITY = 1e-6
#: below this centred share the centred kernel is "constant-like": centring cancels about
#: -log10(share) of the 16 significant digits of float64, leaving under 8 (the eigenvalue
#: thresholds of the kernel estimators, 1e-6 to 1e-10 of the largest, then see rounding noise)
CONSTANT_SHARE = 1e-8
#: rows examined: the two statistics are medians and ratios, estimated well from this many
#: rows at O(rows x N) cost instead of O(N^2)
_HEALTH_ROWS = 1000


class DegenerateKernelWarning(UserWarning):
    """The training kernel is numerically the identity (every sample is alone in feature space)
    or a constant (centring leaves only rounding noise): the embedding carries no information."""


class KernelHealth(NamedTuple):
    """Two numbers that tell whether a training kernel can carry information (see
    :func:`kernel_health`)."""

    neighbour_similarity: float
    """Median over samples of ``max_{j != i} K_ij / sqrt(K_ii K_jj)`` (1: a duplicate or a
    constant kernel; near 0: identity-like)."""
    centred_share: float
    """``tr(H K H) / tr(K)``: the share of the feature-space energy that is variation around
    the mean (0 for a constant kernel; ``1 - 1/N`` for the identity)."""
    n_rows: int
    """Training samples the statistics were computed on (at most 1000, evenly spaced)."""

    @property
    def identity_like(self) -> bool:
        return self.neighbour_similarity < IDENTITY_SIMILARITY

    @property
    def constant_like(self) -> bool:
        return self.centred_share < CONSTANT_SHARE


@njit(parallel=True)
def _best_neighbours(K, rows, inv):  # pragma: no cover - compiled; tested against numpy
    """For each sampled row ``i``: the largest finite ``K_ij inv_j inv_i`` over ``j != i`` with
    ``inv_j > 0`` (-inf if none), in float64, without the rows x N copy a vectorised version
    needs (the health check runs on every kernel fit)."""
    out = np.empty(rows.size)
    for t in prange(rows.size):
        i = rows[t]
        s = inv[i]
        best = -np.inf
        for j in range(K.shape[1]):
            if j == i or inv[j] == 0.0:
                continue
            v = (np.float64(K[i, j]) * inv[j]) * s
            if np.isfinite(v) and v > best:
                best = v
        out[t] = best
    return out


@njit
def _sub_kernel_sums(K, rows):  # pragma: no cover - compiled; tested against numpy
    """Trace and sum, in float64, of the sub-kernel ``K[rows][:, rows]`` (row by row, then the
    row totals: the rounding error stays ~rows * eps, as the centred share of a near-constant
    kernel is a difference of the two)."""
    trace = 0.0
    total = 0.0
    for a in range(rows.size):
        trace += np.float64(K[rows[a], rows[a]])
        row = 0.0
        for b in range(rows.size):
            row += np.float64(K[rows[a], rows[b]])
        total += row
    return trace, total


def kernel_health(K) -> KernelHealth:
    """Neighbour similarity and centred share of an (uncentred) N x N training kernel ``K``.

    Computed on at most 1000 evenly spaced rows (their columns against all N samples for the
    neighbour similarity, their own sub-kernel for the centred share), in float64: O(1000 N)
    work, negligible next to any kernel estimator's O(N^3). The sub-kernel of a subset is the
    kernel of that subset, so the centred share is the same statistic on a sample of the data.
    Rows with a non-positive diagonal (possible for a precomputed or linear kernel: a zero
    sample) are skipped by the similarity.
    """
    K = np.asarray(K)
    n = K.shape[0]
    rows = np.unique(np.linspace(0, n - 1, min(n, _HEALTH_ROWS)).round().astype(np.intp))
    diag = np.asarray(np.diagonal(K), dtype=np.float64)
    if n > 1:
        # a zero diagonal makes the sample no one's neighbour (and its own row is dropped)
        with np.errstate(divide="ignore"):
            inv = 1.0 / np.sqrt(np.abs(diag))
        inv[~np.isfinite(inv)] = 0.0
        best = _best_neighbours(K, rows, inv)
        best = best[np.isfinite(best) & (diag[rows] > 0)]
        similarity = float(np.median(best)) if best.size else 1.0
    else:
        similarity = 1.0
    trace, total = _sub_kernel_sums(K, rows)
    centred = trace - total / rows.size
    share = centred / trace if trace > 0 else 0.0
    return KernelHealth(similarity, max(share, 0.0), int(rows.size))


def _mean_sq_distance(X: np.ndarray) -> float:
    """Mean squared distance over ordered pairs of rows: ``2 sum_k var_k``."""
    return float(2.0 * np.var(X, axis=0, dtype=np.float64).sum())


def check_kernel_health(
    K, *, method: str, kernel: str, gamma=None, X=None, stacklevel: int = 3
) -> KernelHealth:
    """Warn (:class:`DegenerateKernelWarning`) when the training kernel ``K`` is degenerate.

    * identity-like (:data:`IDENTITY_SIMILARITY`): only checked for the RBF and precomputed
      kernels (a linear or polynomial kernel of orthogonal samples still maps new points
      linearly);
    * constant-like (:data:`CONSTANT_SHARE`): any kernel; RBF with ``gamma`` too small, or a
      linear/polynomial kernel of data with an offset much larger than its spread.

    The message gives the statistic found, the ``gamma`` used, the data's scale (mean squared
    distance between samples, when ``X`` is given) and a suggested ``gamma``
    (``"scale"``: ``1 / (D X.var())``). Returns the :class:`KernelHealth`.
    """
    health = kernel_health(K)
    identity = health.identity_like and kernel in ("rbf", "precomputed")
    if not (identity or health.constant_like):
        return health
    setting = f"kernel={kernel!r}" + (
        f", gamma={gamma:.4g}" if kernel in ("rbf", "poly") and gamma is not None else ""
    )
    scale, hint = "", ""
    if X is not None:
        X = np.asarray(X)
        msd = _mean_sq_distance(X)
        scale = (
            f" The data: {X.shape[1]} features, mean squared distance between samples {msd:.3g}"
            + (f" (gamma x that = {gamma * msd:.3g}; about 2 is typical)." if gamma else ".")
        )
        suggested = resolve_gamma("scale", X)
        if kernel == "rbf":
            hint = (
                f" Use gamma='scale' (= 1 / (n_features * X.var()) = {suggested:.4g} here) or "
                "a width of the order of the distances between samples, or rescale the data."
            )
    if identity:
        what = (
            f"is numerically the identity: the median over training samples of the largest "
            f"normalised kernel value with another sample is {health.neighbour_similarity:.3g} "
            f"(below {IDENTITY_SIMILARITY:g}), so a new point has kernel values ~0 with every "
            "training sample and all new points embed at the same place (gamma too large for "
            "the data's scale)"
        )
        if kernel == "precomputed":
            hint = " Build the kernel with a smaller gamma (a wider kernel)."
    else:
        what = (
            f"is numerically a constant: after centring only {health.centred_share:.3g} of its "
            f"trace is left (tr(HKH) / tr(K), below {CONSTANT_SHARE:g}), i.e. centring cancels "
            f"about {-np.log10(max(health.centred_share, 1e-300)):.0f} of float64's 16 digits "
            "and the embedding is mostly rounding noise"
        )
        if kernel == "rbf":
            what += " (gamma too small for the data's scale)"
        elif kernel in ("linear", "poly"):
            what += " (data with an offset much larger than its spread)"
            hint = " Centre and scale the data (e.g. sklearn's StandardScaler) before fitting."
        elif kernel == "precomputed":
            hint = " Build the kernel with a larger gamma, or from centred data."
    warnings.warn(
        f"{method}: the training kernel ({setting}) {what}.{scale}{hint}",
        DegenerateKernelWarning,
        stacklevel=stacklevel,
    )
    return health


def centred_kernel_range(Kc: np.ndarray, rtol: float) -> tuple[np.ndarray, np.ndarray]:
    """The eigenpairs of a centred kernel above ``rtol * max`` (ascending): ``Kc = P L P^T`` on its
    range, the one basis of the kernel estimators that work there (KQMI, CKFD, GDA, KNDA, KUDA,
    KODA); ``Kc`` may be overwritten.

    All eigenpairs by :func:`eigh_centred_kernel` (one ``syevd`` call, shared with the other
    kernel estimators of a :func:`reuse_kernels` block). A centred kernel always has the null
    vector 1, and an RBF kernel many eigenvalues at rounding level; dividing by them (``L^-1``)
    would amplify noise, so they go. Returns (L (r,), P (N, r)), views of the decomposition's
    arrays (read-only for the caller: they may be shared). Raises ``ValueError`` when no
    eigenvalue is positive (nothing to embed).
    """
    lam, P = eigh_centred_kernel(Kc)
    top = lam[-1] if lam.size else 0.0
    if not top > 0:
        raise ValueError(
            "The centred kernel matrix has no positive eigenvalue (all training points coincide "
            "in feature space): there is no direction to embed."
        )
    first = int(np.searchsorted(lam, rtol * top, side="right"))
    return lam[first:], P[:, first:]


# ---- memory guard (user need C-11: "Unable to allocate 95.6 GiB" is said before allocating) ----


def _available_memory() -> int | None:
    """Bytes of memory available to this process now (psutil, else /proc/meminfo, else None)."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def check_kernel_memory(n_samples: int, *, n_matrices: int, dtype, method: str) -> int:
    """Raise ``MemoryError`` before allocation when ``n_matrices`` N x N arrays would not fit.

    Returns the number of bytes needed. The message states the size, the memory available and what
    to do (float32 halves it; fewer samples shrink it quadratically).
    """
    itemsize = np.dtype(dtype).itemsize
    need = int(n_matrices) * int(n_samples) ** 2 * itemsize
    available = _available_memory()
    if available is not None and need > available:
        gib = 2**30
        hint = "use dtype='float32' (halves it), " if itemsize > 4 else ""
        raise MemoryError(
            f"{method} with n_samples={n_samples} needs about {need / gib:.1f} GiB "
            f"({n_matrices} x {n_samples} x {n_samples} {np.dtype(dtype).name} matrices), but only "
            f"{available / gib:.1f} GiB is available: {hint}train on fewer samples (memory grows "
            "with n_samples^2) or use a machine with more memory."
        )
    return need
