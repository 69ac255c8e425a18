import type { BuildOptions, Plugin } from 'esbuild';

export function cliBundleOptions(options: {
  root: string;
  outdir: string;
  target?: string;
  plugins?: Plugin[];
  sourcemap?: boolean;
}): BuildOptions & { metafile: true };
