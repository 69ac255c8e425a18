/** Ages as kubectl prints them, for the built-in and the custom resources' tables alike. */

/** kubectl's `HumanDuration` style: 45s, 5m10s, 3h, 2d4h, 400d. */
export function humanAge(fromIso: string | undefined, now: Date): string {
  if (!fromIso) return '<unknown>';
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(fromIso)) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 ? `${d}d${h % 24}h` : `${d}d`;
  return d < 365 * 2 ? `${d}d` : `${Math.floor(d / 365)}y${d % 365}d`;
}
