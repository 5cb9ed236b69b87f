// Where retrieval data files come from: a local folder (Node) or a URL base (browser or Node, e.g. Hugging Face Hub).

export interface FileSource {
  /** Human-readable location of `path`, for error messages. */
  describe(path: string): string;
  readText(path: string): Promise<string>;
  readBytes(path: string): Promise<ArrayBuffer>;
}

export class MissingFileError extends Error {}

/** Files under a local directory, read with node:fs (imported lazily so that browser bundles never need it). */
export function folderSource(directory: string): FileSource {
  const describe = (path: string) => `${directory.replace(/\/+$/, '')}/${path}`;
  const read = async (path: string): Promise<Buffer> => {
    const { readFile } = await import('node:fs/promises');
    try {
      return await readFile(describe(path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new MissingFileError(`${describe(path)} not found`);
      throw new Error(`cannot read ${describe(path)}: ${(error as Error).message}`);
    }
  };
  return {
    describe,
    readText: async (path) => (await read(path)).toString('utf8'),
    readBytes: async (path) => {
      const bytes = await read(path);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  };
}

/** Files under a URL prefix, fetched whole; e.g. `https://huggingface.co/datasets/<repo>/resolve/main/`. */
export function urlSource(base: string, fetchImpl: typeof fetch = globalThis.fetch): FileSource {
  const describe = (path: string) => new URL(path, base.endsWith('/') ? base : base + '/').href;
  const get = async (path: string): Promise<Response> => {
    let response: Response;
    try {
      response = await fetchImpl(describe(path));
    } catch (error) {
      throw new Error(`cannot fetch ${describe(path)}: ${(error as Error).message}`);
    }
    if (response.status === 404) throw new MissingFileError(`${describe(path)} not found (HTTP 404)`);
    if (!response.ok) throw new Error(`cannot fetch ${describe(path)}: HTTP ${response.status} ${response.statusText}`);
    return response;
  };
  return {
    describe,
    readText: async (path) => (await get(path)).text(),
    readBytes: async (path) => (await get(path)).arrayBuffer(),
  };
}
