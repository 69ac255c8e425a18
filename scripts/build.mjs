// Bundles the entry points with esbuild: the CLI (what the executor image, `serve` and the npm package
// run) and the Lambda handlers. One ESM file each, dependencies bundled so the image and the npm
// package need no node_modules.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';

const entries = {
  cli: 'src/cli/main.ts',
  // The demo's host command (bin/kubemaint-sim-host), for the installed package, which has no source.
  'sim-host': 'packages/kubesim/src/host-cli.ts',
  'functions/tick': 'functions/tick.ts',
  'functions/slack': 'functions/slack.ts',
};

/**
 * Our modules find files of the package by a path relative to their own source (the sim reads
 * infra/k8s and puts bin/ on its pods' PATH). In the bundle, `import.meta.url` of each of them is
 * made the URL its source would have in the package, so those paths resolve in an installed package
 * as in a checkout. Outputs sit one folder below the root (dist/cli.mjs); the functions read no files.
 */
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const file = relative(resolve('.'), path).replaceAll('\\', '/');
      if (!/^(src|templates)\//.test(file)) return undefined;
      const text = await readFile(path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const url = `new URL(${JSON.stringify(`../${file}`)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

const present = Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file)));

const result = await build({
  entryPoints: present,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  // The oldest Node the package's engines allow; the image and Lambda run Node 24.
  target: 'node22.19',
  format: 'esm',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [sourceUrls],
  // Some CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __kmCreateRequire } from 'node:module'; const require = __kmCreateRequire(import.meta.url);",
  },
});

for (const [file, info] of Object.entries(result.metafile.outputs)) {
  if (file.endsWith('.mjs')) console.log(`${file}  ${(info.bytes / 1024).toFixed(0)} KiB`);
}
