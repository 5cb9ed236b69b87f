// SHA-256 through Web Crypto (`crypto.subtle`, in the page, its worker and Node 20 alike), for keys and seals that a
// checksum would not hold: a file forged to another's CRC-32 never has its SHA-256.

/** The SHA-256 of `bytes` (or of a string's UTF-8), as 64 lower-case hex digits. */
export async function sha256Hex(bytes: Uint8Array | string): Promise<string> {
  const data =
    typeof bytes === 'string'
      ? new TextEncoder().encode(bytes)
      : bytes.buffer instanceof ArrayBuffer
        ? (bytes as Uint8Array<ArrayBuffer>)
        : Uint8Array.from(bytes); // a view of shared memory, which Web Crypto does not take
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}
