"""ResNet-18 as torchvision defines it (`models.py`): its training step, imported, compiled and run, against
PyTorch eager (`model_steps.check_training_step` states the comparison)."""

import pytest

from model_steps import DTYPES, check_training_step


@pytest.mark.parametrize("dtype", DTYPES)
def test_resnet18_training_step_matches_pytorch(dtype):
    check_training_step("resnet18", dtype)
