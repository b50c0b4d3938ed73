"""The training-step benchmark's PyTorch side (npm run bench, scripts/bench/bench.js).

The same model, task, batch and optimiser as the engine's trainer (cpp/src/model/), in PyTorch on
one CPU thread: token + learned position embeddings, L blocks of pre-LayerNorm -> multi-head
self-attention -> residual (-> pre-LayerNorm -> ReLU MLP 4C -> residual), final LayerNorm,
unembedding, cross-entropy on the scored positions; AdamW(betas 0.9/0.999, eps 1e-8, weight decay
on every parameter), clip_grad_norm_(clip), dropout on the attention weights in training.
Batches follow the same task definitions (cpp/src/model/tasks.cpp) from torch's own generator.

    /usr/bin/python3 scripts/bench/train_torch.py '{"task": "induction", "T": 24, ...}'

reads commands from stdin, one a line, and answers each with one JSON line:
    round <steps>    trains that many steps -> {"seconds"}
    reach99 <check> <limit>   a fresh model from the seed, trained until the accuracy on 512 fresh
                     sequences (checked every <check> steps) is >= 0.99 -> {"steps", "seconds",
                     "reached"}; seconds exclude the checks
    quit
so that bench.js can interleave PyTorch's rounds with the other engines' in one run.
"""

import json
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.set_num_interop_threads(1)


def make_batch(task, B, T, V, g):
    if task == "reverse":
        x = torch.randint(0, V, (B, T), generator=g)
        return x, x.flip(1)
    if task == "previous":
        x = torch.randint(0, V, (B, T), generator=g)
        y = torch.full_like(x, -1)
        y[:, 1:] = x[:, :-1]
        return x, y
    if task == "text":
        # the language model's step: the next character of a window (the characters' values do
        # not change the work; the engine draws its windows from the corpus)
        row = torch.randint(0, V, (B, T + 1), generator=g)
        return row[:, :-1], row[:, 1:]
    if task == "sort":
        x = torch.argsort(torch.rand(B, V, generator=g), dim=1)[:, :T]
        return x, x.sort(1).values
    # induction: n distinct tokens, then the last m again (m in 3 ... T/2); scored on the repeat
    # (vectorised over the batch: a Python loop per row would be most of PyTorch's step)
    m = torch.randint(3, T // 2 + 1, (B, 1), generator=g)
    n = T - m
    first = torch.argsort(torch.rand(B, V, generator=g), dim=1)[:, :T]
    j = torch.arange(T)[None, :]
    x = first.gather(1, torch.where(j < n, j, j - m))
    y = torch.full((B, T), -1, dtype=torch.long)
    scored = (j >= n) & (j < T - 1)
    y[scored] = torch.roll(x, -1, 1)[scored]
    return x, y


class Block(nn.Module):
    def __init__(self, C, H, mlp, ln, dropout, causal):
        super().__init__()
        self.H, self.mlp, self.ln, self.dropout, self.causal = H, mlp, ln, dropout, causal
        self.ln1 = nn.LayerNorm(C) if ln else nn.Identity()
        self.q, self.k, self.v, self.o = (nn.Linear(C, C) for _ in range(4))
        if mlp:
            self.ln2 = nn.LayerNorm(C) if ln else nn.Identity()
            self.f1, self.f2 = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

    def forward(self, x):
        B, T, C = x.shape
        H, D = self.H, C // self.H
        h = self.ln1(x)
        q = self.q(h).view(B, T, H, D).transpose(1, 2)
        k = self.k(h).view(B, T, H, D).transpose(1, 2)
        v = self.v(h).view(B, T, H, D).transpose(1, 2)
        s = q @ k.transpose(-2, -1) / math.sqrt(D)
        if self.causal:
            s = s.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
        a = F.dropout(s.softmax(-1), self.dropout, self.training)
        x = x + self.o((a @ v).transpose(1, 2).reshape(B, T, C))
        if self.mlp:
            x = x + self.f2(F.relu(self.f1(self.ln2(x))))
        return x


class Model(nn.Module):
    def __init__(self, o):
        super().__init__()
        C = o["width"]
        self.tok = nn.Embedding(o["vocab"], C)
        self.pos = nn.Embedding(o["T"], C)
        self.blocks = nn.ModuleList(Block(C, o["heads"], o["mlp"], o["layernorm"], o["dropout"], o["causal"]) for _ in range(o["layers"]))
        self.lnf = nn.LayerNorm(C) if o["layernorm"] else nn.Identity()
        self.unembed = nn.Linear(C, o["vocab"])

    def forward(self, x):
        h = self.tok(x) + self.pos(torch.arange(x.shape[1]))
        for block in self.blocks:
            h = block(h)
        return self.unembed(self.lnf(h))


def main():
    o = json.loads(sys.argv[1])
    V = o["vocab"]
    state = {}

    def fresh():
        torch.manual_seed(o["seed"])
        state["g"] = torch.Generator().manual_seed(o["seed"])
        state["model"] = Model(o)
        state["opt"] = torch.optim.AdamW(state["model"].parameters(), lr=o["lr"], weight_decay=o["weightDecay"],
                                         betas=(0.9, 0.999), eps=1e-8)
        state["model"].train()

    def step():
        model, opt = state["model"], state["opt"]
        x, y = make_batch(o["task"], o["batch"], o["T"], V, state["g"])
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1), ignore_index=-1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if o["clip"] > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), o["clip"])
        opt.step()

    def accuracy():
        model = state["model"]
        model.eval()
        with torch.no_grad():
            x, y = make_batch(o["task"], 512, o["T"], V, torch.Generator().manual_seed(12345))
            right = ((model(x).argmax(-1) == y) & (y >= 0)).sum().item()
        model.train()
        return right / (y >= 0).sum().item()

    fresh()
    for _ in range(5):  # warm-up
        step()
    print(json.dumps({"ready": True, "torch": torch.__version__, "threads": torch.get_num_threads()}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        if words[0] == "round":
            start = time.perf_counter()
            for _ in range(int(words[1])):
                step()
            print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)
        elif words[0] == "reach99":
            check, limit = int(words[1]), int(words[2])
            fresh()
            done, seconds, reached = 0, 0.0, False
            while done < limit and not reached:
                start = time.perf_counter()
                for _ in range(check):
                    step()
                seconds += time.perf_counter() - start
                done += check
                reached = accuracy() >= 0.99
            print(json.dumps({"steps": done, "seconds": seconds, "reached": reached}), flush=True)


if __name__ == "__main__":
    main()
