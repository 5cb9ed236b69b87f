// Where a saved sentence-transformers SparseEncoder folder wants its ONNX file (`export-onnx --st-folder`): the
// document MLM's folder + onnx/model.onnx, the second place sentence-transformers v6.0.0's backend_should_export looks
// (sentence_transformers/backend/utils.py; the first, <module>/model.onnx, is left free) before optimum's
// ORTModelForMaskedLM loads it (sentence_transformers/backend/load.py, task "fill-mask", output `logits`).
import { readFile, realpath, readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';

export interface StOnnxTarget {
  /** The folder holding the document MLM (config.json, weights): the saved folder itself or a Router's module folder. */
  mlmFolder: string;
  /** mlmFolder/onnx/model.onnx. */
  target: string;
  /** How the folder was read, for the CLI's report ("plain SparseEncoder", "Router, document_0_MLMTransformer"). */
  layout: string;
  /** What the user should hear (a model.onnx that sentence-transformers would load first). */
  notes: string[];
}

/** The relative path the ONNX backend reads inside the MLM's folder. */
export const ST_ONNX_FILE = 'onnx/model.onnx';

interface ModuleEntry {
  path?: unknown;
  type?: unknown;
}

async function readJson(path: string, what: string): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${path}: ${what} is not valid JSON (${(error as Error).message})`, { cause: error });
  }
}

/** A module path from modules.json or router_config.json: relative and inside the folder. */
function modulePath(folder: string, path: unknown, where: string): string {
  if (typeof path !== 'string' || isAbsolute(path) || normalize(path).split(/[\\/]/).includes('..'))
    throw new Error(`${where}: module path ${JSON.stringify(path)} must be a relative path inside ${folder}`);
  return join(folder, path);
}

const isMlm = (type: unknown) => typeof type === 'string' && /(^|\.)(MLMTransformer|Transformer)$/.test(type);
const isRouter = (type: unknown) => typeof type === 'string' && /(^|\.)Router$/.test(type);

async function hasFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

/** Reads modules.json (and a Router's router_config.json) of `folder` and says where the document MLM's ONNX goes. */
export async function stOnnxTarget(folder: string): Promise<StOnnxTarget> {
  const modulesFile = join(folder, 'modules.json');
  const modules = await readJson(modulesFile, 'modules.json');
  if (modules === null)
    throw new Error(
      `${folder} has no modules.json: --st-folder takes a folder saved by sentence-transformers (SparseEncoder.save or ` +
        'splade-lab train); for a bare model folder write the file with --out',
    );
  if (!Array.isArray(modules) || modules.length === 0)
    throw new Error(`${modulesFile}: expected a list of modules, got ${JSON.stringify(modules).slice(0, 80)}`);
  const first = modules[0] as ModuleEntry;
  let mlmFolder: string;
  let layout: string;
  if (isMlm(first.type)) {
    mlmFolder = modulePath(folder, first.path ?? '', modulesFile);
    layout = `plain SparseEncoder (${String(first.type).split('.').pop()} at ${first.path ? String(first.path) : 'the root'})`;
  } else if (isRouter(first.type)) {
    const routerFolder = modulePath(folder, first.path ?? '', modulesFile);
    const configFile = join(routerFolder, 'router_config.json');
    const config = (await readJson(configFile, 'router_config.json')) as {
      types?: Record<string, unknown>;
      structure?: Record<string, unknown>;
    } | null;
    if (!config || typeof config.types !== 'object' || config.types === null)
      throw new Error(`${configFile}: a Router folder needs router_config.json with its module "types"`);
    const documentRoute = Array.isArray(config.structure?.document) ? (config.structure.document as unknown[]) : null;
    const candidates = (documentRoute ?? Object.keys(config.types)).filter((id) => isMlm(config.types![String(id)]));
    if (candidates.length === 0)
      throw new Error(
        `${configFile}: no MLMTransformer on the ${documentRoute ? 'document route' : 'Router'}; ` +
          'an ONNX logits file belongs to the module that encodes documents',
      );
    const id = String(candidates[0]);
    const moduleFolder = modulePath(routerFolder, id, configFile);
    // OpenSearch's doc-v2/v3 repositories keep the MLM's files at the Router's root beside router_config.json
    const atRoot = !(await hasFile(join(moduleFolder, 'config.json'))) && (await hasFile(join(routerFolder, 'config.json')));
    mlmFolder = atRoot ? routerFolder : moduleFolder;
    layout = `Router, document module ${id}${atRoot ? ' (its files at the root)' : ''}`;
  } else {
    throw new Error(
      `${modulesFile}: the first module is ${JSON.stringify(first.type)}, not an MLMTransformer or a Router; ` +
        'is this a SparseEncoder folder?',
    );
  }
  if (!(await hasFile(join(mlmFolder, 'config.json'))))
    throw new Error(`${mlmFolder} has no config.json: the MLM module's files are missing from the saved folder`);
  const notes = (await hasFile(join(mlmFolder, 'model.onnx')))
    ? [
        `${join(mlmFolder, 'model.onnx')} exists: sentence-transformers loads it before ${ST_ONNX_FILE}; remove it, or ` +
          `load with model_kwargs={"file_name": "${ST_ONNX_FILE}"}`,
      ]
    : [];
  return { mlmFolder, target: join(mlmFolder, ST_ONNX_FILE), layout, notes };
}

/**
 * Refuses a target that is (through links) one of the files the model is read from, or a folder: the file is written
 * beside and renamed over the target, never into an input.
 */
export async function checkStOnnxTarget(target: string, inputFolders: string[]): Promise<void> {
  const existing = await stat(target).catch(() => null);
  if (!existing) return;
  if (!existing.isFile()) throw new Error(`${target} exists and is not a file; move it away to write the ONNX file there`);
  const resolved = await realpath(target);
  for (const folder of inputFolders) {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      const path = join(folder, name);
      if (!(await hasFile(path))) continue;
      if ((await realpath(path)) === resolved)
        throw new Error(
          `${target} is ${path}, a file of the model being exported; remove the link before writing the ONNX file there`,
        );
    }
  }
}
