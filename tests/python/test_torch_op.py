"""kforge.conv from PyTorch against F.conv1d/2d/3d in float64 (a GPU fp64 reference through PyTorch itself)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

try:
    import torch
    import torch.nn.functional as F
    HAVE_CUDA = torch.cuda.is_available()
    WHY = "" if HAVE_CUDA else "no CUDA device visible to PyTorch"
except ImportError:
    HAVE_CUDA, WHY = False, "PyTorch is not installed"


def calc_diff(x, y):
    x, y = x.double(), y.double()
    return (1 - 2 * (x * y).sum() / (x * x + y * y).sum()).item()


@unittest.skipUnless(HAVE_CUDA, WHY)
class TorchOp(unittest.TestCase):
    def check(self, x_shape, w_shape, dtype=None, channels_last=False, bias=True, activation=None, variant=None, **kw):
        import kforge
        dtype = dtype or torch.bfloat16
        torch.manual_seed(len(x_shape) * 1000 + sum(x_shape))
        x = torch.randn(x_shape, device="cuda").to(dtype)
        w = torch.randn(w_shape, device="cuda").to(dtype)
        b = torch.randn(w_shape[0], device="cuda").to(dtype) if bias else None
        if channels_last:
            fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
            x, w = x.contiguous(memory_format=fmt), w.contiguous(memory_format=fmt)
        conv = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}[x.dim()]
        ref = conv(x.double(), w.double(), b.double() if b is not None else None, **kw)
        if activation == "silu":
            ref = F.silu(ref)
        y = kforge.conv(x, w, b, activation=activation, variant=variant, **kw)
        torch.cuda.synchronize()
        self.assertEqual(list(y.shape), list(ref.shape))
        self.assertFalse(torch.isnan(y).any().item())
        self.assertLess(calc_diff(y, ref), 1e-5, f"{x_shape} {w_shape} {kw}")
        self.assertLess(((y.double() - ref).norm() / ref.norm()).item(), 1e-2)
        y2 = kforge.conv(x, w, b, activation=activation, variant=variant, **kw)
        self.assertTrue(torch.equal(y, y2), "two runs differ bitwise")

    def test_depthwise_evokernel_slice(self):
        self.check([1, 64, 9, 45, 80], [64, 1, 3, 5, 5], padding=(0, 2, 2), groups=64)

    def test_depthwise_channels_last_and_multiplier(self):
        self.check([2, 8, 6, 10, 12], [16, 1, 3, 3, 3], channels_last=True, padding=1, groups=8)

    def test_depthwise_stride_dilation(self):
        self.check([1, 16, 12, 20, 20], [16, 1, 3, 3, 3], stride=2, padding=2, dilation=2, groups=16)

    def test_dense_grouped_and_2d_1d(self):
        self.check([1, 8, 5, 9, 9], [6, 4, 3, 3, 3], padding=1, groups=2, dtype=torch.float32)
        self.check([2, 3, 17, 19], [5, 3, 3, 3], stride=(1, 2), padding="valid")
        self.check([2, 6, 33], [6, 1, 5], padding="same", groups=6)

    def test_dense_fused_silu(self):
        self.check([1, 64, 6, 10, 12], [128, 64, 3, 3, 3], channels_last=True, padding=1, activation="silu")
        self.check([1, 64, 6, 10, 12], [128, 64, 3, 3, 3], padding=1, activation="silu")
        self.check([1, 32, 4, 8, 10], [64, 32, 1, 1, 1], activation="silu", stride=[1, 2, 1], padding=[0, 1, 0])

    def test_named_variant(self):
        self.check([1, 32, 4, 6, 300], [32, 32, 3, 3, 3], channels_last=True, padding=1,
                   variant="dense_v30_halo_256x96x32_c2x1_d8")
        import kforge
        x = torch.randn(1, 8, 8, 8, 8, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(8, 8, 3, 3, 3, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(RuntimeError, "unknown kforge variant 'no_such'"):
            kforge.conv(x, w, variant="no_such")
        with self.assertRaisesRegex(RuntimeError, "does not accept .*stride 1 along W only"):
            kforge.conv(x, w, stride=2, variant="dense_v30_halo_256x96x32_c2x1_d8")

    def test_wrapper_makes_few_calls_around_the_c_call(self):
        """kforge.conv's host cost is the Python and torch calls around its one C call: 92 of them per conv once
        (ten size()/stride() calls per tensor, torch.cuda.current_stream, the arguments worked out anew), 43-52 us of
        the H200 machine's CPU; 33 now (14-26 us; src/dense/NOTES.md, "Host cost per call"). Counted rather than
        timed: that CPU's speed moves by up to 70% from run to run, the count does not."""
        import kforge
        fmt = torch.channels_last_3d
        x = torch.randn(1, 64, 4, 8, 8, device="cuda", dtype=torch.bfloat16).contiguous(memory_format=fmt)
        w = torch.randn(64, 64, 3, 3, 3, device="cuda", dtype=torch.bfloat16).contiguous(memory_format=fmt)
        kforge.conv(x, w, None, padding=1)  # the first call works out the plan and loads the library
        events = []
        sys.setprofile(lambda frame, event, arg: events.append(event))
        try:
            kforge.conv(x, w, None, padding=1)
        finally:
            sys.setprofile(None)
        calls = sum(e in ("call", "c_call") for e in events)
        print(f"kforge.conv: {calls} Python and torch calls", file=sys.stderr)
        self.assertGreater(calls, 10)  # the count sees the wrapper's calls at all
        self.assertLessEqual(calls, 40, f"kforge.conv made {calls} Python and torch calls")

    def test_errors_read_like_pytorch(self):
        import kforge
        x = torch.randn(1, 4, 8, 8, 8, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(4, 3, 3, 3, 3, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(RuntimeError, "to have 3 channels, but got 4 channels instead"):
            kforge.conv(x, w)
        with self.assertRaisesRegex(RuntimeError, "unknown activation 'gelu'"):
            kforge.conv(x, torch.randn(4, 4, 3, 3, 3, device="cuda", dtype=torch.bfloat16), activation="gelu")
        with self.assertRaisesRegex(RuntimeError, "the silu activation is not fused by this variant"):
            kforge.conv(x, torch.randn(4, 1, 3, 3, 3, device="cuda", dtype=torch.bfloat16), groups=4, activation="silu")
        with self.assertRaisesRegex(RuntimeError, "Invalid padding string: 'full'"):
            kforge.conv(x, torch.randn(4, 4, 3, 3, 3, device="cuda", dtype=torch.bfloat16), padding="full")
        with self.assertRaisesRegex(RuntimeError, "CUDA device tensor"):
            kforge.conv(x.cpu(), torch.randn(4, 4, 3, 3, 3, dtype=torch.bfloat16))


if __name__ == "__main__":
    unittest.main(verbosity=2)
