import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { compile } from '@kubemaint/kubesim/cel';
import { parseAllDocuments } from 'yaml';

const ADMISSION = ['object', 'oldObject', 'request', 'variables', 'namespaceObject', 'params'];

// Every CEL expression of infra/k8s's policies compiles on the sim's CEL, so the demo and the sim's
// tests enforce them rather than fail on a policy they cannot read.
describe("infra/k8s's admission policies on the sim's CEL", () => {
  for (const file of ['admission-policy.yaml', 'admission-requests.yaml']) {
    it(`compiles every expression of ${file}`, () => {
      const docs = parseAllDocuments(
        readFileSync(new URL(`../../../infra/k8s/${file}`, import.meta.url), 'utf8'),
      ).map(
        (d) =>
          d.toJS() as {
            kind: string;
            spec: Record<string, { expression: string; messageExpression?: string }[] | undefined>;
          },
      );
      let count = 0;
      for (const doc of docs.filter((d) => d.kind === 'ValidatingAdmissionPolicy')) {
        for (const key of ['matchConditions', 'variables', 'validations']) {
          for (const entry of doc.spec[key] ?? []) {
            compile(entry.expression, ADMISSION);
            if (entry.messageExpression) compile(entry.messageExpression, ADMISSION);
            count++;
          }
        }
      }
      assert.ok(count >= 10, `compiled ${count} expressions`);
    });
  }
});
