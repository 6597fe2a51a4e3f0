"""VGG-11 with batch norm as torchvision defines it (`models.py`): its training step, imported, compiled and run, against
PyTorch eager (`model_steps.check_training_step` states the comparison)."""

import pytest

from model_steps import DTYPES, check_training_step


@pytest.mark.parametrize("dtype", DTYPES)
def test_vgg11_bn_training_step_matches_pytorch(dtype):
    check_training_step("vgg11_bn", dtype)
