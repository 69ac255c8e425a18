/**
 * A page saved to disk as a PNG, for the docs' pictures (docs/rehearse-timeline.png): headless
 * Debian Chromium (`scripts/test-deps.sh` installs it) driven by playwright-core, as the status
 * page's end-to-end test takes docs/status-page.png.
 *
 *   npx tsx scripts/screenshot.ts timeline.html docs/rehearse-timeline.png [width] [selector]
 *
 * With a CSS selector, only that element is taken (e.g. `svg.timeline`); else the whole page.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env['KUBEMAINT_CHROMIUM'] ?? '/usr/bin/chromium';

const [page, png, width = '1200', selector] = process.argv.slice(2);
if (!page || !png || !(Number(width) >= 320)) {
  process.stderr.write(
    'usage: npx tsx scripts/screenshot.ts <page.html> <out.png> [width ≥ 320] [css selector]\n',
  );
  process.exit(2);
}
if (!existsSync(CHROMIUM)) {
  process.stderr.write(
    `no Chromium at ${CHROMIUM}: run scripts/test-deps.sh, or set KUBEMAINT_CHROMIUM\n`,
  );
  process.exit(2);
}
const browser = await chromium.launch({ executablePath: CHROMIUM });
try {
  const tab = await browser.newPage({ viewport: { width: Number(width), height: 800 } });
  await tab.goto(pathToFileURL(resolve(page)).href);
  if (selector) await tab.locator(selector).first().screenshot({ path: png });
  else await tab.screenshot({ path: png, fullPage: true });
} finally {
  await browser.close();
}
process.stdout.write(`${png}\n`);
