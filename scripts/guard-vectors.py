#!/usr/bin/env python3
"""Regenerates Tests/GuardrailsTests/Fixtures/guard-vectors.json, the reference values the
Guardrails tests hold the Swift statistics to (SPEC §11.3). CI never runs this: the JSON is
committed. A developer runs it after changing a vector:

    python3 -m venv /tmp/gv && /tmp/gv/bin/pip install gbstats==0.8.0 mpmath ssrm-test==0.1.5
    /tmp/gv/bin/python scripts/guard-vectors.py

Sources of truth:
- two_sided: gbstats 0.8.0 (PyPI) `SequentialTwoSidedTTest`, absolute difference — the
  confidence sequence guards are built on. Its variance is gbstats' own (n−1 for means).
- one_sided: gbstats 0.8.0 has no one-sided sequential test, so h₁ of SPEC §11.3 is computed
  here from the formula in 50-digit mpmath, with SPEC's variance (divided by n). The formula
  is first checked against gbstats 0.8.0's two-sided output (same ρ and shape) and against
  the one-sided vectors in GrowthBook's repository tests (growthbook/growthbook
  packages/stats/tests/frequentist/test_tests.py, TestSequentialOneSided*TTest, absolute).
- srm: the sequential SRM test (docs/decisions/srm-sequential.md): ssrm-test 0.1.5 (PyPI,
  Optimizely's reference implementation of Lindon, Semmens & Gotwalt 2022)
  `sequential_p_values`, null 1:1, Dirichlet concentration 10,000, fed the counts that arrived
  between looks; each look's ln BF checked against the closed form in 50-digit mpmath.
  gbstats 0.8.0 has no sequential SRM function (only the χ² `check_srm`).
"""
import json
import os
import sys
from importlib.metadata import version

try:
    import mpmath
    import numpy
    from ssrm_test.ssrm_test import sequential_p_values
    from gbstats.frequentist.tests import SequentialConfig, SequentialTwoSidedTTest
    from gbstats.models.statistics import ProportionStatistic, SampleMeanStatistic
except ImportError as e:
    sys.exit(f"guard-vectors: {e}; install with: pip install gbstats==0.8.0 mpmath ssrm-test==0.1.5")

if version("gbstats") != "0.8.0" or version("ssrm-test") != "0.1.5":
    sys.exit(f"guard-vectors: gbstats {version('gbstats')}, ssrm-test {version('ssrm-test')} installed; the vectors pin 0.8.0 and 0.1.5")

mpmath.mp.dps = 50
OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "GuardrailsTests", "Fixtures", "guard-vectors.json")


def arm(n, s, ss=None):
    """An arm as the fixture stores it; a rate arm (0/1 values) has Σx² = Σx."""
    return {"clients": n, "sum": s, "sum_of_squares": s if ss is None else ss}


def gb_stat(a, kind):
    if kind == "rate":
        return ProportionStatistic(sum=a["sum"], n=a["clients"])
    return SampleMeanStatistic(sum=a["sum"], sum_squares=a["sum_of_squares"], n=a["clients"])


def half_width(v, n, alpha, s, one_sided):
    """SPEC §11.3 (one-sided) / Waudby-Smith eq. 9 (two-sided), in mpmath."""
    v, n, alpha, s = (mpmath.mpf(x) for x in (v, n, alpha, s))
    a = 2 * alpha if one_sided else alpha
    rho2 = (-2 * mpmath.log(a) + mpmath.log(1 - 2 * mpmath.log(a))) / s
    growth = n * rho2 + 1
    level = mpmath.log(1 + mpmath.sqrt(growth) / (2 * alpha)) if one_sided else mpmath.log(mpmath.sqrt(growth) / alpha)
    return mpmath.sqrt(v * n) * mpmath.sqrt(2 * growth / (n * n * rho2) * level)


def spec_moments(a):
    """Mean and variance as SPEC §11.3 defines them (divided by n)."""
    n, s, ss = (mpmath.mpf(a[k]) for k in ("clients", "sum", "sum_of_squares"))
    m = s / n
    return m, ss / n - m * m


def close(x, y, rel=1e-12):
    return abs(x - y) <= rel * max(abs(x), abs(y))


# The research note's vectors (gbstats 0.8.0, absolute, reference/guardrails.md §2.6) and SPEC §11.3's,
# written there as "A vs B" with A the control (gbstats' stat_a): Δ̂ = B − A.
TWO_SIDED = [
    ("control 500/10000, treatment 450/10000, S=5000", "rate", arm(10000, 500), arm(10000, 450), 0.05, 5000),
    ("control 500/10000, treatment 450/10000, S=20000", "rate", arm(10000, 500), arm(10000, 450), 0.05, 20000),
    ("control 2500/50000, treatment 2250/50000, S=20000", "rate", arm(50000, 2500), arm(50000, 2250), 0.05, 20000),
    ("mean: control 1396.87/3000, treatment 2422.7/3461, S=5000", "mean", arm(3000, 1396.87, 52377.9767), arm(3461, 2422.7, 134698.29), 0.05, 5000),
    ("control 1396/3000, treatment 2422/3461, S=5000", "rate", arm(3000, 1396), arm(3461, 2422), 0.05, 5000),
    ("control 12/300, treatment 20/310, alpha 0.1, S=1000", "rate", arm(300, 12), arm(310, 20), 0.1, 1000),
]

two_sided = []
for name, kind, control, treatment, alpha, s in TWO_SIDED:
    test = SequentialTwoSidedTTest(gb_stat(control, kind), gb_stat(treatment, kind),
                                   SequentialConfig(difference_type="absolute", alpha=alpha, sequential_tuning_parameter=s))
    lower, upper = (float(x) for x in test.confidence_interval)
    n = control["clients"] + treatment["clients"]
    # The formula in mpmath must reproduce gbstats before it is trusted for the one-sided form.
    h = half_width(test.variance, n, alpha, s, one_sided=False)
    assert close(float(h), (upper - lower) / 2, 1e-12), (name, float(h), (upper - lower) / 2)
    two_sided.append({"name": name, "kind": kind, "control": control, "treatment": treatment, "alpha": alpha,
                      "tuning_clients": s, "delta": float(test.point_estimate), "variance": float(test.variance),
                      "lower": lower, "upper": upper})

# GrowthBook repository (HEAD) one-sided sequential vectors, absolute, alpha 0.05, S 5000:
# SampleMeanStatistic(1396.87, 52377.9767, 3000) vs (2422.7, 134698.29, 3461).
GB_DELTA = 0.23437666666666668
GB_GREATER_LOWER = -0.12656844172804982
GB_LESSER_UPPER = 0.5953217750613832
gb_c = SampleMeanStatistic(sum=1396.87, sum_squares=52377.9767, n=3000)
gb_t = SampleMeanStatistic(sum=2422.7, sum_squares=134698.29, n=3461)
gb_var = gb_t.variance / gb_t.n + gb_c.variance / gb_c.n
gb_h = half_width(gb_var, 6461, 0.05, 5000, one_sided=True)
assert close(float(gb_h), GB_DELTA - GB_GREATER_LOWER, 1e-12) and close(float(gb_h), GB_LESSER_UPPER - GB_DELTA, 1e-12), float(gb_h)
growthbook_one_sided = [{"name": "GrowthBook TestSequentialOneSided*TTest absolute", "variance": gb_var, "clients": 6461,
                         "alpha": 0.05, "tuning_clients": 5000, "delta": GB_DELTA,
                         "greater_lower": GB_GREATER_LOWER, "lesser_upper": GB_LESSER_UPPER}]

ONE_SIDED = [
    ("SPEC §11.3: control 500/10000, treatment 450/10000, S=5000", "rate", arm(10000, 500), arm(10000, 450), 0.05, 5000),
    ("control 500/10000, treatment 450/10000, S=20000", "rate", arm(10000, 500), arm(10000, 450), 0.05, 20000),
    ("SPEC §11.3: control 2500/50000, treatment 2250/50000, S=20000", "rate", arm(50000, 2500), arm(50000, 2250), 0.05, 20000),
    ("control 2250/50000, treatment 2500/50000, S=20000", "rate", arm(50000, 2250), arm(50000, 2500), 0.05, 20000),
    ("control 2500/50000, treatment 2250/50000, alpha 0.01", "rate", arm(50000, 2500), arm(50000, 2250), 0.01, 20000),
    ("control 2500/50000, treatment 2250/50000, alpha 0.25, S=100000", "rate", arm(50000, 2500), arm(50000, 2250), 0.25, 100000),
    ("control 70/1000, treatment 130/1200, S=1000", "rate", arm(1000, 70), arm(1200, 130), 0.05, 1000),
    ("control 0/2, treatment 1/3, S=20000", "rate", arm(2, 0), arm(3, 1), 0.05, 20000),
    ("mean: control 1396.87/3000, treatment 2422.7/3461, S=5000", "mean", arm(3000, 1396.87, 52377.9767), arm(3461, 2422.7, 134698.29), 0.05, 5000),
    ("mean: control 5000/1000, treatment 5160/1000, S=2000", "mean", arm(1000, 5000.0, 26000.0), arm(1000, 5160.0, 27900.0), 0.05, 2000),
]

one_sided = []
for name, kind, control, treatment, alpha, s in ONE_SIDED:
    mt, vt = spec_moments(treatment)
    mc, vc = spec_moments(control)
    v = vt / treatment["clients"] + vc / control["clients"]
    h = half_width(v, control["clients"] + treatment["clients"], alpha, s, one_sided=True)
    d = mt - mc
    one_sided.append({"name": name, "kind": kind, "control": control, "treatment": treatment, "alpha": alpha,
                      "tuning_clients": s, "delta": float(d), "variance": float(v), "bound": float(h),
                      # What the bound says for a higher-is-better metric (flip Δ̂ for lower-is-better).
                      "worse_higher_is_better": bool(d + h < 0), "better_higher_is_better": bool(d - h > 0),
                      "worse_lower_is_better": bool(-d + h < 0), "better_lower_is_better": bool(-d - h > 0)})

# Each vector is one guard's looks: cumulative (treatment, control) clients in the SRM test.
SRM = [
    ("balanced", [(5000, 5000)]),
    ("2 % off at 10,000", [(5100, 4900)]),
    ("4 % off at 10,000", [(5200, 4800)]),
    ("10,000 vs 9,500", [(10000, 9500)]),
    ("101,000 vs 99,000", [(101000, 99000)]),
    ("a tenth of treatment lost at 11,000", [(5211, 5789)]),
    ("1 vs 0", [(1, 0)]),
    ("10 vs 0", [(10, 0)]),
    ("0 vs 1,000", [(0, 1000)]),
    ("0.5 % off at 2,000,000: significant, under the 1-point floor", [(1010000, 990000)]),
    ("2:1 at 3,000,000", [(2000000, 1000000)]),
    ("the false alarm the χ² test raised in the fleet simulation (p 0.00095)", [(2000, 1900), (8086, 7671)]),
    ("a dip that recovers: the running minimum keeps it", [(600, 400), (1300, 1000), (5000, 5000), (20000, 20000)]),
    ("flagged, then under the floor: p stays, the flag goes", [(5300, 4700), (60000, 59000)]),
    ("growing slowly, one look per 100 clients", [(52 * k, 48 * k) for k in range(1, 21)]),
]
srm = []
for name, looks in SRM:
    increments = numpy.array([(t - (looks[i - 1][0] if i else 0), c - (looks[i - 1][1] if i else 0)) for i, (t, c) in enumerate(looks)])
    ps = sequential_p_values(increments, [0.5, 0.5], dirichlet_concentration=10000)
    rows = []
    for (t, c), p in zip(looks, ps):
        a = mpmath.mpf(5000)
        log_bf = (mpmath.loggamma(a + t) + mpmath.loggamma(a + c) - mpmath.loggamma(2 * a + t + c)
                  - 2 * mpmath.loggamma(a) + mpmath.loggamma(2 * a) + (t + c) * mpmath.log(2))
        inverse = float(mpmath.exp(-log_bf))
        prev = rows[-1]["p"] if rows else 1.0
        assert close(float(p), min(prev, inverse), 1e-7) or float(p) == min(prev, inverse) == 0, (name, t, c, float(p), inverse)
        rows.append({"treatment": t, "control": c, "log_bayes_factor": float(log_bf), "p": float(p),
                     "mismatch": bool(float(p) < 0.001 and abs(t / (t + c) - 0.5) >= 0.01)})
    srm.append({"name": name, "looks": rows})

doc = {
    "generator": f"scripts/guard-vectors.py with gbstats {version('gbstats')}, ssrm-test {version('ssrm-test')}, scipy {version('scipy')}, mpmath {version('mpmath')}",
    "two_sided": two_sided,
    "growthbook_one_sided": growthbook_one_sided,
    "one_sided": one_sided,
    "srm": srm,
}
with open(OUT, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
print(f"guard-vectors: wrote {os.path.normpath(OUT)}: {len(two_sided)} two-sided (gbstats), "
      f"{len(growthbook_one_sided)} GrowthBook one-sided, {len(one_sided)} one-sided (mpmath), {len(srm)} SRM sequences (ssrm-test)")
