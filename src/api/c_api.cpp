// The C ABI over kforge::conv: statuses and a per-thread message instead of exceptions.
#include <cstring>
#include <string>

#include "kforge/conv.hpp"
#include "kforge/kforge.h"

namespace {

thread_local std::string last_error;

kforge_status fail(kforge_status s, const std::string& msg) {
  last_error = msg;
  return s;
}

// Rejects what a C caller can get wrong before the C++ view exists (null structs, bad enum values, ranks).
bool to_view(const kforge_tensor* t, const char* name, kforge::TensorView* out, std::string* why) {
  if (!t) { *why = std::string("expected ") + name + " tensor, but got NULL"; return false; }
  if (t->dtype < KFORGE_F32 || t->dtype > KFORGE_FP8_E4M3) {
    *why = std::string("expected ") + name + " dtype to be a kforge_dtype (0..3), but got " + std::to_string(t->dtype);
    return false;
  }
  if (t->rank < 1 || t->rank > 5) {
    *why = std::string("expected ") + name + " rank between 1 and 5, but got " + std::to_string(t->rank);
    return false;
  }
  out->data = t->data;
  out->dtype = static_cast<kforge::DType>(t->dtype);
  out->rank = t->rank;
  for (int i = 0; i < 5; ++i) {
    out->sizes[i] = i < t->rank ? t->sizes[i] : 1;
    out->strides[i] = i < t->rank ? t->strides[i] : 1;
  }
  return true;
}

}  // namespace

extern "C" kforge_status kforge_conv(const kforge_tensor* x, const kforge_tensor* w, const kforge_tensor* bias,
                                     const kforge_tensor* y, const kforge_conv_params* params, void* stream,
                                     const char* variant) {
  last_error.clear();
  try {
    kforge::TensorView xv, wv, bv, yv;
    std::string why;
    if (!to_view(x, "input", &xv, &why) || !to_view(w, "weight", &wv, &why) || !to_view(y, "output", &yv, &why) ||
        (bias && !to_view(bias, "bias", &bv, &why)))
      return fail(KFORGE_ERROR_INVALID_ARGUMENT, why);
    if (!params) return fail(KFORGE_ERROR_INVALID_ARGUMENT, "expected conv params, but got NULL");
    const int spatial = xv.rank - 2;
    if (spatial < 1) return fail(KFORGE_ERROR_INVALID_ARGUMENT, "Expected 3D, 4D or 5D (batched) input, but got rank " + std::to_string(xv.rank));
    kforge::ConvParams p;
    p.stride.assign(params->stride, params->stride + spatial);
    p.padding.assign(params->padding_lo, params->padding_lo + spatial);
    p.padding_hi.assign(params->padding_hi, params->padding_hi + spatial);
    p.dilation.assign(params->dilation, params->dilation + spatial);
    p.groups = params->groups;
    if (params->activation != KFORGE_ACTIVATION_NONE && params->activation != KFORGE_ACTIVATION_SILU)
      return fail(KFORGE_ERROR_INVALID_ARGUMENT, "unknown activation " + std::to_string(params->activation) +
                                                     ": expected KFORGE_ACTIVATION_NONE or KFORGE_ACTIVATION_SILU");
    p.activation = static_cast<kforge::Activation>(params->activation);
    kforge::ConvOptions opt;
    if (variant) opt.variant = variant;
    kforge::conv(xv, wv, bias ? &bv : nullptr, yv, p, static_cast<cudaStream_t>(stream), opt);
    return KFORGE_OK;
  } catch (const kforge::CudaError& e) {
    return fail(KFORGE_ERROR_CUDA, e.what());
  } catch (const kforge::UnsupportedError& e) {
    return fail(KFORGE_ERROR_UNSUPPORTED, e.what());
  } catch (const kforge::Error& e) {
    return fail(KFORGE_ERROR_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return fail(KFORGE_ERROR_INTERNAL, e.what());
  } catch (...) {
    return fail(KFORGE_ERROR_INTERNAL, "unknown error");
  }
}

extern "C" const char* kforge_last_error(void) { return last_error.c_str(); }

extern "C" const char* kforge_version(void) { return KFORGE_VERSION; }
