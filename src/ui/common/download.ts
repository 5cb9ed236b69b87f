// Hands a file to the user: a Blob URL clicked through a temporary link (the file never leaves the browser), and
// charts as SVG (their own markup) or PNG (drawn onto a canvas at twice their size).
import type { ExportFile } from '../../worker/api.ts';

export function downloadFile(file: ExportFile | { name: string; type: string; bytes: Uint8Array | string }): void {
  const blob = new Blob([file.bytes as BlobPart], { type: file.type });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A chart's SVG as a standalone file (styles the chart draws with are written into it). */
export function svgFile(svg: SVGSVGElement, name: string): { name: string; type: string; bytes: string } {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
  style.textContent = 'text { font: 12px sans-serif; fill: #222 } .axis line { stroke: #444 } .grid { stroke: #ddd }';
  copy.prepend(style);
  return { name: `${name}.svg`, type: 'image/svg+xml', bytes: new XMLSerializer().serializeToString(copy) };
}

/** The chart drawn as a PNG at `scale` times its view box, on white. */
export async function pngFile(
  svg: SVGSVGElement,
  name: string,
  scale = 2,
): Promise<{ name: string; type: string; bytes: Uint8Array }> {
  const { bytes } = svgFile(svg, name);
  const box = svg.viewBox.baseVal;
  const image = new Image();
  image.src = URL.createObjectURL(new Blob([bytes], { type: 'image/svg+xml' }));
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = box.width * scale;
  canvas.height = box.height * scale;
  const context = canvas.getContext('2d')!;
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  URL.revokeObjectURL(image.src);
  const blob = await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the chart could not be drawn as PNG'))), 'image/png'),
  );
  return { name: `${name}.png`, type: 'image/png', bytes: new Uint8Array(await blob.arrayBuffer()) };
}
