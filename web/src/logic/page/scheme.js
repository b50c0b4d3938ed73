// Whether the host page around an element is dark, from what the browser computed: the first
// opaque background behind the element, else the text colour the host gives it (over a picture),
// else the page's canvas, dark only when the page's color-scheme says so. The elements take dark
// colours on a dark host and light ones on a light host, so that they read on any background
// without an author setting `theme`. No DOM: the elements pass in computed styles.

/** "rgb(22, 24, 29)", "rgba(0 0 0 / 0.5)", "#16181d" or "#fff" → { r, g, b, a } (0–255, a 0–1); null for anything else. */
export function parseColor(text) {
  const value = String(text ?? '').trim().toLowerCase();
  const hexMatch = /^#([0-9a-f]{3,8})$/.exec(value);
  if (hexMatch) {
    let digits = hexMatch[1];
    if (digits.length === 3 || digits.length === 4) digits = [...digits].map((d) => d + d).join('');
    if (digits.length !== 6 && digits.length !== 8) return null;
    const [r, g, b, a = 255] = digits.match(/../g).map((pair) => parseInt(pair, 16));
    return { r, g, b, a: a / 255 };
  }
  const rgb = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(value);
  if (!rgb) return null;
  const alpha = rgb[4] === undefined ? 1 : rgb[4].endsWith('%') ? parseFloat(rgb[4]) / 100 : parseFloat(rgb[4]);
  return { r: +rgb[1], g: +rgb[2], b: +rgb[3], a: alpha };
}

/** WCAG relative luminance of { r, g, b } (0–255 each): 0 black … 1 white. */
export function luminance({ r, g, b }) {
  const linear = (c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

// Below this luminance white text has more contrast than black text (both 4.6:1 at 0.179).
const DARK_BELOW = 0.179;

/** True for a background on which light text reads better than dark text. */
export const isDarkBackground = (color) => luminance(color) < DARK_BELOW;

/**
 * Whether the page's canvas (what shows where nothing paints) is dark: its color-scheme (CSS on
 * the root, or <meta name="color-scheme">) allows dark, and only dark or the reader prefers dark.
 */
export function canvasIsDark(colorScheme, prefersDark) {
  const words = String(colorScheme ?? '').toLowerCase().split(/\s+/);
  if (!words.includes('dark')) return false;
  return !words.includes('light') || prefersDark;
}

/**
 * Dark or light for an element, from `layers`: the computed { backgroundColor, backgroundImage,
 * color } of each ancestor, nearest first (across shadow roots, up to <html>); `canvas` is whether
 * the page's canvas is dark. The first background at least half opaque decides; a background
 * picture (whose colours cannot be read) leaves it to the text colour the host set there.
 */
export function hostIsDark(layers, canvas) {
  for (const layer of layers) {
    if (layer.backgroundImage && layer.backgroundImage !== 'none') {
      const text = parseColor(layer.color);
      if (text) return !isDarkBackground(text); // light text: the picture behind it is dark
    }
    const background = parseColor(layer.backgroundColor);
    if (background && background.a >= 0.5) return isDarkBackground(background);
  }
  return canvas;
}
