#!/usr/bin/env python3
"""Makespan bounds of ETC instances: what any schedule can reach (docs/PERFORMANCE.md, "Scheduling").

usage: bench/schedule_bounds.py ETC_DIR [--time-limit S] [--machines M] FILE...
For each Braun-format file (one number per line, task-major, M machines, default 16) it solves, with scipy's
HiGHS, the assignment problem min T s.t. each task on one machine and each machine's total ETC <= T (the
model of docs/SCHEDULING.md at lambda 1 with no prior loads):
- its LP relaxation (tasks may be split): a lower bound on every schedule's makespan;
- the integer problem, stopped after S seconds (default 60): the best schedule found and HiGHS's proven
  lower bound (the optimum lies between them);
- a lower bound on flowtime / m: each task at its fastest machine's time, the tasks shortest first round
  robin over m identical machines (optimal for that relaxation). With it, every schedule's fitness at any
  lambda is at least min(the makespan bound, this one).
Prints a markdown table. Needs numpy and scipy >= 1.9 (not the library's dependencies: a bench tool).
"""
import sys, time

try:
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, linprog, milp
    from scipy.sparse import csr_matrix, eye, hstack, kron
except ImportError as exc:
    sys.exit('error: bench/schedule_bounds.py needs numpy and scipy >= 1.9 (%s)' % exc)


def load(path, m):
    try:
        v = np.array([float(x) for x in open(path).read().split()])
    except (OSError, ValueError) as exc:
        sys.exit('error: %s: %s' % (path, exc))
    if v.size == 0 or v.size % m:
        sys.exit('error: %s: %d numbers, not a multiple of %d machines' % (path, v.size, m))
    return v.reshape(-1, m)


def model(etc):
    """Variables x[t m + j] (task t on machine j) and T; each task once; each machine's load - T <= 0."""
    n, m = etc.shape
    cost = np.zeros(n * m + 1)
    cost[-1] = 1
    once = hstack([kron(eye(n), np.ones((1, m))), csr_matrix((n, 1))]).tocsr()
    rows = np.concatenate([np.tile(np.arange(m), n), np.arange(m)])
    cols = np.concatenate([np.arange(n * m), np.full(m, n * m)])
    vals = np.concatenate([etc.ravel(), -np.ones(m)])
    load = csr_matrix((vals, (rows, cols)), shape=(m, n * m + 1))
    return cost, once, load


def flow_bound(etc):
    """flowtime / m of the tasks at their fastest times, shortest first, dealt round robin to m machines."""
    n, m = etc.shape
    fastest = np.sort(etc.min(axis=1))
    flow = 0.0
    for j in range(m):
        flow += np.cumsum(fastest[j::m]).sum()
    return flow / m


def main():
    args = sys.argv[1:]
    opts = {'--time-limit': 60.0, '--machines': 16}
    for name in list(opts):
        if name in args:
            k = args.index(name)
            try:
                opts[name] = type(opts[name])(args[k + 1])
            except (IndexError, ValueError):
                sys.exit('error: %s needs a number' % name)
            del args[k:k + 2]
    if len(args) < 2:
        sys.exit(__doc__.strip().splitlines()[2])
    root, files = args[0], args[1:]
    print('| file | LP lower bound | integer: best found | integer: proven lower bound | seconds | flowtime / m lower bound |')
    print('|---|---|---|---|---|---|')
    for f in files:
        etc = load('%s/%s' % (root, f), opts['--machines'])
        n, m = etc.shape
        cost, once, load_ = model(etc)
        t0 = time.time()
        lp = linprog(cost, A_ub=load_, b_ub=np.zeros(m), A_eq=once, b_eq=np.ones(n), bounds=(0, None), method='highs')
        integrality = np.ones(n * m + 1)
        integrality[-1] = 0
        mip = milp(cost, constraints=[LinearConstraint(once, 1, 1), LinearConstraint(load_, -np.inf, 0)],
                   integrality=integrality, bounds=Bounds(0, np.inf),
                   options={'time_limit': opts['--time-limit'], 'mip_rel_gap': 1e-4})
        best = '%.6g' % mip.fun if mip.x is not None else '-'
        bound = getattr(mip, 'mip_dual_bound', None)
        print('| %s | %.6g | %s | %s | %.0f | %.6g |' % (f, lp.fun, best, '%.6g' % bound if bound is not None else '-',
                                                     time.time() - t0, flow_bound(etc)), flush=True)


if __name__ == '__main__':
    main()
