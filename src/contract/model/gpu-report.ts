// What the page is told of the GPU adapter the worker acquired (vendor, architecture, limits that matter here).
export interface AdapterReport {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
  features: string[];
  limits: Record<string, number>;
}
