/** Medians, ratios and markdown tables. */

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A number for a table: `–` when unknown, else rounded to `digits` with thousands separators. */
export function fmt(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * The straight line that fits the windows' req/s best (least squares): its value at the first and
 * the last window tells a trend (a leak, a growing cost) apart from one noisy window at either end,
 * and the residuals' standard deviation says how noisy a single window is.
 */
export function linearFit(values: readonly number[]): { first: number; last: number; mean: number; residualSd: number } {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const xMean = (n - 1) / 2;
  let sxy = 0;
  let sxx = 0;
  values.forEach((y, x) => {
    sxy += (x - xMean) * (y - mean);
    sxx += (x - xMean) ** 2;
  });
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const at = (x: number) => mean + slope * (x - xMean);
  const residuals = values.map((y, x) => y - at(x));
  const residualSd = n > 2 ? Math.sqrt(residuals.reduce((a, r) => a + r * r, 0) / (n - 2)) : 0;
  return { first: at(0), last: at(n - 1), mean, residualSd };
}
