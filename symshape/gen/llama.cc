// The Llama-style decoder generator (include/symshape/gen.h).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "symshape/gen.h"
#include "symshape/gen/builder.h"

namespace symshape::gen {

namespace {

// Builds the decoder one block at a time; names are prefixed per layer (l0_..., l1_...).
class LlamaWriter {
 public:
  explicit LlamaWriter(const LlamaOptions& o)
      : o_(o),
        head_dim_(o.hidden / o.heads),
        local_heads_(o.heads / o.tp),
        local_hidden_(o.hidden / o.tp),
        local_ffn_(o.ffn / o.tp) {}

  std::string write() {
    b_.dim("batch", 1, 64, 2);
    b_.dim("seq", 2, 4096, 16);
    const std::string tokens = b_.placeholder("tokens", "int64", Json::array({"batch", "seq"}));
    const std::string freqs_cis =
        b_.placeholder("freqs_cis", "complex64", Json::array({"seq", head_dim_ / 2}));
    mask_ = b_.placeholder("mask", "float32", Json::array({1, 1, "seq", "seq"}));
    const std::string embed_w = b_.get_attr("tok_embeddings_weight", "tok_embeddings.weight",
                                            "float32", Json::array({o_.vocab, o_.hidden}));
    bsz_ = b_.call("bsz", "aten.sym_size.int", Json::array({ref(tokens), 0}));
    seqlen_ = b_.call("seqlen", "aten.sym_size.int", Json::array({ref(tokens), 1}));
    rows_ = b_.call("rows", "operator.mul", Json::array({ref(bsz_), ref(seqlen_)}));
    freqs_ =
        b_.call("freqs", "aten.view.default",
                Json::array({ref(freqs_cis), Json::array({1, ref(seqlen_), 1, head_dim_ / 2})}));
    std::string h =
        b_.call("h_embed", "aten.embedding.default", Json::array({ref(embed_w), ref(tokens)}));
    for (int64_t l = 0; l < o_.layers; ++l) h = layer(l, h);
    const std::string norm_w =
        b_.get_attr("norm_weight", "norm.weight", "float32", Json::array({o_.hidden}));
    const std::string normed = rms_norm("final_norm", h, norm_w);
    const std::string out_w = b_.get_attr("output_weight", "output.weight", "float32",
                                          Json::array({o_.vocab, o_.hidden}));
    const std::string flat = view("final_flat", normed, {ref(rows_), o_.hidden});
    const std::string logits = linear("logits", flat, out_w);
    const std::string out = view("logits_3d", logits, {ref(bsz_), ref(seqlen_), o_.vocab});
    b_.output({out});
    return b_.text();
  }

 private:
  static Json ref(const std::string& name) { return GraphWriter::ref(name); }

  std::string view(const std::string& name, const std::string& x, Json sizes) {
    return b_.call(name, "aten.view.default", Json::array({ref(x), std::move(sizes)}));
  }

  // x @ w.T for a weight stored [out, in], as traced nn.Linear without bias.
  std::string linear(const std::string& name, const std::string& x, const std::string& w) {
    const std::string wt = b_.call(name + "_wt", "aten.t.default", Json::array({ref(w)}));
    return b_.call(name, "aten.mm.default", Json::array({ref(x), ref(wt)}));
  }

  // x * rsqrt(mean(x^2, -1, keepdim) + eps) * w
  std::string rms_norm(const std::string& p, const std::string& x, const std::string& w) {
    const std::string sq = b_.call(p + "_sq", "aten.pow.Tensor_Scalar", Json::array({ref(x), 2}));
    const std::string ms =
        b_.call(p + "_ms", "aten.mean.dim", Json::array({ref(sq), Json::array({-1}), true}));
    const std::string eps = b_.call(p + "_eps", "aten.add.Scalar", Json::array({ref(ms), 1e-05}));
    const std::string r = b_.call(p + "_rsqrt", "aten.rsqrt.default", Json::array({ref(eps)}));
    const std::string n = b_.call(p + "_n", "aten.mul.Tensor", Json::array({ref(x), ref(r)}));
    return b_.call(p, "aten.mul.Tensor", Json::array({ref(n), ref(w)}));
  }

  // With tensor parallelism, the partial sums of a row-parallel projection are summed over ranks.
  std::string all_reduce(const std::string& name, const std::string& x) {
    if (o_.tp == 1) return x;
    const std::string r =
        b_.call(name, "_c10d_functional.all_reduce.default", Json::array({ref(x), "sum", "tp"}));
    return b_.call(name + "_wait", "_c10d_functional.wait_tensor.default", Json::array({ref(r)}));
  }

  // Rotary embedding of q or k ([bsz, seq, heads, head_dim]) through complex multiplication.
  std::string rope(const std::string& p, const std::string& x) {
    const std::string pairs = view(p + "_pairs", x, {ref(bsz_), ref(seqlen_), local_heads_, -1, 2});
    const std::string c =
        b_.call(p + "_c", "aten.view_as_complex.default", Json::array({ref(pairs)}));
    const std::string rot =
        b_.call(p + "_rot", "aten.mul.Tensor", Json::array({ref(c), ref(freqs_)}));
    const std::string real =
        b_.call(p + "_real", "aten.view_as_real.default", Json::array({ref(rot)}));
    const std::string back =
        view(p + "_out", real, {ref(bsz_), ref(seqlen_), local_heads_, head_dim_});
    return b_.call(p + "_t", "aten.transpose.int", Json::array({ref(back), 1, 2}));
  }

  // A layer's weight: node l3_attention_wq_weight, target layers.3.attention.wq.weight.
  std::string weight(const std::string& p, const std::string& module, Json shape) {
    std::string name = p + "_" + module + "_weight";
    std::replace(name.begin(), name.end(), '.', '_');
    return b_.get_attr(name, "layers." + p.substr(1) + "." + module + ".weight", "float32",
                       std::move(shape));
  }

  std::string layer(int64_t l, const std::string& h) {
    const std::string p = "l" + std::to_string(l);
    const std::string attn_norm_w = weight(p, "attention_norm", Json::array({o_.hidden}));
    const std::string wq = weight(p, "attention.wq", Json::array({local_hidden_, o_.hidden}));
    const std::string wk = weight(p, "attention.wk", Json::array({local_hidden_, o_.hidden}));
    const std::string wv = weight(p, "attention.wv", Json::array({local_hidden_, o_.hidden}));
    const std::string wo = weight(p, "attention.wo", Json::array({o_.hidden, local_hidden_}));
    const std::string ffn_norm_w = weight(p, "ffn_norm", Json::array({o_.hidden}));
    const std::string w1 = weight(p, "feed_forward.w1", Json::array({local_ffn_, o_.hidden}));
    const std::string w2 = weight(p, "feed_forward.w2", Json::array({o_.hidden, local_ffn_}));
    const std::string w3 = weight(p, "feed_forward.w3", Json::array({local_ffn_, o_.hidden}));

    // Attention.
    const std::string xn = rms_norm(p + "_attn_norm", h, attn_norm_w);
    const std::string x2 = view(p + "_x2", xn, {ref(rows_), o_.hidden});
    const Json heads4 = {ref(bsz_), ref(seqlen_), local_heads_, head_dim_};
    const std::string xq = view(p + "_xq", linear(p + "_q", x2, wq), heads4);
    const std::string xk = view(p + "_xk", linear(p + "_k", x2, wk), heads4);
    const std::string xv = view(p + "_xv", linear(p + "_v", x2, wv), heads4);
    const std::string q = rope(p + "_q_rope", xq);
    const std::string k = rope(p + "_k_rope", xk);
    const std::string v = b_.call(p + "_v_t", "aten.transpose.int", Json::array({ref(xv), 1, 2}));
    const std::string kt = b_.call(p + "_k_tt", "aten.transpose.int", Json::array({ref(k), 2, 3}));
    const std::string scores =
        b_.call(p + "_scores", "aten.matmul.default", Json::array({ref(q), ref(kt)}));
    const std::string scaled =
        b_.call(p + "_scaled", "aten.div.Tensor",
                Json::array({ref(scores), std::sqrt(static_cast<double>(head_dim_))}));
    const std::string masked =
        b_.call(p + "_masked", "aten.add.Tensor", Json::array({ref(scaled), ref(mask_)}));
    const std::string probs =
        b_.call(p + "_probs", "aten._softmax.default", Json::array({ref(masked), -1, false}));
    const std::string attn =
        b_.call(p + "_attn", "aten.matmul.default", Json::array({ref(probs), ref(v)}));
    const std::string attn_t =
        b_.call(p + "_attn_t", "aten.transpose.int", Json::array({ref(attn), 1, 2}));
    const std::string attn_c =
        b_.call(p + "_attn_c", "aten.clone.default", Json::array({ref(attn_t)}),
                Json{{"memory_format", Json{{"memory_format", "contiguous_format"}}}});
    const std::string attn_flat = view(p + "_attn_flat", attn_c, {ref(rows_), local_hidden_});
    const std::string o = all_reduce(p + "_o_reduce", linear(p + "_o", attn_flat, wo));
    const std::string o3 = view(p + "_o3", o, {ref(bsz_), ref(seqlen_), o_.hidden});
    const std::string h1 =
        b_.call(p + "_h_attn", "aten.add.Tensor", Json::array({ref(h), ref(o3)}));

    // SwiGLU MLP.
    const std::string fn = rms_norm(p + "_ffn_norm", h1, ffn_norm_w);
    const std::string f2 = view(p + "_f2", fn, {ref(rows_), o_.hidden});
    const std::string gate = linear(p + "_gate", f2, w1);
    const std::string up = linear(p + "_up", f2, w3);
    const std::string act = b_.call(p + "_act", "aten.silu.default", Json::array({ref(gate)}));
    const std::string prod =
        b_.call(p + "_prod", "aten.mul.Tensor", Json::array({ref(act), ref(up)}));
    const std::string down = all_reduce(p + "_down_reduce", linear(p + "_down", prod, w2));
    const std::string down3 = view(p + "_down3", down, {ref(bsz_), ref(seqlen_), o_.hidden});
    return b_.call(p + "_h", "aten.add.Tensor", Json::array({ref(h1), ref(down3)}));
  }

  const LlamaOptions& o_;
  int64_t head_dim_, local_heads_, local_hidden_, local_ffn_;
  GraphWriter b_;
  std::string mask_, bsz_, seqlen_, rows_, freqs_;
};

}  // namespace

Expected<std::string> llama_graph(const LlamaOptions& o) {
  using E = Expected<std::string>;
  if (o.layers < 1 || o.layers > 100000) return E::failure("llama: layers must be in [1, 100000]");
  if (o.heads < 1 || o.hidden < 1 || o.ffn < 1 || o.vocab < 1)
    return E::failure("llama: hidden, heads, ffn and vocab must be positive");
  if (o.hidden % o.heads != 0 || (o.hidden / o.heads) % 2 != 0)
    return E::failure("llama: hidden (" + std::to_string(o.hidden) +
                      ") must be heads times an even head width");
  if (o.tp < 1) return E::failure("llama: tp must be at least 1");
  if (o.heads % o.tp != 0 || o.ffn % o.tp != 0)
    return E::failure("llama: tp (" + std::to_string(o.tp) + ") must divide heads (" +
                      std::to_string(o.heads) + ") and ffn (" + std::to_string(o.ffn) + ")");
  return LlamaWriter(o).write();
}

}  // namespace symshape::gen
