#!/usr/bin/env python3
"""Writes examples/onnx/small_cnn.onnx: a small CNN (two strided convolutions, a max-pool, a
residual add, global average pooling, a flatten whose target is computed from Shape, and a
linear head) exported by torch.onnx with dynamic batch, height and width. Random weights.

    /usr/bin/python3 scripts/make_onnx_example.py [-o examples/onnx/small_cnn.onnx]
"""
import argparse
import os

import torch

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("-o", "--output", default=os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "onnx",
    "small_cnn.onnx"))
args = parser.parse_args()


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.conv = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.down = torch.nn.Conv2d(8, 16, 3, stride=2)
        self.head = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = torch.nn.functional.max_pool2d(x + torch.relu(self.conv(x)), 2, ceil_mode=True)
        x = torch.relu(self.down(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1)
        return self.head(x.reshape(x.shape[0], -1))


torch.manual_seed(0)
model = SmallCNN().eval()
torch.onnx.export(model, (torch.randn(2, 3, 64, 48),), args.output, input_names=["x"],
                  output_names=["logits"], opset_version=17,
                  dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"},
                                "logits": {0: "batch"}})
print(f"wrote {args.output} ({os.path.getsize(args.output)} bytes)")
