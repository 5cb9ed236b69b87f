// Qdrant points with a named sparse vector, one JSON object per line as they go in an upsert's "points" list:
// {"id", "vector": {"<name>": {"indices": [...], "values": [...]}}, "payload": {"doc_id", "text"}}
// (qdrant.tech/documentation/concepts/vectors/#sparse-vectors; a point id is an unsigned 64-bit integer or a UUID,
// qdrant.tech/documentation/concepts/points/#point-ids).
import type { SparseVector } from '../util/sparse-vector.ts';
import { float32Text } from './weights-json.ts';

/** The UUID forms Qdrant's docs list: simple (32 hex digits), hyphenated, and urn:uuid:. */
const QDRANT_UUID = /^(?:urn:uuid:)?(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** A decimal unsigned integer without leading zeros that JSON carries exactly (at most 2^53 - 1). */
const SAFE_UINT = /^(?:0|[1-9][0-9]{0,15})$/;

function isQdrantId(id: string): boolean {
  return QDRANT_UUID.test(id) || (SAFE_UINT.test(id) && Number(id) <= Number.MAX_SAFE_INTEGER);
}

/**
 * Point ids for records: their own ids when every one is a Qdrant id (an unsigned integer or a UUID) and none repeats;
 * otherwise the line numbers 0..n-1 (`renumbered`), the record id staying in the payload's `doc_id`.
 */
export function qdrantPointIds(ids: readonly string[]): { pointIds: (number | string)[]; renumbered: boolean } {
  const own = ids.every(isQdrantId) && new Set(ids.map((id) => id.toLowerCase())).size === ids.length;
  if (!own) return { pointIds: ids.map((_, i) => i), renumbered: true };
  return { pointIds: ids.map((id) => (SAFE_UINT.test(id) ? Number(id) : id)), renumbered: false };
}

/** Qdrant's sparse vector: {"indices": [...], "values": [...]}, as JSON text. */
export function qdrantSparseVectorText(vector: SparseVector): string {
  const values = Array.from(vector.values, float32Text);
  return `{"indices":[${Array.from(vector.indices).join(',')}],"values":[${values.join(',')}]}`;
}

/** One point: its id, the sparse vector under `name`, and the record's id and text as payload. */
export function qdrantPointLine(
  pointId: number | string,
  record: { id: string; text: string },
  vector: SparseVector,
  name: string,
): string {
  const payload = `{"doc_id":${JSON.stringify(record.id)},"text":${JSON.stringify(record.text)}}`;
  return `{"id":${JSON.stringify(pointId)},"vector":{${JSON.stringify(name)}:${qdrantSparseVectorText(vector)}},"payload":${payload}}`;
}
