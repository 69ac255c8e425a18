/**
 * The status page's script and styles, served as `/status/page.js` and `/status/page.css`. The script
 * only swaps in the fragment each Server-Sent Event carries (rendered and escaped on the server) and
 * says whether the page is live; it builds no markup from data itself.
 */

export const PAGE_SCRIPT = `'use strict';
(function () {
  var view = document.getElementById('view');
  var live = document.getElementById('live');
  var updates = 0;
  var source = new EventSource('status/events?range=' + encodeURIComponent(view.dataset.range || 'fit'));
  function say(text, on) {
    live.textContent = text;
    live.className = on ? 'live on' : 'live off';
  }
  source.addEventListener('open', function () { say('live', true); });
  source.addEventListener('view', function (event) {
    view.innerHTML = event.data;
    updates += 1;
    view.dataset.updates = String(updates);
    say('live', true);
  });
  source.addEventListener('error', function () {
    say(source.readyState === EventSource.CLOSED ? 'disconnected: reload the page' : 'reconnecting…', false);
  });
})();
`;

/** A dot in the phases' colours, so the page has an icon and the browser asks for no other. */
export const PAGE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#3f9c5a"/><rect x="3" y="7" width="10" height="2" fill="#fff"/></svg>
`;

export const PAGE_STYLE = `:root {
  --waiting: #9aa5b1; --draining: #e8a33d; --rebooting: #d64545; --upgrading: #8e5bd6;
  --verifying: #3f9c5a; --window: #e6f4ea; --freeze: #fbe3e3; --ink: #1f2933; --muted: #616e7c;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
}
body { margin: 1.5rem; background: #fff; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
.summary p { margin: .2rem 0; }
.as-of, .note, .by, .at, .scanned { color: var(--muted); }
.paused { background: #fff3cd; border: 1px solid #e0c36c; padding: .3rem .6rem; display: inline-block; }
.window.open::before { content: "● "; color: var(--verifying); }
.window.closed::before { content: "● "; color: var(--rebooting); }
.live { position: fixed; top: .6rem; right: 1rem; margin: 0; font-size: .85rem; padding: .1rem .5rem; border-radius: 1rem; background: #eee; }
.live.on { background: #e6f4ea; color: #1e6b34; }
.live.off { background: #fbe3e3; color: #8a1f1f; }
.ranges { margin: .8rem 0; }
.ranges a { margin-right: .4rem; }
.ranges a[aria-current] { font-weight: bold; text-decoration: none; color: var(--ink); }
.legend { display: flex; flex-wrap: wrap; gap: .8rem; font-size: .85rem; margin-bottom: .4rem; }
.key::before { content: ""; display: inline-block; width: .9rem; height: .7rem; margin-right: .3rem; border-radius: 2px; vertical-align: baseline; }
.key.phase-waiting::before { background: var(--waiting); }
.key.phase-draining::before { background: var(--draining); }
.key.phase-rebooting::before { background: var(--rebooting); }
.key.phase-upgrading::before { background: var(--upgrading); }
.key.phase-verifying::before { background: var(--verifying); }
.key.window::before { background: var(--window); border: 1px solid #b7dfc2; }
.key.freeze::before { background: var(--freeze); border: 1px solid #eab0b0; }
.key.mark::before { background: var(--rebooting); border-radius: 50%; width: .6rem; height: .6rem; }
svg.timeline { width: 100%; height: auto; font-size: 12px; }
svg .row-bg { fill: transparent; }
svg .row:nth-child(even) .row-bg { fill: #1f2933; fill-opacity: .04; }
svg .row.missing .node-name { fill: var(--muted); text-decoration: line-through; }
svg .row.cordoned .node-name { font-style: italic; }
svg .node-name { fill: var(--ink); }
svg .mark { fill: var(--rebooting); }
svg .window { fill: var(--window); }
svg .freeze { fill: var(--freeze); }
svg .tick { stroke: #e4e7eb; }
svg .tick-label { fill: var(--muted); }
svg .now { stroke: var(--ink); stroke-dasharray: 3 3; }
svg .bar.phase-waiting { fill: var(--waiting); }
svg .bar.phase-draining { fill: var(--draining); }
svg .bar.phase-rebooting { fill: var(--rebooting); }
svg .bar.phase-upgrading { fill: var(--upgrading); }
svg .bar.phase-verifying { fill: var(--verifying); }
svg .bar.ongoing { stroke: var(--ink); stroke-width: 1; }
svg .request.state-failed .bar { stroke: #8a1f1f; stroke-width: 1.5; }
svg .request.state-rejected .bar, svg .request.state-cancelled .bar, svg .request.state-expired .bar { opacity: .45; }
table { border-collapse: collapse; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #e4e7eb; vertical-align: top; }
td.state { font-weight: 600; }
td.id, td.node, td.since { white-space: nowrap; }
ul.waits { margin: .2rem 0 0 1rem; padding: 0; color: var(--muted); }
`;
