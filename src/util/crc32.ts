// CRC-32 (IEEE 802.3, as zip and PNG use it), incremental: crc32(b, crc32(a)) === crc32(a ++ b).

let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  return table;
}

/** The CRC-32 of `bytes`, continuing from the CRC-32 of what came before them (`previous`, 0 for none). */
export function crc32(bytes: Uint8Array, previous = 0): number {
  const t = crcTable();
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) crc = t[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
