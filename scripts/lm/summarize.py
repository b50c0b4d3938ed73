"""Tables of the language-model experiments from their logs (train_lm_torch.py --out DIR writes
DIR/log.jsonl; scripts/lm/runs/NAME.jsonl are copies of them).

    python3 scripts/lm/summarize.py scripts/lm/runs/*.jsonl
"""

import json
import os
import sys


def main(paths):
    for path in paths:
        name = os.path.basename(path).rsplit(".", 1)[0]
        rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
        head = rows[0]
        c = head["config"]
        print(f"### {name}: {c['corpus']}, {c['layers']} layers, C={c['C']}, H={c['H']}, T={c['T']}, batch {c['batch']}, lr {c['lr']}"
              f"{', rep ' + str(c['rep']) if c.get('rep') else ''}; {head['params']:,} parameters, {head.get('gflop_per_step', '?')} GFLOP/step")
        jobs = c["corpus"].startswith("tang")
        cols = ["step", "s", "ms/step", "bits", "prev (per layer)", "induction", "bits copy1 → copy2"]
        if jobs:
            cols[5:5] = ["job1", "job5", "job6", "job11", "job12"]
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for r in rows[1:]:
            if "step" in r:
                cells = [r["step"], r["seconds"], r["ms_per_step"], f"{r['bits']:.3f}", " / ".join(f"{p:.2f}" for p in r["prev"])]
                if jobs:
                    cells += [f"{r.get(f'job{k}_best', float('nan')):.2f}" for k in (1, 5, 6, 11, 12)]
                cells += [f"{r['induction']:.3f}", f"{r['bits_copy1']:.2f} → {r['bits_copy2']:.2f}"]
                print("| " + " | ".join(str(x) for x in cells) + " |")
            elif "stopped" in r:
                print(f"\nstopped at step {r['stopped']} ({r['because']})")
            elif "final" in r:
                f = r["final"]
                share = f"English words {f['english_share']:.2f} of {f['words']}" if "english_share" in f else f"verse lines {f.get('verse_share', 0):.2f} of {f.get('pieces', 0)}, unknown mark {f.get('unknown_share', 0):.3f}"
                print(f"\nfinal: {share}; checkpoint {f['f32_bytes']:,} B float32 ({f['f32_gz']:,} gz), {f['f16_bytes']:,} B float16 ({f['f16_gz']:,} gz); "
                      f"float16 bits {f['f16_bits']:.4f}, induction {f['f16_induction']:.3f}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
