// dw_v3b_smem_occupancy: v3's idea (dense NCDHW, zero-padded fp32 input halo in shared memory, register-window
// accumulation) re-tiled for occupancy and grid fill. A 128-thread CTA owns a tile_h x tile_w output tile of one
// (n, k) plane and a chunk of output depths, and streams through the chunk: each step computes dz output depths
// from a ring of the `ring` input depth slices they read, one 4x8 output block (rows x columns) per thread item.
// The slices the next step adds are loaded into registers before the step's FMAs and written to the ring after
// them, so loads overlap compute and each input slice is staged once per CTA (16-byte loads when rows allow).
// The tile, dz and chunk come from a small cost model over candidate plans (issue time per SM, a memory round
// trip per step, staged bytes) with the SM count and the kernel's registers, under a 48 KB shared-memory budget:
// large planes are split, small problems get more CTAs by splitting the depth range.
// Compile-time filter rows/columns for unit H/W stride and dilation (3x3, 5x5, 7x7, 1x1 in H x W, any T), for
// 3x3 with H/W stride 2 and for 3x3 with H/W dilation 2: their windows stay in registers. Anything else runs the
// runtime-size path. Depth stride and dilation are runtime (ring geometry) on every path.
// Limits: x and y dense NCDHW (weights any strides); output sizes below 2^30; the smallest plan (one 4x8 block, one
// depth per step) must fit the 48 KB budget, else accepts() refuses with the size.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

#include "depthwise/dw_common.cuh"
#include "depthwise/variants.hpp"

namespace kforge::depthwise {
namespace {

constexpr int kThreads = 128;
constexpr int kMinCtasPerSm = 4;  // caps registers at 128 per thread
constexpr int kRows = 4;          // outputs per thread item along H
constexpr int kCols = 8;          // outputs per thread item along W: 16-byte-aligned windows, one packed store
constexpr int kPrefetch = 2;      // staging units per thread held in registers across a step's FMAs (8 regs)
constexpr int kPrefetchStride2 = 1;  // the same next to stride-2 windows (17 floats a row), which need the registers
constexpr int kCopyBatch = 4;     // staging units per thread in flight at once outside the FMAs
constexpr int64_t kMaxOutputSize = int64_t{1} << 30;  // output coordinates (plus a tile) fit an int
// At most 48 KB of dynamic shared memory per CTA: no opt-in, and 4 CTAs fit an H100/H200 SM (228 KB).
constexpr size_t kCtaSmemBudgetBytes = 48 * 1024;

// Exact n / d and n % d for 0 <= n < 2^31 with one multiply-high (the round-up method of Granlund and Montgomery):
// with l = ceil(log2 d) and the 33-bit m = floor(2^(32+l) / d) + 1, n / d = floor(m * n / 2^(32+l)); the low 32
// bits of m are kept and its top bit is added back as n.
struct FastDivmod {
  uint32_t divisor = 1, multiplier = 1, shift = 0;

  FastDivmod() = default;
  explicit FastDivmod(uint32_t d)
      : divisor(d),
        multiplier(static_cast<uint32_t>((uint64_t{1} << (32 + std::bit_width(d - 1))) / d + 1)),
        shift(static_cast<uint32_t>(std::bit_width(d - 1))) {}

  __device__ __forceinline__ void operator()(int n, int& quotient, int& remainder) const {
    quotient = static_cast<int>((__umulhi(static_cast<uint32_t>(n), multiplier) + static_cast<uint32_t>(n)) >> shift);
    remainder = n - quotient * static_cast<int>(divisor);
  }
};

// One launch's tiling. Shared memory: [taps_padded] filter floats, then `ring` slices of [in_h][pitch] floats.
// Ring slot of the input depth slice `rel` slices after the chunk's first one: rel % ring.
struct Plan {
  int tile_h, tile_w;       // outputs per CTA per depth: multiples of kRows, kCols
  int dz;                   // output depths per step
  int64_t chunk;            // output depths per CTA: a multiple of dz
  int in_h, in_w, pitch;    // the halo slice; pitch: in_w rounded up to 4 floats (16-byte-aligned rows)
  int ring;                 // input depth slices one step reads: (dz - 1) * stride_d + (T - 1) * dilation_d + 1
  int taps_padded;          // filter floats rounded up to 4
  int new_slices;           // slices a step adds to the ring: min(dz * stride_d, ring)
  int window_shift;         // (dz * stride_d) % ring: how far the ring's first slot moves per step
  int unit_width;           // input elements per staging unit: the widest aligned load (16, 8, 4 or 2 bytes)
  FastDivmod slice_units;   // staging units per ring slice (in_h rows)
  FastDivmod row_units;     // staging units per row
  int64_t tiles_h, tiles_w, chunks;

  __host__ __device__ int row_blocks() const { return tile_h / kRows; }
  __host__ __device__ int col_blocks() const { return tile_w / kCols; }
  __host__ __device__ int items() const { return dz * row_blocks() * col_blocks(); }
  size_t smem_bytes() const { return (size_t(taps_padded) + size_t(ring) * in_h * pitch) * sizeof(float); }
};

// Up to 16 bytes of consecutive input elements as one load returned them: 32-bit words in memory order, so a
// unit costs 4 registers whatever the element type.
struct RawUnit {
  uint32_t word[4];
};

// Element e (a constant after unrolling) of a unit of T, as fp32 (exact).
template <typename T>
__device__ __forceinline__ float unit_element(const RawUnit& u, int e) {
  if constexpr (sizeof(T) == 4) {
    return __uint_as_float(u.word[e]);
  } else {
    const uint32_t bits = (u.word[e / 2] >> (16 * (e % 2))) & 0xffffu;
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return __uint_as_float(bits << 16);
    else return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
  }
}

// Copies input depth slices of the CTA's halo into ring slots as fp32 (zero outside the input). A pass over
// `count` consecutive slices is cut into units of plan.unit_width consecutive columns, one aligned load each (unit
// u: slice u / slice_units, then row and unit within the row), spread over the threads; a thread moves its units
// in batches, loading all units of a batch before storing any so their latencies overlap.
template <typename T>
struct HaloStager {
  static constexpr int kMaxUnit = 16 / sizeof(T);
  using Unit = RawUnit;

  const Geometry& g;
  const Plan& plan;
  const T* x_plane;
  float* ring;
  int64_t id_first, ih0;  // input depth and row of the halo's first slice and row
  int64_t col0;           // input column of every row's first unit: the halo's first column rounded down to a unit
  int lead;               // halo's first column - col0, in [0, unit_width)

  __device__ int units(int count) const { return count * static_cast<int>(plan.slice_units.divisor); }

  __device__ void place(int u, int& slice, int& row, int& unit) const {
    int in_slice = 0;
    plan.slice_units(u, slice, in_slice);
    plan.row_units(in_slice, row, unit);
  }

  __device__ Unit load(int64_t rel, int row, int unit) const {
    Unit v{};  // zero: the padding
    const int64_t id = id_first + rel, ih = ih0 + row, iw = col0 + int64_t(unit) * plan.unit_width;
    // Rows start unit-aligned and W is a multiple of the unit: a unit is entirely inside [0, W) or outside.
    if (id < 0 || id >= g.D || ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) return v;
    const T* src = x_plane + id * g.xs[2] + ih * g.xs[3] + iw;
    switch (plan.unit_width * sizeof(T)) {
      case 16: {
        const uint4 q = *reinterpret_cast<const uint4*>(src);
        v.word[0] = q.x, v.word[1] = q.y, v.word[2] = q.z, v.word[3] = q.w;
        break;
      }
      case 8: {
        const uint2 q = *reinterpret_cast<const uint2*>(src);
        v.word[0] = q.x, v.word[1] = q.y;
        break;
      }
      case 4: v.word[0] = *reinterpret_cast<const uint32_t*>(src); break;
      default: v.word[0] = *reinterpret_cast<const uint16_t*>(src); break;
    }
    return v;
  }

  __device__ void store(const Unit& v, int slot, int row, int unit) const {
    float* dst = ring + (slot * plan.in_h + row) * plan.pitch;
    const int first_col = unit * plan.unit_width - lead;
#pragma unroll
    for (int e = 0; e < kMaxUnit; ++e) {
      const int col = first_col + e;
      if (e < plan.unit_width && col >= 0 && col < plan.in_w) dst[col] = unit_element<T>(v, e);
    }
  }

  // This thread's units first + threadIdx.x + b * kThreads (b < kBatchSize) of the pass over slices
  // rel0 .. rel0 + count - 1.
  template <int kBatchSize>
  __device__ void load_batch(int first, int64_t rel0, int count, Unit (&batch)[kBatchSize]) const {
#pragma unroll
    for (int b = 0; b < kBatchSize; ++b) {
      const int u = first + static_cast<int>(threadIdx.x) + b * kThreads;
      if (u >= units(count)) break;
      int slice = 0, row = 0, unit = 0;
      place(u, slice, row, unit);
      batch[b] = load(rel0 + slice, row, unit);
    }
  }

  // Stores what load_batch loaded; the pass's first slice goes to ring slot slot0 (the next ones wrap around).
  template <int kBatchSize>
  __device__ void store_batch(int first, int count, int slot0, const Unit (&batch)[kBatchSize]) const {
#pragma unroll
    for (int b = 0; b < kBatchSize; ++b) {
      const int u = first + static_cast<int>(threadIdx.x) + b * kThreads;
      if (u >= units(count)) break;
      int slice = 0, row = 0, unit = 0;
      place(u, slice, row, unit);
      const int slot = slot0 + slice;
      store(batch[b], slot < plan.ring ? slot : slot - plan.ring, row, unit);
    }
  }

  // The units of the pass from `first` on, kCopyBatch per thread at a time.
  __device__ void copy(int first, int64_t rel0, int count, int slot0) const {
    for (; first < units(count); first += kCopyBatch * kThreads) {
      Unit batch[kCopyBatch];
      load_batch(first, rel0, count, batch);
      store_batch(first, count, slot0, batch);
    }
  }
};

// One CTA per (plane, depth chunk, tile row, tile column), numbered blockIdx.y * gridDim.x + blockIdx.x with tile
// columns fastest so neighbouring CTAs share halos in L2. KR, KS > 0: compile-time filter rows/columns and H/W
// strides (SH, SW) and dilations (DH, DW); KR = 0: every size, stride and dilation at run time.
template <typename T, int KR, int KS, int SH, int SW, int DH, int DW>
__global__ void __launch_bounds__(kThreads, kMinCtasPerSm)
occupancy_tile_kernel(const Geometry g, const Plan plan, const T* __restrict__ x, const T* __restrict__ w,
                      const T* __restrict__ bias, T* __restrict__ y) {
  constexpr bool kFixed = KR > 0;
  constexpr int kPrefetchUnits = SW == 2 ? kPrefetchStride2 : kPrefetch;
  extern __shared__ float4 smem_words[];
  float* w_smem = reinterpret_cast<float*>(smem_words);
  float* ring = w_smem + plan.taps_padded;
  const int kt = static_cast<int>(g.T);
  const int kr = kFixed ? KR : static_cast<int>(g.R), ks = kFixed ? KS : static_cast<int>(g.S);
  // Strides and dilations only multiply offsets inside the halo tile (bounded by the shared-memory budget) except
  // where the index they multiply is 0 (a one-deep step, a one-tap filter): int is exact, C++20 narrowing wraps.
  const int sd = static_cast<int>(g.stride[0]), dd = static_cast<int>(g.dilation[0]);
  const int sh = static_cast<int>(g.stride[1]), sw = static_cast<int>(g.stride[2]);
  const int dh = static_cast<int>(g.dilation[1]), dw = static_cast<int>(g.dilation[2]);
  const int slice_floats = plan.in_h * plan.pitch;
  const int64_t window_step = plan.dz * g.stride[0];  // input slices between the windows of consecutive steps

  const int64_t cta = int64_t(blockIdx.y) * gridDim.x + blockIdx.x;
  if (cta >= g.N * g.K * plan.chunks * plan.tiles_h * plan.tiles_w) return;  // the last grid row's spare CTAs
  // Output sizes are below 2^30 (accepts()): coordinates inside the output plane and chunk are int.
  const int ow0 = static_cast<int>(cta % plan.tiles_w) * plan.tile_w;
  const int oh0 = static_cast<int>(cta / plan.tiles_w % plan.tiles_h) * plan.tile_h;
  const int64_t od_begin = cta / (plan.tiles_w * plan.tiles_h) % plan.chunks * plan.chunk;
  const int64_t plane = cta / (plan.tiles_w * plan.tiles_h * plan.chunks);
  const int64_t n = plane / g.K, k = plane % g.K;
  const int depths = static_cast<int>(std::min(g.Do - od_begin, plan.chunk));  // output depths of this chunk
  T* y_chunk = y + n * g.ys[0] + k * g.ys[1] + od_begin * g.ys[2];
  const int64_t iw0 = ow0 * g.stride[2] - g.pad_lo[2];
  const int64_t col0 = iw0 & ~int64_t{plan.unit_width - 1};  // rounded down (two's complement)
  const HaloStager<T> stager{g, plan, x + n * g.xs[0] + k / g.multiplier * g.xs[1], ring,
                             od_begin * g.stride[0] - g.pad_lo[0], oh0 * g.stride[1] - g.pad_lo[1], col0,
                             static_cast<int>(iw0 - col0)};

  stage_filter(g, w, k, kt, kr, ks, w_smem);
  stager.copy(0, 0, plan.ring, 0);
  __syncthreads();

  const float bias_v = bias ? to_float(bias[k]) : 0.f;
  const int steps = static_cast<int>(ceil_div(depths, plan.dz));
  int base = 0;  // ring slot of the current window's first slice
  for (int step = 0; step < steps; ++step) {
    // The next window starts window_step slices later. The slices it adds (all of it when the windows do not
    // overlap) are loaded now and written after this step's FMAs, into the slots this window frees. Slices are
    // counted from the chunk's first one.
    const bool more = step + 1 < steps;
    const bool overlap = plan.new_slices < plan.ring;
    const int64_t first_new = step * window_step + (overlap ? plan.ring : window_step);
    typename HaloStager<T>::Unit prefetch[kPrefetchUnits];
    if (more) stager.load_batch(0, first_new, plan.new_slices, prefetch);

    for (int item = threadIdx.x; item < plan.items(); item += kThreads) {
      const int cb = item % plan.col_blocks(), rb = item / plan.col_blocks() % plan.row_blocks();
      const int z = item / (plan.col_blocks() * plan.row_blocks());
      const int od = step * plan.dz + z, oh = oh0 + rb * kRows, ow = ow0 + cb * kCols;  // od: in the chunk
      if (od >= depths || oh >= g.Ho || ow >= g.Wo) continue;

      float acc[kRows][kCols];
#pragma unroll
      for (int j = 0; j < kRows; ++j) {
#pragma unroll
        for (int c = 0; c < kCols; ++c) acc[j][c] = bias_v;
      }
      const float* block = ring + rb * kRows * (kFixed ? SH : sh) * plan.pitch + cb * kCols * (kFixed ? SW : sw);
#pragma unroll 1
      for (int t = 0; t < kt; ++t) {
        int slot = base + z * sd + t * dd;  // < 2 * ring: z * sd + t * dd < ring
        if (slot >= plan.ring) slot -= plan.ring;
        const float* in = block + slot * slice_floats;
        const float* w_t = w_smem + t * kr * ks;
        if constexpr (kFixed) {
          accumulate_window<kRows, kCols, KR, KS, SH, SW, DH, DW>(in, plan.pitch, w_t, acc);
        } else {
          accumulate_any_taps(in, plan.pitch, w_t, kr, ks, sh, sw, dh, dw, acc);
        }
      }

      T* y_block = y_chunk + od * g.ys[2] + oh * g.ys[3];
#pragma unroll
      for (int j = 0; j < kRows; ++j) {
        if (oh + j >= g.Ho) break;
        store_output_row<T, kCols>(y_block + j * g.ys[3], ow, g.Wo, g.ys[4], acc[j]);
      }
    }

    if (more) {
      __syncthreads();  // this window's readers are done: its first slots may be overwritten
      int next_base = base + plan.window_shift;
      if (next_base >= plan.ring) next_base -= plan.ring;
      const int slot0 = overlap ? base : next_base;  // the slot of slice first_new
      stager.store_batch(0, plan.new_slices, slot0, prefetch);
      stager.copy(kPrefetchUnits * kThreads, first_new, plan.new_slices, slot0);
      base = next_base;
      __syncthreads();
    }
  }
}

// ---- host: plans, the cost model, dispatch ----

// The plan for blocks of row_blocks x col_blocks items, dz depths per step and chunk depths per CTA, or nullopt
// when its shared memory (computed in double so a huge stride or dilation compares as too big rather than
// wrapping; returned in *bytes when given) exceeds the budget.
std::optional<Plan> make_plan(const ConvProblem& p, int64_t row_blocks, int64_t col_blocks, int64_t dz, int64_t chunk,
                              int unit_width, double* bytes = nullptr) {
  const auto extent = [](double out, double kernel, double stride, double dilation) {
    return (out - 1) * stride + (kernel - 1) * dilation + 1;
  };
  const double in_h = extent(double(row_blocks) * kRows, p.R, p.stride[1], p.dilation[1]);
  const double in_w = extent(double(col_blocks) * kCols, p.S, p.stride[2], p.dilation[2]);
  const double ring = extent(dz, p.T, p.stride[0], p.dilation[0]);
  const double pitch = std::ceil(in_w / 4) * 4, taps_padded = std::ceil(double(p.T * p.R * p.S) / 4) * 4;
  const double smem = (taps_padded + ring * in_h * pitch) * sizeof(float);
  if (bytes) *bytes = smem;
  if (smem > double(kCtaSmemBudgetBytes)) return std::nullopt;

  Plan plan{};
  // Within the budget every extent (and so every int here) is small.
  plan.tile_h = int(row_blocks) * kRows, plan.tile_w = int(col_blocks) * kCols, plan.dz = int(dz), plan.chunk = chunk;
  plan.in_h = int(in_h), plan.in_w = int(in_w), plan.pitch = int(pitch), plan.ring = int(ring);
  plan.taps_padded = int(taps_padded);
  // The window moves dz * stride_d slices per step; taken modulo the ring so a huge stride cannot overflow.
  const bool disjoint = p.stride[0] >= plan.ring || dz * p.stride[0] >= plan.ring;
  plan.new_slices = disjoint ? plan.ring : int(dz * p.stride[0]);
  plan.window_shift = int(dz % plan.ring * (p.stride[0] % plan.ring) % plan.ring);
  plan.unit_width = unit_width;
  // A row's first unit starts up to unit_width - 1 columns left of the tile.
  const int row_units = int(ceil_div(plan.in_w + unit_width - 1, unit_width));
  plan.row_units = FastDivmod(uint32_t(row_units));
  plan.slice_units = FastDivmod(uint32_t(row_units * plan.in_h));
  plan.tiles_h = ceil_div(p.Ho, plan.tile_h), plan.tiles_w = ceil_div(p.Wo, plan.tile_w);
  plan.chunks = ceil_div(p.Do, chunk);
  return plan;
}

// The kernel path a problem takes: compile-time H/W filter, strides and dilations (fixed), or the runtime one.
struct KernelPath {
  bool fixed;
  int sh, sw, dh, dw;  // when fixed
};

KernelPath kernel_path(const ConvProblem& p) {
  const auto hw = [&](int64_t stride, int64_t dilation) {
    return p.stride[1] == stride && p.stride[2] == stride && p.dilation[1] == dilation && p.dilation[2] == dilation;
  };
  const bool square3 = p.R == 3 && p.S == 3;
  if (hw(1, 1) && p.R == p.S && (p.R == 1 || p.R == 3 || p.R == 5 || p.R == 7)) return {true, 1, 1, 1, 1};
  if (square3 && hw(2, 1)) return {true, 2, 2, 1, 1};
  if (square3 && hw(1, 2)) return {true, 1, 1, 2, 2};
  return {false, 0, 0, 0, 0};
}

// What the cost model needs of the device and the kernel.
struct DeviceShape {
  int sms;
  int smem_per_sm;      // bytes
  int regs_per_thread;  // of the kernel to launch

  bool operator==(const DeviceShape&) const = default;
};

// The cost model's view of a plan (seconds): the largest of three bounds ranks plans.
struct Estimate {
  double issue;    // warp instructions on the busiest SM (FMAs, window and weight loads, epilogue, staging) at 4
                   // per clock, derated when fewer than 8 warps per SM take part
  double path;     // waves of CTAs one after another, each CTA a chain of steps: a step takes a memory round trip
                   // (the prefetched loads) or its longest warp's instructions, whichever is longer, plus a round
                   // trip per batch of the slices' loads that did not fit the prefetch
  double staging;  // bytes staged into shared memory (halo re-reads included) at an L2 rate
  double total_instr;  // tie-break: the plan that does less work

  double bound() const { return std::max({issue, path, staging}); }
};

// Constants are H100/H200-like and the bounds rough: the model ranks plans, it does not predict to 10%.
Estimate estimate(const ConvProblem& p, const Plan& plan, const DeviceShape& dev) {
  constexpr double kClockHz = 1.9e9, kRoundTripSeconds = 1e-6, kL2BytesPerSecond = 8e12, kWarpIpc = 0.7;
  const KernelPath path = kernel_path(p);
  const double taps_hw = double(p.R) * p.S, outputs = kRows * kCols;
  double per_depth_tap;  // warp instructions of one item (32 threads) at one depth tap
  if (path.fixed) {
    const double in_rows = (kRows - 1) * path.sh + (p.R - 1) * path.dh + 1;
    const double window = (kCols - 1) * path.sw + (p.S - 1) * path.dw + 1;
    per_depth_tap = outputs * taps_hw + in_rows * std::ceil(window / 4) + taps_hw + 6;
  } else {
    per_depth_tap = taps_hw * (2 * outputs + 4);
  }
  const double item_instr = p.T * per_depth_tap + kRows * 12 + 24;
  const double unit_instr = 3.0 * plan.unit_width + 24;
  const double slice_units = plan.slice_units.divisor;
  const double steps = double(ceil_div(plan.chunk, plan.dz));
  const double rounds = std::ceil(plan.items() / double(kThreads)), warps = std::ceil(plan.items() / 32.0);
  const double step_units = std::ceil(plan.new_slices * slice_units / kThreads);  // per thread
  const double ring_units = std::ceil(plan.ring * slice_units / kThreads);
  const double prefetch = path.fixed && path.sw == 2 ? kPrefetchStride2 : kPrefetch;
  const double step_batches = std::ceil(std::max(0.0, step_units - prefetch) / kCopyBatch);
  const double step_staging = std::ceil(plan.new_slices * slice_units / 32) * unit_instr;
  const double cta_compute = steps * warps * item_instr;
  const double cta_staging = steps * step_staging + std::ceil(plan.ring * slice_units / 32) * unit_instr + 200;

  const double ctas = double(p.N) * p.K * plan.tiles_h * plan.tiles_w * plan.chunks;
  const int regs = std::max(32, (dev.regs_per_thread + 7) / 8 * 8);
  const double occupancy = std::max(1, std::min({2048 / kThreads, 32, dev.smem_per_sm / int(plan.smem_bytes() + 1024),
                                                 65536 / (regs * kThreads)}));
  const double ctas_per_sm = std::ceil(ctas / dev.sms);
  const double resident_warps = std::min(ctas_per_sm, occupancy) * (kThreads / 32);
  const double computing_warps = std::min(ctas_per_sm, occupancy) * std::min(4.0, warps);
  const double warp_step_instr = rounds * item_instr + step_staging / (kThreads / 32);  // every warp stages

  Estimate e;
  e.issue = ctas_per_sm / (4 * kClockHz) *
            (cta_compute / std::min(1.0, computing_warps / 8) + cta_staging / std::min(1.0, resident_warps / 8));
  e.path = std::ceil(ctas / (dev.sms * occupancy)) * kRoundTripSeconds *
           (std::ceil(ring_units / kCopyBatch) +
            steps * (std::max(1.0, warp_step_instr / (kWarpIpc * kClockHz * kRoundTripSeconds)) + step_batches));
  e.staging = ctas * (plan.ring + (steps - 1) * plan.new_slices) * plan.in_h * plan.in_w * dtype_size(p.dtype) /
              kL2BytesPerSecond;
  e.total_instr = ctas * (cta_compute + cta_staging);
  return e;
}

// Balanced split sizes of n, largest first: ceil(n / parts) for parts 1, 2, 3, 4, 6, 9, 13, ... (about x1.5
// apart), and always 1.
template <typename Fn>
void for_each_split(int64_t n, Fn&& fn) {
  int64_t last = 0;
  for (int64_t parts = 1; last != 1; parts = parts < 4 ? parts + 1 : parts * 3 / 2) {
    const int64_t size = ceil_div(n, std::min(parts, n));
    if (size != last) fn(size);
    last = size;
  }
}

// The cheapest plan under the cost model: tiles from balanced splits of the output plane, dz in {1, 2, 4, 8},
// chunks from balanced splits of the depth steps. nullopt when even the smallest plan exceeds the budget.
std::optional<Plan> choose_plan(const ConvProblem& p, int unit_width, const DeviceShape& dev) {
  std::optional<Plan> best;
  Estimate best_estimate{};
  for_each_split(ceil_div(p.Ho, kRows), [&](int64_t row_blocks) {
    for_each_split(ceil_div(p.Wo, kCols), [&](int64_t col_blocks) {
      for (int64_t dz = 1; dz <= std::min<int64_t>(8, p.Do); dz *= 2) {
        if (dz * row_blocks * col_blocks > 4 * kThreads) break;  // at most 4 items per thread and step
        if (!make_plan(p, row_blocks, col_blocks, dz, dz, unit_width)) break;
        for_each_split(ceil_div(p.Do, dz), [&](int64_t steps) {
          const std::optional<Plan> plan = make_plan(p, row_blocks, col_blocks, dz, steps * dz, unit_width);
          const Estimate e = estimate(p, *plan, dev);
          // Bounds within 2% count as equal: then the plan with less work wins.
          const bool better = !best || e.bound() < 0.98 * best_estimate.bound() ||
                              (e.bound() <= 1.02 * best_estimate.bound() && e.total_instr < best_estimate.total_instr);
          if (better) best = plan, best_estimate = e;
        });
      }
    });
  });
  return best;
}

// choose_plan, remembered for the last problem this host thread launched: choosing costs tens of microseconds
// (about a thousand candidates), and benchmarks and training loops launch one problem again and again.
Plan cached_plan(const ConvProblem& p, int unit_width, const DeviceShape& dev) {
  struct Entry {
    Geometry g;  // all int64: compared bytewise
    DType dtype;
    int unit_width;
    DeviceShape dev;
    Plan plan;
  };
  thread_local std::optional<Entry> last;
  const Geometry g = make_geometry(p);
  if (!last || std::memcmp(&last->g, &g, sizeof(Geometry)) != 0 || last->dtype != p.dtype ||
      last->unit_width != unit_width || last->dev != dev) {
    const std::optional<Plan> plan = choose_plan(p, unit_width, dev);
    KF_CHECK(plan.has_value(), "dw_v3b_smem_occupancy: launched on a problem accepts() refuses");
    last = Entry{g, p.dtype, unit_width, dev, *plan};
  }
  return last->plan;
}

template <typename T, int KR, int KS, int SH, int SW, int DH, int DW>
void launch_kernel(const ConvProblem& p, const ConvArgs& a, cudaStream_t stream) {
  const auto kernel = occupancy_tile_kernel<T, KR, KS, SH, SW, DH, DW>;
  static const int regs = [&] {
    cudaFuncAttributes attributes{};
    KF_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    return attributes.numRegs;
  }();
  int device = 0, smem_per_sm = 0;
  KF_CUDA_CHECK(cudaGetDevice(&device));
  KF_CUDA_CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  const DeviceShape dev{current_sm_count(), smem_per_sm, regs};
  int unit_width = HaloStager<T>::kMaxUnit;  // the widest aligned load that every input row allows
  while (unit_width > 1 && (p.W % unit_width != 0 || !is_aligned(a.x, unit_width * sizeof(T)))) unit_width /= 2;
  const Plan plan = cached_plan(p, unit_width, dev);
  const int64_t ctas = p.N * p.K * plan.chunks * plan.tiles_h * plan.tiles_w;
  const int64_t grid_x = std::min<int64_t>(ctas, 0x7fffffff), grid_y = ceil_div(ctas, grid_x);
  KF_CHECK(grid_y <= 65535, "dw_v3b_smem_occupancy: CTA count overflows the grid");
  const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y));
  kernel<<<grid, kThreads, plan.smem_bytes(), stream>>>(make_geometry(p), plan, static_cast<const T*>(a.x),
                                                         static_cast<const T*>(a.w),
                                                         p.has_bias ? static_cast<const T*>(a.bias) : nullptr,
                                                         static_cast<T*>(a.y));
  KF_LAUNCH_CHECK();
}

template <typename T>
void launch_typed(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  const KernelPath path = kernel_path(p);
  if (!path.fixed) return launch_kernel<T, 0, 0, 0, 0, 0, 0>(p, a, s);
  if (path.sh == 2) return launch_kernel<T, 3, 3, 2, 2, 1, 1>(p, a, s);
  if (path.dh == 2) return launch_kernel<T, 3, 3, 1, 1, 2, 2>(p, a, s);
  switch (p.R) {
    case 1: return launch_kernel<T, 1, 1, 1, 1, 1, 1>(p, a, s);
    case 3: return launch_kernel<T, 3, 3, 1, 1, 1, 1>(p, a, s);
    case 5: return launch_kernel<T, 5, 5, 1, 1, 1, 1>(p, a, s);
    default: return launch_kernel<T, 7, 7, 1, 1, 1, 1>(p, a, s);
  }
}

}  // namespace

std::string v3b_smem_occupancy_accepts(const ConvProblem& p) {
  if (std::string why = common_refusal(p); !why.empty()) return why;
  if (p.x_layout() != Layout::ncdhw) {
    return std::string("expected a dense ncdhw input, but got ") + layout_name(p.x_layout());
  }
  if (p.y_layout() != Layout::ncdhw) {
    return std::string("expected a dense ncdhw output, but got ") + layout_name(p.y_layout());
  }
  if (std::max({p.Do, p.Ho, p.Wo}) >= kMaxOutputSize) {
    return "expected output sizes below 2^30 (int coordinates in the output plane), but got " +
           std::to_string(p.Do) + "x" + std::to_string(p.Ho) + "x" + std::to_string(p.Wo);
  }
  double bytes = 0;
  if (!make_plan(p, 1, 1, 1, 1, 1, &bytes)) {
    return "expected the smallest plan (one " + std::to_string(kRows) + "x" + std::to_string(kCols) +
           " output block, one depth per step: its input halo ring and filter) to fit the " +
           std::to_string(kCtaSmemBudgetBytes / 1024) + " KB shared-memory budget, but it needs " +
           std::to_string(std::llround(bytes / 1024)) + " KB for this filter size, stride and dilation";
  }
  return "";
}

void v3b_smem_occupancy_launch(const ConvProblem& p, const ConvArgs& a, cudaStream_t s) {
  if (p.y_numel() == 0) return;
  dispatch_element_type(p.dtype, "dw_v3b_smem_occupancy",
                        [&](auto tag) { launch_typed<typename decltype(tag)::type>(p, a, s); });
}

}  // namespace kforge::depthwise
