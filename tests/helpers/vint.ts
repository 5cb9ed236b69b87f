// Lucene's DataOutput.writeVInt written out byte by byte, as the tests' independent measure of VInt sizes.

/** The bytes of writeVInt(n): low 7 bits first, the high bit set on every byte but the last (n taken as a 32-bit int). */
export function writeVInt(n: number): number[] {
  const bytes: number[] = [];
  let rest = n >>> 0;
  while ((rest & ~0x7f) !== 0) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return bytes;
}
