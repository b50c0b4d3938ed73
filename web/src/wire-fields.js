// How engine.js hands a plain config to the engine: as numbers in the engine's wire fields
// (bindings.cpp, run_fields). A slider sends the same few plain keys run after run; writing and
// parsing them as JSON was a third of a toy-size run, and reading them out of the JS object one
// Embind call at a time would cost about as much.

// As in bindings.cpp: [0…11] the config, [12…21] the lengths of the tensors staged in the heap,
// [22] keyLengths' count, [23…] keyLengths.
const WIRE_STAGED = 12, WIRE_KEY_LENGTHS = 22, WIRE_MAX_KEY_LENGTHS = 256;

/** The explicit tensors in the order the engine reads them from its staging area. */
export const STAGED_ORDER = ['x', 'kv', 'Wq', 'Wk', 'Wv', 'Wo', 'bq', 'bk', 'bv', 'bo'];

/** Tensors this small (floats) go through the staging area; larger ones as Float32Arrays. */
export const STAGE_BELOW = 65536;

/** An object literal's kind of value: not null, an array or a typed array (engine.js uses it too). */
export const isPlainObject = (value) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value);

/**
 * Writes `rest` (a config without its tensors) into the wire fields at `at` in the Float64Array
 * `f` (the engine's HEAPF64) and returns true, only for a config that the engine's config reader
 * (config_reader.hpp) would read without complaint to the same Config: every size a safe integer,
 * seed 0…2³²−1, mask and snapshots known words, no other keys. Any message about it then still
 * comes from the engine's own checks (validate()). Returns false for anything else, which the
 * engine then reads from the object itself.
 */
export function writeFields(rest, f, at) {
  f.fill(NaN, at, at + WIRE_KEY_LENGTHS + 1);
  let sizes = 0;
  for (const key in rest) {
    const value = rest[key];
    switch (key) {
      case 'B': case 'T': case 'C': case 'H':
        if (!Number.isSafeInteger(value)) return false;
        f[at + 'BTCH'.indexOf(key)] = value;
        ++sizes;
        break;
      case 'Tk': case 'Hkv':
        if (value === null) break;
        if (!Number.isSafeInteger(value)) return false;
        f[at + (key === 'Tk' ? 4 : 5)] = value;
        break;
      case 'bias':
        if (typeof value !== 'boolean') return false;
        f[at + 6] = value ? 1 : 0;
        break;
      case 'seed':
        if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) return false;
        f[at + 7] = value;
        break;
      case 'mask':
        if (value !== 'none' && value !== 'causal') return false;
        f[at + 8] = value === 'causal' ? 1 : 0;
        break;
      case 'snapshots':
        if (value !== true && value !== false && value !== 'lazy') return false;
        f[at + 9] = value === 'lazy' ? 2 : value ? 1 : 0;
        break;
      case 'memoryCap':
        if (!Number.isSafeInteger(value) || value < 1) return false;
        f[at + 10] = value;
        break;
      case 'weights':  // every entry was a tensor (splitConfig moved them)
        if (!isPlainObject(value) || Object.keys(value).length > 0) return false;
        f[at + 11] = 1;
        break;
      case 'keyLengths':
        if (value === null) break;
        if (!Array.isArray(value) || value.length > WIRE_MAX_KEY_LENGTHS || !value.every(Number.isSafeInteger)) return false;
        f[at + WIRE_KEY_LENGTHS] = value.length;
        f.set(value, at + WIRE_KEY_LENGTHS + 1);
        break;
      default:
        return false;
    }
  }
  return sizes === 4;  // a missing size is named by the engine's parser
}

/**
 * Stages the small explicit tensors (fewer than STAGE_BELOW values) for a plain config: writes
 * their lengths into the wire fields at `at` in `f` and their values at `first` in `heap` (the
 * engine's HEAPF32, from stagingAddress), in STAGED_ORDER. Returns the tensors that are left,
 * which the engine reads as Float32Arrays, or null for none. A toy run's ten tensors crossed one
 * Embind call at a time, which cost a third of the run.
 */
export function stageTensors(tensors, small, f, at, heap, first) {
  let offset = first;
  for (let i = 0; i < STAGED_ORDER.length; ++i) {
    const tensor = small[STAGED_ORDER[i]];
    if (!tensor) continue;
    f[at + WIRE_STAGED + i] = tensor.length;
    heap.set(tensor, offset);
    offset += tensor.length;
  }
  let rest = null;
  for (const name in tensors) if (!small[name]) (rest ??= {})[name] = tensors[name];
  return rest;
}
