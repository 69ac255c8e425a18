/**
 * Label and field selectors as the apiserver parses them. Labels are the repository's one
 * implementation (packages/label-selector); fields are the sim's own (`field=value`, `field!=value`,
 * escapes). Bad syntax is a 400 that names the offending requirement, so a typo in a test or in
 * kubemaint fails loudly instead of silently matching nothing.
 */
import { parseSelector, type Selector } from '@kubemaint/label-selector';
import { StatusError } from './types.js';

export {
  matchesSelector as matchesLabels,
  fromSelectorObject,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelectorObject,
} from '@kubemaint/label-selector';

/** An empty list matches everything. */
export type LabelSelector = Selector;

function badSelector(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

/** Parses the `labelSelector` query syntax (a 400 for bad syntax). Empty text selects everything. */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  const parsed = parseSelector(text);
  if (!parsed.ok) throw badSelector(parsed.error);
  return parsed.selector;
}

export interface FieldRequirement {
  field: string;
  /** `=` and `==` mean the same; field selectors know nothing else. */
  negate: boolean;
  value: string;
}

/** Parses a `fieldSelector`; `supported(field)` says which fields this resource can select on. */
export function parseFieldSelector(
  text: string | undefined,
  supported: (field: string) => boolean,
): FieldRequirement[] {
  const whole = (text ?? '').trim();
  if (whole === '') return [];
  return splitEscaped(whole, ',').map((part) => {
    const match = /^([^=!\s]+)\s*(==|=|!=)(.*)$/.exec(part.trim());
    if (!match) {
      throw badSelector(
        `invalid selector: '${whole}'; can't understand '${part}' (use field=value or field!=value)`,
      );
    }
    const field = match[1] ?? '';
    if (!supported(field)) throw badSelector(`field label not supported: ${field}`);
    return { field, negate: match[2] === '!=', value: unescape(match[3] ?? '') };
  });
}

/** Field selector values may escape `\,`, `\=` and `\\`. */
function splitEscaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + (text[i + 1] ?? '');
      i++;
    } else if (ch === sep) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** `get(field)` returns the object's value as the apiserver renders it (booleans as "true"/"false"). */
export function matchesFields(
  requirements: readonly FieldRequirement[],
  get: (field: string) => string | undefined,
): boolean {
  for (const req of requirements) {
    const value = get(req.field) ?? '';
    if (req.negate ? value === req.value : value !== req.value) return false;
  }
  return true;
}
