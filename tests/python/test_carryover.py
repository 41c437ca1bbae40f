"""bench/carryover.py on a synthetic round-robin bench JSON (CPU only)."""
import contextlib, io, json, os, sys, tempfile, unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import carryover  # noqa: E402


def row(variant, samples, after, case="c1"):
    return {"case": case, "layout": "ndhwc", "variant": variant, "samples_ms": samples, "samples_after": after}


class Carryover(unittest.TestCase):
    def test_groups_each_sample_under_its_predecessor(self):
        rows = [row("a", [1.0, 2.0, 3.0], ["b", "c", "b"]), row("b", [5.0, 6.0], ["", "a"]),
                {"case": "c1", "layout": "ndhwc", "variant": "alone", "samples_ms": [9.0]}]
        t = carryover.carryover(rows)
        self.assertEqual(t[("c1", "ndhwc", "a")], {"b": [1.0, 3.0], "c": [2.0]})
        self.assertEqual(t[("c1", "ndhwc", "b")], {"(none)": [5.0], "a": [6.0]})
        self.assertNotIn(("c1", "ndhwc", "alone"), t)  # timed alone: no neighbours

    def test_splits_the_samples_of_a_turn_by_their_place(self):
        r = row("a", [3.0, 2.0, 1.0, 2.5], ["b", "a", "c", "a"])
        self.assertEqual(carryover.by_position([r]), {})  # one sample per turn: nothing to split
        r["samples_per_visit"] = 2
        self.assertEqual(carryover.by_position([r]), {("c1", "ndhwc", "a"): {0: [3.0, 1.0], 1: [2.0, 2.5]}})

    def test_refuses_samples_without_a_predecessor_each(self):
        with self.assertRaises(ValueError):
            carryover.carryover([row("a", [1.0, 2.0], ["b"])])

    def test_prints_the_spread_of_the_medians_and_fails_without_round_robin_rows(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench.json")
            with open(path, "w") as f:
                json.dump({"rows": [row("a", [1.0, 1.1, 1.2, 1.3], ["b", "b", "c", "c"]),
                                    row("z", [1.0], ["a"], case="other")]}, f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(carryover.main([path, "--case", "c1"]), 0)
            self.assertIn("c1 ndhwc a: after-neighbour medians 1.0500-1.2500 ms (19.0%)", out.getvalue())
            self.assertNotIn("other", out.getvalue())
            self.assertNotIn("place in the turn", out.getvalue())  # one sample per turn: nothing to split
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(carryover.main([path, "--case", "missing"]), 1)


if __name__ == "__main__":
    unittest.main()
