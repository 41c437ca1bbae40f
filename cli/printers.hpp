// Formats benchmark rows (the measurement core's output) for people: a fixed-width table. No computation here.
#pragma once

#include <ostream>
#include <vector>

#include "bench/bench.hpp"

namespace kforge::cli {

void print_bench_table(std::ostream& os, const std::vector<BenchRow>& rows);

}  // namespace kforge::cli
