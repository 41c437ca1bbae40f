"""kforge from PyTorch: `kforge.conv(x, w, bias, stride, padding, dilation, groups)` with F.conv1d/2d/3d semantics
(batched or unbatched input).

Calls the C ABI of libkforge_c.so (found through $KFORGE_LIB, else build/lib of this checkout) on the tensors' device
pointers, sizes and strides, on PyTorch's current CUDA stream. The output keeps the input's memory format
(contiguous or channels_last). Errors are raised as RuntimeError with kforge's PyTorch-style message.
"""
import ctypes
import functools
import os
import pathlib

import torch

__all__ = ["conv", "library_path"]

_DTYPES = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2, torch.float8_e4m3fn: 3}


_Int64x3, _Int64x5 = ctypes.c_int64 * 3, ctypes.c_int64 * 5


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("sizes", _Int64x5), ("strides", _Int64x5)]


class _Params(ctypes.Structure):
    _fields_ = [("stride", _Int64x3), ("padding_lo", _Int64x3), ("padding_hi", _Int64x3), ("dilation", _Int64x3),
                ("groups", ctypes.c_int64), ("activation", ctypes.c_int64)]

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
    dtype, rank = _DTYPES.get(t.dtype), t.dim()
    if dtype is None:
        raise RuntimeError(f"kforge: expected dtype float32, bfloat16, float16 or float8_e4m3fn, but got {t.dtype}")
    if rank > 5:
        raise RuntimeError(f"kforge: expected at most 5 dimensions, but got {rank}")
    v = _Tensor(t.data_ptr(), dtype, rank)
    v.sizes[:rank], v.strides[:rank] = t.shape, t.stride()  # two torch calls, not one per dimension
    return v


def _per_dim(value, n, name):
    values = [value] * n if isinstance(value, int) else list(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(values)}")
    return values


@functools.lru_cache(maxsize=1024)
def _plan(x_shape, w_shape, stride, padding, dilation, groups, activation):
    """What the arguments other than the tensors' data and strides fix: the output's shape, the channels-last memory
    format of this rank, and the C ABI's params (shared between calls: the C ABI takes them const). Cached: worked
    out anew it costs 7-10 us of the H200 machine's CPU (src/dense/NOTES.md, "Host cost per call")."""
    if activation not in _ACTIVATIONS:
        raise RuntimeError(f"unknown activation {activation!r}: expected None or 'silu'")
    # An unbatched input (F.conv3d takes [C, D, H, W] as well as [N, C, D, H, W]): one dimension fewer than the
    # weight. The caller runs it as a batch of one, whose own plan is the one that counts.
    rank = len(w_shape)
    if rank in (3, 4, 5) and len(x_shape) not in (rank - 1, rank):
        raise RuntimeError(f"Expected {rank - 1}D (unbatched) or {rank}D (batched) input to conv{rank - 2}d, but got "
                           f"input of size: {list(x_shape)}")
    if len(x_shape) == rank - 1:
        return None, None, None, True
    n = len(x_shape) - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D, 4D or 5D (batched) input to conv1d/conv2d/conv3d, but got input of size: "
                           f"{list(x_shape)}")
    stride = _per_dim(stride, n, "stride")
    dilation = _per_dim(dilation, n, "dilation")
    if padding == "valid":
        lo = hi = [0] * n
    elif padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for d, k in zip(dilation, w_shape[2:])]
        lo = [t // 2 for t in total]
        hi = [t - l for t, l in zip(total, lo)]
    elif isinstance(padding, str):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        lo = hi = _per_dim(padding, n, "padding")
    out_spatial = [(i + l + h - d * (k - 1) - 1) // s + 1
                   for i, l, h, d, k, s in zip(x_shape[2:], lo, hi, dilation, w_shape[2:], stride)]
    # A kernel larger than the padded input: a 1-element output, so that kforge produces PyTorch's message.
    out_spatial = [max(o, 1) for o in out_spatial]
    channels_last = {2: torch.channels_last, 3: torch.channels_last_3d}.get(n)
    params = _Params(_Int64x3(*stride), _Int64x3(*lo), _Int64x3(*hi), _Int64x3(*dilation), groups,
                     _ACTIVATIONS[activation])
    return (x_shape[0], w_shape[0], *out_spatial), channels_last, params, False


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value


def conv(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, activation=None, variant=None):
    """F.conv{1,2,3}d(x, w, bias, stride, padding, dilation, groups) computed by kforge (padding: int, list,
    'valid' or 'same'); activation="silu" returns F.silu of it, fused into the conv's epilogue. variant: a kforge
    variant's name (`kforge list`) to run instead of the dispatch's choice; an error when it does not accept."""
    y_shape, channels_last, params, unbatched = _plan(x.shape, w.shape, _hashable(stride), _hashable(padding),
                                                      _hashable(dilation), groups, activation)
    if unbatched:
        return conv(x.unsqueeze(0), w, bias, stride, padding, dilation, groups, activation, variant).squeeze(0)
    memory_format = torch.contiguous_format
    if channels_last is not None and not x.is_contiguous() and x.is_contiguous(memory_format=channels_last):
        memory_format = channels_last
    y = torch.empty(y_shape, dtype=x.dtype, device=x.device, memory_format=memory_format)
    xv, wv, yv = _view(x), _view(w), _view(y)
    bv = _view(bias) if bias is not None else None
    # The raw pointer of x's device's current stream: torch.cuda.current_stream() builds a torch.cuda.Stream object
    # around it on every call.
    stream = torch._C._cuda_getCurrentRawStream(x.get_device()) if x.is_cuda else None
    lib = _library()
    status = lib.kforge_conv(ctypes.byref(xv), ctypes.byref(wv), ctypes.byref(bv) if bv is not None else None,
                             ctypes.byref(yv), ctypes.byref(params), stream, variant.encode() if variant else None)
    if status != 0:
        raise RuntimeError(lib.kforge_last_error().decode())
    return y
