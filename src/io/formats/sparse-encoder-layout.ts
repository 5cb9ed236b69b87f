// Reads how a sentence-transformers SparseEncoder folder is laid out (modules.json, router_config.json, SpladePooling's
// config): where the document MLM is, which activation its pooling applies, and where an inference-free query table is.
// Every layout the Hub holds is read: a plain SparseEncoder, a Router with the MLM in its own folder (what ST v5 and v6
// write), a Router with the MLM at the folder's root (OpenSearch's inference-free repos), and doc-v1's `query_0_IDF`.
import { readJsonFile, type FileSource, type ReadOptions } from '../file-source.ts';
import { clip } from '../format-error.ts';
import { describeJsonValue } from '../../util/json-value.ts';

/** SpladePooling's activation: relu = log(1 + relu(x)); log1p_relu = log(1 + log(1 + relu(x))) (OpenSearch doc-v3). */
export type SpladeActivation = 'relu' | 'log1p_relu';

export interface SparseEncoderLayout {
  /** How the folder was written: a plain model folder, a SparseEncoder (MLM + SpladePooling), or a Router. */
  kind: 'backbone' | 'sparse-encoder' | 'router';
  /** The document MLM's folder inside the model folder ('' is the root). */
  mlmFolder: string;
  /** The pooling the folder asks for (max pooling; sum is refused). */
  activation: SpladeActivation;
  /** An inference-free Router's query route: its static table's folder and module class; null otherwise. */
  staticQuery: { folder: string; type: string } | null;
  /** What the reader found worth saying (a pooling config that was missing, a root MLM). */
  notes: string[];
}

/** A layout the folder asks for that splade-lab cannot read as its authors meant: refused, with what and where. */
export class LayoutError extends Error {
  override name = 'LayoutError';
}

type ModuleKind = 'mlm' | 'transformer' | 'pooling' | 'static' | 'router' | 'other';

/** The module classes read here, by their last dotted name (ST v5's `...models.X`, v6's `...modules.x.X` alike). */
function kindOf(type: string): ModuleKind {
  const name = type.slice(type.lastIndexOf('.') + 1);
  if (!type.startsWith('sentence_transformers.')) return 'other';
  if (name === 'MLMTransformer') return 'mlm';
  if (name === 'Transformer') return 'transformer';
  if (name === 'SpladePooling') return 'pooling';
  if (name === 'SparseStaticEmbedding' || name === 'IDF') return 'static';
  if (name === 'Router') return 'router';
  return 'other';
}

const SUPPORTED =
  'splade-lab reads SparseEncoders made of an MLM (MLMTransformer, or Transformer with fill-mask) and SpladePooling, ' +
  'and inference-free Routers whose query route is one SparseStaticEmbedding (or IDF)';

/** A module folder named by a config: one plain relative path inside the model folder ("" is the root). */
function checkModulePath(path: string, where: string): string {
  const parts = path.split('/');
  const plain = (part: string) => /^[\w.-]+$/.test(part) && part !== '.' && part !== '..';
  if (path !== '' && (path.startsWith('/') || path.includes('\\') || !parts.every(plain)))
    throw new LayoutError(
      `${where}: module folder "${clip(path)}" is not a plain folder inside the model (no "..", no absolute path): refused; ` +
        'fix the path in that file or re-save the model with sentence-transformers',
    );
  return path;
}

function moduleType(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '')
    throw new LayoutError(`${where}: a module type must be a class path string, got ${describeJsonValue(value)}`);
  return value;
}

function unknownModule(type: string, where: string): LayoutError {
  const custom = type.startsWith('sentence_transformers.') ? '' : ' (a custom class: splade-lab runs no remote code)';
  return new LayoutError(`${where}: module type "${clip(type)}"${custom} is not one splade-lab reads; ${SUPPORTED}`);
}

async function exists(files: FileSource, name: string, options?: ReadOptions): Promise<boolean> {
  return (await files.readFile(name, { ...options, maxFileBytes: 64 * 2 ** 20 })) !== null;
}

/** SpladePooling's config.json (ST writes `pooling_strategy`, `activation_function`, `[word_]embedding_dimension`). */
async function readPooling(
  files: FileSource,
  folder: string,
  options: ReadOptions | undefined,
  notes: string[],
): Promise<SpladeActivation> {
  const name = `${folder ? `${folder}/` : ''}config.json`;
  const where = `${files.label}/${name}`;
  const config = await readJsonFile(files, name, options);
  if (config === null) {
    notes.push(`${where} is missing: SpladePooling's defaults apply (max pooling, log(1 + relu))`);
    return 'relu';
  }
  if (typeof config !== 'object' || Array.isArray(config))
    throw new LayoutError(`${where}: SpladePooling's config must be a JSON object, got ${describeJsonValue(config)}`);
  const { pooling_strategy: strategy = 'max', activation_function: activation = 'relu' } = config as Record<string, unknown>;
  if (strategy === 'sum')
    throw new LayoutError(
      `${where}: pooling_strategy "sum" (SPLADE v1: the sum of log(1 + relu) over tokens) is not supported: splade-lab's ` +
        'fused head max-pools (SPLADE v2 and later, every OpenSearch and naver model); use a max-pooled model',
    );
  if (strategy !== 'max')
    throw new LayoutError(`${where}: pooling_strategy must be "max" or "sum", got ${describeJsonValue(strategy)}`);
  if (activation !== 'relu' && activation !== 'log1p_relu')
    throw new LayoutError(
      `${where}: activation_function must be "relu" (log(1 + relu(x))) or "log1p_relu" (log(1 + log(1 + relu(x)))), ` +
        `got ${describeJsonValue(activation)}`,
    );
  return activation;
}

/** The layout of a folder with modules.json: a plain SparseEncoder, a Router at the root, or no SparseEncoder at all. */
async function readModules(
  files: FileSource,
  modules: unknown,
  options: ReadOptions | undefined,
): Promise<SparseEncoderLayout | null> {
  const where = `${files.label}/modules.json`;
  if (!Array.isArray(modules))
    throw new LayoutError(`${where}: must be a JSON list of modules, got ${describeJsonValue(modules)}`);
  const entries = modules.map((entry, i) => {
    const at = `${where} (module ${i})`;
    if (typeof entry !== 'object' || entry === null) throw new LayoutError(`${at}: not an object`);
    const { path = '', type } = entry as { path?: unknown; type?: unknown };
    if (typeof path !== 'string') throw new LayoutError(`${at}: "path" must be a string, got ${describeJsonValue(path)}`);
    return { path: checkModulePath(path, at), type: moduleType(type, at), at };
  });
  const kinds = entries.map((e) => kindOf(e.type));
  if (kinds[0] === 'router') {
    if (entries.length !== 1) throw new LayoutError(`${where}: a Router must be the folder's only module; ${SUPPORTED}`);
    return readRouter(files, entries[0].path, options);
  }
  // A dense sentence-transformers model (Transformer + Pooling) is a backbone here: its MLM head, if any, is read.
  if (!kinds.includes('pooling')) return null;
  const mlmAt = kinds.findIndex((k) => k === 'mlm' || k === 'transformer');
  const poolingAt = kinds.indexOf('pooling');
  entries.forEach((e, i) => {
    if (i !== mlmAt && i !== poolingAt) throw unknownModule(e.type, e.at);
  });
  if (mlmAt !== 0 || poolingAt !== 1) throw new LayoutError(`${where}: expected the MLM then SpladePooling; ${SUPPORTED}`);
  const notes: string[] = [];
  const activation = await readPooling(files, entries[1].path, options, notes);
  return { kind: 'sparse-encoder', mlmFolder: entries[0].path, activation, staticQuery: null, notes };
}

/** The module ids of a route, in order, from router_config.json's "structure". */
function routeOf(structure: Record<string, unknown>, route: string, where: string): string[] {
  const ids = structure[route];
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string'))
    throw new LayoutError(`${where}: "structure" has no "${route}" route (a list of module folder names)`);
  return (ids as string[]).map((id) => checkModulePath(id, where));
}

/** A Router (sentence-transformers' asymmetric model): its query and document routes from router_config.json. */
async function readRouter(files: FileSource, base: string, options: ReadOptions | undefined): Promise<SparseEncoderLayout> {
  const prefix = base ? `${base}/` : '';
  const where = `${files.label}/${prefix}router_config.json`;
  const config = await readJsonFile(files, `${prefix}router_config.json`, options);
  if (config === null) throw new LayoutError(`${where} is missing: modules.json names a Router, which keeps its routes there`);
  if (typeof config !== 'object' || Array.isArray(config))
    throw new LayoutError(`${where}: must be a JSON object, got ${describeJsonValue(config)}`);
  const { types, structure } = config as { types?: unknown; structure?: unknown };
  if (typeof types !== 'object' || types === null || typeof structure !== 'object' || structure === null)
    throw new LayoutError(`${where}: needs "types" and "structure" objects (what Router.save writes)`);
  const typeOf = (id: string): string => {
    if (!Object.hasOwn(types, id)) throw new LayoutError(`${where}: "structure" names module "${clip(id)}", which "types" lacks`);
    return moduleType((types as Record<string, unknown>)[id], where);
  };
  const routes = structure as Record<string, unknown>;
  for (const route of Object.keys(routes))
    if (route !== 'query' && route !== 'document')
      throw new LayoutError(`${where}: route "${clip(route)}" is not one splade-lab reads (only "query" and "document")`);
  const query = routeOf(routes, 'query', where);
  const document = routeOf(routes, 'document', where);
  const [queryType, documentTypes] = [typeOf(query[0]), document.map(typeOf)];
  const queryKind = kindOf(queryType);
  if (queryKind === 'mlm' || queryKind === 'transformer')
    throw new LayoutError(
      `${where}: the query route is an MLM of its own (two-encoder SPLADE), which splade-lab does not read: it encodes ` +
        'queries with the document encoder or a static table',
    );
  if (queryKind !== 'static') throw unknownModule(queryType, where);
  if (query.length !== 1) throw new LayoutError(`${where}: the query route must be one SparseStaticEmbedding; ${SUPPORTED}`);
  documentTypes.forEach((type, i) => {
    const kind = kindOf(type);
    const expected = i === 0 ? kind === 'mlm' || kind === 'transformer' : i === 1 && kind === 'pooling';
    if (!expected) throw unknownModule(type, where);
  });
  if (document.length !== 2) throw new LayoutError(`${where}: the document route must be the MLM then SpladePooling`);
  const notes: string[] = [];
  const queryFolder = `${prefix}${query[0]}`;
  if (!(await exists(files, `${queryFolder}/model.safetensors`, options)))
    throw new LayoutError(
      `${files.label}/${queryFolder}/model.safetensors is missing: the query route's table (router_config.json names ` +
        `"${clip(query[0])}") was not saved or not downloaded; copy the whole model folder`,
    );
  const mlmFolder = await mlmFolderOf(files, prefix, document[0], options, notes);
  const activation = await readPooling(files, `${prefix}${document[1]}`, options, notes);
  return { kind: 'router', mlmFolder, activation, staticQuery: { folder: queryFolder, type: queryType }, notes };
}

/**
 * The document MLM's folder: its own (what Router.save writes), or the model folder's root when that folder is absent
 * and the root holds the MLM (an input module saved in the root, as OpenSearch's inference-free repos keep it).
 */
async function mlmFolderOf(
  files: FileSource,
  prefix: string,
  id: string,
  options: ReadOptions | undefined,
  notes: string[],
): Promise<string> {
  if (id === '' || (await exists(files, `${prefix}${id}/config.json`, options))) return `${prefix}${id}`.replace(/\/$/, '');
  if (await exists(files, `${prefix}config.json`, options)) {
    notes.push(`the document MLM ("${id}" in router_config.json) is read from the folder's root, where it was saved`);
    return prefix.replace(/\/$/, '');
  }
  throw new LayoutError(
    `${files.label}/${prefix}${id}/config.json is missing, and the folder's root holds no MLM either: the document ` +
      "route's model was not saved or not downloaded; copy the whole model folder",
  );
}

/**
 * How `files` is laid out: modules.json first (a SparseEncoder or a Router), then a bare router_config.json; a folder
 * with neither (or a dense sentence-transformers model) is a backbone whose MLM head is read as SPLADE's.
 */
export async function readSparseEncoderLayout(files: FileSource, options?: ReadOptions): Promise<SparseEncoderLayout> {
  const modules = await readJsonFile(files, 'modules.json', options);
  const fromModules = modules === null ? null : await readModules(files, modules, options);
  if (fromModules) return fromModules;
  if (modules === null && (await exists(files, 'router_config.json', options))) return readRouter(files, '', options);
  return { kind: 'backbone', mlmFolder: '', activation: 'relu', staticQuery: null, notes: [] };
}
