"""Run the benchmark suite: ``python -m benchmarks [--quick] [--only NAME ...] [--strict]``."""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
import time
import traceback
from pathlib import Path

from tabulate import tabulate

import benchmarks
from benchmarks._util import environment

RESULTS_DIR = Path(__file__).resolve().parent / "results"
COLUMNS = ("benchmark", "case", "metric", "value", "target", "status", "details")


def discover() -> list[str]:
    """Short names (``kernels`` for ``bench_kernels.py``) of every benchmark module, sorted."""
    return sorted(
        m.name.removeprefix("bench_")
        for m in pkgutil.iter_modules(benchmarks.__path__)
        if m.name.startswith("bench_")
    )


def select(available: list[str], only: list[str] | None) -> list[str]:
    """The benchmarks asked for by ``--only`` (comma lists and ``bench_`` prefixes accepted)."""
    if not only:
        return available
    wanted = [n.strip().removeprefix("bench_") for item in only for n in item.split(",")]
    unknown = [n for n in wanted if n and n not in available]
    if unknown:
        raise SystemExit(
            f"unknown benchmark(s) {', '.join(unknown)}; available: {', '.join(available)}"
        )
    return [n for n in available if n in wanted]


def run_one(name: str, quick: bool) -> tuple[list[dict], float, str | None]:
    module = importlib.import_module(f"benchmarks.bench_{name}")
    start = time.perf_counter()
    try:
        rows = module.run(quick=quick)
        error = None
    except Exception:  # one broken benchmark must not hide the others' numbers
        rows, error = [], traceback.format_exc()
    return [{"benchmark": name, **r} for r in rows], time.perf_counter() - start, error


def save(name: str, rows: list[dict], seconds: float, quick: bool, env: dict, error) -> Path:
    RESULTS_DIR.mkdir(exist_ok=True)
    path = RESULTS_DIR / f"{name}{'-quick' if quick else ''}.json"  # a smoke test keeps a full run
    payload = {
        "benchmark": name,
        "quick": quick,
        "seconds": round(seconds, 2),
        "error": error,
        "environment": env,
        "rows": rows,
    }
    path.write_text(json.dumps(payload, indent=2) + "\n")
    return path


def format_table(rows: list[dict]) -> str:
    table = [[_fmt(r.get(c, "")) for c in COLUMNS] for r in rows]
    return tabulate(table, headers=COLUMNS, tablefmt="github", disable_numparse=True)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="run only these benchmarks (repeatable)"
    )
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--strict", action="store_true", help="exit with status 1 on any FAIL")
    args = parser.parse_args(argv)

    available = discover()
    if args.list:
        print("\n".join(available))
        return 0
    names = select(available, args.only)  # fail on a typo before any work
    env = environment()
    print(
        f"{env['cpu']}, {env['cores']} cores; numba {env['numba']} "
        f"({env['numba_threads']} threads), BLAS: {'; '.join(env['blas'])}"
    )
    load = env["load_average_1min"]
    if load is not None and load > 0.5:
        print(
            f"warning: the 1-minute load average is {load:.1f} on {env['cores']} cores; other "
            "processes compete for the CPU and the timings will be noisy.",
            file=sys.stderr,
        )
    all_rows, failed = [], []
    for name in names:
        print(f"running {name}{' (quick)' if args.quick else ''} ...", flush=True)
        rows, seconds, error = run_one(name, args.quick)
        path = save(name, rows, seconds, args.quick, env, error)
        print(f"  {len(rows)} rows in {seconds:.1f} s -> {path}", flush=True)
        if error:
            failed.append(name)
            print(error, file=sys.stderr)
        all_rows += rows
    print()
    print(format_table(all_rows))
    n_fail = sum(r.get("status") == "FAIL" for r in all_rows)
    print(f"\n{sum(r.get('status') == 'PASS' for r in all_rows)} PASS, {n_fail} FAIL", end="")
    print(f", crashed: {', '.join(failed)}" if failed else "")
    return 1 if failed or (args.strict and n_fail) else 0


if __name__ == "__main__":
    sys.exit(main())
