// The variant registry and the choice kforge::conv makes from it.
#include "dispatch/registry.hpp"

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>

namespace kforge {

Registry& Registry::instance() {
  static Registry r;
  return r;
}

Registry::Registry() {
  register_depthwise_variants(*this);
  register_dense_variants(*this);
  register_baseline_variants(*this);
}

void Registry::add(Variant v) {
  KF_CHECK(find(v.name) == nullptr, "variant registered twice: " + v.name);
  if (!v.fuses_activation) {
    v.accepts = [inner = std::move(v.accepts)](const ConvProblem& p) -> std::string {
      if (p.activation != Activation::none)
        return std::string("the ") + activation_name(p.activation) + " activation is not fused by this variant";
      return inner(p);
    };
  }
  variants_.push_back(std::move(v));
}

const Variant* Registry::find(const std::string& name) const {
  for (const Variant& v : variants_)
    if (v.name == name) return &v;
  return nullptr;
}

std::vector<const Variant*> Registry::family(const std::string& family) const {
  std::vector<const Variant*> out;
  for (const Variant& v : variants_)
    if (v.family == family) out.push_back(&v);
  return out;
}

const Variant& choose_variant(const ConvProblem& p) {
  std::string why;
  const Variant* v = p.is_depthwise() ? choose_depthwise(p, &why) : choose_dense(p, &why);
  if (!v) {
    std::string msg = "kforge: no variant accepts this problem (" + p.describe() + "):";
    for (const Variant& cand : Registry::instance().all()) {
      if (!cand.library) continue;
      msg += "\n  " + cand.name + ": " + cand.accepts(p);
    }
    throw UnsupportedError(msg);
  }
  // KFORGE_PRINT_CONFIG=1: say which variant runs and why, once per problem.
  if (const char* env = std::getenv("KFORGE_PRINT_CONFIG"); env && std::string(env) == "1") {
    static std::mutex mu;
    static std::set<std::string> printed;
    std::lock_guard<std::mutex> lock(mu);
    if (printed.insert(p.key()).second) std::cerr << "kforge: " << p.describe() << " -> " << v->name << " (" << why << ")\n";
  }
  return *v;
}

}  // namespace kforge
