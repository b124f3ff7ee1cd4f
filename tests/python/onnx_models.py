"""Small real models exported to ONNX with dynamic axes, for test_onnx_models.py and
bench/onnx/compare.py: torchvision's ResNet-18, MobileNetV2, ShuffleNetV2, EfficientNet-B0 and a
small VisionTransformer, an nn.TransformerEncoder, an Embedding+LSTM+Linear text model, and two
segmentation models that upsample (LRASPP-MobileNetV3 with F.interpolate to the input's size, a
small UNet with scale-factor upsampling). Random weights (weights=None: nothing is downloaded),
eval mode, small widths so that the whole set exports and runs in seconds.

Each model has one input; its dynamic dims are named (batch, height, width for vision; batch,
seq for text) and `sizes` lists the points at which the tests compare symshape's shapes with
PyTorch's.
"""
import os
import warnings

import torch
import torchvision

OPSET = 17


class Spec:
    def __init__(self, name, build, make_input, dynamic, sizes, input_name="x", opset=OPSET,
                 ranges=None):
        self.name = name
        self.build = build            # () -> nn.Module in eval mode
        self.make_input = make_input  # {dim name: size} -> input tensor
        self.dynamic = dynamic        # {axis: dim name} of the input
        self.sizes = sizes            # [{dim name: size}], the first used for export
        # `--dim NAME=MIN..MAX` for symshape: the ranges every size lies in. They also choose
        # the example value (hint) symshape decides on: 8 moved into the range. An ONNX model
        # has no example sizes, and at a small hint a deep feature map is 1 and would be
        # specialized (as in PyTorch); a vision model's sides start at 33 for that.
        r = dict(ranges_of(dynamic), **(ranges or {}))
        self.dims = [f"{name}={lo}..{hi}" for name, (lo, hi) in r.items()]
        self.input_name = input_name
        self.opset = opset


class FirstOutput(torch.nn.Module):
    """A model returning a dict or tuple, reduced to the tensors under `key` (dict) or all."""

    def __init__(self, model, key):
        super().__init__()
        self.model = model
        self.key = key

    def forward(self, x):
        return self.model(x)[self.key]


class TextLSTM(torch.nn.Module):
    def __init__(self, vocab=50, embed=16, hidden=24, classes=5):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, embed)
        self.lstm = torch.nn.LSTM(embed, hidden, batch_first=True)
        self.head = torch.nn.Linear(hidden, classes)

    def forward(self, tokens):
        h, _ = self.lstm(self.embed(tokens))
        return self.head(h)


class Encoder(torch.nn.Module):
    """nn.TransformerEncoder over token embeddings, with a classification head on the mean."""

    def __init__(self, vocab=50, d=16, heads=2, ff=32, layers=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d)
        layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(d, 3)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens))
        return h, self.head(h.mean(dim=1))


class UNet(torch.nn.Module):
    """Two levels down (max-pool), two up (nearest upsampling by 2 and a skip concat)."""

    def __init__(self, c=8, classes=3):
        super().__init__()

        def block(i, o):
            return torch.nn.Sequential(torch.nn.Conv2d(i, o, 3, padding=1), torch.nn.ReLU())

        self.d1, self.d2, self.mid = block(3, c), block(c, 2 * c), block(2 * c, 2 * c)
        self.u2, self.u1 = block(4 * c, c), block(2 * c, c)
        self.out = torch.nn.Conv2d(c, classes, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(torch.nn.functional.max_pool2d(a, 2))
        m = self.mid(torch.nn.functional.max_pool2d(b, 2))
        up = torch.nn.functional.interpolate(m, scale_factor=2.0, mode="nearest")
        u = self.u2(torch.cat([up, b], dim=1))
        up = torch.nn.functional.interpolate(u, scale_factor=2.0, mode="bilinear",
                                             align_corners=False)
        return self.out(self.u1(torch.cat([up, a], dim=1)))


class Flatten(torch.nn.Module):
    """Shape arithmetic only: a flatten to a target computed from x.shape, and a broadcast."""

    def forward(self, x):
        flat = x.reshape(x.shape[0], -1)
        return flat * 2, x.reshape(x.shape[0], x.shape[1], -1) + torch.ones(1, 3, 1)


RANGES = {"batch": (2, 64), "height": (33, 1024), "width": (33, 1024), "seq": (2, 512)}


def ranges_of(dynamic):
    return {name: RANGES[name] for name in dynamic.values()}


def image(sizes):
    return torch.randn(sizes["batch"], 3, sizes["height"], sizes["width"])


def tokens(sizes):
    return torch.randint(0, 50, (sizes["batch"], sizes["seq"]))


VISION = {0: "batch", 2: "height", 3: "width"}
TEXT = {0: "batch", 1: "seq"}
# Non-square, not all powers of two: a swapped or rounded dim shows. No dynamic dim is 1: as in
# PyTorch, symshape's dynamic dims range over 2.. (a 1 would be specialized; the guards say so).
VISION_SIZES = [{"batch": 2, "height": 64, "width": 48},
                {"batch": 4, "height": 33, "width": 57},
                {"batch": 3, "height": 96, "width": 80}]
# The UNet's skip connections need sides divisible by 4 (and its range's hint too: 36).
UNET_SIZES = [{"batch": 2, "height": 36, "width": 48},
              {"batch": 4, "height": 64, "width": 40},
              {"batch": 3, "height": 44, "width": 36}]
TEXT_SIZES = [{"batch": 2, "seq": 7}, {"batch": 3, "seq": 2}, {"batch": 4, "seq": 19}]

SPECS = [
    Spec("flatten", Flatten, image, VISION, VISION_SIZES),
    Spec("resnet18", lambda: torchvision.models.resnet18(weights=None, num_classes=10),
         image, VISION, VISION_SIZES),
    Spec("mobilenet_v2",
         lambda: torchvision.models.mobilenet_v2(weights=None, num_classes=10, width_mult=0.5),
         image, VISION, VISION_SIZES),
    Spec("shufflenet_v2",
         lambda: torchvision.models.shufflenet_v2_x0_5(weights=None, num_classes=10),
         image, VISION, VISION_SIZES),
    Spec("efficientnet_b0",
         lambda: torchvision.models.efficientnet_b0(weights=None, num_classes=10),
         image, VISION, VISION_SIZES),
    # torchvision's ViT checks that the image is image_size square: only the batch is dynamic.
    Spec("vit",
         lambda: torchvision.models.VisionTransformer(
             image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
             num_classes=10),
         image, {0: "batch"},
         [{"batch": 2, "height": 32, "width": 32}, {"batch": 4, "height": 32, "width": 32},
          {"batch": 5, "height": 32, "width": 32}]),
    Spec("transformer_encoder", Encoder, tokens, TEXT, TEXT_SIZES, input_name="tokens"),
    Spec("lstm", TextLSTM, tokens, TEXT, TEXT_SIZES, input_name="tokens"),
    Spec("lraspp_mobilenet_v3",
         lambda: FirstOutput(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
             weights=None, weights_backbone=None, num_classes=3), "out"),
         image, VISION, VISION_SIZES),
    Spec("unet", UNet, image, VISION, UNET_SIZES, ranges={"height": (36, 1024),
                                                          "width": (36, 1024)}),
]
BY_NAME = {s.name: s for s in SPECS}


def build(spec):
    torch.manual_seed(0)
    return spec.build().eval()


def export(spec, directory, model=None):
    """Exports the model with its input's dims dynamic; returns the .onnx path. Outputs get no
    dynamic_axes: their shapes are for the shape inference to find."""
    model = model if model is not None else build(spec)
    path = os.path.join(directory, spec.name + ".onnx")
    x = spec.make_input(spec.sizes[0])
    # Not under no_grad: eval-mode attention would take PyTorch's fused path, which does not
    # export.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), path, input_names=[spec.input_name],
                          dynamic_axes={spec.input_name: spec.dynamic}, opset_version=spec.opset,
                          do_constant_folding=True)
    return path


def input_shape(spec, sizes):
    """The input's shape at these sizes."""
    return list(spec.make_input(sizes).shape)


def torch_shapes(spec, model, sizes):
    """The shapes of the model's outputs at these sizes, in order."""
    torch.manual_seed(1)
    with torch.no_grad():
        out = model(spec.make_input(sizes))
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [list(o.shape) for o in outs]
