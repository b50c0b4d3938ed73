#!/usr/bin/env python3
"""Records what your own PyTorch attention module computes, for `mha-lens check` to compare
with the engine's steps, line by line. Needs only Python 3 and PyTorch; your code is not edited.

    python3 mha_lens_trace.py my_attention.py:MultiHeadAttention --init '{"d_model": 8, "n_head": 2}' \\
        --B 2 --T 4 --C 8 --H 2 --mask causal --out trace.json
    npx mha-lens check trace.json

It loads the class from the file, builds it with --init's keyword arguments (without --init, the
constructor's parameters named like d_model / embed_dim and n_head / num_heads get C and H), sets
its projections to seeded weights (--weights seeded, the default; or keeps the module's own,
--weights module, made after torch.manual_seed(--seed)), calls forward in eval mode (dropout
off) on a seeded x [B, T, C] (and the mask, if any), and records every tensor each line of
forward assigns to a local variable — and every line of the functions it calls in the same file
— with the variable's name, the line and its source text. A tensor counts as assigned when a
name is bound to a new tensor or the tensor under it changed in place (masked_fill_).

Projections are found among the module's nn.Linear layers: four Linear(C, C) named like w_q,
q_proj, query, … (k, v, and o / out / proj for the output), or in the order they were made; or
one fused Linear(C, 3C) (q, k, v in that order) and a Linear(C, C). A module without an output
projection is traced as it is (its trace says so).

The mask: --mask causal and/or --key-lengths 4,3 (padding: batch row b sees keys 0 … n_b − 1).
--mask-form says how your forward reads it: keep (float, 1 where a query may look: the
tutorial's masked_fill(mask == 0, -inf), the default), keep-bool, block (bool, True where it may
not: nn.MultiheadAttention's attn_mask) or additive (float, 0 or -inf, added to the scores).
--mask-shape, e.g. 1,1,T,T (the default), T,T, B,1,T,T, B,T,T or B,1,1,T (padding only).
The tensor inputs are the forward's parameters without a default (x, or query, key, value: all
get x); the mask goes to the parameter named mask / attn_mask / attention_mask (--mask-arg; a
module that makes its own causal mask: --mask causal --mask-arg none).

The file ("mha-lens/trace", version 1; `mha-lens check` refuses anything else, naming the field):
    {
      "format": "mha-lens/trace", "version": 1,
      "generator": { "script", "argv", "python", "torch" },
      "module": { "path", "class", "args", "kwargs" },
      "config": { "B", "T", "C", "H", "mask": "none" | "causal", "keyLengths": [..] | null,
                  "bias", "seed" },
      "call": { "inputs": [parameter names given x], "mask": { "argument", "form", "shape" } | null,
                "ownMask": true when the module made its own mask },
      "inputs": { "x": tensor, "mask": tensor | null },
      "weights": { "source": "seeded" | "module", "Wq", "Wk", "Wv", "Wo": tensor [C, C],
                   "bq", "bk", "bv", "bo": tensor [C] (absent without bias),
                   "from": { "Wq": "w_q.weight.T", ..., "Wo": null when the module has none } },
      "records": [ { "name", "line", "source", "function", "kind": "argument" | "assignment",
                     "fromInput", "shape", "dtype", "data" } ],
      "output": tensor | null, "returnedWeights": tensor | null,
      "error": { "type", "message", "line", "source" } | null
    }
A tensor is { "shape", "dtype", "data" }: data row-major, with -inf, inf and NaN (which JSON
cannot hold) written as the strings "-Infinity", "Infinity" and "NaN". Weights follow the
engine's convention Q = X·Wq + bq with Wq [C, H·D]; nn.Linear stores [out, in] and computes
x·Wᵀ, so Wq = w_q.weight.T. fromInput says whether the tensor was computed from x (x requires
grad, the parameters do not): a mask or a constant built inside forward is not compared.
"""
import argparse
import ast
import importlib.util
import inspect
import json
import math
import os
import re
import sys
import traceback

try:
    import torch
    from torch import nn
except ImportError:
    print(f"error: mha_lens_trace.py needs PyTorch, which {sys.executable} cannot import: run it with the Python "
          "that trains your model, or install torch (pip install torch; on Debian, apt install python3-torch).", file=sys.stderr)
    sys.exit(2)

FORMAT = "mha-lens/trace"
VERSION = 1
MASK_ARGUMENTS = ("mask", "attn_mask", "attention_mask")
MASK_FORMS = ("keep", "keep-bool", "block", "additive")
C_NAMES = ("d_model", "embed_dim", "n_embd", "n_embed", "hidden_size", "dim", "d_embed", "model_dim",
           "emb_dim", "embedding_dim", "hidden_dim", "width", "C")
H_NAMES = ("n_head", "n_heads", "num_heads", "nhead", "heads", "h", "H", "num_attention_heads", "head_count")


class TraceUsageError(Exception):
    """Something in the command line or the module that stops a trace: said, then exit 2."""


# --- Seeded tensors: the engine's mulberry32 streams, bit for bit ---------------------------------

MASK32 = 0xFFFFFFFF
STREAMS = {"x": 1, "kv": 2, "Wq": 3, "Wk": 4, "Wv": 5, "Wo": 6, "bq": 7, "bk": 8, "bv": 9, "bo": 10}


def seeded(seed, stream, shape, bound):
    """The engine's seeded tensor (cpp/include/mha/seeded.hpp): mulberry32 from the state
    seed ^ (stream · 0x9E3779B9), each value (u >> 8) · 2⁻²³ − 1 times the bound, in float32."""
    state = (seed ^ (STREAMS[stream] * 0x9E3779B9)) & MASK32
    values = []
    for _ in range(math.prod(shape)):
        state = (state + 0x6D2B79F5) & MASK32
        z = state
        z = ((z ^ (z >> 15)) * (z | 1)) & MASK32
        z ^= (z + (((z ^ (z >> 7)) * (z | 61)) & MASK32)) & MASK32
        z ^= z >> 14
        values.append((z >> 8) / 8388608.0 - 1.0)  # exact in float32
    return torch.tensor(values, dtype=torch.float32).reshape(shape) * bound


def seeded_weights(seed, C, bias):
    # As the engine: 1 / sqrtf(C) in float32, the bound nn.Linear's initialisation uses.
    bound = torch.tensor(1.0, dtype=torch.float32) / torch.tensor(float(C), dtype=torch.float32).sqrt()
    weights = {name: seeded(seed, name, (C, C), bound) for name in ("Wq", "Wk", "Wv", "Wo")}
    if bias:
        weights.update({name: seeded(seed, name, (C,), bound) for name in ("bq", "bk", "bv", "bo")})
    return weights


# --- Finding the projections ----------------------------------------------------------------------

ROLE_TOKENS = {
    "q": {"q", "wq", "query", "queries"},
    "k": {"k", "wk", "key", "keys"},
    "v": {"v", "wv", "value", "values"},
    "o": {"o", "wo", "out", "output", "proj", "dense", "fc"},
}


def role_of(name):
    tokens = set(re.split(r"[._]", name.lower()))
    roles = [role for role, words in ROLE_TOKENS.items() if tokens & words]
    # "q_proj" has both q and proj: a q, k or v word wins over the output's.
    specific = [role for role in roles if role != "o"]
    return specific[0] if len(specific) == 1 else ("o" if roles == ["o"] else None)


def find_projections(module, C):
    """{ role: (name, linear, part) } for q, k, v and o (o may be absent); part is the row block of a
    fused Linear(C, 3C) (0, 1, 2) or None. Raises TraceUsageError when they cannot be told apart."""
    linears = [(name, m) for name, m in module.named_modules() if isinstance(m, nn.Linear) and m.in_features == C]
    square = [(name, m) for name, m in linears if m.out_features == C]
    fused = [(name, m) for name, m in linears if m.out_features == 3 * C]
    found = {}
    if len(fused) == 1 and len(square) <= 1:
        name, m = fused[0]
        found = {role: (name, m, part) for part, role in enumerate("qkv")}
        if square:
            found["o"] = (square[0][0], square[0][1], None)
        return found, "a fused Linear(C, 3C) split into q, k, v"
    by_role = {}
    for name, m in square:
        by_role.setdefault(role_of(name), []).append((name, m))
    if all(len(by_role.get(role, [])) == 1 for role in "qkv") and len(by_role.get("o", [])) <= 1 and len(square) <= 4:
        found = {role: (*by_role[role][0], None) for role in "qkvo" if role in by_role}
        return found, "by name"
    if len(square) in (3, 4):
        return {role: (name, m, None) for role, (name, m) in zip("qkvo", square)}, "in the order the module made them"
    names = ", ".join(f"{name} {tuple(m.weight.shape)}" for name, m in linears) or "none"
    raise TraceUsageError(
        f"Cannot tell the projections apart: the module's nn.Linear layers with in_features = C = {C} are: {names}. "
        "The tracer needs four Linear(C, C) for q, k, v and the output (names like w_q, w_k, w_v, w_o, or made in that "
        "order), or one Linear(C, 3C) for q, k, v and a Linear(C, C). Is --C the module's width?")


def weight_block(linear, part, C):
    weight = linear.weight if part is None else linear.weight[part * C:(part + 1) * C]
    bias = None if linear.bias is None else (linear.bias if part is None else linear.bias[part * C:(part + 1) * C])
    return weight, bias


def describe(name, part, what):
    return f"{name}.{what}" + ("" if part is None else f"[{part}C:{part + 1}C]")


def apply_weights(projections, weights, C):
    """Copies the engine-convention weights into the module: nn.Linear's weight is Wᵀ."""
    with torch.no_grad():
        for role, (name, linear, part) in projections.items():
            weight, bias = weight_block(linear, part, C)
            weight.copy_(weights[f"W{role}"].T)
            if bias is not None:
                bias.copy_(weights.get(f"b{role}", torch.zeros(C)))


def module_weights(projections, C, seed):
    """The module's own projections in the engine's convention; what it lacks is seeded."""
    has_bias = any(weight_block(linear, part, C)[1] is not None for _, linear, part in projections.values())
    fallback = seeded_weights(seed, C, has_bias)
    weights, origin = {}, {}
    for role in "qkvo":
        if role not in projections:
            weights[f"W{role}"] = fallback[f"W{role}"]
            origin[f"W{role}"] = None
            if has_bias:
                weights[f"b{role}"] = fallback[f"b{role}"]
                origin[f"b{role}"] = None
            continue
        name, linear, part = projections[role]
        weight, bias = weight_block(linear, part, C)
        weights[f"W{role}"] = weight.detach().T.contiguous()
        origin[f"W{role}"] = describe(name, part, "weight") + ".T"
        if has_bias:
            weights[f"b{role}"] = bias.detach().clone() if bias is not None else torch.zeros(C)
            origin[f"b{role}"] = describe(name, part, "bias") if bias is not None else "zero (the layer has no bias)"
    return weights, origin, has_bias


# --- The mask -------------------------------------------------------------------------------------

def build_mask(B, T, causal, key_lengths, form, shape_text):
    """The mask tensor forward receives, or None without a mask."""
    if not causal and key_lengths is None:
        return None, None
    keep = torch.ones(B, T, T, dtype=torch.bool)
    if causal:
        keep &= torch.tril(torch.ones(T, T, dtype=torch.bool))
    if key_lengths is not None:
        keep &= (torch.arange(T)[None, None, :] < torch.tensor(key_lengths)[:, None, None])
    if shape_text is None:
        shape_text = "B,1,T,T" if key_lengths is not None else "1,1,T,T"
    dims = [d.strip() for d in shape_text.split(",")]
    if len(dims) < 2 or any(d not in ("B", "T", "1") for d in dims) or dims[-1] != "T" or dims[-2] not in ("T", "1") \
            or dims.count("B") > 1 or "T" in dims[:-2]:
        raise TraceUsageError(f'--mask-shape "{shape_text}" is not a mask shape: give the axes as B, T or 1, ending in '
                              "T,T (query, key) or 1,T (keys only), e.g. 1,1,T,T, T,T, B,1,T,T, B,T,T or B,1,1,T.")
    if dims[-2] == "1":
        if causal:
            raise TraceUsageError(f'--mask-shape "{shape_text}" has one row for every query, but a causal mask differs '
                                  "from query to query: end the shape in T,T.")
        keep = keep[:, :1, :]
    if "B" not in dims:
        if key_lengths is not None and len(set(key_lengths)) > 1:
            raise TraceUsageError(f'--mask-shape "{shape_text}" has no batch axis, but --key-lengths differ from row to '
                                  "row: put B in the shape (B,1,T,T or B,1,1,T).")
        keep = keep[:1]
    keep = keep.reshape([B if d == "B" else T if d == "T" else 1 for d in dims])
    if form == "keep":
        mask = keep.to(torch.float32)
    elif form == "keep-bool":
        mask = keep
    elif form == "block":
        mask = ~keep
    else:
        mask = torch.zeros(keep.shape).masked_fill(~keep, float("-inf"))
    return mask, dims


# --- Tracing --------------------------------------------------------------------------------------

def encode(values):
    """Row-major values for JSON: float32-exact (9 significant digits), non-finite as strings."""
    out = []
    for v in values:
        if math.isfinite(v):
            out.append(float(f"{v:.9g}"))
        else:
            out.append("NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity"))
    return out


def tensor_json(t):
    t = t.detach()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "data": encode(t.to(torch.float64).reshape(-1).tolist())}


class Statements:
    """Each line of the learner's file → the statement it belongs to: its first line and its
    source on one line (a statement written over several lines is joined)."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        self.lines = self.text.splitlines()
        self.by_line = {}
        for node in ast.walk(ast.parse(self.text, path)):
            if not isinstance(node, ast.stmt):
                continue
            compound = hasattr(node, "body")
            end = node.lineno if compound else node.end_lineno
            for line in range(node.lineno, end + 1):
                known = self.by_line.get(line)
                if known is None or (known.end_lineno - known.lineno) > (node.end_lineno - node.lineno):
                    self.by_line[line] = node

    def at(self, line):
        node = self.by_line.get(line)
        if node is None or hasattr(node, "body"):
            return line, self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        segment = self.lines[node.lineno - 1:node.end_lineno]
        return node.lineno, " ".join(part.strip() for part in segment).strip()


class Recorder:
    """sys.settrace over the frames of one file: at each line event of such a frame, the local
    tensors that are new, rebound or changed in place since the last event are recorded against
    the statement that ran before it."""

    def __init__(self, path):
        self.path = os.path.realpath(path)
        self.statements = Statements(path)
        self.records = []
        self.frames = {}
        self.ours = {}

    def _is_ours(self, code):
        known = self.ours.get(code.co_filename)
        if known is None:
            known = self.ours[code.co_filename] = os.path.realpath(code.co_filename) == self.path
        return known

    def global_trace(self, frame, event, arg):
        if event != "call" or not self._is_ours(frame.f_code):
            return None
        state = {"line": frame.f_code.co_firstlineno, "seen": {}}
        self.frames[frame] = state
        self._scan(frame, state, "argument")
        return self.local_trace

    def local_trace(self, frame, event, arg):
        state = self.frames.get(frame)
        if state is None:
            return None
        if event in ("line", "return"):
            self._scan(frame, state, "assignment")
            if event == "line":
                state["line"] = frame.f_lineno
            else:
                del self.frames[frame]
        return self.local_trace

    def _tensors(self, frame):
        for name, value in list(frame.f_locals.items()):
            if name.startswith(".") or name.startswith("__"):
                continue
            if isinstance(value, torch.Tensor):
                yield name, value
            elif isinstance(value, (tuple, list)) and 0 < len(value) <= 8 and all(isinstance(v, torch.Tensor) for v in value):
                for i, v in enumerate(value):
                    yield f"{name}[{i}]", v

    def _scan(self, frame, state, kind):
        seen = state["seen"]
        line, source = self.statements.at(state["line"])
        for name, t in self._tensors(frame):
            before = seen.get(name)
            if before is not None and before[0] is t and before[1] == t._version:
                continue
            seen[name] = (t, t._version)  # holding the tensor keeps its id from being reused
            if t.is_complex():
                continue
            self.records.append({"name": name, "line": line, "source": source, "function": frame.f_code.co_name,
                                 "kind": kind, "fromInput": bool(t.requires_grad), **tensor_json(t)})

    def error_at(self, error):
        """The deepest frame of the learner's file in the traceback: where the forward failed."""
        where = None
        for entry in traceback.extract_tb(error.__traceback__):
            if os.path.realpath(entry.filename) == self.path:
                where = entry.lineno
        if where is None:
            return None, None
        return self.statements.at(where)


# --- Loading and calling the module ---------------------------------------------------------------

def load_class(spec):
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise TraceUsageError(f'"{spec}" names no class: write path/to/file.py:ClassName.')
    if not os.path.isfile(path):
        raise TraceUsageError(f"{path}: no such file.")
    module_spec = importlib.util.spec_from_file_location(f"mha_lens_learner_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        module_spec.loader.exec_module(module)
    except Exception as error:
        raise TraceUsageError(f"{path} could not be loaded: {type(error).__name__}: {error}") from None
    finally:
        sys.path.pop(0)
    cls = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, nn.Module)):
        classes = [n for n, v in vars(module).items() if isinstance(v, type) and issubclass(v, nn.Module) and v.__module__ == module.__name__]
        raise TraceUsageError(f"{path} has no nn.Module class {name}. Its nn.Module classes: {', '.join(classes) or 'none'}.")
    return path, cls


def constructor_arguments(cls, init, init_args, C, H):
    if init is not None or init_args is not None:
        return init_args or [], init or {}
    kwargs = {}
    missing = []
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        if p.name in C_NAMES:
            kwargs[p.name] = C
        elif p.name in H_NAMES:
            kwargs[p.name] = H
        else:
            missing.append(p.name)
    if missing:
        raise TraceUsageError(f"{cls.__name__}.__init__ needs {', '.join(missing)}, which the tracer cannot guess: give "
                              f"every argument with --init, e.g. --init '{json.dumps({**kwargs, **{m: '...' for m in missing}})}'.")
    return [], kwargs


def forward_call(module, mask, mask_argument):
    """(names of the parameters that get x, the mask's parameter name or None)."""
    params = list(inspect.signature(module.forward).parameters.values())
    if mask_argument == "none":  # the module makes its own mask (a causal buffer, say)
        named = None
        mask = None
    else:
        named = mask_argument or next((p.name for p in params if p.name in MASK_ARGUMENTS), None)
    if mask_argument not in (None, "none") and all(p.name != mask_argument for p in params):
        raise TraceUsageError(f"forward has no parameter {mask_argument} (--mask-arg): its parameters are "
                              f"{', '.join(p.name for p in params)}.")
    inputs = [p.name for p in params if p.name != named and p.default is p.empty
              and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not inputs:
        raise TraceUsageError("forward takes no tensor argument without a default: the tracer passes x to each of them.")
    if mask is not None and named is None:
        raise TraceUsageError(f"forward({', '.join(p.name for p in params)}) has no mask parameter (mask, attn_mask, "
                              "attention_mask): name it with --mask-arg, or trace without --mask and --key-lengths.")
    return inputs, named


def trace(args, argv):
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    B, T, C, H = args.B, args.T, args.C, args.H
    for field, value in (("B", B), ("T", T), ("C", C), ("H", H)):
        if value < 1:
            raise TraceUsageError(f"--{field} must be at least 1, not {value}.")
    if C % H:
        raise TraceUsageError(f"C={C} is not divisible by H={H}: every head needs D = C/H features.")
    key_lengths = None
    if args.key_lengths is not None:
        try:
            key_lengths = [int(n) for n in args.key_lengths.split(",")]
        except ValueError:
            raise TraceUsageError(f'--key-lengths "{args.key_lengths}" must be whole numbers separated by commas.') from None
        if len(key_lengths) != B or any(not 1 <= n <= T for n in key_lengths):
            # A row that sees no key is NaN in PyTorch (0 in the engine): nothing to compare.
            raise TraceUsageError(f"--key-lengths needs B={B} lengths, each from 1 to T={T}, not {args.key_lengths}.")

    path, cls = load_class(args.module)
    init_args, init_kwargs = constructor_arguments(cls, args.init, args.init_args, C, H)
    try:
        module = cls(*init_args, **init_kwargs)
    except Exception as error:
        raise TraceUsageError(f"{cls.__name__}(*{init_args}, **{init_kwargs}) failed: {type(error).__name__}: {error}") from None
    module.eval()  # dropout off: the engine has none
    projections, found_by = find_projections(module, C)

    if args.weights == "seeded":
        has_bias = any(weight_block(linear, part, C)[1] is not None for _, linear, part in projections.values())
        weights = seeded_weights(args.seed, C, has_bias)
        apply_weights(projections, weights, C)
        origin = {}
        for role in "qkvo":
            if role in projections:
                name, linear, part = projections[role]
                origin[f"W{role}"] = describe(name, part, "weight") + ".T"
                if has_bias:
                    bias = weight_block(linear, part, C)[1]
                    origin[f"b{role}"] = describe(name, part, "bias") if bias is not None else "zero (the layer has no bias)"
                    if bias is None:
                        weights[f"b{role}"] = torch.zeros(C)
            else:
                origin[f"W{role}"] = None
                if has_bias:
                    origin[f"b{role}"] = None
    else:
        weights, origin, has_bias = module_weights(projections, C, args.seed)

    for parameter in module.parameters():
        parameter.requires_grad_(False)
    x = seeded(args.seed, "x", (B, T, C), 1.0).requires_grad_(True)  # requires_grad marks what comes from x
    mask, mask_dims = build_mask(B, T, args.mask == "causal", key_lengths, args.mask_form, args.mask_shape)
    inputs, mask_name = forward_call(module, mask, args.mask_arg)
    if args.mask_arg == "none":
        mask = None
    kwargs = {mask_name: mask} if mask_name is not None else {}

    recorder = Recorder(path)
    result, error = None, None
    sys.settrace(recorder.global_trace)
    try:
        result = module(*[x] * len(inputs), **kwargs)
    except Exception as caught:  # the learner's error is part of the trace
        error = caught
    finally:
        sys.settrace(None)

    output = returned = None
    if error is None:
        tensors = [result] if isinstance(result, torch.Tensor) else [r for r in result if isinstance(r, torch.Tensor)] \
            if isinstance(result, (tuple, list)) else []
        if not tensors:
            raise TraceUsageError(f"forward returned {type(result).__name__}, not a tensor or a tuple holding tensors.")
        output = tensors[0]
        returned = tensors[1] if len(tensors) > 1 else None

    error_json = None
    if error is not None:
        line, source = recorder.error_at(error)
        error_json = {"type": type(error).__name__, "message": str(error).strip(), "line": line, "source": source}

    return {
        "format": FORMAT,
        "version": VERSION,
        "generator": {"script": "mha_lens_trace.py", "argv": argv, "python": sys.version.split()[0], "torch": torch.__version__},
        "module": {"path": args.module.rpartition(":")[0], "class": cls.__name__, "args": init_args, "kwargs": init_kwargs},
        "config": {"B": B, "T": T, "C": C, "H": H, "mask": args.mask, "keyLengths": key_lengths, "bias": has_bias, "seed": args.seed},
        "call": {"inputs": inputs, "mask": None if mask is None else {"argument": mask_name, "form": args.mask_form, "shape": mask_dims},
                 "ownMask": args.mask_arg == "none"},
        "inputs": {"x": tensor_json(x), "mask": None if mask is None else tensor_json(mask)},
        "weights": {"source": args.weights, "projections": found_by, **{k: tensor_json(v) for k, v in weights.items()}, "from": origin},
        "records": recorder.records,
        "output": None if output is None else tensor_json(output),
        "returnedWeights": None if returned is None else tensor_json(returned),
        "error": error_json,
    }


def json_value(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not JSON ({error.msg}); quote it for the shell: '{{\"d_model\": 8}}'") from None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Then: npx mha-lens check trace.json")
    parser.add_argument("module", help="path/to/file.py:ClassName")
    parser.add_argument("--init", type=json_value, help='constructor keyword arguments as JSON, e.g. \'{"d_model": 8, "n_head": 2}\'')
    parser.add_argument("--init-args", type=json_value, help="constructor positional arguments as a JSON list, e.g. '[8, 2]'")
    for size, default, what in (("B", 2, "batch"), ("T", 4, "sequence length"), ("C", 8, "model width"), ("H", 2, "heads")):
        parser.add_argument(f"--{size}", type=int, default=default, help=f"{what} (default {default})")
    parser.add_argument("--mask", choices=("none", "causal"), default="none")
    parser.add_argument("--key-lengths", help="padding mask: B valid key lengths, e.g. 4,3")
    parser.add_argument("--mask-form", choices=MASK_FORMS, default="keep")
    parser.add_argument("--mask-shape", help="e.g. 1,1,T,T (default), T,T, B,1,T,T, B,T,T, B,1,1,T")
    parser.add_argument("--mask-arg", help="the forward parameter that takes the mask (default: mask, attn_mask or attention_mask); "
                                           "none: pass no mask, the module makes its own (--mask still says what the engine uses)")
    parser.add_argument("--weights", choices=("seeded", "module"), default="seeded",
                        help="seeded: set the projections to the engine's seeded weights; module: keep the module's own")
    parser.add_argument("--seed", type=int, default=0, help="0 … 2³²−1: x, the seeded weights, torch.manual_seed")
    parser.add_argument("--out", default="trace.json")
    args = parser.parse_args(argv)
    if args.init is not None and not isinstance(args.init, dict):
        parser.error("--init must be a JSON object of keyword arguments")
    if args.init_args is not None and not isinstance(args.init_args, list):
        parser.error("--init-args must be a JSON list")
    if not 0 <= args.seed <= MASK32:
        parser.error(f"--seed must be from 0 to {MASK32}")
    try:
        document = trace(args, argv)
    except TraceUsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(document, out, ensure_ascii=False, separators=(",", ":"))
        out.write("\n")
    where = f"; forward raised {document['error']['type']} at line {document['error']['line']}" if document["error"] else ""
    print(f"wrote {args.out}: {len(document['records'])} tensors from {document['module']['class']}{where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
