// unique_ptr over a C library's opaque handle (cuBLASLt, cuDNN descriptors), released by that library's destroy
// function on every path.
#pragma once

#include <memory>
#include <type_traits>

namespace kforge {

template <auto destroy>
struct DestroyHandle {
  template <class Ptr>
  void operator()(Ptr p) const { destroy(p); }
};

template <class Handle, auto destroy>
using OwnedHandle = std::unique_ptr<std::remove_pointer_t<Handle>, DestroyHandle<destroy>>;

}  // namespace kforge
