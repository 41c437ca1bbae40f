// Runs an external program (the CUDA binary tools: ptxas, cuobjdump, nvdisasm) without a shell and returns its
// exit status and output. Limits: POSIX only; the whole output is held in memory.
#pragma once

#include <string>
#include <vector>

namespace kforge {

struct ProcessResult {
  int exit_code = -1;  // the program's exit status; 128 + N when killed by signal N
  std::string out;     // everything it wrote to stdout
  std::string err;     // everything it wrote to stderr
};

// Runs argv[0] (a path, or a name looked up in PATH) with arguments argv[1..]. Throws kforge::Error when the
// program cannot be started; a non-zero exit is reported in the result, not thrown.
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace kforge
