"""The character language model in PyTorch, on one CPU thread: the engine's trainer (cpp/src/model/)
mirrored exactly, on the corpora of scripts/lm/make_corpora.js, with the page's metrics.

Model (as cpp/src/model/transformer.cpp): token + learned position embeddings (uniform, variance 1),
L blocks of pre-LayerNorm -> causal multi-head attention (Q = X·Wq + bq, biases on) -> residual,
pre-LayerNorm -> ReLU MLP C -> 4C -> C -> residual, final LayerNorm, unembedding [C, V] + bias, mean
cross-entropy over every position. Linear weights and biases uniform in ±1/sqrt(fan_in) (nn.Linear),
LayerNorm gains 1, shifts 0, no dropout. AdamW (betas 0.9/0.999, eps 1e-8, weight decay on every
parameter), clip_grad_norm_(1.0), constant learning rate unless --lr-schedule says otherwise (the
engine changes it between chunks of steps with reconfigure).

Options that the engine does not have yet are marked [engine: no] in --help: with them, what
is found needs a change to the trainer before it transfers.

Batches: B random windows of T+1 characters of the training text (start uniform in
[0, n - T - 1], from a torch.Generator seeded with --seed): the first T are the input, the last T
the targets. With --rep, a share of the rows repeat a passage (the curriculum, see make_batch).

Metrics, all on the held-out text (fixed windows: the same at every evaluation and in every run):
  bits       mean cross-entropy / ln 2 over 256 windows of T+1 evenly spaced in the held-out text.
  prev       per head, the mean attention weight on key i-1 over every query i >= 1 of those
             windows; reported per layer as the best head.
  induction  128 rows of T characters from the held-out text: the row is the text from an evenly
             spaced start, except that its last 2L characters are a passage P (the L characters
             that follow the prefix in the text) written twice: [prefix T-2L][P][P]. For every
             query i in the second copy (i = s2 + k, k = 0 .. L-1) the current character P[k] was
             seen at s1 + k and the character after it at s1 + k + 1 = i - L + 1; the score of a head
             is the mean weight on that key. Also: bits/char on the first copy and on the second
             (a model that copies predicts the second copy almost exactly).
  jobs       (Chinese) per head, mean weight on keys i-1, i-6 and i-12 over the queries whose key
             lies in the same poem (no "\n" at the key or between it and the query); also i-5 and
             i-11, where the counterpart of the character to predict (i+1) stands.
  generate   --gen characters at temperature 0.8 (torch.Generator seeded 1234), started from a
             fixed held-out prompt (T/2 characters), a window of the last T. English: the share of
             generated words (maximal runs of letters and inner apostrophes, lower-cased) that are
             words of the training text. Chinese: the generated text split after every "。" and
             "\n"; the share of the complete pieces that are a verse line (5 characters, "，",
             5 characters, "。"; the unknown mark counts as a character).

    /usr/bin/python3 scripts/bench/train_lm_torch.py --corpus moby-dick --steps 2000 --eval 250,500,1000,2000

prints one JSON line per evaluation and, with --out, writes them and the final parameters there.

Speed: Debian's python3-torch links the reference BLAS (a few GFLOP/s, seconds per step at C=128).
OpenBLAS in front of it, for this process only, is ~15x faster and changes nothing else:
    apt-get download libopenblas0-serial && dpkg -x libopenblas0-serial_*.deb /tmp/oblas
    LD_LIBRARY_PATH=/tmp/oblas/usr/lib/x86_64-linux-gnu/openblas-serial OPENBLAS_NUM_THREADS=1 \
        /usr/bin/python3 scripts/bench/train_lm_torch.py ...
"""

import argparse
import json
import math
import os
import re
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.set_num_interop_threads(1)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


# --- Data --------------------------------------------------------------------------------------------

def load_corpus(name, corpora):
    folder = os.path.join(corpora, name)
    if not os.path.isdir(folder):
        sys.exit(f"train_lm_torch: no corpus {name!r} under {corpora}; run node scripts/lm/make_corpora.js first")
    with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    files = os.listdir(folder)
    ext = "u8" if "train.u8" in files else "u16"
    dtype = np.uint8 if ext == "u8" else np.dtype("<u2")
    train = np.fromfile(os.path.join(folder, f"train.{ext}"), dtype=dtype).astype(np.int64)
    heldout = np.fromfile(os.path.join(folder, f"heldout.{ext}"), dtype=dtype).astype(np.int64)
    return torch.from_numpy(train), torch.from_numpy(heldout), vocab["chars"], vocab.get("unknown")


def rep_share(o, step):
    """The share of repeat rows at this step: --rep until --rep-hold, then linearly to --rep-end
    at --rep-until (when --rep-end is given)."""
    if o.rep_end is None or step <= o.rep_hold:
        return o.rep
    t = min(1.0, (step - o.rep_hold) / max(1, o.rep_until - o.rep_hold))
    return o.rep + (o.rep_end - o.rep) * t


def make_batch(text, B, T, g, o, step, V, newline):
    """B rows of T+1 characters. Plain rows: a window of the training text. Repeat rows (a share
    rep_share of them): the window's characters a .. a+L-1 (a passage P, L uniform in
    [rep_min, rep_max], a uniform in [0, T+1-2L]) are written again right after it, and the row
    goes on with the text that followed P ('two': [text][P][P][text]) or P repeats to the end of
    the row ('fill'). With --rep-random the passage is uniformly random characters instead of text
    (so that nothing but copying predicts its second copy)."""
    n = text.numel()
    starts = torch.randint(0, n - T - 1, (B,), generator=g)
    j = torch.arange(T + 1)
    idx = starts[:, None] + j[None, :]
    rows = text[idx]
    share = rep_share(o, step)
    if share > 0:
        R = int(round(B * share))
        if R > 0:
            Lmax = min(o.rep_max, (T + 1) // 2)
            L = torch.randint(o.rep_min, Lmax + 1, (R, 1), generator=g)
            a = (torch.rand((R, 1), generator=g) * (T + 2 - 2 * L)).long()
            if o.rep_mode == "fill":
                src = torch.where(j[None, :] < a + L, j[None, :], a + (j[None, :] - a) % L)
            else:
                src = torch.where(j[None, :] < a + L, j[None, :], j[None, :] - L)
            rep_rows = rows[:R].gather(1, src)
            if o.rep_random:
                noise = torch.randint(0, V, (R, T + 1), generator=g)
                if newline is not None:
                    noise = torch.where(noise == newline, (noise + 1) % V, noise)
                # positions whose source lies inside P take the random passage instead
                inside = (src >= a) & (src < a + L)
                noise_src = noise.gather(1, torch.where(inside, src, torch.zeros_like(src)))
                rep_rows = torch.where(inside, noise_src, rep_rows)
            rows = torch.cat([rep_rows, rows[R:]], 0)
    return rows[:, :-1], rows[:, 1:]


# --- Model -------------------------------------------------------------------------------------------

class Block(nn.Module):
    def __init__(self, C, H, mlp):
        super().__init__()
        self.H, self.mlp = H, mlp
        self.ln1 = nn.LayerNorm(C)
        self.q, self.k, self.v, self.o = (nn.Linear(C, C) for _ in range(4))
        if mlp:
            self.ln2 = nn.LayerNorm(C)
            self.f1, self.f2 = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

    def forward(self, x, keep=False):
        B, T, C = x.shape
        H, D = self.H, C // self.H
        h = self.ln1(x)
        q = self.q(h).view(B, T, H, D).transpose(1, 2)
        k = self.k(h).view(B, T, H, D).transpose(1, 2)
        v = self.v(h).view(B, T, H, D).transpose(1, 2)
        s = q @ k.transpose(-2, -1) / math.sqrt(D)
        s = s.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
        a = s.softmax(-1)
        x = x + self.o((a @ v).transpose(1, 2).reshape(B, T, C))
        if self.mlp:
            x = x + self.f2(F.relu(self.f1(self.ln2(x))))
        return x, (a if keep else None)


class Model(nn.Module):
    def __init__(self, V, T, C, H, layers, mlp_layers, tied):
        super().__init__()
        self.tok = nn.Embedding(V, C)
        self.pos = nn.Embedding(T, C)
        bound = math.sqrt(3.0)  # uniform with variance 1, as the engine's embeddings
        nn.init.uniform_(self.tok.weight, -bound, bound)
        nn.init.uniform_(self.pos.weight, -bound, bound)
        self.blocks = nn.ModuleList(Block(C, H, l in mlp_layers) for l in range(layers))
        self.lnf = nn.LayerNorm(C)
        self.tied = tied
        self.unembed = nn.Linear(C, V)
        if tied:
            del self.unembed.weight  # the logits use tok.weight transposed, the bias stays

    def forward(self, x, keep=False):
        h = self.tok(x) + self.pos(torch.arange(x.shape[1]))
        weights = []
        for block in self.blocks:
            h, a = block(h, keep)
            weights.append(a)
        h = self.lnf(h)
        logits = h @ self.tok.weight.t() + self.unembed.bias if self.tied else self.unembed(h)
        return logits, weights


# --- Metrics -----------------------------------------------------------------------------------------

def eval_windows(heldout, T, count=256):
    n = heldout.numel()
    starts = torch.linspace(0, n - T - 2, count).long()
    return heldout[starts[:, None] + torch.arange(T + 1)[None, :]]


def induction_rows(heldout, T, L, count=128):
    n = heldout.numel()
    prefix = T - 2 * L
    starts = torch.linspace(0, n - T - 2, count).long()
    base = heldout[starts[:, None] + torch.arange(prefix + L)[None, :]]
    return torch.cat([base, base[:, prefix:]], 1)  # [prefix][P][P], T characters


@torch.no_grad()
def evaluate(model, o, heldout, V, newline, chars):
    model.eval()
    T = o.T
    out = {}
    win = eval_windows(heldout, T)
    x, y = win[:, :-1], win[:, 1:]
    total, prev, jobs = 0.0, [], []
    offsets = (1, 5, 6, 11, 12)  # 1, 6, 12: the jobs; 5, 11: the counterpart of the next character
    for c in range(0, x.shape[0], 64):
        logits, ws = model(x[c:c + 64], keep=True)
        total += F.cross_entropy(logits.reshape(-1, V), y[c:c + 64].reshape(-1), reduction="sum").item()
        prev.append(torch.stack([w.diagonal(-1, -2, -1).sum((0, 2)) for w in ws]))  # [layers, H]
        if o.jobs:
            xs = x[c:c + 64]
            # csp[:, k]: newlines among positions 0 .. k-1; the key i-off is in the query's poem
            # when positions i-off .. i-1 hold none
            csp = F.pad((xs == newline).long().cumsum(1), (1, 0))
            per = []
            for off in offsets:
                m = torch.zeros(xs.shape, dtype=torch.float32)
                m[:, off:] = (csp[:, off:T] == csp[:, :T - off]).float()
                per.append(torch.stack([(w.diagonal(-off, -2, -1) * m[:, None, off:]).sum((0, 2)) for w in ws]) / m.sum())
            jobs.append(torch.stack(per))  # [offsets, layers, H]
    out["bits"] = total / (x.numel() * math.log(2))
    prev = torch.stack(prev).sum(0) / (x.shape[0] * (T - 1))
    out["prev"] = [round(max(p).item(), 4) for p in prev]
    out["prev_heads"] = [[round(v, 3) for v in p.tolist()] for p in prev]
    if o.jobs:
        js = torch.stack(jobs).mean(0)
        for k, off in enumerate(offsets):
            out[f"job{off}"] = [[round(v, 3) for v in p.tolist()] for p in js[k]]
            out[f"job{off}_best"] = round(js[k].max().item(), 4)
    # induction
    L = o.ind_len
    rows = induction_rows(heldout, T, L)
    logits, ws = model(rows, keep=True)
    s1, s2 = T - 2 * L, T - L
    q = torch.arange(s2, T)
    kpos = q - L + 1
    scores = torch.stack([w[:, :, q, kpos].mean((0, 2)) for w in ws])  # [layers, H]
    out["induction"] = round(scores.max().item(), 4)
    out["induction_heads"] = [[round(v, 3) for v in p.tolist()] for p in scores]
    lp = F.cross_entropy(logits[:, :-1].reshape(-1, V), rows[:, 1:].reshape(-1), reduction="none").view(rows.shape[0], -1)
    out["bits_copy1"] = round(lp[:, s1:s2 - 1].mean().item() / math.log(2), 4)
    out["bits_copy2"] = round(lp[:, s2:T - 1].mean().item() / math.log(2), 4)
    model.train()
    return out


@torch.no_grad()
def generate(model, o, heldout, chars, n, temperature=0.8, seed=1234):
    model.eval()
    g = torch.Generator().manual_seed(seed)
    T = o.T
    start = heldout.numel() // 3
    ctx = heldout[start:start + T // 2].tolist()
    prompt = len(ctx)
    for _ in range(n):
        x = torch.tensor([ctx[-T:]])
        logits, _ = model(x)
        p = (logits[0, -1] / temperature).softmax(-1)
        ctx.append(torch.multinomial(p, 1, generator=g).item())
    model.train()
    return "".join(chars[i] for i in ctx[:prompt]), "".join(chars[i] for i in ctx[prompt:])


WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")


def english_share(text, words):
    found = [w.lower() for w in WORD.findall(text)]
    return (sum(w in words for w in found) / len(found) if found else 0.0), len(found)


def verse_share(text, marks=("，", "。", "\n")):
    pieces = re.split(r"(?<=[。\n])", text)[1:-1]  # the first and the last piece may be cut off
    pieces = [p for p in pieces if p != "\n"]
    pieces = [p[:-1] if p.endswith("\n") else p for p in pieces]
    shaped = [p for p in pieces if len(p) == 12 and p[5] == "，" and p[11] == "。" and not any(c in marks for c in p[:5] + p[6:11])]
    return (len(shaped) / len(pieces) if pieces else 0.0), len(pieces)


# --- Training ----------------------------------------------------------------------------------------

def lr_at(o, step):
    if o.lr_schedule == "constant":
        return o.lr
    # cosine from lr down to lr * lr_final over the run (after a linear warm-up of --warmup steps)
    if step < o.warmup:
        return o.lr * (step + 1) / o.warmup
    t = (step - o.warmup) / max(1, o.steps - o.warmup)
    return o.lr * (o.lr_final + (1 - o.lr_final) * 0.5 * (1 + math.cos(math.pi * t)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", default="moby-dick", help="moby-dick or tang-poems (a folder under --corpora)")
    p.add_argument("--corpora", default=os.path.join(ROOT, "web", "corpora"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--C", type=int, default=128)
    p.add_argument("--H", type=int, default=4)
    p.add_argument("--T", type=int, default=128)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--eval", default="250,500,1000,1500,2000", help="steps to evaluate at, comma-separated")
    p.add_argument("--mlp-layers", default="all", help="layers with an MLP: all, none, or e.g. 1,2 [engine: all or none only]")
    p.add_argument("--tied", action="store_true", help="unembedding = token embedding transposed [engine: no]")
    p.add_argument("--lr-schedule", choices=["constant", "cosine"], default="constant")
    p.add_argument("--lr-final", type=float, default=0.1, help="cosine: final lr as a share of --lr")
    p.add_argument("--warmup", type=int, default=0)
    p.add_argument("--rep", type=float, default=0.0, help="share of repeat rows (the curriculum)")
    p.add_argument("--rep-end", type=float, default=None, help="share of repeat rows reached at --rep-until (linear)")
    p.add_argument("--rep-until", type=int, default=1000)
    p.add_argument("--rep-hold", type=int, default=0, help="with --rep-end: keep --rep until this step, then go linearly")
    p.add_argument("--rep-min", type=int, default=8)
    p.add_argument("--rep-max", type=int, default=64)
    p.add_argument("--rep-mode", choices=["two", "fill"], default="two")
    p.add_argument("--rep-random", action="store_true", help="repeat rows' passage: uniformly random characters")
    p.add_argument("--ind-len", type=int, default=None, help="induction score: passage length L (default min(32, T/4))")
    p.add_argument("--gen", type=int, default=2000, help="characters to generate at the end (0: none)")
    p.add_argument("--out", default=None, help="a folder for the log (log.jsonl), the sample and the parameters")
    p.add_argument("--stop-if", default=None, help="e.g. 1500:induction<0.05 stops a failing run at step 1500")
    o = p.parse_args()

    train, heldout, chars, unknown = load_corpus(o.corpus, o.corpora)
    V = len(chars)
    newline = chars.index("\n") if "\n" in chars else None
    o.jobs = o.corpus.startswith("tang")
    if o.ind_len is None:
        o.ind_len = min(32, o.T // 4)
    if not 1 <= o.ind_len <= o.T // 2 - 1:
        sys.exit(f"train_lm_torch: --ind-len {o.ind_len} does not fit twice in T={o.T}; use 1 .. {o.T // 2 - 1}")
    mlp_layers = set(range(o.layers)) if o.mlp_layers == "all" else set() if o.mlp_layers == "none" else {int(s) for s in o.mlp_layers.split(",")}
    torch.manual_seed(o.seed)
    model = Model(V, o.T, o.C, o.H, o.layers, mlp_layers, o.tied)
    params = sum(t.numel() for t in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=o.lr, weight_decay=o.weight_decay, betas=(0.9, 0.999), eps=1e-8)
    g = torch.Generator().manual_seed(o.seed)
    evals = sorted({int(s) for s in o.eval.split(",") if s})
    stop = None
    if o.stop_if:
        at, cond = o.stop_if.split(":")
        key, thr = cond.split("<")
        stop = (int(at), key, float(thr))
    if o.out:
        os.makedirs(o.out, exist_ok=True)
    log = open(os.path.join(o.out, "log.jsonl"), "w") if o.out else None

    def emit(rec):
        line = json.dumps(rec, ensure_ascii=False)
        print(line, flush=True)
        if log:
            log.write(line + "\n")
            log.flush()

    # unigram baseline of the held-out text under the training text's frequencies (add-one)
    counts = torch.bincount(train, minlength=V).double() + 1
    unigram = -(torch.log2(counts / counts.sum())[heldout]).mean().item()
    # multiply-adds x 2 of one training step (backward counted as twice the forward), attention over
    # all T keys as the engine computes them before masking: to scale these times to another engine
    C, T = o.C, o.T
    fwd_per_token = sum(2 * (4 * C * C + (8 * C * C if l in mlp_layers else 0)) + 4 * T * C for l in range(o.layers)) + 2 * C * V
    flops = 3 * fwd_per_token * o.batch * T
    emit({"config": {k: v for k, v in vars(o).items()}, "params": params, "gflop_per_step": round(flops / 1e9, 3), "vocab": V, "train_chars": train.numel(),
          "heldout_chars": heldout.numel(), "unigram_bits": round(unigram, 4), "torch": torch.__version__,
          "threads": torch.get_num_threads()})
    seconds, losses = 0.0, []
    model.train()
    for step in range(1, o.steps + 1):
        t0 = time.perf_counter()
        for group in opt.param_groups:
            group["lr"] = lr_at(o, step - 1)
        x, y = make_batch(train, o.batch, o.T, g, o, step - 1, V, newline)
        logits, _ = model(x)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if o.clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), o.clip)
        opt.step()
        seconds += time.perf_counter() - t0
        losses.append(loss.item())
        if step in evals:
            r = evaluate(model, o, heldout, V, newline, chars)
            emit({"step": step, "seconds": round(seconds, 1), "ms_per_step": round(1000 * seconds / step, 1),
                  "train_bits": round(sum(losses[-50:]) / len(losses[-50:]) / math.log(2), 4), **{k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}})
            if stop and step >= stop[0] and r[stop[1]] < stop[2]:
                emit({"stopped": step, "because": o.stop_if})
                break
    final = {}
    if o.gen:
        prompt, text = generate(model, o, heldout, chars, o.gen)
        if o.jobs:
            share, n = verse_share(text)
            final.update({"verse_share": round(share, 4), "pieces": n, "unknown_share": round(text.count(unknown) / max(1, len(text)), 4) if unknown else 0})
        else:
            words = set(w.lower() for w in WORD.findall("".join(chars[i] for i in train.tolist())))
            share, n = english_share(text, words)
            final.update({"english_share": round(share, 4), "words": n})
        final["sample"] = text[:600]
        if o.out:
            with open(os.path.join(o.out, "sample.txt"), "w", encoding="utf-8") as f:
                f.write(prompt + "\n---\n" + text + "\n")
    # the checkpoint's size (parameters only) and what float16 storage costs
    flat = torch.cat([t.detach().reshape(-1) for t in model.parameters()])
    import gzip
    f16 = flat.half().numpy().tobytes()
    saved = [t.detach().clone() for t in model.parameters()]
    with torch.no_grad():
        for t in model.parameters():
            t.copy_(t.half().float())
    r16 = evaluate(model, o, heldout, V, newline, chars)
    with torch.no_grad():
        for t, s in zip(model.parameters(), saved):
            t.copy_(s)
    final.update({"params": params, "f32_bytes": 4 * params, "f32_gz": len(gzip.compress(flat.numpy().tobytes(), 9)),
                  "f16_bytes": 2 * params, "f16_gz": len(gzip.compress(f16, 9)), "f16_bits": round(r16["bits"], 4),
                  "f16_induction": r16["induction"], "f16_prev": r16["prev"]})
    emit({"final": final})
    if o.out:
        torch.save(model.state_dict(), os.path.join(o.out, "params.pt"))


if __name__ == "__main__":
    main()
