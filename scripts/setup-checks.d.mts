// Types of scripts/setup-checks.mjs (plain JavaScript so that it runs before node_modules exists), for the tests.

export interface SystemProbes {
  env: Record<string, string | undefined>;
  platform: string;
  exists(path: string): boolean;
  /** dpkg's word on a package: true/false, or null without dpkg. */
  installed(name: string): boolean | null;
  isRoot(): boolean;
  hasAptGet(): boolean;
  hasPasswordlessSudo(): boolean;
}

export interface SystemPackage {
  name: string;
  why: string;
  present(probes: SystemProbes): boolean;
}

export type SystemInstallPlan =
  | { action: 'none' }
  | { action: 'install'; commands: string[][] }
  | { action: 'tell'; message: string };

export interface RepoFiles {
  /** A JSON file of the repository, null when absent. */
  readJson(path: string): unknown;
}

export const DEFAULT_CHROMIUM: string;
export const SWIFTSHADER_ICD: string;
export const SYSTEM_PACKAGES: SystemPackage[];
export function missingSystemPackages(probes: SystemProbes): string[];
export function systemInstallPlan(missing: string[], probes: SystemProbes): SystemInstallPlan;
export function npmInstallReason(files: RepoFiles): string | null;
export function realProbes(env?: Record<string, string | undefined>): SystemProbes;
export function repoFiles(root: string): RepoFiles;
export function nodeVersionProblem(version: string, range: string): string | null;
