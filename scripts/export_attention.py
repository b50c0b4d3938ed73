#!/usr/bin/env python3
"""Exports attention weights from a PyTorch model as mha-lens attention JSON, which
<mha-heatmap src="attention.json"> (or its `attention` property) draws without running anything.

    /usr/bin/python3 scripts/export_attention.py [--out web/examples/attention.json]

Debian's python3-torch (scripts/setup.sh --fixtures installs it); run it with /usr/bin/python3.
Use `write_attention` from your own code: the demo below trains a one-layer model to reverse
a sequence of letters (a couple of seconds on a CPU) and exports its heads on one sentence.

The format ("mha-lens/attention", version 1), checked by the widgets before anything is drawn:
    {
      "format": "mha-lens/attention", "version": 1,
      "tokens": ["a", "b", ...],        Tq labels, one per query row
      "keyTokens": [...],               Tk labels, one per key column (optional; default tokens)
      "shape": [H, Tq, Tk] or [B, H, Tq, Tk],
      "data": [...],                    the weights, row-major, finite, each in [0, 1]
      "title": "...", "source": "..."   text shown with the heatmap (optional)
    }
"""
import argparse
import json
import math

import torch
from torch import nn


def write_attention(path, weights, tokens, key_tokens=None, title=None, source=None):
    """Writes attention `weights` ([H, Tq, Tk] or [B, H, Tq, Tk], as nn.MultiheadAttention returns
    with need_weights=True, average_attn_weights=False) and its token labels to `path`."""
    weights = weights.detach().to(torch.float64).cpu()
    if weights.dim() not in (3, 4):
        raise ValueError(f"weights must be [H, Tq, Tk] or [B, H, Tq, Tk], not {list(weights.shape)}")
    tq, tk = weights.shape[-2], weights.shape[-1]
    if len(tokens) != tq or (key_tokens is not None and len(key_tokens) != tk):
        raise ValueError(f"{len(tokens)} tokens for Tq={tq}, {len(key_tokens or tokens)} key tokens for Tk={tk}")
    document = {
        "format": "mha-lens/attention",
        "version": 1,
        "tokens": [str(t) for t in tokens],
        "shape": list(weights.shape),
        # Six decimals: a weight's display needs three, and the file stays small.
        "data": [round(v, 6) for v in weights.flatten().tolist()],
    }
    if key_tokens is not None:
        document["keyTokens"] = [str(t) for t in key_tokens]
    if title:
        document["title"] = title
    if source:
        document["source"] = source
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, ensure_ascii=False, separators=(",", ":"))
        out.write("\n")


class Reverser(nn.Module):
    """Token and position embeddings, one nn.MultiheadAttention, and a linear readout."""

    def __init__(self, vocab, length, width, heads):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.randn(length, width) / math.sqrt(width))
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True)
        self.readout = nn.Linear(width, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position
        y, weights = self.attention(x, x, x, need_weights=True, average_attn_weights=False)
        return self.readout(y), weights


def train_reverser(seed=0, vocab=12, length=8, steps=600):
    torch.manual_seed(seed)
    model = Reverser(vocab, length, width=32, heads=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(steps):
        tokens = torch.randint(0, vocab, (64, length))
        logits, _ = model(tokens)
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), tokens.flip(1).reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model, loss.item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="web/examples/attention.json")
    args = parser.parse_args()
    torch.set_num_threads(1)
    letters = "abcdefghijkl"
    model, loss = train_reverser()
    probe = "backlife"
    with torch.no_grad():
        _, weights = model(torch.tensor([[letters.index(c) for c in probe]]))
    write_attention(args.out, weights[0], list(probe),
                    title="A one-layer model trained to reverse its input: each query looks at the mirrored key",
                    source=f"scripts/export_attention.py (nn.MultiheadAttention, 2 heads, C=32, 600 steps, final loss {loss:.3f})")
    print(f"wrote {args.out}: {weights.shape[1]} heads, loss {loss:.4f}")


if __name__ == "__main__":
    main()
