#!/usr/bin/python3
"""Writes the ONNX graphs the benchmark runs in ONNX Runtime Web (scripts/bench/onnx/*.onnx).

The graphs hold no weights: x, Wq, Wk, Wv, Wo, bq, bk, bv, bo (and the additive mask) are graph
inputs, so that ONNX Runtime gets exactly the tensors our engine gets, and the files stay small.
The forward is the walkthrough's, op for op: Q = X·Wq + bq, heads split and moved first,
softmax(Q·Kᵀ/√D + M)·V, heads merged, Y = O·Wo + bo.

Run with Debian's python3-onnx (scripts/setup.sh --bench installs it):
    /usr/bin/python3 scripts/bench/make_onnx.py
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "onnx")
OPSET = 13  # Softmax over one axis (opset < 13 flattens), Reshape with 0 = "copy this dim"


def const_i64(name, values):
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(name + "_v", TensorProto.INT64, [len(values)], values))


def mha_graph(H, D, masked):
    C = H * D
    f = TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("x", f, ["B", "T", C])]
    inputs += [helper.make_tensor_value_info(n, f, [C, C]) for n in ("Wq", "Wk", "Wv", "Wo")]
    inputs += [helper.make_tensor_value_info(n, f, [C]) for n in ("bq", "bk", "bv", "bo")]
    if masked:
        inputs.append(helper.make_tensor_value_info("mask", f, ["T", "T"]))  # 0 or -inf
    nodes = [
        const_i64("heads_shape", [0, 0, H, D]),
        const_i64("merged_shape", [0, 0, C]),
        helper.make_node("Constant", [], ["inv_sqrt_d"], value=helper.make_tensor("s", f, [], [1.0 / D ** 0.5])),
    ]
    for name in ("q", "k", "v"):
        W, b = "W" + name, "b" + name
        nodes += [
            helper.make_node("MatMul", ["x", W], [name + "_xw"]),                     # [B, T, C]
            helper.make_node("Add", [name + "_xw", b], [name]),
            helper.make_node("Reshape", [name, "heads_shape"], [name + "_split"]),    # [B, T, H, D]
        ]
    nodes += [
        helper.make_node("Transpose", ["q_split"], ["q_heads"], perm=[0, 2, 1, 3]),  # [B, H, T, D]
        helper.make_node("Transpose", ["k_split"], ["k_t"], perm=[0, 2, 3, 1]),      # [B, H, D, T]
        helper.make_node("Transpose", ["v_split"], ["v_heads"], perm=[0, 2, 1, 3]),  # [B, H, T, D]
        helper.make_node("MatMul", ["q_heads", "k_t"], ["scores"]),                  # [B, H, T, T]
        helper.make_node("Mul", ["scores", "inv_sqrt_d"], ["scaled"]),
    ]
    logits = "scaled"
    if masked:
        nodes.append(helper.make_node("Add", ["scaled", "mask"], ["masked"]))
        logits = "masked"
    nodes += [
        helper.make_node("Softmax", [logits], ["weights"], axis=-1),
        helper.make_node("MatMul", ["weights", "v_heads"], ["context"]),             # [B, H, T, D]
        helper.make_node("Transpose", ["context"], ["context_t"], perm=[0, 2, 1, 3]),  # [B, T, H, D]
        helper.make_node("Reshape", ["context_t", "merged_shape"], ["concat"]),      # [B, T, C]
        helper.make_node("MatMul", ["concat", "Wo"], ["y_xw"]),
        helper.make_node("Add", ["y_xw", "bo"], ["y"]),
    ]
    outputs = [helper.make_tensor_value_info("y", f, ["B", "T", C])]
    return helper.make_graph(nodes, f"mha_H{H}_D{D}{'_causal' if masked else ''}", inputs, outputs)


def fused_graph(H, D, causal):
    """The same forward with ONNX Runtime's fused attention (com.microsoft Attention: Q, K and V
    projected by one packed [C, 3C] product, then attention, optionally causal), then the output
    projection: the graph BERT-style exports use, for the tiled bench's "best ONNX Runtime graph"."""
    C = H * D
    f = TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("x", f, ["B", "T", C]), helper.make_tensor_value_info("Wqkv", f, [C, 3 * C]),
              helper.make_tensor_value_info("bqkv", f, [3 * C]), helper.make_tensor_value_info("Wo", f, [C, C]),
              helper.make_tensor_value_info("bo", f, [C])]
    nodes = [
        helper.make_node("Attention", ["x", "Wqkv", "bqkv"], ["context"], domain="com.microsoft", num_heads=H,
                         unidirectional=1 if causal else 0),                           # [B, T, C]
        helper.make_node("MatMul", ["context", "Wo"], ["y_xw"]),
        helper.make_node("Add", ["y_xw", "bo"], ["y"]),
    ]
    outputs = [helper.make_tensor_value_info("y", f, ["B", "T", C])]
    return helper.make_graph(nodes, f"mha_fused_H{H}_D{D}{'_causal' if causal else ''}", inputs, outputs)


def gemm_graph():
    f = TensorProto.FLOAT
    return helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])], "gemm",
        [helper.make_tensor_value_info("a", f, ["M", "K"]), helper.make_tensor_value_info("b", f, ["K", "N"])],
        [helper.make_tensor_value_info("c", f, ["M", "N"])])


def save(graph, name, contrib=False):
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if contrib else [])
    model = helper.make_model(graph, opset_imports=opsets, producer_name="mha-lens bench")
    model.ir_version = 8  # what ONNX Runtime Web reads; onnx 1.12 would write 8 as well
    if not contrib:  # the checker does not know com.microsoft's operators
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for H, D in ((2, 4), (4, 32), (12, 64)):
        save(mha_graph(H, D, masked=False), f"mha_H{H}_D{D}.onnx")
    save(mha_graph(12, 64, masked=True), "mha_H12_D64_causal.onnx")
    save(gemm_graph(), "gemm.onnx")
    for causal in (False, True):
        save(fused_graph(12, 64, causal), f"mha_fused_H12_D64{'_causal' if causal else ''}.onnx", contrib=True)
    print("wrote", ", ".join(sorted(os.listdir(OUT))), "to", OUT)
