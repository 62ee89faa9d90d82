#!/usr/bin/env python3
"""Independent reference values for tests/cpu/test_functions.cpp.

The 20 classic functions of include/degpu/functions/classic.hpp are written here again, from the
textbook / CEC 2014-2017 definitions (not from the C++ code), as functions of the shifted vector
z = x - o, and evaluated in 40-digit arithmetic (mpmath) on the exact binary values of the double
inputs. So the literals in the test are the true values at those doubles, correct to far more than
the 17 digits printed; the C++ double evaluation can differ from them only by its own rounding.

How the literals in test_functions.cpp were produced (rerun to check them):

    python3 tests/cpu/reference_functions.py > /tmp/cases.inc
    # the block between "// BEGIN GENERATED" and "// END GENERATED" in test_functions.cpp is /tmp/cases.inc

The points: P = [0.5, -1.25, 2.0, 0.1, -3.7, 4.4, -0.35, 1.9, -2.6, 0.75] and, per function, a second
point scale * P (rounded to 10 decimals) of the size of that function's usual box (Schwefel's reaches
t = 10 z + 420.97 beyond both +500 and -500, so both penalty branches are checked), each cut to the first
D = 1, 2, 5, 10 coordinates (Rosenbrock: D >= 2). Inputs are printed with repr() (shortest round trip),
values with 17 significant digits, so C++ parses exactly the doubles used here.

Cross-check of these formulas against the official CEC code (needs ../shared/data, never copied):

    python3 tests/cpu/reference_functions.py --check-cec ../shared/data

recomputes, with these same Python functions, the official reference values in
cec2017/reference_values.txt for F1, F3, F4, F5, F9, F10 (basic functions: bent cigar, Zakharov,
Rosenbrock, Rastrigin, Levy, modified Schwefel) and the hybrids F11, F12, F15..F19 (which also contain
elliptic, Ackley, HGBat, Katsuura, Griewank-Rosenbrock, Weierstrass, expanded Schaffer F6, discus), and
cec2014/reference_values.txt F18 and F22 (bent cigar, HGBat, Rastrigin; Katsuura, HappyCat,
Griewank-Rosenbrock, Schwefel, Ackley), by applying the official shift, rotation, shuffle and internal
scaling, and prints the largest relative difference. Not covered by the CEC data: sphere, Griewank
(textbook, checked by hand in the C++ test), Schwefel 1.2, Salomon, sum squares (Lastra 2015).

Requires only mpmath (python3-mpmath; also installed with sympy). Runs in about a second.
"""
import math
import sys

import mpmath as mp

mp.mp.dps = 40
PI = mp.pi


def _m(v):
    return [mp.mpf(float(t)) if not isinstance(t, mp.mpf) else t for t in v]


# ---- the functions, f(z) with optimum f = 0 at z = 0 -------------------------------------------------

def sphere(z):
    return mp.fsum(t * t for t in z)


def elliptic(z):
    D = len(z)
    if D == 1:  # CEC divides by D - 1; the weight of a single coordinate is taken as 1
        return z[0] ** 2
    return mp.fsum(mp.power(10, mp.mpf(6) * i / (D - 1)) * z[i] ** 2 for i in range(D))


def rosenbrock(z):
    # CEC 2005 F6 / CEC 2017 F4 form: y = z + 1, optimum at z = 0
    y = [t + 1 for t in z]
    return mp.fsum(100 * (y[i] ** 2 - y[i + 1]) ** 2 + (y[i] - 1) ** 2 for i in range(len(y) - 1))


def rastrigin(z):
    return mp.fsum(t * t - 10 * mp.cos(2 * PI * t) + 10 for t in z)


def griewank(z):
    s = mp.fsum(t * t for t in z) / 4000
    p = mp.mpf(1)
    for i, t in enumerate(z, start=1):
        p *= mp.cos(t / mp.sqrt(i))
    return s - p + 1


def ackley(z):
    D = len(z)
    a = mp.fsum(t * t for t in z) / D
    b = mp.fsum(mp.cos(2 * PI * t) for t in z) / D
    return -20 * mp.exp(-mp.mpf('0.2') * mp.sqrt(a)) - mp.exp(b) + 20 + mp.e


SCHWEFEL_C = mp.mpf(4.209687462275036e+002)   # the constants as the CEC code writes them (doubles)
SCHWEFEL_K = mp.mpf(4.189828872724338e+002)


def schwefel_t(t):
    """CEC 2014/2017 modified Schwefel on t = 10 z + 420.9687462275036 (schwefel_func after scaling)."""
    D = len(t)
    f = mp.mpf(0)
    for u in t:
        if u > 500:
            m = 500 - mp.fmod(u, 500)
            f += -m * mp.sin(mp.sqrt(m)) + ((u - 500) / 100) ** 2 / D
        elif u < -500:
            m = 500 - mp.fmod(abs(u), 500)
            f += m * mp.sin(mp.sqrt(m)) + ((u + 500) / 100) ** 2 / D
        else:
            f += -u * mp.sin(mp.sqrt(abs(u)))
    return SCHWEFEL_K * D + f


def schwefel(z):
    return schwefel_t([10 * t + SCHWEFEL_C for t in z])


def schwefel12(z):
    f, c = mp.mpf(0), mp.mpf(0)
    for t in z:
        c += t
        f += c * c
    return f


def zakharov(z):
    s1 = mp.fsum(t * t for t in z)
    s2 = mp.fsum(mp.mpf('0.5') * i * t for i, t in enumerate(z, start=1))
    return s1 + s2 ** 2 + s2 ** 4


def salomon(z):
    r = mp.sqrt(mp.fsum(t * t for t in z))
    return 1 - mp.cos(2 * PI * r) + r / 10


def discus(z):
    return mp.mpf(10) ** 6 * z[0] ** 2 + mp.fsum(t * t for t in z[1:])


def sumsquares(z):
    return mp.fsum(i * t * t for i, t in enumerate(z, start=1))


def bentcigar(z):
    return z[0] ** 2 + mp.mpf(10) ** 6 * mp.fsum(t * t for t in z[1:])


def weierstrass(z):
    a, b, kmax = mp.mpf('0.5'), 3, 20
    D = len(z)
    f = mp.fsum(a ** k * mp.cos(2 * PI * b ** k * (t + mp.mpf('0.5'))) for t in z for k in range(kmax + 1))
    g = mp.fsum(a ** k * mp.cos(2 * PI * b ** k * mp.mpf('0.5')) for k in range(kmax + 1))
    return f - D * g


def hgbat(z):
    D = len(z)
    y = [t - 1 for t in z]
    r2, s = mp.fsum(t * t for t in y), mp.fsum(y)
    return mp.sqrt(abs(r2 ** 2 - s ** 2)) + (r2 / 2 + s) / D + mp.mpf('0.5')


def happycat(z):
    D = len(z)
    y = [t - 1 for t in z]
    r2, s = mp.fsum(t * t for t in y), mp.fsum(y)
    return mp.root(abs(r2 - D), 4) + (r2 / 2 + s) / D + mp.mpf('0.5')


def katsuura(z):
    D = len(z)
    p = mp.mpf(1)
    e = 10 / mp.power(D, mp.mpf('1.2'))
    for i, t in enumerate(z, start=1):
        s = mp.fsum(abs(2 ** j * t - mp.nint(2 ** j * t)) / 2 ** j for j in range(1, 33))
        p *= (1 + i * s) ** e
    c = mp.mpf(10) / D ** 2
    return c * p - c


def _schaffer_g(a, b):
    r2 = a * a + b * b
    return mp.mpf('0.5') + (mp.sin(mp.sqrt(r2)) ** 2 - mp.mpf('0.5')) / (1 + r2 / 1000) ** 2


def escaffer6(z):
    D = len(z)
    return mp.fsum(_schaffer_g(z[i], z[(i + 1) % D]) for i in range(D))


def griewrosen(z):
    D = len(z)
    y = [t + 1 for t in z]
    f = mp.mpf(0)
    for i in range(D):
        a, b = y[i], y[(i + 1) % D]
        t = 100 * (a * a - b) ** 2 + (a - 1) ** 2
        f += t * t / 4000 - mp.cos(t) + 1
    return f


def levy(z):
    w = [1 + t / 4 for t in z]
    f = mp.sin(PI * w[0]) ** 2
    f += mp.fsum((wi - 1) ** 2 * (1 + 10 * mp.sin(PI * wi + 1) ** 2) for wi in w[:-1])
    f += (w[-1] - 1) ** 2 * (1 + mp.sin(2 * PI * w[-1]) ** 2)
    return f


# name, function, scale of the second point (into the usual box)
FUNCTIONS = [
    ("sphere", sphere, 20), ("elliptic", elliptic, 20), ("rosenbrock", rosenbrock, 0.5),
    ("rastrigin", rastrigin, 1.1), ("griewank", griewank, 100), ("ackley", ackley, 5),
    ("schwefel", schwefel, 25), ("schwefel12", schwefel12, 20), ("zakharov", zakharov, 1.5),
    ("salomon", salomon, 20), ("discus", discus, 20), ("sumsquares", sumsquares, 2),
    ("bentcigar", bentcigar, 20), ("weierstrass", weierstrass, 0.1), ("hgbat", hgbat, 1.1),
    ("happycat", happycat, 1.1), ("katsuura", katsuura, 1.1), ("escaffer6", escaffer6, 20),
    ("griewrosen", griewrosen, 0.3), ("levy", levy, 2),
]

P = [0.5, -1.25, 2.0, 0.1, -3.7, 4.4, -0.35, 1.9, -2.6, 0.75]


def cases():
    out = []
    for name, fn, scale in FUNCTIONS:
        points = [P] + ([[round(scale * p, 10) for p in P]] if scale != 1 else [])
        for x in points:
            for D in (1, 2, 5, 10):
                if name == "rosenbrock" and D < 2:
                    continue
                xs = x[:D]
                out.append((name, D, xs, fn(_m(xs))))
    return out


def emit():
    print("// BEGIN GENERATED by tests/cpu/reference_functions.py (do not edit by hand)")
    print("const RefCase kRefCases[] = {")
    for name, D, xs, f in cases():
        xl = ", ".join(repr(float(v)) for v in xs)
        print(f'    {{"{name}", {D}, {{{xl}}}, {mp.nstr(f, 17, min_fixed=-1, max_fixed=-2)}}},'
              .replace("'", ""))
    print("};")
    print("// END GENERATED")


# ---- cross-check against the official CEC reference values -------------------------------------------

def _read_numbers(path):
    with open(path) as fh:
        return [float(t) for t in fh.read().split()]


def _points(D, F):
    yield "sin1", [10 * math.sin(j + 1) for j in range(D)]
    for K in (1, 2, 3):
        state = (1000003 * K + 7919 * D + F) % 2 ** 64
        x = []
        for _ in range(D):
            state = (state * 6364136223846793005 + 1442695040888963407) % 2 ** 64
            x.append(-100 + 200 * ((state >> 11) / 2.0 ** 53))
        yield f"lcg{K}", x


def _shift_rotate(x, o, M, rate):
    """sr_func with s_flag = r_flag = 1, in double, in the official loop order (no FMA)."""
    D = len(x)
    y = [(x[i] - o[i]) * rate for i in range(D)]
    z = []
    for i in range(D):
        acc = 0.0
        for j in range(D):
            acc = acc + y[j] * M[i * D + j]
        z.append(acc)
    return z


# component: (our function, the CEC internal scaling sh_rate, our internal scaling of z)
COMP = {
    "zakharov": (zakharov, 1.0, 1), "rosenbrock": (rosenbrock, 2.048 / 100.0, 1),
    "rastrigin": (rastrigin, 5.12 / 100.0, 1), "ellips": (elliptic, 1.0, 1),
    "schwefel": (schwefel, 1000.0 / 100.0, 10), "bent_cigar": (bentcigar, 1.0, 1),
    "ackley": (ackley, 1.0, 1), "hgbat": (hgbat, 5.0 / 100.0, 1), "katsuura": (katsuura, 5.0 / 100.0, 1),
    "happycat": (happycat, 5.0 / 100.0, 1), "grie_rosen": (griewrosen, 5.0 / 100.0, 1),
    "weierstrass": (weierstrass, 0.5 / 100.0, 1), "escaffer6": (escaffer6, 1.0, 1),
    "discus": (discus, 1.0, 1),
    # The official CEC 2017 levy_func computes w = 1 + (z - 1)/4 (the textbook Levy of x with its optimum at
    # x = 1) on z = M(x - o), so its minimum is at z = 1, not at the shift: F9(o) = 901.4426... at D = 10.
    # The functor (and levy() above) uses w = 1 + z/4, optimum at z = 0; so F9 is levy(z - 1).
    "levy": (lambda z: levy([t - 1 for t in z]), 1.0, 1),
}

BASIC17 = {1: "bent_cigar", 3: "zakharov", 4: "rosenbrock", 5: "rastrigin", 9: "levy", 10: "schwefel"}
HYBRID17 = {
    11: ([0.2, 0.4, 0.4], ["zakharov", "rosenbrock", "rastrigin"]),
    12: ([0.3, 0.3, 0.4], ["ellips", "schwefel", "bent_cigar"]),
    15: ([0.2, 0.2, 0.3, 0.3], ["bent_cigar", "hgbat", "rastrigin", "rosenbrock"]),
    16: ([0.2, 0.2, 0.3, 0.3], ["escaffer6", "hgbat", "rosenbrock", "schwefel"]),
    17: ([0.1, 0.2, 0.2, 0.2, 0.3], ["katsuura", "ackley", "grie_rosen", "schwefel", "rastrigin"]),
    18: ([0.2, 0.2, 0.2, 0.2, 0.2], ["ellips", "ackley", "rastrigin", "hgbat", "discus"]),
    19: ([0.2, 0.2, 0.2, 0.2, 0.2], ["bent_cigar", "rastrigin", "grie_rosen", "weierstrass", "escaffer6"]),
}
HYBRID14 = {
    18: ([0.3, 0.3, 0.4], ["bent_cigar", "hgbat", "rastrigin"]),
    22: ([0.1, 0.2, 0.2, 0.2, 0.3], ["katsuura", "happycat", "grie_rosen", "schwefel", "ackley"]),
}


def _component(name, z_scaled):
    fn, _, inner = COMP[name]
    return fn([mp.mpf(t) / inner for t in z_scaled])


def _cec_value(suite_dir, F, D, x, hybrid):
    o = _read_numbers(f"{suite_dir}/input_data/shift_data_{F}.txt")[:D]
    M = _read_numbers(f"{suite_dir}/input_data/M_{F}_D{D}.txt")[:D * D]
    if hybrid is None:
        name = BASIC17[F]
        return _component(name, _shift_rotate(x, o, M, COMP[name][1])) + 100 * F
    Gp, names = hybrid
    S = [int(t) for t in _read_numbers(f"{suite_dir}/input_data/shuffle_data_{F}_D{D}.txt")[:D]]
    z = _shift_rotate(x, o, M, 1.0)
    y = [z[s - 1] for s in S]
    sizes = [math.ceil(p * D) for p in Gp[:-1]]  # in double, as the C code (ceil(0.3 * 10) = 4)
    sizes.append(D - sum(sizes))
    f, start = mp.mpf(0), 0
    for name, n in zip(names, sizes):
        rate = COMP[name][1]
        f += _component(name, [t * rate for t in y[start:start + n]])
        start += n
    return f + 100 * F


def check_cec(data):
    worst = 0.0
    for suite, table in (("cec2017", None), ("cec2014", HYBRID14)):
        for line in open(f"{data}/{suite}/reference_values.txt"):
            _, F, D, point, ref = line.split()
            F, D, ref = int(F), int(D), float(ref)
            if suite == "cec2017":
                if F in BASIC17:
                    hybrid = None
                elif F in HYBRID17:
                    hybrid = HYBRID17[F]
                else:
                    continue
            else:
                hybrid = table[F]
            if point == "shift":
                x = _read_numbers(f"{data}/{suite}/input_data/shift_data_{F}.txt")[:D]
            else:
                x = dict(_points(D, F))[point]
            v = _cec_value(f"{data}/{suite}", F, D, x, hybrid)
            rel = abs(float(v) - ref) / abs(ref)
            worst = max(worst, rel)
            flag = "" if rel < 1e-9 else "   <-- MISMATCH"
            print(f"{suite} F{F:<2} D={D:<3} {point:5} official {ref:.17g} here {mp.nstr(v, 17)} rel {rel:.1e}{flag}")
    print(f"largest relative difference: {worst:.2e}")
    return worst < 1e-9


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check-cec":
        sys.exit(0 if check_cec(sys.argv[2]) else 1)
    emit()
