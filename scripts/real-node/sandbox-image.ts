/**
 * The pod sandbox ("pause") image, made here so that no registry is ever asked: a static Go binary that
 * sleeps until SIGTERM or SIGINT, in a one-layer docker-archive tar that `ctr images import` reads. It is
 * cached by the hash of its source.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runGo } from '../real-cluster/build.js';
import { nodeCacheDir } from './paths.js';
import { run } from './run.js';
import { SANDBOX_IMAGE } from './guest.js';

const PAUSE_GO = `// pause holds a pod's namespaces: it sleeps until the runtime stops it.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
`;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** The archive's path, built once. */
export async function sandboxImage(say: (line: string) => void): Promise<string> {
  const root = join(nodeCacheDir(), `pause-${sha256(PAUSE_GO + SANDBOX_IMAGE).slice(0, 12)}`);
  const archive = join(root, 'pause.tar');
  if (existsSync(archive)) return archive;
  const work = join(root, 'work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'layer'), { recursive: true });
  const logPath = join(root, 'build.log');
  writeFileSync(join(work, 'go.mod'), 'module kubemaint.local/pause\n\ngo 1.24\n');
  writeFileSync(join(work, 'main.go'), PAUSE_GO);
  say(`building the sandbox image ${SANDBOX_IMAGE} (a static sleeper; log: ${logPath})`);
  await runGo(['build', '-trimpath', '-ldflags=-s -w', '-o', 'layer/pause', '.'], work, logPath, {
    ...process.env,
    CGO_ENABLED: '0',
    GOTOOLCHAIN: 'local',
  });
  const tarOptions = ['--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '--sort=name'];
  const tar = (args: string[]) =>
    run('tar', [...tarOptions, ...args], { logPath, what: 'tar', needs: 'apt-get install tar' });
  await tar(['-cf', join(work, 'layer.tar'), '-C', join(work, 'layer'), 'pause']);
  const layerDigest = sha256(readFileSync(join(work, 'layer.tar')));
  const config = JSON.stringify({
    architecture: 'amd64',
    os: 'linux',
    config: { Entrypoint: ['/pause'] },
    rootfs: { type: 'layers', diff_ids: [`sha256:${layerDigest}`] },
  });
  const configName = `${sha256(config)}.json`;
  writeFileSync(join(work, configName), config);
  writeFileSync(
    join(work, 'manifest.json'),
    JSON.stringify([{ Config: configName, RepoTags: [SANDBOX_IMAGE], Layers: ['layer.tar'] }]),
  );
  await tar(['-cf', `${archive}.partial`, '-C', work, 'manifest.json', configName, 'layer.tar']);
  renameSync(`${archive}.partial`, archive);
  rmSync(work, { recursive: true, force: true });
  return archive;
}
