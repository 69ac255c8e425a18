/**
 * CEL's optional field selection (`x.?f`, cel-go's optional library, which Kubernetes enables) is not
 * in @bufbuild/cel 0.6.1's grammar. Kubernetes manifests use it in one shape, `X.?f.orValue(d)`
 * ("f of X if X has it, else d"); this rewrites exactly that shape, chains included, into the
 * equivalent has() form before parsing:
 *
 *   X.?f.orValue(d)      →  (has(X.f) ? X.f : (d))
 *   X.?f.?g.orValue(d)   →  (has(X.f) && has(X.f.g) ? X.f.g : (d))
 *   X.?f.hasValue()      →  has(X.f)
 *
 * On the JSON maps the sim evaluates (every object is a map), `has(X.f)` is key presence, which is
 * what `X.?f` tests, so the rewrite is exact; CEL has no side effects, so repeating X is safe. Any
 * other use of optionals (`x[?k]`, `optional.of`, `.value()`, an optional passed around) is refused
 * with an error naming the expression, never guessed at.
 */

type Token = {
  text: string;
  kind: 'ident' | 'string' | 'number' | 'punct' | 'space';
  start: number;
};

// Strings come before identifiers so that a raw or bytes prefix (r'…', b"…") stays part of its string.
const TOKEN =
  /\s+|[rRbB]{0,2}(?:'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")|[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9a-fA-F]+[uU]?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[uU]?|\.\?|&&|\|\||[=!<>]=|./gy;

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  let match: RegExpExecArray | null;
  while (TOKEN.lastIndex < expression.length && (match = TOKEN.exec(expression)) !== null) {
    const text = match[0];
    const kind: Token['kind'] = /^\s/.test(text)
      ? 'space'
      : /^[rRbB]*['"]/.test(text) && /['"]$/.test(text)
        ? 'string'
        : /^[A-Za-z_]/.test(text)
          ? 'ident'
          : /^\d/.test(text)
            ? 'number'
            : 'punct';
    tokens.push({ text, kind, start: match.index });
  }
  return tokens;
}

const OPEN: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const CLOSE: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

export class OptionalSyntaxError extends Error {}

/** The expression without `.?` optional selections, or an OptionalSyntaxError. */
export function rewriteOptionals(expression: string): string {
  let text = expression;
  // Each pass rewrites the first `.?`; receivers and defaults holding more are handled by later passes.
  for (let pass = 0; pass < 100; pass++) {
    const tokens = tokenize(text).filter((t) => t.kind !== 'space');
    const at = tokens.findIndex((t) => t.text === '.?');
    if (at < 0) return text;
    const start = receiverStart(tokens, at);
    if (start === at) throw new OptionalSyntaxError('`.?` needs a value on its left');
    const slice = (from: number, to: number): string =>
      from >= to ? '' : text.slice(tokens[from]!.start, end(tokens[to - 1]!)).trim();
    const receiver = slice(start, at);
    const fields: string[] = [];
    let i = at;
    while (tokens[i]?.text === '.?') {
      const field = tokens[i + 1];
      if (field?.kind !== 'ident')
        throw new OptionalSyntaxError('`.?` must be followed by a field name');
      fields.push(field.text);
      i += 2;
    }
    const method = tokens[i + 1]?.text;
    if (
      tokens[i]?.text !== '.' ||
      tokens[i + 2]?.text !== '(' ||
      (method !== 'orValue' && method !== 'hasValue')
    ) {
      throw new OptionalSyntaxError(
        'the sim evaluates optional selection only as X.?f.orValue(default) or X.?f.hasValue()',
      );
    }
    const close = matchForward(tokens, i + 2);
    const argument = slice(i + 3, close);
    const paths = fields.map((_, n) => `${receiver}.${fields.slice(0, n + 1).join('.')}`);
    const present = paths.map((p) => `has(${p})`).join(' && ');
    let replacement: string;
    if (method === 'hasValue') {
      if (argument !== '') throw new OptionalSyntaxError('hasValue() takes no argument');
      replacement = `(${present})`;
    } else {
      if (argument === '') throw new OptionalSyntaxError('orValue() needs a default value');
      replacement = `(${present} ? ${paths[paths.length - 1]} : (${argument}))`;
    }
    text = text.slice(0, tokens[start]!.start) + replacement + text.slice(end(tokens[close]!));
  }
  throw new OptionalSyntaxError('too many optional selections');
}

const end = (t: Token): number => t.start + t.text.length;

const endsValue = (t: Token | undefined): boolean =>
  t !== undefined && (t.kind !== 'punct' || [')', ']', '}'].includes(t.text));

/** Where the member chain ending just before `end` starts: `a.b(c)[d].e` as one receiver. */
function receiverStart(tokens: readonly Token[], end: number): number {
  let i = end - 1;
  for (;;) {
    const t = tokens[i];
    if (t === undefined) return end;
    let first: number;
    if (OPEN[t.text]) {
      first = matchBackward(tokens, i);
      const opener = tokens[first]!.text;
      if (opener === '(' && tokens[first - 1]?.kind === 'ident')
        first -= 1; // a call: f(…) or x.f(…)
      else if (opener === '[' && endsValue(tokens[first - 1])) {
        i = first - 1; // an index: its receiver continues to the left
        continue;
      }
    } else if (t.kind === 'ident' || t.kind === 'string' || t.kind === 'number') {
      first = i;
    } else {
      return i + 1;
    }
    if (tokens[first - 1]?.text === '.' && first - 2 >= 0) i = first - 2;
    else return first;
  }
}

function matchBackward(tokens: readonly Token[], close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    const text = tokens[i]!.text;
    if (OPEN[text]) depth++;
    else if (CLOSE[text] && --depth === 0) return i;
  }
  throw new OptionalSyntaxError(`unbalanced ${tokens[close]!.text}`);
}

function matchForward(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const text = tokens[i]!.text;
    if (CLOSE[text]) depth++;
    else if (OPEN[text] && --depth === 0) return i;
  }
  throw new OptionalSyntaxError(`unbalanced ${tokens[open]!.text}`);
}
