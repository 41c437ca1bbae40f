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
    def check(self, x_shape, w_shape, dtype=None, channels_last=False, bias=True, activation=None, variant=None,
              seed=None, **kw):
        import kforge
        dtype = dtype or torch.bfloat16
        torch.manual_seed(len(x_shape) * 1000 + sum(x_shape) if seed is None else seed)
        x = torch.randn(x_shape, device="cuda").to(dtype)
        w = torch.randn(w_shape, device="cuda").to(dtype)
        b = torch.randn(w_shape[0], device="cuda").to(dtype) if bias else None
        if channels_last:
            fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
            x, w = x.contiguous(memory_format=fmt), w.contiguous(memory_format=fmt)
        conv = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}[w.dim()]
        ref = conv(x.double(), w.double(), b.double() if b is not None else None, **kw)
        if activation == "silu":
            ref = F.silu(ref)
        y = kforge.conv(x, w, b, activation=activation, variant=variant, **kw)
        torch.cuda.synchronize()
        self.assertEqual(list(y.shape), list(ref.shape))
        self.assertFalse(torch.isnan(y).any().item())
        if not ref.any():  # every tap in the padding and no bias: calc_diff and rel-L2 are 0 / 0, zeros must be exact
            self.assertFalse(y.any().item(), f"{x_shape} {w_shape} {kw}: nonzero output where the conv is all zeros")
        else:
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
        # Every tap of the one output row in the padding (found by the random sweep, seed 1516128208): y == 0.
        self.check([1, 64, 9, 1, 9], [128, 1, 4, 4, 1], dtype=torch.float16, bias=False, stride=[1, 3, 2],
                   padding=[1, 3, 0], dilation=[2, 2, 1], groups=64)

    def test_dense_grouped_and_2d_1d(self):
        self.check([1, 8, 5, 9, 9], [6, 4, 3, 3, 3], padding=1, groups=2, dtype=torch.float32)
        self.check([2, 3, 17, 19], [5, 3, 3, 3], stride=(1, 2), padding="valid")
        self.check([2, 6, 33], [6, 1, 5], padding="same", groups=6)

    def test_unbatched_input(self):
        """F.conv1d/2d/3d take an input without its batch dimension; so does kforge.conv (run as a batch of one)."""
        self.check([8, 5, 9, 9], [16, 8, 3, 3, 3], padding=1)
        self.check([64, 4, 6, 10], [64, 64, 3, 3, 3], padding=1, bias=False)  # the tensor-core path
        self.check([6, 11, 13], [4, 3, 3, 3], stride=2, groups=2)
        self.check([4, 20], [4, 1, 5], padding="same", groups=4)

    def test_random_convs_like_pytorchs_own(self):
        """Convs drawn at random the way PyTorch's own conv tests vary them: 1D/2D/3D, batch 1-2, groups 1, 2 or
        depthwise, kernel 1-4 per dimension, stride 1-3, dilation 1-2, padding 0..k, 'same' or 'valid', with or
        without bias, contiguous or channels-last, bf16 / f16 / f32. A fresh draw each run; the seed is printed
        and KFORGE_SWEEP_SEED replays it."""
        import random
        seed = int(os.environ.get("KFORGE_SWEEP_SEED", random.SystemRandom().randrange(2**31)))
        print(f"test_random_convs_like_pytorchs_own: KFORGE_SWEEP_SEED={seed}", file=sys.stderr)
        rng = random.Random(seed)
        for case in range(60):
            dims = rng.choice([1, 2, 3, 3])
            groups = rng.choice([1, 1, 2, "depthwise"])
            c = rng.choice([1, 3, 4, 8, 16, 24, 64]) if groups != 2 else 2 * rng.randint(1, 12)
            groups = c if groups == "depthwise" else groups
            k_out = groups * rng.randint(1, max(1, 48 // groups)) if groups != c else c * rng.choice([1, 2])
            kernel = [rng.randint(1, 4) for _ in range(dims)]
            stride = [rng.randint(1, 3) for _ in range(dims)]
            dilation = [rng.randint(1, 2) for _ in range(dims)]
            padding = rng.choice(["ints", "ints", "same", "valid"])
            if padding == "same":
                stride = [1] * dims
            elif padding == "ints":
                padding = [rng.randint(0, k) for k in kernel]
            pads = [0] * dims if isinstance(padding, str) else padding
            # Each input extent at least the dilated kernel (less the padding), plus a few.
            spatial = [max(1, d * (k - 1) + 1 - 2 * p) + rng.randint(0, 9) for k, d, p in zip(kernel, dilation, pads)]
            x_shape = [rng.randint(1, 2), c, *spatial]
            w_shape = [k_out, c // groups, *kernel]
            dtype = rng.choice([torch.bfloat16, torch.bfloat16, torch.float16, torch.float32])
            with self.subTest(case=case, x=x_shape, w=w_shape, stride=stride, padding=padding, dilation=dilation,
                              groups=groups, dtype=dtype):
                self.check(x_shape, w_shape, dtype=dtype, channels_last=dims > 1 and rng.random() < 0.5,
                           bias=rng.random() < 0.5, seed=seed + case, stride=stride, padding=padding,
                           dilation=dilation, groups=groups)

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
        with self.assertRaisesRegex(RuntimeError, r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d"):
            kforge.conv(x[0, 0], w)
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
