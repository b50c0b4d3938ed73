// The sequence lengths of a memory curve (engine.memoryCurve): T = 1, 2, 4, … with the config's
// own T among them, Tk following T in self-attention and staying put in cross-attention. No DOM.

/** [{ T, Tk (only in cross-attention), current }] */
export function curveSizes(config, points) {
  const cross = config.Tk !== undefined && config.Tk !== config.T;
  const Ts = new Set(points ?? [config.T]);
  if (!points) for (let T = 1; T <= 2 ** 17; T *= 2) Ts.add(T);
  return [...Ts].sort((a, b) => a - b).map((T) => ({ T, Tk: cross ? config.Tk : undefined, current: T === config.T }));
}
