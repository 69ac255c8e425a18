/**
 * The Dockerfiles users build are rendered from scripts/images/spec.ts, the definition `npm run images`
 * builds from: the committed ones must be what the spec renders, and the config their final stage
 * sets (user, working folder, environment, entrypoint, command, labels) must be the one the OCI
 * archives carry. The files are the same by construction: the build stage runs `images rootfs`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renderDockerfile } from '../../../scripts/images/dockerfile.js';
import { imageConfig } from '../../../scripts/images/oci.js';
import { IMAGES, labels, packageVersion, REPO_ROOT } from '../../../scripts/images/spec.js';

/** The final stage's instructions, continuation lines joined, comments dropped. */
function finalStage(dockerfile: string): string[] {
  const lines = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const from = lines.findLastIndex((line) => line.startsWith('FROM '));
  return lines.slice(from);
}

/** `k="v" k2="v2"` (the rendered form: each value a JSON string). */
function pairs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, key, value] of text.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*")/g)) {
    out[key!] = JSON.parse(value!) as string;
  }
  return out;
}

/** The image config a Docker engine makes from the final stage, with REVISION given as a build arg. */
function dockerConfig(dockerfile: string, revision: string) {
  const config: Record<string, unknown> = {};
  const env: Record<string, string> = {};
  for (const line of finalStage(dockerfile)) {
    const [instruction, ...rest] = line.split(' ');
    const arg = rest.join(' ');
    if (instruction === 'USER') config['User'] = arg;
    if (instruction === 'WORKDIR') config['WorkingDir'] = arg;
    if (instruction === 'ENTRYPOINT') config['Entrypoint'] = JSON.parse(arg);
    if (instruction === 'CMD') config['Cmd'] = JSON.parse(arg);
    if (instruction === 'ENV') Object.assign(env, pairs(arg));
    if (instruction === 'LABEL') {
      const labelled = pairs(arg);
      for (const key of Object.keys(labelled))
        labelled[key] = labelled[key]!.replace('$REVISION', revision);
      config['Labels'] = labelled;
    }
  }
  config['Env'] = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  return config;
}

describe('the images’ Dockerfiles', () => {
  for (const spec of IMAGES) {
    it(`${spec.dockerfile} is what scripts/images/spec.ts renders (run \`npm run images -- dockerfiles\`)`, () => {
      assert.equal(readFileSync(join(REPO_ROOT, spec.dockerfile), 'utf8'), renderDockerfile(spec));
    });

    it(`${spec.dockerfile} sets the config the OCI archive of ${spec.name} carries`, () => {
      const committed = readFileSync(join(REPO_ROOT, spec.dockerfile), 'utf8');
      const revision = 'f9a6550a4de0135dc578286d3e81894895a88b08';
      assert.deepEqual(
        dockerConfig(committed, revision),
        imageConfig(spec, labels(spec, packageVersion(), revision)),
      );
    });

    it(`${spec.dockerfile}'s final stage is the assembled files and config alone`, () => {
      const stage = finalStage(readFileSync(join(REPO_ROOT, spec.dockerfile), 'utf8'));
      assert.equal(stage[0], 'FROM scratch');
      assert.deepEqual(
        stage.filter((line) => /^(RUN|COPY|ADD) /.test(line)),
        ['COPY --from=build /rootfs/ /'],
      );
      assert.match(
        readFileSync(join(REPO_ROOT, spec.dockerfile), 'utf8'),
        new RegExp(
          `scripts/images/main\\.ts rootfs ${spec.name} --arch "\\$TARGETARCH" --out /rootfs\\n`,
        ),
      );
    });
  }

  it('the user is never root', () => {
    for (const spec of IMAGES) assert.notEqual(spec.user.uid, 0, spec.name);
  });
});
