// Internal: the checks of the argument accessors, shared by OpContext (symshape/ops/context.cc)
// and KernelContext (symshape/interp/context.cc): an argument of the wrong kind is bad input
// with one message on both sides. `label` names the argument ("argument 'dim' of
// aten.sum.dim_IntList"); V is a Value (the rule's) or an RValue (the kernel's), whose kinds
// have the same names. See checks.h.
#pragma once

#include <optional>

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

// A tensor argument's value.
template <class Ctx, class V>
auto tensor_arg(const Ctx& ctx, V v, const std::string& label) {
  if (v.kind != V::Kind::Tensor) {
    ctx.bad_input(label + " must be a tensor, got " +
                  (v.kind == V::Kind::None ? std::string("nothing") : v.str()));
  }
  return std::move(v.tensor);
}

// A list-of-tensors argument's tensors.
template <class Ctx, class V>
auto tensor_list_arg(const Ctx& ctx, const V& v, const std::string& label) {
  if (v.kind != V::Kind::List) ctx.bad_input(label + " must be a list of tensors");
  std::vector<std::decay_t<decltype(v.tensor)>> out;
  for (const V& item : v.items) {
    if (item.kind != V::Kind::Tensor) {
      ctx.bad_input(label + " must be a list of tensors, got " + item.str());
    }
    out.push_back(item.tensor);
  }
  return out;
}

// An int argument's value: an int, or a bool as 0 / 1 (as_int gives it, nullopt otherwise);
// `given` is the argument as written, for the message.
template <class Ctx, class I>
I int_arg(const Ctx& ctx, const std::optional<I>& v, const std::string& label,
          const std::string& given) {
  if (!v) ctx.bad_input(label + " must be an int, got " + given);
  return *v;
}

// A list-of-ints argument's values (a single int is a one-element list).
template <class Ctx, class V, class AsInt>
auto int_list_arg(const Ctx& ctx, const V& v, const std::string& label, const std::string& given,
                  AsInt as_int) {
  using I = typename std::decay_t<decltype(as_int(v))>::value_type;
  if (auto single = as_int(v)) return std::vector<I>{*single};
  if (v.kind != V::Kind::List) ctx.bad_input(label + " must be a list of ints, got " + given);
  std::vector<I> out;
  for (const V& item : v.items) {
    auto e = as_int(item);
    if (!e) ctx.bad_input(label + " must be a list of ints, got " + given);
    out.push_back(*e);
  }
  return out;
}

// A required argument the call lacks.
template <class Ctx, class T>
T required(const Ctx& ctx, std::optional<T> v, const std::string& label) {
  if (!v) ctx.bad_input("missing " + label);
  return std::move(*v);
}

// A string argument (nullptr: absent, giving fallback).
template <class Ctx>
std::string string_arg(const Ctx& ctx, const Arg* a, const std::string& label,
                       const std::string& fallback) {
  if (!a) return fallback;
  if (a->kind != Arg::Kind::String) ctx.bad_input(label + " must be a string");
  return a->text;
}

// A dtype argument (nullptr: absent).
template <class Ctx>
std::optional<DType> dtype_arg(const Ctx& ctx, const Arg* a, const std::string& label) {
  if (!a) return std::nullopt;
  if (a->kind != Arg::Kind::DType) ctx.bad_input(label + " must be a dtype");
  return a->dtype;
}

// A dim index normalized into [0, rank) (rank 0 accepts -1 and 0, as PyTorch does).
template <class Ctx>
size_t dim_index(const Ctx& ctx, int64_t dim, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank == 0 ? 1 : rank);
  if (dim < -r || dim >= r) {
    ctx.bad_input("dim " + std::to_string(dim) + " is out of range for a tensor of rank " +
                  std::to_string(rank) + " (expected [" + std::to_string(-r) + ", " +
                  std::to_string(r - 1) + "])");
  }
  return static_cast<size_t>(dim < 0 ? dim + r : dim);
}

}  // namespace symshape::validate
