/**
 * kubemaint's kubelet upgrade script for kubeadm nodes (infra/upgrade/kubeadm-upgrade.sh,
 * `upgrade.method: kubeadm`), read from where it ships: beside the source in a checkout, in the npm
 * package, and at /infra/upgrade in the image (infra/image/Dockerfile; the bundle resolves this
 * module's URL as its source's, scripts/build.mjs). The executor hands its text to the host's `sh -c`,
 * so nodes need nothing installed.
 */
import { readFileSync } from 'node:fs';
import type { ExecutorSettings } from '../app/executor/settings.js';

const SCRIPT = new URL('../../infra/upgrade/kubeadm-upgrade.sh', import.meta.url);

/** The script's text, or undefined when this build does not carry it. */
export function kubeadmUpgradeScript(): string | undefined {
  try {
    return readFileSync(SCRIPT, 'utf8');
  } catch {
    return undefined;
  }
}

/** Settings with the script added when they ask for it (the executor's, after parsing its JSON). */
export function withUpgradeScript(settings: ExecutorSettings): ExecutorSettings {
  if (settings.upgrade.method !== 'kubeadm') return settings;
  const script = kubeadmUpgradeScript();
  return script ? { ...settings, upgrade: { ...settings.upgrade, script } } : settings;
}
