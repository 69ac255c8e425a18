/**
 * Where the CLI prints. Node names, reasons, annotations and errors quoting them come from the
 * cluster or from people, so every write goes through core/printable: an escape sequence in a
 * reason is shown (`\u001b]0;…`), never run by the terminal. Line feeds and tabs stay.
 */
import { printable } from '../core/printable.js';

export const out = (text: string): void => void process.stdout.write(printable(text, 'many'));
export const err = (text: string): void => void process.stderr.write(printable(text, 'many'));
