/**
 * Option parsing shared by `kubemaint sim` and `kubemaint sim --attach`: numbers with the flag named in
 * the error, and `--image PATTERN=COMMAND` mappings.
 */
import { KubemaintError } from '../../errors.js';
import type { ImageMap } from '../../sim/jobs-runner.js';

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
