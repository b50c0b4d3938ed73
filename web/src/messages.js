// The engine's messages in the reader's language. The engine (C++) words every error and warning
// in English, with the numbers of the config filled in; this module rewords them in Chinese by
// matching each English sentence pattern and keeping its numbers. tests/js/messages.test.js drives
// every kind of invalid config through the engine and fails if a message has no translation.

const MEANINGS = {
  'the batch size (sequences per batch)': '批大小（每批的序列数）',
  'the query length (tokens per sequence)': '查询长度（每个序列的词元数）',
  'the key/value length (tokens of the source sequence)': '键/值长度（源序列的词元数）',
  'the model width (features per token)': '模型宽度（每个词元的特征数）',
  'the number of query heads': '查询头的数量',
  'the number of key/value heads': '键/值头的数量',
  // "X is missing: set …"
  'the batch size': '批大小',
  'the query length': '查询长度',
  'the model width': '模型宽度',
  'the number of heads': '头数',
  // "X must be …"
  'a whole number ≥ 1': '≥ 1 的整数',
  'a whole number ≥ 0': '≥ 0 的整数',
  'true or false': 'true 或 false',
  'a number': '数字',
  'an array of numbers (row-major values)': '数字数组（按行主序排列的值）',
  'an array with one whole number per batch row': '数组（每个批次行一个整数）',
  'a whole number from 0 to 4294967295': '0 到 4294967295 之间的整数',
  'a whole number of bytes': '以字节计的整数',
  'an object {Wq, Wk, Wv, Wo, bq, bk, bv, bo}': '对象 {Wq, Wk, Wv, Wo, bq, bk, bv, bo}',
  // magnitude check
  'the projections Q, K, V': '投影 Q、K、V',
  'the attention scores Q·Kᵀ': '注意力分数 Q·Kᵀ',
  'the output': '输出',
};

const meaning = (text) => MEANINGS[text] ?? text;

// How the engine describes a value it got: the string "x", an array of 3, an object, null, NaN, 2.5.
function describedValue(text) {
  let m;
  if ((m = /^the string (".*")$/s.exec(text))) return `字符串 ${m[1]}`;
  if ((m = /^an array of (\d+)$/.exec(text))) return `长度为 ${m[1]} 的数组`;
  if (text === 'an object') return '对象';
  return text;
}

// [pattern, (match) => Chinese]. Order matters only where patterns overlap: specific ones first.
const ZH = [
  [/^(\w+)=(-?\d+) is not allowed: \w+ is (.+) and must be at least 1\.$/, (m) => `${m[1]}=${m[2]} 不合法：${m[1]} 是${meaning(m[3])}，至少为 1。`],
  [/^(\S+)=(\S+) is too large: sizes go up to ([\d,]+) \(and the memory cap limits their product\)\.$/, (m) => `${m[1]}=${m[2]} 太大：每个尺寸最大为 ${m[3]}（它们的乘积还受内存上限限制）。`],
  [/^(\S+)=(\S+) is too large: sizes go up to ([\d,]+)\.$/, (m) => `${m[1]}=${m[2]} 太大：尺寸最大为 ${m[3]}。`],
  [/^(\S+)=(\S+) is too large\.$/, (m) => `${m[1]}=${m[2]} 太大。`],
  [/^(\S+)=(\S+) is not a whole number: \S+ counts things, so it must be (.+)\.$/, (m) => `${m[1]}=${m[2]} 不是整数：${m[1]} 是个数，必须是${meaning(m[3])}。`],
  [/^(\S+) has (\d+) values? but needs (.+) = (\d+) for embed_dim C\.$/, (m) => `${m[1]} 有 ${m[2]} 个值，但需要 ${m[3]} = ${m[4]} 个（C 是 embed_dim）。`],
  [/^(\S+) has (\d+) values? but needs (.+) = (\d+)\.$/, (m) => `${m[1]} 有 ${m[2]} 个值，但需要 ${m[3]} = ${m[4]} 个。`],
  [/^(\S+) is (NaN|Infinity|-Infinity): explicit tensors must hold finite numbers\.$/, (m) => `${m[1]} 是 ${m[2]}：显式张量只能包含有限的数。`],
  [/^(\S+)=(\S+) is beyond float32's range \(±3\.4e\+38\): tensors are float32\.$/, (m) => `${m[1]}=${m[2]} 超出 float32 的范围（±3.4e+38）：张量是 float32。`],
  [/^(\S+) is given but bias is false: remove the biases or set bias to true\.$/, (m) => `给出了 ${m[1]}，但 bias 为 false：请去掉偏置，或把 bias 设为 true。`],
  [/^(\S+) is missing: explicit weights need Wq, Wk, Wv and Wo(, and bq, bk, bv and bo because bias is true)?\.$/, (m) => `缺少 ${m[1]}：显式权重需要 Wq、Wk、Wv 和 Wo${m[2] ? '；bias 为 true，所以还需要 bq、bk、bv 和 bo' : ''}。`],
  [/^(\S+) is (\S+) in size: with these values (.+) could reach (\S+), beyond the 8\.5e\+37 that float32 holds safely \(a quarter of its largest number, 3\.4e\+38\), and the result would be Infinity or NaN\. Scale the explicit tensors down \(values within ±1e4 are always safe\)\.$/,
    (m) => `${m[1]} 的量级是 ${m[2]}：按这些值，${meaning(m[3])}可能达到 ${m[4]}，超过 float32 能安全容纳的 8.5e+37（其最大数 3.4e+38 的四分之一），结果会变成 Infinity 或 NaN。请把显式张量缩小（±1e4 以内总是安全的）。`],
  [/^C=(\d+) is not divisible by H=(\d+): every head needs D = C\/H features\. Choose H from the divisors of C=\d+: (.+)\.$/, (m) => `C=${m[1]} 不能被 H=${m[2]} 整除：每个头需要 D = C/H 个特征。请从 C=${m[1]} 的约数中选 H：${m[3]}。`],
  [/^Hkv=(\d+) is larger than H=(\d+): there cannot be more key\/value heads than query heads\. Choose Hkv from the divisors of H=\d+: (.+)\.$/, (m) => `Hkv=${m[1]} 大于 H=${m[2]}：键/值头不能比查询头多。请从 H=${m[2]} 的约数中选 Hkv：${m[3]}。`],
  [/^H=(\d+) is not divisible by Hkv=(\d+): each key\/value head is shared by H\/Hkv query heads\. Choose Hkv from the divisors of H=\d+: (.+)\.$/, (m) => `H=${m[1]} 不能被 Hkv=${m[2]} 整除：每个键/值头由 H/Hkv 个查询头共享。请从 H=${m[1]} 的约数中选 Hkv：${m[3]}。`],
  [/^keyLengths has (\d+) entries but B=(\d+): give one valid key length per batch row\.$/, (m) => `keyLengths 有 ${m[1]} 项，但 B=${m[2]}：每个批次行需要一个有效键长度。`],
  [/^keyLengths\[(\d+)\]=(-?\d+) is outside \[0, Tk=(\d+)\]: it counts the keys of batch row \d+ that are not padding\.$/, (m) => `keyLengths[${m[1]}]=${m[2]} 超出 [0, Tk=${m[3]}]：它是第 ${m[1]} 个批次行中不是填充的键的个数。`],
  [/^This config needs (.+) for its tensors, more than this build of the engine can address \((.+)\)\. Lower B, T, Tk or H: raising memoryCap cannot help\.$/, (m) => `这个配置的张量需要 ${m[1]}，超过了本引擎能寻址的 ${m[2]}。请减小 B、T、Tk 或 H：提高 memoryCap 没有用。`],
  [/^This config needs (.+) for its snapshots, above the memory cap of (.+) \(the scores-sized steps alone hold B·H·Tq·Tk = (.+) values each\)\. Lower B, T, Tk or H, or raise memoryCap\.$/, (m) => `这个配置的快照需要 ${m[1]}，超过了内存上限 ${m[2]}（仅分数大小的每一步就有 B·H·Tq·Tk = ${m[3]} 个值）。请减小 B、T、Tk 或 H，或提高 memoryCap。`],
  [/^The config must be a JSON object such as (.+), not (.+)\.$/, (m) => `配置必须是 JSON 对象，例如 ${m[1]}，而不是${describedValue(m[2])}。`],
  [/^The config must be an object such as (.+)\.$/, (m) => `配置必须是对象，例如 ${m[1]}。`],
  [/^The config is not valid JSON: (.+)$/s, (m) => `配置不是有效的 JSON：${m[1]}`],
  [/^The config holds a number it cannot read: (.+)$/s, (m) => `配置里有无法读取的数：${m[1]}`],
  [/^Unknown key weights\.(.*): weights takes Wq, Wk, Wv, Wo, bq, bk, bv and bo\.$/, (m) => `未知的键 weights.${m[1]}：weights 只接受 Wq、Wk、Wv、Wo、bq、bk、bv 和 bo。`],
  [/^Unknown config key "(.*)"( \(an empty name\))?(?: \(did you mean "(.+)"\?\))?\. Known keys: (.+)\.$/s, (m) => `未知的配置键 "${m[1]}"${m[2] ? '（空名字）' : ''}${m[3] ? `（你是想写 "${m[3]}" 吗？）` : ''}。已知的键：${m[4]}。`],
  [/^(\S+) is missing: set (.+), for example (.+)\.$/, (m) => `缺少 ${m[1]}：请设置${meaning(m[2])}，例如 ${m[3]}。`],
  [/^seed=(-?\d+) is outside 0 to 4294967295 \(a 32-bit seed\)\.$/, (m) => `seed=${m[1]} 超出 0 到 4294967295（32 位种子）。`],
  [/^mask must be "none" or "causal", not (.+)\. A padding mask is set with keyLengths, and combines with either\.$/s, (m) => `mask 必须是 "none" 或 "causal"，而不是${describedValue(m[1])}。填充掩码用 keyLengths 设置，可以和两者之一组合。`],
  [/^memoryCap must be a positive number of bytes\.$/, () => 'memoryCap 必须是正的字节数。'],
  [/^C must be at least 1 \(the embed_dim of the module\)\.$/, () => 'C 至少为 1（模块的 embed_dim）。'],
  [/^Give both in_proj_bias and out_proj_bias \(a module with bias=True\), or neither \(bias=False\)\.$/, () => '请同时给出 in_proj_bias 和 out_proj_bias（bias=True 的模块），或者都不给（bias=False）。'],
  [/^(\S+) must be a Float32Array or an array of numbers\.$/, (m) => `${m[1]} 必须是 Float32Array 或数字数组。`],
  [/^fromTorch takes an object with (.+)\.$/, (m) => `fromTorch 接受一个包含 ${m[1]} 的对象。`],
  [/^A slice \{batch, head\} takes both, and only of scores, scaled, masked or weights; "(.*)" is asked for whole\.$/, (m) => `切片 {batch, head} 需要同时给出两者，且只适用于 scores、scaled、masked 或 weights；"${m[1]}" 只能整体获取。`],
  [/^(batch|head)=(.*) is outside 0…(-?\d+)\.$/, (m) => `${m[1]}=${m[2]} 超出 0…${m[3]}。`],
  [/^C=(.*) is not allowed: C \(embed_dim\) must be a whole number from 1 to 1000000\.$/, (m) => `C=${m[1]} 不合法：C（embed_dim）必须是 1 到 1000000 之间的整数。`],
  [/^(\w+) must be a whole number ≥ 1 \(got (.*)\)\.$/, (m) => `${m[1]} 必须是 ≥ 1 的整数（得到 ${m[2]}）。`],
  [/^(\w+) must hold (\d+)·(\d+) = (\d+) numbers \(got (.*)\)\.$/, (m) => `${m[1]} 必须包含 ${m[2]}·${m[3]} = ${m[4]} 个数（得到 ${m[5]}）。`],
  [/^(.+) must be (.+), not (.+)\.$/s, (m) => `${m[1]} 必须是${meaning(m[2])}，而不是${describedValue(m[3])}。`],
  [/^The engine ran out of memory for this config: lower B, T, Tk or H, or memoryCap\.$/, () => '引擎为这个配置耗尽了内存：请减小 B、T、Tk 或 H，或 memoryCap。'],
  [/^There is no step "(.*)" in this run \(it was computed without snapshots\)\.$/, (m) => `这次运行没有步骤 "${m[1]}"（它是在不记录快照的情况下计算的）。`],
  [/^There is no step "(.*)" in this run\. Its steps are: (.+)\.$/, (m) => `这次运行没有步骤 "${m[1]}"。它的步骤有：${m[2]}。`],
  [/^This run was released \(run\.release\(\)\): its arrays now belong to the engine\. Keep a run until you are done with it, or run the config again\.$/, () => '这次运行已被释放（run.release()）：它的数组现在归引擎所有。请在用完之前保留这次运行，或重新运行该配置。'],
  [/^Internal engine error: (.+)$/s, (m) => `引擎内部错误：${m[1]}`],
  [/^Batch row (\d+), query (\d+): every key is masked, so its attention weights are all 0 \(PyTorch returns NaN for such a row\)\.$/, (m) => `批次第 ${m[1]} 行、查询 ${m[2]}：所有键都被掩码，因此它的注意力权重全为 0（PyTorch 对这样的行返回 NaN）。`],
];

/**
 * `message` (an engine error or warning, in English) in `lang`. English comes back unchanged;
 * for Chinese, a message without a known pattern also comes back unchanged (and the test fails).
 */
export function localizeMessage(message, lang) {
  if (lang !== 'zh' || typeof message !== 'string') return message;
  for (const [pattern, render] of ZH) {
    const match = pattern.exec(message);
    if (match) return render(match);
  }
  return message;
}
