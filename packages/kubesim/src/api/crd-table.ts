/**
 * `kubectl get` for custom resources: the Table kube-apiserver builds from a CRD version's
 * `additionalPrinterColumns` (apiextensions-apiserver's tableconvertor): Name, then each column
 * with its type, format, priority and description, its cell the first value its JSONPath reaches,
 * typed as the column says (an integer column shows an integer, a date column an age, a string
 * column any value as text); a path that reaches nothing, or a value of another type, is null,
 * which kubectl prints as an empty cell.
 */
import { evaluateJsonPath, parseJsonPath } from '../json-path.js';
import type { CustomResourceInfo, PrinterColumn } from '../resources.js';
import type { KObject } from '../types.js';
import { humanAge } from './human-age.js';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** jsonpath's PrintResults: maps and lists as compact JSON, anything else as its text. */
const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function cell(column: PrinterColumn, object: KObject, now: Date): unknown {
  const [value] = evaluateJsonPath(parseJsonPath(column.jsonPath), object);
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case 'string':
      return asText(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : humanAge(value, now);
    default:
      return null;
  }
}

export function customResourceTable(
  custom: CustomResourceInfo,
  objects: readonly KObject[],
  now: Date,
  meta: Record<string, unknown>,
) {
  const columns = custom.printerColumns;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    columnDefinitions: [
      { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description:
          c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        priority: c.priority ?? 0,
      })),
    ],
    rows: objects.map((x) => ({
      cells: [x.metadata.name ?? '', ...columns.map((c) => cell(c, x, now))],
      object: x,
    })),
  };
}
