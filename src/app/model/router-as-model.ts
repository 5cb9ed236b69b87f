// An inference-free SparseEncoder (sentence-transformers v5's Router: a static query embedding and a document encoder)
// read as its document encoder's folder, with the query route's table beside it; anything else passes through.
import type { FileSource, ReadOptions } from '../../io/file-source.ts';
import { readSafetensors } from '../../io/safetensors.ts';

export interface RouterView {
  /** The document encoder's files (the folder itself when it is no Router). */
  files: FileSource;
  /** The query route's static weights, one per token; absent for an ordinary SparseEncoder. */
  queryWeights?: Float32Array;
}

/** The module folders of a route, in order, from router_config.json's structure. */
function routeOf(config: unknown, route: string, where: string): string[] {
  const structure = (config as { structure?: Record<string, unknown> } | null)?.structure;
  const paths = structure?.[route];
  if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string' && /^[\w.-]+$/.test(p)))
    throw new Error(`${where}: no "${route}" route of module folders in "structure"`);
  return paths as string[];
}

function subFolder(files: FileSource, folder: string): FileSource {
  return {
    label: `${files.label}/${folder}`,
    readFile: (name, options) => files.readFile(`${folder}/${name}`, options),
    readRange: files.readRange
      ? (name, start, length, options) => files.readRange!(`${folder}/${name}`, start, length, options)
      : undefined,
  };
}

/**
 * `files` as its document encoder and query table when it holds router_config.json; else `files` unchanged. A folder
 * with a config.json at its root is a model folder: nothing else is asked of it (a Hub model too large for the device
 * is refused from its config.json alone).
 */
export async function routerAsModel(files: FileSource, options?: ReadOptions): Promise<RouterView> {
  if ((await files.readFile('config.json', options)) !== null) return { files };
  const bytes = await files.readFile('router_config.json', options);
  if (bytes === null) return { files };
  const where = `${files.label}/router_config.json`;
  let config: unknown;
  try {
    config = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new Error(`${where} is not JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const types = (config as { types?: Record<string, unknown> }).types ?? {};
  const [encoder] = routeOf(config, 'document', where);
  const [query, ...rest] = routeOf(config, 'query', where);
  if (rest.length > 0 || !String(types[query]).endsWith('SparseStaticEmbedding'))
    throw new Error(`${where}: the query route is not one SparseStaticEmbedding; splade-lab reads inference-free Routers only`);
  const weightsPath = `${query}/model.safetensors`;
  const weightsBytes = await files.readFile(weightsPath, options);
  if (weightsBytes === null) throw new Error(`${files.label}: the query route has no ${weightsPath}`);
  const weight = readSafetensors(weightsBytes, `${files.label}/${weightsPath}`).tensors.get('weight');
  if (!weight || weight.shape.length !== 1)
    throw new Error(`${files.label}/${weightsPath}: no one-dimensional "weight" tensor (one weight per token)`);
  return { files: subFolder(files, encoder), queryWeights: Float32Array.from(weight.data) };
}
