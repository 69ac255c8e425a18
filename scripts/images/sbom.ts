/**
 * An image's SBOM (CycloneDX 1.5 JSON), written beside its archive as `<name>-<version>.cdx.json`:
 * the npm packages esbuild bundled (npm sbom's components, kept to those whose files the bundle's
 * source maps list), Node.js, and the Debian packages whose files the image holds, per platform.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rootfs } from './rootfs.js';
import { nodeVersion, REPO_ROOT, SOURCE_URL, LICENSE, type ImageSpec } from './spec.js';
import { run } from './tools.js';

interface Component {
  type: string;
  name: string;
  version: string;
  purl?: string;
  'bom-ref'?: string;
  properties?: { name: string; value: string }[];
  [key: string]: unknown;
}

/** `name@version` of every npm package a source map of the bundle has a file of. */
export function bundledPackages(repo: string): Set<string> {
  const dist = join(repo, 'dist');
  const paths = new Set<string>();
  const maps = readdirSync(dist).filter((f) => /^cli(-chunk-.*)?\.mjs\.map$/.test(f));
  for (const map of maps) {
    const { sources } = JSON.parse(readFileSync(join(dist, map), 'utf8')) as { sources: string[] };
    for (const source of sources) {
      const match = /((?:node_modules\/(?:@[^/]+\/)?[^/]+\/)+)/.exec(source);
      if (match) paths.add(match[1]!);
    }
  }
  const packages = new Set<string>();
  for (const path of paths) {
    const manifest = join(repo, path, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name: string;
      version: string;
    };
    packages.add(`${name}@${version}`);
  }
  return packages;
}

/** npm sbom's components (the whole tree: everything is a devDependency), kept to those bundled. */
function npmComponents(): Component[] {
  const bundled = bundledPackages(REPO_ROOT);
  const sbom = JSON.parse(
    run('npm', ['sbom', '--sbom-format=cyclonedx', '--sbom-type=application'], { cwd: REPO_ROOT }),
  ) as { components?: Component[] };
  return (sbom.components ?? []).filter((c) => bundled.has(`${c.name}@${c.version}`));
}

export function writeSbom(
  spec: ImageSpec,
  version: string,
  rootfses: Rootfs[],
  out: string,
): string {
  const components: Component[] = [];
  if (spec.node) {
    const node = nodeVersion();
    components.push({
      type: 'platform',
      name: 'node',
      version: node,
      purl: `pkg:generic/nodejs@${node}`,
      'bom-ref': `node@${node}`,
      licenses: [{ license: { id: 'MIT' } }],
    });
    if (existsSync(join(REPO_ROOT, 'dist'))) components.push(...npmComponents());
  }
  for (const rootfs of rootfses) {
    for (const pkg of rootfs.packages) {
      const purl = `pkg:deb/debian/${pkg.name}@${encodeURIComponent(pkg.version)}?arch=${pkg.architecture}&distro=debian-12`;
      components.push({
        type: 'library',
        name: pkg.name,
        version: pkg.version,
        purl,
        'bom-ref': purl,
        properties: [{ name: 'kubemaint:platform', value: `linux/${rootfs.arch}` }],
      });
    }
  }
  const bom = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      tools: [{ name: 'npm run images (scripts/images)' }],
      component: {
        type: 'container',
        name: spec.repository,
        version,
        'bom-ref': `${spec.repository}:${version}`,
        licenses: [{ license: { id: LICENSE } }],
        externalReferences: [{ type: 'vcs', url: SOURCE_URL }],
      },
    },
    components,
  };
  const file = join(out, `${spec.name}-${version}.cdx.json`);
  writeFileSync(file, `${JSON.stringify(bom, null, 2)}\n`);
  return file;
}
