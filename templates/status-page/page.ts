/**
 * The status page's document: the first paint is the fragment rendered on the server (the page works
 * without JavaScript, as a snapshot); page.js then keeps it live over Server-Sent Events. Styles and
 * script are files of their own (relative links, so the page works behind `kubectl proxy` or any path
 * prefix): the page's Content-Security-Policy allows nothing inline.
 */
import type { TimelineRange } from '../../src/core/timeline.js';
import { html } from './escape.js';

export function statusPageHtml(page: {
  cluster: string;
  range: TimelineRange;
  fragment: string;
}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kubemaint · ${html(page.cluster)}</title>
<link rel="icon" href="status/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="status/page.css">
<script src="status/page.js" defer></script>
</head>
<body>
<p id="live" class="live" role="status">snapshot</p>
<main id="view" data-range="${html(page.range)}">
${page.fragment}
</main>
</body>
</html>
`;
}
