// Our persistent sm90 conv kernel, composed from CUTLASS 4.2 parts.
//
// CUTLASS refuses persistent schedules for conv ("Persistent schedules not support for conv yet",
// conv/dispatch_policy.hpp) only through its builder; the im2col mainloop itself is schedule-agnostic (load/mma
// take a tile coordinate and a thread index). We give that mainloop a 2x1 warpgroup TiledMma and run it in the
// persistent GEMM kernel (cooperative or ping-pong; persistent or stream-K tile scheduler), through
// `ConvMainloopAdapter`, which lets the GEMM kernel see the linearized problem (M = N*Do*Ho*Wo, N = K,
// K = (C,S,R,T)) while the TMA descriptors are still built from the conv geometry. The epilogue is the GEMM TMA
// epilogue on the row-major [M, K] view of an NDHWC output, with the bias fused; or (LayoutD = ColumnMajor) on the
// column-major [M, K] view of one image's NCDHW output, which spares that layout the staging of y; or our direct
// stores from the accumulator registers (direct_store_epilogue.cuh, NDHWC; v49-v51, measured slower).
#pragma once

// First: cute before the CUTLASS conv headers, which use it without including it.
#include "dense/sm90_conv_common.cuh"
#include "dense/direct_store_epilogue.cuh"
#include "dense/plane_ordered_scheduler.cuh"
#include "dense/sm90_conv_runner.cuh"
#include "dense/tile_walk.hpp"

#include <cutlass/conv/collective/collective_builder.hpp>
#include <cutlass/conv/detail.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <type_traits>


namespace kforge::dense::sm90 {

// How the persistent tile scheduler walks the output tiles (autotuner candidates; ignored by AsShippedConv).
struct ScheduleOptions {
  int max_swizzle = 1;  // 1, 2, 4, 8: tiles grouped for L2 reuse of A/B
  TileWalk walk = TileWalk::shorter_extent_first;
  int splits = 1;       // stream-K scheduler only: K split into this many parts (1: data-parallel)
  int plane_block = 1;  // PlaneOrderedScheduler only: output planes walked side by side (plane_order.hpp)
};

// The im2col conv mainloop, seen by the GEMM kernel: its problem shape is the linearized MNKL; the conv geometry
// the TMA descriptors need travels in the mainloop arguments.
template <class ConvMainloop>
struct ConvMainloopAdapter : ConvMainloop {
  struct Arguments {
    Element const* ptr_A = nullptr;  // activations, NDHWC
    Element const* ptr_B = nullptr;  // filters, KTRSC
    ConvShape conv{};
  };
  using Params = typename ConvMainloop::Params;
  // The GEMM kernel only checks that its operands' strides are rank 3 ([M|N, K, L]); the im2col mainloop keeps
  // using its own conv strides (the base class's), which these names do not change.
  using StrideA = cute::Stride<int64_t, cute::_1, int64_t>;
  using StrideB = cute::Stride<int64_t, cute::_1, int64_t>;

  static constexpr int NumProducerThreadEvents = 1;  // one elected thread issues the TMA loads of a stage

  // The GEMM kernel reads the tile counts (and an L, batch, mode conv does not have) off the first two tiled
  // operands it gets from load_init, and hands the whole tuple back to load. So load_init returns coordinate
  // tensors of the GEMM-shaped extents (no memory behind them) followed by the conv mainloop's own operands,
  // which load passes on unchanged.
  template <class ProblemShapeMNKL>
  CUTLASS_DEVICE auto load_init(ProblemShapeMNKL const& mnkl, Params const& params) {
    auto [gA_mk, gB_nk] = ConvMainloop::load_init(mnkl, params);
    return cute::make_tuple(cute::make_identity_tensor(cute::append(cute::shape(gA_mk), cute::_1{})),
                            cute::make_identity_tensor(cute::append(cute::shape(gB_nk), cute::_1{})), gA_mk, gB_nk);
  }
  template <class ShapeA, class ShapeB, class TensorA, class TensorB, class KTileIterator, class BlockCoord>
  CUTLASS_DEVICE void load(Params const& params, typename ConvMainloop::MainloopPipeline pipeline,
                           typename ConvMainloop::PipelineState state,
                           cute::tuple<ShapeA, ShapeB, TensorA, TensorB> const& inputs, BlockCoord const& blk_coord,
                           KTileIterator k_tile_iter, int k_tile_count, int thread_idx, uint32_t block_rank_in_cluster,
                           typename ConvMainloop::TensorStorage& smem) {
    ConvMainloop::load(params, pipeline, state, cute::make_tuple(get<2>(inputs), get<3>(inputs)), blk_coord,
                       k_tile_iter, k_tile_count, thread_idx, block_rank_in_cluster, smem);
  }

  template <class ProblemShapeMNKL>
  static Params to_underlying_arguments(ProblemShapeMNKL const&, Arguments const& args, void* workspace) {
    return ConvMainloop::to_underlying_arguments(args.conv, {args.ptr_A, args.ptr_B}, workspace);
  }
  template <class ProblemShapeMNKL>
  static bool can_implement(ProblemShapeMNKL const&, Arguments const& args) {
    return ConvMainloop::can_implement(args.conv, {args.ptr_A, args.ptr_B});
  }
};

// (M, K_out, (C, S, R, T), L = 1): what the GEMM kernel and its tile scheduler iterate. L is a run-time int
// because the epilogue's TMA-store type is built for a dynamic batch mode.
using LinearProblemShape = cute::Shape<int, int, cute::Shape<int, int, int, int>, int>;

inline LinearProblemShape linear_problem_shape(ConvShape const& shape) {
  const auto [m, n, k, l] = cutlass::conv::detail::get_linearized_problem_shape_MNKL(shape);
  return {int(m), int(n), k, int(l)};
}

template <class KernelSchedule>
struct EpilogueScheduleFor;
template <>
struct EpilogueScheduleFor<cutlass::gemm::KernelTmaWarpSpecializedCooperative> {
  using type = cutlass::epilogue::TmaWarpSpecializedCooperative;
  using MmaWarpGroups = cute::Layout<Shape<_2, _1, _1>>;  // two consumer warpgroups split the tile's M
};
template <>
struct EpilogueScheduleFor<cutlass::gemm::KernelTmaWarpSpecializedPingpong> {
  using type = cutlass::epilogue::TmaWarpSpecialized;
  using MmaWarpGroups = cute::Layout<Shape<_1, _1, _1>>;  // each consumer warpgroup owns a whole tile, alternating
};

// How y leaves the consumer warpgroups: CUTLASS's TMA epilogue (through shared memory, in sub-tiles) or our
// direct stores from registers (direct_store_epilogue.cuh; NDHWC only, act(acc [+ bias]) as `bias_when_given`).
enum class EpilogueStore { tma, direct };

// The im2col mainloop of a tile: CUTLASS's conv collective (TMA im2col producer, wgmma consumers) with `Stages`
// pipeline stages in shared memory, seen through ConvMainloopAdapter. `MmasInFlight`: K blocks of wgmma a
// consumer leaves queued behind the one it issues (CUTLASS's default 1): the work the tensor cores hold while the
// consumer waits for the next stage (v55). Shared by the kernels built on CUTLASS's GEMM kernel (PersistentConv)
// and by ours (overlapped_epilogue_conv.cuh).
template <class TileShape, class ClusterShape, class KernelSchedule, int Stages, int MmasInFlight = 1>
struct ImplicitGemmMainloop {
  static_assert(Stages >= 3, "tile too large: fewer than 3 pipeline stages fit in shared memory");

  using TiledMma = decltype(make_tiled_mma(
      GMMA::ss_op_selector<Element, Element, Accumulator, TileShape, GMMA::Major::K, GMMA::Major::K>(),
      typename EpilogueScheduleFor<KernelSchedule>::MmaWarpGroups{}));
  using SmemLayoutAtomA = decltype(cutlass::gemm::collective::detail::ss_smem_selector<
      GMMA::Major::K, Element, decltype(get<0>(TileShape{})), decltype(get<2>(TileShape{}))>());
  using SmemLayoutAtomB = decltype(cutlass::gemm::collective::detail::ss_smem_selector<
      GMMA::Major::K, Element, decltype(get<1>(TileShape{})), decltype(get<2>(TileShape{}))>());
  using SmemLayoutA = decltype(tile_to_shape(SmemLayoutAtomA{},
      make_shape(shape<0>(TileShape{}), shape<2>(TileShape{}), Int<Stages>{}), Step<_2, _1, _3>{}));
  using SmemLayoutB = decltype(tile_to_shape(SmemLayoutAtomB{},
      make_shape(shape<1>(TileShape{}), shape<2>(TileShape{}), Int<Stages>{}), Step<_2, _1, _3>{}));
  // A (im2col) is multicast along the cluster's N extent, B along its M extent.
  using CopyA = decltype(cutlass::conv::collective::detail::sm90_cluster_shape_to_im2col_tma_atom(shape<1>(ClusterShape{})));
  using CopyB = decltype(cutlass::gemm::collective::detail::sm90_cluster_shape_to_tma_atom(shape<0>(ClusterShape{})));

  using Policy = cutlass::conv::MainloopSm90TmaGmmaWarpSpecializedImplicitGemm<
      cutlass::conv::Operator::kFprop, Stages, 3, ClusterShape, KernelSchedule, MmasInFlight>;
  using Collective = cutlass::conv::collective::CollectiveConv<
      Policy, TileShape, Element, Element, TiledMma,
      cutlass::conv::collective::detail::Sm90ImplicitGemmTileTraits<CopyA, SmemLayoutA>,
      cutlass::conv::collective::detail::Sm90ImplicitGemmTileTraits<CopyB, SmemLayoutB>>;
  using Adapter = ConvMainloopAdapter<Collective>;
};

// Pipeline stages of `TileShape` that fit beside `reserved_bytes` of other shared memory (the epilogue's buffers;
// 1 KiB more covers the persistent kernels' scheduler and barrier storage). A stage holds A's and B's K block and
// its full/empty barrier pair.
template <class TileShape>
constexpr int stages_beside(int reserved_bytes) {
  constexpr int stage = int(sizeof(Element)) * (size<0>(TileShape{}) + size<1>(TileShape{})) * size<2>(TileShape{}) +
                        int(sizeof(typename cutlass::PipelineTmaAsync<1>::SharedStorage));
  return (cutlass::gemm::collective::detail::sm90_smem_capacity_bytes - reserved_bytes - 1024) / stage;
}

// `EpilogueTile`: the TMA epilogue's sub-tile (CUTLASS's choice: 128x32 for the cooperative pair, 64x32 for a
// ping-pong warpgroup; 64 wide writes an NDHWC y in 128-byte rows, NOTES.md v34-v37). `Math`: what it computes per
// output (sm90_conv_common.cuh). `MmasInFlight`: as ImplicitGemmMainloop's.
template <class TileShape, class ClusterShape, class KernelSchedule, class TileSchedulerTag,
          class LayoutD = cutlass::layout::RowMajor,
          class EpilogueTile = cutlass::epilogue::collective::EpilogueTileAuto,
          EpilogueMath Math = EpilogueMath::linear_combination, EpilogueStore Store = EpilogueStore::tma,
          int MmasInFlight = 1>
struct PersistentConv {
  // Where y goes: NDHWC (row-major [M, K]) or, for one image, NCDHW (column-major [M, K]).
  static constexpr OutputOrder kOutput =
      std::is_same_v<LayoutD, cutlass::layout::ColumnMajor> ? OutputOrder::ncdhw_one_image : OutputOrder::ndhwc;
  static_assert(Store == EpilogueStore::tma || kOutput == OutputOrder::ndhwc, "direct stores write NDHWC rows only");
  using EpiSchedule = EpilogueScheduleFor<KernelSchedule>;
  using TmaEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      EpilogueTile, Accumulator, Accumulator,
      void, LayoutD, kAlignment, Element, LayoutD, kAlignment,
      typename EpiSchedule::type, EpilogueFusion<Math, TileShape>>::CollectiveOp;
  using Epilogue = std::conditional_t<Store == EpilogueStore::direct, DirectStoreCollective, TmaEpilogue>;

  // The epilogue's buffers come first; the rest of shared memory becomes pipeline stages.
  static constexpr int kStages = stages_beside<TileShape>(int(sizeof(typename Epilogue::SharedStorage)));
  using Mainloop =
      typename ImplicitGemmMainloop<TileShape, ClusterShape, KernelSchedule, kStages, MmasInFlight>::Adapter;

  using Kernel = cutlass::gemm::kernel::GemmUniversal<LinearProblemShape, Mainloop, Epilogue, TileSchedulerTag>;
  using Device = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

template <class Conv>
typename Conv::Device::Arguments persistent_arguments(const ConvProblem& in, const void* x, const void* w,
                                                      const void* bias, void* y,
                                                      const cutlass::KernelHardwareInfo& hw, const ScheduleOptions& opt) {
  using Kernel = typename Conv::Kernel;
  const ConvShape shape = conv_shape(in);
  const LinearProblemShape mnkl = linear_problem_shape(shape);
  typename Kernel::EpilogueArguments epi{};
  const int64_t m = cute::get<0>(mnkl);
  if constexpr (Conv::kOutput == OutputOrder::ncdhw_one_image) {
    epi.dD = cute::make_stride(cute::_1{}, m, m * in.K);  // NCDHW output of N = 1: column-major [M, K]
  } else {
    epi.dD = cute::make_stride(in.K, cute::_1{}, m * in.K);  // NDHWC output = row-major [M, K]
  }
  epi.dC = epi.dD;
  epi.ptr_D = static_cast<Element*>(y);
  epi.thread.bias_ptr = static_cast<const Element*>(bias);
  epi.thread.activation.enabled = in.activation == Activation::silu;
  typename Kernel::TileScheduler::Arguments sched{};
  sched.max_swizzle_size = opt.max_swizzle;
  using Raster = decltype(sched.raster_order);
  // The shorter extent stays CUTLASS's own heuristic (it counts whole clusters), as the variants were measured.
  sched.raster_order = opt.walk == TileWalk::shorter_extent_first ? Raster::Heuristic
                       : filter_outweighs_x(in)                   ? Raster::AlongM
                                                                  : Raster::AlongN;
  if constexpr (requires { sched.splits; }) sched.splits = opt.splits;
  if constexpr (requires { sched.order; }) {
    sched.order = plane_order(in, cute::size<0>(typename Kernel::TileShape{}), opt.plane_block);
  }
  return {cutlass::gemm::GemmUniversalMode::kGemm, mnkl,
          {static_cast<const Element*>(x), static_cast<const Element*>(w), shape}, epi, hw, sched};
}

template <class Conv>
Variant persistent_variant(std::string name, std::string idea, std::string source, ScheduleOptions opt = {}) {
  Variant v = make_variant<Conv>(std::move(name), std::move(idea), std::move(source), Conv::kOutput,
                                 [opt](const ConvProblem& in, const void* x, const void* w, const void* b, void* y,
                                       const cutlass::KernelHardwareInfo& hw) {
                                   return persistent_arguments<Conv>(in, x, w, b, y, hw, opt);
                                 });
  v.fuses_activation = true;  // every EpilogueFusion applies ConvProblem::activation
  return v;
}

}  // namespace kforge::dense::sm90
