// Generators of realistic graphs at any size, in the JSON graph format (docs/graph-format.md):
// the workloads of the scaling benchmarks and of `symshape gen`.
#pragma once

#include <cstdint>
#include <string>

#include "symshape/expr.h"

namespace symshape::gen {

// A Llama-style decoder: token embedding, `layers` blocks of RMSNorm, attention with rotary
// embeddings applied through view_as_complex, RMSNorm and a SwiGLU MLP, a final RMSNorm and the
// output projection. Batch and sequence are the symbolic dims "batch" and "seq".
struct LlamaOptions {
  int64_t layers = 1;
  int64_t hidden = 256;  // model width; a multiple of heads, with an even head width
  int64_t heads = 4;
  int64_t ffn = 688;  // width of the MLP's gate and up projections
  int64_t vocab = 512;
  // Tensor parallelism over `tp` ranks (Megatron style): attention heads and the MLP's columns
  // are split, and the attention output and MLP down projection end in an all_reduce. 1: none.
  int64_t tp = 1;
};

// A ResNet-style CNN: a 7x7 stem convolution and max pooling, `blocks` basic blocks (two 3x3
// convolutions with batch norm and a residual add) over four stages that halve the spatial size
// and double the channels, global average pooling and a linear classifier. Batch, height and
// width are the symbolic dims "batch", "h" and "w".
struct ResNetOptions {
  int64_t blocks = 2;
  int64_t width = 64;  // channels of the first stage
  int64_t classes = 1000;
};

// The graph's JSON text (one node per line), or an error naming the option that is out of range.
// The same options always give the same bytes.
Expected<std::string> llama_graph(const LlamaOptions& options);
Expected<std::string> resnet_graph(const ResNetOptions& options);

}  // namespace symshape::gen
