/**
 * Reading shoutrrr URLs with the WHATWG parser: query keys are case-insensitive, `+` is a space,
 * and userinfo is percent-decoded here because `URL` leaves it encoded. `maskUrl` keeps only the
 * scheme and host, which is what errors and logs may show.
 */
import { urlError } from './types.js';

/** `scheme://host[:port]`, or `scheme://…` when the URL cannot be read at all. */
export function maskUrl(raw: string): string {
  const match = /^([a-z][a-z0-9+.-]*):(?:\/\/(?:[^/?#]*@)?([^/?#@:]*)(:\d+)?)?/i.exec(raw.trim());
  if (!match) return '(not a URL)';
  const [, scheme = '', host, port = ''] = match;
  return host === undefined
    ? `${scheme.toLowerCase()}:…`
    : `${scheme.toLowerCase()}://${host}${port}`;
}

/** The query, keys lower-cased, for the documented options (shoutrrr treats them case-insensitively). */
export function queryProps(url: URL): Map<string, string> {
  const props = new Map<string, string>();
  for (const [key, value] of url.searchParams) props.set(key.toLowerCase(), value);
  return props;
}

export function decodePart(value: string, masked: string, what: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw urlError(masked, `the ${what} has a broken %-escape`, 'escape a literal % as %25');
  }
}

export const userOf = (url: URL, masked: string): string =>
  decodePart(url.username, masked, 'user name');
export const passwordOf = (url: URL, masked: string): string =>
  decodePart(url.password, masked, 'password');

/** Path segments, decoded, empty ones dropped. */
export function pathSegments(url: URL, masked: string): string[] {
  return url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodePart(s, masked, 'path'));
}

const YES = new Set(['yes', 'true', '1', 'on']);
const NO = new Set(['no', 'false', '0', 'off']);

/** shoutrrr's yes/no options. */
export function boolProp(
  props: ReadonlyMap<string, string>,
  key: string,
  fallback: boolean,
  masked: string,
): boolean {
  const value = props.get(key);
  if (value === undefined || value === '') return fallback;
  const lower = value.toLowerCase();
  if (YES.has(lower)) return true;
  if (NO.has(lower)) return false;
  throw urlError(masked, `${key}=${value} is not yes or no`);
}

export function intProp(
  props: ReadonlyMap<string, string>,
  key: string,
  masked: string,
  range: { min: number; max: number },
): number | undefined {
  const value = props.get(key);
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < range.min || n > range.max) {
    throw urlError(
      masked,
      `${key}=${value} must be a whole number from ${range.min} to ${range.max}`,
    );
  }
  return n;
}

/** Comma-separated list option, trimmed, empty entries dropped. */
export function listProp(props: ReadonlyMap<string, string>, ...keys: string[]): string[] {
  for (const key of keys) {
    const value = props.get(key);
    if (value !== undefined) {
      return value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    }
  }
  return [];
}

/** The first option present under any of its aliases. */
export function prop(props: ReadonlyMap<string, string>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = props.get(key);
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** `host[:port]` as written, case kept (URL keeps the case of non-special hosts). */
export const hostOf = (url: URL): string => url.host;
