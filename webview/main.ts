/**
 * Browser bundle of the revision-comparison panel. The panel itself (chart.js charts, verdicts)
 * is issue 4; this entry point keeps the fourth esbuild target and the theme-aware empty state.
 */
const root = document.getElementById('app');
if (root) {
  const message = document.createElement('p');
  message.textContent = 'Revision comparison is not available in this version yet.';
  root.replaceChildren(message);
}
