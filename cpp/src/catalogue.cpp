#include "mha/catalogue.hpp"

#include <cmath>

namespace mha {

const std::vector<StepSpec>& catalogue() {
    // {src}: the sequence K and V are computed from (step_input below).
    static const std::vector<StepSpec> steps = {
        // id        pass           op            input       axes            title
        //   formula, LaTeX, operands, view of, when
        {"x", Pass::forward, "input", "", "B,T,C", "Input X",
         "X", "X \\in \\mathbb{R}^{B \\times T \\times C}", "", "", When::always},
        {"source", Pass::forward, "input", "", "B,Tk,C", "Source sequence S (cross-attention)",
         "S", "S \\in \\mathbb{R}^{B \\times T_k \\times C}", "", "", When::cross},
        {"q", Pass::forward, "projection", "x", "B,T,H·D", "Query projection",
         "Q = X·Wq{+bq}", "Q = XW_q{+b_q}", "[B,T,C] @ [C,H·D]{+[H·D]}", "", When::always},
        {"k", Pass::forward, "projection", "{src}", "B,Tk,Hkv·D", "Key projection",
         "K = {src}·Wk{+bk}", "K = {src}W_k{+b_k}", "[B,Tk,C] @ [C,Hkv·D]{+[Hkv·D]}", "", When::always},
        {"v", Pass::forward, "projection", "{src}", "B,Tk,Hkv·D", "Value projection",
         "V = {src}·Wv{+bv}", "V = {src}W_v{+b_v}", "[B,Tk,C] @ [C,Hkv·D]{+[Hkv·D]}", "", When::always},
        {"q_split", Pass::forward, "reshape", "q", "B,T,H,D", "Split Q into heads",
         "Q.view(B, T, H, D)", "Q \\to \\operatorname{view}(B, T, H, D)", "[B,T,H·D]", "q", When::always},
        {"k_split", Pass::forward, "reshape", "k", "B,Tk,Hkv,D", "Split K into heads",
         "K.view(B, Tk, {Hkv}, D)", "K \\to \\operatorname{view}(B, T_k, {Hkv}, D)", "[B,Tk,Hkv·D]", "k", When::always},
        {"v_split", Pass::forward, "reshape", "v", "B,Tk,Hkv,D", "Split V into heads",
         "V.view(B, Tk, {Hkv}, D)", "V \\to \\operatorname{view}(B, T_k, {Hkv}, D)", "[B,Tk,Hkv·D]", "v", When::always},
        {"q_heads", Pass::forward, "transpose", "q_split", "B,H,T,D", "Heads first: Q",
         "Q.transpose(1, 2)", "Q_h = \\operatorname{transpose}_{1,2}(Q)", "[B,T,H,D]", "q", When::always},
        {"k_heads", Pass::forward, "transpose", "k_split", "B,Hkv,Tk,D", "Heads first: K",
         "K.transpose(1, 2)", "K_h = \\operatorname{transpose}_{1,2}(K)", "[B,Tk,Hkv,D]", "k", When::always},
        {"v_heads", Pass::forward, "transpose", "v_split", "B,Hkv,Tk,D", "Heads first: V",
         "V.transpose(1, 2)", "V_h = \\operatorname{transpose}_{1,2}(V)", "[B,Tk,Hkv,D]", "v", When::always},
        {"k_shared", Pass::forward, "repeat", "k_heads", "B,H,Tk,D", "Share K heads across query heads",
         "K.repeat_interleave(H/Hkv = {group}, dim=1)", "K_h \\leftarrow \\operatorname{repeat}_{H / H_{kv}}(K_h)",
         "[B,Hkv,Tk,D]", "", When::grouped},
        {"v_shared", Pass::forward, "repeat", "v_heads", "B,H,Tk,D", "Share V heads across query heads",
         "V.repeat_interleave(H/Hkv = {group}, dim=1)", "V_h \\leftarrow \\operatorname{repeat}_{H / H_{kv}}(V_h)",
         "[B,Hkv,Tk,D]", "", When::grouped},
        {"k_t", Pass::forward, "transpose", "{k_heads}", "B,H,D,Tk", "Transpose K",
         "Kᵀ = K.transpose(-2, -1)", "K_h^{\\top} = \\operatorname{transpose}_{-2,-1}(K_h)", "[B,H,Tk,D]", "{k_heads}",
         When::always},
        {"scores", Pass::forward, "matmul", "q_heads", "B,H,Tq,Tk", "Attention scores Q·Kᵀ",
         "Q·Kᵀ", "S = Q_h K_h^{\\top}", "[B,H,Tq,D] @ [B,H,D,Tk]", "", When::always},
        {"scaled", Pass::forward, "scale", "scores", "B,H,Tq,Tk", "Scale by 1/√D",
         "Q·Kᵀ / √D", "S_{\\mathrm{scaled}} = \\dfrac{S}{\\sqrt{D}}", "[B,H,Tq,Tk] × 1/√{D}", "", When::always},
        {"masked", Pass::forward, "mask", "scaled", "B,H,Tq,Tk", "Apply the mask",
         "S + M, M = −∞ where masked", "S_{\\mathrm{masked}} = S_{\\mathrm{scaled}} + M,\\quad M_{ij} \\in \\{0, -\\infty\\}",
         "[B,H,Tq,Tk]{mask}", "", When::always},
        {"weights", Pass::forward, "softmax", "masked", "B,H,Tq,Tk", "Softmax over keys",
         "A = softmax(S, over Tk)", "A = \\operatorname{softmax}_{T_k}(S_{\\mathrm{masked}})",
         "softmax over Tk of [B,H,Tq,Tk]", "", When::always},
        {"context", Pass::forward, "matmul", "weights", "B,H,Tq,D", "Weighted sum of values A·V",
         "O = A·V", "O_h = A V_h", "[B,H,Tq,Tk] @ [B,H,Tk,D]", "", When::always},
        // --- Tiled attention (FlashAttention's algorithm), in place of scores … context -------------
        // Tile (i, j) is query rows i·Bq … and keys j·Bk …; each query block goes through the key
        // blocks j = 0, 1, … in turn, keeping a running max m, a running sum ℓ and an unnormalised
        // output O per row. [.., Tq, Tk] steps hold each tile's values in its place of the matrix
        // (−∞ / 0 on tiles a mask skips whole); [.., Tq, Nk, ..] steps hold each row's state after
        // key block j.
        {"tile_scores", Pass::tiled, "matmul", "q_heads", "B,H,Tq,Tk", "Score tiles S_ij",
         "S_ij = Q_i·K_jᵀ / √D + M_ij, one Bq×Bk tile at a time", "S_{ij} = \\dfrac{Q_i K_j^{\\top}}{\\sqrt{D}} + M_{ij}",
         "[B,H,Tq,D] @ [B,H,D,Tk] in [Bq,Bk] tiles", "", When::always},
        {"tile_max", Pass::tiled, "max", "tile_scores", "B,H,Tq,Nk", "Running row max m",
         "m_new = max(m_old, rowmax(S_ij))", "m_i^{(j)} = \\max\\big(m_i^{(j-1)}, \\operatorname{rowmax}(S_{ij})\\big)",
         "[B,H,Tq,Tk] in [Bq,Bk] tiles", "", When::always},
        {"tile_correction", Pass::tiled, "rescale", "tile_max", "B,H,Tq,Nk", "Correction factor",
         "exp(m_old − m_new)", "e^{m_i^{(j-1)} - m_i^{(j)}}", "[B,H,Tq,Nk]", "", When::always},
        {"tile_probs", Pass::tiled, "exp", "tile_scores", "B,H,Tq,Tk", "Unnormalised weights P_ij",
         "P_ij = exp(S_ij − m_new)", "\\tilde{P}_{ij} = e^{S_{ij} - m_i^{(j)}}", "[B,H,Tq,Tk] − [B,H,Tq,Nk]", "", When::always},
        {"tile_sum", Pass::tiled, "sum", "tile_probs", "B,H,Tq,Nk", "Running row sum ℓ",
         "ℓ_new = exp(m_old − m_new)·ℓ_old + rowsum(P_ij)",
         "\\ell_i^{(j)} = e^{m_i^{(j-1)} - m_i^{(j)}}\\,\\ell_i^{(j-1)} + \\operatorname{rowsum}(\\tilde{P}_{ij})",
         "[B,H,Tq,Tk] in [Bq,Bk] tiles", "", When::always},
        {"tile_output", Pass::tiled, "matmul", "tile_probs", "B,H,Tq,Nk,D", "Rescaled partial output O",
         "O_new = exp(m_old − m_new)·O_old + P_ij·V_j",
         "O_i^{(j)} = e^{m_i^{(j-1)} - m_i^{(j)}}\\,O_i^{(j-1)} + \\tilde{P}_{ij} V_j",
         "[Bq,Bk] @ [Bk,D] per tile", "", When::always},
        {"tile_context", Pass::tiled, "divide", "tile_output", "B,H,Tq,D", "Divide by ℓ",
         "O = O_last / ℓ_last", "O_i = O_i^{(N_k)} / \\ell_i^{(N_k)}", "[B,H,Tq,D] / [B,H,Tq]", "", When::always},
        // --- Steps 17–19, which a tiled run records as well ------------------------------------
        {"context_t", Pass::forward, "transpose", "{context}", "B,Tq,H,D", "Tokens first again",
         "O.transpose(1, 2)", "O = \\operatorname{transpose}_{1,2}(O_h)", "[B,H,Tq,D]", "{context}", When::always},
        {"concat", Pass::forward, "merge", "context_t", "B,Tq,C", "Merge heads (concat)",
         "O.contiguous().view(B, Tq, C)", "O \\to \\operatorname{contiguous}().\\operatorname{view}(B, T_q, C)",
         "[B,Tq,H,D]", "", When::always},
        {"output", Pass::forward, "projection", "concat", "B,Tq,C", "Output projection",
         "Y = O·Wo{+bo}", "Y = OW_o{+b_o}", "[B,Tq,C] @ [C,C]{+[C]}", "", When::always},

        // --- Backward: the gradient of L = Σ output ⊙ dOutput for every forward step, in reverse
        // walkthrough order, each with its forward tensor's axes (backward.cpp). A d_ step's
        // input is the gradient it is computed from; views share the buffer of a gradient computed
        // whole. Parameter gradients come last, in the layout of the config's weights.
        {"d_output", Pass::backward, "input", "", "B,Tq,C", "Gradient of the output (dOutput)",
         "dY = dOutput (L = Σ Y ⊙ dOutput)", "dY = \\frac{\\partial L}{\\partial Y}", "", "", When::always},
        {"d_concat", Pass::backward, "projection", "d_output", "B,Tq,C", "Back through the output projection",
         "dO = dY·Woᵀ", "dO = dY\\,W_o^{\\top}", "[B,Tq,C] @ [C,C]ᵀ", "", When::always},
        {"d_context_t", Pass::backward, "reshape", "d_concat", "B,Tq,H,D", "Split the gradient into heads",
         "dO.view(B, Tq, H, D)", "dO \\to \\operatorname{view}(B, T_q, H, D)", "[B,Tq,C]", "d_concat", When::always},
        {"d_context", Pass::backward, "transpose", "d_context_t", "B,H,Tq,D", "Heads first: dO",
         "dO.transpose(1, 2)", "dO_h = \\operatorname{transpose}_{1,2}(dO)", "[B,Tq,H,D]", "d_concat", When::always},
        {"d_weights", Pass::backward, "matmul", "d_context", "B,H,Tq,Tk", "Gradient of the weights dA = dO·Vᵀ",
         "dA = dO·Vᵀ", "dA = dO_h V_h^{\\top}", "[B,H,Tq,D] @ [B,H,D,Tk]", "", When::always},
        {"d_masked", Pass::backward, "softmax", "d_weights", "B,H,Tq,Tk", "Back through softmax (the row's Jacobian)",
         "dS = A ⊙ (dA − rowsum(dA ⊙ A))",
         "dS = A \\odot \\left(dA - \\textstyle\\sum_{k} dA_{:,k} A_{:,k}\\right)",
         "softmax backward over Tk of [B,H,Tq,Tk]", "", When::always},
        {"d_scaled", Pass::backward, "mask", "d_masked", "B,H,Tq,Tk", "Back through the mask",
         "dS, 0 where masked", "dS_{\\mathrm{scaled}} = dS \\odot [M_{ij} = 0]", "[B,H,Tq,Tk]{mask}", "", When::always},
        {"d_scores", Pass::backward, "scale", "d_scaled", "B,H,Tq,Tk", "Back through the 1/√D scale",
         "dS / √D", "dS_{\\mathrm{scores}} = \\dfrac{dS_{\\mathrm{scaled}}}{\\sqrt{D}}", "[B,H,Tq,Tk] × 1/√{D}", "",
         When::always},
        {"d_k_t", Pass::backward, "matmul", "d_scores", "B,H,D,Tk", "Gradient of Kᵀ",
         "dKᵀ = Qᵀ·dS", "dK_h^{\\top} = Q_h^{\\top} dS", "[B,H,D,Tq] @ [B,H,Tq,Tk]", "{d_k_per_head}", When::always},
        {"d_v_shared", Pass::backward, "matmul", "d_context", "B,H,Tk,D", "Gradient of the shared V heads",
         "dV = Aᵀ·dO, per query head", "dV_h = A^{\\top} dO_h", "[B,H,Tk,Tq] @ [B,H,Tq,D]", "", When::grouped},
        {"d_k_shared", Pass::backward, "transpose", "d_k_t", "B,H,Tk,D", "Gradient of the shared K heads",
         "dK = (dKᵀ).transpose(-2, -1), per query head", "dK_h = \\operatorname{transpose}_{-2,-1}(dK_h^{\\top})",
         "[B,H,D,Tk]", "", When::grouped},
        {"d_v_heads", Pass::backward, "{group_op:matmul}", "{dv_from}", "B,Hkv,Tk,D", "Gradient of the V heads",
         "dV = {group_sum}Aᵀ·dO", "dV_h = {group_sum}A^{\\top} dO_h", "{dv_operands}", "d_v", When::always},
        {"d_k_heads", Pass::backward, "{group_op:transpose}", "{dk_from}", "B,Hkv,Tk,D", "Gradient of the K heads",
         "dK = {group_sum}(dKᵀ).transpose(-2, -1)",
         "dK_h = {group_sum}\\operatorname{transpose}_{-2,-1}(dK_h^{\\top})", "{dk_operands}", "d_k", When::always},
        {"d_q_heads", Pass::backward, "matmul", "d_scores", "B,H,T,D", "Gradient of the Q heads",
         "dQ = dS·K", "dQ_h = dS\\,K_h", "[B,H,T,Tk] @ [B,H,Tk,D]", "d_q", When::always},
        {"d_v_split", Pass::backward, "transpose", "d_v_heads", "B,Tk,Hkv,D", "Tokens first again: dV",
         "dV.transpose(1, 2)", "dV = \\operatorname{transpose}_{1,2}(dV_h)", "[B,Hkv,Tk,D]", "d_v", When::always},
        {"d_k_split", Pass::backward, "transpose", "d_k_heads", "B,Tk,Hkv,D", "Tokens first again: dK",
         "dK.transpose(1, 2)", "dK = \\operatorname{transpose}_{1,2}(dK_h)", "[B,Hkv,Tk,D]", "d_k", When::always},
        {"d_q_split", Pass::backward, "transpose", "d_q_heads", "B,T,H,D", "Tokens first again: dQ",
         "dQ.transpose(1, 2)", "dQ = \\operatorname{transpose}_{1,2}(dQ_h)", "[B,H,T,D]", "d_q", When::always},
        {"d_v", Pass::backward, "merge", "d_v_split", "B,Tk,Hkv·D", "Merge the heads of dV",
         "dV.view(B, Tk, {Hkv}·D)", "dV \\to \\operatorname{view}(B, T_k, {Hkv} D)", "[B,Tk,Hkv,D]", "", When::always},
        {"d_k", Pass::backward, "merge", "d_k_split", "B,Tk,Hkv·D", "Merge the heads of dK",
         "dK.view(B, Tk, {Hkv}·D)", "dK \\to \\operatorname{view}(B, T_k, {Hkv} D)", "[B,Tk,Hkv,D]", "", When::always},
        {"d_q", Pass::backward, "merge", "d_q_split", "B,T,H·D", "Merge the heads of dQ",
         "dQ.view(B, T, H·D)", "dQ \\to \\operatorname{view}(B, T, H D)", "[B,T,H,D]", "", When::always},
        {"d_source", Pass::backward, "projection", "d_k", "B,Tk,C", "Gradient of the source sequence S",
         "dS_src = dK·Wkᵀ + dV·Wvᵀ", "dS_{\\rm src} = dK\\,W_k^{\\top} + dV\\,W_v^{\\top}",
         "[B,Tk,Hkv·D] @ [C,Hkv·D]ᵀ + [B,Tk,Hkv·D] @ [C,Hkv·D]ᵀ", "", When::cross},
        {"d_x", Pass::backward, "projection", "d_q", "B,T,C", "Gradient of the input X",
         "{dx_formula}", "{dx_latex}", "{dx_operands}", "", When::always},
        {"d_wq", Pass::backward, "matmul", "d_q", "C,H·D", "Gradient of Wq",
         "dWq = Xᵀ·dQ, summed over B and T", "dW_q = X^{\\top} dQ", "[B·T,C]ᵀ @ [B·T,H·D]", "", When::always},
        {"d_wk", Pass::backward, "matmul", "d_k", "C,Hkv·D", "Gradient of Wk",
         "dWk = {src}ᵀ·dK, summed over B and Tk", "dW_k = {src}^{\\top} dK", "[B·Tk,C]ᵀ @ [B·Tk,Hkv·D]", "", When::always},
        {"d_wv", Pass::backward, "matmul", "d_v", "C,Hkv·D", "Gradient of Wv",
         "dWv = {src}ᵀ·dV, summed over B and Tk", "dW_v = {src}^{\\top} dV", "[B·Tk,C]ᵀ @ [B·Tk,Hkv·D]", "", When::always},
        {"d_wo", Pass::backward, "matmul", "d_output", "C,C", "Gradient of Wo",
         "dWo = Oᵀ·dY, summed over B and Tq", "dW_o = O^{\\top} dY", "[B·Tq,C]ᵀ @ [B·Tq,C]", "", When::always},
        {"d_bq", Pass::backward, "sum", "d_q", "H·D", "Gradient of bq",
         "dbq = Σ dQ over B and T", "db_q = \\textstyle\\sum_{b,t} dQ", "[B,T,H·D]", "", When::bias},
        {"d_bk", Pass::backward, "sum", "d_k", "Hkv·D", "Gradient of bk",
         "dbk = Σ dK over B and Tk", "db_k = \\textstyle\\sum_{b,t} dK", "[B,Tk,Hkv·D]", "", When::bias},
        {"d_bv", Pass::backward, "sum", "d_v", "Hkv·D", "Gradient of bv",
         "dbv = Σ dV over B and Tk", "db_v = \\textstyle\\sum_{b,t} dV", "[B,Tk,Hkv·D]", "", When::bias},
        {"d_bo", Pass::backward, "sum", "d_output", "C", "Gradient of bo",
         "dbo = Σ dY over B and Tq", "db_o = \\textstyle\\sum_{b,t} dY", "[B,Tq,C]", "", When::bias},
        // --- Incremental decoding with a KV cache, in place of everything after x ----------------
        // Token t at a time (causal self-attention): its q, k, v; k and v appended to the cache; its
        // one query against the cache; row t of the output. A whole run's snapshot holds every
        // step's values (axis t: row t was made at step t; axis t+1: the cache after the last
        // step); the slice {t} is the tensor as it was at step t.
        {"decode_q", Pass::incremental, "projection", "x", "B,H,t,D", "New query q_t",
         "q_t = x_t·Wq{+bq}, split into heads", "q_t = x_t W_q{+b_q}", "[B,1,C] @ [C,H·D]{+[H·D]} per token", "", When::always},
        {"decode_k", Pass::incremental, "projection", "x", "B,Hkv,t,D", "New key k_t",
         "k_t = x_t·Wk{+bk}, split into {Hkv} heads", "k_t = x_t W_k{+b_k}", "[B,1,C] @ [C,Hkv·D]{+[Hkv·D]} per token", "",
         When::always},
        {"decode_v", Pass::incremental, "projection", "x", "B,Hkv,t,D", "New value v_t",
         "v_t = x_t·Wv{+bv}, split into {Hkv} heads", "v_t = x_t W_v{+b_v}", "[B,1,C] @ [C,Hkv·D]{+[Hkv·D]} per token", "",
         When::always},
        {"cache_k", Pass::incremental, "append", "decode_k", "B,Hkv,t+1,D", "K cache",
         "K_cache = [K_cache; k_t]: one row per token so far", "K_{\\le t} = \\big[K_{<t};\\, k_t\\big]", "[B,Hkv,1,D] per token",
         "", When::always},
        {"cache_v", Pass::incremental, "append", "decode_v", "B,Hkv,t+1,D", "V cache",
         "V_cache = [V_cache; v_t]: one row per token so far", "V_{\\le t} = \\big[V_{<t};\\, v_t\\big]", "[B,Hkv,1,D] per token",
         "", When::always},
        {"decode_scores", Pass::incremental, "matmul", "decode_q", "B,H,t,t+1", "Scores of the new query",
         "s_t = q_t·K_cacheᵀ / √D", "s_t = \\dfrac{q_t K_{\\le t}^{\\top}}{\\sqrt{D}}", "[B,H,1,D] @ [B,H,D,t+1] per token", "",
         When::always},
        {"decode_weights", Pass::incremental, "softmax", "decode_scores", "B,H,t,t+1", "Softmax over the cache",
         "a_t = softmax(s_t, over t+1)", "a_t = \\operatorname{softmax}(s_t)", "softmax over t+1 of [B,H,1,t+1] per token", "",
         When::always},
        {"decode_context", Pass::incremental, "matmul", "decode_weights", "B,H,t,D", "Weighted sum of the cached values",
         "o_t = a_t·V_cache", "o_t = a_t V_{\\le t}", "[B,H,1,t+1] @ [B,H,t+1,D] per token", "", When::always},
        {"decode_output", Pass::incremental, "projection", "decode_context", "B,t,C", "Output row y_t",
         "y_t = concat(o_t)·Wo{+bo}", "y_t = \\operatorname{concat}(o_t) W_o{+b_o}", "[B,1,C] @ [C,C]{+[C]} per token", "",
         When::always},
    };
    return steps;
}

const char* pass_name(Pass pass) {
    switch (pass) {
        case Pass::forward: return "forward";
        case Pass::backward: return "backward";
        case Pass::tiled: return "tiled";
        case Pass::incremental: return "incremental";
    }
    return "forward";
}

const StepSpec* find_step(std::string_view id) {
    for (const StepSpec& step : catalogue())
        if (id == step.id) return &step;
    return nullptr;
}

// Tiled and incremental runs (issue 15): the forward steps a tiled run computes another way, and
// the ones an incremental run keeps.
static bool replaced_by_tiles(std::string_view id) {
    return id == "scores" || id == "scaled" || id == "masked" || id == "weights" || id == "context";
}

static bool in_algorithm(const StepSpec& step, Algorithm algorithm) {
    switch (step.pass) {
        case Pass::forward:
            return algorithm == Algorithm::naive || (algorithm == Algorithm::tiled && !replaced_by_tiles(step.id)) ||
                   (algorithm == Algorithm::incremental && std::string_view(step.id) == "x");
        case Pass::tiled: return algorithm == Algorithm::tiled;
        case Pass::incremental: return algorithm == Algorithm::incremental;
        case Pass::backward: return algorithm == Algorithm::naive;  // the gradients of the naive pass
    }
    return false;
}

const char* slice_kind(const StepSpec& step) {
    if (step.pass == Pass::tiled || (step.pass == Pass::forward && is_scores_sized(step.id))) return "head";
    if (step.pass == Pass::incremental) return "t";
    return "";
}

bool appears(const StepSpec& step, const Dims& d) {
    if (step.pass == Pass::backward && !d.backward) return false;  // gradients only with dOutput
    if (!in_algorithm(step, d.algorithm)) return false;
    switch (step.when) {
        case When::always: return true;
        case When::cross: return d.cross;
        case When::grouped: return d.Hkv < d.H;
        case When::bias: return d.bias;
    }
    return false;
}

// An input or view written as a slot: {src} is the sequence K and V are computed from, {k_heads}
// the K heads the scores read (shared across query heads under GQA/MQA). Backward: under GQA/MQA
// the gradients of K and V per query head ({dv_from}, {dk_from}, {d_k_per_head}) are summed over
// each group into the K/V heads; in plain MHA they are the K/V heads' gradients themselves.
static std::string resolve(std::string_view ref, const Dims& d) {
    const bool grouped = d.Hkv < d.H;
    if (ref == "{src}") return d.cross ? "source" : "x";
    if (ref == "{k_heads}") return grouped ? "k_shared" : "k_heads";
    if (ref == "{context}") return d.algorithm == Algorithm::tiled ? "tile_context" : "context";
    if (ref == "{dv_from}") return grouped ? "d_v_shared" : "d_context";
    if (ref == "{dk_from}") return grouped ? "d_k_shared" : "d_k_t";
    if (ref == "{d_k_per_head}") return grouped ? "d_k_shared" : "d_k";
    return std::string(ref);
}

std::string step_op(const StepSpec& step, const Dims& d) {
    const std::string_view op = step.op;
    // "{group_op:matmul}": a sum over each group under GQA/MQA, else the op named.
    if (op.rfind("{group_op:", 0) == 0) return d.Hkv < d.H ? "sum" : std::string(op.substr(10, op.size() - 11));
    return std::string(op);
}

std::string step_input(const StepSpec& step, const Dims& d) { return resolve(step.input, d); }

std::string step_view_of(const StepSpec& step, const Dims& d) { return resolve(step.view_of, d); }

bool is_scores_sized(std::string_view id) {
    return id == "scores" || id == "scaled" || id == "masked" || id == "weights";
}

namespace {

std::vector<std::string_view> split_axes(std::string_view axes) {
    std::vector<std::string_view> symbols;
    for (std::size_t at = 0; at < axes.size();) {
        const std::size_t comma = axes.find(',', at);
        const std::size_t end = comma == std::string_view::npos ? axes.size() : comma;
        symbols.push_back(axes.substr(at, end - at));
        at = end + 1;
    }
    return symbols;
}

std::size_t size_of(std::string_view symbol, const Dims& d) {
    if (symbol == "B") return d.B;
    if (symbol == "T" || symbol == "Tq") return d.T;
    if (symbol == "Tk") return d.Tk;
    if (symbol == "C") return d.C;
    if (symbol == "H") return d.H;
    if (symbol == "Hkv") return d.Hkv;
    if (symbol == "D") return d.D;
    if (symbol == "H·D") return d.H * d.D;
    if (symbol == "Hkv·D") return d.Hkv * d.D;
    if (symbol == "1") return 1;
    if (symbol == "B·T" || symbol == "B·Tq") return d.B * d.T;  // every token of the batch, as a weight's gradient sums them
    if (symbol == "B·Tk") return d.B * d.Tk;
    // Tiled and decoding steps (issue 15).
    if (symbol == "Bq") return d.Bq;
    if (symbol == "Bk") return d.Bk;
    if (symbol == "Nq") return d.Nq();
    if (symbol == "Nk") return d.Nk();
    if (symbol == "t" || symbol == "t+1") return d.T;  // a whole run: every step t, the full cache
    return 0;
}

// Hkv reads H in plain MHA, where K and V have as many heads as Q.
std::string axis_name(std::string_view symbol, const Dims& d) {
    if (d.Hkv == d.H && symbol == "Hkv") return "H";
    if (d.Hkv == d.H && symbol == "Hkv·D") return "H·D";
    return std::string(symbol);
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

// {+term}: " + term" with a bias, nothing without.
std::string bias_terms(std::string text, bool bias) {
    for (std::size_t at = text.find("{+"); at != std::string::npos; at = text.find("{+", at)) {
        const std::size_t close = text.find('}', at);
        const std::string term = text.substr(at + 2, close - at - 2);
        const std::string replacement = bias ? " + " + term : "";
        text.replace(at, close - at + 1, replacement);
        at += replacement.size();
    }
    return text;
}

std::string shape_of_symbols(std::string_view symbols, const Dims& d) {
    std::vector<std::size_t> shape;
    for (const std::string_view symbol : split_axes(symbols)) shape.push_back(size_of(symbol, d));
    return shape_text(shape);
}

// Every [symbols] of `text` as numbers.
std::string numbers_for_symbols(const std::string& text, const Dims& d) {
    std::string out;
    std::size_t at = 0;
    for (std::size_t open = text.find('['); open != std::string::npos; open = text.find('[', at)) {
        const std::size_t close = text.find(']', open);
        out += text.substr(at, open - at);
        out += shape_of_symbols(std::string_view(text).substr(open + 1, close - open - 1), d);
        at = close + 1;
    }
    return out + text.substr(at);
}

// The mask's own shape, broadcast over the scores: causal [Tq, Tk], padding [B, 1, 1, Tk].
const char* mask_operand(const StepContext& c) {
    const bool causal = c.mask == MaskKind::causal;
    return causal && c.padding ? " + causal and padding mask [B,1,Tq,Tk]"
           : causal            ? " + causal mask [Tq,Tk]"
           : c.padding         ? " + padding mask [B,1,1,Tk]"
                               : " with no mask";
}

// The backward pass's slots: {group_sum} (the sum over each group of query heads under GQA/MQA),
// {dx_*} (dX gathers dK and dV too in self-attention, where K and V are computed from X).
void fill_backward_slots(std::string& text, const Dims& d, bool latex) {
    const bool grouped = d.Hkv < d.H;
    replace_all(text, "{group_sum}", !grouped ? "" : latex ? "\\sum_{\\text{group of } {group}} " : "Σ over each group of {group} query heads: ");
    replace_all(text, "{dx_formula}", d.cross ? "dX = dQ·Wqᵀ" : "dX = dQ·Wqᵀ + dK·Wkᵀ + dV·Wvᵀ");
    replace_all(text, "{dx_latex}", d.cross ? "dX = dQ\\,W_q^{\\top}" : "dX = dQ\\,W_q^{\\top} + dK\\,W_k^{\\top} + dV\\,W_v^{\\top}");
}

std::string fill_formula(std::string text, const StepContext& c, bool latex) {
    const Dims& d = c.dims;
    fill_backward_slots(text, d, latex);
    replace_all(text, "{src}", d.cross ? "S" : "X");
    replace_all(text, "{Hkv}", d.Hkv < d.H ? (latex ? "H_{kv}" : "Hkv") : "H");
    replace_all(text, "{group}", std::to_string(d.group()));
    return bias_terms(std::move(text), c.bias);
}

}  // namespace

std::string shape_text(const std::vector<std::size_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
}

std::vector<std::string> axis_names(const StepSpec& step, const Dims& d) {
    std::vector<std::string> names;
    for (const std::string_view symbol : split_axes(step.axes)) names.push_back(axis_name(symbol, d));
    return names;
}

std::vector<std::size_t> step_shape(const StepSpec& step, const Dims& d) {
    std::vector<std::size_t> shape;
    for (const std::string_view symbol : split_axes(step.axes)) shape.push_back(size_of(symbol, d));
    return shape;
}

std::uint64_t step_numel(const StepSpec& step, const Dims& d) {
    std::uint64_t n = 1;
    for (const std::size_t extent : step_shape(step, d)) n *= extent;
    return n;
}

std::string step_formula(const StepSpec& step, const StepContext& c) { return fill_formula(step.formula, c, false); }

std::string step_latex(const StepSpec& step, const StepContext& c) { return fill_formula(step.latex, c, true); }

std::string shape_formula(const StepSpec& step, const StepContext& c) {
    const std::string result = shape_text(step_shape(step, c.dims));
    if (!*step.operands) return result;
    std::string operands = bias_terms(step.operands, c.bias);
    const bool grouped = c.dims.Hkv < c.dims.H;
    replace_all(operands, "{dv_operands}", grouped ? "[B,H,Tk,D] summed over groups of {group}" : "[B,H,Tk,Tq] @ [B,H,Tq,D]");
    replace_all(operands, "{dk_operands}", grouped ? "[B,H,Tk,D] summed over groups of {group}" : "[B,H,D,Tk]");
    replace_all(operands, "{dx_operands}",
                c.dims.cross ? "[B,T,H·D] @ [C,H·D]ᵀ" : "[B,T,H·D] @ [C,H·D]ᵀ + [B,T,Hkv·D] @ [C,Hkv·D]ᵀ + [B,T,Hkv·D] @ [C,Hkv·D]ᵀ");
    replace_all(operands, "{group}", std::to_string(c.dims.group()));
    replace_all(operands, "{mask}", mask_operand(c));
    replace_all(operands, "{D}", std::to_string(c.dims.D));
    return numbers_for_symbols(operands, c.dims) + " → " + result;
}

// Floating-point operations of a gradient: a product 2·M·K·N, a sum one per value added, the
// softmax backward four per element (dA ⊙ A, the row sum, the subtraction, the product with A).
static double backward_flops(const StepSpec& step, const StepContext& c) {
    const Dims& d = c.dims;
    const double B = d.B, T = d.T, Tk = d.Tk, C = d.C, H = d.H, D = d.D, HD = H * D, KD = static_cast<double>(d.Hkv) * D;
    const double scores = B * H * T * Tk;
    const bool grouped = d.Hkv < d.H;
    const double group_sum = (static_cast<double>(d.group()) - 1) * B * KD * Tk;
    const std::string_view id = step.id;
    if (id == "d_concat") return 2 * B * T * C * C;
    if (id == "d_weights" || id == "d_q_heads" || id == "d_k_t" || id == "d_v_shared") return 2 * scores * D;
    if (id == "d_masked") return 4 * scores;
    if (id == "d_scores") return scores;
    if (id == "d_v_heads") return grouped ? group_sum : 2 * scores * D;
    if (id == "d_k_heads") return grouped ? group_sum : 0;
    if (id == "d_source") return 4 * B * Tk * KD * C + B * Tk * C;
    if (id == "d_x") return 2 * B * T * HD * C + (d.cross ? 0 : 4 * B * T * KD * C + 2 * B * T * C);
    if (id == "d_wq") return 2 * C * B * T * HD;
    if (id == "d_wk" || id == "d_wv") return 2 * C * B * Tk * KD;
    if (id == "d_wo") return 2 * C * B * T * C;
    if (id == "d_bq" || id == "d_bo") return B * T * (id == "d_bq" ? HD : C);
    if (id == "d_bk" || id == "d_bv") return B * Tk * KD;
    return 0;  // the input dOutput, views, the mask (which writes zeros)
}

// Tiled and decoding steps (issue 15), counted as their naive counterparts are: over every tile
// (skipped ones too, as the naive products count the masked scores) and, decoding, over every
// entry of the cache each token attends to.
static double pass_flops(const StepSpec& step, const Dims& d, bool bias) {
    const std::string_view id = step.id;
    const double B = d.B, H = d.H, T = d.T, Tk = d.Tk, D = d.D, C = d.C;
    const double scores = B * H * T * Tk, rows = B * H * T * static_cast<double>(d.Nk());
    if (id == "tile_scores") return 2 * scores * D + scores;   // Q_i·K_jᵀ, then the scale
    if (id == "tile_max") return scores;                       // one comparison per score
    if (id == "tile_correction") return 2 * rows;              // a subtraction and an exp per row and tile
    if (id == "tile_probs") return 2 * scores;                 // subtract, exp
    if (id == "tile_sum") return scores + 2 * rows;            // add; rescale and add per row and tile
    if (id == "tile_output") return 2 * scores * D + 2 * rows * D;  // P_ij·V_j; rescale and add O
    if (id == "tile_context") return B * H * T * D;            // one division per value
    const double cache = B * H * T * (T + 1) / 2;              // Σ_t (t+1) scores over the steps
    if (id == "decode_q" || id == "decode_k" || id == "decode_v" || id == "decode_output") {
        const double out = static_cast<double>(step_numel(step, d));
        return 2 * out * C + (bias ? out : 0);
    }
    if (id == "decode_scores") return 2 * cache * D + cache;
    if (id == "decode_weights") return 4 * cache;
    if (id == "decode_context") return 2 * cache * D;
    return 0;  // the caches: appending copies
}

double step_flops(const StepSpec& step, const StepContext& c) {
    if (step.pass == Pass::backward) return backward_flops(step, c);
    const Dims& d = c.dims;
    if (step.pass == Pass::tiled || step.pass == Pass::incremental) return pass_flops(step, d, c.bias);
    const std::string_view op = step.op;
    const double out = static_cast<double>(step_numel(step, d));
    if (op == "projection") {  // [rows, C] @ [C, N]: each output value is a dot product over C
        return 2.0 * out * static_cast<double>(d.C) + (c.bias ? out : 0.0);
    }
    if (op == "matmul") {  // scores contract D, the context contracts Tk
        const std::string_view id = step.id;
        return 2.0 * out * static_cast<double>(id == "scores" ? d.D : d.Tk);
    }
    if (op == "scale") return out;
    if (op == "softmax") return 4.0 * out;
    return 0.0;
}

bool changes_values(const StepSpec& step, const Dims& d, bool masks_a_key) {
    const std::string op = step_op(step, d);
    if (op == "input" || op == "reshape" || op == "transpose" || op == "repeat" || op == "merge" || op == "append") return false;
    if (op == "scale") return d.D != 1;  // a scale by 1/√1 leaves every value alone
    // Backward through the mask: the softmax's backward already gave masked keys a gradient of 0.
    if (op == "mask") return step.pass == Pass::forward && masks_a_key;
    return true;
}

}  // namespace mha
