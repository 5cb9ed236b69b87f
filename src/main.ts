// Entry point of the page: defines <splade-app>, and says so in plain words if the page itself cannot start.
import './ui/splade-app.ts';

window.addEventListener('error', (event) => {
  if (customElements.get('splade-app')) return;
  document.body.insertAdjacentHTML(
    'beforeend',
    `<p role="alert" style="font-family:sans-serif;margin:1em">The page failed to start: ${String(event.message).replace(/</g, '&lt;')}. ` +
      'Try a recent Chrome, Edge, Firefox or Safari.</p>',
  );
});
