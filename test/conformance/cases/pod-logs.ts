/**
 * The pod subresources a kubelet serves through the apiserver, where no kubelet is involved yet: what
 * discovery lists, the log of a pod no node has taken (empty), the container a log request names,
 * and exec on such a pod. Neither backend runs a kubelet, so logs of running containers are the
 * sim's own (packages/kubesim/test/clients: kubectl logs with every kubectl).
 */
import assert from 'node:assert/strict';
import type { CaseGroup } from '../case.js';
import { assertStatus, createPod, podPath } from '../fixtures.js';

export const podLogCases: CaseGroup = {
  name: 'Pod log, exec, attach, portforward',
  cases: [
    {
      id: 'discovery lists pods/log (get) and exec, attach, portforward (create, get) with their kinds',
      async run(b) {
        const v1 = await b.request('GET', '/api/v1');
        const entries = (v1.json['resources'] as Record<string, unknown>[])
          .filter((r) => /^pods\/(log|exec|attach|portforward)$/.test(String(r['name'])))
          .map(
            (r) =>
              `${String(r['name'])} ${String(r['kind'])} ${(r['verbs'] as string[]).join(',')}`,
          )
          .sort();
        assert.deepEqual(entries, [
          'pods/attach PodAttachOptions create,get',
          'pods/exec PodExecOptions create,get',
          'pods/log Pod get',
          'pods/portforward PodPortForwardOptions create,get',
        ]);
      },
    },
    {
      id: 'the log of a pod without a node is empty (204); an unknown container 400; exec 400; no pod 404',
      async run(b) {
        const ns = await b.namespace();
        // An unsatisfiable nodeSelector keeps the scheduler (the real one too) from placing it.
        await createPod(b, ns, 'lonely', { spec: { nodeSelector: { 'conf/never': 'x' } } });
        const log = await b.request('GET', `${podPath(ns, 'lonely')}/log`);
        assert.equal(log.code, 204, log.text);
        assert.equal(log.text, '');
        assertStatus(await b.request('GET', `${podPath(ns, 'lonely')}/log?container=nope`), {
          code: 400,
          reason: 'BadRequest',
          message: 'container nope is not valid for pod lonely',
        });
        assertStatus(
          await b.request(
            'POST',
            `${podPath(ns, 'lonely')}/exec?command=ls&container=main&stdout=true`,
          ),
          { code: 400, reason: 'BadRequest', message: 'pod lonely does not have a host assigned' },
        );
        assertStatus(await b.request('GET', `${podPath(ns, 'ghost')}/log`), {
          code: 404,
          reason: 'NotFound',
          message: 'pods "ghost" not found',
        });
      },
    },
  ],
};
