"""Draws a learning curve CSV (written by python/examples/ppo_numpy.py --csv) as a small SVG
and prints a Markdown table of it, with no plotting library.

    python3 scripts/plot_learning_curve.py curve.csv docs/img/ppo_curve.svg
"""

from __future__ import annotations

import csv
import math
import sys


def main() -> int:
    src, out = sys.argv[1], sys.argv[2]
    rows = [r for r in csv.DictReader(open(src)) if r["mean_return"] not in ("nan", "")]
    xs = [int(r["env_steps"]) for r in rows]
    ys = [float(r["mean_return"]) for r in rows]
    if not rows:
        print("no finished episodes in the curve", file=sys.stderr)
        return 1
    w, h, pad = 640, 320, 48
    xmax = max(xs)
    ymax = max(10.0, math.ceil(max(ys) / 20) * 20)

    def px(x, y):
        return pad + (w - 2 * pad) * x / xmax, h - pad - (h - 2 * pad) * y / ymax

    pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in (px(x, y) for x, y in zip(xs, ys)))
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>',
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>',
    ]
    for k in range(0, int(ymax) + 1, max(20, int(ymax) // 5 // 20 * 20 or 20)):
        _, y = px(0, k)
        lines.append(f'<line x1="{pad - 4}" y1="{y:.1f}" x2="{w - pad}" y2="{y:.1f}" stroke="#ddd"/>')
        lines.append(f'<text x="{pad - 8}" y="{y + 4:.1f}" text-anchor="end">{k}</text>')
    for k in range(5):
        x = xmax * k / 4
        a, _ = px(x, 0)
        lines.append(f'<text x="{a:.1f}" y="{h - pad + 16}" text-anchor="middle">{x / 1e6:.1f}M</text>')
    lines.append(f'<polyline points="{pts}" fill="none" stroke="#2f6bd8" stroke-width="2"/>')
    lines.append(f'<text x="{w / 2}" y="{h - 8}" text-anchor="middle">environment steps</text>')
    lines.append(f'<text x="14" y="{h / 2}" text-anchor="middle" transform="rotate(-90 14 {h / 2})">'
                 'mean episode return (sparse)</text>')
    lines.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("| update | env steps | mean return of the episodes that ended |")
    print("|---|---|---|")
    step = max(1, len(rows) // 10)
    for r in rows[::step] + ([rows[-1]] if (len(rows) - 1) % step else []):
        print(f"| {r['update']} | {int(r['env_steps']):,} | {float(r['mean_return']):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
