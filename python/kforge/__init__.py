"""kforge from PyTorch: `kforge.conv(x, w, bias, stride, padding, dilation, groups)` with F.conv1d/2d/3d semantics.

Calls the C ABI of libkforge_c.so (found through $KFORGE_LIB, else build/lib of this checkout) on the tensors' device
pointers, sizes and strides, on PyTorch's current CUDA stream. The output keeps the input's memory format
(contiguous or channels_last). Errors are raised as RuntimeError with kforge's PyTorch-style message.
"""
import ctypes
import os
import pathlib

import torch

__all__ = ["conv", "library_path"]

_DTYPES = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2, torch.float8_e4m3fn: 3}


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * 5), ("strides", ctypes.c_int64 * 5)]


class _Params(ctypes.Structure):
    _fields_ = [("stride", ctypes.c_int64 * 3), ("padding_lo", ctypes.c_int64 * 3), ("padding_hi", ctypes.c_int64 * 3),
                ("dilation", ctypes.c_int64 * 3), ("groups", ctypes.c_int64), ("activation", ctypes.c_int64)]

_ACTIVATIONS = {None: 0, "silu": 1}


def library_path():
    env = os.environ.get("KFORGE_LIB")
    if env:
        return env
    return str(pathlib.Path(__file__).resolve().parents[2] / "build" / "lib" / "libkforge_c.so")


_lib = None


def _library():
    global _lib
    if _lib is None:
        path = library_path()
        if not os.path.exists(path):
            raise RuntimeError(f"kforge: {path} not found: build it with scripts/build or set KFORGE_LIB")
        _lib = ctypes.CDLL(path)
        _lib.kforge_conv.restype = ctypes.c_int
        _lib.kforge_conv.argtypes = [ctypes.POINTER(_Tensor)] * 4 + [ctypes.POINTER(_Params), ctypes.c_void_p,
                                                                     ctypes.c_char_p]
        _lib.kforge_last_error.restype = ctypes.c_char_p
    return _lib


def _view(t):
    if t.dtype not in _DTYPES:
        raise RuntimeError(f"kforge: expected dtype float32, bfloat16, float16 or float8_e4m3fn, but got {t.dtype}")
    if t.dim() > 5:
        raise RuntimeError(f"kforge: expected at most 5 dimensions, but got {t.dim()}")
    v = _Tensor()
    v.data, v.dtype, v.rank = t.data_ptr(), _DTYPES[t.dtype], t.dim()
    for i in range(t.dim()):
        v.sizes[i], v.strides[i] = t.size(i), t.stride(i)
    return v


def _per_dim(value, n, name):
    values = [value] * n if isinstance(value, int) else list(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(values)}")
    return values


def conv(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, activation=None, variant=None):
    """F.conv{1,2,3}d(x, w, bias, stride, padding, dilation, groups) computed by kforge (padding: int, list,
    'valid' or 'same'); activation="silu" returns F.silu of it, fused into the conv's epilogue. variant: a kforge
    variant's name (`kforge list`) to run instead of the dispatch's choice; an error when it does not accept."""
    if activation not in _ACTIVATIONS:
        raise RuntimeError(f"unknown activation {activation!r}: expected None or 'silu'")
    n = x.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D, 4D or 5D (batched) input to conv1d/conv2d/conv3d, but got input of size: "
                           f"{list(x.shape)}")
    stride = _per_dim(stride, n, "stride")
    dilation = _per_dim(dilation, n, "dilation")
    if padding == "valid":
        lo = hi = [0] * n
    elif padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for d, k in zip(dilation, w.shape[2:])]
        lo = [t // 2 for t in total]
        hi = [t - l for t, l in zip(total, lo)]
    else:
        lo = hi = _per_dim(padding, n, "padding")
    out_spatial = [(i + l + h - d * (k - 1) - 1) // s + 1
                   for i, l, h, d, k, s in zip(x.shape[2:], lo, hi, dilation, w.shape[2:], stride)]
    memory_format = torch.contiguous_format
    if x.dim() >= 4 and not x.is_contiguous() and x.is_contiguous(
            memory_format=torch.channels_last if n == 2 else torch.channels_last_3d):
        memory_format = torch.channels_last if n == 2 else torch.channels_last_3d
    if any(o <= 0 for o in out_spatial):
        # Let kforge produce PyTorch's message for a kernel larger than the padded input.
        out_spatial = [max(o, 1) for o in out_spatial]
    y = torch.empty([x.shape[0], w.shape[0], *out_spatial], dtype=x.dtype, device=x.device,
                    memory_format=memory_format)
    p = _Params()
    for i in range(n):
        p.stride[i], p.padding_lo[i], p.padding_hi[i], p.dilation[i] = stride[i], lo[i], hi[i], dilation[i]
    p.groups = groups
    p.activation = _ACTIVATIONS[activation]
    xv, wv, yv = _view(x), _view(w), _view(y)
    bv = _view(bias) if bias is not None else None
    stream = torch.cuda.current_stream(x.device).cuda_stream if x.is_cuda else None
    lib = _library()
    status = lib.kforge_conv(ctypes.byref(xv), ctypes.byref(wv), ctypes.byref(bv) if bv is not None else None,
                             ctypes.byref(yv), ctypes.byref(p), stream, variant.encode() if variant else None)
    if status != 0:
        raise RuntimeError(lib.kforge_last_error().decode())
    return y
