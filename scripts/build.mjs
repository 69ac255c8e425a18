// Bundles the entry points with esbuild: the CLI (what the executor image and `serve` run) and the
// Lambda handlers. One ESM file each, Node 24, dependencies bundled so the image needs no node_modules.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const entries = {
  cli: 'src/cli/main.ts',
  'functions/tick': 'functions/tick.ts',
  'functions/slack': 'functions/slack.ts',
};

const present = Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file)));

const result = await build({
  entryPoints: present,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  // Some CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __kmCreateRequire } from 'node:module'; const require = __kmCreateRequire(import.meta.url);",
  },
});

for (const [file, info] of Object.entries(result.metafile.outputs)) {
  if (file.endsWith('.mjs')) console.log(`${file}  ${(info.bytes / 1024).toFixed(0)} KiB`);
}
