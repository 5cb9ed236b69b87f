// Line styles of chart series: an Okabe-Ito colour AND a dash pattern each, so lines differ without colour vision.
import { OKABE_ITO } from './theme.ts';

export interface SeriesStyle {
  colour: string;
  /** SVG stroke-dasharray ("none" for solid). */
  dash: string;
}

const STYLES: readonly SeriesStyle[] = [
  { colour: OKABE_ITO.vermillion, dash: 'none' },
  { colour: OKABE_ITO.blue, dash: '9 5' },
  { colour: OKABE_ITO.bluishGreen, dash: '2 4' },
  { colour: OKABE_ITO.reddishPurple, dash: '12 4 2 4' },
  { colour: OKABE_ITO.orange, dash: '5 3' },
  { colour: OKABE_ITO.black, dash: '1 3 6 3' },
];

/** The style of the i-th series (cycles after six). */
export function seriesStyle(i: number): SeriesStyle {
  return STYLES[i % STYLES.length];
}

/** A loss or count in few characters: 0.0123 → "0.0123", 1234 → "1234", 123456 → "1.23e5", 100000 → "1e5", 0.000012 → "1.2e-5". */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e5 || magnitude < 1e-3)) {
    const [mantissa, exponent] = value.toExponential(magnitude >= 1e5 ? 2 : 1).split('e');
    return `${Number(mantissa)}e${Number(exponent)}`;
  }
  return String(Number(value.toPrecision(magnitude >= 1000 ? 4 : 3)));
}
