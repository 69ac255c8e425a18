// Bundles the entry points with esbuild: the CLI (what the executor image, `serve` and the npm package
// run) and the Lambda handlers. ESM, dependencies bundled so the image and the npm package need no
// node_modules: the CLI as an entry and its chunks (./cli-bundle.mjs), the others one file each.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';

import { cliBundleOptions } from './cli-bundle.mjs';

// The CLI is built apart (./cli-bundle.mjs): split into chunks, so each command loads only its own.
const entries = {
  // The demo's host command (bin/kubemaint-sim-host), for the installed package, which has no source.
  'sim-host': 'packages/kubesim/src/host-cli.mjs',
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

const cli = await build(
  cliBundleOptions({ root: '.', outdir: 'dist', plugins: [sourceUrls], sourcemap: true }),
);
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

const outputs = { ...cli.metafile.outputs, ...result.metafile.outputs };
const chunks = Object.keys(cli.metafile.outputs).filter((f) => /cli-chunk-.*\.mjs$/.test(f));
for (const [file, info] of Object.entries(outputs)) {
  if (file.endsWith('.mjs') && !chunks.includes(file))
    console.log(`${file}  ${(info.bytes / 1024).toFixed(0)} KiB`);
}
const chunkBytes = chunks.reduce((sum, f) => sum + cli.metafile.outputs[f].bytes, 0);
console.log(`dist/cli-chunk-*.mjs  ${chunks.length} files, ${(chunkBytes / 1024).toFixed(0)} KiB`);
