#!/usr/bin/env python3
"""Writes examples/gpt_small.json: a small GPT (token and position embeddings, LAYERS
pre-norm transformer blocks with causal attention and a GELU MLP, a final norm and a head tied
to the token embedding) as an ATen-level graph with symbolic batch and seq, the way
torch.export would trace it. Weights are get_attr nodes without values (the interpreter fills
them from its seed).

    python3 scripts/make_gpt_example.py > examples/gpt_small.json
    python3 scripts/make_gpt_example.py --layers 400 > /tmp/gpt_400.json   # 15k nodes
"""
import argparse
import json

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--layers", type=int, default=8, help="transformer blocks (default 8)")
LAYERS = parser.parse_args().layers
D, HEADS, FFN, VOCAB, MAX_POS = 64, 4, 256, 128, 512
HEAD_DIM = D // HEADS

nodes = []


def node(name, target, args, kwargs=None):
    n = {"name": name, "op": "call_function", "target": target, "args": args}
    if kwargs:
        n["kwargs"] = kwargs
    nodes.append(n)
    return {"node": name}


def attr(name, path, shape):
    nodes.append({"name": name, "op": "get_attr", "target": path, "dtype": "float32",
                  "shape": shape})
    return {"node": name}


def linear(prefix, x2d, w, b):
    t = node(prefix + "_t", "aten.t.default", [w])
    return node(prefix + "_addmm", "aten.addmm.default", [b, x2d, t])


def layer_norm(name, x, w, b):
    return node(name, "aten.layer_norm.default", [x, [D], w, b, 1e-5])


nodes.append({"name": "tokens", "op": "placeholder", "dtype": "int64", "shape": ["batch", "seq"]})
wte = attr("wte", "transformer.wte.weight", [VOCAB, D])
wpe = attr("wpe", "transformer.wpe.weight", [MAX_POS, D])
batch = node("sym_size_batch", "aten.sym_size.int", [{"node": "tokens"}, 0])
seq = node("sym_size_seq", "aten.sym_size.int", [{"node": "tokens"}, 1])
rows = node("rows", "operator.mul", [batch, seq])
tok = node("tok_emb", "aten.embedding.default", [wte, {"node": "tokens"}])
pos = node("pos_emb", "aten.slice.Tensor", [wpe, 0, 0, seq])
x = node("emb", "aten.add.Tensor", [tok, pos])

for i in range(LAYERS):
    p = f"h{i}"
    ln1_w = attr(f"{p}_ln1_w", f"transformer.h.{i}.ln_1.weight", [D])
    ln1_b = attr(f"{p}_ln1_b", f"transformer.h.{i}.ln_1.bias", [D])
    qkv_w = attr(f"{p}_qkv_w", f"transformer.h.{i}.attn.c_attn.weight", [3 * D, D])
    qkv_b = attr(f"{p}_qkv_b", f"transformer.h.{i}.attn.c_attn.bias", [3 * D])
    out_w = attr(f"{p}_out_w", f"transformer.h.{i}.attn.c_proj.weight", [D, D])
    out_b = attr(f"{p}_out_b", f"transformer.h.{i}.attn.c_proj.bias", [D])
    ln2_w = attr(f"{p}_ln2_w", f"transformer.h.{i}.ln_2.weight", [D])
    ln2_b = attr(f"{p}_ln2_b", f"transformer.h.{i}.ln_2.bias", [D])
    fc_w = attr(f"{p}_fc_w", f"transformer.h.{i}.mlp.c_fc.weight", [FFN, D])
    fc_b = attr(f"{p}_fc_b", f"transformer.h.{i}.mlp.c_fc.bias", [FFN])
    proj_w = attr(f"{p}_proj_w", f"transformer.h.{i}.mlp.c_proj.weight", [D, FFN])
    proj_b = attr(f"{p}_proj_b", f"transformer.h.{i}.mlp.c_proj.bias", [D])

    ln1 = layer_norm(f"{p}_ln1", x, ln1_w, ln1_b)
    flat = node(f"{p}_ln1_2d", "aten.view.default", [ln1, [rows, D]])
    qkv = linear(f"{p}_qkv", flat, qkv_w, qkv_b)
    qkv5 = node(f"{p}_qkv_heads", "aten.view.default", [qkv, [batch, seq, 3, HEADS, HEAD_DIM]])
    perm = node(f"{p}_qkv_perm", "aten.permute.default", [qkv5, [2, 0, 3, 1, 4]])
    q = node(f"{p}_q", "aten.select.int", [perm, 0, 0])
    k = node(f"{p}_k", "aten.select.int", [perm, 0, 1])
    v = node(f"{p}_v", "aten.select.int", [perm, 0, 2])
    att = node(f"{p}_attn", "aten.scaled_dot_product_attention.default", [q, k, v],
               {"is_causal": True})
    att_t = node(f"{p}_attn_t", "aten.transpose.int", [att, 1, 2])
    att_2d = node(f"{p}_attn_2d", "aten.reshape.default", [att_t, [rows, D]])
    out = linear(f"{p}_out", att_2d, out_w, out_b)
    out3 = node(f"{p}_out_3d", "aten.view.default", [out, [batch, seq, D]])
    x = node(f"{p}_res1", "aten.add.Tensor", [x, out3])

    ln2 = layer_norm(f"{p}_ln2", x, ln2_w, ln2_b)
    flat2 = node(f"{p}_ln2_2d", "aten.view.default", [ln2, [rows, D]])
    fc = linear(f"{p}_fc", flat2, fc_w, fc_b)
    act = node(f"{p}_gelu", "aten.gelu.default", [fc], {"approximate": "tanh"})
    proj = linear(f"{p}_proj", act, proj_w, proj_b)
    proj3 = node(f"{p}_proj_3d", "aten.view.default", [proj, [batch, seq, D]])
    x = node(f"{p}_res2", "aten.add.Tensor", [x, proj3])

lnf_w = attr("ln_f_w", "transformer.ln_f.weight", [D])
lnf_b = attr("ln_f_b", "transformer.ln_f.bias", [D])
lnf = layer_norm("ln_f", x, lnf_w, lnf_b)
flat = node("ln_f_2d", "aten.view.default", [lnf, [rows, D]])
head_t = node("lm_head_t", "aten.t.default", [wte])
logits2d = node("lm_head", "aten.mm.default", [flat, head_t])
logits = node("logits", "aten.view.default", [logits2d, [batch, seq, VOCAB]])
nodes.append({"name": "output", "op": "output", "args": [[logits]]})

graph = {"format": "symshape-graph", "version": 1,
         "dims": {"batch": {"min": 1, "max": 16, "hint": 2},
                  "seq": {"min": 1, "max": MAX_POS, "hint": 16}},
         "nodes": nodes}
print("{\"format\": \"symshape-graph\", \"version\": 1,")
print(" \"dims\": " + json.dumps(graph["dims"]) + ",")
print(" \"nodes\": [")
print(",\n".join("  " + json.dumps(n) for n in nodes) + "]}")
