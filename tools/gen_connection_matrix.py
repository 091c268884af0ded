#!/usr/bin/env python3
"""Write an htsim-style connection matrix (.cm): a random permutation or an incast.

    tools/gen_connection_matrix.py permutation NODES BYTES [--seed S] > file.cm
    tools/gen_connection_matrix.py incast NODES BYTES --dst D [--senders K] > file.cm

Start times are in picoseconds, as htsim reads them.
"""
import argparse
import random
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pattern", choices=["permutation", "incast"])
    ap.add_argument("nodes", type=int)
    ap.add_argument("bytes", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dst", type=int, default=0)
    ap.add_argument("--senders", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if a.pattern == "permutation":
        # Sattolo's algorithm: one cycle through all nodes, so nobody sends to itself.
        dst = list(range(a.nodes))
        for i in range(a.nodes - 1, 0, -1):
            j = rng.randrange(i)
            dst[i], dst[j] = dst[j], dst[i]
        pairs = [(s, dst[s]) for s in range(a.nodes)]
    else:
        k = a.senders or a.nodes - 1
        pairs = [((a.dst + i) % a.nodes, a.dst) for i in range(1, k + 1)]
    out = sys.stdout
    out.write(f"# {a.pattern} of {a.bytes} B messages over {a.nodes} nodes (seed {a.seed})\n")
    out.write(f"Nodes {a.nodes}\nConnections {len(pairs)}\n")
    for n, (s, d) in enumerate(pairs, start=1):
        out.write(f"{s}->{d} id {n} start 0 size {a.bytes}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
