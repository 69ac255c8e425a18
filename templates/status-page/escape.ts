/**
 * HTML escaping for the status page: every value in it comes from the cluster, a config or a person
 * (node names, reasons, packages, approvers, freeze reasons), and goes through `html` before it is
 * placed in text or in a quoted attribute. kubemaint's own markup around it never does.
 */
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const html = (text: string | number): string =>
  String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
