"""Models not named in the import issue, built from the shared note's ops only
(`models.OTHER_MODELS`): their training steps against PyTorch eager
(`model_steps.check_training_step` states the comparison)."""

import pytest

import models
from model_steps import DTYPES, check_training_step

OTHER_MODELS = [
    pytest.param(
        name,
        marks=pytest.mark.xfail(
            raises=Warning, strict=False,
            reason="known: the optimizing-omp mlir-opt stage exceeds its time limit on this net's kernel "
            "library (the transform schedules on ~160 kernels, measured 135 s under load) and the build "
            "falls back to 'o3', which the suite treats as an error",
        ),
    ) if name == "mixed_activation_net" else name
    for name in models.OTHER_MODELS
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", OTHER_MODELS)
def test_training_step_matches_pytorch(name, dtype):
    check_training_step(name, dtype)
