// The dense family (groups < C): one accepts/launch pair per variant, each in its own file.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "dispatch/registry.hpp"

namespace kforge::dense {

std::string v0_direct_accepts(const ConvProblem& p);
void v0_direct_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s);

}  // namespace kforge::dense
