// A Parquet footer's schema walked without recursion, with caps on columns and depth (hyparquet builds its schema
// tree recursively, so a schema nested 100,000 deep overflows the stack), and the check that a column holds text.
import type { SchemaElement } from 'hyparquet';
import { clip } from '../format-error.ts';
import { ParquetFormatError, WRITE_AGAIN, declaredCount, shown } from './parquet-error.ts';

/** The most leaf columns a triplet table may have (sentence-transformers' widest have a few dozen negatives). */
export const MAX_PARQUET_COLUMNS = 1024;

/** The deepest nesting of groups read (a triplet table is flat; other columns may be structs or lists). */
export const MAX_SCHEMA_DEPTH = 64;

/** A column at the top of the schema: its element, and whether it is a group (a struct, list or map). */
export interface TopColumn {
  name: string;
  element: SchemaElement;
  group: boolean;
}

const FLAT_ADVICE = 'write only the query (or anchor), positive and negative columns';

/**
 * The schema's top-level columns, after checking that every group's declared children are there (no more, no
 * fewer), that it nests at most MAX_SCHEMA_DEPTH deep and has at most MAX_PARQUET_COLUMNS leaf columns.
 */
export function topLevelColumns(schema: readonly SchemaElement[], file: string): TopColumn[] {
  const fail = (problem: string): never => {
    throw new ParquetFormatError(file, problem);
  };
  if (!Array.isArray(schema) || schema.length === 0) fail(`the footer has no schema; ${WRITE_AGAIN}`);
  const childrenOf = (element: SchemaElement, at: number): number =>
    element.num_children === undefined
      ? 0
      : (declaredCount(element.num_children) ??
        fail(`schema element ${at} declares ${shown(element.num_children)} children; ${WRITE_AGAIN}`));
  const open = [childrenOf(schema[0], 0)]; // children still to come, per open group
  const top: TopColumn[] = [];
  let leaves = 0;
  for (let at = 1; at < schema.length; at++) {
    while (open.length && open[open.length - 1] === 0) open.pop();
    if (open.length === 0) fail(`schema element ${at} belongs to no group (the groups declare fewer children); ${WRITE_AGAIN}`);
    open[open.length - 1]--;
    const element = schema[at];
    const name = typeof element.name === 'string' ? element.name : '';
    const children = childrenOf(element, at);
    if (open.length === 1) top.push({ name, element, group: children > 0 });
    if (children === 0 && ++leaves > MAX_PARQUET_COLUMNS)
      fail(`the schema has more than ${MAX_PARQUET_COLUMNS} columns, the most splade-lab reads: ${FLAT_ADVICE}`);
    if (children > 0 && open.length + 1 > MAX_SCHEMA_DEPTH)
      fail(
        `the schema nests groups more than ${MAX_SCHEMA_DEPTH} deep (at "${clip(name, 60)}"), the most splade-lab reads: ${FLAT_ADVICE}`,
      );
    if (children > 0) open.push(children);
  }
  if (open.some((n) => n > 0)) fail(`the schema ends before its groups' declared children; ${WRITE_AGAIN}`);
  return top;
}

/** A column's Parquet type as a user would name it: "INT64", "INT32 (DATE)", "BYTE_ARRAY (JSON)". */
export function parquetTypeName(element: {
  type?: unknown;
  converted_type?: unknown;
  logical_type?: { type?: unknown };
}): string {
  const annotation = element.logical_type?.type ?? element.converted_type;
  const type = typeof element.type === 'string' ? element.type : 'an unknown type';
  return typeof annotation === 'string' ? `${type} (${annotation})` : type;
}

const TEXT_ANNOTATIONS = new Set([undefined, 'UTF8', 'STRING', 'ENUM']);

/** Why a column cannot be a triplet column of text, or null when it holds text (BYTE_ARRAY, plain or as a string). */
export function textColumnProblem(column: TopColumn): string | null {
  const { element } = column;
  const convert = `convert it to text before writing (pandas: df["${clip(column.name, 40)}"] = df["${clip(column.name, 40)}"].astype(str))`;
  if (column.group) return `is a group (a struct, list or map), not text; a triplet column holds one text per row: ${convert}`;
  if (element.repetition_type === 'REPEATED')
    return `is a repeated field (a list per row), not text; a triplet column holds one text per row: ${convert}`;
  const text =
    element.type === 'BYTE_ARRAY' &&
    TEXT_ANNOTATIONS.has(element.converted_type) &&
    TEXT_ANNOTATIONS.has(element.logical_type?.type);
  return text ? null : `holds ${parquetTypeName(element)} values, not text (a Parquet STRING): ${convert}`;
}
