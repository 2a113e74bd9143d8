"""graphdr.pipeline.runtime: the job helpers shared by the workflow scripts."""


def test_count_eigendecompositions_sees_every_call_and_restores_scipy():
    import numpy as np
    import scipy.linalg

    from graphdr.pipeline.runtime import count_eigendecompositions

    original = scipy.linalg.eigh
    with count_eigendecompositions() as counter:
        scipy.linalg.eigh(np.eye(3))
        scipy.linalg.eigvalsh(np.eye(3))
    assert counter["n"] == 2
    assert scipy.linalg.eigh is original
    with count_eigendecompositions(min_size=4) as counter:  # only matrices of order >= 4
        scipy.linalg.eigh(np.eye(3))
        scipy.linalg.eigh(np.eye(5), b=2 * np.eye(5))
    assert counter["n"] == 1 and scipy.linalg.eigh is original
