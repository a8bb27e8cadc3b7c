#!/usr/bin/env python3
"""Writes the line-rate table of docs/results/lanes.md from the synthesis rows and the measured
bench rates.

usage: synth/lanes.py [SYNTH_MD] [RATES_TSV] [LANES_MD]
       (defaults docs/results/synth.md, synth/lanes.tsv, docs/results/lanes.md)
env:   SRAM_UM2_PER_BIT (default 0.05): macro area per SRAM bit, periphery included

RATES_TSV has one line per block: block, B/cycle, what the figure counts, the bench that measured
it (tab-separated, '#' comments). For every block in both, the table gives B/cycle, Fmax and the
critical path from synth.md, GB/s = B/cycle x Fmax, logic area, SRAM bits and their area at
SRAM_UM2_PER_BIT, total area, GB/s per mm2, and the lanes N that a 256 GB/s device (TRACE-class,
PCIe 7.0 x16) and the paper's 2 TB/s codec complex need, with their area. The table replaces the
text between the markers '<!-- lanes:begin -->' and '<!-- lanes:end -->' of LANES_MD.
"""
import math
import os
import re
import sys

BEGIN, END = "<!-- lanes:begin -->", "<!-- lanes:end -->"


def synth_rows(path):
    rows = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("| `"):
                continue
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            block = c[0].strip("`")
            sram = re.match(r"(\d+)", c[5])
            rows[block] = {
                "rev": c[1], "area": float(c[4]), "sram": int(sram.group(1)) if sram else 0,
                "crit": float(c[7]), "fmax": float(c[8]),
            }
    return rows


def rates(path):
    out = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            block, bpc, what, bench = line.rstrip("\n").split("\t")
            out.append((block, float(bpc), what, bench))
    return out


def table(srows, rrows, um2_bit):
    head = ("| block | B/cycle (measured) | critical path (ps) | Fmax (MHz) | GB/s | logic (mm2) | "
            "SRAM bits | SRAM (mm2) | total (mm2) | GB/s per mm2 | N for 256 GB/s (mm2) | "
            "N for 2 TB/s (mm2) | B/cycle: what and where |")
    lines = [head, "|" + "---|" * 13]
    for block, bpc, what, bench in rrows:
        s = srows.get(block)
        if s is None:
            sys.exit(f"lanes.py: {block} has no row in the synthesis table")
        gbs = bpc * s["fmax"] / 1000.0
        logic = s["area"] / 1e6
        sram = s["sram"] * um2_bit / 1e6
        total = logic + sram
        n256 = math.ceil(256.0 / gbs)
        n2t = math.ceil(2048.0 / gbs)
        stale = " (stale row)" if "changed since" in s["rev"] else ""
        lines.append(
            f"| `{block}`{stale} | {bpc:.2f} | {s['crit']:.0f} | {s['fmax']:.0f} | {gbs:.1f} | "
            f"{logic:.4f} | {s['sram']} | {sram:.4f} | {total:.4f} | {gbs / total:.0f} | "
            f"{n256} ({n256 * total:.2f}) | {n2t} ({n2t * total:.1f}) | {what}; {bench} |")
    return "\n".join(lines)


def main():
    a = sys.argv[1:]
    synth_md = a[0] if len(a) > 0 else "docs/results/synth.md"
    tsv = a[1] if len(a) > 1 else "synth/lanes.tsv"
    lanes_md = a[2] if len(a) > 2 else "docs/results/lanes.md"
    um2_bit = float(os.environ.get("SRAM_UM2_PER_BIT", "0.05"))
    body = table(synth_rows(synth_md), rates(tsv), um2_bit)
    text = open(lanes_md).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"lanes.py: {lanes_md} lacks the markers {BEGIN} / {END}")
    pre, rest = text.split(BEGIN, 1)
    post = rest.split(END, 1)[1]
    note = (f"\n<!-- written by synth/lanes.py (SRAM {um2_bit} um2 per bit); do not edit by hand -->\n")
    with open(lanes_md, "w") as f:
        f.write(pre + BEGIN + note + body + "\n" + END + post)


if __name__ == "__main__":
    main()
