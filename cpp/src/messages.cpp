#include "mha/messages.hpp"

#include <cctype>

namespace mha {

namespace {

// Keys: an error's key starts with its code ("bad_size.below_one" is a bad_size); "warning." keys
// are warnings; "term." keys are phrases that a template pulls in with {@name}.
const MessageEntry messages[] = {
    // --- Reading a config -------------------------------------------------------------------
    {"bad_type.config",
     "The config must be an object such as {B: 2, T: 4, C: 8, H: 2}, not {@got}.",
     "配置必须是对象，例如 {B: 2, T: 4, C: 8, H: 2}，而不是{@got}。"},
    {"bad_json.syntax", "The config is not valid JSON: {detail}", "配置不是有效的 JSON：{detail}"},
    {"bad_json.number", "The config holds a number it cannot read: {detail}", "配置里有无法读取的数：{detail}"},
    {"unknown_key.config",
     "Unknown config key \"{key}\"{@empty}{@hint}. Known keys: {known}.",
     "未知的配置键 \"{key}\"{@empty}{@hint}。已知的键：{known}。"},
    {"unknown_key.weights",
     "Unknown key weights.{key}: weights takes Wq, Wk, Wv, Wo, bq, bk, bv and bo.",
     "未知的键 weights.{key}：weights 只接受 Wq、Wk、Wv、Wo、bq、bk、bv 和 bo。"},
    {"unknown_key.unnamed",
     "A config key holds characters that cannot be read (a lone surrogate, as in \"\\uDC00\"): {key}. Known keys: {known}.",
     "一个配置键含有无法读取的字符（单独的代理项，如 \"\\uDC00\"）：{key}。已知的键：{known}。"},
    {"bad_type.value", "{field} must be {@wanted}, not {@got}.", "{field} 必须是{@wanted}，而不是{@got}。"},
    {"bad_type.tensor",
     "{field} must be a Float32Array or an array of numbers, not {@got}.",
     "{field} 必须是 Float32Array 或数字数组，而不是{@got}。"},
    {"bad_size.not_whole",
     "{field}={value} is not a whole number: {field} counts things, so it must be {@wanted}.",
     "{field}={value} 不是整数：{field} 是个数，必须是{@wanted}。"},
    {"bad_size.huge", "{field}={value} is too large.", "{field}={value} 太大。"},
    {"missing.size", "{field} is missing: set {@meaning}, for example {field}: {example}.",
     "缺少 {field}：请设置{@meaning}，例如 {field}: {example}。"},
    {"bad_value.seed", "seed={value} is outside 0 to 4294967295 (a 32-bit seed).",
     "seed={value} 超出 0 到 4294967295（32 位种子）。"},
    {"bad_value.mask",
     "mask must be \"none\" or \"causal\", not {@got}. A padding mask is set with keyLengths, and combines with either.",
     "mask 必须是 \"none\" 或 \"causal\"，而不是{@got}。填充掩码用 keyLengths 设置，可以和两者之一组合。"},
    {"bad_value.memory_cap", "memoryCap must be a positive number of bytes.", "memoryCap 必须是正的字节数。"},
    {"non_finite.range",
     "{field}={value} is beyond float32's range (±3.4e+38): tensors are float32.",
     "{field}={value} 超出 float32 的范围（±3.4e+38）：张量是 float32。"},
    {"non_finite.value", "{field} is {value}: explicit tensors must hold finite numbers.",
     "{field} 是 {value}：显式张量只能包含有限的数。"},
    {"missing.hole",
     "{field} is missing (a hole in the array): give a number for every index.",
     "缺少 {field}（数组中有空位）：每个下标都要给出一个数。"},

    // --- Checking a config ------------------------------------------------------------------
    {"bad_size.below_one", "{field}={value} is not allowed: {field} is {@meaning} and must be at least 1.",
     "{field}={value} 不合法：{field} 是{@meaning}，至少为 1。"},
    {"bad_size.too_large",
     "{field}={value} is too large: sizes go up to {max} (and the memory cap limits their product).",
     "{field}={value} 太大：每个尺寸最大为 {max}（它们的乘积还受内存上限限制）。"},
    {"not_divisible",
     "C={C} is not divisible by H={H}: every head needs D = C/H features. Choose H from the divisors of C={C}: {divisors}.",
     "C={C} 不能被 H={H} 整除：每个头需要 D = C/H 个特征。请从 C={C} 的约数中选 H：{divisors}。"},
    {"heads_not_divisible.more_kv",
     "Hkv={Hkv} is larger than H={H}: there cannot be more key/value heads than query heads. Choose Hkv from the divisors of H={H}: {divisors}.",
     "Hkv={Hkv} 大于 H={H}：键/值头不能比查询头多。请从 H={H} 的约数中选 Hkv：{divisors}。"},
    {"heads_not_divisible",
     "H={H} is not divisible by Hkv={Hkv}: each key/value head is shared by H/Hkv query heads. Choose Hkv from the divisors of H={H}: {divisors}.",
     "H={H} 不能被 Hkv={Hkv} 整除：每个键/值头由 H/Hkv 个查询头共享。请从 H={H} 的约数中选 Hkv：{divisors}。"},
    {"bad_key_lengths.count",
     "keyLengths has {count} entries but B={B}: give one valid key length per batch row.",
     "keyLengths 有 {count} 项，但 B={B}：每个批次行需要一个有效键长度。"},
    {"bad_key_lengths.range",
     "keyLengths[{b}]={value} is outside [0, Tk={Tk}]: it counts the keys of batch row {b} that are not padding.",
     "keyLengths[{b}]={value} 超出 [0, Tk={Tk}]：它是第 {b} 个批次行中不是填充的键的个数。"},
    {"bad_tensor_length",
     "{field} has {count} {@unit} but needs {formula} = {expected}.",
     "{field} 有 {count} 个值，但需要 {formula} = {expected} 个。"},
    {"bad_value.bias_given",
     "{field} is given but bias is false: remove the biases or set bias to true.",
     "给出了 {field}，但 bias 为 false：请去掉偏置，或把 bias 设为 true。"},
    {"missing.weight",
     "{field} is missing: explicit weights need Wq, Wk, Wv and Wo{@biases}.",
     "缺少 {field}：显式权重需要 Wq、Wk、Wv 和 Wo{@biases}。"},
    {"bad_value.magnitude",
     "{field}[{index}] is {value} in size: with these values {@where} could reach {worst}, beyond the 8.5e+37 that float32 "
     "holds safely (a quarter of its largest number, 3.4e+38), and the result would be Infinity or NaN. Scale the "
     "explicit tensors down (values within ±1e4 are always safe).",
     "{field}[{index}] 的量级是 {value}：按这些值，{@where}可能达到 {worst}，超过 float32 能安全容纳的 8.5e+37"
     "（其最大数 3.4e+38 的四分之一），结果会变成 Infinity 或 NaN。请把显式张量缩小（±1e4 以内总是安全的）。"},
    {"memory_cap.needs",
     "This config needs {needed} of memory, above the memory cap of {cap}: {@largest} alone take {largest_bytes}. "
     "Lower {lower}, or raise memoryCap.{@tiled}",
     "这个配置需要 {needed} 内存，超过了内存上限 {cap}：仅{@largest}就占 {largest_bytes}。请减小 {lower}，或提高 memoryCap。{@tiled}"},
    {"memory_cap.addressable",
     "This config needs {needed} of memory, more than this build of the engine can address ({limit}): {@largest} "
     "alone take {largest_bytes}. Lower {lower}: raising memoryCap cannot help.{@tiled}",
     "这个配置需要 {needed} 内存，超过了本引擎能寻址的 {limit}：仅{@largest}就占 {largest_bytes}。请减小 {lower}：提高 memoryCap 没有用。{@tiled}"},
    {"memory_cap.step",
     "Step \"{step}\" needs {needed}, above the memory cap of {cap}{@slice}.",
     "步骤 \"{step}\" 需要 {needed}，超过了内存上限 {cap}{@slice}。"},
    {"memory_cap.product",
     "This product needs {needed} of memory, more than the engine can hold ({limit}). Lower M, K or N.",
     "这个乘积需要 {needed} 内存，超过了引擎能容纳的 {limit}。请减小 M、K 或 N。"},

    // --- Steps and runs ---------------------------------------------------------------------
    {"unknown_step.in_run", "There is no step \"{step}\" in this run. Its steps are: {steps}.",
     "这次运行没有步骤 \"{step}\"。它的步骤有：{steps}。"},
    {"unknown_step.no_snapshots", "There is no step \"{step}\" in this run (it was computed without snapshots).",
     "这次运行没有步骤 \"{step}\"（它是在不记录快照的情况下计算的）。"},
    {"bad_value.slice",
     "A slice {batch, head} takes both, and only of scores, scaled, masked or weights; \"{step}\" is asked for whole.",
     "切片 {batch, head} 需要同时给出两者，且只适用于 scores、scaled、masked 或 weights；\"{step}\" 只能整体获取。"},
    {"bad_value.slice_range", "{field}={value} is not a whole number from 0 to {max}.", "{field}={value} 不是 0 到 {max} 之间的整数。"},
    {"released",
     "This run was released (run.release()): its arrays are gone. Keep a run until you are done with it, or run the config again.",
     "这次运行已被释放（run.release()）：它的数组已经不在了。请在用完之前保留这次运行，或重新运行该配置。"},
    {"out_of_memory", "The engine ran out of memory for this config: lower B, T, Tk or H.",
     "引擎为这个配置耗尽了内存：请减小 B、T、Tk 或 H。"},
    {"internal", "Internal engine error: {detail}", "引擎内部错误：{detail}"},

    // --- PyTorch parameters and the bare product ---------------------------------------------
    {"bad_type.torch_params",
     "fromTorch takes an object with in_proj_weight, in_proj_bias, out_proj_weight and out_proj_bias.",
     "fromTorch 接受一个包含 in_proj_weight、in_proj_bias、out_proj_weight 和 out_proj_bias 的对象。"},
    {"bad_size.embed_dim",
     "C={value} is not allowed: C (embed_dim) must be a whole number from 1 to {max}.",
     "C={value} 不合法：C（embed_dim）必须是 1 到 {max} 之间的整数。"},
    {"bad_tensor_length.torch",
     "{field} has {count} values but needs {formula} = {expected} for embed_dim C.",
     "{field} 有 {count} 个值，但需要 {formula} = {expected} 个（C 是 embed_dim）。"},
    {"missing.torch_bias",
     "Give both in_proj_bias and out_proj_bias (a module with bias=True), or neither (bias=False).",
     "请同时给出 in_proj_bias 和 out_proj_bias（bias=True 的模块），或者都不给（bias=False）。"},
    {"bad_type.linear_params",
 "fromLinear takes an object with q_proj, k_proj, v_proj and out_proj (nn.Linear weights [out_features, C], biases optional).",
 "fromLinear 接受一个包含 q_proj、k_proj、v_proj 和 out_proj 的对象（nn.Linear 权重 [out_features, C]，偏置可选）。"},
{"bad_tensor_length.linear_rows",
 "{field} has {count} values, which is not a whole number of rows of C={C}: an nn.Linear weight is [out_features, C].",
 "{field} 有 {count} 个值，不是 C={C} 的整数行：nn.Linear 的权重是 [out_features, C]。"},
{"bad_tensor_length.linear_kv",
 "v_proj.weight has {count} values but k_proj.weight has {expected}: K and V have as many heads as each other.",
 "v_proj.weight 有 {count} 个值，但 k_proj.weight 有 {expected} 个：K 和 V 的头数相同。"},
{"bad_tensor_length.linear_bias",
 "{field} has {count} values but needs {expected}, one per row of {weight}.",
 "{field} 有 {count} 个值，但需要 {expected} 个，{weight} 的每一行一个。"},
{"missing.linear_bias",
 "{field} is missing: give a bias for all four projections (a module with bias=True), or for none (bias=False).",
 "缺少 {field}：请给四个投影都提供偏置（bias=True 的模块），或者都不提供（bias=False）。"},
{"bad_size.matmul", "{field} must be a whole number from 1 to {max} (got {value}).",
     "{field} 必须是 1 到 {max} 之间的整数（得到 {value}）。"},
    {"bad_tensor_length.matmul", "{field} must hold {rows}·{cols} = {expected} numbers (got {count}).",
     "{field} 必须包含 {rows}·{cols} = {expected} 个数（得到 {count}）。"},

    // --- The trainer --------------------------------------------------------------
    {"trainer.not_loaded",
     "This engine was loaded without the trainer: create it with createEngine({ trainer: true }).",
     "这个引擎加载时没有包含训练器：请用 createEngine({ trainer: true }) 创建它。"},
    {"unknown_task", "task \"{value}\" is not a task: choose reverse, sort, previous or induction.",
     "task \"{value}\" 不是可用的任务：请选择 reverse、sort、previous 或 induction。"},
    {"unknown_key.trainer", "Unknown trainer option \"{key}\"{@hint}. Known options: {known}.",
     "未知的训练器选项 \"{key}\"{@hint}。已知的选项：{known}。"},
    {"bad_option.whole", "{field}={value} must be a whole number.", "{field}={value} 必须是整数。"},
    {"bad_option.range", "{field}={value} is outside {min} … {max}.", "{field}={value} 超出 {min} … {max}。"},
    {"bad_option.range_open", "{field}={value} must be above {min} and at most {max}.",
     "{field}={value} 必须大于 {min} 且不超过 {max}。"},
    {"bad_option.heads",
     "width={width} is not divisible by heads={heads}: each head needs width/heads features. Choose heads from the divisors of {width}: {divisors}.",
     "width={width} 不能被 heads={heads} 整除：每个头需要 width/heads 个特征。请从 {width} 的约数中选 heads：{divisors}。"},
    {"bad_option.vocab",
     "vocab={vocab} is too small for the task {task} with T={T}: its sequences need {needed} different tokens, so vocab must be at least {needed}.",
     "vocab={vocab} 对 T={T} 的任务 {task} 太小：它的序列需要 {needed} 个不同的词元，所以 vocab 至少为 {needed}。"},
    {"bad_option.with_checkpoint",
     "{field} cannot be given with checkpoint: a checkpoint holds its own options. Give the checkpoint alone.",
     "{field} 不能和 checkpoint 一起给出：检查点带有自己的选项。请只给出检查点。"},
    {"bad_option.fixed",
     "{field} cannot change on a trainer: it shapes the model or its data. Change {options} with trainer.configure(), or make a new trainer with engine.trainer().",
     "训练器的 {field} 不能更改：它决定模型或数据。trainer.configure() 只能更改 {options}；要改 {field}，请用 engine.trainer() 新建训练器。"},
    {"checkpoint.not_a_checkpoint",
     "checkpoint is not an mha-lens trainer checkpoint (one starts with the bytes \"MHAT\"): give what trainer.save() returned.",
     "checkpoint 不是 mha-lens 训练器的检查点（检查点以字节 \"MHAT\" 开头）：请给出 trainer.save() 返回的内容。"},
    {"checkpoint.version",
     "checkpoint was saved in version {found} of the trainer's format, and this engine reads version {expected}: train again with this engine.",
     "checkpoint 是以训练器格式第 {found} 版保存的，而这个引擎读取第 {expected} 版：请用这个引擎重新训练。"},
    {"checkpoint.corrupt", "checkpoint is damaged ({@reason}): nothing was loaded.", "checkpoint 已损坏（{@reason}）：没有加载任何内容。"},
    {"bad_tokens.length",
     "tokens has {count} values: give whole sequences of T={T} tokens each (a multiple of {T}, at most {max}).",
     "tokens 有 {count} 个值：请给出若干个完整的序列，每个 T={T} 个词元（{T} 的倍数，最多 {max} 个）。"},
    {"bad_tokens.value", "tokens[{index}]={value} is not a token: tokens are whole numbers from 0 to {max} (vocab={vocab}).",
     "tokens[{index}]={value} 不是词元：词元是 0 到 {max} 的整数（vocab={vocab}）。"},
    {"memory_cap.trainer", "This trainer needs {needed} of memory, more than the {limit} a trainer may use: lower batch, T, width or layers.",
     "这个训练器需要 {needed} 内存，超过了训练器可用的 {limit}：请减小 batch、T、width 或 layers。"},
    {"term.corrupt.length", "its length is not what its header says", "它的长度与头部记录的不符"},
    {"term.corrupt.checksum", "its checksum does not match its bytes", "它的校验和与内容不符"},
    {"term.corrupt.options", "its options are not valid", "它的选项无效"},
    {"term.corrupt.values", "it holds a value that is not a finite number", "它含有不是有限数的值"},
    {"term.wanted.task", "a task name (reverse, sort, previous or induction)", "任务名（reverse、sort、previous 或 induction）"},
    {"term.wanted.checkpoint", "the Uint8Array that trainer.save() returned", "trainer.save() 返回的 Uint8Array"},
    {"term.wanted.tokens", "an Int32Array or an array of whole numbers", "Int32Array 或整数数组"},
    {"term.wanted.options", "an object such as {task: 'reverse'}", "对象，例如 {task: 'reverse'}"},

    // --- Tiled and incremental attention -----------------------------------------------------
    {"bad_value.backward_algorithm",
     "dOutput is given with algorithm \"{algorithm}\": the backward pass goes back through the naive pass's steps. Remove dOutput, or choose algorithm \"naive\".",
     "给出了 dOutput，但 algorithm 是 \"{algorithm}\"：反向传播沿着朴素算法的各步往回走。请去掉 dOutput，或选择 algorithm \"naive\"。"},
    {"bad_value.algorithm",
     "algorithm must be \"naive\", \"tiled\" or \"incremental\", not {@got}.",
     "algorithm 必须是 \"naive\"、\"tiled\" 或 \"incremental\"，而不是{@got}。"},
    {"bad_value.block_unused",
     "{field} is set but algorithm is \"{algorithm}\": block sizes belong to algorithm \"tiled\". Remove {field}, or set "
     "algorithm to \"tiled\".",
     "设置了 {field}，但 algorithm 是 \"{algorithm}\"：分块大小只用于 algorithm \"tiled\"。请去掉 {field}，或把 algorithm 设为 \"tiled\"。"},
    {"bad_value.incremental_cross",
     "algorithm \"incremental\" decodes a sequence's own tokens (causal self-attention), but this config is cross-attention "
     "(kv given, or Tk={Tk} ≠ T={T}). Remove Tk and kv, or choose algorithm \"naive\" or \"tiled\".",
     "algorithm \"incremental\" 解码序列自己的词元（因果自注意力），但这个配置是交叉注意力（给了 kv，或 Tk={Tk} ≠ T={T}）。"
     "请去掉 Tk 和 kv，或选择 algorithm \"naive\" 或 \"tiled\"。"},
    {"bad_value.incremental_mask",
     "algorithm \"incremental\" decodes one token at a time, and a token cannot attend to the tokens after it: it needs "
     "mask \"causal\". Set mask to \"causal\", or choose algorithm \"naive\" or \"tiled\".",
     "algorithm \"incremental\" 一次解码一个词元，词元不能关注它之后的词元：它需要 mask \"causal\"。请把 mask 设为 \"causal\"，"
     "或选择 algorithm \"naive\" 或 \"tiled\"。"},
    {"bad_size.tiles",
     "blockQ={Bq} and blockK={Bk} cut the {heads} score matrices of {Tq}×{Tk} into {count} tiles, more than one run may go "
     "through ({max}). Raise blockQ and blockK (64 and 128 are fast).",
     "blockQ={Bq} 和 blockK={Bk} 把 {heads} 个 {Tq}×{Tk} 的分数矩阵切成了 {count} 个分块，超过了一次运行能处理的 {max} 个。"
     "请增大 blockQ 和 blockK（64 和 128 很快）。"},
    {"bad_size.decode_rows",
     "Incremental decoding attends B·H·T = {B}·{H}·{T} = {count} times (one query of one head per token), more than one run "
     "may do ({max}). Lower B, H or T.",
     "增量解码要做 B·H·T = {B}·{H}·{T} = {count} 次注意力（每个词元、每个头一个查询），超过了一次运行能做的 {max} 次。请减小 B、H 或 T。"},
    {"bad_size.work",
     "This config's attention takes {flops} floating-point operations (4·B·H·Tq·Tk·D), more than one {algorithm} run may do "
     "({max}, about a minute at this engine's speed). Lower T, Tk, B or H.",
     "这个配置的注意力需要 {flops} 次浮点运算（4·B·H·Tq·Tk·D），超过了一次 {algorithm} 运行能做的 {max} 次（按本引擎的速度约一分钟）。"
     "请减小 T、Tk、B 或 H。"},
    {"bad_value.run_algorithm", "{method}() needs a run with algorithm \"{wanted}\"; this run's is \"{algorithm}\".",
     "{method}() 需要 algorithm 为 \"{wanted}\" 的运行；这次运行的是 \"{algorithm}\"。"},
    {"bad_value.slice_head",
     "A slice {batch, head} takes both, and only of {steps}; \"{step}\" is asked for whole.",
     "切片 {batch, head} 需要同时给出两者，且只适用于 {steps}；\"{step}\" 只能整体获取。"},
    {"bad_value.slice_t",
     "A slice by decoding step t is asked only of the decoding steps of an incremental run ({steps}), without batch or "
     "head; \"{step}\" is asked for whole.",
     "按解码步 t 切片只适用于增量运行的解码步骤（{steps}），且不能与 batch 或 head 同用；\"{step}\" 只能整体获取。"},
    {"term.size.blockQ", "the query block size (query rows per tile)", "查询分块大小（每个分块的查询行数）"},
    {"term.size.blockK", "the key block size (keys per tile)", "键分块大小（每个分块的键数）"},
    {"term.memory.tile", "one tile of scores", "一个分块的分数"},
    {"term.memory.scores_row", "one row of scores", "一行分数"},
    {"term.memory.try_tiled", " Computed tiled without snapshots (algorithm \"tiled\", snapshots false) it would need {tiled_needed}.",
     "若不记录快照、分块计算（algorithm \"tiled\"，snapshots 为 false），它只需 {tiled_needed}。"},
    {"term.ask_t", ": ask for it at one decoding step t", "：请只取某一个解码步 t 时的它"},
    // --- Warnings ---------------------------------------------------------------------------
    {"warning.fully_masked",
     "Batch row {b}, {@rows}: every key is masked, so the attention weights are all 0 (PyTorch returns NaN for such a row).",
     "批次第 {b} 行、{@rows}：所有键都被掩码，因此注意力权重全为 0（PyTorch 对这样的行返回 NaN）。"},

    // --- Phrases ----------------------------------------------------------------------------
    {"term.size.B", "the batch size (sequences per batch)", "批大小（每批的序列数）"},
    {"term.size.T", "the query length (tokens per sequence)", "查询长度（每个序列的词元数）"},
    {"term.size.Tk", "the key/value length (tokens of the source sequence)", "键/值长度（源序列的词元数）"},
    {"term.size.C", "the model width (features per token)", "模型宽度（每个词元的特征数）"},
    {"term.size.H", "the number of query heads", "查询头的数量"},
    {"term.size.Hkv", "the number of key/value heads", "键/值头的数量"},
    {"term.set.B", "the batch size", "批大小"},
    {"term.set.T", "the query length", "查询长度"},
    {"term.set.C", "the model width", "模型宽度"},
    {"term.set.H", "the number of heads", "头数"},
    {"term.wanted.whole_min_1", "a whole number ≥ 1", "≥ 1 的整数"},
    {"term.wanted.whole_min_0", "a whole number ≥ 0", "≥ 0 的整数"},
    {"term.wanted.bool", "true or false", "true 或 false"},
    {"term.wanted.number", "a number", "数字"},
    {"term.wanted.floats", "an array of numbers (row-major values)", "数字数组（按行主序排列的值）"},
    {"term.wanted.key_lengths", "an array with one whole number per batch row", "数组（每个批次行一个整数）"},
    {"term.wanted.seed", "a whole number from 0 to 4294967295", "0 到 4294967295 之间的整数"},
    {"term.wanted.bytes", "a whole number of bytes", "以字节计的整数"},
    {"term.wanted.weights", "an object {Wq, Wk, Wv, Wo, bq, bk, bv, bo}", "对象 {Wq, Wk, Wv, Wo, bq, bk, bv, bo}"},
    {"term.wanted.snapshots", "true, false or \"lazy\"", "true、false 或 \"lazy\""},
    {"term.got.string", "the string \"{got_text}\"", "字符串 \"{got_text}\""},
    {"term.got.array", "an array of {got_text}", "长度为 {got_text} 的数组"},
    {"term.got.object", "an object", "对象"},
    {"term.got.null", "null", "null"},
    {"term.got.value", "{got_text}", "{got_text}"},
    {"term.got.other", "a value of another kind", "其他类型的值"},
    {"term.unit.value", "value", "个值"},
    {"term.unit.values", "values", "个值"},
    {"term.empty_name", " (an empty name)", "（空名字）"},
    {"term.did_you_mean", " (did you mean \"{suggestion}\"?)", "（你是想写 \"{suggestion}\" 吗？）"},
    {"term.and_biases", ", and bq, bk, bv and bo because bias is true", "；bias 为 true，所以还需要 bq、bk、bv 和 bo"},
    {"term.where.projections", "the projections Q, K, V", "投影 Q、K、V"},
    {"term.where.scores", "the attention scores Q·Kᵀ", "注意力分数 Q·Kᵀ"},
    {"term.where.output", "the output", "输出"},
    {"term.where.gradients", "the gradients of the backward pass", "反向传播的梯度"},
    {"term.memory.snapshots", "its snapshots", "它的快照"},
    {"term.memory.weights", "the weights", "权重"},
    {"term.memory.inputs", "the inputs", "输入"},
    {"term.memory.working", "the tensors of the pass", "计算过程中的张量"},
    {"term.memory.scores", "the attention scores of one head", "一个头的注意力分数"},
    {"term.ask_slice", ": ask for one {batch, head} of it", "：请只取其中一个 {batch, head}"},
    {"term.rows.one", "query {first}", "查询 {first}"},
    {"term.rows.range", "queries {first}–{last}", "查询 {first}–{last}"},
};

const MessageEntry* find_entry(std::string_view key) {
    for (const MessageEntry& entry : message_table())
        if (key == entry.key) return &entry;
    return nullptr;
}

const std::string* param(const Params& params, std::string_view name) {
    for (const auto& [key, value] : params)
        if (key == name) return &value;
    return nullptr;
}

bool is_name(std::string_view text) {
    if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
    for (const char ch : text)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
    return true;
}

std::string render_template(std::string_view text, const Params& params, Lang lang, int depth) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t open = text.find('{', at);
        const std::size_t close = open == std::string_view::npos ? open : text.find('}', open);
        if (close == std::string_view::npos) {
            out += text.substr(at);
            break;
        }
        const bool term = text[open + 1] == '@';
        const std::string_view name = text.substr(open + 1 + term, close - open - 1 - term);
        out += text.substr(at, open - at);
        if (!is_name(name)) {
            out += '{';  // text, as in "{batch, head}"
            at = open + 1;
            continue;
        }
        if (const std::string* value = param(params, name)) {
            const MessageEntry* entry = term && depth < 2 ? find_entry(*value) : nullptr;
            if (entry) out += render_template(lang == Lang::zh ? entry->zh : entry->en, params, lang, depth + 1);
            else if (!term) out += *value;
        }
        at = close + 1;
    }
    return out;
}

}  // namespace

const std::vector<MessageEntry>& message_table() {
    static const std::vector<MessageEntry> table(std::begin(messages), std::end(messages));
    return table;
}

std::string render_message(std::string_view key, const Params& params, Lang lang) {
    const MessageEntry* entry = find_entry(key);
    if (!entry) return std::string(key);
    return render_template(lang == Lang::zh ? entry->zh : entry->en, params, lang, 0);
}

std::string message_of(const MhaError& error, Lang lang) { return render_message(error.key(), error.params(), lang); }
std::string message_of(const Warning& warning, Lang lang) { return render_message(warning.key, warning.params, lang); }

MhaError::MhaError(std::string field, std::string key, Params params)
    : std::runtime_error(render_message(key, params)), field_(std::move(field)), key_(std::move(key)), params_(std::move(params)) {}

}  // namespace mha
