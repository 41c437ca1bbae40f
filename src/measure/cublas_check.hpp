// Checked cuBLAS/cuBLASLt calls: a failure throws kforge::Error with cuBLAS's status name, the call and file:line.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "kforge/types.hpp"

#define KF_CUBLAS_CHECK(expr)                                                                                   \
  do {                                                                                                          \
    const cublasStatus_t kf_status_ = (expr);                                                                   \
    if (kf_status_ != CUBLAS_STATUS_SUCCESS)                                                                    \
      throw ::kforge::Error(std::string("cuBLAS error ") + cublasGetStatusString(kf_status_) + " in " + #expr + \
                            " at " + __FILE__ + ":" + std::to_string(__LINE__));                              \
  } while (0)
