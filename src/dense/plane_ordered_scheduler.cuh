// CUTLASS's persistent tile scheduler with the plane-blocked walk of plane_order.hpp (v47, v48).
//
// The GEMM kernels (cooperative and ping-pong) ask their scheduler for the work tile at a linear position; this one
// takes CUTLASS's answer (raster order, swizzle, clusters as they were) and moves its M index along the walk. N and
// L stay: the CTAs of a cluster keep their N tile, so B's multicast is unchanged. Selected by the tag
// `PlaneOrderedScheduler` in place of `cutlass::gemm::PersistentScheduler`.
#pragma once

#include <cutlass/gemm/kernel/tile_scheduler.hpp>

#include "dense/plane_order.hpp"

namespace kforge::dense::sm90 {

struct PlaneOrderedScheduler {};  // the tag a PersistentConv names

class PlaneOrderedTileScheduler : public cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90 {
  using Base = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90;

 public:
  struct Arguments : Base::Arguments {
    PlaneOrder order{};
  };
  struct Params : Base::Params {
    PlaneOrder order{};
  };

  template <class ProblemShapeMNKL, class TileShape, class ClusterShape, class... Rest>
  static Params to_underlying_arguments(ProblemShapeMNKL mnkl, TileShape tile, ClusterShape cluster,
                                        cutlass::KernelHardwareInfo const& hw, Arguments const& args, Rest... rest) {
    Params params;
    static_cast<Base::Params&>(params) = Base::to_underlying_arguments(mnkl, tile, cluster, hw, args, rest...);
    params.order = args.order;
    return params;
  }
  CUTLASS_HOST_DEVICE static bool can_implement(Arguments const& args) {
    return Base::can_implement(args) && args.order.block >= 1 && args.order.plane_tiles >= 1;
  }

  CUTLASS_HOST_DEVICE PlaneOrderedTileScheduler() {}
  CUTLASS_DEVICE explicit PlaneOrderedTileScheduler(Params const& params) : Base(params), order_(params.order) {}

  // Every path by which the kernels read a work tile, redirected through the walk.
  CUTLASS_DEVICE WorkTileInfo get_current_work() const { return along_walk(Base::get_current_work()); }
  template <class ClusterShape>
  CUTLASS_DEVICE WorkTileInfo initial_work_tile_info(ClusterShape) {
    return get_current_work();
  }
  // CUTLASS's version first asks whether the tile continues (split K); this scheduler never splits one.
  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo) {
    advance_to_next_work();
    return cute::make_tuple(get_current_work(), true);
  }
  template <class Pipeline, class PipelineState>
  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo work, Pipeline&, PipelineState) {
    return fetch_next_work(work);
  }

 private:
  CUTLASS_DEVICE WorkTileInfo along_walk(WorkTileInfo work) const {
    if (work.is_valid()) work.M_idx = static_cast<int32_t>(plane_ordered_tile(work.M_idx, order_));
    return work;
  }

  PlaneOrder order_{};
};

}  // namespace kforge::dense::sm90

namespace cutlass::gemm::kernel::detail {

template <class ArchTag, class TileShape, class ClusterShape, uint32_t SchedulerPipelineStageCount>
struct TileSchedulerSelector<kforge::dense::sm90::PlaneOrderedScheduler, ArchTag, TileShape, ClusterShape,
                             SchedulerPipelineStageCount> {
  using Scheduler = kforge::dense::sm90::PlaneOrderedTileScheduler;
};

}  // namespace cutlass::gemm::kernel::detail
