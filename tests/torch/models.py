"""ResNet-18, MobileNetV2 and VGG-11-BN exactly as torchvision defines them, without torchvision.

Why local copies: the torchvision wheel on the package index is a CUDA build, and on the
CPU torch wheel `import torchvision` fails while registering its C++ operators
(`operator torchvision::nms does not exist`, see the shared PyTorch-frontend note). The
model definitions themselves are pure Python over `torch.nn`, so they are carried here,
module for module, with torchvision's submodule names (hence the same
`named_parameters()` / `named_buffers()`), layer order, hyper-parameters and weight
initialisation. Followed: pytorch/vision `torchvision/models/resnet.py` (BasicBlock,
ResNet, `resnet18`), `torchvision/models/mobilenetv2.py` (InvertedResidual, MobileNetV2,
`mobilenet_v2`), `torchvision/models/_utils.py` (`_make_divisible`),
`torchvision/ops/misc.py` (Conv2dNormActivation) and `torchvision/models/vgg.py` (VGG,
`make_layers`, cfg "A", `vgg11_bn`), in their current form (`torch.flatten(x, 1)`,
`nn.Dropout(p=dropout)` with `dropout` a constructor argument). Only the weight loading
(`weights=...`) and the API-usage logging are left out; nothing here changes a forward or
backward computation.

Besides the three models of the issue, `small_convnet_zoo()` builds models "not named in
the issue" from ops of the shared note's table only, to find importer gaps the three
miss.
"""

from __future__ import annotations

from functools import partial
from typing import Callable

import torch
from torch import Tensor, nn


# --- torchvision/ops/misc.py and models/_utils.py ------------------------------------------


def _make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """Round a channel count to a multiple of `divisor`, never more than 10% down (torchvision's rule)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Conv2dNormActivation(nn.Sequential):
    """conv (no bias when normalised, 'same' padding for odd kernels) -> norm -> activation."""

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: int = 3, stride: int = 1,
        padding: int | None = None, groups: int = 1,
        norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
        activation_layer: Callable[..., nn.Module] | None = nn.ReLU,
        dilation: int = 1, inplace: bool | None = True, bias: bool | None = None,
    ) -> None:
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers: list[nn.Module] = [
            nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding,
                      dilation=dilation, groups=groups, bias=bias)
        ]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            params = {} if inplace is None else {"inplace": inplace}
            layers.append(activation_layer(**params))
        super().__init__(*layers)
        self.out_channels = out_channels


# --- torchvision/models/resnet.py ---------------------------------------------------------


def conv3x3(in_planes: int, out_planes: int, stride: int = 1, groups: int = 1, dilation: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                     groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None,
                 norm_layer: Callable[..., nn.Module] = nn.BatchNorm2d) -> None:
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, layers: list[int], num_classes: int = 1000) -> None:
        super().__init__()
        norm_layer = self._norm_layer = nn.BatchNorm2d
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, block, planes: int, blocks: int, stride: int = 1) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride),
                norm_layer(planes * block.expansion),
            )
        layers = [block(self.inplanes, planes, stride, downsample, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


def resnet18(num_classes: int = 1000) -> ResNet:
    return ResNet(BasicBlock, [2, 2, 2, 2], num_classes=num_classes)


# --- torchvision/models/mobilenetv2.py ----------------------------------------------------


class InvertedResidual(nn.Module):
    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int,
                 norm_layer: Callable[..., nn.Module] = nn.BatchNorm2d) -> None:
        super().__init__()
        self.stride = stride
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        layers: list[nn.Module] = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=nn.ReLU6))
        layers.extend([
            Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                                 norm_layer=norm_layer, activation_layer=nn.ReLU6),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            norm_layer(oup),
        ])
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x: Tensor) -> Tensor:
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes: int = 1000, width_mult: float = 1.0, round_nearest: int = 8,
                 dropout: float = 0.2) -> None:
        super().__init__()
        norm_layer = nn.BatchNorm2d
        input_channel, last_channel = 32, 1280
        inverted_residual_setting = [
            # t, c, n, s
            [1, 16, 1, 1],
            [6, 24, 2, 2],
            [6, 32, 3, 2],
            [6, 64, 4, 2],
            [6, 96, 3, 1],
            [6, 160, 3, 2],
            [6, 320, 1, 1],
        ]
        input_channel = _make_divisible(input_channel * width_mult, round_nearest)
        self.last_channel = _make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features: list[nn.Module] = [
            Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer, activation_layer=nn.ReLU6)
        ]
        for t, c, n, s in inverted_residual_setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                stride = s if i == 0 else 1
                features.append(InvertedResidual(input_channel, output_channel, stride, expand_ratio=t,
                                                 norm_layer=norm_layer))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1,
                                             norm_layer=norm_layer, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x: Tensor) -> Tensor:
        x = self.features(x)
        # Cannot use "squeeze" as batch-size can be 1
        x = nn.functional.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return self.classifier(x)


def mobilenet_v2(num_classes: int = 1000) -> MobileNetV2:
    return MobileNetV2(num_classes=num_classes)


# --- torchvision/models/vgg.py ------------------------------------------------------------


class VGG(nn.Module):
    def __init__(self, features: nn.Module, num_classes: int = 1000, init_weights: bool = True,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x: Tensor) -> Tensor:
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


VGG_CFG_A: list[int | str] = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]


def make_layers(cfg: list[int | str], batch_norm: bool = False) -> nn.Sequential:
    layers: list[nn.Module] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv2d = nn.Conv2d(in_channels, int(v), kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(int(v)), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
            in_channels = int(v)
    return nn.Sequential(*layers)


def vgg11_bn(num_classes: int = 1000) -> VGG:
    return VGG(make_layers(VGG_CFG_A, batch_norm=True), num_classes=num_classes)


# --- models not named in the issue --------------------------------------------------------


class Fire(nn.Module):
    """SqueezeNet's fire module (torchvision/models/squeezenet.py): squeeze 1x1, expand 1x1 and 3x3, concat."""

    def __init__(self, inplanes: int, squeeze_planes: int, expand1x1_planes: int, expand3x3_planes: int) -> None:
        super().__init__()
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x: Tensor) -> Tensor:
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat(
            [self.expand1x1_activation(self.expand1x1(x)), self.expand3x3_activation(self.expand3x3(x))], 1
        )


class SmallSqueezeNet(nn.Module):
    """A narrow SqueezeNet 1.1: ceil_mode max pools (sizes where ceil != floor), concat,
    conv biases, dropout, a 1x1 conv classifier and a global adaptive average pool."""

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, stride=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
            Fire(16, 8, 16, 16),
            Fire(32, 8, 16, 16),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
            Fire(32, 12, 24, 24),
        )
        self.classifier = nn.Sequential(
            nn.Dropout(p=0.5), nn.Conv2d(48, num_classes, kernel_size=1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((1, 1)),
        )

    def forward(self, x: Tensor) -> Tensor:
        return torch.flatten(self.classifier(self.features(x)), 1)


class SqueezeExcitation(nn.Module):
    """torchvision/ops/misc.py's SE block: mean over H, W, two 1x1 convs, a gate (hardsigmoid or sigmoid)."""

    def __init__(self, channels: int, squeeze: int, activation=nn.ReLU, gate=nn.Hardsigmoid) -> None:
        super().__init__()
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)
        self.activation = activation()
        self.scale_activation = gate()

    def forward(self, x: Tensor) -> Tensor:
        scale = x.mean((2, 3), keepdim=True)
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(scale))))
        return scale * x


class MixedActivationNet(nn.Module):
    """Every activation of the table and both norms: hardswish, SiLU, GELU (erf and tanh),
    LeakyReLU, sigmoid and hardsigmoid gates (squeeze-excitation), a depthwise conv, an avg
    pool, layer norm over the channel dim after a permute (ConvNeXt's form), dropout and a
    linear head; a residual add."""

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.stem = Conv2dNormActivation(3, 16, stride=2, activation_layer=nn.Hardswish)
        self.dw = Conv2dNormActivation(16, 16, groups=16, activation_layer=nn.SiLU)
        self.se = SqueezeExcitation(16, 8, activation=nn.SiLU, gate=nn.Sigmoid)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)
        self.expand = Conv2dNormActivation(16, 32, kernel_size=1, activation_layer=partial(nn.GELU, approximate="tanh"),
                                           inplace=None)
        self.se2 = SqueezeExcitation(32, 8, activation=nn.ReLU, gate=nn.Hardsigmoid)
        self.norm = nn.LayerNorm(32)
        self.mlp = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))
        self.head = nn.Sequential(nn.LeakyReLU(0.1), nn.Dropout(p=0.25), nn.Linear(32, num_classes))

    def forward(self, x: Tensor) -> Tensor:
        x = self.stem(x)
        x = x + self.se(self.dw(x))
        x = self.se2(self.expand(self.pool(x)))
        y = x.permute(0, 2, 3, 1)                      # N, H, W, C
        y = y + self.mlp(self.norm(y))
        x = y.mean((1, 2))                             # global average pool
        return self.head(x)


NAMED_MODELS: dict[str, Callable[[], nn.Module]] = {
    "resnet18": resnet18,
    "mobilenet_v2": mobilenet_v2,
    "vgg11_bn": vgg11_bn,
}
"""The three torchvision models the issue names, at torchvision's defaults (1000 classes)."""

OTHER_MODELS: dict[str, Callable[[], nn.Module]] = {
    "small_squeezenet": SmallSqueezeNet,
    "mixed_activation_net": MixedActivationNet,
}
"""Models not named in the issue, from the shared note's ops only."""


def num_classes(model: nn.Module) -> int:
    """The number of classes `model` scores (its output's width on a 64x64 batch)."""
    with torch.no_grad():
        was_training = model.training
        out = model.eval()(torch.zeros(1, 3, 64, 64, dtype=next(model.parameters()).dtype))
        model.train(was_training)
    return int(out.shape[1])


def build(name: str, dtype: torch.dtype, seed: int = 0) -> nn.Module:
    """The model `name` with weights drawn from `seed`, in `dtype`, in training mode.

    The weights are drawn in float32 (as torchvision does) and then cast, so the f32 and
    f64 models of one seed hold the same values: `build(n, torch.float64)` is
    `build(n, torch.float32).double()`.
    """
    torch.manual_seed(seed)
    model = {**NAMED_MODELS, **OTHER_MODELS}[name]()
    return model.to(dtype).train()
