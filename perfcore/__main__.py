"""``python -m perfcore``: the tour of the lecture's five scripts, the measurements and the plots."""

from __future__ import annotations

import sys

from .tour import TOUR

USAGE = """\
python -m perfcore SECTION

前置讲 P3 · GPU 与性能模型 · GPUs and Performance Models: the tour

{sections}
  measure      measure this machine: bandwidth, matmul, roofline, transpose, fusion, overhead
               (python -m perfcore measure [--quick] [--json FILE]; needs torch)
  plot         plots (python -m perfcore plot roofline --out FILE.png; needs matplotlib)
  all          every section of the tour
"""


def usage() -> str:
    sections = "\n".join(f"  {name:<12} {script} · {what}" for name, (script, what, _) in TOUR.items())
    return USAGE.format(sections=sections)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help", "list"):
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name == "measure":
        from .measure.cli import main as measure_main

        return measure_main(rest)
    if name == "plot":
        from .plots import main as plot_main

        return plot_main(rest)
    if name == "all":
        for _, _, show in TOUR.values():
            print(show())
        return 0
    if name not in TOUR:
        print(
            f"unknown section {name!r}; choose one of: {', '.join(TOUR)}, measure, plot, all\n",
            file=sys.stderr,
        )
        print(usage(), file=sys.stderr)
        return 2
    print(TOUR[name][2]())
    return 0


if __name__ == "__main__":
    sys.exit(main())
