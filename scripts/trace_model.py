#!/usr/bin/python3
"""Traces a PyTorch model to an ATen-level graph with symbolic sizes and prints it as a
symshape graph (docs/graph-format.md) on stdout.

    /usr/bin/python3 scripts/trace_model.py MODEL [--option value]... > graph.json

MODEL is one of:
  resnet18                   torchvision's ResNet-18, random init, eval mode; input [batch, 3, h, w]
                             (--width N: its blocks with stages N..8N wide instead of 64..512)
  transformer_encoder_train  nn.TransformerEncoder (2 layers), train mode, dropout 0.1;
                             input [batch, seq, d_model]
  gpt                        a small GPT (defined below) in train mode with dropout, a causal mask,
                             a clone and a detach; input tokens [batch, seq]

examples/traced/ holds the three models, written in symshape's canonical layout:

    T=scripts/trace_model.py; S=build/bin/symshape
    /usr/bin/python3 $T resnet18 --width 8 --batch 2 --height 13 --width-px 17 > /tmp/resnet18.json
    /usr/bin/python3 $T transformer_encoder_train > /tmp/transformer_encoder_train.json
    /usr/bin/python3 $T gpt > /tmp/gpt.json
    for m in resnet18 transformer_encoder_train gpt; do
      $S lower /tmp/$m.json --passes remove-alias -o examples/traced/$m.json; done

Runs on PyTorch 1.13 (Debian's python3-torch; `/usr/bin/python3`, not a pyenv interpreter): the
graph comes from `make_fx(f, tracing_mode="symbolic")`, so every op is really traced by torch.
Nothing is downloaded (no pretrained weights). Parameters and buffers become placeholders with
static shapes; batch, seq and the spatial dims stay symbolic.

The tracing and the conversion are symshape.fx's (python/symshape/fx.py, which lists the
PyTorch 1.13 specifics it handles): this script only builds the models. It imports symshape from
build/python (configure and build the project first), or from PYTHONPATH. Some 1.13 meta kernels
(softmax's) evaluate a size and record a guard on its value (--show-guards lists them) although
every size they compute stays symbolic: the graph is what those kernels compute at every size,
which `symshape check` then verifies.
"""
import argparse
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
try:
    import symshape.fx
except ImportError as e:
    raise SystemExit(f"trace_model.py: cannot import symshape ({e}): build the project "
                     "(cmake --build build) or put its python/ build directory on PYTHONPATH")

aten = torch.ops.aten


# ---------------------------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------------------------
class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_head, block_size, dropout):
        super().__init__()
        self.n_head = n_head
        self.d_model = d_model
        self.c_attn = nn.Linear(d_model, 3 * d_model)
        self.c_proj = nn.Linear(d_model, d_model)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        mask = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size)
        self.register_buffer("bias", mask)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(self.d_model, dim=2)
        hd = c // self.n_head
        q = q.view(b, t, self.n_head, hd).transpose(1, 2)
        k = k.view(b, t, self.n_head, hd).transpose(1, 2)
        v = v.view(b, t, self.n_head, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        # self.bias[:, :, :t, :t], written as the slices it traces to: PyTorch 1.13's indexing
        # does not take a SymInt.
        mask = aten.slice.Tensor(aten.slice.Tensor(self.bias, 2, 0, t), 3, 0, t)
        att = att.masked_fill(mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, d_model, n_head, block_size, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_head, block_size, dropout)
        self.ln_2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.proj = nn.Linear(4 * d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.dropout(self.proj(F.gelu(self.fc(self.ln_2(x)))))


class GPT(nn.Module):
    """A GPT-2 style decoder (nanoGPT's layout) with tied input and output embeddings."""

    def __init__(self, vocab, block_size, d_model, n_head, n_layer, dropout):
        super().__init__()
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(block_size, d_model)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList(
            [Block(d_model, n_head, block_size, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, idx):
        _, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        # The residual stream's first value is kept apart from the embeddings' output, as
        # implementations that then add in place do.
        x = x.clone()
        for block in self.h:
            x = block(x)
        x = self.ln_f(x)
        logits = F.linear(x, self.wte.weight)
        # The final hidden state is returned as features, cut from autograd.
        return logits, x.detach()


def narrow_resnet18(width, classes):
    """torchvision's ResNet-18 (its BasicBlock, _make_layer and forward) with the stage widths
    width, 2*width, 4*width, 8*width instead of 64 ... 512."""
    from torchvision.models import resnet

    class NarrowResNet(resnet.ResNet):
        def __init__(self):
            nn.Module.__init__(self)
            self._norm_layer = nn.BatchNorm2d
            self.inplanes = width
            self.dilation = 1
            self.groups = 1
            self.base_width = 64
            self.conv1 = nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1 = self._make_layer(resnet.BasicBlock, width, 2)
            self.layer2 = self._make_layer(resnet.BasicBlock, 2 * width, 2, stride=2)
            self.layer3 = self._make_layer(resnet.BasicBlock, 4 * width, 2, stride=2)
            self.layer4 = self._make_layer(resnet.BasicBlock, 8 * width, 2, stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8 * width, classes)

    model = NarrowResNet()
    # torchvision's initialisation: Kaiming for convolutions, BatchNorm at weight 1, bias 0.
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    # Running statistics away from (0, 1), so that eval-mode BatchNorm does some arithmetic.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    return model


def build(args):
    """The model, its example input, and for each input dim that stays symbolic its name."""
    torch.manual_seed(args.seed)
    if args.model == "resnet18":
        import torchvision

        if args.width == 64:
            model = torchvision.models.resnet18(weights=None, num_classes=args.classes)
        else:
            model = narrow_resnet18(args.width, args.classes)
        model = model.eval()
        x = torch.randn(args.batch, 3, args.height, args.width_px)
        return model, x, {0: "batch", 2: "h", 3: "w"}
    if args.model == "transformer_encoder_train":
        layer = nn.TransformerEncoderLayer(args.d_model, args.heads, args.ff, dropout=0.1,
                                           batch_first=True)
        model = nn.TransformerEncoder(layer, num_layers=args.layers,
                                      enable_nested_tensor=False).train()
        x = torch.randn(args.batch, args.seq, args.d_model)
        return model, x, {0: "batch", 1: "seq"}
    if args.model == "gpt":
        model = GPT(args.vocab, args.block, args.d_model, args.heads, args.layers, 0.1).train()
        x = torch.randint(0, args.vocab, (args.batch, args.seq))
        return model, x, {0: "batch", 1: "seq"}
    raise SystemExit(f"unknown model {args.model}")


def trace(args):
    model, x, dynamic_dims = build(args)
    declared = {
        "batch": (2, args.max_batch),
        "seq": (2, args.block if args.model == "gpt" else args.max_seq),
        "h": (args.min_size, args.max_size),
        "w": (args.min_size, args.max_size),
    }
    dims = {d: symshape.fx.Dim(name, *declared[name]) for d, name in dynamic_dims.items()}
    input_name = "x" if x.is_floating_point() else "tokens"
    try:
        conv = symshape.fx.trace(model, x, dynamic={input_name: dims}, input_names=[input_name])
    except symshape.fx.ConversionError as e:
        raise SystemExit(str(e))
    if args.show_guards:
        print(conv.gm.shape_env.format_guards(verbose=True), file=sys.stderr)
    return conv.graph_dict


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", choices=["resnet18", "transformer_encoder_train", "gpt"])
    p.add_argument("--batch", type=int, default=4, help="batch size traced with (the hint)")
    p.add_argument("--seq", type=int, default=11, help="sequence length traced with")
    p.add_argument("--height", type=int, default=37, help="resnet18: image height traced with")
    p.add_argument("--width-px", type=int, default=45, help="resnet18: image width traced with")
    p.add_argument("--max-batch", type=int, default=64)
    p.add_argument("--max-seq", type=int, default=512)
    p.add_argument("--min-size", type=int, default=8, help="resnet18: smallest h and w declared")
    p.add_argument("--max-size", type=int, default=1024)
    p.add_argument("--classes", type=int, default=10, help="resnet18: output classes")
    p.add_argument("--width", type=int, default=64,
                   help="resnet18: the first stage's channels (64 is torchvision's model)")
    p.add_argument("--d-model", type=int, default=16)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--ff", type=int, default=32, help="transformer encoder: feed-forward width")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--vocab", type=int, default=50)
    p.add_argument("--block", type=int, default=64, help="gpt: largest sequence (wpe rows)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--show-guards", action="store_true",
                   help="print PyTorch's guards, and where they were taken, on stderr")
    args = p.parse_args()
    sys.stdout.write(symshape.fx.dumps(trace(args)))


if __name__ == "__main__":
    main()
