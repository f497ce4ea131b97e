import unittest

import pytest
import torch

from tinynet.model import make_model


def test_forward_shape():
    model = make_model().cuda()
    x = torch.randn(4, 10).cuda()
    assert model(x).shape == (4, 2)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_half_precision():
    model = make_model().cuda().half()
    assert model(torch.randn(4, 10, device="cuda").half()).dtype == torch.float16


class GradTest(unittest.TestCase):
    def test_grad(self):
        if not torch.cuda.is_available():
            self.skipTest("needs a GPU")
        model = make_model().cuda()
        model(torch.randn(2, 10).cuda()).sum().backward()
