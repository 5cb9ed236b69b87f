// Helpers of the element tests: mount an element with properties, query its shadow root, capture events.
import type { LitElement } from 'lit';
import { summarizeNorms } from '../../src/kernels/reference/head-stats.ts';
import type { DemoHeadNorms } from '../../src/ui/model/demo-backbone.ts';

export async function mount<T extends LitElement>(tag: string, properties: Partial<T> = {}): Promise<T> {
  const element = document.createElement(tag) as T;
  Object.assign(element, properties);
  document.body.append(element);
  await element.updateComplete;
  return element;
}

export function inside<E extends Element = HTMLElement>(element: LitElement, selector: string): E {
  const found = element.shadowRoot?.querySelector<E>(selector);
  if (!found) throw new Error(`<${element.localName}> has no ${selector}`);
  return found;
}

export function allInside(element: LitElement, selector: string): Element[] {
  return [...(element.shadowRoot?.querySelectorAll(selector) ?? [])];
}

/** Records the `detail` of every `type` event the element (or its shadow content) dispatches. */
export function events<D>(element: HTMLElement, type: string): D[] {
  const seen: D[] = [];
  element.addEventListener(type, (event) => seen.push((event as CustomEvent<D>).detail));
  return seen;
}

/** Lets pending promises (a fake worker's replies, Lit tasks) and the renders they cause run: `rounds` macrotask turns. */
export async function settle(element: LitElement, rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await element.updateComplete;
  }
}

export function cleanup(): void {
  document.body.replaceChildren();
}

/** Demo head figures as the generator writes them (summary by the float64 reference), from a list of row norms. */
export function demoNorms(provenance: string, anisotropy: number, norms: number[]): DemoHeadNorms {
  return { provenance, anisotropy, norms, summary: summarizeNorms(Float64Array.from(norms)) };
}
