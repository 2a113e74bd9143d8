"""graphdr.solvers against scipy's generalised eigensolver and the defining identities."""

import re

import numpy as np
import pytest
import scipy.linalg

from graphdr._validation import (
    check_n_classes,
    check_n_components,
    check_positive_int,
    check_positive_real,
)
from graphdr.solvers import (
    eigh_generalized,
    eigh_generalized_lowrank,
    flip_signs,
    numerical_rank,
    principal_angles_gesvd,
)


def _spd(rng, n, rank=None):
    G = rng.normal(size=(n, rank or n))
    return G @ G.T + (0 if rank else 1e-3) * np.eye(n)


@pytest.mark.parametrize("largest", [True, False])
def test_regularized_matches_scipy_on_definite_problem(largest):
    rng = np.random.default_rng(0)
    A, B = _spd(rng, 12), _spd(rng, 12)
    w, V = eigh_generalized(A, B, 4, largest=largest, reg=0.0)
    ref = scipy.linalg.eigh(A, B, eigvals_only=True)
    expected = ref[::-1][:4] if largest else ref[:4]
    np.testing.assert_allclose(w, expected, rtol=1e-10)
    np.testing.assert_allclose(A @ V, B @ V * w, atol=1e-8)
    np.testing.assert_allclose(V.T @ B @ V, np.eye(4), atol=1e-10)


def test_range_variant_solves_the_problem_inside_the_range_of_B():
    rng = np.random.default_rng(1)
    A, B = _spd(rng, 10), _spd(rng, 10, rank=6)
    w, V = eigh_generalized(A, B, 6, method="range")
    assert np.all(np.diff(w) <= 0)
    np.testing.assert_allclose(V.T @ B @ V, np.eye(6), atol=1e-8)
    # Reference: the same problem written in an explicit basis of range(B).
    s, U = scipy.linalg.eigh(B)
    Ur = U[:, s > 1e-10 * s.max()]
    ref = scipy.linalg.eigh(Ur.T @ A @ Ur, Ur.T @ B @ Ur, eigvals_only=True)[::-1]
    np.testing.assert_allclose(w, ref, rtol=1e-8)


def test_range_variant_states_the_rank_when_too_many_components():
    rng = np.random.default_rng(2)
    A, B = _spd(rng, 8), _spd(rng, 8, rank=3)
    with pytest.raises(ValueError, match=r"n_components=5 is larger than the rank of B = 3"):
        eigh_generalized(A, B, 5, method="range")


@pytest.mark.parametrize("method", ["regularized", "range"])
@pytest.mark.parametrize("b_rank", [None, 9])
def test_lowrank_A_solver_equals_the_dense_solver(method, b_rank):
    """A = F F^T of rank m: the factored solve gives the dense solve's pairs (scipy's sygvx and
    the range rule of eigh_generalized are the independent reference), with V^T B_reg V = I."""
    rng = np.random.default_rng(7)
    n, m, k = 14, 5, 4
    F, B = rng.normal(size=(n, m)), _spd(rng, n, rank=b_rank)
    reg = 1e-6
    w, V = eigh_generalized_lowrank(F, B, k, method=method, reg=reg)
    w_ref, V_ref = eigh_generalized(F @ F.T, B, k, largest=True, method=method, reg=reg)
    np.testing.assert_allclose(w, w_ref, rtol=1e-8)
    assert np.degrees(scipy.linalg.subspace_angles(V, V_ref).max()) < 1e-6
    np.testing.assert_allclose(np.abs(V), np.abs(V_ref), rtol=1e-6, atol=1e-9)
    if method == "regularized":
        B_reg = B + reg * np.trace(B) / n * np.eye(n)
        np.testing.assert_allclose(V.T @ B_reg @ V, np.eye(k), atol=1e-8)
        np.testing.assert_allclose(F @ (F.T @ V), B_reg @ V * w, rtol=1e-7, atol=1e-7)


def test_lowrank_A_solver_states_its_bounds():
    rng = np.random.default_rng(8)
    F, B = rng.normal(size=(8, 3)), _spd(rng, 8, rank=2)
    with pytest.raises(ValueError, match=r"rank at most m = 3"):
        eigh_generalized_lowrank(F, B, 4)
    with pytest.raises(ValueError, match=r"n_components=3 is larger than the rank of B = 2"):
        eigh_generalized_lowrank(F, B, 3, method="range")
    with pytest.raises(ValueError, match="finite"):
        eigh_generalized_lowrank(np.full((8, 3), np.nan), B, 1)


def test_regularized_variant_handles_singular_B_without_nan():
    rng = np.random.default_rng(3)
    A, B = _spd(rng, 8), _spd(rng, 8, rank=3)
    w, V = eigh_generalized(A, B, 2, reg=1e-6)
    assert np.all(np.isfinite(w)) and np.all(np.isfinite(V))


def test_standard_problem_and_sign_rule():
    rng = np.random.default_rng(4)
    A = _spd(rng, 9)
    w, V = eigh_generalized(A, None, 3)
    np.testing.assert_allclose(w, scipy.linalg.eigvalsh(A)[::-1][:3], rtol=1e-10)
    idx = np.argmax(np.abs(V), axis=0)
    assert np.all(V[idx, np.arange(3)] > 0)
    # Flipping the sign of the input basis gives back the same, canonical, vectors.
    np.testing.assert_array_equal(flip_signs(-V.copy()), V)


def test_bad_inputs():
    with pytest.raises(ValueError, match="square"):
        eigh_generalized(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN or inf"):
        eigh_generalized(np.array([[np.nan, 0], [0, 1.0]]))
    with pytest.raises(ValueError, match="expected"):
        eigh_generalized(np.eye(3), np.eye(2))
    with pytest.raises(ValueError, match="method"):
        eigh_generalized(np.eye(3), np.eye(3), method="qz")


def test_numerical_rank():
    rng = np.random.default_rng(5)
    assert numerical_rank(_spd(rng, 7, rank=4)) == 4


def test_check_n_components_message_states_bound_and_reason():
    assert check_n_components(None, 9, bound_name="n_classes - 1", reason="r") == 9
    with pytest.raises(
        ValueError, match=r"n_components=12 is larger than n_classes - 1 = 9: KDA has at most"
    ):
        check_n_components(
            12, 9, bound_name="n_classes - 1", reason="KDA has at most C-1 discriminant directions"
        )
    with pytest.raises(ValueError, match="positive integer"):
        check_n_components(2.5, 9, bound_name="b", reason="r")
    with pytest.raises(ValueError, match="at least 2 classes; y has 1"):
        check_n_classes(np.zeros(5, dtype=int))


#: the shared parameter checks: (function, its relaxing flag, the message for flag off / on)
_CHECKS = {
    "real": (check_positive_real, "allow_zero", ("a finite number > 0", "a finite number >= 0")),
    "int": (check_positive_int, "allow_none", ("an integer >= 1", "an integer >= 1 or None")),
}


@pytest.mark.parametrize(
    ("check", "value", "relaxed", "ok"),
    [
        ("real", 1e-9, False, True),
        ("real", 3, False, True),
        ("real", np.float32(0.5), False, True),
        ("real", 0.0, True, True),
        ("real", 0, False, False),
        ("real", -1e-9, True, False),
        ("real", np.inf, False, False),
        ("real", np.nan, True, False),
        ("real", True, False, False),
        ("real", "1", False, False),
        ("real", None, True, False),
        ("int", 1, False, True),
        ("int", np.int64(7), False, True),
        ("int", None, True, True),
        ("int", None, False, False),
        ("int", 0, True, False),
        ("int", -3, False, False),
        ("int", 2.0, False, False),
        ("int", True, False, False),
        ("int", np.bool_(True), True, False),
        ("int", "3", False, False),
    ],
)
def test_parameter_checks_accept_exactly_the_values_within_their_bound(check, value, relaxed, ok):
    function, flag, bounds = _CHECKS[check]
    if ok:
        assert function("tol", value, **{flag: relaxed}) is None
        return
    with pytest.raises(ValueError, match=f"tol must be {re.escape(bounds[relaxed])}, got"):
        function("tol", value, **{flag: relaxed})


def test_max_principal_angle_in_degrees_of_known_planes():
    from graphdr.solvers import max_principal_angle_deg

    e = np.eye(3)
    # the x-y plane against the plane spanned by x and (y + z) / sqrt(2): 45 degrees apart
    tilted = np.column_stack([e[0], (e[1] + e[2]) / np.sqrt(2.0)])
    assert max_principal_angle_deg(e[:, :2], tilted) == pytest.approx(45.0, abs=1e-10)
    assert max_principal_angle_deg(e[:, :2], e[:, :2] @ [[2.0, 1.0], [0.0, 3.0]]) < 1e-6
    assert max_principal_angle_deg(e[:, :1], e[:, 2:]) == pytest.approx(90.0)


@pytest.mark.parametrize(
    ("ka", "kb", "rotate"), [(5, 5, 0.0), (7, 4, 1e-9), (3, 6, 0.3), (6, 6, 1.2)]
)
def test_principal_angles_by_gesvd_equal_scipys_subspace_angles(ka, kb, rotate):
    """Independent reference: scipy.linalg.subspace_angles (gesdd); tiny, medium and large
    angles, unequal widths, and spans that overlap (rotate = 0: the same span)."""
    rng = np.random.default_rng(ka * 10 + kb)
    A = rng.standard_normal((60, ka))
    B = A[:, :kb] @ rng.standard_normal((kb, kb)) if kb <= ka else rng.standard_normal((60, kb))
    B = B + rotate * rng.standard_normal(B.shape)
    np.testing.assert_allclose(
        principal_angles_gesvd(A, B), scipy.linalg.subspace_angles(A, B), atol=1e-12
    )
