// The profile target: a suite case's problem with random inputs for a variant, or a probe, launched once inside
// cudaProfilerStart/Stop (ncu --profile-from-start off profiles only that region).
#include "tools/profile_target.hpp"

#include <cuda_profiler_api.h>

#include "bench/bench.hpp"
#include "bench/suite.hpp"
#include "core/cuda_check.hpp"
#include "dispatch/registry.hpp"
#include "tools/profile_probes.hpp"

namespace kforge {
namespace {

constexpr uint64_t kSeed = 0x70726f66696c65ull;  // any fixed seed: the profile does not depend on the values

ConvProblem target_problem(const ProfileTarget& t) {
  const Suite suite = load_suite(find_suite_file(t.suite));
  return suite.find(t.case_name).problem(parse_dtype(t.dtype), parse_layout(t.layout));
}

const Variant& target_variant(const ProfileTarget& t) {
  const Variant* v = Registry::instance().find(t.variant);
  if (!v) throw Error("unknown variant '" + t.variant + "' (kforge list shows them)");
  if (v->family != t.suite && v->library)
    throw Error("variant '" + t.variant + "' is of the " + v->family + " family, not of suite '" + t.suite +
                "' (pass --suite " + v->family + ")");
  return *v;
}

// A variant with its inputs, output and workspace allocated for the target's problem.
class VariantWorkload final : public ProfileWorkload {
 public:
  VariantWorkload(const Variant& v, const ConvProblem& p, cudaStream_t stream)
      : v_(v), p_(p), in_(random_inputs(p, kSeed, stream)), y_(output_bytes(p)), ws_(v.workspace(p)) {}
  void launch(cudaStream_t stream) override {
    v_.launch(p_, {in_.x.get(), in_.w.get(), p_.has_bias ? in_.b.get() : nullptr, y_.get(), ws_.get()}, stream);
    KF_LAUNCH_CHECK();
  }

 private:
  const Variant& v_;
  ConvProblem p_;
  ConvInputs in_;
  DeviceBuffer y_, ws_;
};

}  // namespace

std::string ProfileTarget::label() const {
  if (!probe.empty()) return "probe " + probe;
  return variant + " on " + case_name + " (" + suite + ", " + layout + ", " + dtype + ")";
}

std::vector<std::string> ProfileTarget::args() const {
  if (!probe.empty()) return {"_profile-target", "--probe", probe};
  return {"_profile-target", "--suite", suite, "--case", case_name, "--variant", variant,
          "--layout", layout, "--dtype", dtype};
}

void validate_profile_target(const ProfileTarget& t) {
  if (!t.probe.empty()) {
    if (!t.variant.empty() || !t.case_name.empty())
      throw Error("profile: expected either a VARIANT with --case, or --probe, not both");
    if (t.probe != "copy" && t.probe != "gemm") throw Error("unknown probe '" + t.probe + "': expected copy or gemm");
    return;
  }
  if (t.variant.empty() || t.case_name.empty()) throw Error("profile: expected a VARIANT and --case NAME, or --probe");
  const ConvProblem p = target_problem(t);
  const Variant& v = target_variant(t);
  if (const std::string why = v.accepts(p); !why.empty())
    throw Error("variant '" + t.variant + "' refuses case '" + t.case_name + "' (" + p.describe() + "): " + why);
}

void run_profile_target(const ProfileTarget& t) {
  validate_profile_target(t);
  cudaStream_t stream = nullptr;
  KF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  try {
    std::unique_ptr<ProfileWorkload> w;
    if (t.probe == "copy") w = make_copy_probe(stream);
    else if (t.probe == "gemm") w = make_gemm_probe(stream);
    else w = std::make_unique<VariantWorkload>(target_variant(t), target_problem(t), stream);
    w->launch(stream);  // warm-up: first-launch work stays out of the profiled region
    KF_CUDA_CHECK(cudaStreamSynchronize(stream));
    KF_CUDA_CHECK(cudaProfilerStart());
    w->launch(stream);
    KF_CUDA_CHECK(cudaStreamSynchronize(stream));
    KF_CUDA_CHECK(cudaProfilerStop());
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  KF_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace kforge
