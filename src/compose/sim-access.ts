/**
 * kubemaint's identities and their rights in the embedded cluster, read from the real manifests in
 * infra/k8s (never copied into code): its ServiceAccounts, the Roles, ClusterRoles and bindings of
 * rbac-*.yaml, and admission-policy.yaml's policies for the agent and serve. With RBAC enforced, a
 * process that talks to the sim as one of those accounts (a pod of `sim --attach` with its pod-bound
 * token, a test acting as the agent) gets exactly what a real install grants it, and is refused what
 * it would be refused there. admission-requests.yaml is not installed: it binds requests and
 * approvals to their authors, and the demo's serve and CLI act as the sim's administrator.
 * The sim creates them before it serves (its `objects` option).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { KObject } from '@kubemaint/kubesim';
import { KubemaintError } from '../errors.js';

export const INFRA_K8S_DIR = fileURLToPath(new URL('../../infra/k8s/', import.meta.url));

const FILES = [
  'service-accounts.yaml',
  'rbac-serve.yaml',
  'rbac-executor.yaml',
  'rbac-agent.yaml',
  'rbac-people.yaml',
  'admission-policy.yaml',
];

/** The objects of those manifests, in file order. */
export function kubemaintAccessObjects(dir = INFRA_K8S_DIR): KObject[] {
  return FILES.flatMap((file) => {
    const path = `${dir}/${file}`;
    if (!existsSync(path)) {
      throw new KubemaintError('unexpected', `the sim cannot find kubemaint's manifest ${path}`, {
        hint: 'run the sim from a kubemaint checkout (infra/k8s holds the RBAC it applies)',
      });
    }
    return parseAllDocuments(readFileSync(path, 'utf8'))
      .map((doc) => doc.toJS() as KObject | null)
      .filter((o): o is KObject => o !== null && typeof o.kind === 'string');
  });
}
