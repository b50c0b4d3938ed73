"""Generate the golden attention fixtures in tests/fixtures/ from PyTorch.

Each case becomes tests/fixtures/<name>.json: a complete engine config (sizes,
mask, inputs, weights in the engine's `Q = X·Wq + bq` layout) and the values the
engine must reproduce: q, scores (Q·Kᵀ before scaling and masking), the softmax
weights per head, and the output after the out projection.

Run from anywhere, offline, with Debian's python3-torch (1.13.1):

    /usr/bin/python3 scripts/make_fixtures.py

Multi-head cases (Hkv == H) take weights and output from torch.nn.MultiheadAttention
itself; q and scores are computed from the same parameters with plain torch ops and
the script asserts that softmax(scores / sqrt(D), masked) equals the module's weights.
Grouped/multi-query cases (Hkv < H), which torch 1.13's module cannot express, are
computed with plain torch ops (repeat_interleave on the K/V heads) and cross-checked
against the module run with K/V weights duplicated to H heads.

Every case also holds the backward pass (`dOutput` and `gradients`): for
L = Σ output ⊙ dOutput, with dOutput ~ U(-1, 1) from a generator of its own, the
gradient of every walkthrough step PyTorch can retain and of every parameter,
computed by autograd in float64 from the fixture's own float32 inputs and weights
(plain torch ops, retain_grad on each intermediate; see `gradients_by_autograd`).

At the end every written file is read back and recomputed from its own config, so
the files are known to round-trip. Output is deterministic: running twice gives
byte-identical files. The tests that use the fixtures must not need torch.
"""

import json
import math
import os
import sys

import torch
from torch import nn

TORCH_LABEL = "torch 1.13.1"  # Debian python3-torch 1.13.1+dfsg; torch.__version__ says "1.13.0a0"
FIXTURE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
TOLERANCE = 1e-6
BIAS_RANGE = 0.3  # biases ~ U(-0.3, 0.3): torch initialises them to zero, which would test nothing

CONFIG_KEYS = ["B", "T", "Tk", "C", "H", "Hkv", "bias", "mask", "keyLengths", "x", "kv", "weights"]


def case(name, description, seed, B, T, C, H, Hkv=None, Tk=None, bias=True, mask="none",
         keyLengths=None, cross=False):
    """One fixture case. Self-attention cases have Tk = T and no kv."""
    assert cross or Tk is None, "self-attention has Tk = T"
    return {
        "name": name, "description": description, "seed": seed,
        "B": B, "T": T, "Tk": Tk if cross else T, "C": C, "H": H, "Hkv": H if Hkv is None else Hkv,
        "bias": bias, "mask": mask, "keyLengths": keyLengths, "cross": cross,
    }


CASES = [
    case("classic", "The tutorial example: small self-attention with bias and no mask.",
         seed=101, B=2, T=4, C=8, H=2),
    case("self_unequal", "Self-attention with T, D and H all different, so swapped axes show up.",
         seed=102, B=2, T=5, C=12, H=3),
    case("causal", "Causal self-attention: query i attends only keys j <= i.",
         seed=103, B=2, T=5, C=12, H=3, mask="causal"),
    case("padding", "Key padding per batch item, including an item with a single valid key.",
         seed=104, B=3, T=6, C=12, H=2, keyLengths=[6, 4, 1]),
    case("causal_padding", "Causal mask combined with key padding.",
         seed=105, B=2, T=5, C=12, H=3, mask="causal", keyLengths=[5, 3]),
    case("cross", "Cross-attention: queries from x, keys and values from kv with Tk != T.",
         seed=106, B=2, T=3, Tk=7, C=12, H=3, cross=True),
    case("cross_padding", "Cross-attention with key padding on the kv sequence.",
         seed=107, B=2, T=3, Tk=6, C=8, H=2, cross=True, keyLengths=[6, 2]),
    case("no_bias", "Self-attention without any projection biases.",
         seed=108, B=2, T=5, C=12, H=3, bias=False),
    case("cross_no_bias", "Cross-attention without biases, one batch item, four heads.",
         seed=109, B=1, T=2, Tk=5, C=12, H=4, cross=True, bias=False),
    case("gqa", "Grouped-query attention (6 query heads share 2 key/value heads), causal, with bias.",
         seed=110, B=2, T=5, C=24, H=6, Hkv=2, mask="causal"),
    case("mqa", "Multi-query cross-attention (3 query heads share 1 key/value head) with key padding.",
         seed=111, B=2, T=4, Tk=6, C=12, H=3, Hkv=1, cross=True, keyLengths=[6, 3]),
    case("single", "Degenerate sizes: one token, head dimension D = 1.",
         seed=112, B=1, T=1, C=6, H=6),
    case("gqa_no_bias", "Grouped-query self-attention without biases and without mask.",
         seed=113, B=1, T=6, C=16, H=4, Hkv=2),
]


# ---------------------------------------------------------------------------
# inputs and parameters
# ---------------------------------------------------------------------------

def make_module(c):
    """A fresh nn.MultiheadAttention with torch's own init and non-zero biases (seeded)."""
    module = nn.MultiheadAttention(c["C"], c["H"], bias=c["bias"], batch_first=True)
    if c["bias"]:
        with torch.no_grad():
            module.in_proj_bias.uniform_(-BIAS_RANGE, BIAS_RANGE)
            module.out_proj.bias.uniform_(-BIAS_RANGE, BIAS_RANGE)
    # eval() for clarity; autograd stays on (the parameters require grad), which keeps
    # torch on its reference path F.multi_head_attention_forward, not the fused fast path.
    module.eval()
    return module


def params_from_module(c, module):
    """Engine-layout weights (Wq [C, H·D], Wk/Wv [C, Hkv·D], Wo [C, C]) from torch's y = x·Wᵀ + b.

    For Hkv < H the K/V weights are the first Hkv·D rows of torch's K/V blocks."""
    C, D, Hkv = c["C"], c["C"] // c["H"], c["Hkv"]
    w = module.in_proj_weight.detach()
    kv_rows = Hkv * D
    params = {
        "Wq": w[0:C].t().contiguous(),
        "Wk": w[C:C + kv_rows].t().contiguous(),
        "Wv": w[2 * C:2 * C + kv_rows].t().contiguous(),
        "Wo": module.out_proj.weight.detach().t().contiguous(),
    }
    if c["bias"]:
        b = module.in_proj_bias.detach()
        params["bq"] = b[0:C].clone()
        params["bk"] = b[C:C + kv_rows].clone()
        params["bv"] = b[2 * C:2 * C + kv_rows].clone()
        params["bo"] = module.out_proj.bias.detach().clone()
    return params


def make_inputs(c):
    """x [B,T,C] and, for cross-attention, kv [B,Tk,C], all ~ U(-1, 1)."""
    x = torch.rand(c["B"], c["T"], c["C"]) * 2 - 1
    kv = torch.rand(c["B"], c["Tk"], c["C"]) * 2 - 1 if c["cross"] else None
    return x, kv


# ---------------------------------------------------------------------------
# masks (True = masked)
# ---------------------------------------------------------------------------

def causal_mask(T, Tk):
    """torch attn_mask: query i may not attend key j > i."""
    return torch.triu(torch.ones(T, Tk, dtype=torch.bool), diagonal=1)


def padding_mask(key_lengths, Tk):
    """torch key_padding_mask [B, Tk]: keys at positions >= keyLengths[b] are masked."""
    return torch.arange(Tk)[None, :] >= torch.tensor(key_lengths)[:, None]


def combined_mask(c):
    """[B, 1, T, Tk] boolean mask combining causal and padding, or None."""
    B, T, Tk = c["B"], c["T"], c["Tk"]
    mask = torch.zeros(B, 1, T, Tk, dtype=torch.bool)
    if c["mask"] == "causal":
        mask |= causal_mask(T, Tk)[None, None]
    if c["keyLengths"] is not None:
        mask |= padding_mask(c["keyLengths"], Tk)[:, None, None, :]
    assert not mask.all(dim=-1).any(), f"{c['name']}: a query row has every key masked"
    return mask if mask.any() else None


# ---------------------------------------------------------------------------
# the walkthrough with plain torch ops: q, scores, weights, context, output
# ---------------------------------------------------------------------------

def project(x, W, b):
    return x @ W + b if b is not None else x @ W


def split_heads(t, heads):
    """[B, T, heads·D] -> [B, heads, T, D]."""
    B, T, width = t.shape
    return t.reshape(B, T, heads, width // heads).transpose(1, 2)


def compute_q(c, x, p):
    """Q = X·Wq + bq, shape [B, T, H·D]."""
    return project(x, p["Wq"], p.get("bq"))


def compute_kv_heads(c, source, p):
    """K and V heads [B, H, Tk, D]: project, split into Hkv heads, repeat each for its H/Hkv query heads."""
    group = c["H"] // c["Hkv"]
    k = split_heads(project(source, p["Wk"], p.get("bk")), c["Hkv"]).repeat_interleave(group, dim=1)
    v = split_heads(project(source, p["Wv"], p.get("bv")), c["Hkv"]).repeat_interleave(group, dim=1)
    return k, v


def compute_scores(c, q, k):
    """Q·Kᵀ per head [B, H, T, Tk], before the 1/sqrt(D) scale and before masking."""
    return split_heads(q, c["H"]) @ k.transpose(-2, -1)


def compute_weights(c, scores, mask):
    """softmax over keys of scores / sqrt(D), masked keys set to -inf first."""
    scaled = scores / math.sqrt(c["C"] // c["H"])
    if mask is not None:
        scaled = scaled.masked_fill(mask, float("-inf"))
    return torch.softmax(scaled, dim=-1)


def compute_context(c, weights, v):
    """weights·V per head, heads merged back: [B, T, H·D]."""
    B, H, T, _ = weights.shape
    return (weights @ v).transpose(1, 2).reshape(B, T, c["C"])


def compute_output(c, context, p):
    """context·Wo + bo, shape [B, T, C]."""
    return project(context, p["Wo"], p.get("bo"))


def walkthrough(c, x, kv, p):
    """All intermediate values with plain torch ops (general in Hkv)."""
    mask = combined_mask(c)
    q = compute_q(c, x, p)
    k, v = compute_kv_heads(c, kv if c["cross"] else x, p)
    scores = compute_scores(c, q, k)
    weights = compute_weights(c, scores, mask)
    context = compute_context(c, weights, v)
    output = compute_output(c, context, p)
    return {"q": q, "scores": scores, "weights": weights, "output": output}


# ---------------------------------------------------------------------------
# the reference module
# ---------------------------------------------------------------------------

def run_module(c, module, x, kv):
    """nn.MultiheadAttention forward: per-head weights [B,H,T,Tk] and output [B,T,C]."""
    attn_mask = causal_mask(c["T"], c["Tk"]) if c["mask"] == "causal" else None
    key_padding_mask = padding_mask(c["keyLengths"], c["Tk"]) if c["keyLengths"] is not None else None
    source = kv if c["cross"] else x
    output, weights = module(x, source, source, need_weights=True, average_attn_weights=False,
                             attn_mask=attn_mask, key_padding_mask=key_padding_mask)
    return weights.detach(), output.detach()


def module_with_repeated_kv(c, p):
    """An H-head nn.MultiheadAttention equivalent to the GQA parameters p (K/V heads duplicated)."""
    C, H, Hkv, D = c["C"], c["H"], c["Hkv"], c["C"] // c["H"]
    group = H // Hkv

    def repeat_columns(W):  # [C, Hkv·D] -> [C, H·D], head g copied to heads g·group .. g·group+group-1
        return W.reshape(C, Hkv, D).repeat_interleave(group, dim=1).reshape(C, H * D)

    def repeat_bias(b):
        return b.reshape(Hkv, D).repeat_interleave(group, dim=0).reshape(H * D)

    module = nn.MultiheadAttention(C, H, bias=c["bias"], batch_first=True).eval()
    with torch.no_grad():
        module.in_proj_weight.copy_(torch.cat([p["Wq"].t(), repeat_columns(p["Wk"]).t(),
                                               repeat_columns(p["Wv"]).t()]))
        module.out_proj.weight.copy_(p["Wo"].t())
        if c["bias"]:
            module.in_proj_bias.copy_(torch.cat([p["bq"], repeat_bias(p["bk"]), repeat_bias(p["bv"])]))
            module.out_proj.bias.copy_(p["bo"])
    return module


def max_diff(a, b):
    return (a.double() - b.double()).abs().max().item()


def check_close(label, a, b, tolerance=TOLERANCE):
    assert a.shape == b.shape, f"{label}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
    diff = max_diff(a, b)
    assert diff < tolerance, f"{label}: max abs diff {diff:.3g} >= {tolerance}"
    return diff


# ---------------------------------------------------------------------------
# building and writing one fixture
# ---------------------------------------------------------------------------

def compute_expected(c):
    """Seeded inputs, parameters and expected values for one case, with internal cross-checks."""
    torch.manual_seed(c["seed"])
    module = make_module(c)
    p = params_from_module(c, module)
    x, kv = make_inputs(c)
    plain = walkthrough(c, x, kv, p)
    name = c["name"]
    if c["Hkv"] == c["H"]:
        weights, output = run_module(c, module, x, kv)
        check_close(f"{name}: softmax(scores/sqrt(D), mask) vs module weights", plain["weights"], weights)
        check_close(f"{name}: plain-op output vs module output", plain["output"], output)
        expected = {"q": plain["q"], "scores": plain["scores"], "weights": weights, "output": output}
        source = f"torch.nn.MultiheadAttention ({TORCH_LABEL})"
    else:
        weights, output = run_module(c, module_with_repeated_kv(c, p), x, kv)
        check_close(f"{name}: GQA weights vs module with repeated K/V", plain["weights"], weights)
        check_close(f"{name}: GQA output vs module with repeated K/V", plain["output"], output)
        expected = plain
        source = f"torch ops with repeat_interleave ({TORCH_LABEL})"
    return x, kv, p, expected, source


def flat(t):
    """Row-major list of floats, each exactly the float32 value."""
    return t.detach().to(torch.float32).double().reshape(-1).tolist()


# ---------------------------------------------------------------------------
# the backward pass: autograd in float64, every intermediate's gradient retained
# ---------------------------------------------------------------------------

def gradients_by_autograd(c, x, kv, p, d_output):
    """{step id: gradient} for L = Σ output ⊙ dOutput, in float64, named as the engine's d_ steps.

    Each forward step is its own tensor with retain_grad(), built with the same view/transpose
    structure as the walkthrough, so its .grad is that step's gradient in its own shape."""
    B, T, Tk, C, H, Hkv = c["B"], c["T"], c["Tk"], c["C"], c["H"], c["Hkv"]
    D, group = C // H, c["H"] // c["Hkv"]
    leaf = lambda t: t.detach().double().clone().requires_grad_(True)
    X = leaf(x)
    S_src = leaf(kv) if c["cross"] else X
    P = {n: leaf(t) for n, t in p.items()}
    kept = {}

    def keep(name, t):
        t.retain_grad()
        kept[name] = t
        return t

    q = keep("q", project(X, P["Wq"], P.get("bq")))
    k = keep("k", project(S_src, P["Wk"], P.get("bk")))
    v = keep("v", project(S_src, P["Wv"], P.get("bv")))
    q_split = keep("q_split", q.view(B, T, H, D))
    k_split = keep("k_split", k.view(B, Tk, Hkv, D))
    v_split = keep("v_split", v.view(B, Tk, Hkv, D))
    q_heads = keep("q_heads", q_split.transpose(1, 2))
    k_heads = keep("k_heads", k_split.transpose(1, 2))
    v_heads = keep("v_heads", v_split.transpose(1, 2))
    if Hkv < H:
        k_used = keep("k_shared", k_heads.repeat_interleave(group, dim=1))
        v_used = keep("v_shared", v_heads.repeat_interleave(group, dim=1))
    else:
        k_used, v_used = k_heads, v_heads
    k_t = keep("k_t", k_used.transpose(-2, -1))
    scores = keep("scores", q_heads @ k_t)
    scaled = keep("scaled", scores / math.sqrt(D))
    mask = combined_mask(c)
    masked = keep("masked", scaled.masked_fill(mask, float("-inf")) if mask is not None else scaled * 1.0)
    weights = keep("weights", torch.softmax(masked, dim=-1))
    context = keep("context", weights @ v_used)
    context_t = keep("context_t", context.transpose(1, 2))
    concat = keep("concat", context_t.reshape(B, T, C))
    output = keep("output", project(concat, P["Wo"], P.get("bo")))
    (output * d_output.double()).sum().backward()

    grads = {"d_" + name: t.grad for name, t in kept.items()}
    if c["cross"]:
        grads["d_source"] = S_src.grad
    grads["d_x"] = X.grad
    for n in P:
        grads["d_" + n.lower()] = P[n].grad
    for name, g in grads.items():
        assert g is not None and torch.isfinite(g).all(), f"{c['name']}: no finite gradient for {name}"
    return grads


def make_d_output(c):
    """dOutput ~ U(-1, 1) [B, T, C] from a generator of its own, so the forward values stay as they were."""
    generator = torch.Generator().manual_seed(10_000 + c["seed"])
    return torch.rand(c["B"], c["T"], c["C"], generator=generator) * 2 - 1


def flat64(t):
    """Row-major list of the float64 values."""
    return t.detach().double().reshape(-1).tolist()


def fixture_json(c, x, kv, p, expected, source):
    config = {"B": c["B"], "T": c["T"], "Tk": c["Tk"], "C": c["C"], "H": c["H"], "Hkv": c["Hkv"],
              "bias": c["bias"], "mask": c["mask"]}
    if c["keyLengths"] is not None:
        config["keyLengths"] = list(c["keyLengths"])
    config["x"] = flat(x)
    if c["cross"]:
        config["kv"] = flat(kv)
    names = ["Wq", "Wk", "Wv", "Wo"] + (["bq", "bk", "bv", "bo"] if c["bias"] else [])
    config["weights"] = {n: flat(p[n]) for n in names}
    d_output = make_d_output(c)
    gradients = gradients_by_autograd(c, x, kv, p, d_output)
    return {
        "name": c["name"],
        "description": c["description"],
        "source": source,
        "config": config,
        "expected": {key: {"shape": list(expected[key].shape), "data": flat(expected[key])}
                     for key in ["q", "scores", "weights", "output"]},
        "dOutput": flat(d_output),
        "gradientSource": f"torch.autograd in float64 ({TORCH_LABEL})",
        "gradients": {name: {"shape": list(g.shape), "data": flat64(g)} for name, g in gradients.items()},
    }


def fixture_path(name):
    return os.path.normpath(os.path.join(FIXTURE_DIR, name + ".json"))


def write_fixture(c):
    document = fixture_json(c, *compute_expected(c))
    path = fixture_path(c["name"])
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=None, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    return path


# ---------------------------------------------------------------------------
# independent check: read each file back and recompute from its own config
# ---------------------------------------------------------------------------

def tensor_exact(values, shape, label):
    """float32 tensor from JSON numbers, asserting each number is exactly a float32."""
    t = torch.tensor(values, dtype=torch.float32)
    assert t.double().tolist() == values, f"{label}: values are not exact float32"
    return t.reshape(shape)


def verify_fixture(c):
    with open(fixture_path(c["name"]), encoding="utf-8") as f:
        document = json.load(f)
    config = document["config"]
    name = document["name"]
    assert name == c["name"]
    assert all(key in CONFIG_KEYS for key in config), f"{name}: unexpected config keys"
    B, T, Tk, C, H, Hkv = (config[k] for k in ["B", "T", "Tk", "C", "H", "Hkv"])
    D = C // H
    assert C == H * D and H % Hkv == 0 and config["mask"] in ("none", "causal")
    cross = "kv" in config
    assert cross or Tk == T
    rebuilt = {"B": B, "T": T, "Tk": Tk, "C": C, "H": H, "Hkv": Hkv, "bias": config["bias"],
               "mask": config["mask"], "keyLengths": config.get("keyLengths"), "cross": cross, "name": name}
    x = tensor_exact(config["x"], (B, T, C), f"{name}.x")
    kv = tensor_exact(config["kv"], (B, Tk, C), f"{name}.kv") if cross else None
    shapes = {"Wq": (C, H * D), "Wk": (C, Hkv * D), "Wv": (C, Hkv * D), "Wo": (C, C),
              "bq": (H * D,), "bk": (Hkv * D,), "bv": (Hkv * D,), "bo": (C,)}
    names = ["Wq", "Wk", "Wv", "Wo"] + (["bq", "bk", "bv", "bo"] if config["bias"] else [])
    assert list(config["weights"]) == names, f"{name}: weight keys {list(config['weights'])}"
    p = {n: tensor_exact(config["weights"][n], shapes[n], f"{name}.{n}") for n in names}
    recomputed = walkthrough(rebuilt, x, kv, p)
    d_output = tensor_exact(document["dOutput"], (B, T, C), f"{name}.dOutput")
    for grad_name, g in gradients_by_autograd(rebuilt, x, kv, p, d_output).items():
        entry = document["gradients"][grad_name]
        assert entry["shape"] == list(g.shape), f"{name}: {grad_name} shape"
        assert flat64(g) == entry["data"], f"{name}: reloaded {grad_name} differs"
    diffs = {}
    for key in ["q", "scores", "weights", "output"]:
        entry = document["expected"][key]
        expected = tensor_exact(entry["data"], entry["shape"], f"{name}.expected.{key}")
        diffs[key] = check_close(f"{name}: reloaded {key}", recomputed[key], expected)
    return document, diffs


# ---------------------------------------------------------------------------
# nn.MultiheadAttention's other options: tests/fixtures/options/<name>.json
# ---------------------------------------------------------------------------
# Each file holds the module's constructor arguments and state dict as PyTorch writes them
# (what engine.fromTorch reads), the call's inputs and masks, the engine config that says the
# same (weights in the engine's layout, transposed here from the state dict), and what the module
# returned: output and per-head weights. No backward: these options have none in the engine yet.

OPTION_DIR = os.path.join(FIXTURE_DIR, "options")


def option_case(name, description, seed, B, T, C, H, Tk=None, bias=True, add_bias_kv=False,
                mask="none", keyLengths=None, attn=None, padding=None, add_zero_attn=False):
    """attn: (form, shape) of an attnMask, form "masked" | "attend" | "add" | "alibi"; padding:
    "holes" for a keyPaddingMask with holes and left padding."""
    return {"name": name, "description": description, "seed": seed, "B": B, "T": T,
            "Tk": T if Tk is None else Tk, "cross": Tk is not None, "C": C, "H": H, "bias": bias,
            "add_bias_kv": add_bias_kv, "mask": mask, "keyLengths": keyLengths, "attn": attn,
            "padding": padding, "add_zero_attn": add_zero_attn}


OPTION_CASES = [
    option_case("bias_kv", "add_bias_kv=True: a learned key and value appended to every batch row.",
                seed=201, B=2, T=4, C=8, H=2, add_bias_kv=True),
    option_case("bias_kv_causal_padding", "add_bias_kv=True under a causal mask and key padding, one row "
                "with no source key left (it sees only the learned key).",
                seed=202, B=3, T=5, C=12, H=3, add_bias_kv=True, mask="causal", keyLengths=[5, 2, 0]),
    option_case("bias_kv_cross_no_bias", "add_bias_kv=True in cross-attention without projection biases.",
                seed=203, B=2, T=3, Tk=6, C=12, H=4, bias=False, add_bias_kv=True),
    option_case("mask_bool_2d", "A boolean attn_mask [Tq, Tk] (True = masked), random.",
                seed=211, B=2, T=5, C=8, H=2, attn=("masked", "TqTk")),
    option_case("mask_float_2d", "An additive float attn_mask [Tq, Tk] with -inf entries, combined with causal.",
                seed=212, B=2, T=5, C=12, H=3, mask="causal", attn=("add", "TqTk")),
    option_case("mask_per_head_3d", "nn.MultiheadAttention's per-head float attn_mask [B*H, Tq, Tk], cross-attention.",
                seed=213, B=2, T=4, Tk=6, C=12, H=3, attn=("add", "BHTqTk")),
    option_case("padding_holes", "A key_padding_mask [B, Tk] with holes and left padding, with keyLengths too.",
                seed=214, B=3, T=6, C=8, H=2, keyLengths=[6, 5, 6], padding="holes"),
    option_case("mask_bool_3d_padding", "A boolean [B*H, Tq, Tk] attn_mask and a key_padding_mask together.",
                seed=215, B=2, T=5, C=8, H=4, attn=("masked", "BHTqTk"), padding="holes"),
    option_case("sdpa_attend_4d", "scaled_dot_product_attention's convention: a boolean [B, 1, Tq, Tk] mask, True = attend.",
                seed=216, B=2, T=5, C=8, H=2, attn=("attend", "B1TqTk")),
    option_case("alibi", "An ALiBi bias [1, H, Tq, Tk] (slope times distance) added to the scores, causal.",
                seed=217, B=1, T=6, C=16, H=4, mask="causal", attn=("alibi", "1HTqTk")),
    option_case("zero_attn", "add_zero_attn=True: a key and value of zeros appended, causal, one row with no source key.",
                seed=219, B=2, T=4, C=8, H=2, add_zero_attn=True, mask="causal", keyLengths=[4, 0]),
    option_case("bias_kv_zero_attn_masks", "add_bias_kv and add_zero_attn together (bias_k, then zeros), with both masks.",
                seed=220, B=2, T=5, Tk=4, C=12, H=3, add_bias_kv=True, add_zero_attn=True, attn=("masked", "BHTqTk"), padding="holes"),
    option_case("bias_kv_masks", "add_bias_kv=True with a float attn_mask and a key_padding_mask: PyTorch pads both with a zero column.",
                seed=218, B=2, T=4, C=8, H=2, add_bias_kv=True, attn=("add", "TqTk"), padding="holes"),
]


def mask_shape(code, c):
    B, H, T, Tk = c["B"], c["H"], c["T"], c["Tk"]
    return {"TqTk": [T, Tk], "BHTqTk": [B * H, T, Tk], "B1TqTk": [B, 1, T, Tk], "1HTqTk": [1, H, T, Tk]}[code]


def make_masks(c):
    """The case's attnMask and keyPaddingMask as the engine takes them ({shape, form: values}),
    and hidden [B, H, T, Tk] (True = masked) and added [B, H, T, Tk] (floats, -inf where hidden)
    as PyTorch broadcasts them, from a generator of their own. Every query keeps a visible key."""
    B, H, T, Tk = c["B"], c["H"], c["T"], c["Tk"]
    g = torch.Generator().manual_seed(5_000 + c["seed"])
    hidden = torch.zeros(B, H, T, Tk, dtype=torch.bool)
    if c["mask"] == "causal":
        hidden |= causal_mask(T, Tk)
    if c["keyLengths"] is not None:
        hidden |= padding_mask(c["keyLengths"], Tk)[:, None, None, :]
    added = torch.zeros(B, H, T, Tk)
    engine = {}
    if c["padding"] == "holes":
        holes = torch.rand(B, Tk, generator=g) < 0.3
        holes[0, 0:2] = True  # left padding
        holes[:, -1] = False  # every row keeps its last key
        if c["keyLengths"] is not None:
            for b, n in enumerate(c["keyLengths"]):
                holes[b, n - 1] = False
        hidden |= holes[:, None, None, :]
        engine["keyPaddingMask"] = {"masked": [bool(v) for v in holes.reshape(-1).tolist()]}
        c["torch_padding"] = holes
    if c["attn"] is not None:
        form, code = c["attn"]
        shape = mask_shape(code, c)
        if form == "alibi":
            slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / H) for h in range(H)])
            distance = (torch.arange(Tk)[None, :] - torch.arange(T)[:, None]).float()
            values = (slopes[:, None, None] * distance[None]).reshape(shape)
            form = "add"
        elif form == "add":
            values = torch.randn(*shape, generator=g)
            values = values.masked_fill(torch.rand(*shape, generator=g) < 0.25, float("-inf"))
        else:
            values = torch.rand(*shape, generator=g) < 0.3
        # The last key stays visible to every query (a row with none would be NaN in PyTorch).
        if form == "add":
            values[..., -1] = values[..., -1].clamp(min=-3.0).nan_to_num(neginf=0.0)
        elif form in ("masked", "attend"):
            values[..., -1] = form == "attend"
        full = values.reshape(B, H, T, Tk) if code == "BHTqTk" else values.expand(B, H, T, Tk) if code != "TqTk" else values.expand(B, H, T, Tk)
        if form == "add":
            added = added + full
        elif form == "masked":
            hidden |= full
        else:  # attend
            hidden |= ~full
        flat_values = values.reshape(-1).tolist()
        if form == "add":
            flat_values = ["-Infinity" if v == float("-inf") else float(torch.tensor(v, dtype=torch.float32)) for v in flat_values]
        else:
            flat_values = [bool(v) for v in flat_values]
        engine["attnMask"] = {"shape": shape, form: flat_values}
        c["torch_attn"] = (form, code, values)
    # Every query keeps a key it may see (PyTorch would give NaN; the engine zeros and a warning).
    if c["add_bias_kv"] or c["add_zero_attn"]:
        return engine, hidden, added
    row_has_key = (~hidden & (added > float("-inf"))).any(dim=-1)
    assert row_has_key.all(), f"{c['name']}: a query row has every key masked"
    return engine, hidden, added


def option_module(c):
    module = nn.MultiheadAttention(c["C"], c["H"], bias=c["bias"], add_bias_kv=c["add_bias_kv"],
                                   add_zero_attn=c["add_zero_attn"], batch_first=True)
    with torch.no_grad():
        if c["bias"]:
            module.in_proj_bias.uniform_(-BIAS_RANGE, BIAS_RANGE)
            module.out_proj.bias.uniform_(-BIAS_RANGE, BIAS_RANGE)
    return module.eval()


def engine_weights(c, state):
    """The engine's layout, Q = X·Wq + bq, from nn.MultiheadAttention's state dict."""
    C = c["C"]
    w = state["in_proj_weight"]
    weights = {"Wq": w[0:C].t(), "Wk": w[C:2 * C].t(), "Wv": w[2 * C:3 * C].t(), "Wo": state["out_proj.weight"].t()}
    if c["bias"]:
        b = state["in_proj_bias"]
        weights.update({"bq": b[0:C], "bk": b[C:2 * C], "bv": b[2 * C:3 * C], "bo": state["out_proj.bias"]})
    if c["add_bias_kv"]:
        weights.update({"bias_k": state["bias_k"].reshape(C), "bias_v": state["bias_v"].reshape(C)})
    return weights


def torch_masks(c):
    """attn_mask and key_padding_mask as nn.MultiheadAttention takes them: the engine's causal mask
    and keyLengths folded in (it has no such options), booleans True = masked, floats added.
    attn_mask is None for a 4D mask, which the module does not take."""
    T, Tk = c["T"], c["Tk"]
    label = f"torch.nn.MultiheadAttention ({TORCH_LABEL})"
    padding = padding_mask(c["keyLengths"], Tk) if c["keyLengths"] is not None else None
    if "torch_padding" in c:
        padding = c["torch_padding"] if padding is None else padding | c["torch_padding"]
    causal = causal_mask(T, Tk) if c["mask"] == "causal" else None
    if c["attn"] is None:
        return causal, padding, label
    form, code, values = c["torch_attn"]
    if code not in ("TqTk", "BHTqTk"):
        return None, padding, label
    if form == "add":
        mask = values if causal is None else values.masked_fill(causal, float("-inf"))
    else:
        mask = values if form == "masked" else ~values
        mask = mask if causal is None else mask | causal
    return mask, padding, label


def plain_attention(c, state, x, source, hidden, added):
    """softmax(Q·Kᵀ/√D + added, hidden keys -inf)·V with the module's projections (no bias_kv)."""
    B, T, Tk, C, H = c["B"], c["T"], c["Tk"], c["C"], c["H"]
    D = C // H
    w = state["in_proj_weight"]
    b = state.get("in_proj_bias", torch.zeros(3 * C))
    q, k, v = x @ w[:C].t() + b[:C], source @ w[C:2 * C].t() + b[C:2 * C], source @ w[2 * C:].t() + b[2 * C:]
    heads = lambda m: m.reshape(B, -1, H, D).transpose(1, 2)
    scores = (heads(q) @ heads(k).transpose(-2, -1) / math.sqrt(D) + added).masked_fill(hidden, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    context = (weights @ heads(v)).transpose(1, 2).reshape(B, T, C)
    out_b = state.get("out_proj.bias", torch.zeros(C))
    return {"weights": weights, "output": context @ state["out_proj.weight"].t() + out_b}


def mask_gradients(c, config, hidden, added, d_output):
    """For a masked case without add_bias_kv: the gradient of L = Σ output ⊙ dOutput with respect to
    x (and kv) and every engine-layout weight, by autograd in float64 from the fixture's own values."""
    B, T, Tk, C, H = c["B"], c["T"], c["Tk"], c["C"], c["H"]
    D = C // H
    leaf = lambda values, shape: torch.tensor(values, dtype=torch.float64).reshape(shape).requires_grad_(True)
    X = leaf(config["x"], (B, T, C))
    S = leaf(config["kv"], (B, Tk, C)) if c["cross"] else X
    shapes = {"Wq": (C, C), "Wk": (C, C), "Wv": (C, C), "Wo": (C, C), "bq": (C,), "bk": (C,), "bv": (C,), "bo": (C,)}
    P = {n: leaf(v, shapes[n]) for n, v in config["weights"].items()}
    bias = lambda n: P[n] if n in P else 0.0
    heads = lambda m: m.reshape(B, -1, H, D).transpose(1, 2)
    q, k, v = X @ P["Wq"] + bias("bq"), S @ P["Wk"] + bias("bk"), S @ P["Wv"] + bias("bv")
    scores = (heads(q) @ heads(k).transpose(-2, -1) / math.sqrt(D) + added.double()).masked_fill(hidden, float("-inf"))
    context = (torch.softmax(scores, dim=-1) @ heads(v)).transpose(1, 2).reshape(B, T, C)
    output = context @ P["Wo"] + bias("bo")
    (output * d_output.double()).sum().backward()
    grads = {"x": X.grad}
    if c["cross"]:
        grads["kv"] = S.grad
    grads.update({n: t.grad for n, t in P.items()})
    return {n: {"shape": list(g.shape), "data": flat64(g)} for n, g in grads.items()}


def write_option_fixture(c):
    torch.manual_seed(c["seed"])
    module = option_module(c)
    x = torch.rand(c["B"], c["T"], c["C"]) * 2 - 1
    source = torch.rand(c["B"], c["Tk"], c["C"]) * 2 - 1 if c["cross"] else x
    masks, hidden, added = make_masks(c)
    attn_mask, key_padding_mask, source_label = torch_masks(c)
    with torch.no_grad():
        if attn_mask is not None or c["attn"] is None or c["attn"][1] in ("TqTk", "BHTqTk"):
            output, weights = module(x, source, source, need_weights=True, average_attn_weights=False,
                                     attn_mask=attn_mask, key_padding_mask=key_padding_mask)
            _, averaged = module(x, source, source, need_weights=True, average_attn_weights=True,
                                 attn_mask=attn_mask, key_padding_mask=key_padding_mask)
        else:  # a 4D mask, which nn.MultiheadAttention does not take: the same computation in torch ops
            reference = plain_attention(c, {k: v.detach() for k, v in module.state_dict().items()}, x, source, hidden, added)
            output, weights = reference["output"], reference["weights"]
            averaged = weights.mean(dim=1)
            source_label = f"torch ops ({TORCH_LABEL}): softmax(QKᵀ/√D + mask)·V, nn.MultiheadAttention's projections"
    state = {k: v.detach() for k, v in module.state_dict().items()}
    config = {"B": c["B"], "T": c["T"], "Tk": c["Tk"], "C": c["C"], "H": c["H"], "bias": c["bias"],
              "mask": c["mask"]}
    if c["add_bias_kv"]:
        config["addBiasKv"] = True
    if c["add_zero_attn"]:
        config["addZeroAttn"] = True
    if c["keyLengths"] is not None:
        config["keyLengths"] = list(c["keyLengths"])
    config.update(masks)
    config["x"] = flat(x)
    if c["cross"]:
        config["kv"] = flat(source)
    config["weights"] = {n: flat(t) for n, t in engine_weights(c, state).items()}
    gradients = None
    if not c["add_bias_kv"] and not c["add_zero_attn"] and (c["attn"] is not None or c["padding"] is not None):
        d_output = make_d_output(c)
        gradients = {"dOutput": flat(d_output), "source": f"torch.autograd in float64 ({TORCH_LABEL})",
                     "gradients": mask_gradients(c, config, hidden, added, d_output)}
    constructor = {"embed_dim": c["C"], "num_heads": c["H"], "bias": c["bias"],
                   "add_bias_kv": c["add_bias_kv"], "add_zero_attn": c["add_zero_attn"], "batch_first": True}
    document = {
        "name": c["name"],
        "description": c["description"],
        "source": source_label,
        "torch": {"constructor": constructor,
                  "state_dict": {k: {"shape": list(v.shape), "data": flat(v)} for k, v in state.items()}},
        "config": config,
        "expected": {"weights": {"shape": list(weights.shape), "data": flat(weights)},
                     "averaged": {"shape": list(averaged.shape), "data": flat(averaged)},
                     "output": {"shape": list(output.shape), "data": flat(output)}},
    }
    if gradients is not None:
        document["backward"] = gradients
    os.makedirs(OPTION_DIR, exist_ok=True)
    path = os.path.join(OPTION_DIR, c["name"] + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=None, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    return path, document


def option_reference(document):
    """An independent plain-op recomputation of an option fixture from its state dict, masks
    rebuilt from the config: catches a file whose config and module disagree."""
    cfg, state = document["config"], document["torch"]["state_dict"]
    B, T, Tk, C, H = cfg["B"], cfg["T"], cfg["Tk"], cfg["C"], cfg["H"]
    D = C // H
    t = lambda name: torch.tensor(state[name]["data"]).reshape(state[name]["shape"])
    x = torch.tensor(cfg["x"]).reshape(B, T, C)
    src = torch.tensor(cfg["kv"]).reshape(B, Tk, C) if "kv" in cfg else x
    w = t("in_proj_weight")
    b = t("in_proj_bias") if "in_proj_bias" in state else torch.zeros(3 * C)
    q, k, v = x @ w[:C].t() + b[:C], src @ w[C:2 * C].t() + b[C:2 * C], src @ w[2 * C:].t() + b[2 * C:]
    mask = torch.zeros(B, H, T, Tk, dtype=torch.bool)
    added = torch.zeros(B, H, T, Tk)
    if cfg["mask"] == "causal":
        mask |= causal_mask(T, Tk)
    if "keyLengths" in cfg:
        mask |= padding_mask(cfg["keyLengths"], Tk)[:, None, None, :]
    if "keyPaddingMask" in cfg:
        mask |= torch.tensor(cfg["keyPaddingMask"]["masked"]).reshape(B, 1, 1, Tk)
    if "attnMask" in cfg:
        m = cfg["attnMask"]
        shape = m["shape"]
        form = next(f for f in ("masked", "attend", "add") if f in m)
        raw = [float("-inf") if v == "-Infinity" else float(v) for v in m[form]]
        values = torch.tensor(raw).reshape(shape)
        # The engine's rule: [B*H, Tq, Tk] per head (B > 1), else right-aligned broadcasting.
        full = values.reshape(B, H, T, Tk) if len(shape) == 3 and shape[0] == B * H and B > 1 else values.expand(B, H, T, Tk)
        if form == "add":
            added = added + full
        else:
            mask |= (full != 0) if form == "masked" else (full == 0)
    if cfg.get("addBiasKv"):
        k = torch.cat([k, t("bias_k").reshape(1, 1, C).expand(B, 1, C)], dim=1)
        v = torch.cat([v, t("bias_v").reshape(1, 1, C).expand(B, 1, C)], dim=1)
        mask = torch.cat([mask, torch.zeros(B, H, T, 1, dtype=torch.bool)], dim=3)
        added = torch.cat([added, torch.zeros(B, H, T, 1)], dim=3)
    if cfg.get("addZeroAttn"):
        k = torch.cat([k, torch.zeros(B, 1, C)], dim=1)
        v = torch.cat([v, torch.zeros(B, 1, C)], dim=1)
        mask = torch.cat([mask, torch.zeros(B, H, T, 1, dtype=torch.bool)], dim=3)
        added = torch.cat([added, torch.zeros(B, H, T, 1)], dim=3)
    heads = lambda m: m.reshape(B, -1, H, D).transpose(1, 2)
    scores = (heads(q) @ heads(k).transpose(-2, -1) / math.sqrt(D) + added).masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    context = (weights @ heads(v)).transpose(1, 2).reshape(B, T, C)
    out_b = t("out_proj.bias") if "out_proj.bias" in state else torch.zeros(C)
    return {"weights": weights, "output": context @ t("out_proj.weight").t() + out_b}


def verify_option_fixture(document):
    diffs = {}
    for key, value in option_reference(document).items():
        entry = document["expected"][key]
        diffs[key] = check_close(f"{document['name']}: {key}", value,
                                 tensor_exact(entry["data"], entry["shape"], key))
    return diffs


def describe(document):
    cfg = document["config"]
    shapes = " ".join(f"{k}{v['shape']}" for k, v in document["expected"].items())
    extra = (f" mask={cfg['mask']}" + (f" keyLengths={cfg['keyLengths']}" if "keyLengths" in cfg else "")
             + (" cross" if "kv" in cfg else "") + ("" if cfg["bias"] else " no-bias"))
    return (f"B={cfg['B']} T={cfg['T']} Tk={cfg['Tk']} C={cfg['C']} H={cfg['H']} Hkv={cfg['Hkv']}"
            f"{extra} | {shapes}")


def main():
    torch.set_num_threads(1)  # one thread: same reduction order every run
    os.makedirs(FIXTURE_DIR, exist_ok=True)
    for c in CASES:
        write_fixture(c)
    for c in CASES:
        document, diffs = verify_fixture(c)
        size = os.path.getsize(fixture_path(c["name"]))
        worst = max(diffs.values())
        print(f"{c['name']:15s} {size:6d} B  max diff {worst:.2e}  {describe(document)}")
    print(f"{len(CASES)} fixtures written to {os.path.normpath(FIXTURE_DIR)} and verified.")
    for c in OPTION_CASES:
        path, document = write_option_fixture(c)
        worst = max(verify_option_fixture(document).values())
        print(f"options/{c['name']:24s} {os.path.getsize(path):6d} B  max diff vs plain ops {worst:.2e}")
    print(f"{len(OPTION_CASES)} option fixtures written to {os.path.normpath(OPTION_DIR)} and verified.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
