"""Higher-order training steps written in PyTorch (`export_training_step(..., step_fn=f)`)
against PyTorch eager running the same `f` with `create_graph=True`.

Each step's loss differentiates inside itself: a gradient penalty at random interpolates
(WGAN-GP), R1 at the real samples, forces `-dE/dpos` of an MLP potential, the Laplacian of
a PINN, one inner SGD step of MAML. The step's result is the loss and the gradient of
every parameter of that loss (second or third order in the parameters and inputs).

The comparison is `oracle.assert_step_matches`: our step in f64 within 1e-9 of PyTorch's
f64 step, in f32 by the oracle's rule against PyTorch's f32 and f64 steps, all on the same
(f32-valued) weights and inputs. The two-routes test checks the imported WGAN-GP step
against the critic imported alone (`export_forward`) and differentiated twice by our
`autodiff`: PyTorch's double-backward formulas against our VJP rules.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FunctionType, TensorType

import rlx_mlir
from model_steps import NUMPY
from oracle import assert_step_matches
from rlx_mlir.dialects import rlx
from rlx_mlir.torch import export_training_step
from rlx_mlir.torch.forward import export_forward

DTYPES = {"f64": torch.float64, "f32": torch.float32}
LAMBDA = 10.0


def eager_step(model, step_fn, inputs, dtype) -> dict[str, np.ndarray]:
    """PyTorch eager: `step_fn` on a copy of `model` in `dtype`, then the parameter gradients."""
    model = copy.deepcopy(model).to(dtype)
    inputs = [t.detach().clone().to(dtype) if t.is_floating_point() else t for t in inputs]
    loss = step_fn(model, *inputs)
    params = dict(model.named_parameters())
    grads = torch.autograd.grad(loss, list(params.values()), allow_unused=True)
    out = {"loss": loss.detach().numpy()}
    out.update({f"grad/{name}": (torch.zeros_like(p) if g is None else g).detach().numpy()
                for (name, p), g in zip(params.items(), grads)})
    out.update({f"buffer/{name}": b.detach().numpy() for name, b in model.named_buffers()})
    return out


def our_step(model, step_fn, inputs, dtype) -> dict[str, np.ndarray]:
    model = copy.deepcopy(model).to(dtype)
    inputs = [t.detach().clone().to(dtype) if t.is_floating_point() else t for t in inputs]
    step = export_training_step(model, tuple(inputs), step_fn=step_fn)
    loss, grads, buffers = step.compile()(*inputs)
    out = {"loss": np.asarray(loss)}
    out.update({f"grad/{k}": np.asarray(v) for k, v in grads.items()})
    out.update({f"buffer/{k}": np.asarray(v) for k, v in buffers.items()})
    return out


def check(model, step_fn, inputs, dtype: str) -> None:
    want64 = eager_step(model, step_fn, inputs, torch.float64)
    want32 = [eager_step(model, step_fn, inputs, torch.float32)]
    ours = our_step(model, step_fn, inputs, DTYPES[dtype])
    assert set(ours) == set(want64)
    assert_step_matches(ours, want64, want32, NUMPY[DTYPES[dtype]], label=f"{step_fn.__name__} {dtype}")


# -- WGAN-GP -------------------------------------------------------------------------------

class DcganCritic(nn.Module):
    """DCGAN's critic, small: stride-2 4x4 convs with LeakyReLU(0.2), then one linear score."""

    def __init__(self, channels=(3, 4, 8), size=8):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 4, 2, 1) for a, b in zip(channels, channels[1:]))
        side = size >> len(self.convs)
        self.score = nn.Linear(channels[-1] * side * side, 1)

    def forward(self, x):
        for conv in self.convs:
            x = F.leaky_relu(conv(x), 0.2)
        return self.score(x.flatten(1))


def gradient_penalty(critic, x):
    """mean_n (||d critic(x)_n / d x_n|| - 1)^2."""
    x = x.requires_grad_(True)
    (g,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)
    return ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()


def wgan_gp(critic, real, fake, eps):
    """The WGAN-GP critic loss, the penalty at the interpolates eps * real + (1 - eps) * fake."""
    mixed = eps * real + (1 - eps) * fake
    return critic(fake).mean() - critic(real).mean() + LAMBDA * gradient_penalty(critic, mixed)


def wgan_inputs(batch=2, size=8):
    generator = torch.Generator().manual_seed(1)
    return (torch.randn(batch, 3, size, size, generator=generator), torch.randn(batch, 3, size, size, generator=generator),
            torch.rand(batch, 1, 1, 1, generator=generator))


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_wgan_gp_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    check(DcganCritic(), wgan_gp, wgan_inputs(), dtype)


def penalty_of_input_gradient(module, vjp_name: str, name: str) -> None:
    """Add `@name`: the body of `@vjp_name` (whose one result is the critic's input gradient g)
    with `LAMBDA * mean_n (sqrt(sum g_n^2) - 1)^2` in place of its return, in RLX ops."""
    gp = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == vjp_name).clone()
    block = gp.body.block
    ret = block.last_op
    g = ret.operands[0]
    element = g.type.element_type
    batch = g.type.get_shape()[0]

    def emit(op_class, operands, shape, **properties):
        op = op_class.build_with(operands, TensorType(element, shape), **properties)
        block.insert_op_before(op, ret)
        return op.results[0]

    def scalar(value):
        op = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(element, []), [value]), TensorType(element, []))
        block.insert_op_before(op, ret)
        return op.result

    squares = emit(rlx.SumOp, [emit(rlx.MulOp, [g, g], g.type.get_shape())], [batch], dims=[1, 2, 3])
    distance = emit(rlx.SubOp, [emit(rlx.SqrtOp, [squares], [batch]), scalar(1.0)], [batch])
    mean = emit(rlx.MeanOp, [emit(rlx.MulOp, [distance, distance], [batch])], [], dims=[0])
    penalty = emit(rlx.MulOp, [mean, scalar(LAMBDA)], [])
    ret.detach()
    ret.erase()
    block.add_op(func.ReturnOp(penalty))
    gp.sym_name = type(gp.sym_name)(name)
    gp.function_type = FunctionType.from_lists(gp.function_type.inputs.data, [penalty.type])
    module.body.block.add_op(gp)


def penalty_step(critic, x):
    return LAMBDA * gradient_penalty(critic, x)


def test_wgan_gp_step_agrees_with_the_critic_differentiated_twice_by_autodiff():
    """Route 1: PyTorch's double backward, imported (`step_fn`). Route 2: the critic alone
    (`export_forward`, its sum as the loss), `autodiff` with respect to x, the penalty
    written over that gradient in RLX ops, `autodiff` again with respect to the parameters."""
    torch.manual_seed(0)
    critic = DcganCritic().double()
    real, fake, eps = (t.double() for t in wgan_inputs())
    x = eps * real + (1 - eps) * fake
    _, route1, _ = export_training_step(critic, (x,), step_fn=penalty_step).compile()(x)

    forward = export_forward(critic, (x, torch.zeros(2, dtype=torch.float64)), loss_fn=lambda scores, _: scores.sum())
    x_index = len(forward.parameter_names) + len(forward.buffer_names)
    module = rlx_mlir.autodiff(forward.module, forward.function_name, wrt=[x_index])
    penalty_of_input_gradient(module, forward.function_name + "_vjp", "gp")
    module = rlx_mlir.autodiff(module, "gp", wrt=forward.parameter_indices)
    arguments = [p.detach().numpy() for p in critic.parameters()] + [x.numpy(), np.zeros(2), np.array(1.0)]
    route2 = rlx_mlir.compile(module)["gp_vjp"](*arguments, np.array(1.0))
    for name, got in zip(forward.parameter_names, route2):
        want = route1[name]
        assert np.linalg.norm(got - want) <= 1e-9 * np.linalg.norm(want), name


class BatchNormCritic(nn.Module):
    """A stride-2 conv, a training-mode BatchNorm2d and LeakyReLU, a second conv, a linear score."""

    def __init__(self):
        super().__init__()
        self.conv1, self.norm = nn.Conv2d(3, 4, 4, 2, 1), nn.BatchNorm2d(4)
        self.conv2, self.score = nn.Conv2d(4, 8, 4, 2, 1), nn.Linear(8 * 2 * 2, 1)

    def forward(self, x):
        x = F.leaky_relu(self.norm(self.conv1(x)), 0.2)
        return self.score(F.leaky_relu(self.conv2(x), 0.2).flatten(1))


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_wgan_gp_step_with_batch_norm_matches_pytorch(dtype):
    """The critic runs three times (fake, real, interpolates): the running statistics are
    updated three times, and the penalty differentiates batch norm's backward."""
    torch.manual_seed(0)
    check(BatchNormCritic(), wgan_gp, wgan_inputs(), dtype)


def test_exporting_a_step_leaves_the_model_buffers_unchanged():
    """Tracing runs the step (twice): on copies of the buffers, not the model's own."""
    torch.manual_seed(0)
    critic = BatchNormCritic()
    before = {name: b.clone() for name, b in critic.named_buffers()}
    export_training_step(critic, wgan_inputs(), step_fn=wgan_gp)
    assert all(torch.equal(b, before[name]) for name, b in critic.named_buffers())


# -- R1 ------------------------------------------------------------------------------------

class SmallDiscriminator(nn.Module):
    """A 3x3 conv and a stride-2 4x4 conv with LeakyReLU(0.2), then one linear logit."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, 1, 1)
        self.conv2 = nn.Conv2d(4, 8, 4, 2, 1)
        self.logit = nn.Linear(8 * 4 * 4, 1)

    def forward(self, x):
        x = F.leaky_relu(self.conv2(F.leaky_relu(self.conv1(x), 0.2)), 0.2)
        return self.logit(x.flatten(1))


def r1_regularized(discriminator, real, fake):
    """The non-saturating GAN loss of the discriminator, softplus(-D(real)) + softplus(D(fake))
    written as -log(sigmoid(.)), plus R1 = gamma/2 E ||d D(real) / d real||^2."""
    real = real.requires_grad_(True)
    real_logits = discriminator(real)
    (g,) = torch.autograd.grad(real_logits.sum(), real, create_graph=True)
    r1 = 0.5 * LAMBDA * g.pow(2).flatten(1).sum(1).mean()
    fake_logits = discriminator(fake)
    return -torch.log(torch.sigmoid(real_logits)).mean() - torch.log(torch.sigmoid(-fake_logits)).mean() + r1


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_r1_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(2)
    real, fake = torch.randn(2, 3, 8, 8, generator=generator), torch.randn(2, 3, 8, 8, generator=generator)
    check(SmallDiscriminator(), r1_regularized, (real, fake), dtype)


# -- force matching ------------------------------------------------------------------------

ATOMS = 16


class PairPotential(nn.Module):
    """E = sum over atom pairs i < j of an MLP of their distance r_ij = ||pos_i - pos_j||."""

    def __init__(self, width=16):
        super().__init__()
        first, second = torch.triu_indices(ATOMS, ATOMS, 1)
        self.register_buffer("first", first, persistent=False)
        self.register_buffer("second", second, persistent=False)
        self.mlp = nn.Sequential(nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1))

    def forward(self, pos):
        r = (pos.index_select(1, self.first) - pos.index_select(1, self.second)).norm(dim=-1)
        return self.mlp(r.unsqueeze(-1)).squeeze(-1).sum(1)


def force_matching(potential, pos, energy, forces):
    """Energy MSE plus force MSE, the forces -dE/dpos."""
    pos = pos.requires_grad_(True)
    e = potential(pos)
    (de_dpos,) = torch.autograd.grad(e.sum(), pos, create_graph=True)
    return F.mse_loss(e, energy) + F.mse_loss(-de_dpos, forces)


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_force_matching_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(3)
    pos = 2.0 * torch.randn(2, ATOMS, 3, generator=generator)
    energy, forces = torch.randn(2, generator=generator), torch.randn(2, ATOMS, 3, generator=generator)
    check(PairPotential(), force_matching, (pos, energy, forces), dtype)


# -- PINN ----------------------------------------------------------------------------------

class TanhMlp(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1))

    def forward(self, xy):
        return self.net(xy).squeeze(-1)


def poisson_residual(u, interior, forcing, boundary):
    """Laplace(u) = f inside (f given at the interior points), u = 0 on the boundary.

    The Laplacian is u_xx + u_yy, each the derivative of one component of grad u."""
    xy = interior.requires_grad_(True)
    (grad_u,) = torch.autograd.grad(u(xy).sum(), xy, create_graph=True)
    (hess_x,) = torch.autograd.grad(grad_u[:, 0].sum(), xy, create_graph=True)
    (hess_y,) = torch.autograd.grad(grad_u[:, 1].sum(), xy, create_graph=True)
    laplacian = hess_x[:, 0] + hess_y[:, 1]
    return ((laplacian - forcing) ** 2).mean() + (u(boundary) ** 2).mean()


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_pinn_poisson_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(4)
    interior = torch.rand(8, 2, generator=generator)
    forcing = -2 * torch.pi ** 2 * torch.sin(torch.pi * interior[:, 0]) * torch.sin(torch.pi * interior[:, 1])
    boundary = torch.rand(4, 2, generator=generator).round()
    check(TanhMlp(), poisson_residual, (interior, forcing, boundary), dtype)


# -- MAML ----------------------------------------------------------------------------------

class TinyCnn(nn.Module):
    """A 3x3 conv with ReLU, then a linear classifier over 3 classes."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.head = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        return self.head(F.relu(self.conv(x)).flatten(1))


INNER_LR = 0.4


def maml(model, support_x, support_y, query_x, query_y):
    """The query loss of the weights after one SGD step on the support set, through that step."""
    params = dict(model.named_parameters())
    inner = F.cross_entropy(model(support_x), support_y)
    grads = torch.autograd.grad(inner, list(params.values()), create_graph=True)
    adapted = {name: p - INNER_LR * g for (name, p), g in zip(params.items(), grads)}
    return F.cross_entropy(torch.func.functional_call(model, adapted, (query_x,)), query_y)


@pytest.mark.parametrize("dtype", ["f64", "f32"])
def test_maml_step_matches_pytorch(dtype):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(5)
    support_x, query_x = torch.randn(3, 1, 6, 6, generator=generator), torch.randn(3, 1, 6, 6, generator=generator)
    support_y, query_y = torch.tensor([0, 1, 2]), torch.tensor([2, 0, 1])
    check(TinyCnn(), maml, (support_x, support_y, query_x, query_y), dtype)


# -- torch.func ------------------------------------------------------------------------------

def input_gradient_norm(model, x):
    """mean ||d model(x) / dx||^2 through `torch.func.grad`; the last bias has no gradient (zeros)."""
    g = torch.func.grad(lambda inputs: model(inputs).sum())(x)
    return (g ** 2).mean()


def test_torch_func_grad_inside_the_step_matches_pytorch():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    check(model, input_gradient_norm, (torch.randn(4, 3),), "f64")


def output_and_pullback_penalty(model, x, cotangent):
    """`torch.func.vjp`: the output's mean square plus that of the input cotangent J^T v."""
    out, pullback = torch.func.vjp(model, x)
    (g,) = pullback(cotangent)
    return out.pow(2).mean() + g.pow(2).mean()


def output_and_tangent_penalty(model, x, tangent):
    """`torch.func.jvp` (forward mode: make_fx records each op's JVP formula as ATen ops,
    `tanh_backward` for tanh's): the output's mean square plus that of J t."""
    out, jt = torch.func.jvp(model, (x,), (tangent,))
    return out.pow(2).mean() + jt.pow(2).mean()


def hessian_vector_norm(model, x, v):
    """`torch.func.hessian` of the summed output at the first sample (jacfwd over jacrev:
    its basis is `diagonal_scatter` into zeros, its batched `tanh_backward` broadcasts),
    then ||H v||^2."""
    h = torch.func.hessian(lambda point: model(point).sum())(x[0])
    return (h @ v[0]).pow(2).sum()


@pytest.mark.parametrize("step_fn", [output_and_pullback_penalty, output_and_tangent_penalty, hessian_vector_norm],
                         ids=lambda f: f.__name__)
def test_torch_func_transform_inside_the_step_matches_pytorch(step_fn):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(7)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    x = torch.randn(4, 3, generator=generator)
    other = torch.randn(4, 2 if step_fn is output_and_pullback_penalty else 3, generator=generator)
    check(model, step_fn, (x, other), "f64")


def off_diagonals(model, x):
    """`diagonal` and `diagonal_scatter` at offsets +-1 with the dims swapped (the Hessian's
    basis uses only the main diagonal of a square matrix)."""
    y = model(x).view(2, 3, 4)
    above = y.diagonal(offset=1, dim1=2, dim2=1)
    scaled = torch.diagonal_scatter(y, 3 * above, offset=1, dim1=2, dim2=1)
    return scaled.pow(2).mean() + y.diagonal(offset=-1, dim1=1, dim2=2).pow(3).sum()


def test_diagonals_at_offsets_match_pytorch():
    torch.manual_seed(0)
    check(nn.Linear(5, 12), off_diagonals, (torch.randn(2, 5, generator=torch.Generator().manual_seed(8)),), "f64")
