/**
 * Option parsing shared by `kubemaint sim` and `kubemaint sim --attach`: numbers with the flag named in
 * the error, `--image PATTERN=COMMAND` mappings and `--label KEY=VALUE` node labels.
 */
import { KubemaintError } from '../../errors.js';
import type { ImageMap } from '@kubemaint/kubesim';

export function number(
  flag: string,
  text: string,
  check: (n: number) => boolean,
  want: string,
): number {
  const n = Number(text);
  if (!Number.isFinite(n) || !check(n)) {
    throw new KubemaintError('usage', `${flag} ${JSON.stringify(text)} is not ${want}`);
  }
  return n;
}

/** `--image 'ghcr.io/kubemaint/kubemaint:*=npx tsx src/cli/main.ts'` → an image mapping. */
export function parseImages(specs: readonly string[]): ImageMap {
  const images: ImageMap = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    const command = spec
      .slice(eq + 1)
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    if (eq <= 0 || command.length === 0) {
      throw new KubemaintError('usage', `--image ${JSON.stringify(spec)} is not PATTERN=COMMAND`, {
        hint: "e.g. --image 'ghcr.io/kubemaint/kubemaint:*=npx tsx src/cli/main.ts'",
      });
    }
    images[spec.slice(0, eq)] = { command };
  }
  return images;
}

/** `--label topology.kubernetes.io/zone=z1` → labels; the apiserver judges the key and value. */
export function parseLabels(specs: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0)
      throw new KubemaintError('usage', `--label ${JSON.stringify(spec)} is not KEY=VALUE`);
    labels[spec.slice(0, eq)] = spec.slice(eq + 1);
  }
  return labels;
}
