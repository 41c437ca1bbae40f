// kforge asm: manifest, tool lookup, ptxas re-assembly and byte comparison, cuobjdump/nvdisasm dumps and parsing.
#include "tools/asm.hpp"

#include <cxxabi.h>
#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dispatch/registry.hpp"
#include "tools/build_info.hpp"
#include "tools/process.hpp"

namespace kforge {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// Where each tool comes from when it is missing: the message tells how to get it.
std::string install_hint(const std::string& tool) {
  if (tool == "cuobjdump" || tool == "nvdisasm")
    return "run scripts/setup (it installs the PyPI wheel nvidia-cuda-" + tool + " into third_party/cuda-tools)";
  return "install the CUDA 13 toolkit (nvcc, ptxas) and put its bin/ folder on PATH or in $CUDA_HOME";
}

// Runs a tool and returns its stdout; throws with its stderr when it fails.
std::string run_tool(const std::vector<std::string>& argv) {
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0) {
    std::string cmd;
    for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    throw Error("`" + cmd + "` failed (exit " + std::to_string(r.exit_code) + "): " + r.err + r.out);
  }
  return r.out;
}

std::string stem_of(const std::string& path) { return fs::path(path).stem().string(); }

// The files a PTX's `.file N "path"` directives name that were modified after `since`.
std::vector<std::string> files_changed_since(const std::string& ptx, fs::file_time_type since) {
  std::vector<std::string> changed;
  std::istringstream in(read_file(ptx));
  for (std::string line; std::getline(in, line);) {
    const size_t directive = line.find_first_not_of(" \t");
    if (directive == std::string::npos || line.compare(directive, 5, ".file") != 0 ||
        line.find_first_of(" \t", directive) != directive + 5)
      continue;
    const size_t open = line.find('"'), close = line.rfind('"');
    if (open == std::string::npos || close <= open) continue;
    const std::string file = line.substr(open + 1, close - open - 1);
    std::error_code ec;
    const auto modified = fs::last_write_time(file, ec);
    if (!ec && modified > since) changed.push_back(file);
  }
  return changed;
}

// The build writes a unit's files with the kforge_asm target, after the manifest (written at configure time).
void require_built(const AsmUnit& u) {
  std::error_code ec;
  if (!fs::exists(u.cubin, ec) || !fs::exists(u.ptx, ec))
    throw Error("kernel translation unit " + u.source + " is not built yet (" + u.cubin +
                " missing): ninja -C build kforge_asm");
}

}  // namespace

const AsmUnit& AsmManifest::unit(const std::string& source) const {
  for (const AsmUnit& u : units) {
    if (u.source != source) continue;
    require_built(u);
    return u;
  }
  std::string known;
  for (const AsmUnit& u : units) known += (known.empty() ? "" : ", ") + u.source;
  throw Error("no kernel translation unit " + source + " in " + path + " (it has: " + known +
              "); rebuild when a kernel file was added");
}

std::string default_asm_manifest_path() {
  if (const char* env = std::getenv("KFORGE_ASM_MANIFEST"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path().parent_path() / "asm" / "manifest.json";
    if (fs::exists(beside, ec)) return beside.string();
  }
  return build_asm_manifest_path();
}

AsmManifest load_asm_manifest(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("no kernel build manifest at " + path +
                ": build the kforge_asm target (ninja -C build kforge_asm) or set $KFORGE_ASM_MANIFEST");
  AsmManifest m;
  m.path = path;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    const fs::path dir = fs::path(path).parent_path();
    m.arch = j.at("arch").get<std::string>();
    m.ptxas = j.at("ptxas").get<std::string>();
    m.ptxas_args = j.at("ptxas_args").get<std::vector<std::string>>();
    for (const auto& u : j.at("units"))
      m.units.push_back({u.at("source").get<std::string>(), (dir / u.at("ptx").get<std::string>()).string(),
                         (dir / u.at("cubin").get<std::string>()).string()});
  } catch (const nlohmann::json::exception& e) {
    throw Error("kernel build manifest " + path + " is not valid: " + e.what());
  }
  return m;
}

const AsmUnit& unit_of_variant(const AsmManifest& m, const std::string& variant) {
  const Variant* v = Registry::instance().find(variant);
  if (!v) throw Error("unknown variant '" + variant + "' (kforge list shows them)");
  if (v->source.empty())
    throw Error("variant '" + variant + "' has no kforge translation unit (a comparison anchor)");
  return m.unit(v->source);
}

std::string find_cuda_tool(const std::string& name) {
  std::vector<fs::path> dirs;
  std::istringstream path_env(env_or("PATH", ""));
  for (std::string d; std::getline(path_env, d, ':');)
    if (!d.empty()) dirs.emplace_back(d);
  const fs::path cuda_bin = fs::path(env_or("CUDA_HOME", "/usr/local/cuda")) / "bin";
  const fs::path third_party =
      fs::path(env_or("KFORGE_SOURCE_DIR", KFORGE_SOURCE_DIR)) / "third_party/cuda-tools/nvidia/cu13/bin";
  dirs.push_back(cuda_bin);
  dirs.push_back(third_party);
  for (const fs::path& d : dirs)
    if (is_executable_file(d / name)) return (d / name).string();
  throw Error(name + " not found (looked in PATH, " + cuda_bin.string() + " and " +
              third_party.string() + "): " + install_hint(name));
}

std::string assemble_ptx(const AsmManifest& m, const std::string& ptx, const std::string& cubin,
                         const std::string& arch, const std::vector<std::string>& extra) {
  // The ptxas nvcc ran, so that the result can match nvcc's byte for byte; another one when it has moved.
  std::vector<std::string> argv{is_executable_file(m.ptxas) ? m.ptxas : find_cuda_tool("ptxas")};
  bool has_arch = false;
  for (const std::string& a : m.ptxas_args) {
    const bool is_arch = a.rfind("-arch=", 0) == 0;
    has_arch |= is_arch;
    argv.push_back(is_arch && !arch.empty() ? "-arch=" + arch : a);
  }
  if (!has_arch) argv.push_back("-arch=" + (arch.empty() ? m.arch : arch));
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {ptx, "-o", cubin});
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0)
    throw Error("ptxas failed on " + ptx + " (exit " + std::to_string(r.exit_code) + "):\n" + r.err + r.out);
  return r.err + r.out;
}

std::optional<int64_t> first_difference(const std::string& file_a, const std::string& file_b) {
  const std::string a = read_file(file_a), b = read_file(file_b);
  const auto mismatch = std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin());
  const int64_t offset = mismatch.first - a.begin();
  if (offset == static_cast<int64_t>(a.size()) && a.size() == b.size()) return std::nullopt;
  return offset;
}

std::string elf_section_at(const std::string& elf_file, int64_t offset) {
  const std::string f = read_file(elf_file);
  Elf64_Ehdr eh;
  if (f.size() < sizeof eh || std::memcmp(f.data(), ELFMAG, SELFMAG) != 0 || f[EI_CLASS] != ELFCLASS64) return "";
  std::memcpy(&eh, f.data(), sizeof eh);
  const auto u = static_cast<uint64_t>(offset);
  if (u < sizeof eh) return "ELF header";
  const uint64_t table_end = eh.e_shoff + uint64_t{eh.e_shnum} * eh.e_shentsize;
  if (u >= eh.e_shoff && u < table_end) return "section header table";
  if (u >= eh.e_phoff && u < eh.e_phoff + uint64_t{eh.e_phnum} * eh.e_phentsize) return "program header table";
  if (table_end > f.size() || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum) return "";
  auto section = [&](int i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, f.data() + eh.e_shoff + uint64_t(i) * sizeof sh, sizeof sh);
    return sh;
  };
  const Elf64_Shdr names = section(eh.e_shstrndx);
  for (int i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (sh.sh_type == SHT_NOBITS || u < sh.sh_offset || u >= sh.sh_offset + sh.sh_size) continue;
    const uint64_t name_at = names.sh_offset + sh.sh_name;
    return name_at < f.size() ? std::string(f.c_str() + name_at) : "section " + std::to_string(i);
  }
  return "padding between sections";
}

RoundtripResult roundtrip(const AsmManifest& m, const AsmUnit& unit, const std::string& work_dir) {
  require_built(unit);
  RoundtripResult r;
  r.source = unit.source;
  r.nvcc_cubin = unit.cubin;
  r.ptxas_cubin = (fs::path(work_dir) / (stem_of(unit.cubin) + ".ptxas.cubin")).string();
  assemble_ptx(m, unit.ptx, r.ptxas_cubin);
  r.nvcc_bytes = static_cast<int64_t>(fs::file_size(r.nvcc_cubin));
  r.ptxas_bytes = static_cast<int64_t>(fs::file_size(r.ptxas_cubin));
  r.first_difference = first_difference(r.nvcc_cubin, r.ptxas_cubin);
  if (r.first_difference) {
    r.section = elf_section_at(r.nvcc_cubin, *r.first_difference);
    r.changed_sources = files_changed_since(unit.ptx, fs::last_write_time(r.nvcc_cubin));
  }
  return r;
}

std::vector<KernelResources> parse_res_usage(const std::string& text) {
  // Per kernel: " Function NAME:" then "  REG:40 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:896 ...";
  // fatbins announce each embedded cubin with "arch = sm_90a".
  std::vector<KernelResources> out;
  std::istringstream in(text);
  std::string arch;
  const std::string function = " Function ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("arch = ", 0) == 0) arch = line.substr(7);
    if (line.rfind(function, 0) != 0 || line.back() != ':') continue;
    KernelResources k;
    k.arch = arch;
    k.name = line.substr(function.size(), line.size() - function.size() - 1);
    std::string values;
    std::getline(in, values);
    std::istringstream fields(values);
    for (std::string field; fields >> field;) {
      const size_t colon = field.rfind(':');
      if (colon == std::string::npos) continue;
      const std::string key = field.substr(0, colon);
      const int64_t v = std::strtoll(field.c_str() + colon + 1, nullptr, 10);
      if (key == "REG") k.registers = static_cast<int>(v);
      else if (key == "SHARED") k.shared_bytes = v;
      else if (key == "STACK") k.stack_bytes = v;
      else if (key == "LOCAL") k.local_bytes = v;
      else if (key == "CONSTANT[0]") k.constant0_bytes = v;
    }
    out.push_back(std::move(k));
  }
  return out;
}

void add_spills(std::vector<KernelResources>& kernels, const std::string& ptxas_verbose_output) {
  // "ptxas info    : Function properties for NAME" then "    0 bytes stack frame, 8 bytes spill stores, ...".
  std::istringstream in(ptxas_verbose_output);
  const std::string marker = "Function properties for ";
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(marker);
    if (at == std::string::npos) continue;
    const std::string name = line.substr(at + marker.size());
    std::string sizes;
    std::getline(in, sizes);
    long long stack = 0, stores = 0, loads = 0;
    if (std::sscanf(sizes.c_str(), " %lld bytes stack frame, %lld bytes spill stores, %lld bytes spill loads", &stack,
                    &stores, &loads) != 3)
      continue;
    for (KernelResources& k : kernels) {
      if (k.name != name) continue;
      k.spill_store_bytes = stores;
      k.spill_load_bytes = loads;
    }
  }
}

std::vector<KernelResources> resource_usage(const std::string& binary) {
  return parse_res_usage(run_tool({find_cuda_tool("cuobjdump"), "-res-usage", binary}));
}

std::vector<KernelResources> unit_resource_usage(const AsmManifest& m, const AsmUnit& unit,
                                                 const std::string& work_dir) {
  std::vector<KernelResources> kernels = resource_usage(unit.cubin);
  const std::string scratch = (fs::path(work_dir) / (stem_of(unit.cubin) + ".v.cubin")).string();
  add_spills(kernels, assemble_ptx(m, unit.ptx, scratch, "", {"-v"}));
  return kernels;
}

std::string disassemble(const std::string& binary) {
  std::string nvdisasm;
  try {
    nvdisasm = find_cuda_tool("nvdisasm");
  } catch (const Error&) {
    // cuobjdump alone still disassembles, without the source lines.
  }
  if (!nvdisasm.empty()) {
    // nvdisasm reads cubins only; fatbins, objects and executables go to cuobjdump.
    const ProcessResult r = run_process({nvdisasm, "--print-line-info", "--print-code", binary});
    if (r.exit_code == 0) return r.out;
  }
  return run_tool({find_cuda_tool("cuobjdump"), "-sass", binary});
}

std::string unit_ptx(const AsmUnit& unit) { return read_file(unit.ptx); }

std::string embedded_ptx(const std::string& binary) {
  return run_tool({find_cuda_tool("cuobjdump"), "-ptx", binary});
}

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : symbol;
}

std::string make_temp_dir(const std::string& prefix) {
  std::string tmpl = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw Error("cannot create a folder " + tmpl + ": " + std::strerror(errno));
  return tmpl;
}

}  // namespace kforge
