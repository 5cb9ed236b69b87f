// A matrix held as consecutive row ranges in separate buffers, each within one storage binding: how a decoder of a
// large vocabulary (XLM-R: 250k x 768 floats) fits a device that grants 128 MiB per binding.
import type { Tensor } from './tensor.ts';

/** Rows [row0, row0 + tensor.shape[0]) of a matrix. */
export interface RowPart {
  row0: number;
  tensor: Tensor;
}

/** A whole matrix in one tensor, or its parts in row order. */
export type RowParted = Tensor | readonly RowPart[];

/** The parts of a matrix (a whole tensor is one part), checked to tile `rows` rows of width `cols` in order. */
export function rowPartsOf(matrix: RowParted, rows: number, cols: number, what: string): readonly RowPart[] {
  if (!Array.isArray(matrix)) {
    const tensor = matrix as Tensor;
    if (tensor.shape.length !== 2 || tensor.shape[0] !== rows || tensor.shape[1] !== cols || tensor.dtype !== 'f32') {
      throw new Error(`${what} must be [${rows}x${cols}]:f32, got ${tensor}`);
    }
    return [{ row0: 0, tensor }];
  }
  const parts = matrix as readonly RowPart[];
  let next = 0;
  for (const { row0, tensor } of parts) {
    if (row0 !== next || tensor.shape.length !== 2 || tensor.shape[1] !== cols || tensor.dtype !== 'f32') {
      throw new Error(`${what}: part at row ${row0} (${tensor}) does not continue a [${rows}x${cols}] f32 matrix at row ${next}`);
    }
    next += tensor.shape[0];
  }
  if (next !== rows) throw new Error(`${what}: parts hold ${next} rows, expected ${rows}`);
  return parts;
}

/** The one tensor of a matrix held whole; a clear error naming `what` needs it so when it is in row parts. */
export function wholeMatrix(matrix: RowParted, what: string): Tensor {
  if (!Array.isArray(matrix)) return matrix as Tensor;
  throw new Error(
    `${what} needs the decoder matrix in one storage binding, but it is held in ${matrix.length} row parts (larger than this device's binding limit)`,
  );
}

/**
 * Row ranges of a [rows x cols] f32 matrix, each within `maxBytes` and a multiple of `align` rows (but the last):
 * one range when the whole matrix fits.
 */
export function planRowParts(rows: number, cols: number, maxBytes: number, align: number): { row0: number; rows: number }[] {
  const rowBytes = 4 * cols;
  if (rows * rowBytes <= maxBytes) return [{ row0: 0, rows }];
  const perPart = Math.floor(maxBytes / rowBytes / align) * align;
  if (perPart < 1) throw new Error(`a part of ${align} rows of ${cols} floats is over the ${maxBytes}-byte binding limit`);
  const ranges: { row0: number; rows: number }[] = [];
  for (let row0 = 0; row0 < rows; row0 += perPart) ranges.push({ row0, rows: Math.min(perPart, rows - row0) });
  return ranges;
}
