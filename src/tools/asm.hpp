// kforge asm: the PTX and cubin of every kernel translation unit (built for sm_90a with the library's flags by
// cmake/kforge_tools.cmake, which records in build/asm/manifest.json the exact ptxas flags nvcc used), re-assembly
// of PTX with those flags, and dumps (SASS, PTX, resource usage) through the CUDA binary tools.
// Limits: needs the build tree's manifest and the toolkit's ptxas (a build machine, not the GPU bundle);
// cuobjdump and nvdisasm come from PATH, $CUDA_HOME/bin or third_party/cuda-tools (scripts/setup).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kforge {

// One kernel translation unit as the build compiled it.
struct AsmUnit {
  std::string source;  // relative to the source tree, as Variant::source: "src/depthwise/dw_v1_direct.cu"
  std::string ptx;     // absolute paths in the build tree
  std::string cubin;   // what nvcc made of that PTX
};

// What the build recorded (build/asm/manifest.json).
struct AsmManifest {
  std::string path;                     // of the manifest itself
  std::string arch;                     // "sm_90a"
  std::string ptxas;                    // the ptxas nvcc runs
  std::vector<std::string> ptxas_args;  // as nvcc passes them (from `nvcc -dryrun`), without the input and -o
  std::vector<AsmUnit> units;

  // The unit compiled from `source`; throws kforge::Error listing the known ones when there is none.
  const AsmUnit& unit(const std::string& source) const;
};

// $KFORGE_ASM_MANIFEST, else asm/manifest.json next to the executable's bin/ folder (build/bin/kforge ->
// build/asm), else the build tree this binary was built in.
std::string default_asm_manifest_path();
// Throws kforge::Error saying how to build it when the manifest is missing.
AsmManifest load_asm_manifest(const std::string& path);

// The translation unit of a registered variant; throws for unknown names and for anchors (no kforge source).
const AsmUnit& unit_of_variant(const AsmManifest& m, const std::string& variant);

// A CUDA binary tool (ptxas, cuobjdump, nvdisasm): PATH, then $CUDA_HOME/bin (default /usr/local/cuda/bin), then
// third_party/cuda-tools/nvidia/cu13/bin of the source tree ($KFORGE_SOURCE_DIR overrides the built-in one).
// Throws kforge::Error naming where it looked and how to install the tool when it is in none of them.
std::string find_cuda_tool(const std::string& name);

// Runs ptxas with the recorded arguments (-arch replaced when `arch` is not empty, `extra` appended) on `ptx`,
// writing `cubin`. Returns what ptxas printed (warnings, -v info); throws with its message when it fails.
std::string assemble_ptx(const AsmManifest& m, const std::string& ptx, const std::string& cubin,
                         const std::string& arch = "", const std::vector<std::string>& extra = {});

// Byte offset of the first difference between two files (the shorter length when one is a prefix of the
// other); nullopt when they are identical.
std::optional<int64_t> first_difference(const std::string& file_a, const std::string& file_b);

// Name of the ELF section of `elf_file` that holds byte `offset`, or a description of where it is (header,
// section table); "" when the file is not a 64-bit ELF.
std::string elf_section_at(const std::string& elf_file, int64_t offset);

struct RoundtripResult {
  std::string source;
  std::string nvcc_cubin, ptxas_cubin;
  int64_t nvcc_bytes = 0, ptxas_bytes = 0;
  std::optional<int64_t> first_difference;  // nullopt: byte-identical
  std::string section;                      // ELF section of nvcc's cubin at the first difference
  // Source files the PTX names that changed after nvcc wrote its cubin: ptxas records each one's time and size
  // in .debug_line, so a stale build differs there and only there (rebuild kforge_asm).
  std::vector<std::string> changed_sources;
};

// Re-assembles the unit's PTX with the recorded flags into `work_dir` and compares it with nvcc's cubin.
RoundtripResult roundtrip(const AsmManifest& m, const AsmUnit& unit, const std::string& work_dir);

// Resource usage of one kernel.
struct KernelResources {
  std::string arch;  // "sm_90a" when the tool said so (fatbins hold several), else ""
  std::string name;  // mangled
  int registers = 0;
  int64_t shared_bytes = 0, stack_bytes = 0, local_bytes = 0, constant0_bytes = 0;
  std::optional<int64_t> spill_store_bytes, spill_load_bytes;  // from ptxas -v, when the PTX is at hand
};

// `cuobjdump -res-usage` output -> one entry per kernel.
std::vector<KernelResources> parse_res_usage(const std::string& cuobjdump_output);
// Adds the spill sizes of `ptxas -v` output to the kernels it names.
void add_spills(std::vector<KernelResources>& kernels, const std::string& ptxas_verbose_output);
// Runs cuobjdump -res-usage on a cubin (or fatbin, object, executable).
std::vector<KernelResources> resource_usage(const std::string& binary);
// Resource usage of a unit, with spills from re-assembling its PTX with -v (in `work_dir`).
std::vector<KernelResources> unit_resource_usage(const AsmManifest& m, const AsmUnit& unit,
                                                 const std::string& work_dir);

// SASS of a cubin: nvdisasm with source line info when it is installed and reads the file, else cuobjdump -sass.
std::string disassemble(const std::string& binary);
// The PTX text of a unit (what ptxas assembled into its cubin).
std::string unit_ptx(const AsmUnit& unit);
// PTX embedded in a fatbin or executable (cuobjdump -ptx); "" when it holds none (a cubin never does).
std::string embedded_ptx(const std::string& binary);

// C++ name of a mangled symbol; the symbol itself when it is not a C++ name.
std::string demangle(const std::string& symbol);

// A fresh folder under the system temporary folder ("<prefix>XXXXXX").
std::string make_temp_dir(const std::string& prefix);

}  // namespace kforge
