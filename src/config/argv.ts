/**
 * Host commands from the config as an argv list. A command written as one string is split the way
 * a POSIX shell splits words (quotes, backslashes), but no shell ever runs it: pipes, redirects,
 * variables, globs and command substitution are refused, not passed through as literal text that
 * would surprise the author on the node (invariant 3: host commands come only from the config).
 */

export type SplitResult = { ok: true; argv: string[] } | { ok: false; error: string };

// Characters a shell would interpret when unquoted; inside double quotes `$` and backquote still are.
const SHELL_UNQUOTED = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']']);
const SHELL_IN_DOUBLE = new Set(['$', '`']);

const refuse = (char: string): SplitResult => ({
  ok: false,
  error: `uses the shell feature \`${char}\`, but the command runs without a shell`,
});

export function splitCommand(text: string): SplitResult {
  const argv: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (SHELL_IN_DOUBLE.has(char)) return refuse(char);
      else if (char === '\\' && /["\\]/.test(text.charAt(i + 1))) word += text.charAt(++i);
      else word += char;
    } else if (/\s/.test(char)) {
      if (word !== undefined) argv.push(word);
      word = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (char === '\\') {
      if (i + 1 >= text.length) return { ok: false, error: 'ends with a lone backslash' };
      word = (word ?? '') + text.charAt(++i);
    } else if (SHELL_UNQUOTED.has(char) || (word === undefined && (char === '~' || char === '#'))) {
      return refuse(char);
    } else {
      word = (word ?? '') + char;
    }
  }
  if (quote !== undefined) return { ok: false, error: `has an unterminated ${quote} quote` };
  if (word !== undefined) argv.push(word);
  if (argv.length === 0) return { ok: false, error: 'is empty' };
  return { ok: true, argv };
}
