// `kforge asm` wiring: options -> src/tools/asm -> printers. Scratch files go to a fresh temporary folder that is
// removed unless it holds a cubin worth looking at (a roundtrip that differs).
#include "cmd_asm.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "printers.hpp"
#include "tools/asm.hpp"

namespace kforge::cli {

AsmCommand::AsmCommand(CLI::App& app) {
  asm_ = app.add_subcommand("asm", "the kernels' PTX, SASS and cubins (manifest: $KFORGE_ASM_MANIFEST or build/asm)");
  asm_->require_subcommand(1);

  roundtrip_ = asm_->add_subcommand(
      "roundtrip", "re-assemble each kernel unit's PTX with the recorded ptxas flags and compare with nvcc's cubin");
  auto* variant = roundtrip_->add_option("--variant", variants_, "the unit of this variant (repeatable)");
  roundtrip_->add_flag("--all", all_, "every kernel unit (the default)")->excludes(variant);

  dump_ = asm_->add_subcommand("dump", "resource usage (default), SASS and PTX of a variant's unit or of any cubin");
  auto* dump_variant = dump_->add_option("--variant", variant_, "a registered variant");
  auto* dump_cubin = dump_->add_option("--cubin", cubin_, "a cubin (or fatbin, object, executable)")
                         ->check(CLI::ExistingFile);
  dump_variant->excludes(dump_cubin);
  dump_->add_flag("--sass", sass_, "SASS, with source lines when nvdisasm is installed");
  dump_->add_flag("--ptx", ptx_, "PTX");
  dump_->add_flag("--resources", resources_, "registers, shared memory, stack, local memory and spills per kernel");

  build_ = asm_->add_subcommand("build", "assemble an (edited) PTX into a cubin with the recorded ptxas flags");
  build_->add_option("ptx", ptx_in_, "PTX file")->required()->check(CLI::ExistingFile);
  build_->add_option("-o,--out", cubin_out_, "cubin to write")->required();
  build_->add_option("--arch", arch_, "target (default: the recorded one, sm_90a)");
}

int AsmCommand::run() const {
  if (roundtrip_->parsed()) return run_roundtrip();
  if (dump_->parsed()) return run_dump();
  return run_build();
}

int AsmCommand::run_roundtrip() const {
  const AsmManifest m = load_asm_manifest(default_asm_manifest_path());
  std::vector<const AsmUnit*> units;
  for (const std::string& v : variants_) {
    const AsmUnit* u = &unit_of_variant(m, v);
    if (std::find(units.begin(), units.end(), u) == units.end()) units.push_back(u);
  }
  if (units.empty())
    for (const AsmUnit& u : m.units) units.push_back(&u);
  const std::string work = make_temp_dir("kforge-asm-");
  int differing = 0;
  for (const AsmUnit* u : units) {
    const RoundtripResult r = roundtrip(m, *u, work);
    print_roundtrip(std::cout, r);
    std::cout.flush();
    if (r.first_difference) ++differing;
    else std::filesystem::remove(r.ptxas_cubin);
  }
  if (differing == 0) {
    std::filesystem::remove_all(work);
    return 0;
  }
  std::cerr << "kforge asm: " << differing << " of " << units.size() << " units differ; ptxas: " << m.ptxas;
  for (const std::string& a : m.ptxas_args) std::cerr << " " << a;
  std::cerr << " (from " << m.path << ")\n";
  return 1;
}

int AsmCommand::run_dump() const {
  if (variant_.empty() && cubin_.empty()) throw Error("asm dump: expected --variant NAME or --cubin FILE");
  std::optional<AsmManifest> manifest;
  const AsmUnit* unit = nullptr;
  if (!variant_.empty()) {
    manifest = load_asm_manifest(default_asm_manifest_path());
    unit = &unit_of_variant(*manifest, variant_);
  }
  const std::string binary = unit ? unit->cubin : cubin_;
  const bool resources = resources_ || (!sass_ && !ptx_);
  // Section headers only when several sections share stdout.
  const bool headers = int(resources) + int(sass_) + int(ptx_) > 1;
  if (resources) {
    if (headers) std::cout << "// resource usage of " << binary << "\n";
    if (unit) {
      const std::string work = make_temp_dir("kforge-asm-");
      const auto kernels = unit_resource_usage(*manifest, *unit, work);
      std::filesystem::remove_all(work);
      print_resources_table(std::cout, kernels);
    } else {
      print_resources_table(std::cout, resource_usage(binary));
    }
  }
  if (ptx_) {
    if (headers) std::cout << "// PTX of " << (unit ? unit->ptx : binary) << "\n";
    const std::string ptx = unit ? unit_ptx(*unit) : embedded_ptx(binary);
    if (ptx.empty()) std::cerr << "kforge asm: " << binary << " holds no PTX (a cubin never does)\n";
    std::cout << ptx;
  }
  if (sass_) {
    if (headers) std::cout << "// SASS of " << binary << "\n";
    std::cout << disassemble(binary);
  }
  return 0;
}

int AsmCommand::run_build() const {
  const AsmManifest m = load_asm_manifest(default_asm_manifest_path());
  const std::string log = assemble_ptx(m, ptx_in_, cubin_out_, arch_);
  std::cerr << log;
  std::cerr << "kforge asm: wrote " << cubin_out_ << " (" << std::filesystem::file_size(cubin_out_)
            << " bytes) for " << (arch_.empty() ? m.arch : arch_) << "\n";
  return 0;
}

}  // namespace kforge::cli
